using System;
using GameLiftSockets.Protocol;

namespace GameLiftSockets
{
    /// <summary>
    /// The client's own error codes, beside every server code (<see cref="Protocol.ErrorCode"/>):
    /// </summary>
    public static class ClientErrorCode
    {
        /// <summary>No reply within the request's timeout (the server may still have done it).</summary>
        public const string Timeout = "timeout";
        /// <summary>The socket dropped after the request was sent, before its reply (it may have been done; `resume` replays any push it caused).</summary>
        public const string ConnectionLost = "connection_lost";
        /// <summary>The client is reconnecting and <see cref="ClientOptions.QueueWhileReconnecting"/> is false.</summary>
        public const string NotConnected = "not_connected";
        /// <summary>The client stopped (Close, `session_replaced`, a refused token...).</summary>
        public const string Closed = "closed";
        /// <summary>The request cannot be sent as asked (e.g. `ping`, which is never answered).</summary>
        public const string Invalid = "invalid";
    }

    /// <summary>A failed request: the server's `error` frame, or one of the client's own codes.</summary>
    public sealed class GameSocketsException : Exception
    {
        /// <summary>The error code: the server's (`not_found`, `rate_limited`, ...) or the client's (<see cref="ClientErrorCode"/>).</summary>
        public string Code { get; private set; }
        /// <summary>The route the request went to.</summary>
        public string Route { get; private set; }
        /// <summary>The request's id.</summary>
        public string RequestId { get; private set; }
        /// <summary>The server's `error` frame, typed: besides its code and message, the fields of that code
        /// (e.g. <see cref="ErrorFrame.RetryAfterMs"/> of `rate_limited`, <see cref="ErrorFrame.PlacementId"/>
        /// of a `conflict`, <see cref="ErrorFrame.PlayerIds"/> of a `not_found`); null for the client's own errors.</summary>
        public ErrorFrame Reply { get; private set; }

        public GameSocketsException(string code, string message, string route = null, string requestId = null, ErrorFrame reply = null)
            : base(message)
        {
            Code = code;
            Route = route;
            RequestId = requestId;
            Reply = reply;
        }

        public override string ToString() { return "GameSocketsException(" + Code + (Route != null ? ", " + Route : "") + "): " + Message; }
    }
}
