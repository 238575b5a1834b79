using System;
using System.Threading;
using System.Threading.Tasks;
using GameLiftSockets.Protocol;

namespace GameLiftSockets
{
    // The player's seat (the last one a placement, a match, `rejoinSession` or `resume` gave) and
    // its connection details kept fresh: `refreshConnectionDetails` at `expiresAt` minus
    // RefreshMargin, and for a `connectionUnavailable` seat (a fleet that requires player gateway,
    // whose details GameLift did not give) with capped exponential backoff until it has some. A
    // new seat replaces the old one's timer; Close stops it. Everything here runs under `gate`.
    public sealed partial class GameSocketsClient
    {
        /// <summary>The first retry of a failed refresh (or of a `connectionUnavailable` seat) waits this long.</summary>
        public static readonly TimeSpan RefreshRetryInitial = TimeSpan.FromSeconds(1);
        /// <summary>Retries wait twice as long each time, up to this.</summary>
        public static readonly TimeSpan RefreshRetryMax = TimeSpan.FromSeconds(30);

        /// <summary>Your seat with fresh connection details (`refreshConnectionDetails`, sent by the
        /// client before the player gateway token expires, or by you): send game traffic to its
        /// <c>Connection.Endpoints</c> with its <c>Connection.PlayerGatewayToken</c> from now on.</summary>
        public event Action<GameSession> ConnectionDetailsRefreshed;

        private GameSession seat;
        private Timer seatTimer;
        /// <summary>Refreshes that failed (or answered without details) in a row: the backoff's exponent.</summary>
        private int seatFailures;
        /// <summary>Bumped by every other seat: a refresh answered for an older one changes nothing.</summary>
        private long seatGeneration;

        /// <summary>
        /// How long before a player gateway token expires the client refreshes it: a minute, or a
        /// tenth of the time left when that is less (GameLift's tokens last at least 3 minutes, so
        /// at least 18 s ahead).
        /// </summary>
        public static TimeSpan RefreshMargin(TimeSpan timeLeft)
        {
            if (timeLeft < TimeSpan.Zero) return TimeSpan.Zero;
            var tenth = TimeSpan.FromTicks(timeLeft.Ticks / 10);
            return tenth < TimeSpan.FromMinutes(1) ? tenth : TimeSpan.FromMinutes(1);
        }

        /// <summary>
        /// The player's seat: the last one a placement, a match, `rejoinSession`, `joinFriendGame` or
        /// `resume` gave, with the freshest connection details (null: none). Its <c>Connection</c> says where to
        /// send game traffic; the client refreshes it before the player gateway token expires.
        /// </summary>
        public GameSession Seat { get { lock (gate) return seat; } }

        /// <summary>`refreshConnectionDetails`: fresh connection details for your seat (a new player
        /// gateway token). The client sends it itself before `expiresAt`; call it to refresh sooner
        /// (e.g. when a relay stops answering). Ack: its `gameSession`; also raised as
        /// <see cref="ConnectionDetailsRefreshed"/>.</summary>
        public Task<SeatAck> RefreshConnectionDetailsAsync()
        {
            return AckAsync(Routes.RefreshConnectionDetails, null, SeatAck.FromJson);
        }

        private static bool SameSeat(GameSession a, GameSession b)
        {
            return a.PlayerSessionId == b.PlayerSessionId && a.GameSessionArn == b.GameSessionArn;
        }

        /// <summary>Whether <paramref name="next"/> replaces the seat held: another seat always; the
        /// same seat unless it would lose the details it has, or bring older ones.</summary>
        private bool Replaces(GameSession next)
        {
            if (seat == null || !SameSeat(seat, next)) return true;
            if (seat.Connection != null && next.Connection == null) return false;
            long? now = seat.Connection == null ? null : seat.Connection.ExpiresAt;
            long? then = next.Connection == null ? null : next.Connection.ExpiresAt;
            return now == null || then == null || then >= now;
        }

        /// <summary>A seat the server gave (null: none any more).</summary>
        private void SetSeat(GameSession next)
        {
            if (stopped) return;
            if (next == null)
            {
                seatGeneration++;
                seat = null;
                DisposeSeatTimer();
                return;
            }
            if (!Replaces(next)) return;
            if (seat == null || !SameSeat(seat, next))
            {
                seatGeneration++;
                seatFailures = 0;
            }
            seat = next;
            DisposeSeatTimer();
            if (next.ConnectionUnavailable == true)
            {
                RetrySeat(null);
                return;
            }
            long? expiresAt = next.Connection == null ? null : next.Connection.ExpiresAt;
            if (expiresAt == null) return;
            seatFailures = 0;
            var left = TimeSpan.FromMilliseconds(Math.Max(0, expiresAt.Value - DateTimeOffset.UtcNow.ToUnixTimeMilliseconds()));
            StartSeatTimer(left - RefreshMargin(left));
        }

        /// <summary>A `refreshConnectionDetails` ack (ours or the game's): the seat with fresh details,
        /// announced; an answer about another seat than the one held (it changed meanwhile) is dropped.</summary>
        private void SeatRefreshed(GameSession next)
        {
            if (next == null || stopped || (seat != null && !SameSeat(seat, next))) return;
            SetSeat(next);
            Emit(() => ConnectionDetailsRefreshed, next);
        }

        /// <summary>Tries again after <paramref name="delay"/>, or the backoff's next wait.</summary>
        private void RetrySeat(TimeSpan? delay)
        {
            if (delay == null)
            {
                double ms = RefreshRetryInitial.TotalMilliseconds * Math.Pow(2, Math.Min(seatFailures, 16));
                delay = TimeSpan.FromMilliseconds(Math.Min(RefreshRetryMax.TotalMilliseconds, ms));
                seatFailures++;
            }
            StartSeatTimer(delay.Value);
        }

        private void StartSeatTimer(TimeSpan delay)
        {
            DisposeSeatTimer();
            long generation = seatGeneration;
            seatTimer = new Timer(_ => Locked(() => RefreshSeat(generation)), null, delay, Timeout.InfiniteTimeSpan);
        }

        private void DisposeSeatTimer()
        {
            if (seatTimer != null) seatTimer.Dispose();
            seatTimer = null;
        }

        /// <summary>Our refresh, due: sent like any request (its ack goes through <see cref="SeatRefreshed"/>);
        /// on a failure, tried again later unless there is no seat left to refresh.</summary>
        private void RefreshSeat(long generation)
        {
            if (stopped || generation != seatGeneration) return;
            var reply = Enqueue(Routes.RefreshConnectionDetails, new JsonObject(), options.RequestTimeout);
            reply.ContinueWith(t => Locked(() =>
            {
                if (!t.IsFaulted || stopped || generation != seatGeneration) return;
                var error = t.Exception.InnerException as GameSocketsException;
                string code = error == null ? null : error.Code;
                // No seat any more, or the game is over: nothing left to refresh.
                if (code == ErrorCode.NotFound || code == ErrorCode.SessionEnded || code == ClientErrorCode.Closed) return;
                long? retryAfterMs = code == ErrorCode.RateLimited && error.Reply != null ? error.Reply.RetryAfterMs : null;
                RetrySeat(retryAfterMs == null ? (TimeSpan?)null : TimeSpan.FromMilliseconds(retryAfterMs.Value));
            }));
        }
    }
}
