using System.Collections.Generic;
using GameLiftSockets.Protocol;

namespace GameLiftSockets
{
    /// <summary>
    /// A request's reply: the `ack` frame's fields (<see cref="Fields"/>). Each route's method
    /// answers its ack's generated type instead (Protocol.g.cs, `$defs.RouteAck`: e.g.
    /// <see cref="SendMessageAck"/>); read one with its <c>FromJson(ack.Fields)</c>.
    /// </summary>
    public class Ack
    {
        /// <summary>The ack frame as received (with `type`, `route` and `requestId`).</summary>
        public JsonObject Fields { get; private set; }

        public Ack(JsonObject fields) { Fields = fields ?? new JsonObject(); }

        public string Route { get { return Fields.GetString("route"); } }
        public string RequestId { get { return Fields.GetString("requestId"); } }

        public override string ToString() { return Json.Serialize(Fields); }
    }

    /// <summary>The `resume` ack of each (re)connect: <see cref="Resumed"/> is true when the server kept the session.</summary>
    public sealed class ResumeAck : Ack
    {
        public ResumeAck(JsonObject fields) : base(fields) { }

        /// <summary>The ack read as its generated type.</summary>
        public Protocol.ResumeAck Typed { get { return Protocol.ResumeAck.FromJson(Fields); } }

        public bool Resumed { get { return Typed.Resumed; } }
        /// <summary>The frames just replayed (they came before this ack).</summary>
        public long PendingMessages { get { return Typed.PendingMessages; } }
        /// <summary>Your seat, or null.</summary>
        public GameSession GameSession { get { return Typed.GameSession; } }
        /// <summary>The inbox's newest `seq`, or null when the inbox holds nothing (never 0 for null).</summary>
        public long? Cursor { get { return Typed.Cursor; } }
        /// <summary>The pending placement, or null.</summary>
        public PlacementAck Placement { get { return Typed.Placement; } }
        /// <summary>The live matchmaking ticket, or null.</summary>
        public TicketAck Matchmaking { get { return Typed.Matchmaking; } }
        /// <summary>The server's keep-alive instruction as received, or null (a stack older than this
        /// client): the timer follows it (<see cref="GameSocketsClient.EffectiveKeepAlive"/> says what it does).</summary>
        public KeepAlive KeepAlive { get { return KeepAlive.FromJson(Fields.GetObject("keepAlive")); } }
    }
}
