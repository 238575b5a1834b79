import type { GameSession } from './protocol.js';
import { Routes, type Ack } from './routes.js';
import { SeatTracker } from './seat.js';

/**
 * The typed requests, with the player's seat tracked: the seat a placement, a match,
 * `rejoinSession`, `joinFriendGame` or `resume` gave, its connection details refreshed before
 * they expire (`refreshConnectionDetails`, sent on the client's own). `GameSocketsClient` extends
 * it and says how a refreshed seat is announced.
 */
export abstract class SeatedRoutes extends Routes {
  /** The player's seat, its connection details refreshed before they expire. */
  protected readonly seats = new SeatTracker({
    refresh: async () => ((await this.request('refreshConnectionDetails', {})) as Ack<{ gameSession: GameSession }>).gameSession,
    refreshed: (seat) => this.connectionDetailsRefreshed(seat),
  });

  /** A refresh the client sent on its own brought `seat`. */
  protected abstract connectionDetailsRefreshed(seat: GameSession): void;

  /**
   * The player's seat: the last one a placement, a match, `rejoinSession`, `joinFriendGame` or
   * `resume` gave, with the freshest connection details (`null`: none). Its `connection` says
   * where to send game traffic; the client refreshes it before its player gateway token expires.
   */
  get seat(): GameSession | null {
    return this.seats.seat;
  }

  /** `rejoinSession`, and the seat it gives becomes the tracked one. */
  override rejoinSession(): Promise<Ack<{ gameSession: GameSession }>> {
    return this.seatedBy(super.rejoinSession());
  }

  /** `joinFriendGame`, and the seat it gives (in the friend's game) becomes the tracked one. */
  override joinFriendGame(playerId: string): Promise<Ack<{ gameSession: GameSession }>> {
    return this.seatedBy(super.joinFriendGame(playerId));
  }

  /** A new seat an ack gives, tracked before the caller sees it. */
  private seatedBy(reply: Promise<Ack<{ gameSession: GameSession }>>): Promise<Ack<{ gameSession: GameSession }>> {
    return reply.then((ack) => {
      this.seats.set(ack.gameSession);
      return ack;
    });
  }

  /**
   * Fresh connection details for your seat (a new player gateway token): the client sends this
   * itself before `expiresAt`; call it to refresh sooner (e.g. when a relay stops answering).
   * The new seat is also emitted as `connectionDetails`.
   */
  override refreshConnectionDetails(): Promise<Ack<{ gameSession: GameSession }>> {
    return super.refreshConnectionDetails().then((ack) => {
      this.seats.accept(ack.gameSession);
      return ack;
    });
  }
}
