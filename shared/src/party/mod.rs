//! Parties (docs/architecture.md#playing-in-parties): players who play together, kept together
//! across drops and placed together. The state and its view ([`model`]), the changes
//! and refusals as pure functions ([`change`]), and committing changes with their
//! pushes ([`service`]).

mod change;
mod model;
mod service;

pub use change::{Change, ChangeKind, PartyRefusal};
pub use model::{
    Invitation, MAX_PARTY_ID_LEN, MemberPresence, MemberView, Party, PartyId, PartyIdError,
    PartyMember, PartyView,
};
pub use service::{CHANGE_ATTEMPTS, Parties, PartyError, SYSTEM_SENDER};
