using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using GameLiftSockets.Protocol;

namespace GameLiftSockets.Tests
{
    /// <summary>
    /// The friends methods against the local stack (friends.test.mjs and
    /// tests/suites/rust_client_friends.rs for the other clients): the five friend routes and their
    /// <c>friend</c> events, <c>setActivity</c> reaching a friend in a <c>presence</c> frame without
    /// subscribing, and <c>joinFriendGame</c> on the GameLift simulator (a seat, and a refusal).
    /// </summary>
    public sealed class FriendsAgainstStack : OwnStack
    {
        protected override Dictionary<string, string> Settings { get { return new Dictionary<string, string>(); } }

        /// <summary>Waits for <paramref name="who"/>'s `friend` frame saying the relation with <paramref name="other"/> became <paramref name="state"/>.</summary>
        private static Task<FriendFrame> Told(Player who, string other, string state)
        {
            return who.Next<FriendFrame>(f => f.PlayerId == other && f.State == state, other + " " + state);
        }

        /// <summary><paramref name="a"/> invites <paramref name="b"/>, who accepts by inviting back; both told.</summary>
        private static async Task Befriend(Player a, string aId, Player b, string bId)
        {
            Check.Equal("invited", (await a.Client.AddFriendAsync(bId)).State, "an invitation");
            await Told(b, aId, "invitation");
            Check.Equal("friends", (await b.Client.AddFriendAsync(aId)).State, "accepted");
            await Told(a, bId, "friends");
        }

        private static async Task<Player[]> Online(LocalStack stack, params string[] ids)
        {
            var players = ids.Select(id => new Player(stack, id)).ToArray();
            foreach (var p in players) await p.Connect();
            return players;
        }

        [Scenario("given the friend methods, when players befriend, list, block and remove, then each change is pushed and listed")]
        public async Task FriendsLifecycle()
        {
            var players = await Online(stack, "ann-friends", "ben-friends", "cid-friends");
            Player ann = players[0], ben = players[1], cid = players[2];
            await Befriend(ann, "ann-friends", ben, "ben-friends");
            await cid.Client.AddFriendAsync("ann-friends");
            await Told(ann, "cid-friends", "invitation");

            var page = await ann.Client.ListFriendsAsync();
            Check.Sequence(new[] { "ben-friends friends online", "cid-friends invitation " },
                page.Friends.Select(f => f.PlayerId + " " + f.State + " " + f.Presence), "one page, by id; presence for friends only");
            Check.Equal(null, page.Cursor, "the last page");
            var invitations = await ann.Client.ListFriendsAsync("invitation");
            Check.Sequence(new[] { "cid-friends" }, invitations.Friends.Select(f => f.PlayerId), "only invitations");

            // Blocking ends cid's invitation: cid is told `removed`, as for a decline.
            Check.Equal("blocked", (await ann.Client.BlockPlayerAsync("cid-friends")).State, "blocked");
            await Told(cid, "ann-friends", "removed");
            var blocked = await ann.Client.ListFriendsAsync("blocked");
            Check.Sequence(new[] { "cid-friends" }, blocked.Friends.Select(f => f.PlayerId), "only blocks");
            Check.Equal(null, (await ann.Client.UnblockPlayerAsync("cid-friends")).State, "unblocked");

            Check.Equal(null, (await ben.Client.RemoveFriendAsync("ann-friends")).State, "removed");
            await Told(ann, "ben-friends", "removed");
            Check.Equal(0, (await ann.Client.ListFriendsAsync()).Friends.Count, "nothing left");
            await Check.FailsWith(ErrorCode.NotFound, () => ann.Client.AddFriendAsync("nobody-has-this-id"), "an unknown player");
            foreach (var p in players) p.Close();
        }

        [Scenario("given friends, when one sets an activity, then the other gets it in a presence frame without subscribing")]
        public async Task ActivityToFriends()
        {
            var players = await Online(stack, "ann-activity", "ben-activity");
            Player ann = players[0], ben = players[1];
            await Befriend(ann, "ann-activity", ben, "ben-activity");
            var stored = await ben.Client.SetActivityAsync("ranked, map Dust, 3–1", new JsonObject { { "map", "dust" } });
            Check.Equal("ranked, map Dust, 3–1", stored.ActivityValue, "what was stored");
            var pushed = await ann.Next<PresenceFrame>(f => f.PlayerId == "ben-activity" && f.Activity != null, "ben's activity");
            Check.Equal("online", pushed.Status, "the status stays online");
            Check.Equal("ranked, map Dust, 3–1", pushed.Activity, "the activity");
            Check.Equal("dust", pushed.Details.GetString("map"), "its details");
            await Check.FailsWith(ErrorCode.BadRequest, () => ben.Client.SetActivityAsync(new string('x', 65)), "65 characters");
            foreach (var p in players) p.Close();
        }

        [Scenario("given a friend in a game on the simulator, when joining it, then a seat there becomes the client's and a stranger is refused forbidden")]
        public async Task JoinFriendGame()
        {
            var players = await Online(stack, "ann-join", "ben-join", "cid-join");
            Player ann = players[0], ben = players[1], cid = players[2];
            var placed = await ben.Client.RequestPlacementAsync();
            var result = await ben.Next<PlacementFrame>(p => p.PlacementId == placed.PlacementId && p.Status == PlacementStatus.Fulfilled, "ben placed");
            await Befriend(ann, "ann-join", ben, "ben-join");

            var joined = await ann.Client.JoinFriendGameAsync("ben-join");
            Check.Equal(result.GameSession.GameSessionArn, joined.GameSession.GameSessionArn, "ben's game");
            Check.NotEqual(result.GameSession.PlayerSessionId, joined.GameSession.PlayerSessionId, "a player session of ann's own");
            Check.Equal(joined.GameSession.PlayerSessionId, ann.Client.Seat.PlayerSessionId, "the client's seat");
            var refused = await Check.FailsWith(ErrorCode.Forbidden, () => cid.Client.JoinFriendGameAsync("ben-join"), "not friends");
            Check.Equal("ben-join", refused.Reply.PlayerId, "the refusal names the friend");
            Check.Equal(null, cid.Client.Seat, "no seat");
            foreach (var p in players) p.Close();
        }
    }
}
