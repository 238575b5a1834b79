using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;
using System.Threading.Tasks;

namespace GameLiftSockets.Tests
{
    /// <summary>A suite on its own local stack started with <see cref="Settings"/>.</summary>
    public abstract class OwnStack : Suite
    {
        protected LocalStack stack;
        protected abstract Dictionary<string, string> Settings { get; }
        protected virtual string[] Arguments { get { return new string[0]; } }

        public override async Task SetUp() { stack = await LocalStack.Start(Settings, Arguments); }

        public override Task TearDown()
        {
            if (stack != null) stack.Stop();
            return Task.FromResult(0);
        }
    }

    /// <summary>client.test.mjs: "against a stack with a 3-second maximum connection time".</summary>
    public sealed class RolloverBeforeTheLimit : OwnStack
    {
        protected override Dictionary<string, string> Settings { get { return new Dictionary<string, string> { { "MAX_CONNECTION_SECONDS", "3" } }; } }

        [Scenario("given rollover before the limit, then the socket is replaced without a drop and no message is lost")]
        public async Task RolloverLosesNothing()
        {
            var alice = new Player(stack, "alice-rollover", o => o.RolloverAfter = TimeSpan.FromMilliseconds(1200));
            var bob = new Player(stack, "bob-rollover", o => o.RolloverAfter = TimeSpan.FromMilliseconds(1200));
            await alice.Connect();
            await bob.Connect();
            int sent = 0;
            var watch = Stopwatch.StartNew();
            while (watch.ElapsedMilliseconds < 4500)
            {
                await bob.Client.SendMessageAsync(new[] { "alice-rollover" }, new JsonObject { { "n", sent } });
                sent += 1;
                await Check.Sleep(50);
            }
            await Check.Until(() => alice.Messages.Count >= sent, "all " + sent + " messages");
            await Check.Sleep(300);
            Check.True(alice.Rollovers >= 2, "rolled over " + alice.Rollovers + " times");
            Check.True(!alice.States.Contains(ConnectionState.Reconnecting), "never dropped: the rollover came first");
            Check.Sequence(Enumerable.Range(0, sent).Select(i => (long)i), alice.MessageNumbers(), "each message once, in order");
            alice.Close();
            // A fresh token per rollover; one more when a rollover was under way as the test looked.
            var tokens = alice.Tokens;
            int rollovers = alice.Rollovers;
            Check.True(tokens.Count == 1 + rollovers || tokens.Count == 2 + rollovers, tokens.Count + " tokens for " + rollovers + " rollovers");
            Check.Equal(tokens.Count, tokens.Distinct().Count(), "each token fresh");
            bob.Close();
        }
    }

    /// <summary>client.test.mjs: "against a stack that closes sockets idle for 2 seconds".</summary>
    public sealed class IdleTimeout : OwnStack
    {
        protected override Dictionary<string, string> Settings { get { return new Dictionary<string, string> { { "IDLE_TIMEOUT_SECONDS", "2" } }; } }

        [Scenario("given the keep-alive timer, then the socket stays open; without it, the idle timeout drops it and it resumes")]
        public async Task KeepAliveKeepsTheSocket()
        {
            var beating = new Player(stack, "gus-heartbeat", o => o.HeartbeatInterval = TimeSpan.FromMilliseconds(500));
            var silent = new Player(stack, "hal-silent", o => o.HeartbeatInterval = TimeSpan.FromSeconds(60));
            await beating.Connect();
            await silent.Connect();
            await Check.Sleep(3500);
            Check.True(!beating.States.Contains(ConnectionState.Reconnecting), "the keep-alive timer kept it open");
            Check.Equal(1, beating.Tokens.Count, "one connect");
            Check.True(silent.States.Contains(ConnectionState.Reconnecting), "the idle timeout closed the silent one");
            // ... and it came back on its own, resumed within the grace.
            await Check.Until(() => silent.Resumes.Count >= 2, "the silent client to reconnect");
            Check.Equal(true, silent.Resumes[1].Resumed, "resumed within the grace");
            beating.Close();
            silent.Close();
        }
    }

    /// <summary>client.test.mjs: "against a stack that takes players silent for 2 seconds offline".</summary>
    public sealed class HeartbeatTimeout : OwnStack
    {
        protected override Dictionary<string, string> Settings
        {
            get { return new Dictionary<string, string> { { "HEARTBEAT_TIMEOUT_SECONDS", "2" }, { "SWEEP_INTERVAL_SECONDS", "1" } }; }
        }

        [Scenario("given a timer that only pings, then the player stays online for three timeouts; a silent one is swept")]
        public async Task PingsKeepThePlayerOnline()
        {
            // Nothing is pushed to either: the timer has no cursor to report, so it only pings.
            var pinging = new Player(stack, "ivy-pings", o => o.HeartbeatInterval = TimeSpan.FromMilliseconds(500));
            var silent = new Player(stack, "jay-silent", o => o.HeartbeatInterval = TimeSpan.FromSeconds(60));
            await pinging.Connect();
            await silent.Connect();
            await Check.Sleep(6500);
            Check.True(!pinging.States.Contains(ConnectionState.Reconnecting), "pings kept her socket open");
            Check.True(silent.States.Contains(ConnectionState.Reconnecting), "the sweeper closed the silent one");
            var watcher = new Player(stack, "kim-watches");
            await watcher.Connect();
            var ack = await watcher.Client.SubscribePresenceAsync(new[] { "ivy-pings" });
            Check.Equal("online", ack.Presence["ivy-pings"], "the pinging player's presence");
            foreach (var player in new[] { pinging, silent, watcher }) player.Close();
        }
    }
}
