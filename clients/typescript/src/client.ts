import type { AckOf, BodyOf, ClientFrame, ErrorFrame, GameSession, KeepAlive, ServerFrame } from './protocol.js';
import { GameSocketsError, type StopReason } from './errors.js';
import { Emitter, type ClientEvents, type ConnectionState, type ResumeAck } from './events.js';
import { RecentKeys } from './dedupe.js';
import { OPEN, defaultSocketFactory, handshakeStatus, type SocketFactory, type SocketLike } from './socket.js';
import { withDefaults, type ClientOptions, type ResolvedOptions } from './options.js';
import { type Ack, type RequestRoute } from './routes.js';
import { SeatedRoutes } from './seated.js';

interface Conn {
  socket: SocketLike;
  resumeId: string;
  opened: boolean;
  live: boolean;
  /** Being replaced by our own rollover: its `session_replaced` and close are expected. */
  retiring: boolean;
  status?: number;
  /** Its close was handled (some sockets report a failed upgrade with `error` only, some with both). */
  ended?: boolean;
  resumeTimer?: ReturnType<typeof setTimeout>;
}

interface Pending {
  frame: ClientFrame;
  resolve: (ack: Ack) => void;
  reject: (error: GameSocketsError) => void;
  timer: ReturnType<typeof setTimeout>;
  conn?: Conn;
}

/** The ack's `keepAlive`, if it carries a usable one (a stack older than it sends none). */
function keepAliveOf(ack: ResumeAck): { route: KeepAlive['route']; intervalMs: number } | null {
  const keepAlive = ack.keepAlive as Partial<KeepAlive> | undefined;
  if (!keepAlive || (keepAlive.route !== 'heartbeat' && keepAlive.route !== 'ping')) return null;
  const seconds = keepAlive.intervalSeconds;
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 1) return null;
  return { route: keepAlive.route, intervalMs: seconds * 1000 };
}

const camel = (type: string) => type.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * A GameLift Sockets client: connects, sends `resume` on every (re)connect, heartbeats,
 * reconnects with backoff and a fresh token, rolls the socket over before the 2-hour
 * limit, de-duplicates at-least-once pushes and matches replies to requests.
 */
export class GameSocketsClient extends SeatedRoutes {
  private readonly emitter = new Emitter();
  private readonly options: ResolvedOptions;
  private readonly factory: SocketFactory;
  private current: Conn | null = null;
  private candidate: Conn | null = null;
  private stateValue: ConnectionState = 'idle';
  private stopped = false;
  private attempt = 0;
  private nextId = 0;
  private lastSeq: number | null = null;
  /** The cursor last sent on `resume` or `heartbeat`: what the server has recorded as processed. */
  private reportedSeq: number | null = null;
  private readonly pending = new Map<string, Pending>();
  private queue: string[] = [];
  private readonly seqs: RecentKeys;
  private readonly messages: RecentKeys;
  private readonly placements: RecentKeys;
  private heartbeatTimer: ReturnType<typeof setInterval> | undefined;
  private rolloverTimer: ReturnType<typeof setTimeout> | undefined;
  private reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  private firstLive: Promise<ResumeAck> | null = null;
  /** A rollover is under way: requests wait for the new socket. */
  private rolling = false;
  /** What the timer sends and how often: the last `resume` ack's `keepAlive`, or the options. */
  private keepAlive: { route: KeepAlive['route']; intervalMs: number } | null = null;

  constructor(private readonly config: ClientOptions) {
    super();
    if (config.token === undefined && config.playerId === undefined) {
      throw new Error('GameSocketsClient needs `token` (JWT stacks) or `playerId` (header-mode development stacks)');
    }
    this.options = withDefaults(config);
    this.factory = config.socket ?? defaultSocketFactory();
    this.seqs = new RecentKeys(this.options.dedupeWindow);
    this.messages = new RecentKeys(this.options.dedupeWindow);
    this.placements = new RecentKeys(this.options.dedupeWindow);
  }

  /** The connection state. */
  get state(): ConnectionState {
    return this.stateValue;
  }

  /** The `seq` of the last pushed frame handed on (sent as `resume`'s `cursor`). */
  get cursor(): number | null {
    return this.lastSeq;
  }

  protected override connectionDetailsRefreshed(seat: GameSession): void {
    this.emitter.emit('connectionDetails', seat);
  }

  /** Listens to an event; returns a function that stops listening. Pushed frame types this
   * version does not name are emitted under their camelCase `type` (e.g. `matchmaking`). */
  on<K extends keyof ClientEvents>(event: K, listener: (value: ClientEvents[K]) => void): () => void;
  on(event: string, listener: (value: Record<string, unknown>) => void): () => void;
  on(event: string, listener: (value: never) => void): () => void {
    return this.emitter.on(event, listener);
  }

  /** Connects and resolves with the first `resume` ack; rejects if the client stops first. */
  connect(): Promise<ResumeAck> {
    if (this.stopped) return Promise.reject(new GameSocketsError('closed', 'the client is closed'));
    if (!this.firstLive) {
      this.firstLive = new Promise((resolve, reject) => {
        const offLive = this.on('resumed', (ack) => {
          offLive();
          offClosed();
          resolve(ack);
        });
        const offClosed = this.on('closed', ({ reason, detail }) => {
          offLive();
          offClosed();
          reject(new GameSocketsError('closed', `the client stopped: ${reason}${detail ? ` (${detail})` : ''}`));
        });
      });
      this.setState('connecting');
      void this.open(false);
    }
    return this.firstLive;
  }

  /** Closes the socket and stops for good; pending requests reject with `closed`. */
  close(): void {
    this.stop('closed_by_client');
  }

  /**
   * Sends a request and resolves with its `ack`, or rejects with a {@link GameSocketsError}. A
   * `heartbeat` without `cursor` is sent with the client's; `ping` rejects with `invalid` (it is
   * never answered).
   */
  request<R extends RequestRoute>(route: R, body?: BodyOf<R>, options: { timeoutMs?: number } = {}): Promise<Ack<AckOf<R>>> {
    return new Promise((resolve, reject) => {
      if (this.stopped) return reject(new GameSocketsError('closed', 'the client is closed', { route }));
      if ((route as string) === 'ping') {
        // Never answered, so never a request: the heartbeat timer sends it.
        return reject(new GameSocketsError('invalid', '`ping` is never answered; the heartbeat timer sends it', { route }));
      }
      const requestId = `${++this.nextId}`;
      const frame = { route, requestId, body: body ?? {} } as ClientFrame;
      const timeoutMs = options.timeoutMs ?? this.options.requestTimeoutMs;
      const timer = setTimeout(() => {
        this.pending.delete(requestId);
        this.queue = this.queue.filter((id) => id !== requestId);
        reject(new GameSocketsError('timeout', `no reply to ${route} within ${timeoutMs} ms`, { route, requestId }));
      }, timeoutMs);
      // The ack is the route's: the server answers each route with its own (AckOf).
      const entry: Pending = { frame, resolve: resolve as (ack: Ack) => void, reject, timer };
      this.pending.set(requestId, entry);
      if (this.current?.live && !this.rolling) {
        this.transmit(requestId, entry, this.current);
      } else if (this.rolling || (this.options.queueWhileReconnecting && this.stateValue !== 'idle')) {
        this.queue.push(requestId);
      } else {
        this.settle(requestId, new GameSocketsError('not_connected', `not connected; ${route} was not sent`, { route, requestId }));
      }
    });
  }

  // ---- connection lifecycle ----

  private async open(rollover: boolean): Promise<void> {
    let url: string;
    try {
      url = await this.connectUrl();
    } catch (error) {
      if (rollover) return this.rolloverFailed();
      return this.stop('token_failed', String(error));
    }
    if (this.stopped) return;
    let socket: SocketLike;
    try {
      socket = this.factory(url);
    } catch (error) {
      if (rollover) return this.rolloverFailed();
      return this.scheduleReconnect();
    }
    const conn: Conn = { socket, resumeId: `resume-${++this.nextId}`, opened: false, live: false, retiring: false };
    if (rollover) {
      this.candidate = conn;
    } else {
      this.current = conn;
    }
    socket.onopen = () => {
      conn.opened = true;
      // Nothing is pushed to a socket before its resume; the cursor asks for what came after it.
      const body = this.cursorBody();
      if (this.send(conn, { route: 'resume', requestId: conn.resumeId, body })) this.reportedSeq = body.cursor ?? null;
      conn.resumeTimer = setTimeout(() => {
        if (!conn.live) socket.close(4000, 'resume timed out');
      }, this.options.requestTimeoutMs);
    };
    socket.onmessage = (event) => this.onFrame(conn, event.data);
    socket.onerror = (event) => {
      conn.status ??= handshakeStatus(event);
      // Node 20's WebSocket reports a refused upgrade with `error` and never `close`.
      if (!conn.opened) this.onClose(conn, conn.status);
    };
    socket.onclose = (event) => this.onClose(conn, handshakeStatus(event) ?? conn.status);
  }

  private async connectUrl(): Promise<string> {
    const url = new URL(this.options.url);
    if (this.config.token !== undefined) {
      const token = typeof this.config.token === 'function' ? await this.config.token() : this.config.token;
      url.searchParams.set('token', token);
    } else if (this.config.playerId !== undefined) {
      url.searchParams.set('playerId', this.config.playerId);
    }
    return url.toString();
  }

  private onFrame(conn: Conn, data: unknown): void {
    if (this.stopped || typeof data !== 'string') return;
    let frame: ServerFrame & Record<string, unknown>;
    try {
      frame = JSON.parse(data);
    } catch {
      return;
    }
    // Not a protocol frame (e.g. API Gateway's own `{"message": "Internal server error"}`).
    if (typeof frame !== 'object' || frame === null || typeof frame.type !== 'string') return;
    switch (frame.type) {
      case 'ack':
      case 'error':
        if (frame.requestId === conn.resumeId) return this.onResume(conn, frame);
        return this.onReply(frame);
      case 'session_replaced':
        // Our own rollover replaced this socket: expected. Otherwise another device took over.
        if (conn.retiring || conn !== this.current) return;
        return this.stop('session_replaced');
      case 'disconnected':
        // The server closes this socket next; the close reconnects.
        return;
      default:
        return this.deliver(frame);
    }
  }

  private onResume(conn: Conn, frame: ServerFrame & Record<string, unknown>): void {
    if (frame.type === 'error') {
      // `unavailable` (or anything else): this socket is no use; reconnect with backoff.
      conn.socket.close(4000, `resume failed: ${String(frame.code)}`);
      return;
    }
    conn.live = true;
    clearTimeout(conn.resumeTimer);
    const ack = frame as unknown as ResumeAck;
    const rolledOver = conn === this.candidate;
    if (rolledOver) {
      const old = this.current;
      this.candidate = null;
      this.rolling = false;
      this.current = conn;
      if (old) {
        old.retiring = true;
        this.failPending(old, 'connection_lost');
        old.socket.close(1000, 'rollover');
      }
      this.emitter.emit('rollover', { resumed: ack.resumed });
    }
    this.attempt = 0;
    this.keepAlive = keepAliveOf(ack);
    // The server's word on the seat (replayed pushes came before this ack).
    if ('gameSession' in ack) this.seats.set((ack.gameSession as GameSession | null) ?? null);
    this.setState('live');
    this.startTimers();
    this.emitter.emit('resumed', ack);
    this.flushQueue();
  }

  private onReply(frame: ServerFrame & Record<string, unknown>): void {
    const requestId = typeof frame.requestId === 'string' ? frame.requestId : undefined;
    if (requestId === undefined || !this.pending.has(requestId)) return;
    if (frame.type === 'ack') {
      const { type: _type, ...ack } = frame;
      this.settle(requestId, undefined, ack as Ack);
    } else {
      const reply = frame as ErrorFrame;
      this.settle(
        requestId,
        new GameSocketsError(reply.code, String(reply.message), {
          route: typeof reply.route === 'string' ? reply.route : undefined,
          requestId,
          reply,
        }),
      );
    }
  }

  /** Hands a pushed frame on once: by `seq`, then `messageId` or (`placementId`, `status`). */
  private deliver(frame: Record<string, unknown> & { type: string }): void {
    const seq = frame.seq;
    if (typeof seq === 'number') {
      if (!this.seqs.add(String(seq))) return;
      this.lastSeq = this.lastSeq === null ? seq : Math.max(this.lastSeq, seq);
    }
    if (frame.type === 'message' && !this.messages.add(String(frame.messageId))) return;
    if (frame.type === 'placement' && !this.placements.add(`${String(frame.placementId)}\n${String(frame.status)}`)) return;
    // A seat, from a fulfilled placement or a completed match: tracked before listeners run.
    const seated = (frame.type === 'placement' && frame.status === 'FULFILLED') || (frame.type === 'matchmaking' && frame.status === 'COMPLETED');
    if (seated && frame.gameSession) this.seats.set(frame.gameSession as GameSession);
    this.emitter.emit(camel(frame.type), frame);
    this.emitter.emit('frame', frame);
  }

  private onClose(conn: Conn, status: number | undefined): void {
    if (conn.ended) return;
    conn.ended = true;
    clearTimeout(conn.resumeTimer);
    if (this.stopped || conn.retiring) return;
    if (conn === this.candidate) {
      this.candidate = null;
      return this.rolloverFailed();
    }
    if (conn === this.current) this.lost(conn, status);
  }

  /** The current socket is gone: fail what was sent on it and reconnect (or stop on 401/403). */
  private lost(conn: Conn, status: number | undefined): void {
    this.current = null;
    this.stopTimers();
    this.failPending(conn, 'connection_lost');
    if (!conn.opened && (status === 401 || status === 403)) {
      return this.stop('unauthorized', `the upgrade was refused with ${status}`);
    }
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.stopped) return;
    const { initialDelayMs, maxDelayMs, maxAttempts } = this.options.reconnect;
    if (this.attempt >= maxAttempts) return this.stop('gave_up', `${this.attempt} connects in a row failed`);
    const delayMs = Math.floor(Math.random() * Math.min(maxDelayMs, initialDelayMs * 2 ** this.attempt));
    this.attempt += 1;
    this.setState('reconnecting', delayMs);
    this.reconnectTimer = setTimeout(() => void this.open(false), delayMs);
  }

  /** Opens a new socket and resumes on it; the old one closes once the new one is live. */
  private rollover(): void {
    const old = this.current;
    if (this.stopped || this.rolling || !old?.live) return;
    // Requests made from now wait for the new socket. The server closes the old one as soon
    // as the new one connects, so first let the old one's replies arrive (up to a timeout).
    this.rolling = true;
    const started = Date.now();
    const drain = setInterval(() => {
      const busy = [...this.pending.values()].some((entry) => entry.conn === old);
      if (busy && Date.now() - started < this.options.requestTimeoutMs) return;
      clearInterval(drain);
      if (this.stopped || this.current !== old) return;
      old.retiring = true;
      void this.open(true);
    }, 20);
  }

  private rolloverFailed(): void {
    this.rolling = false;
    const old = this.current;
    if (!old || this.stopped) return;
    old.retiring = false;
    if (old.socket.readyState === OPEN) {
      // The old socket still works: try again a little later.
      this.rolloverTimer = setTimeout(() => this.rollover(), Math.min(30_000, this.options.rolloverAfterMs / 10));
      this.flushQueue();
    } else {
      this.lost(old, undefined);
    }
  }

  private startTimers(): void {
    this.stopTimers();
    const intervalMs = this.keepAlive?.intervalMs ?? this.options.heartbeatIntervalMs;
    this.heartbeatTimer = setInterval(() => this.beat(), intervalMs);
    this.rolloverTimer = setTimeout(() => this.rollover(), this.options.rolloverAfterMs);
  }

  /**
   * The timer's sign of life, as the server's `keepAlive` says. `heartbeat`: every tick is a
   * heartbeat (with the cursor, if any), the only frame that keeps the player online there.
   * `ping`: a `ping` costs one inbound message and nothing else (API Gateway takes it, no
   * function, no write), a `heartbeat` a database write, worth it only to record a new cursor;
   * so a `heartbeat` with the cursor when a push was handled since the cursor was last reported
   * (a reload's `resume` without cursor then replays at most one interval of frames), a `ping`
   * otherwise. Neither has a `requestId`: nothing comes back.
   */
  private beat(): void {
    const conn = this.current;
    if (!conn?.live) return;
    const cursor = this.lastSeq;
    const fresh = cursor !== null && (this.reportedSeq === null || cursor > this.reportedSeq);
    const idleRoute = this.keepAlive?.route ?? (this.options.pingWhenIdle ? 'ping' : 'heartbeat');
    if (fresh || (idleRoute === 'heartbeat' && cursor !== null)) {
      if (this.send(conn, { route: 'heartbeat', body: { cursor } })) this.reportedSeq = cursor;
    } else {
      this.send(conn, { route: idleRoute });
    }
  }

  private stopTimers(): void {
    clearInterval(this.heartbeatTimer);
    clearTimeout(this.rolloverTimer);
  }

  private stop(reason: StopReason, detail?: string): void {
    if (this.stopped) return;
    this.stopped = true;
    this.stopTimers();
    this.seats.close();
    clearTimeout(this.reconnectTimer);
    for (const conn of [this.current, this.candidate]) {
      if (conn) {
        conn.retiring = true;
        try {
          conn.socket.close(1000, reason);
        } catch {
          // Already closing.
        }
      }
    }
    for (const requestId of [...this.pending.keys()]) {
      this.settle(requestId, new GameSocketsError('closed', `the client stopped: ${reason}`, { requestId }));
    }
    this.queue = [];
    this.setState('closed');
    this.emitter.emit('closed', detail ? { reason, detail } : { reason });
  }

  // ---- requests ----

  private cursorBody(): { cursor?: number } {
    return this.lastSeq === null ? {} : { cursor: this.lastSeq };
  }

  private send(conn: Conn, frame: ClientFrame): boolean {
    try {
      conn.socket.send(JSON.stringify(frame));
      return true;
    } catch {
      return false;
    }
  }

  private transmit(requestId: string, entry: Pending, conn: Conn): void {
    entry.conn = conn;
    // A heartbeat reports the cursor as of when it is sent (unless it names its own).
    if (entry.frame.route === 'heartbeat' && entry.frame.body?.cursor === undefined) {
      entry.frame = { ...entry.frame, body: { ...entry.frame.body, ...this.cursorBody() } };
    }
    if (!this.send(conn, entry.frame)) {
      this.settle(requestId, new GameSocketsError('connection_lost', 'the socket closed before the request was sent', { route: entry.frame.route, requestId }));
    } else if (entry.frame.route === 'heartbeat' && typeof entry.frame.body?.cursor === 'number') {
      this.reportedSeq = entry.frame.body.cursor;
    }
  }

  private flushQueue(): void {
    const conn = this.current;
    if (!conn?.live || this.rolling) return;
    const queued = this.queue;
    this.queue = [];
    for (const requestId of queued) {
      const entry = this.pending.get(requestId);
      if (entry) this.transmit(requestId, entry, conn);
    }
  }

  /** Requests sent on `conn` that are still unanswered: their replies are gone with it. */
  private failPending(conn: Conn, code: 'connection_lost'): void {
    for (const [requestId, entry] of [...this.pending]) {
      if (entry.conn === conn) {
        this.settle(requestId, new GameSocketsError(code, `the socket closed before ${entry.frame.route} was answered (it may have been done)`, { route: entry.frame.route, requestId }));
      }
    }
  }

  private settle(requestId: string, error?: GameSocketsError, ack?: Ack): void {
    const entry = this.pending.get(requestId);
    if (!entry) return;
    this.pending.delete(requestId);
    clearTimeout(entry.timer);
    if (error) entry.reject(error);
    else entry.resolve(ack as Ack);
  }

  private setState(state: ConnectionState, delayMs?: number): void {
    this.stateValue = state;
    this.emitter.emit('state', delayMs === undefined ? { state, attempt: this.attempt } : { state, attempt: this.attempt, delayMs });
  }
}
