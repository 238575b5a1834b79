/**
 * The WebSocket the client drives: the WHATWG `WebSocket` of browsers and of Node 22+
 * (Node 20: run with `--experimental-websocket`), or any object with the same surface.
 *
 * Adapter contract (e.g. for the `ws` package): `send`, `close`, `readyState`, and the
 * `onopen`, `onmessage` (`event.data` a string), `onclose` (`event.code`) and `onerror`
 * handlers. A browser cannot see why an upgrade failed; an adapter that can (Node's `ws`:
 * its `unexpected-response` event) may set `status` (the HTTP status) on the `error` or
 * `close` event, and the client then stops for good on 401 or 403 instead of retrying.
 */
export interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason?: string; status?: number }) => void) | null;
  onerror: ((event: unknown) => void) | null;
}

/** Opens a socket to `url`. */
export type SocketFactory = (url: string) => SocketLike;

/** `readyState` of an open socket (WHATWG `WebSocket.OPEN`). */
export const OPEN = 1;

/** The global `WebSocket`, or a clear error saying what to do without one. */
export function defaultSocketFactory(): SocketFactory {
  const Native = (globalThis as { WebSocket?: new (url: string) => SocketLike }).WebSocket;
  if (!Native) {
    throw new Error(
      'no global WebSocket: on Node 20 run with --experimental-websocket (Node 22+ has it), ' +
        'or pass the `socket` option (e.g. url => new (require("ws"))(url))',
    );
  }
  return (url) => new Native(url);
}

/** The HTTP status an adapter reported for a refused upgrade, if any. */
export function handshakeStatus(event: unknown): number | undefined {
  const status = (event as { status?: unknown } | null | undefined)?.status;
  return typeof status === 'number' ? status : undefined;
}
