//! The Parties table (docs/architecture.md#parties) and the writes a party change makes
//! across the Parties, Players and Messages tables.
//!
//! Every change to a party is one [`PartyCommit`]: the party's new state, written only
//! if the stored version is still the one the change was computed from, together with
//! the players' `partyId` links and one `party` message per member, all or nothing (one
//! `TransactWriteItems` on DynamoDB). So two members acting at once never lose a change
//! (the second finds the version moved and is told so), and every change reaches every
//! member through their inbox, like any other push. The contract suite in
//! the contract suites (`contracts`) check both adapters give the same answers.

use async_trait::async_trait;

use crate::domain::{EpochMillis, PlacementId, PlayerId};
use crate::party::{Invitation, Party, PartyId};
use crate::ports::message_store::NewMessage;
use crate::ports::player_store::StoreError;

/// What the stored party must be for a commit to happen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartyCondition {
    /// No such party yet (a new one).
    Absent,
    /// The party at exactly this version.
    AtVersion(u64),
    /// Anything, even no party (a declined invitation does not depend on the party).
    Any,
}

/// What happens to the party's item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PartyWrite {
    /// Stored as this state (created, or replaced).
    Save(Party),
    /// Removed: the last member left.
    Delete,
}

/// What happens to an invitation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InvitationWrite {
    /// Stored (replacing an earlier one to the same player).
    Put(Invitation),
    /// Used up or declined: removed, only if it exists and is live at the commit's `now`.
    Take(PlayerId),
}

/// One all-or-nothing change across the Parties, Players and Messages tables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartyCommit {
    pub party_id: PartyId,
    pub condition: PartyCondition,
    /// `None`: the party's item is only checked against `condition`.
    pub write: Option<PartyWrite>,
    pub invitation: Option<InvitationWrite>,
    /// A player whose `partyId` becomes this party: only if they are in no party (and
    /// have an item).
    pub join: Option<PlayerId>,
    /// Players whose `partyId` is removed (if it is this party).
    pub leave: Vec<PlayerId>,
    /// A player who must have an item (an invitee: nothing is stored for an id nobody has).
    pub must_exist: Option<PlayerId>,
    /// The pushes, at most one per recipient, appended to their inboxes.
    pub pushes: Vec<NewMessage>,
    pub now: EpochMillis,
}

impl PartyCommit {
    /// A commit of `party_id` under `condition` that writes nothing yet.
    pub fn on(party_id: PartyId, condition: PartyCondition, now: EpochMillis) -> Self {
        Self {
            party_id,
            condition,
            write: None,
            invitation: None,
            join: None,
            leave: Vec::new(),
            must_exist: None,
            pushes: Vec::new(),
            now,
        }
    }
}

/// How a commit ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Committed {
    /// Everything was written.
    Done,
    /// The party is not as the condition says (another change came first, or it was
    /// created or disbanded meanwhile): nothing was written; read it again.
    PartyMoved,
    /// The invitation to take is gone or expired: nothing was written.
    InvitationGone,
    /// The joining player is in a party already (this one, when the store could tell):
    /// nothing was written.
    InAnotherParty(Option<PartyId>),
    /// The player who must exist has no item: nothing was written.
    NoSuchPlayer,
}

/// What [`PartyStore::begin_placement`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PartyPlacementBegun {
    /// The placement is every member's pending one now.
    Began,
    /// The party changed (or its leader did) since it was read: nothing was written.
    PartyMoved,
    /// This member has a pending placement already: nothing was written.
    AlreadyPending {
        player: PlayerId,
        placement_id: PlacementId,
    },
}

/// A party whose longest-offline member went offline at `offline_since`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OfflineParty {
    pub party_id: PartyId,
    pub offline_since: EpochMillis,
}

/// A page of the parties' offline index; pass `next` back to continue.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OfflinePage {
    pub parties: Vec<OfflineParty>,
    pub next: Option<OfflineParty>,
}

#[async_trait]
pub trait PartyStore: Send + Sync {
    /// One strongly consistent read of the party (not its invitations).
    async fn get(&self, party_id: &PartyId) -> Result<Option<Party>, StoreError>;

    /// The party and `player`'s invitation to it, in one strongly consistent read.
    async fn get_with_invitation(
        &self,
        party_id: &PartyId,
        player: &PlayerId,
    ) -> Result<(Option<Party>, Option<Invitation>), StoreError>;

    /// Applies the commit, all or nothing; an inbox that moved meanwhile is read again
    /// and the commit retried.
    async fn commit(&self, commit: &PartyCommit) -> Result<Committed, StoreError>;

    /// Makes `placement_id` the pending (and last) placement of every member of `party`
    /// at once, only if the party is still that version with that leader and no member
    /// has a pending placement.
    async fn begin_placement(
        &self,
        party: &Party,
        placement_id: &PlacementId,
    ) -> Result<PartyPlacementBegun, StoreError>;

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
