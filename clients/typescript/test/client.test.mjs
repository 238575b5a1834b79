// The TypeScript client against the real local stack (JWT mode), over Node's WebSocket.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { GameSocketsClient, GameSocketsError } from '../dist/index.js';
import { mintToken, sleep, suiteStack, until } from './stack.mjs';

/** A client for `player` whose token provider mints a fresh token per connect and records them. */
function clientFor(stack, player, options = {}) {
  const tokens = [];
  const lifetimeSeconds = options.tokenLifetimeSeconds ?? 3600;
  const client = new GameSocketsClient({
    url: stack.url,
    token: async () => {
      const token = mintToken(player, { lifetimeSeconds });
      tokens.push(token);
      return token;
    },
    reconnect: { initialDelayMs: 50, maxDelayMs: 400 },
    requestTimeoutMs: 5000,
    ...options.client,
  });
  const seen = { messages: [], placements: [], states: [], resumes: [], closed: [], rollovers: 0 };
  client.on('message', (frame) => seen.messages.push(frame));
  client.on('placement', (frame) => seen.placements.push(frame));
  client.on('state', ({ state }) => seen.states.push(state));
  client.on('resumed', (ack) => seen.resumes.push(ack));
  client.on('closed', (event) => seen.closed.push(event));
  client.on('rollover', () => (seen.rollovers += 1));
  return { client, tokens, seen };
}

describe('against the local stack', () => {
  const stack = suiteStack();

  it('given a server-side drop, when it reconnects with a fresh token, then resume says resumed and every message arrives once', async () => {
    // The first token lives 2 s: reconnecting after it expired works only with a new one.
    const alice = clientFor(stack, 'alice-drop', { tokenLifetimeSeconds: 2 });
    const bob = clientFor(stack, 'bob-drop');
    const first = await alice.client.connect();
    assert.equal(first.resumed, false);
    await bob.client.connect();

    for (let i = 0; i < 5; i++) await bob.client.sendMessage(['alice-drop'], { n: i });
    await until(() => alice.seen.messages.length === 5, 'the first five messages');

    await sleep(2500); // alice's first token has expired
    await stack.drop('alice-drop');
    // Sent while alice is away: stored, and replayed by her resume.
    for (let i = 5; i < 10; i++) await bob.client.sendMessage(['alice-drop'], { n: i });

    await until(() => alice.seen.resumes.length === 2, 'the reconnect');
    assert.equal(alice.seen.resumes[1].resumed, true, 'within the grace the session is kept');
    await until(() => alice.seen.messages.length >= 10, 'all ten messages');
    await sleep(300);
    assert.deepEqual(
      alice.seen.messages.map((m) => m.message.n),
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
      'each message once, in order',
    );
    assert.equal(new Set(alice.seen.messages.map((m) => m.messageId)).size, 10);
    assert.ok(alice.seen.states.includes('reconnecting'));
    assert.equal(alice.tokens.length, 2, 'one token per connect');
    assert.notEqual(alice.tokens[0], alice.tokens[1], 'the reconnect used a fresh token');
    alice.client.close();
    bob.client.close();
  });

  it('given the same player connects elsewhere, then the first client stops with session_replaced and never reconnects', async () => {
    const first = clientFor(stack, 'carol-replaced');
    await first.client.connect();
    const second = clientFor(stack, 'carol-replaced');
    await second.client.connect();

    await until(() => first.seen.closed.length === 1, 'the first client to stop');
    assert.equal(first.seen.closed[0].reason, 'session_replaced');
    assert.equal(first.client.state, 'closed');
    await sleep(1000);
    assert.equal(first.tokens.length, 1, 'no reconnect attempt after session_replaced');
    assert.ok(!first.seen.states.includes('reconnecting'));
    // The second one is live and was not replaced back.
    assert.equal(second.client.state, 'live');
    const pong = await second.client.heartbeat();
    assert.equal(typeof pong.serverTime, 'number');
    await assert.rejects(first.client.heartbeat(), (e) => e instanceof GameSocketsError && e.code === 'closed');
    second.client.close();
  });

  it('given bad requests, then each rejects with a typed error carrying the server code', async () => {
    const dave = clientFor(stack, 'dave-errors');
    await dave.client.connect();
    await assert.rejects(dave.client.sendMessage(['nobody-has-this-id'], { hi: 1 }), (e) => {
      assert.ok(e instanceof GameSocketsError);
      assert.equal(e.code, 'not_found');
      assert.equal(e.route, 'sendMessage');
      assert.deepEqual(e.replyOf('not_found').playerIds, ['nobody-has-this-id']);
      return true;
    });
    await assert.rejects(dave.client.cancelPlacement(), (e) => e.code === 'not_found');
    await assert.rejects(dave.client.request('sendMessage', { playerIds: [], message: 1 }), (e) => e.code === 'bad_request');
    dave.client.close();
  });

  it('given a server that does not answer, then the request rejects with timeout', async () => {
    const erin = clientFor(stack, 'erin-timeout');
    await erin.client.connect();
    stack.pause();
    await sleep(200); // SIGSTOP takes effect asynchronously
    try {
      await assert.rejects(erin.client.request('heartbeat', {}, { timeoutMs: 300 }), (e) => {
        assert.ok(e instanceof GameSocketsError);
        assert.equal(e.code, 'timeout');
        assert.equal(e.route, 'heartbeat');
        return true;
      });
    } finally {
      stack.resume();
    }
    // The late reply is ignored; the client goes on working.
    const pong = await erin.client.heartbeat();
    assert.equal(typeof pong.serverTime, 'number');
    erin.client.close();
  });

  it('given a placement request, then the pushed result arrives once as a placement event', async () => {
    const frank = clientFor(stack, 'frank-placement');
    await frank.client.connect();
    const ack = await frank.client.requestPlacement({ latencies: { local: 20 } });
    assert.equal(ack.status, 'PENDING');
    await until(() => frank.seen.placements.length === 1, 'the placement result');
    assert.equal(frank.seen.placements[0].placementId, ack.placementId);
    assert.equal(frank.seen.placements[0].status, 'FULFILLED');
    assert.equal(typeof frank.seen.placements[0].gameSession.port, 'number');
    frank.client.close();
  });

  it('given queueing is off, then a request before connecting is refused with not_connected', async () => {
    const { client } = clientFor(stack, 'gina-queue', { client: { queueWhileReconnecting: false } });
    await assert.rejects(client.heartbeat(), (e) => e.code === 'not_connected');
    client.close();
  });

  it('given a drop, then a request made meanwhile waits for resume and succeeds', async () => {
    // Every connect after the first waits until the test lets it have a token.
    let release;
    const gate = new Promise((resolve) => (release = resolve));
    let calls = 0;
    const client = new GameSocketsClient({
      url: stack.url,
      token: async () => {
        if (calls++ > 0) await gate;
        return mintToken('ivy-queued');
      },
      reconnect: { initialDelayMs: 10, maxDelayMs: 10 },
    });
    const states = [];
    client.on('state', ({ state }) => states.push(state));
    await client.connect();
    await stack.drop('ivy-queued');
    await until(() => states.includes('reconnecting'), 'the drop');
    let answered = false;
    const beat = client.heartbeat().then((ack) => ((answered = true), ack));
    await sleep(200);
    assert.equal(answered, false, 'held while disconnected');
    release();
    const ack = await beat;
    assert.equal(typeof ack.serverTime, 'number');
    client.close();
  });

  it('given a token the stack refuses, then after maxAttempts connects the client gives up', async () => {
    const client = new GameSocketsClient({
      url: stack.url,
      token: () => 'not-a-jwt',
      reconnect: { initialDelayMs: 10, maxDelayMs: 20, maxAttempts: 3 },
    });
    await assert.rejects(client.connect(), (e) => e.code === 'closed' && /gave_up/.test(e.message));
    assert.equal(client.state, 'closed');
  });
});

describe('against a stack with a 3-second maximum connection time', () => {
  const stack = suiteStack({ MAX_CONNECTION_SECONDS: '3' });

  it('given rollover before the limit, then the socket is replaced without a drop and no message is lost', async () => {
    const alice = clientFor(stack, 'alice-rollover', { client: { rolloverAfterMs: 1200 } });
    const bob = clientFor(stack, 'bob-rollover', { client: { rolloverAfterMs: 1200 } });
    await alice.client.connect();
    await bob.client.connect();
    let sent = 0;
    const deadline = Date.now() + 4500;
    while (Date.now() < deadline) {
      await bob.client.sendMessage(['alice-rollover'], { n: sent });
      sent += 1;
      await sleep(50);
    }
    await until(() => alice.seen.messages.length >= sent, `all ${sent} messages`);
    await sleep(300);
    assert.ok(alice.seen.rollovers >= 2, `rolled over ${alice.seen.rollovers} times`);
    assert.ok(!alice.seen.states.includes('reconnecting'), 'never dropped: the rollover came first');
    assert.deepEqual(
      alice.seen.messages.map((m) => m.message.n),
      Array.from({ length: sent }, (_, i) => i),
      'each message once, in order',
    );
    assert.equal(alice.tokens.length, 1 + alice.seen.rollovers, 'a fresh token per rollover');
    alice.client.close();
    bob.client.close();
  });
});

/** A raw socket of `player`'s that resumes and then sends nothing; records how it ends. */
async function silentSocket(stack, player) {
  const socket = new WebSocket(`${stack.url}?token=${mintToken(player)}`);
  const seen = { frames: [], closed: null };
  socket.onmessage = (event) => seen.frames.push(JSON.parse(event.data));
  socket.onclose = (event) => (seen.closed = event.code);
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = reject;
  });
  socket.send(JSON.stringify({ route: 'resume', requestId: 'r' }));
  await until(() => seen.frames.some((f) => f.type === 'ack'), `${player}'s resume ack`, 5000);
  return { socket, seen };
}

describe('against a stack that closes sockets idle for 2 seconds', () => {
  const stack = suiteStack({ IDLE_TIMEOUT_SECONDS: '2' });

  it('given the timer at the interval the stack says, then the socket stays open; a silent one is closed by the idle timeout', async () => {
    // The option says a frame a minute; the stack's keepAlive (a frame a second) wins.
    const beating = clientFor(stack, 'gus-heartbeat', { client: { heartbeatIntervalMs: 60_000 } });
    const ack = await beating.client.connect();
    assert.equal(ack.keepAlive.intervalSeconds, 1);
    const silent = await silentSocket(stack, 'hal-silent');
    await sleep(3500);
    assert.ok(!beating.seen.states.includes('reconnecting'), 'the timer kept it open');
    assert.equal(beating.tokens.length, 1);
    assert.equal(silent.seen.closed, 1001, 'the idle timeout closed the silent one');
    beating.client.close();
  });
});

for (const liveness of ['heartbeat', 'connection-activity']) {
  describe(`against a stack in ${liveness} mode that takes players silent for 2 seconds offline`, () => {
    const stack = suiteStack({ HEARTBEAT_TIMEOUT_SECONDS: '2', SWEEP_INTERVAL_SECONDS: '1', PRESENCE_LIVENESS: liveness });

    it('given a client left to its timer, then its player stays online for three timeouts; a silent socket is swept', async () => {
      const timed = clientFor(stack, 'ivy-timer', { client: { heartbeatIntervalMs: 60_000 } });
      const ack = await timed.client.connect();
      assert.deepEqual(ack.keepAlive, { route: liveness === 'heartbeat' ? 'heartbeat' : 'ping', intervalSeconds: 1 });
      const silent = await silentSocket(stack, 'jay-silent');
      await sleep(6500);
      assert.ok(!timed.seen.states.includes('reconnecting'), 'the timer kept her socket open');
      assert.ok(
        silent.seen.frames.some((f) => f.type === 'disconnected' && f.reason === 'heartbeat_timeout'),
        'the sweeper took the silent one offline',
      );
      const watcher = clientFor(stack, 'kim-watches');
      await watcher.client.connect();
      const { presence } = await watcher.client.subscribePresence(['ivy-timer']);
      assert.deepEqual(presence, { 'ivy-timer': 'online' });
      for (const { client } of [timed, watcher]) client.close();
    });
  });
}

describe('against a stack whose fleet uses player gateway with tokens lasting 3 seconds', () => {
  const stack = suiteStack({ PLAYER_GATEWAY: 'enabled', SIM_PLAYER_GATEWAY: 'enabled', SIM_PLAYER_GATEWAY_TOKEN_SECONDS: '3' });

  it('given a seat from a placement, then the client refreshes its token before it expires without the game asking', async () => {
    const lia = clientFor(stack, 'lia-gateway');
    const refreshed = [];
    lia.client.on('connectionDetails', (seat) => refreshed.push({ seat, at: Date.now() }));
    await lia.client.connect();
    await lia.client.requestPlacement();
    await until(() => lia.seen.placements.some((p) => p.status === 'FULFILLED'), 'the placement');
    const seat = lia.seen.placements.find((p) => p.status === 'FULFILLED').gameSession;
    const first = seat.connection;
    assert.equal(typeof first.playerGatewayToken, 'string', JSON.stringify(seat));

    // The test never asks: the client's own refreshConnectionDetails brings the event.
    await until(() => refreshed.length > 0, 'the connectionDetails event', 10_000);
    const [{ seat: fresh, at }] = refreshed;
    assert.equal(fresh.playerSessionId, seat.playerSessionId);
    assert.notEqual(fresh.connection.playerGatewayToken, first.playerGatewayToken, 'a new token');
    assert.ok(fresh.connection.expiresAt > first.expiresAt, 'a later expiry');
    assert.ok(at < first.expiresAt, `before the first token expired (${at} < ${first.expiresAt})`);
    assert.deepEqual(lia.client.seat.connection, fresh.connection, 'the seat the game reads is the fresh one');
    // The stack served it as the refresh route, for this player (its log line may trail the ack).
    await until(
      () => stack.lines.some((l) => /seat given player_id=lia-gateway route="refreshConnectionDetails"/.test(l)),
      'the stack to log the refresh',
      5000,
    );
    lia.client.close();
  });
});
