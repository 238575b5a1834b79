using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using GameLiftSockets.Protocol;

namespace GameLiftSockets
{
    // One method per route of the protocol (README.md#client-protocol-v1 at the repository root).
    // Each completes with the route's ack, or fails with a GameSocketsException carrying the
    // server's code (or the client's: timeout, connection_lost, not_connected, closed, invalid).
    public sealed partial class GameSocketsClient
    {
        /// <summary>`sendMessage` to 1–100 players; <paramref name="message"/> is any JSON value
        /// (a JsonObject, a dictionary, a list, a string, a number...). Ack: <see cref="Ack.Queued"/>.</summary>
        public Task<Ack> SendMessageAsync(IEnumerable<string> playerIds, object message)
        {
            return RequestAsync(Routes.SendMessage, new SendMessageBody { PlayerIds = ListOf(playerIds), Message = message });
        }

        /// <summary>`sendMessage` to every other member of your party.</summary>
        public Task<Ack> SendPartyMessageAsync(string partyId, object message)
        {
            return RequestAsync(Routes.SendMessage, new SendMessageBody { PartyId = partyId, Message = message });
        }

        /// <summary>`sessionPlacementRequest`: the result comes as a <see cref="Placement"/> event. Ack: `placementId`, `status` PENDING.</summary>
        public Task<Ack> RequestPlacementAsync(PlacementRequestBody body = null)
        {
            return RequestAsync(Routes.SessionPlacementRequest, body);
        }

        /// <summary>`setPlacementLatencies`: region → ms, sent with the party leader's placement or ticket (`{}` clears).</summary>
        public Task<Ack> SetPlacementLatenciesAsync(IDictionary<string, double> latencies)
        {
            return RequestAsync(Routes.SetPlacementLatencies, new LatenciesBody { Latencies = new Dictionary<string, double>(latencies ?? new Dictionary<string, double>()) });
        }

        /// <summary>`cancelPlacement`: yours when <paramref name="placementId"/> is null.</summary>
        public Task<Ack> CancelPlacementAsync(string placementId = null)
        {
            return RequestAsync(Routes.CancelPlacement, new CancelPlacementBody { PlacementId = placementId });
        }

        /// <summary>`rejoinSession`: a new player session in the same game (<see cref="Ack.GameSession"/>).</summary>
        public Task<Ack> RejoinSessionAsync()
        {
            return RequestAsync(Routes.RejoinSession, null);
        }

        /// <summary>`subscribePresence`: <see cref="Ack.Presence"/> now, then <see cref="Presence"/> events.</summary>
        public Task<Ack> SubscribePresenceAsync(IEnumerable<string> playerIds)
        {
            return RequestAsync(Routes.SubscribePresence, new PlayerIdsBody { PlayerIds = ListOf(playerIds) });
        }

        public Task<Ack> UnsubscribePresenceAsync(IEnumerable<string> playerIds)
        {
            return RequestAsync(Routes.UnsubscribePresence, new PlayerIdsBody { PlayerIds = ListOf(playerIds) });
        }

        /// <summary>`createParty` (2–PARTY_MAX_SIZE; the stack's maximum when null). Ack: <see cref="Ack.Party"/>.</summary>
        public Task<Ack> CreatePartyAsync(int? maxSize = null)
        {
            return RequestAsync(Routes.CreateParty, new CreatePartyBody { MaxSize = maxSize });
        }

        public Task<Ack> InviteToPartyAsync(string playerId)
        {
            return RequestAsync(Routes.InviteToParty, new PlayerBody { PlayerId = playerId });
        }

        public Task<Ack> JoinPartyAsync(string partyId)
        {
            return RequestAsync(Routes.JoinParty, new PartyBody { PartyId = partyId });
        }

        public Task<Ack> DeclinePartyInviteAsync(string partyId)
        {
            return RequestAsync(Routes.DeclinePartyInvite, new PartyBody { PartyId = partyId });
        }

        public Task<Ack> LeavePartyAsync()
        {
            return RequestAsync(Routes.LeaveParty, null);
        }

        public Task<Ack> KickFromPartyAsync(string playerId)
        {
            return RequestAsync(Routes.KickFromParty, new PlayerBody { PlayerId = playerId });
        }

        public Task<Ack> PromotePartyLeaderAsync(string playerId)
        {
            return RequestAsync(Routes.PromotePartyLeader, new PlayerBody { PlayerId = playerId });
        }

        /// <summary>`startMatchmaking`: a solo player's or a party leader's ticket; its states come as <see cref="Matchmaking"/> events.</summary>
        public Task<Ack> StartMatchmakingAsync(StartMatchmakingRequestBody body = null)
        {
            return RequestAsync(Routes.StartMatchmaking, body);
        }

        public Task<Ack> AcceptMatchAsync(string ticketId, bool accept)
        {
            return RequestAsync(Routes.AcceptMatch, new AcceptMatchRequestBody { TicketId = ticketId, Accept = accept });
        }

        /// <summary>`stopMatchmaking`: your live ticket when <paramref name="ticketId"/> is null.</summary>
        public Task<Ack> StopMatchmakingAsync(string ticketId = null)
        {
            return RequestAsync(Routes.StopMatchmaking, new TicketBody { TicketId = ticketId });
        }

        /// <summary>`setMatchmakingAttributes`: your attributes for the party leader's ticket (number,
        /// string, list of strings or string → number each; empty clears).</summary>
        public Task<Ack> SetMatchmakingAttributesAsync(IDictionary<string, object> attributes)
        {
            return RequestAsync(Routes.SetMatchmakingAttributes, new AttributesBody { Attributes = new Dictionary<string, object>(attributes ?? new Dictionary<string, object>()) });
        }

        /// <summary>A `heartbeat` with the cursor that asks for the server time (<see cref="Ack.ServerTime"/>);
        /// the keep-alive timer's frames ask for nothing.</summary>
        public Task<Ack> HeartbeatAsync()
        {
            return RequestAsync(Routes.Heartbeat, null);
        }

        private static List<string> ListOf(IEnumerable<string> ids)
        {
            return ids == null ? new List<string>() : ids.ToList();
        }
    }
}
