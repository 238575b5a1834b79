//! Parties (docs/architecture.md#playing-in-parties): players who play together, kept together
//! across drops and placed together. The state and its view ([`model`]), the changes
//! and refusals as pure functions ([`change`]), what a change writes ([`commit`]), and
//! committing changes with their pushes ([`service`]).

mod change;
mod commit;
mod model;
mod service;

pub use change::{Change, ChangeKind, PartyRefusal};
pub use commit::{
    CommitScope, Committed, InvitationWrite, OfflinePage, OfflineParty, PartyCommit,
    PartyCondition, PartyWrite,
};
pub use model::{
    Invitation, MAX_PARTY_ID_LEN, MemberPresence, MemberView, Party, PartyId, PartyIdError,
    PartyMember, PartyView,
};
pub use service::{CHANGE_ATTEMPTS, Parties, PartyError};
