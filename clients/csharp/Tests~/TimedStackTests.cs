using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;
using System.Threading.Tasks;
using GameLiftSockets.Protocol;

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

        [Scenario("given a client left to its timer, then its socket stays open at the interval the stack says; a silent socket is closed by the idle timeout")]
        public async Task TheServersIntervalKeepsTheSocket()
        {
            // The option says a frame a minute; the stack's keepAlive (a frame a second) wins.
            var timed = new Player(stack, "gus-timer", o => o.HeartbeatInterval = TimeSpan.FromSeconds(60));
            var ack = await timed.Connect();
            Check.Equal((long?)1, ack.KeepAlive == null ? null : (long?)ack.KeepAlive.IntervalSeconds, "the ack's keepAlive interval");
            using (var silent = await SilentSocket.Open(stack, "hal-silent"))
            {
                await Check.Sleep(3500);
                Check.True(!timed.States.Contains(ConnectionState.Reconnecting), "the timer kept it open");
                Check.Equal(1, timed.Tokens.Count, "one connect");
                Check.Equal((int?)1001, silent.ClosedWith, "the idle timeout closed the silent one");
            }
            timed.Close();
        }
    }

    /// <summary>client.test.mjs: "against a stack in {heartbeat, connection-activity} mode that takes players silent for 2 seconds offline".</summary>
    public abstract class PresenceLiveness : OwnStack
    {
        /// <summary>PRESENCE_LIVENESS.</summary>
        protected abstract string Mode { get; }

        protected override Dictionary<string, string> Settings
        {
            get
            {
                return new Dictionary<string, string> { { "HEARTBEAT_TIMEOUT_SECONDS", "2" }, { "SWEEP_INTERVAL_SECONDS", "1" }, { "PRESENCE_LIVENESS", Mode } };
            }
        }

        [Scenario("given a client left to its timer, then its player stays online for three timeouts; a silent socket is swept")]
        public async Task TheTimerKeepsThePlayerOnline()
        {
            var timed = new Player(stack, "ivy-timer", o => o.HeartbeatInterval = TimeSpan.FromSeconds(60));
            var ack = await timed.Connect();
            string route = Mode == "heartbeat" ? "heartbeat" : "ping";
            var keepAlive = ack.KeepAlive;
            Check.Equal(route + " every 1 s", keepAlive == null ? "none" : keepAlive.Route + " every " + keepAlive.IntervalSeconds + " s", "the ack's keepAlive");
            using (var silent = await SilentSocket.Open(stack, "jay-silent"))
            {
                await Check.Sleep(6500);
                Check.True(!timed.States.Contains(ConnectionState.Reconnecting), "the timer kept her socket open");
                Check.Equal(1, timed.Tokens.Count, "one connect");
                Check.True(silent.Frames.Any(f => f.GetString("type") == "disconnected" && f.GetString("reason") == "heartbeat_timeout"),
                    "the sweeper took the silent one offline: " + string.Join(", ", silent.Frames.Select(f => Json.Serialize(f))));
            }
            var watcher = new Player(stack, "kim-watches");
            await watcher.Connect();
            var watched = await watcher.Client.SubscribePresenceAsync(new[] { "ivy-timer" });
            Check.Equal("{\"ivy-timer\":\"online\"}", Json.Serialize(watched.Raw["presence"]), "the timed player's presence");
            timed.Close();
            watcher.Close();
        }
    }

    public sealed class HeartbeatLiveness : PresenceLiveness
    {
        protected override string Mode { get { return "heartbeat"; } }
    }

    public sealed class ConnectionActivityLiveness : PresenceLiveness
    {
        protected override string Mode { get { return "connection-activity"; } }
    }

    /// <summary>client.test.mjs: "against a stack whose fleet uses player gateway with tokens lasting 3 seconds".</summary>
    public sealed class PlayerGatewayTokenRefresh : OwnStack
    {
        protected override Dictionary<string, string> Settings
        {
            get
            {
                return new Dictionary<string, string>
                {
                    { "PLAYER_GATEWAY", "enabled" }, { "SIM_PLAYER_GATEWAY", "enabled" }, { "SIM_PLAYER_GATEWAY_TOKEN_SECONDS", "3" },
                };
            }
        }

        [Scenario("given a seat from a placement, then the client refreshes its token before it expires without the game asking")]
        public async Task RefreshedBeforeExpiryUnasked()
        {
            var lia = new Player(stack, "lia-gateway");
            var refreshed = new List<KeyValuePair<GameSession, long>>();
            lia.Client.ConnectionDetailsRefreshed += seat =>
            {
                lock (refreshed) refreshed.Add(new KeyValuePair<GameSession, long>(seat, DateTimeOffset.UtcNow.ToUnixTimeMilliseconds()));
            };
            await lia.Connect();
            await lia.Client.RequestPlacementAsync();
            var placed = await lia.Next<PlacementFrame>(p => p.Status == "FULFILLED", "the placement");
            var first = placed.GameSession.Connection;
            Check.True(first != null && first.PlayerGatewayToken != null && first.ExpiresAt != null, "a token and its expiry: " + Json.Serialize(placed.GameSession.Raw));

            // The test never asks: the client's own refreshConnectionDetails brings the event.
            await Check.Until(() => { lock (refreshed) return refreshed.Count > 0; }, "the ConnectionDetailsRefreshed event");
            KeyValuePair<GameSession, long> got;
            lock (refreshed) got = refreshed[0];
            var fresh = got.Key.Connection;
            Check.Equal(placed.GameSession.PlayerSessionId, got.Key.PlayerSessionId, "the same seat");
            Check.True(fresh.PlayerGatewayToken != first.PlayerGatewayToken, "a new token");
            Check.True(fresh.ExpiresAt > first.ExpiresAt, "a later expiry: " + fresh.ExpiresAt + " > " + first.ExpiresAt);
            Check.True(got.Value < first.ExpiresAt, "before the first token expired: " + got.Value + " < " + first.ExpiresAt);
            Check.Equal(fresh.PlayerGatewayToken, lia.Client.Seat.Connection.PlayerGatewayToken, "the seat the game reads is the fresh one");
            // The stack served it as the refresh route, for this player (its log line may trail the ack).
            await Check.Until(() => stack.Log().Contains("seat given player_id=lia-gateway route=\"refreshConnectionDetails\""), "the stack to log the refresh");
            lia.Close();
        }
    }
}
