//! The Parties table (docs/architecture.md#parties): reads, commits of a party change
//! (with what it writes in the Players and Messages tables), a party's pending request
//! reserved for every member, and the index of parties with an offline member. The
//! records are `crate::party`'s.

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
