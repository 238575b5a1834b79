using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using GameLiftSockets.Protocol;

namespace GameLiftSockets.Tests
{
    /// <summary>The seat's connection details kept fresh, with a scripted socket (unit.test.mjs's
    /// "the seat and its connection details"): a token expiring in 2 s is refreshed once before it
    /// does, the event carries the new token, a new seat cancels the old one's refresh, a seat
    /// without details is retried with backoff, Close stops it.</summary>
    [Order(1)]
    public sealed class SeatRefresh : Suite
    {
        private const string Arn = "arn:aws:gamelift:local::gamesession/fleet-local/gs-1";

        private static long Now() { return DateTimeOffset.UtcNow.ToUnixTimeMilliseconds(); }

        /// <summary>A seat behind player gateway whose token expires <paramref name="inMs"/> from now.</summary>
        private static JsonObject Seat(string playerSessionId, string token, long inMs)
        {
            var endpoint = new JsonObject { { "ipAddress", "127.0.0.2" }, { "port", 17777L } };
            return new JsonObject
            {
                { "gameSessionArn", Arn }, { "ipAddress", "127.0.0.1" }, { "dnsName", "localhost" }, { "port", 7777L },
                { "region", "local" }, { "playerSessionId", playerSessionId },
                { "connection", new JsonObject { { "endpoints", new List<object> { endpoint } }, { "playerGatewayToken", token }, { "expiresAt", Now() + inMs } } },
            };
        }

        private static JsonObject Placed(JsonObject seat, long seq)
        {
            return new JsonObject { { "type", "placement" }, { "placementId", "pl-" + seq }, { "status", "FULFILLED" }, { "gameSession", seat }, { "seq", seq } };
        }

        private static JsonObject Refreshed(JsonObject seat)
        {
            return new JsonObject { { "type", "ack" }, { "route", "refreshConnectionDetails" }, { "requestId", "*" }, { "gameSession", seat } };
        }

        private static int Refreshes(ScriptedSocket socket)
        {
            return socket.Sent.Count(f => f.GetString("route") == "refreshConnectionDetails");
        }

        [Scenario("given a seat expiring in 2 s, then it is refreshed once before it expires and the event carries the new token")]
        public async Task RefreshedOnceBeforeExpiry()
        {
            // Given a server that answers a refresh with a token good for 10 minutes
            var refreshedAt = new List<long>();
            var sockets = new ScriptedSockets
            {
                Answer = f =>
                {
                    lock (refreshedAt) refreshedAt.Add(Now());
                    return Refreshed(Seat("psess-1", "pgt-new", 600000));
                },
            };
            var client = sockets.Client();
            var events = new List<string>();
            client.ConnectionDetailsRefreshed += s => { lock (events) events.Add(s.Connection.PlayerGatewayToken); };
            await client.ConnectAsync();

            // When a placement seats the player with a token that expires in 2 s
            var first = Seat("psess-1", "pgt-old", 2000);
            long expiresAt = first.GetObject("connection").GetLong("expiresAt").Value;
            sockets[0].Serve(Placed(first, 1));
            await Check.Sleep(1000);
            Check.Equal(0, Refreshes(sockets[0]), "not yet: the margin is a tenth of 2 s");
            await Check.Sleep(1400);

            // Then exactly one refresh went out, before the expiry, and the event has the new token
            Check.Equal(1, Refreshes(sockets[0]), "refreshes");
            lock (refreshedAt) Check.True(refreshedAt[0] < expiresAt, "refreshed before expiresAt");
            lock (events) Check.Sequence(new[] { "pgt-new" }, events, "ConnectionDetailsRefreshed");
            Check.Equal("pgt-new", client.Seat.Connection.PlayerGatewayToken, "the seat held");
            client.Close();
        }

        [Scenario("given a new seat before the old one expires, then the old timer is cancelled and only the new seat is refreshed")]
        public async Task ANewSeatCancelsTheOldTimer()
        {
            var sockets = new ScriptedSockets { Answer = f => Refreshed(Seat("psess-2", "pgt-2b", 600000)) };
            var client = sockets.Client();
            await client.ConnectAsync();
            // Given a seat expiring in 500 ms
            sockets[0].Serve(Placed(Seat("psess-1", "pgt-1", 500), 1));
            await Check.Sleep(50);
            // When a match seats the player elsewhere, expiring in 1.5 s
            var matched = Seat("psess-2", "pgt-2", 1500);
            matched["matchId"] = "m";
            matched["team"] = "red";
            sockets[0].Serve(new JsonObject { { "type", "matchmaking" }, { "ticketId", "mm-1" }, { "status", "COMPLETED" }, { "gameSession", matched }, { "seq", 2L } });
            await Check.Sleep(700);
            // Then the old seat's refresh never went out
            Check.Equal(0, Refreshes(sockets[0]), "no refresh for the old seat");
            Check.Equal("psess-2", client.Seat.PlayerSessionId, "the seat held");
            // And the new one's did, once
            await Check.Sleep(900);
            Check.Equal(1, Refreshes(sockets[0]), "one refresh for the new seat");
            Check.Equal("pgt-2b", client.Seat.Connection.PlayerGatewayToken, "its fresh token");
            client.Close();
        }

        [Scenario("given a seat whose details are unavailable, then it is refreshed with backoff until it has some; Close stops it")]
        public async Task UnavailableIsRetriedWithBackoff()
        {
            // Given a server that answers the first refresh `unavailable`, the second with details
            int asked = 0;
            var sockets = new ScriptedSockets
            {
                Answer = f => ++asked == 1
                    ? new JsonObject { { "type", "error" }, { "route", "refreshConnectionDetails" }, { "requestId", "*" }, { "code", "unavailable" }, { "message", "GameLift is unavailable; retry" } }
                    : Refreshed(Seat("psess-1", "pgt-1", 600000)),
            };
            var client = sockets.Client();
            var events = new List<string>();
            client.ConnectionDetailsRefreshed += s => { lock (events) events.Add(s.Connection.PlayerGatewayToken); };
            await client.ConnectAsync();
            // When a required fleet's seat comes without details
            var unavailable = Seat("psess-1", "x", 0);
            unavailable.Remove("connection");
            unavailable["connectionUnavailable"] = true;
            sockets[0].Serve(Placed(unavailable, 1));
            // Then it asks after 1 s, and 2 s after the failure, and then has a token
            await Check.Sleep(1300);
            Check.Equal(1, Refreshes(sockets[0]), "the first retry, after 1 s");
            await Check.Sleep(1200);
            Check.Equal(1, Refreshes(sockets[0]), "backing off: 2 s after the failure");
            await Check.Sleep(1000);
            Check.Equal(2, Refreshes(sockets[0]), "the second retry");
            lock (events) Check.Sequence(new[] { "pgt-1" }, events, "ConnectionDetailsRefreshed");
            // And a seat expiring soon is not refreshed once the client is closed
            sockets[0].Serve(Placed(Seat("psess-3", "pgt-3", 300), 2));
            await Check.Until(() => client.Seat != null && client.Seat.PlayerSessionId == "psess-3", "the new seat");
            client.Close();
            await Check.Sleep(400);
            Check.Equal(2, Refreshes(sockets[0]), "no refresh after Close");
        }
    }
}
