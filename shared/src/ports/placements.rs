//! The Placements table and the settlement of a placement's outcome.
//!
//! A placement record is written PENDING before GameLift is asked (the result event may
//! arrive before the request handler returns), and its status then moves only from
//! PENDING to one final state, once: every status write is conditional, so duplicate
//! and out-of-order events change nothing. The contract suites in the `contracts` crate
//! check both adapters give the same answers. The lifecycle is `crate::placement`'s.
//!
//! # The item
//!
//! One item per game session placement (and per matchmaking ticket: `super::tickets`).
//! Key: `placementId` (S). No index, no stream; TTL on `expireAt`. Item layout:
//! `adapters/aws/src/dynamodb/placement_item.rs`.
//!
//! | attribute | meaning |
//! |---|---|
//! | `placementId` | a time-ordered (v7) UUID, fresh for every request, also GameLift's placement id |
//! | `requesterId` | who asked (only they may cancel it) |
//! | `playerIds` (L) | who is placed: the recipients of a result that is not FULFILLED |
//! | `queue` | the GameLift queue asked |
//! | `status` | `PENDING`, then exactly once one of `FULFILLED`, `CANCELLED`, `TIMED_OUT`, `FAILED` |
//! | `createdAt`, `updatedAt` | epoch milliseconds |
//! | `gameSessionArn`, `ipAddress`, `dnsName`, `port`, `region` | the game session, once FULFILLED |
//! | `playerSessions` (M) | player id → player session id, once FULFILLED |
//! | `settledChunks` (N) | how many transactions of a large settlement are written |
//! | `expireAt` | requested + 7 days: long enough for `cancelPlacement` to tell "already ended" from "no such placement" |

use async_trait::async_trait;

use crate::domain::{EpochMillis, PlacementId};
use crate::placement::{PlacementRecord, Settlement};

use super::StoreError;

/// Reads of a placement.
#[async_trait]
pub trait PlacementReader: Send + Sync {
    /// One strongly consistent read.
    async fn get(&self, placement_id: &PlacementId) -> Result<Option<PlacementRecord>, StoreError>;
}

/// What the placement route writes of its own placement.
#[async_trait]
pub trait PlacementRecorder: Send + Sync {
    /// Records a new placement (one conditional write: a placement id is never reused,
    /// so an existing item is a fault, [`StoreError::Other`]).
    async fn create(&self, placement: &PlacementRecord) -> Result<(), StoreError>;

    /// PENDING → FAILED (GameLift refused the placement, so no event will settle it),
    /// only if it is still PENDING. Returns whether it did.
    async fn mark_failed(
        &self,
        placement_id: &PlacementId,
        at: EpochMillis,
    ) -> Result<bool, StoreError>;
}

/// Applies placement outcomes across the Placements, Players and Messages tables.
#[async_trait]
pub trait PlacementOutcomes: Send + Sync {
    /// All at once, only if the placement is still PENDING: its status (and game
    /// session) set; on each player, `pendingPlacementId` cleared if it is this
    /// placement and, when FULFILLED, `gameSession` set to their seat; each player's
    /// message appended to their inbox. `Ok(false)` when the placement is not PENDING (a duplicate or
    /// out-of-order event, or a placement this system never recorded): nothing written.
    async fn settle(&self, settlement: &Settlement) -> Result<bool, StoreError>;
}
