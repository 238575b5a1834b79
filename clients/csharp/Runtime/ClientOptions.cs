using System;
using System.Threading.Tasks;
using GameLiftSockets.Protocol;

namespace GameLiftSockets
{
    /// <summary>What the keep-alive timer sends and how often: the server's instruction (`resume`'s
    /// `keepAlive`), else <see cref="ClientOptions.HeartbeatInterval"/> and <see cref="ClientOptions.PingWhenIdle"/>.</summary>
    public sealed class KeepAliveSettings
    {
        /// <summary>`heartbeat`: every tick a heartbeat with the cursor. `ping`: a ping, unless a push
        /// was handled since the cursor was last reported; then a heartbeat with that cursor.</summary>
        public string Route { get; private set; }
        public TimeSpan Interval { get; private set; }

        internal KeepAliveSettings(string route, TimeSpan interval)
        {
            Route = route;
            Interval = interval;
        }

        /// <summary>The server's instruction as the timer follows it; null when absent or not usable
        /// (an unknown route, an interval under a second): then the options apply.</summary>
        internal static KeepAliveSettings Of(KeepAlive instruction)
        {
            if (instruction == null || instruction.IntervalSeconds < 1) return null;
            if (instruction.Route != KeepAliveRoute.Heartbeat && instruction.Route != KeepAliveRoute.Ping) return null;
            return new KeepAliveSettings(instruction.Route, TimeSpan.FromSeconds(instruction.IntervalSeconds));
        }

        public override string ToString() { return Route + " every " + Interval; }
    }

    /// <summary>Reconnect backoff: delay = random(0, min(MaxDelay, InitialDelay × 2^attempt)) ("full jitter").</summary>
    public sealed class ReconnectOptions
    {
        public TimeSpan InitialDelay = TimeSpan.FromMilliseconds(500);
        public TimeSpan MaxDelay = TimeSpan.FromSeconds(30);
        /// <summary>Connects in a row that may fail before the client stops with `gave_up` (default: no limit).</summary>
        public int MaxAttempts = int.MaxValue;
    }

    /// <summary>How to reach the backend and how to behave. Only <see cref="Url"/> and one of
    /// <see cref="Token"/> / <see cref="PlayerId"/> are required.</summary>
    public sealed class ClientOptions
    {
        /// <summary>The WebSocket API URL, e.g. <c>wss://abc.execute-api.us-east-1.amazonaws.com/production</c>.</summary>
        public string Url;

        /// <summary>
        /// Returns a JWT; called before every connect (so return a fresh one). It runs on the
        /// SynchronizationContext the client was created on (Unity: the main thread), so it may
        /// use UnityWebRequest. Sent as <c>?token=</c>, or a header with <see cref="TokenInHeader"/>.
        /// </summary>
        public Func<Task<string>> Token;

        /// <summary>Header-mode stacks only (development): the player id, sent as <c>?playerId=</c>.</summary>
        public string PlayerId;

        /// <summary>True: the token travels as <c>Authorization: Bearer</c> (out of URLs and their logs) instead of <c>?token=</c>.</summary>
        public bool TokenInHeader;

        /// <summary>
        /// How often the timer shows the player is alive, only against a stack whose `resume` ack
        /// carries no `keepAlive` (one older than this client): the server's instruction wins, since
        /// the server decides what keeps a player online. Keep it below the stack's
        /// HEARTBEAT_TIMEOUT_SECONDS (90 s by default). Default 30 s.
        /// </summary>
        public TimeSpan HeartbeatInterval = TimeSpan.FromSeconds(30);

        /// <summary>Only without the server's `keepAlive`, as <see cref="HeartbeatInterval"/>. True
        /// (default): an idle tick sends `ping`. False: every tick sends `heartbeat` (a database
        /// write each), for a deployment where a ping does not keep a player online.</summary>
        public bool PingWhenIdle = true;

        /// <summary>How long a request waits for its reply. Default 10 s.</summary>
        public TimeSpan RequestTimeout = TimeSpan.FromSeconds(10);

        public ReconnectOptions Reconnect = new ReconnectOptions();

        /// <summary>Open a new socket (and close the old) this long after connecting: before API
        /// Gateway's 2-hour limit. Default 110 min.</summary>
        public TimeSpan RolloverAfter = TimeSpan.FromMinutes(110);

        /// <summary>How many recent `seq`s, `messageId`s and placement results to remember for de-duplication. Default 1000.</summary>
        public int DedupeWindow = 1000;

        /// <summary>Requests made while (re)connecting: true (default) holds them and sends them right
        /// after `resume` (their timeout runs meanwhile); false fails them at once with `not_connected`.</summary>
        public bool QueueWhileReconnecting = true;

        /// <summary>
        /// False (default): events wait in a queue until the game calls
        /// <see cref="GameSocketsClient.DispatchEvents"/> (Unity: from <c>Update</c>, on the main
        /// thread). True: they are raised at once on the client's background thread (.NET servers
        /// and tools; handlers must then be thread-safe and quick).
        /// </summary>
        public bool DispatchImmediately;

        /// <summary>Where the client reports a handler that threw (default: Console.Error; Unity: pass Debug.LogException).</summary>
        public Action<Exception> OnHandlerError;

        /// <summary>Opens a socket; defaults to <see cref="ClientWebSocketAdapter"/> (System.Net.WebSockets.ClientWebSocket).</summary>
        public Func<IGameSocket> Socket;
    }

    /// <summary>Where the client is.</summary>
    public enum ConnectionState { Idle, Connecting, Live, Reconnecting, Closed }

    /// <summary>The `State` event: the new state; <see cref="Delay"/> until the next connect when reconnecting.</summary>
    public sealed class StateChange
    {
        public ConnectionState State;
        public int Attempt;
        public TimeSpan? Delay;
    }

    /// <summary>Why the client stopped for good (the `Closed` event).</summary>
    public static class StopReason
    {
        /// <summary><see cref="GameSocketsClient.Close"/> was called.</summary>
        public const string ClosedByClient = "closed_by_client";
        /// <summary>The same player connected elsewhere: this client must not take the session back.</summary>
        public const string SessionReplaced = "session_replaced";
        /// <summary>The upgrade was refused with 401 or 403 (the detail says which).</summary>
        public const string Unauthorized = "unauthorized";
        /// <summary><see cref="ReconnectOptions.MaxAttempts"/> connects in a row failed.</summary>
        public const string GaveUp = "gave_up";
        /// <summary>The token provider threw.</summary>
        public const string TokenFailed = "token_failed";
    }

    /// <summary>The `Closed` event: why the client stopped, and the detail when there is one.</summary>
    public sealed class ClosedInfo
    {
        public string Reason;
        public string Detail;

        public override string ToString() { return Detail == null ? Reason : Reason + " (" + Detail + ")"; }
    }
}
