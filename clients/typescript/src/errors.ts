import type { ErrorCode, ErrorFrame, ErrorOf } from './protocol.js';

/**
 * What a request can fail with: every server error code, and the client's own:
 * - `timeout`: no reply within the request's timeout (the server may still have done it);
 * - `connection_lost`: the socket dropped after the request was sent, before its reply
 *   (it may have been done; `resume` replays any push it caused);
 * - `not_connected`: the client is reconnecting and `queueWhileReconnecting` is false;
 * - `closed`: the client was closed (by `close()`, `session_replaced` or a refused token);
 * - `invalid`: the request cannot be sent as asked (e.g. `ping`, which is never answered).
 */
export type ClientErrorCode = ErrorCode | 'timeout' | 'connection_lost' | 'not_connected' | 'closed' | 'invalid';

/** A failed request: the server's `error` frame, or one of the client's own codes. */
export class GameSocketsError extends Error {
  override readonly name = 'GameSocketsError';
  /** The error code, e.g. `not_found` or `timeout`. */
  readonly code: ClientErrorCode;
  /** The route the request went to. */
  readonly route: string | undefined;
  /** The request's id. */
  readonly requestId: string | undefined;
  /**
   * The server's `error` frame, typed by its `code` (narrow on `reply.code` to read that
   * code's fields, e.g. `retryAfterMs` of `rate_limited`); undefined for the client's own codes.
   */
  readonly reply: ErrorFrame | undefined;

  constructor(
    code: ClientErrorCode,
    message: string,
    options: { route?: string; requestId?: string; reply?: ErrorFrame } = {},
  ) {
    super(message);
    this.code = code;
    this.route = options.route;
    this.requestId = options.requestId;
    this.reply = options.reply;
  }

  /** The server's error of `code` read as that code's frame, else undefined. */
  replyOf<C extends ErrorFrame['code']>(code: C): ErrorOf<C> | undefined {
    return this.reply?.code === code ? (this.reply as ErrorOf<C>) : undefined;
  }
}

/** Why the client stopped for good (the `closed` event). */
export type StopReason =
  /** `close()` was called. */
  | 'closed_by_client'
  /** The same player connected elsewhere: this client must not take the session back. */
  | 'session_replaced'
  /** The token was refused (401/403, as reported by the WebSocket adapter). */
  | 'unauthorized'
  /** `reconnect.maxAttempts` connects in a row failed. */
  | 'gave_up'
  /** The token provider threw. */
  | 'token_failed';
