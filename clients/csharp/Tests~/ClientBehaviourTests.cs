using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using GameLiftSockets.Protocol;

namespace GameLiftSockets.Tests
{
    /// <summary>What the C# client adds to the TypeScript suite's unit scenarios: the server's
    /// keep-alive instruction, the event queue, bad input, backoff, the token provider's thread.</summary>
    [Order(2)]
    public sealed class ClientBehaviour : Suite
    {
        private static JsonObject KeepAlive(string route, long seconds)
        {
            return new JsonObject { { "keepAlive", new JsonObject { { "route", route }, { "intervalSeconds", seconds } } } };
        }

        [Scenario("keep-alive: given resume's ack says heartbeat every 1 s, then every tick at that interval is a heartbeat with the cursor")]
        public async Task ServerSaysHeartbeat()
        {
            var sockets = new ScriptedSockets { ResumeExtra = KeepAlive("heartbeat", 1) };
            var client = sockets.Client(o => o.HeartbeatInterval = TimeSpan.FromSeconds(30));
            var ack = await client.ConnectAsync();
            Check.Equal("heartbeat", ack.KeepAlive.Route, "the ack's instruction");
            Check.Equal(TimeSpan.FromSeconds(1), client.EffectiveKeepAlive.Interval, "the timer's interval");
            sockets[0].Serve(new JsonObject { { "type", "presence" }, { "playerId", "x" }, { "status", "online" }, { "at", 1L }, { "seq", 4L } });
            await Check.Until(() => sockets[0].TimerFrames().Count >= 2, "two ticks", 4000);
            Check.Sequence(Enumerable.Repeat("{\"route\":\"heartbeat\",\"body\":{\"cursor\":4}}", 2), sockets[0].TimerFrames().Take(2),
                "a heartbeat each tick, the cursor reported or not");
            client.Close();
        }

        [Scenario("keep-alive: given resume's ack says ping every 1 s, then a tick pings unless a push was handled since the last report")]
        public async Task ServerSaysPing()
        {
            var sockets = new ScriptedSockets { ResumeExtra = KeepAlive("ping", 1) };
            var client = sockets.Client(o => { o.HeartbeatInterval = TimeSpan.FromSeconds(30); o.PingWhenIdle = false; });
            await client.ConnectAsync();
            await Check.Until(() => sockets[0].TimerFrames().Count >= 1, "the first tick", 3000);
            sockets[0].Serve(new JsonObject { { "type", "presence" }, { "playerId", "x" }, { "status", "online" }, { "at", 1L }, { "seq", 8L } });
            await Check.Until(() => sockets[0].TimerFrames().Count >= 2, "the second tick", 3000);
            Check.Sequence(new[] { "{\"route\":\"ping\"}", "{\"route\":\"heartbeat\",\"body\":{\"cursor\":8}}" }, sockets[0].TimerFrames().Take(2),
                "the server's ping wins over PingWhenIdle false; a new cursor is reported");
            client.Close();
        }

        [Scenario("keep-alive: given the KeepAlive option, then it wins over the server's instruction; without either, the defaults apply")]
        public async Task OptionOverridesTheServer()
        {
            var sockets = new ScriptedSockets { ResumeExtra = KeepAlive("ping", 60) };
            var client = sockets.Client(o => o.KeepAlive = new KeepAliveSettings("heartbeat", TimeSpan.FromMilliseconds(20)));
            await client.ConnectAsync();
            await Check.Until(() => sockets[0].TimerFrames().Count >= 3, "three ticks", 3000);
            Check.Sequence(Enumerable.Repeat("{\"route\":\"heartbeat\"}", 3), sockets[0].TimerFrames().Take(3), "the option's route and interval");
            client.Close();

            var plain = new ScriptedSockets().Client();
            await plain.ConnectAsync();
            Check.Equal("ping", plain.EffectiveKeepAlive.Route, "the default route");
            Check.Equal(TimeSpan.FromSeconds(30), plain.EffectiveKeepAlive.Interval, "the default interval");
            plain.Close();
        }

        [Scenario("keep-alive: given an instruction the client cannot follow (an unknown route, no interval), then it keeps its defaults")]
        public async Task UnusableInstructionIsIgnored()
        {
            var sockets = new ScriptedSockets { ResumeExtra = new JsonObject { { "keepAlive", new JsonObject { { "route", "dance" }, { "intervalSeconds", 5L } } } } };
            var client = sockets.Client();
            var ack = await client.ConnectAsync();
            Check.Equal(null, ack.KeepAlive, "not read as an instruction");
            Check.Equal("ping", client.EffectiveKeepAlive.Route, "the default route");
            client.Close();
        }

        [Scenario("events: given the default options, then events wait for DispatchEvents, and a handler that throws does not stop the others")]
        public async Task EventsWaitForDispatch()
        {
            var sockets = new ScriptedSockets();
            var errors = new List<Exception>();
            var client = sockets.Client(o => { o.DispatchImmediately = false; o.OnHandlerError = errors.Add; });
            var seen = new List<string>();
            client.Message += m => { throw new InvalidOperationException("a game bug"); };
            client.Message += m => seen.Add(m.MessageId);
            await client.ConnectAsync();
            sockets[0].Serve(new JsonObject { { "type", "message" }, { "messageId", "m1" }, { "from", "bob" }, { "message", "hi" }, { "sentAt", 1L }, { "seq", 3L } });
            await Check.Until(() => client.Cursor == 3, "the push");
            Check.Equal(0, seen.Count, "nothing raised yet");
            int raised = client.DispatchEvents();
            Check.True(raised >= 3, "the state changes, the resume and the message were queued: " + raised);
            Check.Sequence(new[] { "m1" }, seen, "the second handler still ran");
            Check.Equal(1, errors.Count, "the throwing handler was reported");
            Check.Equal(0, client.DispatchEvents(), "nothing twice");
            client.Close();
        }

        [Scenario("bad input: given a pushed type this version does not know, then it is handed on as an UnknownFrame with every field, and counts for the cursor")]
        public async Task UnknownPushIsHandedOn()
        {
            var sockets = new ScriptedSockets();
            var client = sockets.Client();
            var frames = new ConcurrentQueue<ServerFrame>();
            client.Frame += frames.Enqueue;
            await client.ConnectAsync();
            sockets[0].ServeText("not json at all");
            sockets[0].ServeText("{\"message\":\"Internal server error\"}");
            sockets[0].Serve(new JsonObject { { "type", "connection_details" }, { "endpoints", new List<object> { "a" } }, { "seq", 21L } });
            await Check.Until(() => frames.Count == 1, "the new frame");
            ServerFrame frame;
            frames.TryPeek(out frame);
            Check.True(frame is UnknownFrame, "an UnknownFrame: " + frame.GetType().Name);
            Check.Equal("connection_details", frame.Type, "its type");
            Check.Equal("{\"type\":\"connection_details\",\"endpoints\":[\"a\"],\"seq\":21}", frame.ToString(), "every field kept");
            Check.Equal(21L, client.Cursor, "the cursor moved");
            Check.Equal(ConnectionState.Live, client.State, "text that is no frame changed nothing");
            client.Close();
        }

        [Scenario("bad input: given a body that is not JSON (NaN, a type JSON has no form for), then the request fails with invalid and nothing is sent")]
        public async Task UnwritableBodyIsRefusedUnsent()
        {
            var sockets = new ScriptedSockets();
            var client = sockets.Client();
            await client.ConnectAsync();
            int before = sockets[0].Sent.Count;
            var nan = await Check.FailsWith(ClientErrorCode.Invalid, () => client.SendMessageAsync(new[] { "bob" }, double.NaN), "a NaN message");
            Check.True(nan.Message.Contains("NaN"), "says why: " + nan.Message);
            var date = await Check.FailsWith(ClientErrorCode.Invalid, () => client.SendMessageAsync(new[] { "bob" }, DateTime.Now), "a DateTime");
            Check.True(date.Message.Contains("System.DateTime"), "names the type: " + date.Message);
            await Check.FailsWith(ClientErrorCode.Invalid, () => client.RequestAsync("sendMessage", new[] { 1, 2 }), "a body that is an array");
            Check.Equal(before, sockets[0].Sent.Count, "nothing sent");
            client.Close();
        }

        [Scenario("reconnect: given resume answered unavailable, then the socket is dropped and the next connect resumes")]
        public async Task ResumeErrorReconnects()
        {
            var sockets = new ScriptedSockets
            {
                ResumeError = new JsonObject { { "type", "error" }, { "route", "resume" }, { "requestId", "*" }, { "code", "unavailable" }, { "message", "try again" } },
            };
            var client = sockets.Client(o => o.Reconnect = new ReconnectOptions { InitialDelay = TimeSpan.FromMilliseconds(1), MaxDelay = TimeSpan.FromMilliseconds(1) });
            var connecting = client.ConnectAsync();
            await Check.Until(() => sockets.Count >= 2, "a second socket");
            sockets.ResumeError = null;
            var ack = await connecting;
            Check.Equal("p", ack.Fields.GetString("playerId"), "live after a retry");
            client.Close();
        }

        [Scenario("reconnect: given failed connects, then each delay is within min(MaxDelay, InitialDelay x 2^attempt) and MaxAttempts ends with gave_up")]
        public async Task BackoffIsCappedWithFullJitter()
        {
            var sockets = new ScriptedSockets { RefuseWith = 0 };
            var delays = new List<TimeSpan>();
            var client = sockets.Client(o => o.Reconnect = new ReconnectOptions { InitialDelay = TimeSpan.FromMilliseconds(2), MaxDelay = TimeSpan.FromMilliseconds(10), MaxAttempts = 6 });
            client.StateChanged += s => { if (s.Delay != null) lock (delays) delays.Add(s.Delay.Value); };
            var error = await Check.FailsWith(ClientErrorCode.Closed, () => client.ConnectAsync(), "connect");
            Check.True(error.Message.Contains("gave_up"), error.Message);
            await Check.Until(() => { lock (delays) return delays.Count == 6; }, "six delays");
            for (int i = 0; i < 6; i++) Check.True(delays[i].TotalMilliseconds <= Math.Min(10, 2 * Math.Pow(2, i)), "delay " + i + ": " + delays[i]);
            Check.Equal(7, sockets.Count, "the first connect and six retries");
        }

        [Scenario("tokens: given a token provider that throws, then the client stops with token_failed and its message")]
        public async Task TokenProviderFailureStops()
        {
            var sockets = new ScriptedSockets();
            var client = sockets.Client(o => { o.PlayerId = null; o.Token = () => { throw new InvalidOperationException("no session"); }; });
            var error = await Check.FailsWith(ClientErrorCode.Closed, () => client.ConnectAsync(), "connect");
            Check.True(error.Message.Contains("token_failed") && error.Message.Contains("no session"), error.Message);
            Check.Equal(0, sockets.Count, "no socket opened");
        }

        [Scenario("tokens: given a client made on a thread with a SynchronizationContext (Unity's main thread), then the token provider runs there, and the token travels as a Bearer header when asked")]
        public async Task TokenProviderRunsOnTheGameThread()
        {
            var loop = new SingleThreadContext();
            var sockets = new ScriptedSockets();
            int providerThread = -1;
            GameSocketsClient client = null;
            loop.Run(() => client = sockets.Client(o =>
            {
                o.PlayerId = null;
                o.TokenInHeader = true;
                o.Token = () => { providerThread = Thread.CurrentThread.ManagedThreadId; return Task.FromResult("jwt-1"); };
            }));
            await client.ConnectAsync();
            Check.Equal(loop.ThreadId, providerThread, "the provider ran on the game's thread");
            Check.Equal("Authorization: Bearer jwt-1", string.Join(",", sockets[0].Headers.Select(h => h.Key + ": " + h.Value)), "the header");
            Check.True(!sockets[0].Url.Query.Contains("jwt-1"), "not in the URL: " + sockets[0].Url);
            client.Close();
            loop.Stop();
        }

        [Scenario("options: given no credentials or a URL that is not ws(s), then the constructor says what to pass")]
        public Task BadOptionsAreExplained()
        {
            var noAuth = Throws(() => new GameSocketsClient(new ClientOptions { Url = "ws://x/y" }));
            Check.True(noAuth.Contains("Token") && noAuth.Contains("PlayerId"), noAuth);
            var http = Throws(() => new GameSocketsClient(new ClientOptions { Url = "https://x/y", PlayerId = "p" }));
            Check.True(http.Contains("ws:// or wss://"), http);
            return Task.FromResult(0);
        }

        private static string Throws(Action action)
        {
            try { action(); }
            catch (ArgumentException error) { return error.Message; }
            throw new CheckFailed("expected an ArgumentException");
        }

        /// <summary>A game loop's SynchronizationContext: one thread running what is posted to it.</summary>
        private sealed class SingleThreadContext : SynchronizationContext
        {
            private readonly BlockingCollection<Action> work = new BlockingCollection<Action>();
            private readonly Thread thread;

            public SingleThreadContext()
            {
                thread = new Thread(() =>
                {
                    SetSynchronizationContext(this);
                    foreach (var action in work.GetConsumingEnumerable()) action();
                }) { IsBackground = true };
                thread.Start();
            }

            public int ThreadId { get { return thread.ManagedThreadId; } }

            public override void Post(SendOrPostCallback callback, object state) { work.Add(() => callback(state)); }

            public void Run(Action action)
            {
                var done = new ManualResetEventSlim();
                work.Add(() => { action(); done.Set(); });
                done.Wait();
            }

            public void Stop() { work.CompleteAdding(); }
        }
    }
}
