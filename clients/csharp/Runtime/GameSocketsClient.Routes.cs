using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using GameLiftSockets.Protocol;

namespace GameLiftSockets
{
    // One method per route of the protocol (README.md#client-protocol-v1 at the repository root).
    // Each completes with the route's ack as its generated type (Protocol.g.cs), or fails with a GameSocketsException carrying the
    // server's code (or the client's: timeout, connection_lost, not_connected, closed, invalid).
    public sealed partial class GameSocketsClient
    {
        /// <summary>`sendMessage` to 1–100 players; <paramref name="message"/> is any JSON value
        /// (a JsonObject, a dictionary, a list, a string, a number...). Ack: `queued`.</summary>
        public Task<SendMessageAck> SendMessageAsync(IEnumerable<string> playerIds, object message)
        {
            return AckAsync(Routes.SendMessage, new SendMessageBody { PlayerIds = ListOf(playerIds), Message = message }, SendMessageAck.FromJson);
        }

        /// <summary>`sendMessage` to every other member of your party.</summary>
        public Task<SendMessageAck> SendPartyMessageAsync(string partyId, object message)
        {
            return AckAsync(Routes.SendMessage, new SendMessageBody { PartyId = partyId, Message = message }, SendMessageAck.FromJson);
        }

        /// <summary>`sessionPlacementRequest`: the result comes as a <see cref="Placement"/> event. Ack: `placementId`, `status` PENDING.</summary>
        public Task<PlacementAck> RequestPlacementAsync(PlacementRequestBody body = null)
        {
            return AckAsync(Routes.SessionPlacementRequest, body, PlacementAck.FromJson);
        }

        /// <summary>`setPlacementLatencies`: region → ms, sent with the party leader's placement or ticket (`{}` clears).</summary>
        public Task<LatenciesAck> SetPlacementLatenciesAsync(IDictionary<string, double> latencies)
        {
            return AckAsync(Routes.SetPlacementLatencies, new LatenciesBody { Latencies = new Dictionary<string, double>(latencies ?? new Dictionary<string, double>()) }, LatenciesAck.FromJson);
        }

        /// <summary>`cancelPlacement`: yours when <paramref name="placementId"/> is null.</summary>
        public Task<CancelPlacementAck> CancelPlacementAsync(string placementId = null)
        {
            return AckAsync(Routes.CancelPlacement, new CancelPlacementBody { PlacementId = placementId }, CancelPlacementAck.FromJson);
        }

        /// <summary>`rejoinSession`: a new player session in the same game (`gameSession`).</summary>
        public Task<SeatAck> RejoinSessionAsync()
        {
            return AckAsync(Routes.RejoinSession, null, SeatAck.FromJson);
        }

        /// <summary>`subscribePresence`: `presence` now, then <see cref="Presence"/> events.</summary>
        public Task<SubscribePresenceAck> SubscribePresenceAsync(IEnumerable<string> playerIds)
        {
            return AckAsync(Routes.SubscribePresence, new PlayerIdsBody { PlayerIds = ListOf(playerIds) }, SubscribePresenceAck.FromJson);
        }

        public Task<UnsubscribePresenceAck> UnsubscribePresenceAsync(IEnumerable<string> playerIds)
        {
            return AckAsync(Routes.UnsubscribePresence, new PlayerIdsBody { PlayerIds = ListOf(playerIds) }, UnsubscribePresenceAck.FromJson);
        }

        /// <summary>`createParty` (2–PARTY_MAX_SIZE; the stack's maximum when null). Ack: `party`.</summary>
        public Task<PartyAck> CreatePartyAsync(int? maxSize = null)
        {
            return AckAsync(Routes.CreateParty, new CreatePartyBody { MaxSize = maxSize }, PartyAck.FromJson);
        }

        public Task<InviteToPartyAck> InviteToPartyAsync(string playerId)
        {
            return AckAsync(Routes.InviteToParty, new PlayerBody { PlayerId = playerId }, InviteToPartyAck.FromJson);
        }

        public Task<PartyAck> JoinPartyAsync(string partyId)
        {
            return AckAsync(Routes.JoinParty, new PartyBody { PartyId = partyId }, PartyAck.FromJson);
        }

        public Task<PartyIdAck> DeclinePartyInviteAsync(string partyId)
        {
            return AckAsync(Routes.DeclinePartyInvite, new PartyBody { PartyId = partyId }, PartyIdAck.FromJson);
        }

        public Task<PartyIdAck> LeavePartyAsync()
        {
            return AckAsync(Routes.LeaveParty, null, PartyIdAck.FromJson);
        }

        public Task<PartyAck> KickFromPartyAsync(string playerId)
        {
            return AckAsync(Routes.KickFromParty, new PlayerBody { PlayerId = playerId }, PartyAck.FromJson);
        }

        public Task<PartyAck> PromotePartyLeaderAsync(string playerId)
        {
            return AckAsync(Routes.PromotePartyLeader, new PlayerBody { PlayerId = playerId }, PartyAck.FromJson);
        }

        /// <summary>`startMatchmaking`: a solo player's or a party leader's ticket; its states come as <see cref="Matchmaking"/> events.</summary>
        public Task<StartMatchmakingAck> StartMatchmakingAsync(StartMatchmakingRequestBody body = null)
        {
            return AckAsync(Routes.StartMatchmaking, body, StartMatchmakingAck.FromJson);
        }

        public Task<AcceptMatchAck> AcceptMatchAsync(string ticketId, bool accept)
        {
            return AckAsync(Routes.AcceptMatch, new AcceptMatchRequestBody { TicketId = ticketId, Accept = accept }, AcceptMatchAck.FromJson);
        }

        /// <summary>`stopMatchmaking`: your live ticket when <paramref name="ticketId"/> is null.</summary>
        public Task<TicketAck> StopMatchmakingAsync(string ticketId = null)
        {
            return AckAsync(Routes.StopMatchmaking, new TicketBody { TicketId = ticketId }, TicketAck.FromJson);
        }

        /// <summary>`setMatchmakingAttributes`: your attributes for the party leader's ticket (number,
        /// string, list of strings or string → number each; empty clears).</summary>
        public Task<AttributesAck> SetMatchmakingAttributesAsync(IDictionary<string, object> attributes)
        {
            return AckAsync(Routes.SetMatchmakingAttributes, new AttributesBody { Attributes = new Dictionary<string, object>(attributes ?? new Dictionary<string, object>()) }, AttributesAck.FromJson);
        }

        /// <summary>`addFriend`: invites the player (or accepts their invitation). Ack: your side's `state`
        /// (`invited` or `friends`); each change also comes as a <see cref="Friend"/> event.</summary>
        public Task<FriendAck> AddFriendAsync(string playerId)
        {
            return AckAsync(Routes.AddFriend, new PlayerBody { PlayerId = playerId }, FriendAck.FromJson);
        }

        /// <summary>`removeFriend`: ends a friendship, declines their invitation or withdraws yours (`state` null).</summary>
        public Task<FriendAck> RemoveFriendAsync(string playerId)
        {
            return AckAsync(Routes.RemoveFriend, new PlayerBody { PlayerId = playerId }, FriendAck.FromJson);
        }

        public Task<FriendAck> BlockPlayerAsync(string playerId)
        {
            return AckAsync(Routes.BlockPlayer, new PlayerBody { PlayerId = playerId }, FriendAck.FromJson);
        }

        public Task<FriendAck> UnblockPlayerAsync(string playerId)
        {
            return AckAsync(Routes.UnblockPlayer, new PlayerBody { PlayerId = playerId }, FriendAck.FromJson);
        }

        /// <summary>`listFriends`: a page of your relations (only <paramref name="state"/>'s when given; friends
        /// with presence) after <paramref name="cursor"/>, the previous page's `cursor`.</summary>
        public Task<ListFriendsAck> ListFriendsAsync(string state = null, string cursor = null)
        {
            return AckAsync(Routes.ListFriends, new ListFriendsBody { State = state, Cursor = cursor }, ListFriendsAck.FromJson);
        }

        /// <summary>`setActivity`: what you are doing (at most 64 characters; <paramref name="details"/> an object
        /// of at most 512 bytes), shown to friends and subscribers in `presence` frames; `""` with no details clears
        /// it. Ack: what was stored.</summary>
        public Task<Activity> SetActivityAsync(string activity, JsonObject details = null)
        {
            return AckAsync(Routes.SetActivity, new Activity { ActivityValue = activity, Details = details }, Activity.FromJson);
        }

        /// <summary>`joinFriendGame`: a seat in a friend's running game, answered like `rejoinSession`
        /// (`gameSession`, which becomes <see cref="Seat"/>); refused `forbidden` (not friends), `not_found` (in no game), `session_full` or
        /// `session_ended`.</summary>
        public Task<SeatAck> JoinFriendGameAsync(string playerId)
        {
            return AckAsync(Routes.JoinFriendGame, new PlayerBody { PlayerId = playerId }, SeatAck.FromJson);
        }

        /// <summary>A `heartbeat` with the cursor that asks for the server time (`serverTime`);
        /// the keep-alive timer's frames ask for nothing.</summary>
        public Task<HeartbeatAck> HeartbeatAsync()
        {
            return AckAsync(Routes.Heartbeat, null, HeartbeatAck.FromJson);
        }

        /// <summary>The request's ack, read as its route's type (generated from the schema's `RouteAck`).</summary>
        private async Task<T> AckAsync<T>(string route, object body, Func<JsonObject, T> read)
        {
            var ack = await RequestAsync(route, body);
            return read(ack.Fields);
        }

        private static List<string> ListOf(IEnumerable<string> ids)
        {
            return ids == null ? new List<string>() : ids.ToList();
        }
    }
}
