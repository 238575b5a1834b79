// The friends methods against the real local stack (JWT mode): the five friend routes and
// their `friend` events, setActivity reaching a friend as a `presence` event without
// subscribing, and joinFriendGame on the stack's GameLift simulator (a seat, and a refusal).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { GameSocketsClient, GameSocketsError } from '../dist/index.js';
import { mintToken, suiteStack, until } from './stack.mjs';

/** A connected client for `player` and the friend, presence and placement events it got. */
async function online(stack, player) {
  const client = new GameSocketsClient({ url: stack.url, token: async () => mintToken(player), requestTimeoutMs: 5000 });
  const seen = { friend: [], presence: [], placement: [] };
  for (const kind of Object.keys(seen)) client.on(kind, (frame) => seen[kind].push(frame));
  await client.connect();
  return { client, seen };
}

/** Waits for `who`'s `friend` event saying the relation with `playerId` became `state`. */
const told = (who, playerId, state) =>
  until(() => who.seen.friend.some((f) => f.playerId === playerId && f.state === state), `${playerId} ${state}`);

/** `a` invites `b` (named `bId`), who accepts by inviting back; both told. */
async function befriend(a, aId, b, bId) {
  assert.equal((await a.client.addFriend(bId)).state, 'invited');
  await told(b, aId, 'invitation');
  assert.equal((await b.client.addFriend(aId)).state, 'friends');
  await told(a, bId, 'friends');
}

const refusedWith = (code) => (e) => e instanceof GameSocketsError && e.code === code;

describe('friends against the local stack', () => {
  const stack = suiteStack();

  it('given the friend methods, when players befriend, list, block and remove, then each change is an event and listed', async () => {
    const ann = await online(stack, 'ann-friends');
    const ben = await online(stack, 'ben-friends');
    const cid = await online(stack, 'cid-friends');
    await befriend(ann, 'ann-friends', ben, 'ben-friends');
    await cid.client.addFriend('ann-friends');
    await told(ann, 'cid-friends', 'invitation');

    const page = await ann.client.listFriends();
    assert.deepEqual(
      page.friends.map((f) => [f.playerId, f.state, f.presence]),
      [
        ['ben-friends', 'friends', 'online'],
        ['cid-friends', 'invitation', undefined],
      ],
    );
    assert.equal(page.cursor, null);
    const invitations = await ann.client.listFriends({ state: 'invitation' });
    assert.deepEqual(invitations.friends.map((f) => f.playerId), ['cid-friends']);

    // Blocking ends cid's invitation: cid is told `removed`, as for a decline.
    assert.equal((await ann.client.blockPlayer('cid-friends')).state, 'blocked');
    await told(cid, 'ann-friends', 'removed');
    const blocked = await ann.client.listFriends({ state: 'blocked' });
    assert.deepEqual(blocked.friends.map((f) => f.playerId), ['cid-friends']);
    assert.equal((await ann.client.unblockPlayer('cid-friends')).state, null);

    assert.equal((await ben.client.removeFriend('ann-friends')).state, null);
    await told(ann, 'ben-friends', 'removed');
    assert.deepEqual((await ann.client.listFriends()).friends, []);
    await assert.rejects(ann.client.addFriend('nobody-has-this-id'), refusedWith('not_found'));
    for (const p of [ann, ben, cid]) p.client.close();
  });

  it('given friends, when one sets an activity, then the other gets it as a presence event without subscribing', async () => {
    const ann = await online(stack, 'ann-activity');
    const ben = await online(stack, 'ben-activity');
    await befriend(ann, 'ann-activity', ben, 'ben-activity');
    const stored = await ben.client.setActivity('ranked, map Dust, 3–1', { map: 'dust', score: [3, 1] });
    assert.equal(stored.activity, 'ranked, map Dust, 3–1');
    await until(() => ann.seen.presence.some((p) => p.playerId === 'ben-activity' && p.activity), 'ben activity');
    const pushed = ann.seen.presence.find((p) => p.playerId === 'ben-activity' && p.activity);
    assert.equal(pushed.status, 'online');
    assert.deepEqual([pushed.activity, pushed.details], ['ranked, map Dust, 3–1', { map: 'dust', score: [3, 1] }]);
    await assert.rejects(ben.client.setActivity('x'.repeat(65)), refusedWith('bad_request'));
    for (const p of [ann, ben]) p.client.close();
  });

  it("given a friend in a game on the simulator, when joining it, then a seat there is the client's and a stranger is refused forbidden", async () => {
    const ann = await online(stack, 'ann-join');
    const ben = await online(stack, 'ben-join');
    const cid = await online(stack, 'cid-join');
    await ben.client.requestPlacement();
    await until(() => ben.seen.placement.some((p) => p.status === 'FULFILLED'), 'ben placed');
    const bens = ben.seen.placement.find((p) => p.status === 'FULFILLED').gameSession;
    await befriend(ann, 'ann-join', ben, 'ben-join');

    const { gameSession } = await ann.client.joinFriendGame('ben-join');
    assert.equal(gameSession.gameSessionArn, bens.gameSessionArn);
    assert.notEqual(gameSession.playerSessionId, bens.playerSessionId);
    assert.deepEqual(ann.client.seat, gameSession);
    await assert.rejects(cid.client.joinFriendGame('ben-join'), refusedWith('forbidden'));
    assert.equal(cid.client.seat, null);
    for (const p of [ann, ben, cid]) p.client.close();
  });
});
