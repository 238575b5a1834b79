// The client's own logic with a scripted socket: de-duplication, the friend routes, the
// heartbeat timer, the seat's connection details kept fresh, handshake refusals.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { GameSocketsClient, GameSocketsError } from '../dist/index.js';

/**
 * A socket the test drives: `serve(frame)` delivers a server frame. `answer(frame, socket)`,
 * if given, answers the client's other requests; `resumeSeat` is the resume ack's `gameSession`.
 */
function scriptedSockets({ refuseWith, keepAlive, answer, resumeSeat = null } = {}) {
  const sockets = [];
  const factory = (url) => {
    const socket = {
      url,
      readyState: 0,
      sent: [],
      onopen: null,
      onmessage: null,
      onclose: null,
      onerror: null,
      send(text) {
        const frame = JSON.parse(text);
        socket.sent.push(frame);
        if (frame.route === 'resume') {
          socket.serve({ type: 'ack', route: 'resume', requestId: frame.requestId, playerId: 'p', resumed: false, pendingMessages: 0, cursor: null, placement: null, gameSession: resumeSeat, party: null, ...(keepAlive ? { keepAlive } : {}) });
        } else if (answer && frame.requestId) {
          answer(frame, socket);
        }
      },
      close(code = 1000) {
        if (socket.readyState === 3) return;
        socket.readyState = 3;
        queueMicrotask(() => socket.onclose?.({ code }));
      },
      serve(frame) {
        queueMicrotask(() => socket.onmessage?.({ data: JSON.stringify(frame) }));
      },
    };
    sockets.push(socket);
    queueMicrotask(() => {
      if (refuseWith) {
        socket.readyState = 3;
        socket.onerror?.({ status: refuseWith });
        socket.onclose?.({ code: 1006 });
      } else {
        socket.readyState = 1;
        socket.onopen?.({});
      }
    });
    return socket;
  };
  return { sockets, factory };
}

const flush = () => new Promise((resolve) => setTimeout(resolve, 10));

describe('de-duplication', () => {
  it('given the same push twice, or a message again under a new seq, then each is handed on once', async () => {
    const { sockets, factory } = scriptedSockets();
    const client = new GameSocketsClient({ url: 'ws://test/stage', playerId: 'p', socket: factory });
    const messages = [];
    const placements = [];
    client.on('message', (m) => messages.push(m));
    client.on('placement', (p) => placements.push(p));
    await client.connect();
    const socket = sockets[0];
    const message = { type: 'message', messageId: 'm1', from: 'bob', message: 1, sentAt: 1, seq: 5 };
    socket.serve(message);
    socket.serve(message); // a retried delivery
    socket.serve({ ...message, seq: 9 }); // replayed under a new seq
    socket.serve({ type: 'message', messageId: 'm2', from: 'bob', message: 2, sentAt: 2, seq: 6 });
    const placement = { type: 'placement', placementId: 'pl-1', status: 'FULFILLED', seq: 7 };
    socket.serve(placement);
    socket.serve({ ...placement, seq: 10 });
    socket.serve({ ...placement, status: 'CANCELLED', seq: 11 });
    await flush();
    assert.deepEqual(messages.map((m) => m.messageId), ['m1', 'm2']);
    assert.deepEqual(placements.map((p) => p.status), ['FULFILLED', 'CANCELLED']);
    assert.equal(client.cursor, 11, 'the cursor is the highest seq processed');
    client.close();
  });

  it('given a reconnect, then resume carries the cursor of the last processed frame', async () => {
    const { sockets, factory } = scriptedSockets();
    const client = new GameSocketsClient({ url: 'ws://test/stage', playerId: 'p', socket: factory, reconnect: { initialDelayMs: 1, maxDelayMs: 1 } });
    await client.connect();
    sockets[0].serve({ type: 'presence', playerId: 'x', status: 'online', at: 1, seq: 42 });
    await flush();
    sockets[0].close(1006);
    await flush();
    await flush();
    assert.equal(sockets.length, 2);
    assert.deepEqual(sockets[1].sent[0].body, { cursor: 42 });
    assert.equal(new URL(sockets[1].url).searchParams.get('playerId'), 'p');
    client.close();
  });
});

describe('the friend routes', () => {
  it('given each friend method, then it sends its route and body and resolves with the typed ack; a friend push is a friend event', async () => {
    const { sockets, factory } = scriptedSockets({
      answer(frame, socket) {
        const ack = frame.route === 'listFriends'
          ? { friends: [{ playerId: 'bob', state: 'friends', since: 1, presence: 'online' }], cursor: null }
          : { playerId: frame.body.playerId, state: frame.route === 'addFriend' ? 'invited' : null };
        socket.serve({ type: 'ack', route: frame.route, requestId: frame.requestId, ...ack });
      },
    });
    const client = new GameSocketsClient({ url: 'ws://test/stage', playerId: 'p', socket: factory });
    const friends = [];
    client.on('friend', (f) => friends.push(f));
    await client.connect();
    assert.equal((await client.addFriend('bob')).state, 'invited');
    assert.equal((await client.removeFriend('bob')).state, null);
    assert.equal((await client.blockPlayer('bob')).playerId, 'bob');
    assert.equal((await client.unblockPlayer('bob')).playerId, 'bob');
    const page = await client.listFriends({ state: 'friends' });
    assert.deepEqual(page.friends.map((f) => [f.playerId, f.presence]), [['bob', 'online']]);
    const sent = sockets[0].sent.filter((f) => f.route !== 'resume').map((f) => [f.route, f.body]);
    assert.deepEqual(sent, [
      ['addFriend', { playerId: 'bob' }],
      ['removeFriend', { playerId: 'bob' }],
      ['blockPlayer', { playerId: 'bob' }],
      ['unblockPlayer', { playerId: 'bob' }],
      ['listFriends', { state: 'friends' }],
    ]);
    const push = { type: 'friend', playerId: 'carol', state: 'invitation', seq: 3 };
    sockets[0].serve(push);
    sockets[0].serve(push); // a retried delivery
    await flush();
    assert.deepEqual(friends, [push]);
    client.close();
  });
});

describe('the heartbeat timer', () => {
  const timerFrames = (socket) => socket.sent.filter((f) => f.route === 'ping' || f.route === 'heartbeat');
  const ticks = (socket, n, withinMs = 1_000) => until(() => timerFrames(socket).length >= n, withinMs);
  const until = async (done, withinMs = 1_000) => {
    for (let i = 0; i < withinMs / 5 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.ok(done(), 'the timer ticked');
  };

  it('given pingWhenIdle false, then each idle tick is a heartbeat', async () => {
    const { sockets, factory } = scriptedSockets();
    const client = new GameSocketsClient({ url: 'ws://test/stage', playerId: 'p', socket: factory, heartbeatIntervalMs: 20, pingWhenIdle: false });
    await client.connect();
    await ticks(sockets[0], 3);
    assert.deepEqual(timerFrames(sockets[0]).slice(0, 3), [{ route: 'heartbeat' }, { route: 'heartbeat' }, { route: 'heartbeat' }]);
    client.close();
  });

  it('given the server says keepAlive heartbeat every second, then every tick is a heartbeat at its interval, whatever the options say', async () => {
    const { sockets, factory } = scriptedSockets({ keepAlive: { route: 'heartbeat', intervalSeconds: 1 } });
    const client = new GameSocketsClient({ url: 'ws://test/stage', playerId: 'p', socket: factory, heartbeatIntervalMs: 60_000, pingWhenIdle: true });
    await client.connect();
    const socket = sockets[0];
    socket.serve({ type: 'message', messageId: 'm1', from: 'bob', message: 1, sentAt: 1, seq: 5 });
    const started = Date.now();
    await ticks(socket, 2, 3_000);
    assert.ok(Date.now() - started < 5_000, 'the server interval, not the 60 s option');
    assert.deepEqual(timerFrames(socket).slice(0, 2), [
      { route: 'heartbeat', body: { cursor: 5 } },
      { route: 'heartbeat', body: { cursor: 5 } },
    ], 'a heartbeat each tick, with the cursor, even with nothing new to report');
    client.close();
  });

  it('given the server says keepAlive ping, then idle ticks are pings even with pingWhenIdle false', async () => {
    const { sockets, factory } = scriptedSockets({ keepAlive: { route: 'ping', intervalSeconds: 1 } });
    const client = new GameSocketsClient({ url: 'ws://test/stage', playerId: 'p', socket: factory, heartbeatIntervalMs: 60_000, pingWhenIdle: false });
    await client.connect();
    await ticks(sockets[0], 2, 3_000);
    assert.deepEqual(timerFrames(sockets[0]).slice(0, 2), [{ route: 'ping' }, { route: 'ping' }]);
    client.close();
  });

  it('given an idle client, then each tick is a ping: the route alone, no requestId, no body', async () => {
    const { sockets, factory } = scriptedSockets();
    const client = new GameSocketsClient({ url: 'ws://test/stage', playerId: 'p', socket: factory, heartbeatIntervalMs: 20 });
    await client.connect();
    await ticks(sockets[0], 3);
    assert.deepEqual(timerFrames(sockets[0]).slice(0, 3), [{ route: 'ping' }, { route: 'ping' }, { route: 'ping' }]);
    client.close();
  });

  it('given a push handled after the last report, then the next tick is a heartbeat with its cursor and the one after a ping', async () => {
    const { sockets, factory } = scriptedSockets();
    const client = new GameSocketsClient({ url: 'ws://test/stage', playerId: 'p', socket: factory, heartbeatIntervalMs: 30 });
    await client.connect();
    const socket = sockets[0];
    await ticks(socket, 1);
    socket.serve({ type: 'message', messageId: 'm1', from: 'bob', message: 1, sentAt: 1, seq: 7 });
    socket.serve({ type: 'message', messageId: 'm2', from: 'bob', message: 2, sentAt: 2, seq: 9 });
    const before = timerFrames(socket).length;
    await ticks(socket, before + 2);
    const [next, after] = timerFrames(socket).slice(before, before + 2);
    assert.deepEqual(next, { route: 'heartbeat', body: { cursor: 9 } }, 'the cursor of the last push handled, without requestId');
    assert.deepEqual(after, { route: 'ping' }, 'nothing new to report');
    client.close();
  });

  it('given a reconnect whose resume reported the cursor, then the timer pings', async () => {
    const { sockets, factory } = scriptedSockets();
    const client = new GameSocketsClient({ url: 'ws://test/stage', playerId: 'p', socket: factory, heartbeatIntervalMs: 30, reconnect: { initialDelayMs: 1, maxDelayMs: 1 } });
    await client.connect();
    sockets[0].serve({ type: 'presence', playerId: 'x', status: 'online', at: 1, seq: 42 });
    await flush();
    sockets[0].close(1006);
    await until(() => sockets.length === 2 && sockets[1].sent.length > 0);
    assert.deepEqual(sockets[1].sent[0].body, { cursor: 42 });
    await ticks(sockets[1], 1);
    assert.deepEqual(timerFrames(sockets[1])[0], { route: 'ping' }, 'resume already reported seq 42');
    client.close();
  });

  it('given an explicit heartbeat, then it carries the cursor and a requestId, is acked, and counts as the report', async () => {
    const { sockets, factory } = scriptedSockets();
    const client = new GameSocketsClient({ url: 'ws://test/stage', playerId: 'p', socket: factory, heartbeatIntervalMs: 40 });
    await client.connect();
    const socket = sockets[0];
    socket.serve({ type: 'presence', playerId: 'x', status: 'online', at: 1, seq: 5 });
    await flush();
    const answered = client.heartbeat();
    const sent = socket.sent.find((f) => f.route === 'heartbeat' && f.requestId);
    assert.deepEqual(sent.body, { cursor: 5 });
    socket.serve({ type: 'ack', route: 'heartbeat', requestId: sent.requestId, serverTime: 123 });
    assert.equal((await answered).serverTime, 123);
    const before = timerFrames(socket).length;
    await ticks(socket, before + 1);
    assert.deepEqual(timerFrames(socket)[before], { route: 'ping' });
    client.close();
  });

  it('given request("ping"), then it rejects with invalid and sends nothing', async () => {
    const { sockets, factory } = scriptedSockets();
    const client = new GameSocketsClient({ url: 'ws://test/stage', playerId: 'p', socket: factory });
    await client.connect();
    await assert.rejects(client.request('ping'), (e) => e.code === 'invalid' && e.route === 'ping');
    assert.ok(!sockets[0].sent.some((f) => f.route === 'ping'));
    client.close();
  });
});

describe('the seat and its connection details', () => {
  const ARN = 'arn:aws:gamelift:local::gamesession/fleet-local/gs-1';
  /** A seat behind player gateway whose token expires `inMs` from now. */
  const seat = (playerSessionId, token, inMs) => ({
    gameSessionArn: ARN, ipAddress: '127.0.0.1', dnsName: 'localhost', port: 7777, region: 'local', playerSessionId,
    connection: { endpoints: [{ ipAddress: '127.0.0.2', port: 17777 }], playerGatewayToken: token, expiresAt: Date.now() + inMs },
  });
  const refreshes = (socket) => socket.sent.filter((f) => f.route === 'refreshConnectionDetails');
  const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  // A server whose first `n` refreshes get the error `refusal`, the later ones a seat with token pgt-1.
  const refusingFirst = (n, refusal) => {
    let asked = 0;
    return scriptedSockets({
      answer: (frame, socket) => {
        asked += 1;
        if (asked <= n) socket.serve({ type: 'error', route: frame.route, requestId: frame.requestId, ...refusal });
        else socket.serve({ type: 'ack', route: frame.route, requestId: frame.requestId, gameSession: seat('psess-1', 'pgt-1', 600_000) });
      },
    });
  };

  it('given a seat expiring in 2 s, then it is refreshed once before it expires and the event carries the new token', async () => {
    // Given a server that answers a refresh with a token good for 10 minutes
    let refreshedAt = null;
    const { sockets, factory } = scriptedSockets({
      answer: (frame, socket) => {
        if (frame.route !== 'refreshConnectionDetails') return;
        refreshedAt = Date.now();
        socket.serve({ type: 'ack', route: frame.route, requestId: frame.requestId, gameSession: seat('psess-1', 'pgt-new', 600_000) });
      },
    });
    const client = new GameSocketsClient({ url: 'ws://test/stage', playerId: 'p', socket: factory });
    const events = [];
    client.on('connectionDetails', (s) => events.push(s));
    await client.connect();

    // When a placement seats the player with a token that expires in 2 s
    const first = seat('psess-1', 'pgt-old', 2_000);
    sockets[0].serve({ type: 'placement', placementId: 'pl-1', status: 'FULFILLED', gameSession: first, seq: 1 });
    await wait(1_000);
    assert.equal(refreshes(sockets[0]).length, 0, 'not yet: the margin is a tenth of 2 s');
    await wait(1_400);

    // Then exactly one refresh went out, before the expiry, and the event has the new token
    assert.equal(refreshes(sockets[0]).length, 1);
    assert.ok(refreshedAt < first.connection.expiresAt, 'refreshed before expiresAt');
    assert.equal(events.length, 1);
    assert.equal(events[0].connection.playerGatewayToken, 'pgt-new');
    assert.equal(client.seat.connection.playerGatewayToken, 'pgt-new');
    client.close();
  });

  it('given a new seat before the old one expires, then the old timer is cancelled and only the new seat is refreshed', async () => {
    const { sockets, factory } = scriptedSockets({
      answer: (frame, socket) => socket.serve({ type: 'ack', route: frame.route, requestId: frame.requestId, gameSession: seat('psess-2', 'pgt-2b', 600_000) }),
    });
    const client = new GameSocketsClient({ url: 'ws://test/stage', playerId: 'p', socket: factory });
    await client.connect();
    // Given a seat expiring in 500 ms
    sockets[0].serve({ type: 'placement', placementId: 'pl-1', status: 'FULFILLED', gameSession: seat('psess-1', 'pgt-1', 500), seq: 1 });
    await wait(50);
    // When a match seats the player elsewhere, expiring in 1.5 s
    sockets[0].serve({ type: 'matchmaking', ticketId: 'mm-1', status: 'COMPLETED', gameSession: { ...seat('psess-2', 'pgt-2', 1_500), matchId: 'm', team: 'red' }, seq: 2 });
    await wait(700);
    // Then the old seat's refresh never went out
    assert.equal(refreshes(sockets[0]).length, 0);
    assert.equal(client.seat.playerSessionId, 'psess-2');
    // And the new one's did, once
    await wait(900);
    assert.equal(refreshes(sockets[0]).length, 1);
    assert.equal(client.seat.connection.playerGatewayToken, 'pgt-2b');
    client.close();
  });

  it('given a seat whose details are unavailable, then it is refreshed with backoff until it has some', async () => {
    // Given a server that answers the first refresh `unavailable`, the second with details
    const { sockets, factory } = refusingFirst(1, { code: 'unavailable', message: 'GameLift is unavailable; retry' });
    const client = new GameSocketsClient({ url: 'ws://test/stage', playerId: 'p', socket: factory });
    const events = [];
    client.on('connectionDetails', (s) => events.push(s));
    await client.connect();
    // When a required fleet's seat comes without details
    const unavailable = { ...seat('psess-1', 'x', 0), connection: undefined, connectionUnavailable: true };
    sockets[0].serve({ type: 'placement', placementId: 'pl-1', status: 'FULFILLED', gameSession: unavailable, seq: 1 });
    // Then it asks after 1 s, and after 2 s more, and then has a token
    await wait(1_200);
    assert.equal(refreshes(sockets[0]).length, 1);
    await wait(1_200);
    assert.equal(refreshes(sockets[0]).length, 1, 'backing off: 2 s after the failure');
    await wait(1_000);
    assert.equal(refreshes(sockets[0]).length, 2);
    assert.equal(events.length, 1);
    assert.equal(client.seat.connection.playerGatewayToken, 'pgt-1');
    client.close();
  });

  it('given refreshes refused rate_limited, then the error is typed by its code and the next refresh waits its retryAfterMs', async () => {
    // Given a server that answers the first two refreshes `rate_limited` for 2.5 s, then with details
    const { sockets, factory } = refusingFirst(2, { code: 'rate_limited', message: 'over the limit', retryAfterMs: 2_500 });
    const client = new GameSocketsClient({ url: 'ws://test/stage', playerId: 'p', socket: factory });
    await client.connect();
    // When an explicit refresh is refused, then the error is the typed frame of its code
    await assert.rejects(client.refreshConnectionDetails(), (e) => {
      assert.ok(e instanceof GameSocketsError);
      assert.equal(e.reply.code, 'rate_limited');
      assert.equal(e.replyOf('rate_limited').retryAfterMs, 2_500);
      assert.equal(e.replyOf('not_found'), undefined, 'another code reads as undefined');
      return true;
    });
    // When a seat without details comes, its first refresh (after 1 s) is refused too
    const unavailable = { ...seat('psess-1', 'x', 0), connection: undefined, connectionUnavailable: true };
    sockets[0].serve({ type: 'placement', placementId: 'pl-1', status: 'FULFILLED', gameSession: unavailable, seq: 1 });
    await wait(1_200);
    assert.equal(refreshes(sockets[0]).length, 2);
    // Then the next waits 2.5 s (not the 2 s backoff), and has a token
    await wait(2_000);
    assert.equal(refreshes(sockets[0]).length, 2, 'still waiting: retryAfterMs, not the backoff');
    await wait(600);
    assert.equal(refreshes(sockets[0]).length, 3);
    assert.equal(client.seat.connection.playerGatewayToken, 'pgt-1');
    client.close();
  });

  it('given the resume ack\'s seat, or an explicit refresh, then the seat is tracked; closing stops the timer', async () => {
    const { sockets, factory } = scriptedSockets({
      resumeSeat: seat('psess-9', 'pgt-9', 300),
      answer: (frame, socket) => socket.serve({ type: 'ack', route: frame.route, requestId: frame.requestId, gameSession: seat('psess-9', 'pgt-10', 300) }),
    });
    const client = new GameSocketsClient({ url: 'ws://test/stage', playerId: 'p', socket: factory });
    const events = [];
    client.on('connectionDetails', (s) => events.push(s));
    await client.connect();
    assert.equal(client.seat.playerSessionId, 'psess-9');
    const ack = await client.refreshConnectionDetails();
    assert.equal(ack.gameSession.connection.playerGatewayToken, 'pgt-10');
    assert.equal(events.length, 1, 'an explicit refresh is announced too');
    const before = refreshes(sockets[0]).length;
    client.close();
    await wait(400);
    assert.equal(refreshes(sockets[0]).length, before, 'no refresh after close');
  });
});

describe('handshake refusals', () => {
  it('given an adapter that reports 403, then the client stops as unauthorized without retrying', async () => {
    const { sockets, factory } = scriptedSockets({ refuseWith: 403 });
    const client = new GameSocketsClient({ url: 'ws://test/stage', token: () => 'expired', socket: factory });
    const closed = [];
    client.on('closed', (event) => closed.push(event));
    await assert.rejects(client.connect(), (e) => e.code === 'closed');
    await flush();
    assert.equal(closed[0].reason, 'unauthorized');
    assert.equal(sockets.length, 1);
  });
});
