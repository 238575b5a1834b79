import type { AckOf, GameSession, KeepAlive, ServerFrame, ServerFrameOf } from './protocol.js';
import type { Ack } from './routes.js';
import type { StopReason } from './errors.js';

/** Where the client is. */
export type ConnectionState = 'idle' | 'connecting' | 'live' | 'reconnecting' | 'closed';

/**
 * The `resume` ack of each (re)connect: `resumed` is true when the server kept the session.
 * `keepAlive` (what the client's timer sends, and how often) is absent from a stack older
 * than this client.
 */
export type ResumeAck = Ack<Omit<AckOf<'resume'>, 'keepAlive'> & { keepAlive?: KeepAlive }>;

/** What `on` can listen to, and what each listener gets. */
export interface ClientEvents {
  /** A message from another player (each `messageId` once). */
  message: ServerFrameOf<'message'>;
  /** A placement result (each `placementId` and `status` once). */
  placement: ServerFrameOf<'placement'>;
  presence: ServerFrameOf<'presence'>;
  party: ServerFrameOf<'party'>;
  partyInvite: ServerFrameOf<'party_invite'>;
  partyInviteDeclined: ServerFrameOf<'party_invite_declined'>;
  /** A relation of yours changed (`invited`, `invitation`, `friends`, `removed`). */
  friend: ServerFrameOf<'friend'>;
  /** Every pushed frame after de-duplication, including types this version does not name. */
  frame: ServerFrame | ({ type: string; seq?: number } & Record<string, unknown>);
  /** The connection state changed. `delayMs`: how long until the next connect attempt. */
  state: { state: ConnectionState; attempt: number; delayMs?: number };
  /** A (re)connect completed: the `resume` ack (`resumed`: the session was kept). */
  resumed: ResumeAck;
  /** The socket was rolled over to a new one before the maximum connection time. */
  rollover: { resumed: boolean };
  /** The client stopped for good, and why. */
  closed: { reason: StopReason; detail?: string };
  /**
   * Your seat with fresh connection details (`refreshConnectionDetails`, sent by the client
   * before the player gateway token expires, or by you): send game traffic to its
   * `connection.endpoints` with its `connection.playerGatewayToken` from now on.
   */
  connectionDetails: GameSession;
}

type Listener = (value: never) => void;

/** A small typed event emitter; a listener that throws does not stop the others. */
export class Emitter {
  private readonly listeners = new Map<string, Set<Listener>>();

  on(event: string, listener: Listener): () => void {
    let set = this.listeners.get(event);
    if (!set) {
      set = new Set();
      this.listeners.set(event, set);
    }
    set.add(listener);
    return () => set.delete(listener);
  }

  emit(event: string, value: unknown): void {
    for (const listener of this.listeners.get(event) ?? []) {
      try {
        (listener as (value: unknown) => void)(value);
      } catch (error) {
        // A game's handler bug must not break delivery to the others or the client.
        console.error(`gamelift-sockets: a '${event}' listener threw`, error);
      }
    }
  }
}
