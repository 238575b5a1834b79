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
        /// <summary>A resume ack's `keepAlive` field.</summary>
        private static JsonObject KeepAlive(string route, long seconds)
        {
            return new JsonObject { { "keepAlive", new JsonObject { { "route", route }, { "intervalSeconds", seconds } } } };
        }

        [Scenario("keep-alive: given the server says keepAlive heartbeat every second, then every tick is a heartbeat with the cursor at its interval, though the options say 60 s")]
        public async Task ServerSaysHeartbeat()
        {
            var sockets = new ScriptedSockets { ResumeExtra = KeepAlive("heartbeat", 1) };
            var client = sockets.Client(o => { o.HeartbeatInterval = TimeSpan.FromSeconds(60); o.PingWhenIdle = true; });
            var ack = await client.ConnectAsync();
            Check.Equal("heartbeat", ack.KeepAlive.Route, "the ack's route");
            Check.Equal(1L, ack.KeepAlive.IntervalSeconds, "the ack's interval");
            Check.Equal("heartbeat", client.EffectiveKeepAlive.Route, "the timer's route");
            Check.Equal(TimeSpan.FromSeconds(1), client.EffectiveKeepAlive.Interval, "the timer's interval");
            sockets[0].Serve(new JsonObject { { "type", "message" }, { "messageId", "m1" }, { "from", "bob" }, { "message", 1L }, { "sentAt", 1L }, { "seq", 5L } });
            var started = System.Diagnostics.Stopwatch.StartNew();
            await Check.Until(() => sockets[0].TimerFrames().Count >= 2, "two ticks", 3000);
            Check.True(started.ElapsedMilliseconds < 5000, "the server's interval, not the 60 s option");
            Check.Sequence(Enumerable.Repeat("{\"route\":\"heartbeat\",\"body\":{\"cursor\":5}}", 2), sockets[0].TimerFrames().Take(2),
                "a heartbeat each tick, with the cursor, even with nothing new to report");
            client.Close();
        }

        [Scenario("keep-alive: given the server says keepAlive ping, then idle ticks are pings even with PingWhenIdle false, and a push handled makes the next a heartbeat")]
        public async Task ServerSaysPing()
        {
            var sockets = new ScriptedSockets { ResumeExtra = KeepAlive("ping", 1) };
            var client = sockets.Client(o => { o.HeartbeatInterval = TimeSpan.FromSeconds(60); o.PingWhenIdle = false; });
            await client.ConnectAsync();
            await Check.Until(() => sockets[0].TimerFrames().Count >= 2, "two ticks", 3000);
            sockets[0].Serve(new JsonObject { { "type", "presence" }, { "playerId", "x" }, { "status", "online" }, { "at", 1L }, { "seq", 8L } });
            await Check.Until(() => client.Cursor == 8, "the push");
            int before = sockets[0].TimerFrames().Count;
            await Check.Until(() => sockets[0].TimerFrames().Count > before, "the next tick", 3000);
            Check.Sequence(new[] { "{\"route\":\"ping\"}", "{\"route\":\"ping\"}" }, sockets[0].TimerFrames().Take(2), "the idle ticks");
            Check.Equal("{\"route\":\"heartbeat\",\"body\":{\"cursor\":8}}", sockets[0].TimerFrames()[before], "the tick after the push");
            client.Close();
        }

        [Scenario("keep-alive: given an ack without keepAlive (an older stack), then HeartbeatInterval and PingWhenIdle apply; no option overrides the server's instruction")]
        public async Task OptionsAreTheFallback()
        {
            var sockets = new ScriptedSockets();
            var client = sockets.Client(o => { o.HeartbeatInterval = TimeSpan.FromMilliseconds(20); o.PingWhenIdle = false; });
            var ack = await client.ConnectAsync();
            Check.Equal(null, ack.KeepAlive, "no instruction");
            await Check.Until(() => sockets[0].TimerFrames().Count >= 3, "three ticks", 3000);
            Check.Sequence(Enumerable.Repeat("{\"route\":\"heartbeat\"}", 3), sockets[0].TimerFrames().Take(3), "the options' route and interval");
            Check.Equal(TimeSpan.FromMilliseconds(20), client.EffectiveKeepAlive.Interval, "the option's interval");
            client.Close();

            var plain = new ScriptedSockets().Client();
            await plain.ConnectAsync();
            Check.Equal("ping", plain.EffectiveKeepAlive.Route, "the default route");
            Check.Equal(TimeSpan.FromSeconds(30), plain.EffectiveKeepAlive.Interval, "the default interval");
            plain.Close();
            // A client overriding the server would let its player be swept in heartbeat mode.
            Check.Equal(0, typeof(ClientOptions).GetMember("KeepAlive").Length, "ClientOptions has no KeepAlive override");
        }

        [Scenario("keep-alive: given an instruction the client cannot follow (an unknown route, an interval under a second), then the options apply")]
        public async Task UnusableInstructionIsIgnored()
        {
            foreach (var instruction in new[] { KeepAlive("dance", 5), KeepAlive("heartbeat", 0) })
            {
                var sockets = new ScriptedSockets { ResumeExtra = instruction };
                var client = sockets.Client(o => o.HeartbeatInterval = TimeSpan.FromSeconds(7));
                var ack = await client.ConnectAsync();
                var sent = instruction.GetObject("keepAlive");
                Check.Equal(sent.GetString("route"), ack.KeepAlive.Route, "the ack's keepAlive, as received");
                Check.Equal(sent.GetLong("intervalSeconds"), (long?)ack.KeepAlive.IntervalSeconds, "its interval, as received");
                Check.Equal("ping", client.EffectiveKeepAlive.Route, "the option's route");
                Check.Equal(TimeSpan.FromSeconds(7), client.EffectiveKeepAlive.Interval, "the option's interval");
                client.Close();
            }
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

        [Scenario("options: given no credentials, a URL that is not ws(s) or a heartbeat interval that is not positive, then the constructor says what to pass")]
        public Task BadOptionsAreExplained()
        {
            var noAuth = Throws(() => new GameSocketsClient(new ClientOptions { Url = "ws://x/y" }));
            Check.True(noAuth.Contains("Token") && noAuth.Contains("PlayerId"), noAuth);
            var http = Throws(() => new GameSocketsClient(new ClientOptions { Url = "https://x/y", PlayerId = "p" }));
            Check.True(http.Contains("ws:// or wss://"), http);
            var interval = Throws(() => new GameSocketsClient(new ClientOptions { Url = "ws://x/y", PlayerId = "p", HeartbeatInterval = TimeSpan.Zero }));
            Check.True(interval.Contains("HeartbeatInterval"), interval);
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
