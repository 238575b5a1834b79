import type { SocketFactory } from './socket.js';

/** How to reach the backend and how to behave; only `url` and one of `token`/`playerId` are required. */
export interface ClientOptions {
  /** The WebSocket API URL, e.g. `wss://abc.execute-api.us-east-1.amazonaws.com/production`. */
  url: string;
  /** A JWT, or a function returning one; called before every connect, so it can refresh. Sent as `?token=`. */
  token?: string | (() => string | Promise<string>);
  /** Header-mode stacks only (development): the player id, sent as `?playerId=`. */
  playerId?: string;
  /**
   * How often the timer shows the player is alive when the server does not say (`resume`'s ack
   * carries `keepAlive`, which wins: the stack chooses the frame and interval). Default 30 000.
   */
  heartbeatIntervalMs?: number;
  /**
   * What an idle tick sends when the server does not say: true (default) a `ping`, false a
   * `heartbeat`. A server's `keepAlive` wins.
   */
  pingWhenIdle?: boolean;
  /** How long a request waits for its reply. Default 10 000. */
  requestTimeoutMs?: number;
  /** Reconnect backoff: delay = random(0, min(maxDelayMs, initialDelayMs × 2^attempt)) ("full jitter"). */
  reconnect?: { initialDelayMs?: number; maxDelayMs?: number; maxAttempts?: number };
  /** Open a new socket (and close the old) this long after connecting: before API Gateway's 2-hour limit. Default 110 min. */
  rolloverAfterMs?: number;
  /** How many recent `seq`s, `messageId`s and placement results to remember for de-duplication. Default 1000. */
  dedupeWindow?: number;
  /**
   * Requests made while (re)connecting: true (default) holds them and sends them right after
   * `resume` (their timeout runs meanwhile); false rejects them at once with `not_connected`.
   */
  queueWhileReconnecting?: boolean;
  /** Opens a socket; defaults to the global `WebSocket` (see socket.ts for the adapter contract). */
  socket?: SocketFactory;
}

/** The options with every default filled in (`token`, `playerId` and `socket` are read where used). */
export type ResolvedOptions = Required<Omit<ClientOptions, 'token' | 'playerId' | 'socket' | 'reconnect'>> & {
  reconnect: Required<NonNullable<ClientOptions['reconnect']>>;
};

export function withDefaults(config: ClientOptions): ResolvedOptions {
  return {
    url: config.url,
    heartbeatIntervalMs: config.heartbeatIntervalMs ?? 30_000,
    pingWhenIdle: config.pingWhenIdle ?? true,
    requestTimeoutMs: config.requestTimeoutMs ?? 10_000,
    rolloverAfterMs: config.rolloverAfterMs ?? 110 * 60_000,
    dedupeWindow: config.dedupeWindow ?? 1000,
    queueWhileReconnecting: config.queueWhileReconnecting ?? true,
    reconnect: {
      initialDelayMs: config.reconnect?.initialDelayMs ?? 500,
      maxDelayMs: config.reconnect?.maxDelayMs ?? 30_000,
      maxAttempts: config.reconnect?.maxAttempts ?? Infinity,
    },
  };
}
