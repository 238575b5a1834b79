using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Threading;
using System.Threading.Tasks;
using GameLiftSockets.Protocol;

namespace GameLiftSockets
{
    // The connection's lifecycle: resume, frames, keep-alive, reconnect, rollover, stop.
    // Everything that touches state runs under `gate`; socket I/O runs outside it.
    public sealed partial class GameSocketsClient
    {
        private Conn current;
        private Conn candidate;
        private int attempt;
        /// <summary>A rollover is under way: requests wait for the new socket.</summary>
        private bool rolling;
        /// <summary>The last `resume` ack's `keepAlive`, when it carried a usable one.</summary>
        private KeepAliveSettings serverKeepAlive;
        private Timer keepAliveTimer, rolloverTimer, reconnectTimer, drainTimer;

        /// <summary>What the keep-alive timer does now: the last `resume` ack's `keepAlive`, else (a
        /// stack older than this client) <see cref="ClientOptions.HeartbeatInterval"/> and
        /// <see cref="ClientOptions.PingWhenIdle"/>. The server's instruction always wins: it knows
        /// what keeps a player online (in its `heartbeat` mode, a ping does not).</summary>
        public KeepAliveSettings EffectiveKeepAlive
        {
            get
            {
                lock (gate)
                {
                    return serverKeepAlive ?? new KeepAliveSettings(options.PingWhenIdle ? Routes.Ping : Routes.Heartbeat, options.HeartbeatInterval);
                }
            }
        }

        private void OnOpen(Conn conn)
        {
            conn.Opened = true;
            if (stopped || conn.Closing)
            {
                conn.Closing = false;
                CloseConn(conn, 1000, "closed");
                return;
            }
            // Nothing is pushed to a socket before its resume; the cursor asks for what came after it.
            var body = new JsonObject();
            if (lastSeq != null) body["cursor"] = lastSeq;
            if (Send(conn, new JsonObject { { "route", Routes.Resume }, { "requestId", conn.ResumeId }, { "body", body } })) reportedSeq = lastSeq;
            conn.ResumeTimer = new Timer(_ => Locked(() =>
            {
                if (!conn.Live) CloseConn(conn, 4000, "resume timed out");
            }), null, options.RequestTimeout, Timeout.InfiniteTimeSpan);
        }

        private void OnFrame(Conn conn, string text)
        {
            if (stopped) return;
            JsonObject json;
            try
            {
                json = Json.Parse(text) as JsonObject;
            }
            catch (JsonException)
            {
                return;
            }
            // Not a protocol frame (e.g. API Gateway's own `{"message": "Internal server error"}`).
            if (json == null || !(json["type"] is string)) return;
            var frame = ServerFrame.Parse(json);
            switch (frame.Type)
            {
                case AckFrame.TypeName:
                case ErrorFrame.TypeName:
                    if (json.GetString("requestId") == conn.ResumeId) OnResume(conn, frame);
                    else OnReply(frame);
                    return;
                case SessionReplacedFrame.TypeName:
                    // Our own rollover replaced this socket: expected. Otherwise another device took over.
                    if (conn.Retiring || conn != current) return;
                    Stop(StopReason.SessionReplaced, null);
                    return;
                case DisconnectedFrame.TypeName:
                    // The server closes this socket next; the close reconnects.
                    return;
                default:
                    Deliver(frame);
                    return;
            }
        }

        private void OnResume(Conn conn, ServerFrame frame)
        {
            var error = frame as ErrorFrame;
            if (error != null)
            {
                // `unavailable` (or anything else): this socket is no use; reconnect with backoff.
                CloseConn(conn, 4000, "resume failed: " + error.Code);
                return;
            }
            conn.Live = true;
            if (conn.ResumeTimer != null) conn.ResumeTimer.Dispose();
            var ack = new ResumeAck(frame.Raw);
            serverKeepAlive = KeepAliveSettings.Of(ack.KeepAlive);
            if (conn == candidate)
            {
                var old = current;
                candidate = null;
                rolling = false;
                current = conn;
                if (old != null)
                {
                    old.Retiring = true;
                    FailPending(old);
                    CloseConn(old, 1000, "rollover");
                }
                Emit(() => RolledOver, ack);
            }
            attempt = 0;
            // The server's word on the seat (replayed pushes came before this ack).
            SetSeat(ack.GameSession);
            SetState(ConnectionState.Live, null);
            StartTimers();
            Emit(() => Resumed, ack);
            if (firstLive != null) firstLive.TrySetResult(ack);
            FlushQueue();
        }

        /// <summary>Hands a pushed frame on once: by `seq`, then `messageId`, (`placementId`, `status`) or (`ticketId`, `status`).</summary>
        private void Deliver(ServerFrame frame)
        {
            long? seq = frame.Seq;
            if (seq != null)
            {
                if (!seqs.Add(seq.Value.ToString(System.Globalization.CultureInfo.InvariantCulture))) return;
                lastSeq = lastSeq == null ? seq : Math.Max(lastSeq.Value, seq.Value);
            }
            if (frame is MessageFrame && !messages.Add(((MessageFrame)frame).MessageId ?? "")) return;
            if (frame is PlacementFrame && !placements.Add(((PlacementFrame)frame).PlacementId + "\n" + ((PlacementFrame)frame).Status)) return;
            if (frame is MatchmakingFrame && !tickets.Add(((MatchmakingFrame)frame).TicketId + "\n" + ((MatchmakingFrame)frame).Status)) return;
            // A seat, from a fulfilled placement or a completed match.
            var placed = frame as PlacementFrame;
            if (placed != null && placed.Status == PlacementStatus.Fulfilled && placed.GameSession != null) SetSeat(placed.GameSession);
            var matched = frame as MatchmakingFrame;
            if (matched != null && matched.Status == TicketStatus.Completed && matched.GameSession != null) SetSeat(GameSession.FromJson(matched.GameSession.Raw));
            if (frame is MessageFrame) Emit(() => Message, (MessageFrame)frame);
            else if (frame is PlacementFrame) Emit(() => Placement, (PlacementFrame)frame);
            else if (frame is MatchmakingFrame) Emit(() => Matchmaking, (MatchmakingFrame)frame);
            else if (frame is PresenceFrame) Emit(() => Presence, (PresenceFrame)frame);
            else if (frame is PartyFrame) Emit(() => Party, (PartyFrame)frame);
            else if (frame is PartyInviteFrame) Emit(() => PartyInvite, (PartyInviteFrame)frame);
            else if (frame is PartyInviteDeclinedFrame) Emit(() => PartyInviteDeclined, (PartyInviteDeclinedFrame)frame);
            else if (frame is FriendFrame) Emit(() => Friend, (FriendFrame)frame);
            else if (frame is DisconnectedByServerFrame) Emit(() => DisconnectedByServer, (DisconnectedByServerFrame)frame);
            Emit(() => Frame, frame);
        }

        private void OnEnded(Conn conn, int? status)
        {
            if (conn.Ended) return;
            conn.Ended = true;
            if (conn.ResumeTimer != null) conn.ResumeTimer.Dispose();
            if (conn.AbortTimer != null) conn.AbortTimer.Dispose();
            conn.Cancel.Cancel();
            conn.Socket.Abort();
            if (stopped || conn.Retiring) return;
            if (conn == candidate)
            {
                candidate = null;
                RolloverFailed();
                return;
            }
            if (conn == current) Lost(conn, status);
        }

        /// <summary>The current socket is gone: fail what was sent on it and reconnect (or stop on 401/403).</summary>
        private void Lost(Conn conn, int? status)
        {
            current = null;
            StopTimers();
            FailPending(conn);
            if (!conn.Opened && (status == 401 || status == 403))
            {
                Stop(StopReason.Unauthorized, "the upgrade was refused with " + status);
                return;
            }
            ScheduleReconnect();
        }

        private void ScheduleReconnect()
        {
            if (stopped) return;
            var reconnect = options.Reconnect;
            if (attempt >= reconnect.MaxAttempts)
            {
                Stop(StopReason.GaveUp, attempt + " connects in a row failed");
                return;
            }
            double ceiling = Math.Min(reconnect.MaxDelay.TotalMilliseconds, reconnect.InitialDelay.TotalMilliseconds * Math.Pow(2, Math.Min(attempt, 30)));
            var delay = TimeSpan.FromMilliseconds(Math.Floor(random.NextDouble() * ceiling));
            attempt += 1;
            SetState(ConnectionState.Reconnecting, delay);
            if (reconnectTimer != null) reconnectTimer.Dispose();
            reconnectTimer = new Timer(_ => Forget(OpenAsync(false)), null, delay, Timeout.InfiniteTimeSpan);
        }

        /// <summary>Opens a new socket and resumes on it; the old one closes once the new one is live.</summary>
        private void Rollover()
        {
            var old = current;
            if (stopped || rolling || old == null || !old.Live) return;
            // Requests made from now wait for the new socket. The server closes the old one as soon
            // as the new one connects, so first let the old one's replies arrive (up to a timeout).
            rolling = true;
            var started = Stopwatch.StartNew();
            if (drainTimer != null) drainTimer.Dispose();
            drainTimer = new Timer(_ => Locked(() =>
            {
                bool busy = false;
                foreach (var entry in pending.Values) busy |= entry.Conn == old;
                if (busy && started.Elapsed < options.RequestTimeout) return;
                drainTimer.Dispose();
                if (stopped || current != old) return;
                old.Retiring = true;
                Forget(OpenAsync(true));
            }), null, TimeSpan.Zero, TimeSpan.FromMilliseconds(20));
        }

        private void RolloverFailed()
        {
            rolling = false;
            var old = current;
            if (old == null || stopped) return;
            old.Retiring = false;
            if (!old.Ended && !old.Closing)
            {
                // The old socket still works: try again a little later.
                var retry = TimeSpan.FromMilliseconds(Math.Min(30000, options.RolloverAfter.TotalMilliseconds / 10));
                if (rolloverTimer != null) rolloverTimer.Dispose();
                rolloverTimer = new Timer(_ => Locked(Rollover), null, retry, Timeout.InfiniteTimeSpan);
                FlushQueue();
            }
            else
            {
                Lost(old, null);
            }
        }

        private void StartTimers()
        {
            StopTimers();
            var interval = EffectiveKeepAlive.Interval;
            keepAliveTimer = new Timer(_ => Locked(Beat), null, interval, interval);
            rolloverTimer = new Timer(_ => Locked(Rollover), null, options.RolloverAfter, Timeout.InfiniteTimeSpan);
        }

        private void StopTimers()
        {
            if (keepAliveTimer != null) keepAliveTimer.Dispose();
            if (rolloverTimer != null) rolloverTimer.Dispose();
            keepAliveTimer = rolloverTimer = null;
        }

        /// <summary>
        /// The timer's sign of life. A `ping` costs one inbound message and nothing else (API
        /// Gateway takes it, no function, no write); a `heartbeat` costs a database write, worth it
        /// to record a new cursor (a reload's `resume` without cursor then replays at most one
        /// interval of frames) or when the keep-alive route says heartbeat. Neither has a
        /// `requestId`: nothing comes back.
        /// </summary>
        private void Beat()
        {
            var conn = current;
            if (conn == null || !conn.Live) return;
            var cursor = lastSeq;
            bool unreported = cursor != null && (reportedSeq == null || cursor > reportedSeq);
            if (unreported || EffectiveKeepAlive.Route == Routes.Heartbeat)
            {
                var frame = new JsonObject { { "route", Routes.Heartbeat } };
                if (cursor != null) frame["body"] = new JsonObject { { "cursor", cursor } };
                if (Send(conn, frame)) reportedSeq = cursor ?? reportedSeq;
            }
            else
            {
                Send(conn, new JsonObject { { "route", Routes.Ping } });
            }
        }

        private void Stop(string reason, string detail)
        {
            if (stopped) return;
            stopped = true;
            StopTimers();
            DisposeSeatTimer();
            if (reconnectTimer != null) reconnectTimer.Dispose();
            if (drainTimer != null) drainTimer.Dispose();
            foreach (var conn in new[] { current, candidate })
            {
                if (conn == null) continue;
                conn.Retiring = true;
                CloseConn(conn, 1000, reason);
            }
            foreach (var requestId in new List<string>(pending.Keys))
                Settle(requestId, new GameSocketsException(ClientErrorCode.Closed, "the client stopped: " + reason, pending[requestId].Route, requestId), null);
            queue.Clear();
            SetState(ConnectionState.Closed, null);
            var info = new ClosedInfo { Reason = reason, Detail = detail };
            Emit(() => Closed, info);
            if (firstLive != null) firstLive.TrySetException(new GameSocketsException(ClientErrorCode.Closed, "the client stopped: " + info));
        }
    }
}
