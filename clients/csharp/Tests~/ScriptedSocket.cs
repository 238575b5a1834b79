using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;

namespace GameLiftSockets.Tests
{
    /// <summary>
    /// A socket the test drives (unit.test.mjs's scriptedSockets): it answers `resume` with an
    /// ack (plus <see cref="ScriptedSockets.ResumeExtra"/>), records what the client sends, and
    /// <see cref="Serve"/> delivers a server frame.
    /// </summary>
    public sealed class ScriptedSocket : IGameSocket
    {
        private readonly ScriptedSockets owner;
        private readonly List<JsonObject> sent = new List<JsonObject>();
        private readonly ConcurrentQueue<string> inbound = new ConcurrentQueue<string>();
        private readonly SemaphoreSlim arrived = new SemaphoreSlim(0);
        private volatile bool closed;

        public Uri Url { get; private set; }
        public IList<KeyValuePair<string, string>> Headers { get; private set; }

        public ScriptedSocket(ScriptedSockets owner) { this.owner = owner; }

        public List<JsonObject> Sent { get { lock (sent) return sent.ToList(); } }

        /// <summary>What the keep-alive timer sent: `ping` and `heartbeat` frames without a requestId.</summary>
        public List<string> TimerFrames()
        {
            return Sent.Where(f => (f.GetString("route") == "ping" || f.GetString("route") == "heartbeat") && !f.ContainsKey("requestId"))
                .Select(f => Json.Serialize(f)).ToList();
        }

        public Task ConnectAsync(Uri uri, IList<KeyValuePair<string, string>> headers, CancellationToken cancel)
        {
            Url = uri;
            Headers = headers;
            if (owner.RefuseWith != null) throw new SocketRefusedException(owner.RefuseWith == 0 ? (int?)null : owner.RefuseWith, "refused by the script");
            return Task.FromResult(0);
        }

        public Task SendAsync(string text, CancellationToken cancel)
        {
            if (closed) throw new InvalidOperationException("closed");
            var frame = Json.ParseObject(text);
            lock (sent) sent.Add(frame);
            if (frame.GetString("route") == "resume")
            {
                var ack = new JsonObject
                {
                    { "type", "ack" }, { "route", "resume" }, { "requestId", frame.GetString("requestId") }, { "playerId", "p" },
                    { "resumed", false }, { "pendingMessages", 0L }, { "cursor", null }, { "placement", null }, { "gameSession", null }, { "party", null },
                };
                foreach (var field in owner.ResumeExtra) ack[field.Key] = field.Value;
                Serve(owner.ResumeError ?? ack, frame.GetString("requestId"));
            }
            else if (owner.Answer != null && frame.GetString("requestId") != null)
            {
                var answer = owner.Answer(frame);
                if (answer != null) Serve(answer, frame.GetString("requestId"));
            }
            return Task.FromResult(0);
        }

        public async Task<string> ReceiveAsync(CancellationToken cancel)
        {
            while (true)
            {
                string text;
                if (inbound.TryDequeue(out text)) return text;
                if (closed) return null;
                try { await arrived.WaitAsync(cancel); }
                catch (OperationCanceledException) { return null; }
            }
        }

        public Task CloseAsync(int code, string reason, CancellationToken cancel)
        {
            Drop();
            return Task.FromResult(0);
        }

        public void Abort() { Drop(); }

        /// <summary>The connection ends (as a server-side close or a network drop would end it).</summary>
        public void Drop()
        {
            closed = true;
            arrived.Release();
        }

        /// <summary>Delivers a server frame (a requestId placeholder "*" takes <paramref name="requestId"/>).</summary>
        public void Serve(JsonObject frame, string requestId = null)
        {
            frame = frame.Clone();
            if (frame.GetString("requestId") == "*") frame["requestId"] = requestId;
            inbound.Enqueue(Json.Serialize(frame));
            arrived.Release();
        }

        public void ServeText(string text)
        {
            inbound.Enqueue(text);
            arrived.Release();
        }
    }

    /// <summary>The sockets a client opened, in order; the factory to give it.</summary>
    public sealed class ScriptedSockets
    {
        private readonly List<ScriptedSocket> sockets = new List<ScriptedSocket>();

        /// <summary>Refuse every upgrade with this status (0: with no status known).</summary>
        public int? RefuseWith;
        /// <summary>Fields added to every resume ack (e.g. `keepAlive`).</summary>
        public JsonObject ResumeExtra = new JsonObject();
        /// <summary>Answer resume with this frame instead (e.g. an `unavailable` error with requestId "*").</summary>
        public JsonObject ResumeError;
        /// <summary>Answers the client's other requests (requestId "*" takes the request's); null: no answer.</summary>
        public Func<JsonObject, JsonObject> Answer;

        public ScriptedSocket this[int index] { get { lock (sockets) return sockets[index]; } }
        public int Count { get { lock (sockets) return sockets.Count; } }

        public IGameSocket Open()
        {
            var socket = new ScriptedSocket(this);
            lock (sockets) sockets.Add(socket);
            return socket;
        }

        /// <summary>A client on these sockets (header mode, player `p`); <paramref name="configure"/> adjusts the options.</summary>
        public GameSocketsClient Client(Action<ClientOptions> configure = null)
        {
            var options = new ClientOptions { Url = "ws://test/stage", PlayerId = "p", Socket = Open, DispatchImmediately = true };
            if (configure != null) configure(options);
            return new GameSocketsClient(options);
        }
    }
}
