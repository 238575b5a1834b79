import type { GameSession } from './protocol.js';
import { GameSocketsError } from './errors.js';

/**
 * How long before a player gateway token expires the client refreshes it: a minute, or a
 * tenth of the time left when that is less (GameLift's tokens last at least 3 minutes, so
 * at least 18 s ahead; a shorter one still leaves a tenth of its life to the refresh).
 */
export function refreshMarginMs(timeLeftMs: number): number {
  return Math.min(60_000, Math.max(0, timeLeftMs) / 10);
}

/** The first retry of a failed refresh (or of a `connectionUnavailable` seat) waits this long. */
export const REFRESH_RETRY_INITIAL_MS = 1_000;
/** Retries wait twice as long each time, up to this. */
export const REFRESH_RETRY_MAX_MS = 30_000;

/** What the tracker needs from the client. */
export interface SeatHost {
  /** Sends `refreshConnectionDetails`; resolves with the ack's seat. */
  refresh(): Promise<GameSession>;
  /** Fresh connection details for the seat, from a refresh. */
  refreshed(seat: GameSession): void;
}

const sameSeat = (a: GameSession, b: GameSession) => a.playerSessionId === b.playerSessionId && a.gameSessionArn === b.gameSessionArn;

/**
 * Whether `next` replaces `current`: another seat always; the same seat unless it would lose
 * the details it has, or bring older ones (a late answer).
 */
function replaces(current: GameSession | null, next: GameSession): boolean {
  if (!current || !sameSeat(current, next)) return true;
  if (current.connection && !next.connection) return false;
  const now = current.connection?.expiresAt ?? null;
  const then = next.connection?.expiresAt ?? null;
  return now === null || then === null || then >= now;
}

/**
 * The player's seat (the last one a placement, a match, `rejoinSession` or `resume` gave), and
 * its connection details kept fresh: a refresh at `expiresAt` minus {@link refreshMarginMs},
 * and for a `connectionUnavailable` seat (a fleet that requires player gateway, whose details
 * GameLift did not give) refreshes with capped exponential backoff until it has some. A new
 * seat cancels the old one's timer; `close` stops for good.
 */
export class SeatTracker {
  private current: GameSession | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Bumped by every other seat: a refresh answered for an older one is dropped. */
  private generation = 0;
  private failures = 0;
  private closed = false;

  constructor(private readonly host: SeatHost, private readonly now: () => number = Date.now) {}

  get seat(): GameSession | null {
    return this.current;
  }

  /** A seat the server gave (or `null`: none any more). */
  set(seat: GameSession | null): void {
    if (this.closed) return;
    if (seat === null) {
      this.generation += 1;
      this.current = null;
      clearTimeout(this.timer);
      return;
    }
    if (!replaces(this.current, seat)) return;
    if (!this.current || !sameSeat(this.current, seat)) {
      this.generation += 1;
      this.failures = 0;
    }
    this.current = seat;
    this.schedule();
  }

  /**
   * A `refreshConnectionDetails` answer (ours or the game's): the seat with fresh details,
   * announced. An answer about another seat than the one held (it changed meanwhile) is dropped.
   */
  accept(seat: GameSession): void {
    if (this.closed || (this.current && !sameSeat(this.current, seat))) return;
    if (!seat.connectionUnavailable) this.failures = 0;
    this.set(seat);
    this.host.refreshed(seat);
  }

  close(): void {
    this.closed = true;
    this.generation += 1;
    clearTimeout(this.timer);
  }

  private schedule(): void {
    clearTimeout(this.timer);
    const seat = this.current;
    if (!seat) return;
    if (seat.connectionUnavailable) return this.retry();
    const expiresAt = seat.connection?.expiresAt;
    if (typeof expiresAt !== 'number') return;
    const left = expiresAt - this.now();
    this.timer = setTimeout(() => void this.refresh(), Math.max(0, left - refreshMarginMs(left)));
  }

  private retry(delayMs?: number): void {
    clearTimeout(this.timer);
    const backoff = Math.min(REFRESH_RETRY_MAX_MS, REFRESH_RETRY_INITIAL_MS * 2 ** this.failures);
    this.failures += 1;
    this.timer = setTimeout(() => void this.refresh(), delayMs ?? backoff);
  }

  private async refresh(): Promise<void> {
    const generation = this.generation;
    try {
      const seat = await this.host.refresh();
      if (this.closed || generation !== this.generation) return;
      // A seat the server still cannot give details for keeps backing off (in `set`).
      this.accept(seat);
    } catch (error) {
      if (this.closed || generation !== this.generation) return;
      const code = error instanceof GameSocketsError ? error.code : undefined;
      // No seat any more, or the game is over: nothing left to refresh.
      if (code === 'not_found' || code === 'session_ended' || code === 'closed') {
        this.current = null;
        return;
      }
      const limited = error instanceof GameSocketsError ? error.replyOf('rate_limited') : undefined;
      this.retry(limited?.retryAfterMs);
    }
  }
}
