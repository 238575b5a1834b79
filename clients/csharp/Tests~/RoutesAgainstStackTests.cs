using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using GameLiftSockets.Protocol;

namespace GameLiftSockets.Tests
{
    /// <summary>
    /// Every route's method against the local stack (tests/suites/rust_client_routes.rs and
    /// parties.rs for the Rust client; the TypeScript suite has no such scenarios): parties,
    /// presence, placement with rejoin and latencies, a saved cursor, matchmaking.
    /// </summary>
    public sealed class RoutesAgainstStack : OwnStack
    {
        protected override Dictionary<string, string> Settings
        {
            get { return new Dictionary<string, string> { { "SIM_ACCEPTANCE_TIMEOUT_SECONDS", "30" } }; }
        }

        // The repository's 1v1 rule set, acceptance required.
        protected override string[] Arguments
        {
            get { return new[] { "--matchmaking-rule-set", System.IO.Path.Combine(Environment.GetEnvironmentVariable("REPO_ROOT"), "local/rule-sets/duel.json") }; }
        }

        [Scenario("given a party made, joined, used and left through the client's methods, then every member sees every change once, in version order")]
        public async Task PartyLifecycle()
        {
            var ada = new Player(stack, "ada-party");
            var ben = new Player(stack, "ben-party");
            var cal = new Player(stack, "cal-party");
            foreach (var p in new[] { ada, ben, cal }) await p.Connect();

            var created = await ada.Client.CreatePartyAsync(4);
            string partyId = created.Party.PartyId;
            Check.Equal("ada-party", created.Party.LeaderId, "the creator leads");
            var invited = await ada.Client.InviteToPartyAsync("ben-party");
            Check.Equal(partyId, invited.PartyId, "the invitation's party");
            var invite = await ben.Next<PartyInviteFrame>(f => f.PartyId == partyId, "ben's invitation");
            Check.Equal("ada-party", invite.From, "who invited");
            var joined = await ben.Client.JoinPartyAsync(partyId);
            Check.Equal(2, joined.Party.Members.Count, "two members");

            await ada.Client.InviteToPartyAsync("cal-party");
            await cal.Next<PartyInviteFrame>(f => f.PartyId == partyId, "cal's invitation");
            await cal.Client.DeclinePartyInviteAsync(partyId);
            var declined = await ada.Next<PartyInviteDeclinedFrame>(f => f.PlayerId == "cal-party", "the decline reaching ada");
            Check.Equal(partyId, declined.PartyId, "the declined party");

            var chat = await ben.Client.SendPartyMessageAsync(partyId, new JsonObject { { "text", "gl hf" } });
            Check.Equal(1L, chat.Queued, "queued for the other member");
            var said = await ada.Next<MessageFrame>(m => m.PartyId == partyId, "party chat");
            Check.Equal("gl hf", ((JsonObject)said.Message).GetString("text"), "the text");

            var promoted = await ada.Client.PromotePartyLeaderAsync("ben-party");
            Check.Equal("ben-party", promoted.Party.LeaderId, "ben leads");
            await Check.FailsWith(ErrorCode.Forbidden, () => ada.Client.KickFromPartyAsync("ben-party"), "a member kicking the leader");
            var kicked = await ben.Client.KickFromPartyAsync("ada-party");
            Check.Equal(1, kicked.Party.Members.Count, "ada is out");
            await ada.Next<PartyFrame>(f => f.Change == ChangeKind.Kicked, "ada told she was kicked");
            var left = await ben.Client.LeavePartyAsync();
            Check.Equal(partyId, left.PartyId, "the party left");

            await ben.Next<PartyFrame>(f => f.Change == ChangeKind.Disbanded, "the last member leaving disbands it");
            var versions = ben.Pushed<PartyFrame>().Select(f => f.Party.Version).ToList();
            Check.Sequence(versions.OrderBy(v => v).Distinct(), versions, "each version once, in order");
            Check.Sequence(new[] { ChangeKind.Joined, ChangeKind.Promoted, ChangeKind.Kicked, ChangeKind.Disbanded },
                ben.Pushed<PartyFrame>().Select(f => f.Change), "ben's changes");
            foreach (var p in new[] { ada, ben, cal }) p.Close();
        }

        [Scenario("given presence methods, when a watched player comes online, then it is pushed, and a bad id is refused with bad_request")]
        public async Task PresenceSubscriptions()
        {
            var ann = new Player(stack, "ann-watch");
            await ann.Connect();
            var ack = await ann.Client.SubscribePresenceAsync(new[] { "cid-watched" });
            Check.Equal("offline", ack.Presence["cid-watched"], "offline before connecting");
            var cid = new Player(stack, "cid-watched");
            await cid.Connect();
            var online = await ann.Next<PresenceFrame>(f => f.PlayerId == "cid-watched", "cid online");
            Check.Equal("online", online.Status, "the status");
            await ann.Client.UnsubscribePresenceAsync(new[] { "cid-watched" });
            await Check.FailsWith(ErrorCode.BadRequest, () => ann.Client.SubscribePresenceAsync(new[] { "not a player id" }), "a bad id");
            cid.Close();
            ann.Close();
        }

        [Scenario("given a fulfilled placement, then rejoinSession seats the player again in the same game; latencies are stored as sent")]
        public async Task PlacementThenRejoin()
        {
            var dee = new Player(stack, "dee-rejoin");
            await dee.Connect();
            var latencies = await dee.Client.SetPlacementLatenciesAsync(new Dictionary<string, double> { { "local", 20 } });
            Check.Equal(20L, latencies.Latencies["local"], "stored latencies");
            var placed = await dee.Client.RequestPlacementAsync();
            var result = await dee.Next<PlacementFrame>(p => p.PlacementId == placed.PlacementId, "the placement");
            Check.Equal(PlacementStatus.Fulfilled, result.Status, "fulfilled");
            var rejoined = await dee.Client.RejoinSessionAsync();
            Check.Equal(result.GameSession.GameSessionArn, rejoined.GameSession.GameSessionArn, "the same game");
            Check.NotEqual(result.GameSession.PlayerSessionId, rejoined.GameSession.PlayerSessionId, "a new player session");
            dee.Close();
        }

        [Scenario("given a cursor saved by an earlier run, when the client connects after it, then only what came after is replayed")]
        public async Task ConnectAfterSavedCursor()
        {
            var ann = new Player(stack, "ann-cursor");
            var ben = new Player(stack, "ben-cursor");
            await ann.Connect();
            await ben.Connect();
            await ann.Client.SendMessageAsync(new[] { "ben-cursor" }, new JsonObject { { "n", 1 } });
            var first = await ben.Next<MessageFrame>(m => true, "message 1");
            await ann.Client.SendMessageAsync(new[] { "ben-cursor" }, new JsonObject { { "n", 2 } });
            await Check.Until(() => ben.Messages.Count == 2, "message 2");
            // The game saved message 1's seq as handled, then quit before handling message 2.
            ben.Close();
            await ann.Client.SendMessageAsync(new[] { "ben-cursor" }, new JsonObject { { "n", 3 } });

            var again = new Player(stack, "ben-cursor");
            await again.Client.ConnectAsync(first.Seq);
            await Check.Until(() => again.Messages.Count >= 2, "the replay");
            await Check.Sleep(500);
            Check.Sequence(new long[] { 2, 3 }, again.MessageNumbers(), "message 1 was handled before the cursor; 2 and 3 once each");
            again.Close();
            ann.Close();
        }

        [Scenario("given matchmaking methods, when both players accept, then both complete with a seat; a stopped ticket is cancelled and stopping again is not_found")]
        public async Task MatchmakingAcceptAndStop()
        {
            var body = new StartMatchmakingRequestBody
            {
                Attributes = new Dictionary<string, object> { { "skill", 1000 } },
                Latencies = new Dictionary<string, double> { { "local", 20 } },
            };
            var players = new[] { new Player(stack, "eve-match"), new Player(stack, "fay-match") };
            var tickets = new List<string>();
            foreach (var p in players)
            {
                await p.Connect();
                var ack = await p.Client.StartMatchmakingAsync(body);
                Check.Equal(TicketStatus.Queued, ack.Status, "queued");
                tickets.Add(ack.TicketId);
            }
            for (int i = 0; i < 2; i++)
            {
                var proposed = await players[i].Next<MatchmakingFrame>(f => f.TicketId == tickets[i] && f.Status == TicketStatus.RequiresAcceptance, "a proposed match");
                Check.Sequence(new[] { i == 0 ? "fay-match" : "eve-match" }, proposed.Players, "the other player");
                await players[i].Client.AcceptMatchAsync(tickets[i], true);
            }
            for (int i = 0; i < 2; i++)
            {
                var done = await players[i].Next<MatchmakingFrame>(f => f.TicketId == tickets[i] && f.Status == TicketStatus.Completed, "the match completed");
                Check.True(done.GameSession.Port > 0 && done.GameSession.MatchId != null, "a seat: " + done);
                players[i].Close();
            }

            var gus = new Player(stack, "gus-match");
            await gus.Connect();
            await gus.Client.SetMatchmakingAttributesAsync(new Dictionary<string, object> { { "skill", 5000 } });
            var ticket = (await gus.Client.StartMatchmakingAsync(body)).TicketId;
            await gus.Client.StopMatchmakingAsync();
            await gus.Next<MatchmakingFrame>(f => f.TicketId == ticket && f.Status == TicketStatus.Cancelled, "the stopped ticket cancelled");
            await Check.FailsWith(ErrorCode.NotFound, () => gus.Client.StopMatchmakingAsync(ticket), "stopping it again");
            await Check.FailsWith(ErrorCode.BadRequest, () => gus.Client.AcceptMatchAsync("not a ticket!", true), "a bad ticket id");
            gus.Close();
        }
    }

    /// <summary>A fleet with no server process: a placement stays pending until cancelled.</summary>
    public sealed class NoCapacity : OwnStack
    {
        protected override Dictionary<string, string> Settings { get { return new Dictionary<string, string> { { "SIM_FLEET_SERVERS", "0" } }; } }

        [Scenario("given a pending placement, when the client cancels it, then CANCELLED is pushed and a second cancel is a typed error")]
        public async Task CancelPendingPlacement()
        {
            var dee = new Player(stack, "dee-cancel");
            await dee.Connect();
            var placed = await dee.Client.RequestPlacementAsync();
            var conflict = await Check.FailsWith(ErrorCode.Conflict, () => dee.Client.RequestPlacementAsync(), "a second placement while one is pending");
            Check.Equal(placed.PlacementId, conflict.Reply.PlacementId, "the conflict names the pending one");
            var cancelled = await dee.Client.CancelPlacementAsync(placed.PlacementId);
            Check.Equal(placed.PlacementId, cancelled.PlacementId, "the cancelled id");
            var frame = await dee.Next<PlacementFrame>(p => p.PlacementId == placed.PlacementId, "the result");
            Check.Equal(PlacementStatus.Cancelled, frame.Status, "cancelled");
            var again = await Check.Fails(() => dee.Client.CancelPlacementAsync(), "cancelling again");
            Check.True(again.Code == ErrorCode.NotFound || again.Code == ErrorCode.Conflict, "not_found or conflict: " + again.Code);
            dee.Close();
        }
    }
}
