//! The Parties table: reads, commits of a party change (with what it writes in the
//! Players and Messages tables), a party's pending request reserved for every member,
//! and the index of parties with an offline member. The records, and how a change is
//! made, are `crate::party`'s.
//!
//! # The items
//!
//! A party and its invitations. Key: partition `partyId` (S), sort `sk` (S): the party at
//! `sk = party`, each invitation at `sk = invite#<playerId>`. Sparse global secondary
//! index `ByOfflineSince`: partition `sweepShard` (N), sort `offlineSince` (N),
//! KEYS_ONLY. No stream: a change's pushes are Messages items written in the change's own
//! transaction. Item layout: `adapters/aws/src/dynamodb/party_item.rs`.
//!
//! | attribute | item | meaning |
//! |---|---|---|
//! | `partyId` (S) | both | a random (v4) UUID |
//! | `leaderId` (S) | party | the leader |
//! | `maxSize` (N) | party | 2 to `PARTY_MAX_SIZE` (asked above it: `forbidden`) |
//! | `members` (M) | party | player id → `{joinedAt N, presence S (online/offline), offlineSince N (offline only)}`; longest-standing first by `joinedAt` |
//! | `version` (N) | party | 1 at creation, one more per change (`created`, `joined`, `left`, `kicked`, `promoted`, `presence`); every write of the item is conditional on the version it was computed from |
//! | `createdAt` (N) | party | epoch ms |
//! | `sweepShard`, `offlineSince` (N, N) | party | present only while a member is offline (this is what makes `ByOfflineSince` sparse): the party id's shard (FNV-1a modulo `PRESENCE_SHARDS`) and when the longest-offline member went offline |
//! | `invitee`, `from`, `expiresAt` (S, S, N) | invitation | who is invited by whom, until when (ms); a new invitation to the same player replaces it |
//! | `expireAt` (N) | invitation | a minute after `expiresAt`: TTL removes it (reads check `expiresAt` themselves) |
//!
//! A party item has no TTL: a party ends when its last member leaves or is removed (the
//! sweeper removes members offline for `PARTY_OFFLINE_SECONDS`, so a party whose players
//! all vanish is deleted too). Invitations live in their own items so that inviting
//! never writes the party item: an invitation is checked against the party's version (a
//! ConditionCheck) and concurrent invitations do not collide with each other.

use async_trait::async_trait;

use crate::domain::{EpochMillis, PlayerId};
use crate::party::{Committed, Invitation, OfflinePage, OfflineParty, Party, PartyCommit, PartyId};
use crate::pending::{PartyReservation, Pending};

use super::StoreError;

/// Reads of a party.
#[async_trait]
pub trait PartyReader: Send + Sync {
    /// One strongly consistent read of the party (not its invitations).
    async fn get(&self, party_id: &PartyId) -> Result<Option<Party>, StoreError>;

    /// The party and `player`'s invitation to it, in one strongly consistent read.
    async fn get_with_invitation(
        &self,
        party_id: &PartyId,
        player: &PlayerId,
    ) -> Result<(Option<Party>, Option<Invitation>), StoreError>;
}

/// Commits of party changes, each all or nothing with its pushes. An AWS adapter is
/// built for one `CommitScope` (what its function's role may write) and refuses a
/// commit beyond it before writing anything.
#[async_trait]
pub trait PartyCommits: Send + Sync {
    /// Applies the commit, all or nothing; an inbox that moved meanwhile is read again
    /// and the commit retried.
    async fn commit(&self, commit: &PartyCommit) -> Result<Committed, StoreError>;
}

/// A party's pending request, reserved for every member at once (`crate::pending`).
#[async_trait]
pub trait PartySlots: Send + Sync {
    /// Makes `pending` the pending (and last) request of every member of `party` at
    /// once, only if the party is still that version with that leader and no member
    /// has a pending request.
    async fn reserve_party(
        &self,
        party: &Party,
        pending: &Pending,
    ) -> Result<PartyReservation, StoreError>;
}

/// The parties' offline index (the sweeper's).
#[async_trait]
pub trait OfflineParties: Send + Sync {
    /// Parties of `shard` with a member offline since `before` or earlier, longest
    /// offline first.
    async fn offline(
        &self,
        shard: u32,
        before: EpochMillis,
        limit: u32,
        after: Option<&OfflineParty>,
    ) -> Result<OfflinePage, StoreError>;
}
