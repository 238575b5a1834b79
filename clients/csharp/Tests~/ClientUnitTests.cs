using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using GameLiftSockets.Protocol;

namespace GameLiftSockets.Tests
{
    /// <summary>The client's own logic with a scripted socket: clients/typescript/test/unit.test.mjs, and
    /// what this client adds (the server's keep-alive instruction, the event queue, the token's thread).</summary>
    [Order(1)]
    public sealed class ClientUnit : Suite
    {
        private static JsonObject Message(string id, long seq, object n)
        {
            return new JsonObject { { "type", "message" }, { "messageId", id }, { "from", "bob" }, { "message", n }, { "sentAt", 1L }, { "seq", seq } };
        }

        private static JsonObject Presence(long seq)
        {
            return new JsonObject { { "type", "presence" }, { "playerId", "x" }, { "status", "online" }, { "at", 1L }, { "seq", seq } };
        }

        private static Task Ticks(ScriptedSocket socket, int n)
        {
            return Check.Until(() => socket.TimerFrames().Count >= n, n + " timer ticks", 5000);
        }

        [Scenario("de-duplication: given the same push twice, or a message again under a new seq, then each is handed on once")]
        public async Task PushesAreHandedOnOnce()
        {
            var sockets = new ScriptedSockets();
            var client = sockets.Client();
            var messages = new List<string>();
            var placements = new List<string>();
            var tickets = new List<string>();
            client.Message += m => { lock (messages) messages.Add(m.MessageId); };
            client.Placement += p => { lock (placements) placements.Add(p.Status); };
            client.Matchmaking += t => { lock (tickets) tickets.Add(t.Status); };
            await client.ConnectAsync();
            var socket = sockets[0];
            socket.Serve(Message("m1", 5, 1));
            socket.Serve(Message("m1", 5, 1)); // a retried delivery
            socket.Serve(Message("m1", 9, 1)); // replayed under a new seq
            socket.Serve(Message("m2", 6, 2));
            var placement = new JsonObject { { "type", "placement" }, { "placementId", "pl-1" }, { "status", "FULFILLED" }, { "seq", 7L } };
            socket.Serve(placement);
            placement["seq"] = 10L;
            socket.Serve(placement);
            placement["status"] = "CANCELLED";
            placement["seq"] = 11L;
            socket.Serve(placement);
            var ticket = new JsonObject { { "type", "matchmaking" }, { "ticketId", "mm-1" }, { "status", "SEARCHING" }, { "seq", 12L } };
            socket.Serve(ticket);
            ticket["seq"] = 13L;
            socket.Serve(ticket);
            await Check.Until(() => client.Cursor == 13, "every frame handled");
            await Check.Sleep(20);
            Check.Sequence(new[] { "m1", "m2" }, messages, "messages");
            Check.Sequence(new[] { "FULFILLED", "CANCELLED" }, placements, "placements");
            Check.Sequence(new[] { "SEARCHING" }, tickets, "matchmaking (ticketId, status)");
            Check.Equal(13L, client.Cursor, "the cursor is the highest seq processed");
            client.Close();
        }

        [Scenario("de-duplication: given a reconnect, then resume carries the cursor of the last processed frame")]
        public async Task ResumeCarriesTheCursor()
        {
            var sockets = new ScriptedSockets();
            var client = sockets.Client(o => o.Reconnect = new ReconnectOptions { InitialDelay = TimeSpan.FromMilliseconds(1), MaxDelay = TimeSpan.FromMilliseconds(1) });
            await client.ConnectAsync();
            sockets[0].Serve(Presence(42));
            await Check.Until(() => client.Cursor == 42, "the push");
            sockets[0].Drop();
            await Check.Until(() => sockets.Count == 2 && sockets[1].Sent.Count > 0, "the reconnect's resume");
            Check.Equal("{\"cursor\":42}", Json.Serialize(sockets[1].Sent[0].GetObject("body")), "resume's body");
            Check.True(sockets[1].Url.Query.Contains("playerId=p"), "the player id travels in the URL: " + sockets[1].Url);
            client.Close();
        }

        [Scenario("the friend routes: given each friend method, then it sends its route and body and completes with the typed ack; a friend push is a Friend event")]
        public async Task FriendRoutesAreTyped()
        {
            var sockets = new ScriptedSockets
            {
                Answer = f =>
                {
                    var route = f.GetString("route");
                    var ack = new JsonObject { { "type", "ack" }, { "route", route }, { "requestId", "*" } };
                    if (route == "listFriends")
                    {
                        var bob = new JsonObject { { "playerId", "bob" }, { "state", "friends" }, { "since", 1L }, { "presence", "online" } };
                        ack["friends"] = new List<object> { bob };
                        ack["cursor"] = null;
                    }
                    else
                    {
                        ack["playerId"] = f.GetObject("body").GetString("playerId");
                        ack["state"] = route == "addFriend" ? "invited" : null;
                    }
                    return ack;
                },
            };
            var client = sockets.Client();
            var friends = new List<string>();
            client.Friend += f => { lock (friends) friends.Add(f.PlayerId + " " + f.State); };
            await client.ConnectAsync();
            Check.Equal("invited", (await client.AddFriendAsync("bob")).State, "addFriend's state");
            Check.Equal(null, (await client.RemoveFriendAsync("bob")).State, "removeFriend's state");
            Check.Equal("bob", (await client.BlockPlayerAsync("bob")).PlayerId, "blockPlayer's playerId");
            Check.Equal("bob", (await client.UnblockPlayerAsync("bob")).PlayerId, "unblockPlayer's playerId");
            var page = await client.ListFriendsAsync(FriendState.Friends);
            Check.Sequence(new[] { "bob online" }, page.Friends.Select(e => e.PlayerId + " " + e.Presence), "the page");
            var sent = sockets[0].Sent.Where(f => f.GetString("route") != "resume").Select(f => f.GetString("route") + " " + Json.Serialize(f.GetObject("body")));
            Check.Sequence(new[]
            {
                "addFriend {\"playerId\":\"bob\"}",
                "removeFriend {\"playerId\":\"bob\"}",
                "blockPlayer {\"playerId\":\"bob\"}",
                "unblockPlayer {\"playerId\":\"bob\"}",
                "listFriends {\"state\":\"friends\"}",
            }, sent, "the frames sent");
            var push = new JsonObject { { "type", "friend" }, { "playerId", "carol" }, { "state", "invitation" }, { "seq", 3L } };
            sockets[0].Serve(push);
            sockets[0].Serve(push); // a retried delivery
            await Check.Until(() => client.Cursor == 3, "the push");
            await Check.Sleep(20);
            Check.Sequence(new[] { "carol invitation" }, friends, "friend events");
            client.Close();
        }

        [Scenario("the keep-alive timer: given PingWhenIdle false, then each idle tick is a heartbeat")]
        public async Task PingWhenIdleFalseSendsHeartbeats()
        {
            var sockets = new ScriptedSockets();
            var client = sockets.Client(o => { o.HeartbeatInterval = TimeSpan.FromMilliseconds(20); o.PingWhenIdle = false; });
            await client.ConnectAsync();
            await Ticks(sockets[0], 3);
            Check.Sequence(Enumerable.Repeat("{\"route\":\"heartbeat\"}", 3), sockets[0].TimerFrames().Take(3), "the ticks");
            client.Close();
        }

        [Scenario("the keep-alive timer: given an idle client, then each tick is a ping: the route alone, no requestId, no body")]
        public async Task IdleTicksArePings()
        {
            var sockets = new ScriptedSockets();
            var client = sockets.Client(o => o.HeartbeatInterval = TimeSpan.FromMilliseconds(20));
            await client.ConnectAsync();
            await Ticks(sockets[0], 3);
            Check.Sequence(Enumerable.Repeat("{\"route\":\"ping\"}", 3), sockets[0].TimerFrames().Take(3), "the ticks");
            client.Close();
        }

        [Scenario("the keep-alive timer: given a push handled after the last report, then the next tick is a heartbeat with its cursor and the one after a ping")]
        public async Task APushMakesTheNextTickAHeartbeat()
        {
            var sockets = new ScriptedSockets();
            var client = sockets.Client(o => o.HeartbeatInterval = TimeSpan.FromMilliseconds(30));
            await client.ConnectAsync();
            var socket = sockets[0];
            await Ticks(socket, 1);
            socket.Serve(Message("m1", 7, 1));
            socket.Serve(Message("m2", 9, 2));
            await Check.Until(() => client.Cursor == 9, "the pushes");
            int before = socket.TimerFrames().Count;
            await Ticks(socket, before + 2);
            var next = socket.TimerFrames().Skip(before).Take(2).ToList();
            Check.Equal("{\"route\":\"heartbeat\",\"body\":{\"cursor\":9}}", next[0], "the cursor of the last push handled, without requestId");
            Check.Equal("{\"route\":\"ping\"}", next[1], "nothing new to report");
            client.Close();
        }

        [Scenario("the keep-alive timer: given a reconnect whose resume reported the cursor, then the timer pings")]
        public async Task ResumeCountsAsTheReport()
        {
            var sockets = new ScriptedSockets();
            var client = sockets.Client(o =>
            {
                o.HeartbeatInterval = TimeSpan.FromMilliseconds(30);
                o.Reconnect = new ReconnectOptions { InitialDelay = TimeSpan.FromMilliseconds(1), MaxDelay = TimeSpan.FromMilliseconds(1) };
            });
            await client.ConnectAsync();
            sockets[0].Serve(Presence(42));
            await Check.Until(() => client.Cursor == 42, "the push");
            sockets[0].Drop();
            await Check.Until(() => sockets.Count == 2 && sockets[1].Sent.Count > 0, "the reconnect");
            Check.Equal(42L, sockets[1].Sent[0].GetObject("body").GetLong("cursor"), "resume's cursor");
            await Ticks(sockets[1], 1);
            Check.Equal("{\"route\":\"ping\"}", sockets[1].TimerFrames()[0], "resume already reported seq 42");
            client.Close();
        }

        [Scenario("the keep-alive timer: given an explicit heartbeat, then it carries the cursor and a requestId, is acked, and counts as the report")]
        public async Task ExplicitHeartbeatIsAckedAndCounts()
        {
            var sockets = new ScriptedSockets();
            var client = sockets.Client(o => o.HeartbeatInterval = TimeSpan.FromMilliseconds(40));
            await client.ConnectAsync();
            var socket = sockets[0];
            socket.Serve(Presence(5));
            await Check.Until(() => client.Cursor == 5, "the push");
            var answered = client.HeartbeatAsync();
            JsonObject sent = null;
            await Check.Until(() => (sent = socket.Sent.FirstOrDefault(f => f.GetString("route") == "heartbeat" && f.ContainsKey("requestId"))) != null, "the heartbeat");
            Check.Equal("{\"cursor\":5}", Json.Serialize(sent.GetObject("body")), "its body");
            socket.Serve(new JsonObject { { "type", "ack" }, { "route", "heartbeat" }, { "requestId", sent.GetString("requestId") }, { "serverTime", 123L } });
            Check.Equal(123L, (await answered).ServerTime, "the server time");
            int before = socket.TimerFrames().Count;
            await Ticks(socket, before + 1);
            Check.Equal("{\"route\":\"ping\"}", socket.TimerFrames()[before], "the heartbeat reported seq 5");
            client.Close();
        }

        [Scenario("given RequestAsync(\"ping\"), then it fails with invalid and sends nothing")]
        public async Task PingIsNeverARequest()
        {
            var sockets = new ScriptedSockets();
            var client = sockets.Client();
            await client.ConnectAsync();
            var error = await Check.FailsWith(ClientErrorCode.Invalid, () => client.RequestAsync("ping"), "request(ping)");
            Check.Equal("ping", error.Route, "the route");
            Check.True(!sockets[0].Sent.Any(f => f.GetString("route") == "ping"), "no ping sent");
            client.Close();
        }

        [Scenario("handshake refusals: given an upgrade refused with 403, then the client stops as unauthorized without retrying")]
        public async Task A403StopsForGood()
        {
            var sockets = new ScriptedSockets { RefuseWith = 403 };
            var client = sockets.Client(o => { o.PlayerId = null; o.Token = () => Task.FromResult("expired"); });
            var closed = new List<ClosedInfo>();
            client.Closed += c => { lock (closed) closed.Add(c); };
            await Check.FailsWith(ClientErrorCode.Closed, () => client.ConnectAsync(), "connect");
            await Check.Until(() => { lock (closed) return closed.Count == 1; }, "the Closed event");
            Check.Equal(StopReason.Unauthorized, closed[0].Reason, "why");
            Check.Equal("the upgrade was refused with 403", closed[0].Detail, "the detail");
            Check.Equal(1, sockets.Count, "one socket: no retry");
        }
    }
}
