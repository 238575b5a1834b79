//! A player's one pending request (shared/src/ports/players.rs, `pendingPlacementId`):
//! a queue placement or a matchmaking ticket, never both, because both take the same
//! slot of the player's item. [`Pending`] says which, as a type: the slot's stored text
//! is read into it once, by [`Pending::from_stored`] (the one place that tells a ticket
//! id from a placement id), and written back with [`Pending::stored`].
//!
//! [`PendingRequests`] reserves the slot for the caller or their whole party, clearing
//! one a fault left behind; both `sessionPlacementRequest` and `startMatchmaking` use it.

mod service;

use std::fmt;

use crate::domain::{EpochMillis, PlacementId, PlacementIdError, PlayerId};
use crate::matchmaking::ticket::TICKET_ID_PREFIX;
use crate::matchmaking::{TicketId, TicketIdError};
use crate::party::PartyId;

pub use service::{ATTEMPTS, PendingError, PendingRequests, UNRECORDED_STALE_AFTER_MS};

/// What a player waits for.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Pending {
    /// A queue placement (`sessionPlacementRequest`).
    Placement(PlacementId),
    /// A FlexMatch ticket (`startMatchmaking`); the ids this system makes start with
    /// `mm-`, which no placement id it makes does.
    Ticket(TicketId),
}

/// A stored slot that is neither kind of id.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PendingIdError {
    #[error(transparent)]
    Ticket(TicketIdError),
    #[error(transparent)]
    Placement(PlacementIdError),
}

impl Pending {
    /// The request whose id is `raw`, as the slot stores it (or a client names it): a
    /// ticket when it has the prefix every ticket id made here has, else a placement.
    pub fn from_stored(raw: &str) -> Result<Self, PendingIdError> {
        if raw.starts_with(TICKET_ID_PREFIX) {
            TicketId::parse(raw)
                .map(Self::Ticket)
                .map_err(PendingIdError::Ticket)
        } else {
            PlacementId::parse(raw)
                .map(Self::Placement)
                .map_err(PendingIdError::Placement)
        }
    }

    /// What the slot stores.
    pub fn stored(&self) -> &str {
        match self {
            Self::Placement(id) => id.as_str(),
            Self::Ticket(id) => id.as_str(),
        }
    }

    /// When it was asked for, for an id made here (both are time-ordered).
    pub fn requested_at(&self) -> Option<EpochMillis> {
        match self {
            Self::Placement(id) => id.requested_at(),
            Self::Ticket(id) => id.requested_at(),
        }
    }

    pub fn placement(&self) -> Option<&PlacementId> {
        match self {
            Self::Placement(id) => Some(id),
            Self::Ticket(_) => None,
        }
    }

    pub fn ticket(&self) -> Option<&TicketId> {
        match self {
            Self::Ticket(id) => Some(id),
            Self::Placement(_) => None,
        }
    }
}

impl Pending {
    /// `ticket` as it stands in a slot, when this system made it (a ticket started
    /// elsewhere on the configuration never takes a player's slot).
    pub fn of_ticket(ticket: &TicketId) -> Option<Self> {
        match Self::from_stored(ticket.as_str()) {
            Ok(pending @ Self::Ticket(_)) => Some(pending),
            _ => None,
        }
    }
}

impl From<PlacementId> for Pending {
    /// A placement id as a client sends it may name one of our tickets: read it as the
    /// slot would.
    fn from(id: PlacementId) -> Self {
        Self::from_stored(id.as_str()).unwrap_or(Self::Placement(id))
    }
}

impl fmt::Display for Pending {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.stored())
    }
}

/// What reserving a player's slot did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reservation {
    /// The request is the player's pending one now.
    Reserved,
    /// Another request is pending: this one.
    Taken(Pending),
    /// The player is in this party: only its leader asks, for every member at once.
    InParty(PartyId),
}

/// What reserving every member's slot of a party did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PartyReservation {
    /// The request is every member's pending one now.
    Reserved,
    /// The party changed (or its leader did) since it was read: nothing was written.
    PartyMoved,
    /// This member has a pending request already: nothing was written.
    Taken { player: PlayerId, pending: Pending },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn given_our_ticket_and_placement_ids_when_stored_and_read_back_then_each_is_its_own_kind() {
        let ticket = TicketId::new_at(1_795_323_600_000);
        let placement = PlacementId::new_at(1_795_323_600_000);
        let stored = Pending::Ticket(ticket.clone());
        assert_eq!(Pending::from_stored(stored.stored()), Ok(stored.clone()));
        assert_eq!(stored.requested_at(), Some(1_795_323_600_000));
        let stored = Pending::Placement(placement.clone());
        assert_eq!(Pending::from_stored(stored.stored()), Ok(stored));
        assert_eq!(
            Pending::from(PlacementId::parse(ticket.as_str()).unwrap()),
            Pending::Ticket(ticket)
        );
        assert!(Pending::from_stored("p/1").is_err());
    }
}
