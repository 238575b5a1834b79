//! The Players table: one item per player holding the connection, presence and game
//! state. Every write that could race is conditional, so adapters must give the same
//! answers under races; the contract suites in the `contracts` crate check that.
//!
//! Split by concern, so that each function depends on what it uses: reads
//! ([`PlayerReader`], [`PlayerLookup`]), the connection ([`Connections`], and
//! [`Heartbeats`], which only the local stack's in-memory heartbeat integration calls: a
//! deployed heartbeat is API Gateway's own UpdateItem), the sweep ([`PresenceSweep`]),
//! the pending request slot ([`PendingSlots`]), the seat ([`Seats`]), what a party's
//! leader asks with for a member ([`Profiles`]) and the player's activity
//! ([`Activities`]).
//!
//! # The item
//!
//! Key: `playerId` (S). Sparse global secondary index `BySweepShard`: partition
//! `sweepShard` (N), KEYS_ONLY: every player online or disconnected, by shard. The
//! sweeper reads all of them each run (a page of keys, then their `sweepAt` in one
//! eventually consistent BatchGetItem per 100), and its conditional UpdateItem re-reads
//! the whole item anyway. `sweepAt` is kept out of the index on purpose: every heartbeat
//! moves it, and a moved index key is two index writes (3 write units per heartbeat
//! instead of 1), where reading a tracked player once a minute costs half a read unit
//! (docs/cost.md). No stream. TTL on `expireAt` (epoch seconds; every other timestamp
//! is epoch milliseconds). Item layout: `adapters/aws/src/dynamodb/player_item.rs`.
//!
//! | attribute | type | written by | meaning |
//! |---|---|---|---|
//! | `playerId` | S | | key |
//! | `connectionId` | S | `$connect` | the player's latest connection |
//! | `endpoint` | S | `$connect` | management API base URL of that connection, `https://{domain}/{stage}` |
//! | `connectedAt` | N | `$connect` | API Gateway's `connectedAt` of that connection; orders racing connects |
//! | `lastSeen` | N | `$connect`, `heartbeat`, `$disconnect` | last sign of life |
//! | `status` | S | `$connect`, `$disconnect`, `on-message-inserted` (410), `presence-timeout` | `online`, `disconnected` or `offline` |
//! | `sweepShard`, `sweepAt` | N, N | `$connect`, `heartbeat`, `$disconnect`; removed by `presence-timeout` | present only while online or disconnected (`sweepShard` is what makes `BySweepShard` sparse): `sweepAt` is the heartbeat deadline, or the end of the grace period. `sweepShard` is a stable hash of the player id modulo `PRESENCE_SHARDS` (written only by `$connect`: after lowering the setting, a player already in a higher shard is not swept until they connect again) |
//! | `previousStatus`, `previousSweepAt` | S, N | `$connect` | status and `sweepAt` of the record the connect replaced, copied by the same write (`none` / `0` when there was none), so that `resume` can tell a resumed session without a second write |
//! | `previousConnectionId`, `previousEndpoint`, `previousLastSeen` | S, S, N | `$connect` | the connection the connect replaced and its last sign of life, copied the same way, so that `resume` can close a taken-over connection again |
//! | `liveConnectionId`, `liveFrom` | S, N | `resume` (the hand-over) | the connection the stream consumer posts to, and the newest inbox `seq` that connection's replay covered (delivery: `crate::messaging`) |
//! | `ackedSeq` | N | `resume` (the hand-over), `heartbeat` with a `cursor` | the last cursor the player's client reported (or, for a client that reports none, the head its last replay reached): where a later `resume` without a cursor starts |
//! | `pendingPlacementId` | SS (one id) | `sessionPlacementRequest` and `startMatchmaking` set it only if absent; settlement and the refusal path remove it | the placement or ticket the player waits for. A one-element set so a settlement can remove it with a condition-free `DELETE` that leaves a newer placement's id alone (a plain string is still read) |
//! | `lastPlacementId` | S | `sessionPlacementRequest` | the last placement asked for; `cancelPlacement`'s default target when nothing is pending |
//! | `gameSession` | M | settlement (FULFILLED, COMPLETED), `rejoinSession`, `joinFriendGame` | the player's seat: `gameSessionArn`, `ipAddress`, `dnsName`, `port` (N), `region`, `playerSessionId`, and its player gateway details (`connection`, JSON text, and `connectionUnavailable`: `crate::seats`) |
//! | `expireAt` | N | `$connect` (now + 30 days); a settlement that creates the item sets it if absent | retention |
//! | `sendMessageWindow`, `sendMessageCalls`, `sendMessageUnits` | N, N, N | `sendMessage` | the sender's current rate-limit window (its start, ms), the frames and the recipients counted in it (`crate::rate_limits`) |
//! | `placementWindow`, `placementCalls`, `placementUnits` | N, N, N | `sessionPlacementRequest`, `startMatchmaking`, `refreshConnectionDetails` | the same for placement requests (units unused) |
//! | `partyInviteWindow`, `partyInviteCalls`, `partyInviteUnits` | N, N, N | `inviteToParty` | the same for party invitations (units unused) |
//! | `friendInviteWindow`, `friendInviteCalls`, `friendInviteUnits` | N, N, N | `addFriend` | the same for friend invitations (units unused) |
//! | `activityWindow`, `activityCalls`, `activityUnits` | N, N, N | `setActivity` | the same for activity changes (units unused) |
//! | `partyId` | S | every party change that adds or removes the player, in the party's own transaction | the party the player is in: absent means none. `createParty` and `joinParty` set it only if absent (that is "already in a party"); a solo `sessionPlacementRequest` needs it absent |
//! | `placementLatencies` | M | `setPlacementLatencies` | region → milliseconds (N): what the player's party leader's placement asks GameLift with for them |
//! | `matchmakingAttributes` | S | `setMatchmakingAttributes` | the player's FlexMatch attributes as JSON text (numbers, strings, string lists, string → number maps): what their party leader's ticket carries for them |
//! | `activity` | S | `setActivity` (only over the player's online connection); removed by `presence-timeout` in the write that takes the player offline | the player's activity (rich presence), JSON text of `crate::activity::Activity` (`activity`, `details`): what `presence` frames and the backend API carry while the player is online |
//! | `endedGameSessionArn` | S | the backend API's `ended` / `left`, in the write that removes `gameSession` (on condition the seat was in that game) | the game the game server reported over for this player: `rejoinSession` answers `session_ended` from it without asking GameLift. Only read while `gameSession` is absent: a later seat makes it stale |
//!
//! Game state (`pendingPlacementId`, `lastPlacementId`, `gameSession`) and `partyId` are
//! never written by `$connect`, so they survive reconnects. A settlement may create an
//! item with game state only (a player placed by someone else's group request); such an
//! item reads as "no connection record" and the player's first connect is a new session.

use async_trait::async_trait;

use crate::activity::Activity;
use crate::domain::{ConnectionId, EpochMillis, GameSession, PlayerId, Seq};
use crate::matchmaking::Attributes;
use crate::pending::{Pending, Reservation};
use crate::players::{ConnectOutcome, ExpiredPage, Liveness, NewConnection, PlayerRecord};

use super::StoreError;

/// One player's record, read alone.
#[async_trait]
pub trait PlayerReader: Send + Sync {
    /// One strongly consistent read.
    async fn get(&self, player: &PlayerId) -> Result<Option<PlayerRecord>, StoreError>;
}

/// Many players' records at once.
#[async_trait]
pub trait PlayerLookup: Send + Sync {
    /// The records of `players` that exist, in no particular order: one batched read
    /// per 100 players, retrying what the store could not process.
    async fn get_many(&self, players: &[PlayerId]) -> Result<Vec<PlayerRecord>, StoreError>;

    /// Which of `players` exist, each once, in no particular order: what a recipient
    /// check needs, without the records. A store that holds the records in memory
    /// answers without copying them.
    async fn known(&self, players: &[PlayerId]) -> Result<Vec<PlayerId>, StoreError> {
        let records = self.get_many(players).await?;
        Ok(records.into_iter().map(|p| p.player_id).collect())
    }
}

/// A player's connection: `$connect`, and `$disconnect` (or a post that found the live
/// connection gone).
#[async_trait]
pub trait Connections: Send + Sync {
    /// Writes the new connection in one write (new / resume / takeover), unless a later
    /// connection of the same player already holds the record.
    async fn connect(&self, connection: &NewConnection) -> Result<ConnectOutcome, StoreError>;

    /// Marks the player disconnected with a grace period ending at `grace_until`, only
    /// if `connection` is still the player's online connection. Returns whether it did.
    async fn disconnect(
        &self,
        player: &PlayerId,
        connection: &ConnectionId,
        now: EpochMillis,
        grace_until: EpochMillis,
    ) -> Result<bool, StoreError>;
}

/// A heartbeat, as template.yaml's heartbeat route records it (API Gateway's own
/// UpdateItem, no function): the in-memory adapter runs it for the local stack; on
/// DynamoDB it is the route's mapping template, which the contract suite runs against
/// DynamoDB Local.
#[async_trait]
pub trait Heartbeats: Send + Sync {
    /// Refreshes `lastSeen` and pushes the heartbeat deadline (and remembers `cursor`
    /// as `ackedSeq` when given), only if `connection` is still the player's online
    /// connection; otherwise says why not.
    async fn heartbeat(
        &self,
        player: &PlayerId,
        connection: &ConnectionId,
        now: EpochMillis,
        deadline: EpochMillis,
        cursor: Option<Seq>,
    ) -> Result<Liveness, StoreError>;
}

/// The sweeper's view: who is past their deadline, and taking them offline.
#[async_trait]
pub trait PresenceSweep: Send + Sync {
    /// Reads up to `limit` of `shard`'s tracked players (online or disconnected), in
    /// the store's order after `after` (by player id in memory, the index's in
    /// DynamoDB), and returns those whose `sweepAt` is before `now`
    /// (maybe none) with the cursor of the next page, if there is one. A heartbeat moves
    /// `sweepAt` without moving the player in the index: the sweeper reads every tracked
    /// player each run (the module's docs: the item).
    async fn expired(
        &self,
        shard: u32,
        now: EpochMillis,
        limit: u32,
        after: Option<&PlayerId>,
    ) -> Result<ExpiredPage, StoreError>;

    /// Marks the player offline, only if their `sweepAt` is still before `now` (a
    /// heartbeat or reconnect that landed meanwhile wins). Returns the record as it was
    /// when it did, `None` when it lost the race.
    async fn mark_offline(
        &self,
        player: &PlayerId,
        now: EpochMillis,
    ) -> Result<Option<PlayerRecord>, StoreError>;
}

/// A player's one pending request (`crate::pending`): a queue placement or a
/// matchmaking ticket, never both.
#[async_trait]
pub trait PendingSlots: Send + Sync {
    /// Makes `pending` the player's pending (and last) request, only if none is pending
    /// and the player is in no party: one conditional write.
    /// [`Reservation::InParty`] names the party, else [`Reservation::Taken`] the
    /// request that is pending (read from the same write, at no extra cost).
    /// Game state may be written before the player's first `$connect`: the item is
    /// created if missing.
    async fn reserve(
        &self,
        player: &PlayerId,
        pending: &Pending,
    ) -> Result<Reservation, StoreError>;

    /// Clears the pending request, only if it is still `pending` (it was refused, or
    /// left behind by a fault); a later one is never cleared. Does nothing if the
    /// player has no item.
    async fn release(&self, player: &PlayerId, pending: &Pending) -> Result<(), StoreError>;
}

/// A player's seat in a game session.
#[async_trait]
pub trait Seats: Send + Sync {
    /// Replaces the stored game session with `session` (a new player session in the
    /// same game: rejoin), only if the stored one is still that game
    /// (`session.game_session_arn`). Returns whether it did.
    async fn update_game_session(
        &self,
        player: &PlayerId,
        session: &GameSession,
    ) -> Result<bool, StoreError>;

    /// Replaces the stored seat with `session` (the same player session with fresh
    /// connection details: `refreshConnectionDetails`), only if the stored seat is still
    /// that player session (`session.player_session_id`): a rejoin that gave the player a
    /// new one while GameLift was asked must not be overwritten by the old one's details.
    /// Returns whether it did.
    async fn refresh_seat(
        &self,
        player: &PlayerId,
        session: &GameSession,
    ) -> Result<bool, StoreError>;

    /// Makes `session` the player's seat, whatever it was (a seat in another game:
    /// `joinFriendGame`), and forgets a game reported over; one write, which creates the
    /// item if missing, as a settlement does.
    async fn take_seat(&self, player: &PlayerId, session: &GameSession) -> Result<(), StoreError>;

    /// The backend reports the player's game `game_session_arn` over (ended, or the
    /// player left it): clears the seat and remembers the game as ended, only if the
    /// player's seat is still in that game. Returns whether it was.
    async fn end_game_session(
        &self,
        player: &PlayerId,
        game_session_arn: &str,
    ) -> Result<bool, StoreError>;
}

/// What a party's leader asks GameLift and FlexMatch with for a member: the member's
/// own latencies and attributes, set by the member.
#[async_trait]
pub trait Profiles: Send + Sync {
    /// Stores the player's placement latencies (replacing earlier ones); one write, only
    /// if the player has an item. Returns whether they do.
    async fn set_placement_latencies(
        &self,
        player: &PlayerId,
        latencies: &[(String, u32)],
    ) -> Result<bool, StoreError>;

    /// Stores the player's matchmaking attributes (replacing earlier ones); one write,
    /// only if the player has an item. Returns whether they do.
    async fn set_matchmaking_attributes(
        &self,
        player: &PlayerId,
        attributes: &Attributes,
    ) -> Result<bool, StoreError>;
}

/// A player's activity (rich presence), stored beside their presence.
#[async_trait]
pub trait Activities: Send + Sync {
    /// Stores `activity` as the player's (`None` clears it), only if `connection` is
    /// still the player's online connection: one conditional write. Returns whether it
    /// was (a replaced or dropped connection sets nothing).
    async fn set_activity(
        &self,
        player: &PlayerId,
        connection: &ConnectionId,
        activity: Option<&Activity>,
    ) -> Result<bool, StoreError>;
}
