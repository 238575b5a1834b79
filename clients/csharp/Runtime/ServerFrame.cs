namespace GameLiftSockets.Protocol
{
    /// <summary>
    /// A frame the server sent. Each `type` of the schema is a subclass (generated in
    /// Protocol.g.cs: <c>MessageFrame</c>, <c>PlacementFrame</c>, ...); a type this version
    /// does not know is an <see cref="UnknownFrame"/>. <see cref="Raw"/> keeps every field as
    /// received, including ones the class does not name.
    /// </summary>
    public abstract partial class ServerFrame : IJsonObject
    {
        /// <summary>The frame as received.</summary>
        public JsonObject Raw;

        /// <summary>The frame's `type` (e.g. `message`, `party_invite`).</summary>
        public string Type { get { return Raw == null ? null : Raw.GetString("type"); } }

        /// <summary>A pushed frame's position in the player's inbox (null for replies and notices).</summary>
        public long? Seq { get { return Raw == null ? null : Raw.GetLong("seq"); } }

        public abstract JsonObject ToJson();

        public override string ToString() { return Json.Serialize(ToJson()); }
    }

    /// <summary>A frame whose `type` this version of the client does not know; read it through <see cref="ServerFrame.Raw"/>.</summary>
    public sealed class UnknownFrame : ServerFrame
    {
        public UnknownFrame(JsonObject raw) { Raw = raw; }

        public override JsonObject ToJson() { return Raw == null ? new JsonObject() : Raw.Clone(); }
    }
}
