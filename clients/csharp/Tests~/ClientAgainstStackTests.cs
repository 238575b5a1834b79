using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using GameLiftSockets.Protocol;

namespace GameLiftSockets.Tests
{
    /// <summary>The client against the real local stack (JWT mode), over Mono's ClientWebSocket:
    /// clients/typescript/test/client.test.mjs's "against the local stack".</summary>
    public sealed class ClientAgainstStack : Suite
    {
        private LocalStack stack;

        public override async Task SetUp() { stack = await LocalStack.Start(); }

        public override Task TearDown()
        {
            if (stack != null) stack.Stop();
            return Task.FromResult(0);
        }

        [Scenario("given a server-side drop, when it reconnects with a fresh token, then resume says resumed and every message arrives once")]
        public async Task DropThenResumeWithCursorAndFreshToken()
        {
            // The first token lives 2 s: reconnecting after it expired works only with a new one.
            var alice = new Player(stack, "alice-drop", tokenLifetimeSeconds: 2);
            var bob = new Player(stack, "bob-drop");
            var first = await alice.Connect();
            Check.Equal(false, first.Resumed, "a first connect is not a resume");
            await bob.Connect();

            for (int i = 0; i < 5; i++) await bob.Client.SendMessageAsync(new[] { "alice-drop" }, new JsonObject { { "n", i } });
            await Check.Until(() => alice.Messages.Count == 5, "the first five messages");

            await Check.Sleep(2500); // alice's first token has expired
            await stack.Drop("alice-drop");
            // Sent while alice is away: stored, and replayed by her resume with the cursor.
            for (int i = 5; i < 10; i++) await bob.Client.SendMessageAsync(new[] { "alice-drop" }, new JsonObject { { "n", i } });

            await Check.Until(() => alice.Resumes.Count == 2, "the reconnect");
            Check.Equal(true, alice.Resumes[1].Resumed, "within the grace the session is kept");
            await Check.Until(() => alice.Messages.Count >= 10, "all ten messages");
            await Check.Sleep(300);
            Check.Sequence(Enumerable.Range(0, 10).Select(i => (long)i), alice.MessageNumbers(), "each message once, in order");
            Check.Equal(10, alice.Messages.Select(m => m.MessageId).Distinct().Count(), "distinct message ids");
            Check.True(alice.States.Contains(ConnectionState.Reconnecting), "it went through reconnecting");
            Check.Equal(2, alice.Tokens.Count, "one token per connect");
            Check.NotEqual(alice.Tokens[0], alice.Tokens[1], "the reconnect used a fresh token");
            alice.Close();
            bob.Close();
        }

        [Scenario("given the same player connects elsewhere, then the first client stops with session_replaced and never reconnects")]
        public async Task SessionReplacedStopsForGood()
        {
            var first = new Player(stack, "carol-replaced");
            await first.Connect();
            var second = new Player(stack, "carol-replaced");
            await second.Connect();

            await Check.Until(() => first.ClosedEvents.Count == 1, "the first client to stop");
            Check.Equal(StopReason.SessionReplaced, first.ClosedEvents[0].Reason, "why it stopped");
            Check.Equal(ConnectionState.Closed, first.Client.State, "the first client's state");
            await Check.Sleep(1000);
            Check.Equal(1, first.Tokens.Count, "no reconnect attempt after session_replaced");
            Check.True(!first.States.Contains(ConnectionState.Reconnecting), "never reconnecting");
            // The second one is live and was not replaced back.
            Check.Equal(ConnectionState.Live, second.Client.State, "the second client's state");
            var pong = await second.Client.HeartbeatAsync();
            Check.True(pong.ServerTime > 0, "the heartbeat is acked with the server time");
            await Check.FailsWith(ClientErrorCode.Closed, () => first.Client.HeartbeatAsync(), "a request on the stopped client");
            second.Close();
        }

        [Scenario("given bad requests, then each fails with a typed exception carrying the server code")]
        public async Task BadRequestsAreTypedErrors()
        {
            var dave = new Player(stack, "dave-errors");
            await dave.Connect();
            var notFound = await Check.FailsWith(ErrorCode.NotFound, () => dave.Client.SendMessageAsync(new[] { "nobody-has-this-id" }, new JsonObject { { "hi", 1 } }), "a message to nobody");
            Check.Equal(Routes.SendMessage, notFound.Route, "the route");
            Check.Sequence(new[] { "nobody-has-this-id" }, notFound.Reply.PlayerIds, "the ids nobody has, typed in Reply");
            await Check.FailsWith(ErrorCode.NotFound, () => dave.Client.CancelPlacementAsync(), "cancelling with no placement");
            await Check.FailsWith(ErrorCode.BadRequest, () => dave.Client.RequestAsync(Routes.SendMessage, new JsonObject { { "playerIds", new List<object>() }, { "message", 1 } }), "no recipients");
            dave.Close();
        }

        [Scenario("given a server that does not answer, then the request fails with timeout and the late reply is ignored")]
        public async Task UnansweredRequestTimesOut()
        {
            var erin = new Player(stack, "erin-timeout");
            await erin.Connect();
            stack.Pause();
            await Check.Sleep(200); // SIGSTOP takes effect asynchronously
            try
            {
                var error = await Check.FailsWith(ClientErrorCode.Timeout, () => erin.Client.RequestAsync(Routes.Heartbeat, null, TimeSpan.FromMilliseconds(300)), "an unanswered heartbeat");
                Check.Equal(Routes.Heartbeat, error.Route, "the route");
            }
            finally
            {
                stack.Resume();
            }
            var pong = await erin.Client.HeartbeatAsync();
            Check.True(pong.ServerTime > 0, "the client goes on working");
            erin.Close();
        }

        [Scenario("given a placement request, then the pushed result arrives once as a Placement event, raised by DispatchEvents on the game's thread")]
        public async Task PlacementIsPushedOnce()
        {
            var placements = new List<PlacementFrame>();
            int dispatcher = -1;
            bool onDispatcher = true;
            var frank = new Player(stack, "frank-placement", o => o.DispatchImmediately = false);
            frank.Client.Placement += p =>
            {
                placements.Add(p);
                onDispatcher &= System.Threading.Thread.CurrentThread.ManagedThreadId == dispatcher;
            };
            // Connect and requests complete on their own; only events wait for the game's DispatchEvents.
            await frank.Connect();
            var ack = await frank.Client.RequestPlacementAsync(new PlacementRequestBody { Latencies = new Dictionary<string, double> { { "local", 20 } } });
            Check.Equal(PlacementStatus.Pending, ack.Status, "the ack");
            Check.Equal(0, placements.Count, "nothing raised before DispatchEvents");
            await Check.Until(() =>
            {
                dispatcher = System.Threading.Thread.CurrentThread.ManagedThreadId;
                frank.Client.DispatchEvents();
                return placements.Count == 1;
            }, "the placement result");
            Check.Equal(ack.PlacementId, placements[0].PlacementId, "the placement id");
            Check.Equal(PlacementStatus.Fulfilled, placements[0].Status, "the status");
            Check.True(placements[0].GameSession.Port > 0, "a seat with a port");
            frank.Client.DispatchEvents();
            Check.Equal(1, placements.Count, "once");
            Check.True(onDispatcher, "raised on the thread that called DispatchEvents");
            frank.Close();
        }

        [Scenario("given queueing is off, then a request before connecting is refused with not_connected")]
        public async Task QueueingOffRefusesBeforeConnect()
        {
            var gina = new Player(stack, "gina-queue", o => o.QueueWhileReconnecting = false);
            await Check.FailsWith(ClientErrorCode.NotConnected, () => gina.Client.HeartbeatAsync(), "a request before connect");
            gina.Close();
        }

        [Scenario("given a drop, then a request made meanwhile waits for resume and succeeds")]
        public async Task RequestDuringReconnectWaitsForResume()
        {
            // Every connect after the first waits until the test lets it have a token.
            var gate = new TaskCompletionSource<bool>();
            int calls = 0;
            var states = new List<ConnectionState>();
            var client = new GameSocketsClient(new ClientOptions
            {
                Url = stack.Url,
                Token = async () =>
                {
                    if (System.Threading.Interlocked.Increment(ref calls) > 1) await gate.Task;
                    return LocalStack.MintToken("ivy-queued");
                },
                Reconnect = new ReconnectOptions { InitialDelay = TimeSpan.FromMilliseconds(10), MaxDelay = TimeSpan.FromMilliseconds(10) },
                DispatchImmediately = true,
            });
            client.StateChanged += s => { lock (states) states.Add(s.State); };
            await client.ConnectAsync();
            await stack.Drop("ivy-queued");
            await Check.Until(() => { lock (states) return states.Contains(ConnectionState.Reconnecting); }, "the drop");
            var beat = client.HeartbeatAsync();
            await Check.Sleep(200);
            Check.Equal(false, beat.IsCompleted, "held while disconnected");
            gate.SetResult(true);
            var ack = await beat;
            Check.True(ack.ServerTime > 0, "answered after resume");
            client.Close();
        }

        [Scenario("given a token the stack refuses, then the client stops as unauthorized with the status, without retrying")]
        public async Task RefusedTokenStopsAsUnauthorized()
        {
            int calls = 0;
            var closed = new List<ClosedInfo>();
            var client = new GameSocketsClient(new ClientOptions
            {
                Url = stack.Url,
                Token = () => { System.Threading.Interlocked.Increment(ref calls); return Task.FromResult("not-a-jwt"); },
                Reconnect = new ReconnectOptions { InitialDelay = TimeSpan.FromMilliseconds(10), MaxDelay = TimeSpan.FromMilliseconds(20), MaxAttempts = 3 },
                DispatchImmediately = true,
            });
            client.Closed += c => { lock (closed) closed.Add(c); };
            var error = await Check.FailsWith(ClientErrorCode.Closed, () => client.ConnectAsync(), "connect with a bad token");
            Check.True(error.Message.Contains(StopReason.Unauthorized), "stopped as unauthorized: " + error.Message);
            await Check.Until(() => { lock (closed) return closed.Count == 1; }, "the Closed event");
            Check.Equal(StopReason.Unauthorized, closed[0].Reason, "the Closed event's reason");
            Check.True(closed[0].Detail.Contains("401") || closed[0].Detail.Contains("403"), "the detail names the status: " + closed[0].Detail);
            Check.Equal(1, calls, "one token asked for: no retry");
            Check.Equal(ConnectionState.Closed, client.State, "closed");
        }

        [Scenario("given nothing listening, then after MaxAttempts connects the client gives up")]
        public async Task UnreachableGivesUpAfterMaxAttempts()
        {
            var client = new GameSocketsClient(new ClientOptions
            {
                Url = "ws://127.0.0.1:9/Development",
                PlayerId = "nobody",
                Reconnect = new ReconnectOptions { InitialDelay = TimeSpan.FromMilliseconds(10), MaxDelay = TimeSpan.FromMilliseconds(20), MaxAttempts = 3 },
            });
            var error = await Check.FailsWith(ClientErrorCode.Closed, () => client.ConnectAsync(), "connect to nothing");
            Check.True(error.Message.Contains(StopReason.GaveUp), "gave up: " + error.Message);
            Check.Equal(ConnectionState.Closed, client.State, "closed");
        }
    }
}
