//! Matchmaking tickets (docs/architecture.md#matchmaking-tickets), stored in the
//! Placements table beside the placements they stand in for, and every change of a
//! ticket's status applied at once with what it changes.
//!
//! A ticket is recorded QUEUED before GameLift is asked (its first event may arrive
//! before StartMatchmaking answers). Each later change is read-decide-write: the
//! handler reads the ticket, decides with [`TicketStatus::may_follow`], and
//! [`TicketStore::advance`] writes only if the ticket is still as read (one
//! conditional write, with the players' inbox messages in the same transaction), so a
//! duplicate or racing event writes, and pushes, nothing.

use async_trait::async_trait;

use crate::matchmaking::TicketId;
#[allow(unused_imports)] // Named in the docs.
use crate::matchmaking::tickets::TicketPushes;
use crate::matchmaking::tickets::{TicketChange, TicketRecord};

use super::StoreError;

/// Reads of a ticket.
#[async_trait]
pub trait TicketReader: Send + Sync {
    /// One strongly consistent read.
    async fn get(&self, ticket_id: &TicketId) -> Result<Option<TicketRecord>, StoreError>;
}

/// A new ticket, recorded by the route that starts it.
#[async_trait]
pub trait TicketRecorder: Send + Sync {
    /// Records a new ticket (one conditional write: an existing item is a fault).
    async fn create(&self, ticket: &TicketRecord) -> Result<(), StoreError>;
}

/// Changes of a ticket's status. An AWS adapter is built for its function's
/// [`TicketPushes`]: one that may not push refuses a change carrying messages before
/// writing anything.
#[async_trait]
pub trait TicketChanges: Send + Sync {
    /// Applies `change` only if the ticket's status and its time are still `from` and
    /// `from_at`: the ticket's fields, each player's message appended to their inbox,
    /// and (final) each player's pending request cleared and (COMPLETED) their seat set,
    /// all at once. `Ok(false)` when the ticket changed meanwhile, or does not exist:
    /// nothing written.
    async fn advance(&self, change: &TicketChange) -> Result<bool, StoreError>;
}
