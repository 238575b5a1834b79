//! Matchmaking tickets, stored in the Placements table beside the placements they stand
//! in for, and every change of a ticket's status applied at once with what it changes.
//!
//! A ticket is recorded QUEUED before GameLift is asked (its first event may arrive
//! before StartMatchmaking answers). Each later change is read-decide-write: the
//! handler reads the ticket, decides with [`TicketStatus::may_follow`](crate::matchmaking::TicketStatus::may_follow), and
//! [`TicketChanges::advance`] writes only if the ticket is still as read (one
//! conditional write, with the players' inbox messages in the same transaction), so a
//! duplicate or racing event writes, and pushes, nothing.
//!
//! # The item
//!
//! A ticket is an item of the Placements table, keyed by its ticket id in `placementId`
//! and marked `kind = ticket` (layout: `adapters/aws/src/dynamodb/ticket_item.rs`). Why
//! this table rather than one of its own: a ticket is the matchmaking form of a
//! placement (one request, recorded before GameLift is asked, moved by GameLift's
//! events, ended once, kept 7 days), read only by its id, and written in the same
//! transactions with Players and Messages; a table of its own would add a table, a
//! variable and IAM grants to three functions for nothing a key prefix does not already
//! give. Ticket ids are ours: `mm-` and a time-ordered (v7) UUID (`TicketId::new_at`), so
//! the record exists before StartMatchmaking and an id tells when it was asked for; `mm-`
//! keeps them apart from placement ids (plain UUIDs).
//!
//! | attribute | meaning |
//! |---|---|
//! | `placementId` | the ticket id (`mm-…`), also GameLift's `TicketId` |
//! | `kind` | `ticket` |
//! | `requesterId`, `playerIds` (L) | who started it (only they may stop it), and everyone on it |
//! | `configuration` | the FlexMatch configuration asked |
//! | `status`, `statusAt` | `QUEUED`, `SEARCHING`, `REQUIRES_ACCEPTANCE`, `PLACING`, then one of `COMPLETED`, `TIMED_OUT`, `CANCELLED`, `FAILED`; and the time of the event that set it |
//! | `matchId` | the match proposed or made |
//! | `gameSessionArn`, …, `playerSessions` (M) | as a placement's, once COMPLETED |
//! | `expireAt` | requested + 7 days |
//!
//! A live ticket takes each of its players' one pending-request slot, the Players item's
//! `pendingPlacementId` (`crate::pending`), with the same conditional write a placement
//! uses. The slot is cleared in the transaction that ends the ticket.
//!
//! # Changes
//!
//! `on-matchmaking-event` reads the ticket (1 GetItem), decides whether the event moves
//! it, and writes one `TransactWriteItems`: the ticket, conditional on `status` and
//! `statusAt` being as read, and each player's `matchmaking` message (and, when it ends,
//! each player's slot cleared and seat stored). The rule: a final status is never left
//! and a ticket may end from any other; a move forward is taken unless the event is
//! older than the one that set the current status; the one step back, `SEARCHING` after
//! a proposed match fell through, is taken only on an event newer than the proposal; the
//! same status again is a duplicate. So a duplicate, late or out-of-order event writes
//! and pushes nothing, and two racing events cannot both apply: the loser's condition
//! fails and it is decided again on a fresh read. `PLACING` pushes nothing (it follows an
//! acceptance the players just gave, or comes right before `COMPLETED`).

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
