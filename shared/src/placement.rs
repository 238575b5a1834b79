//! Queue placements: the Placements item (its attributes: `crate::ports::placements`),
//! what a settlement writes, and what GameLift is asked. A placement record is written
//! PENDING before GameLift is asked (the result event may arrive before the request
//! handler returns), and its status then moves only from PENDING to one final state,
//! once.
//!
//! ```text
//! [*]     --> PENDING    sessionPlacementRequest records it, then calls StartGameSessionPlacement
//! PENDING --> FULFILLED  PlacementFulfilled event
//! PENDING --> CANCELLED  PlacementCancelled event, after cancelPlacement
//! PENDING --> TIMED_OUT  PlacementTimedOut event
//! PENDING --> FAILED     PlacementFailed event, or GameLift refused the request
//! ```
//!
//! - Each arrow out of `PENDING` is a write conditional on `status = PENDING`: the first
//!   event to arrive settles the placement, and a duplicate or out-of-order event (SNS
//!   and EventBridge both deliver at least once, and may both be enabled) writes nothing.
//! - The settlement writes, in one transaction, the placement's status, each player's
//!   `pendingPlacementId` removal (and seat, when FULFILLED), and each player's
//!   `placement` message, appended at the next `seq` of their inbox (read just before; a
//!   lost race for a seq retries the transaction). A large one takes one transaction per
//!   chunk of players, counted by `settledChunks`, so a retry resumes at the first
//!   missing chunk (`adapters/aws/src/dynamodb/placement_store.rs`).
//! - When GameLift refuses the request, the request handler marks the placement `FAILED`
//!   first and only then clears the player's `pendingPlacementId`, so a late event for
//!   it can never clear a newer placement. If GameLift's answer was lost (timeout, 5xx),
//!   the placement is also stopped, best effort.
//! - On the player's side, `pendingPlacementId` is set only if absent, so a player has
//!   at most one pending placement (`crate::pending`). One left behind by a fault (its
//!   record already final, or never recorded a minute after it was asked for) is
//!   cleared by the next request.

use std::collections::BTreeMap;

use crate::domain::{
    ConnectionDetails, EpochMillis, GameSession, PlacementId, PlacementStatus, PlayerId,
};
use crate::messaging::NewMessage;

/// How long a placement record is kept (DynamoDB TTL): long enough for
/// `cancelPlacement` to tell "already ended" from "no such placement".
pub const PLACEMENT_RETENTION_SECONDS: i64 = 7 * 24 * 3600;

/// The game session a placement created: what every placed player shares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlacedGameSession {
    pub game_session_arn: String,
    pub ip_address: String,
    pub dns_name: String,
    pub port: u16,
    pub region: String,
}

impl PlacedGameSession {
    /// One player's seat in it.
    pub fn seat(&self, player_session_id: impl Into<String>) -> GameSession {
        GameSession {
            game_session_arn: self.game_session_arn.clone(),
            ip_address: self.ip_address.clone(),
            dns_name: self.dns_name.clone(),
            port: self.port,
            region: self.region.clone(),
            player_session_id: player_session_id.into(),
            // Where to connect is decided after placement (GetPlayerConnectionDetails).
            connection: None,
            connection_unavailable: false,
        }
    }
}

/// A Placements item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlacementRecord {
    pub placement_id: PlacementId,
    /// Who asked for it (only they may cancel it).
    pub requester_id: PlayerId,
    /// Who is placed: the recipients of the result when it is not FULFILLED.
    pub player_ids: Vec<PlayerId>,
    pub queue: String,
    pub status: PlacementStatus,
    pub created_at: EpochMillis,
    pub updated_at: EpochMillis,
    /// Set once FULFILLED.
    pub game_session: Option<PlacedGameSession>,
    /// Set once FULFILLED: player id → player session id.
    pub player_sessions: BTreeMap<PlayerId, String>,
    /// Retention (DynamoDB TTL, epoch seconds).
    pub expire_at_secs: i64,
}

impl PlacementRecord {
    /// A new PENDING placement requested by `requester` for themselves.
    pub fn pending(
        placement_id: PlacementId,
        requester: PlayerId,
        queue: impl Into<String>,
        now: EpochMillis,
    ) -> Self {
        Self {
            placement_id,
            player_ids: vec![requester.clone()],
            requester_id: requester,
            queue: queue.into(),
            status: PlacementStatus::Pending,
            created_at: now,
            updated_at: now,
            game_session: None,
            player_sessions: BTreeMap::new(),
            expire_at_secs: now / 1000 + PLACEMENT_RETENTION_SECONDS,
        }
    }
}

/// One player's part of a settlement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SettledPlayer {
    pub player_id: PlayerId,
    /// FULFILLED: the player's own player session in the game session.
    pub player_session_id: Option<String>,
    /// FULFILLED: where the player connects, as their stored seat keeps it (so that
    /// `resume` answers with it without asking GameLift again).
    pub connection: SeatConnection,
    /// The `placement` message appended to this player's inbox with the settlement.
    pub message: NewMessage,
}

/// Where a seated player connects, as a seat carries it ([`GameSession::connection`] and
/// [`GameSession::connection_unavailable`]); the default is a seat without either.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SeatConnection {
    pub details: Option<ConnectionDetails>,
    pub unavailable: bool,
}

impl SeatConnection {
    /// What `seat` carries.
    pub fn of(seat: &GameSession) -> Self {
        Self {
            details: seat.connection.clone(),
            unavailable: seat.connection_unavailable,
        }
    }
}

/// A placement's final outcome, with everything it changes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settlement {
    pub placement_id: PlacementId,
    /// A final status.
    pub status: PlacementStatus,
    /// FULFILLED: the game session created.
    pub game_session: Option<PlacedGameSession>,
    /// Each distinct player concerned, once.
    pub players: Vec<SettledPlayer>,
    pub at: EpochMillis,
}

impl Settlement {
    /// `player`'s seat when FULFILLED.
    pub fn seat_of(&self, player: &SettledPlayer) -> Option<GameSession> {
        let session = self.game_session.as_ref()?;
        let seat = session.seat(player.player_session_id.clone()?);
        Some(GameSession {
            connection: player.connection.details.clone(),
            connection_unavailable: player.connection.unavailable,
            ..seat
        })
    }
}

/// A request for a new game session through a queue.
#[derive(Clone, Debug, PartialEq)]
pub struct PlacementRequest {
    /// Fresh for every request, never reused.
    pub placement_id: PlacementId,
    pub queue: String,
    /// `MaximumPlayerSessionCount` of the game session created.
    pub max_players: u32,
    pub player_id: PlayerId,
    /// Up to 2048 characters, handed to the game server.
    pub player_data: Option<String>,
    /// Region → latency in milliseconds, as the client measured it.
    pub latencies: Vec<(String, u32)>,
    /// The rest of the requester's party, placed in the same game session, each with
    /// their own latencies (empty for a player on their own).
    pub party: Vec<PlacementPlayer>,
}

/// A party member placed with the requester.
#[derive(Clone, Debug, PartialEq)]
pub struct PlacementPlayer {
    pub player_id: PlayerId,
    pub latencies: Vec<(String, u32)>,
}

impl PlacementRequest {
    /// Every player placed, the requester first, with their latencies.
    pub fn players(&self) -> Vec<(&PlayerId, &[(String, u32)])> {
        std::iter::once((&self.player_id, self.latencies.as_slice()))
            .chain(
                self.party
                    .iter()
                    .map(|member| (&member.player_id, member.latencies.as_slice())),
            )
            .collect()
    }
}

/// A player's seat in a game session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerSession {
    pub player_session_id: String,
    pub game_session_arn: String,
    pub ip_address: String,
    pub dns_name: String,
    pub port: u16,
}
