//! Matchmaking tickets (shared/src/ports/tickets.rs): the ticket item,
//! stored in the Placements table beside the placements they stand in for, a change of
//! its status with everything it writes, and what FlexMatch is asked.
//!
//! A ticket is recorded QUEUED before GameLift is asked (its first event may arrive
//! before StartMatchmaking answers). Each later change is read-decide-write: the
//! handler reads the ticket, decides with [`TicketStatus::may_follow`], and the store
//! writes only if the ticket is still as read.

use std::collections::BTreeMap;

use crate::domain::{EpochMillis, GameSession, PlayerId};
use crate::matchmaking::{Attributes, TicketId, TicketStatus};
use crate::messaging::NewMessage;
use crate::placement::{PLACEMENT_RETENTION_SECONDS, PlacedGameSession};

/// How long a ticket record is kept (DynamoDB TTL): as long as a placement's.
pub const TICKET_RETENTION_SECONDS: i64 = PLACEMENT_RETENTION_SECONDS;

/// The most players one ticket holds: a party's size is well below it, and a change
/// stays one DynamoDB transaction (3 writes per player and the ticket's).
pub const MAX_TICKET_PLAYERS: usize = 32;

/// A ticket item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TicketRecord {
    pub ticket_id: TicketId,
    /// Who asked for it (a solo player, or the party's leader).
    pub requester_id: PlayerId,
    /// Everyone on the ticket, the requester first.
    pub player_ids: Vec<PlayerId>,
    pub configuration: String,
    pub status: TicketStatus,
    /// When the event that set `status` was emitted (the request's time for QUEUED):
    /// what a later event is ordered against.
    pub status_at: EpochMillis,
    /// The match the ticket is in (proposed or made), if any.
    pub match_id: Option<String>,
    pub created_at: EpochMillis,
    pub updated_at: EpochMillis,
    /// Set once COMPLETED.
    pub game_session: Option<PlacedGameSession>,
    /// Set once COMPLETED: player id → player session id.
    pub player_sessions: BTreeMap<PlayerId, String>,
    /// Retention (DynamoDB TTL, epoch seconds).
    pub expire_at_secs: i64,
}

impl TicketRecord {
    /// A new QUEUED ticket asked for by `requester` for themselves and `others` (the
    /// rest of their party).
    pub fn queued(
        ticket_id: TicketId,
        requester: PlayerId,
        others: Vec<PlayerId>,
        configuration: impl Into<String>,
        now: EpochMillis,
    ) -> Self {
        let mut player_ids = vec![requester.clone()];
        player_ids.extend(others.into_iter().filter(|p| *p != requester));
        Self {
            ticket_id,
            requester_id: requester,
            player_ids,
            configuration: configuration.into(),
            status: TicketStatus::Queued,
            status_at: now,
            match_id: None,
            created_at: now,
            updated_at: now,
            game_session: None,
            player_sessions: BTreeMap::new(),
            expire_at_secs: now / 1000 + TICKET_RETENTION_SECONDS,
        }
    }

    /// Whether `player` is on the ticket.
    pub fn holds(&self, player: &PlayerId) -> bool {
        self.player_ids.contains(player)
    }
}

/// One player's part of a change: their message and, once COMPLETED, their seat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TicketPlayerChange {
    pub player_id: PlayerId,
    /// COMPLETED: the player's seat, stored on their item as a placement's is (what
    /// `resume` reports and `rejoinSession` uses).
    pub seat: Option<GameSession>,
    /// The `matchmaking` frame appended to the player's inbox; `None` pushes nothing.
    pub message: Option<NewMessage>,
}

/// A change of a ticket's status, with everything it writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TicketChange {
    pub ticket_id: TicketId,
    /// The status and its time as read: the write happens only if they are unchanged.
    pub from: TicketStatus,
    pub from_at: EpochMillis,
    pub to: TicketStatus,
    pub to_at: EpochMillis,
    pub match_id: Option<String>,
    /// COMPLETED: the game session and each player's player session.
    pub game_session: Option<PlacedGameSession>,
    pub player_sessions: BTreeMap<PlayerId, String>,
    /// Each player of the ticket, once. When `to` is final, each player's pending
    /// request is cleared if it is still this ticket.
    pub players: Vec<TicketPlayerChange>,
    /// The write's own time.
    pub now: EpochMillis,
}

/// One player of a ticket: a solo player, or each member of a party (the leader first).
#[derive(Clone, Debug, PartialEq)]
pub struct MatchmakingPlayer {
    pub player_id: PlayerId,
    /// The player's own attributes; an attribute left out takes the rule set's default.
    pub attributes: Attributes,
    /// Region → milliseconds, as the player's client measured them.
    pub latencies: Vec<(String, u32)>,
}

/// A request for a match: one ticket for every player in it.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchmakingRequest {
    /// Chosen by us and recorded before GameLift is asked; never reused.
    pub ticket_id: TicketId,
    /// The matchmaking configuration's name.
    pub configuration: String,
    /// At least one; a party's players are matched together, on one team or more as
    /// the rule set decides.
    pub players: Vec<MatchmakingPlayer>,
}

/// Whether a function's ticket changes push frames to the ticket's players: the events
/// do, the matchmaking route's refusals (a ticket GameLift never started) do not. What
/// its role is granted (template.yaml), so its adapter refuses a change beyond it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TicketPushes {
    /// No frame is appended: the Messages table is not written.
    Never,
    /// Each player's `matchmaking` frame appended with the change.
    ToPlayers,
}

impl TicketChange {
    /// Whether it appends a frame to any player's inbox.
    pub fn pushes(&self) -> bool {
        self.players.iter().any(|player| player.message.is_some())
    }
}
