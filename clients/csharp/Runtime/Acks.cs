using System.Collections.Generic;
using GameLiftSockets.Protocol;

namespace GameLiftSockets
{
    /// <summary>
    /// A request's reply: the `ack` frame's fields (<see cref="Fields"/>), with typed readers for
    /// the ones routes answer with. A field a route does not answer with reads as null.
    /// </summary>
    public class Ack
    {
        /// <summary>The ack frame as received (with `type`, `route` and `requestId`).</summary>
        public JsonObject Fields { get; private set; }

        public Ack(JsonObject fields) { Fields = fields ?? new JsonObject(); }

        public string Route { get { return Fields.GetString("route"); } }
        public string RequestId { get { return Fields.GetString("requestId"); } }

        /// <summary>`sendMessage`: how many players it was queued for.</summary>
        public long? Queued { get { return Fields.GetLong("queued"); } }
        /// <summary>`sessionPlacementRequest`, `cancelPlacement`.</summary>
        public string PlacementId { get { return Fields.GetString("placementId"); } }
        /// <summary>`sessionPlacementRequest` (PENDING), `startMatchmaking` (QUEUED).</summary>
        public string Status { get { return Fields.GetString("status"); } }
        /// <summary>`startMatchmaking`, `acceptMatch`, `stopMatchmaking`.</summary>
        public string TicketId { get { return Fields.GetString("ticketId"); } }
        /// <summary>`inviteToParty`, `declinePartyInvite`, `leaveParty`.</summary>
        public string PartyId { get { return Fields.GetString("partyId"); } }
        /// <summary>`inviteToParty`: whom.</summary>
        public string PlayerId { get { return Fields.GetString("playerId"); } }
        /// <summary>`inviteToParty`: when the invitation lapses (ms).</summary>
        public long? ExpiresAt { get { return Fields.GetLong("expiresAt"); } }
        /// <summary>`heartbeat` with a requestId: the server's clock (ms).</summary>
        public long? ServerTime { get { return Fields.GetLong("serverTime"); } }
        /// <summary>`createParty`, `joinParty`, `kickFromParty`, `promotePartyLeader`: the party after the change.</summary>
        public PartyView Party { get { return PartyView.FromJson(Fields.GetObject("party")); } }
        /// <summary>`rejoinSession`: the same game, a new player session; `refreshConnectionDetails`: your seat with
        /// fresh connection details; `resume`: your seat, or null.</summary>
        public GameSession GameSession { get { return GameSession.FromJson(Fields.GetObject("gameSession")); } }
        /// <summary>`subscribePresence`: each player's `online` / `offline`.</summary>
        public Dictionary<string, string> Presence { get { return JsonRead.Map(Fields, "presence", JsonRead.AsString); } }

        public override string ToString() { return Json.Serialize(Fields); }
    }

    /// <summary>The `resume` ack of each (re)connect: <see cref="Resumed"/> is true when the server kept the session.</summary>
    public sealed class ResumeAck : Ack
    {
        public ResumeAck(JsonObject fields) : base(fields) { }

        public bool Resumed { get { return Fields.GetBool("resumed") ?? false; } }
        /// <summary>The frames just replayed (they came before this ack).</summary>
        public long PendingMessages { get { return Fields.GetLong("pendingMessages") ?? 0; } }
        /// <summary>The inbox's newest `seq`, or null.</summary>
        public long? Cursor { get { return Fields.GetLong("cursor"); } }
        /// <summary>The pending placement (`placementId`...), or null.</summary>
        public JsonObject Placement { get { return Fields.GetObject("placement"); } }
        /// <summary>The live matchmaking ticket (`ticketId`), or null.</summary>
        public JsonObject Matchmaking { get { return Fields.GetObject("matchmaking"); } }
        /// <summary>The server's keep-alive instruction as received, or null (a stack older than this
        /// client): the timer follows it (<see cref="GameSocketsClient.EffectiveKeepAlive"/> says what it does).</summary>
        public KeepAlive KeepAlive { get { return KeepAlive.FromJson(Fields.GetObject("keepAlive")); } }
    }
}
