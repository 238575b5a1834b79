//! The Parties table (shared/src/ports/parties.rs) and the writes a party change makes
//! across the Parties, Players and Messages tables.
//!
//! Every change to a party is one [`PartyCommit`]: the party's new state, written only
//! if the stored version is still the one the change was computed from, together with
//! the players' `partyId` links and one `party` message per member, all or nothing (one
//! `TransactWriteItems` on DynamoDB). So two members acting at once never lose a change
//! (the second finds the version moved and is told so), and every change reaches every
//! member through their inbox, like any other push. The contract suites (`contracts`)
//! check both adapters give the same answers.

use crate::domain::{EpochMillis, PlayerId};
use crate::messaging::NewMessage;

use super::{Invitation, Party, PartyId};

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

/// What a function's party commits may write, narrowest first: what its role is granted
/// (template.yaml), so its adapter refuses a commit beyond it before writing anything.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CommitScope {
    /// A member's presence: the party saved on its version, with the pushes (`resume`).
    Presence,
    /// Also members leaving: the party saved or deleted, the leaving players' links
    /// removed (the sweeper removes members offline too long).
    Departures,
    /// Anything: invitations, joins, checks that a player exists (the party routes).
    Any,
}

impl PartyCommit {
    /// The narrowest scope that holds this commit.
    pub fn scope(&self) -> CommitScope {
        let saves_on_version = matches!(self.condition, PartyCondition::AtVersion(_))
            && matches!(self.write, Some(PartyWrite::Save(_)));
        if self.invitation.is_some()
            || self.join.is_some()
            || self.must_exist.is_some()
            || self.write.is_none()
        {
            CommitScope::Any
        } else if saves_on_version && self.leave.is_empty() {
            CommitScope::Presence
        } else if matches!(self.condition, PartyCondition::AtVersion(_)) {
            CommitScope::Departures
        } else {
            CommitScope::Any
        }
    }
}
