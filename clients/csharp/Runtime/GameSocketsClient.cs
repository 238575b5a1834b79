using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using GameLiftSockets.Protocol;

namespace GameLiftSockets
{
    /// <summary>
    /// A GameLift Sockets client: connects, sends `resume` with the cursor on every (re)connect,
    /// keeps the connection alive, reconnects with backoff and a fresh token, rolls the socket
    /// over before API Gateway's 2-hour limit, hands at-least-once pushes on once, and matches
    /// replies to requests. Thread-safe; the socket is read on a background task, and events
    /// wait in a queue until <see cref="DispatchEvents"/> (Unity: call it from <c>Update</c>).
    /// </summary>
    public sealed partial class GameSocketsClient : IDisposable
    {
        // ---- events (raised by DispatchEvents, or at once with DispatchImmediately) ----

        /// <summary>A message from another player or the game's backend (each `messageId` once).</summary>
        public event Action<MessageFrame> Message;
        /// <summary>A placement result (each `placementId` and `status` once).</summary>
        public event Action<PlacementFrame> Placement;
        /// <summary>A matchmaking ticket's status (each `ticketId` and `status` once).</summary>
        public event Action<MatchmakingFrame> Matchmaking;
        public event Action<PresenceFrame> Presence;
        public event Action<PartyFrame> Party;
        public event Action<PartyInviteFrame> PartyInvite;
        public event Action<PartyInviteDeclinedFrame> PartyInviteDeclined;
        /// <summary>A relation of yours changed: `invited`, `invitation`, `friends` or `removed`.</summary>
        public event Action<FriendFrame> Friend;
        /// <summary>The game's backend ended this connection; the client reconnects (not a ban).</summary>
        public event Action<DisconnectedByServerFrame> DisconnectedByServer;
        /// <summary>Every pushed frame after de-duplication, including types this version does not name (<see cref="UnknownFrame"/>).</summary>
        public event Action<ServerFrame> Frame;
        public event Action<StateChange> StateChanged;
        /// <summary>A (re)connect completed: the `resume` ack (<see cref="ResumeAck.Resumed"/>: the session was kept).</summary>
        public event Action<ResumeAck> Resumed;
        /// <summary>The socket was rolled over to a new one before the maximum connection time.</summary>
        public event Action<ResumeAck> RolledOver;
        /// <summary>The client stopped for good, and why (<see cref="StopReason"/>).</summary>
        public event Action<ClosedInfo> Closed;

        private readonly object gate = new object();
        private readonly ClientOptions options;
        private readonly Func<IGameSocket> socketFactory;
        private readonly SynchronizationContext tokenContext;
        private readonly ConcurrentQueue<Action> events = new ConcurrentQueue<Action>();
        private readonly Dictionary<string, Pending> pending = new Dictionary<string, Pending>();
        private readonly List<string> queue = new List<string>();
        private readonly RecentKeys seqs, messages, placements, tickets;
        private readonly Random random = new Random();
        private int pumping;
        private long nextId;
        private ConnectionState state = ConnectionState.Idle;
        private bool stopped;
        private TaskCompletionSource<ResumeAck> firstLive;
        private long? lastSeq;
        /// <summary>The cursor last sent on `resume` or `heartbeat`: what the server has recorded as processed.</summary>
        private long? reportedSeq;

        private sealed class Pending
        {
            public string Route;
            public JsonObject Body;
            public TaskCompletionSource<Ack> Reply;
            public Timer Timeout;
            public Conn Conn;
        }

        public GameSocketsClient(ClientOptions options)
        {
            if (options == null) throw new ArgumentNullException("options");
            Uri url;
            if (!Uri.TryCreate(options.Url ?? "", UriKind.Absolute, out url) || (url.Scheme != "ws" && url.Scheme != "wss"))
                throw new ArgumentException("ClientOptions.Url must be a ws:// or wss:// URL, e.g. wss://abc.execute-api.us-east-1.amazonaws.com/production; got `" + options.Url + "`");
            if (options.Token == null && options.PlayerId == null)
                throw new ArgumentException("GameSocketsClient needs ClientOptions.Token (JWT stacks) or PlayerId (header-mode development stacks)");
            if (options.HeartbeatInterval <= TimeSpan.Zero)
                throw new ArgumentException("ClientOptions.HeartbeatInterval must be positive, not " + options.HeartbeatInterval);
            if (options.Reconnect == null) options.Reconnect = new ReconnectOptions();
            this.options = options;
            socketFactory = options.Socket ?? (() => new ClientWebSocketAdapter());
            tokenContext = SynchronizationContext.Current;
            seqs = new RecentKeys(options.DedupeWindow);
            messages = new RecentKeys(options.DedupeWindow);
            placements = new RecentKeys(options.DedupeWindow);
            tickets = new RecentKeys(options.DedupeWindow);
        }

        /// <summary>The connection state.</summary>
        public ConnectionState State { get { lock (gate) return state; } }

        /// <summary>The `seq` of the last pushed frame handed on (sent as `resume`'s `cursor`); save it to
        /// start a later run after it (<see cref="ConnectAsync(long?)"/>).</summary>
        public long? Cursor { get { lock (gate) return lastSeq; } }

        /// <summary>
        /// Connects and completes with the first `resume` ack; fails with a
        /// <see cref="GameSocketsException"/> (`closed`) if the client stops first.
        /// <paramref name="after"/>: the cursor a previous run saved, so only what came after it is replayed.
        /// </summary>
        public Task<ResumeAck> ConnectAsync(long? after = null)
        {
            lock (gate)
            {
                if (stopped) return Faulted<ResumeAck>(new GameSocketsException(ClientErrorCode.Closed, "the client is closed"));
                if (firstLive == null)
                {
                    firstLive = new TaskCompletionSource<ResumeAck>(TaskCreationOptions.RunContinuationsAsynchronously);
                    if (after != null) lastSeq = after;
                    SetState(ConnectionState.Connecting, null);
                    Forget(OpenAsync(false));
                }
            }
            Pump();
            return firstLive.Task;
        }

        /// <summary>Closes the socket and stops for good; pending requests fail with `closed`.</summary>
        public void Close()
        {
            lock (gate) Stop(StopReason.ClosedByClient, null);
            Pump();
        }

        public void Dispose() { Close(); }

        /// <summary>
        /// Raises the events that arrived since the last call, on the calling thread (Unity: call
        /// it from a MonoBehaviour's <c>Update</c>). A handler that throws is reported to
        /// <see cref="ClientOptions.OnHandlerError"/> and does not stop the others. Returns how
        /// many events were raised.
        /// </summary>
        public int DispatchEvents()
        {
            int count = 0;
            Action raise;
            while (events.TryDequeue(out raise))
            {
                raise();
                count++;
            }
            return count;
        }

        /// <summary>
        /// Sends a request to <paramref name="route"/> and completes with its ack, or fails with a
        /// <see cref="GameSocketsException"/>. <paramref name="body"/>: a generated body type, a
        /// <see cref="JsonObject"/>, a dictionary, or null for <c>{}</c>. A `heartbeat` without a
        /// cursor is sent with the client's; `ping` fails with `invalid` (it is never answered).
        /// </summary>
        public Task<Ack> RequestAsync(string route, object body = null, TimeSpan? timeout = null)
        {
            if (string.IsNullOrEmpty(route)) return Faulted<Ack>(new GameSocketsException(ClientErrorCode.Invalid, "a request needs a route"));
            JsonObject json;
            try
            {
                json = ToBody(body);
            }
            catch (ArgumentException error)
            {
                return Faulted<Ack>(new GameSocketsException(ClientErrorCode.Invalid, route + "'s body cannot be sent: " + error.Message, route));
            }
            Task<Ack> reply;
            lock (gate) reply = Enqueue(route, json, timeout ?? options.RequestTimeout);
            Pump();
            return reply;
        }

        /// <summary>The body as a JSON object, written once here so that what JSON cannot say (NaN, a
        /// DateTime...) is a clear error now rather than a broken frame later.</summary>
        private static JsonObject ToBody(object body)
        {
            if (body == null) return new JsonObject();
            var typed = body as IJsonObject;
            var json = typed != null ? typed.ToJson() : body as JsonObject;
            var parsed = Json.Parse(Json.Serialize(json ?? body)) as JsonObject;
            if (parsed == null) throw new ArgumentException("a body is a JSON object, not " + body.GetType().Name);
            return parsed;
        }

        private Task<Ack> Enqueue(string route, JsonObject body, TimeSpan timeout)
        {
            if (stopped) return Faulted<Ack>(new GameSocketsException(ClientErrorCode.Closed, "the client is closed", route));
            // Never answered, so never a request: the keep-alive timer sends it.
            if (route == Routes.Ping) return Faulted<Ack>(new GameSocketsException(ClientErrorCode.Invalid, "`ping` is never answered; the keep-alive timer sends it", route));
            string requestId = (++nextId).ToString(System.Globalization.CultureInfo.InvariantCulture);
            var entry = new Pending { Route = route, Body = body, Reply = new TaskCompletionSource<Ack>(TaskCreationOptions.RunContinuationsAsynchronously) };
            pending[requestId] = entry;
            entry.Timeout = new Timer(_ => Locked(() =>
            {
                queue.Remove(requestId);
                Settle(requestId, new GameSocketsException(ClientErrorCode.Timeout, "no reply to " + route + " within " + timeout.TotalMilliseconds + " ms", route, requestId), null);
            }), null, timeout, Timeout.InfiniteTimeSpan);
            if (current != null && current.Live && !rolling) Transmit(requestId, entry, current);
            else if (rolling || (options.QueueWhileReconnecting && state != ConnectionState.Idle)) queue.Add(requestId);
            else Settle(requestId, new GameSocketsException(ClientErrorCode.NotConnected, "not connected; " + route + " was not sent", route, requestId), null);
            return entry.Reply.Task;
        }

        private void Transmit(string requestId, Pending entry, Conn conn)
        {
            entry.Conn = conn;
            // A heartbeat reports the cursor as of when it is sent (unless it names its own).
            if (entry.Route == Routes.Heartbeat && !entry.Body.ContainsKey("cursor") && lastSeq != null) entry.Body["cursor"] = lastSeq;
            var frame = new JsonObject { { "route", entry.Route }, { "requestId", requestId }, { "body", entry.Body } };
            if (!Send(conn, frame))
                Settle(requestId, new GameSocketsException(ClientErrorCode.ConnectionLost, "the socket closed before the request was sent", entry.Route, requestId), null);
            else if (entry.Route == Routes.Heartbeat && entry.Body.GetLong("cursor") != null)
                reportedSeq = entry.Body.GetLong("cursor");
        }

        private void FlushQueue()
        {
            var conn = current;
            if (conn == null || !conn.Live || rolling) return;
            var queued = queue.ToArray();
            queue.Clear();
            foreach (var requestId in queued)
            {
                Pending entry;
                if (pending.TryGetValue(requestId, out entry)) Transmit(requestId, entry, conn);
            }
        }

        /// <summary>Requests sent on <paramref name="conn"/> that are still unanswered: their replies are gone with it.</summary>
        private void FailPending(Conn conn)
        {
            foreach (var item in new List<KeyValuePair<string, Pending>>(pending))
            {
                if (item.Value.Conn != conn) continue;
                Settle(item.Key, new GameSocketsException(ClientErrorCode.ConnectionLost,
                    "the socket closed before " + item.Value.Route + " was answered (it may have been done)", item.Value.Route, item.Key), null);
            }
        }

        private void OnReply(ServerFrame frame)
        {
            var requestId = frame.Raw.GetString("requestId");
            if (requestId == null || !pending.ContainsKey(requestId)) return;
            var error = frame as ErrorFrame;
            if (error == null)
            {
                var ack = new Ack(frame.Raw);
                // Answers that carry the player's seat (a new one: a friend's game is another).
                string route = pending[requestId].Route;
                if (route == Routes.RejoinSession || route == Routes.JoinFriendGame) SetSeat(SeatAck.FromJson(ack.Fields).GameSession);
                else if (route == Routes.RefreshConnectionDetails) SeatRefreshed(SeatAck.FromJson(ack.Fields).GameSession);
                Settle(requestId, null, ack);
                return;
            }
            Settle(requestId, new GameSocketsException(error.Code, error.Message, error.Route ?? pending[requestId].Route, requestId, error), null);
        }

        private void Settle(string requestId, GameSocketsException error, Ack ack)
        {
            Pending entry;
            if (!pending.TryGetValue(requestId, out entry)) return;
            pending.Remove(requestId);
            entry.Timeout.Dispose();
            if (error != null) entry.Reply.TrySetException(error);
            else entry.Reply.TrySetResult(ack);
        }

        // ---- events ----

        private void SetState(ConnectionState next, TimeSpan? delay)
        {
            state = next;
            Emit(() => StateChanged, new StateChange { State = next, Attempt = attempt, Delay = delay });
        }

        /// <summary>Queues an event; the handler is read when it is raised, so one added before DispatchEvents gets it.</summary>
        private void Emit<T>(Func<Action<T>> handler, T value)
        {
            events.Enqueue(() =>
            {
                var listeners = handler();
                if (listeners == null) return;
                foreach (Action<T> listener in listeners.GetInvocationList())
                {
                    try
                    {
                        listener(value);
                    }
                    catch (Exception error)
                    {
                        // A game's handler bug must not break delivery to the others or the client.
                        ReportHandlerError(error);
                    }
                }
            });
        }

        private void ReportHandlerError(Exception error)
        {
            var report = options.OnHandlerError;
            if (report != null) report(error);
            else Console.Error.WriteLine("gamelift-sockets: an event handler threw: " + error);
        }

        /// <summary>With DispatchImmediately, raises queued events now, outside the lock, one thread at a time.</summary>
        private void Pump()
        {
            if (!options.DispatchImmediately) return;
            while (!events.IsEmpty)
            {
                if (Interlocked.CompareExchange(ref pumping, 1, 0) != 0) return;
                try { DispatchEvents(); }
                finally { Interlocked.Exchange(ref pumping, 0); }
            }
        }

        /// <summary>Runs <paramref name="action"/> under the lock (timer and socket callbacks), then pumps events.</summary>
        private void Locked(Action action)
        {
            lock (gate) action();
            Pump();
        }

        private static Task<T> Faulted<T>(Exception error)
        {
            var failed = new TaskCompletionSource<T>();
            failed.SetException(error);
            return failed.Task;
        }

        /// <summary>Observes a background task's failure (a bug here, not the game's) instead of leaving it unobserved.</summary>
        private void Forget(Task task)
        {
            task.ContinueWith(t => ReportHandlerError(t.Exception), TaskContinuationOptions.OnlyOnFaulted);
        }
    }
}
