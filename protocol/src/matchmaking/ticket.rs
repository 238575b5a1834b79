//! A matchmaking ticket's id and status, and the one rule every change of status
//! follows ([`TicketStatus::may_follow`]): FlexMatch events arrive at least once and in
//! no guaranteed order, so a duplicate, late or out-of-order event must never move a
//! ticket backwards, and the one legal step back (a proposed match fell through and the
//! ticket is SEARCHING again) must still be taken.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::domain::{EpochMillis, PlacementId};

/// GameLift's limit on a `TicketId` (StartMatchmaking).
pub const MAX_TICKET_ID_LEN: usize = 128;

/// What every ticket id this system makes starts with: it tells a ticket from a queue
/// placement wherever either may stand (a player's one pending request).
pub const TICKET_ID_PREFIX: &str = "mm-";

/// A matchmaking ticket's id: 1–128 characters of `A-Z a-z 0-9 - .` (GameLift's
/// `TicketId` pattern). The ids this system makes ([`TicketId::new_at`]) are
/// `mm-` and a time-ordered (v7) UUID, chosen by us so that the ticket is recorded
/// before GameLift is asked (its first event may arrive before StartMatchmaking answers).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, JsonSchema)]
#[serde(transparent)]
pub struct TicketId(
    #[schemars(length(min = 1, max = 128), regex(pattern = r"^[A-Za-z0-9.-]+$"))] String,
);

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TicketIdError {
    #[error("a ticket id must not be empty")]
    Empty,
    #[error("a ticket id is at most {MAX_TICKET_ID_LEN} characters, got {len}")]
    TooLong { len: usize },
    #[error("a ticket id may hold only A-Z a-z 0-9 - . ; found {found:?} at {position}")]
    ForbiddenCharacter { found: char, position: usize },
}

impl TicketId {
    pub fn parse(raw: impl Into<String>) -> Result<Self, TicketIdError> {
        let raw = raw.into();
        if raw.is_empty() {
            return Err(TicketIdError::Empty);
        }
        let len = raw.chars().count();
        if len > MAX_TICKET_ID_LEN {
            return Err(TicketIdError::TooLong { len });
        }
        let allowed = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '.';
        if let Some((position, found)) = raw.chars().enumerate().find(|(_, c)| !allowed(*c)) {
            return Err(TicketIdError::ForbiddenCharacter { found, position });
        }
        Ok(Self(raw))
    }

    /// A fresh ticket id requested at `now`: `mm-` and a v7 UUID (39 characters, never
    /// reused). The prefix tells it from a queue placement's id where both share a
    /// player's one pending-request slot (the server's `pending::Pending`).
    pub fn new_at(now: EpochMillis) -> Self {
        Self(format!(
            "{TICKET_ID_PREFIX}{}",
            PlacementId::new_at(now).as_str()
        ))
    }

    /// When an id made by [`Self::new_at`] was requested; `None` for any other id.
    pub fn requested_at(&self) -> Option<EpochMillis> {
        let uuid = self.0.strip_prefix(TICKET_ID_PREFIX)?;
        PlacementId::parse(uuid).ok()?.requested_at()
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for TicketId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for TicketId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(d)?;
        // Worded to follow the field's name: "`ticketId` is not a ticket id: ...".
        TicketId::parse(raw)
            .map_err(|e| serde::de::Error::custom(format!("is not a ticket id: {e}")))
    }
}

/// A ticket's status, as the client sees it (GameLift's `MatchmakingTicket` statuses).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum TicketStatus {
    /// Recorded and handed to GameLift; no event yet.
    Queued,
    Searching,
    /// A match is proposed and every player must `acceptMatch` it in time.
    RequiresAcceptance,
    /// The match is made; GameLift is placing its game session.
    Placing,
    Completed,
    TimedOut,
    Cancelled,
    Failed,
}

impl TicketStatus {
    pub const ALL: [Self; 8] = [
        Self::Queued,
        Self::Searching,
        Self::RequiresAcceptance,
        Self::Placing,
        Self::Completed,
        Self::TimedOut,
        Self::Cancelled,
        Self::Failed,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Queued => "QUEUED",
            Self::Searching => "SEARCHING",
            Self::RequiresAcceptance => "REQUIRES_ACCEPTANCE",
            Self::Placing => "PLACING",
            Self::Completed => "COMPLETED",
            Self::TimedOut => "TIMED_OUT",
            Self::Cancelled => "CANCELLED",
            Self::Failed => "FAILED",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|status| status.as_str() == raw)
    }

    /// COMPLETED, TIMED_OUT, CANCELLED or FAILED: nothing follows.
    pub fn is_final(self) -> bool {
        self.rank() == 4
    }

    /// How far along a ticket is; a status may only follow one of a lower rank (or the
    /// step back, see [`Self::may_follow`]).
    fn rank(self) -> u8 {
        match self {
            Self::Queued => 0,
            Self::Searching => 1,
            Self::RequiresAcceptance => 2,
            Self::Placing => 3,
            Self::Completed | Self::TimedOut | Self::Cancelled | Self::Failed => 4,
        }
    }

    /// Whether a ticket at `current` (reached by an event of `current_at`, for match
    /// `current_match`) moves to `self` on an event of `at` (for `match_id`):
    /// - a final status is never left; any other status may end (a ticket ends once,
    ///   whatever the order its events arrive in);
    /// - forward moves are taken unless the event is older than the one that brought
    ///   the ticket where it is (a late event);
    /// - the one step back: SEARCHING again after a proposed match fell through
    ///   (REQUIRES_ACCEPTANCE or PLACING), only on an event newer than the proposal;
    /// - a new proposal while one is awaiting acceptance (the SEARCHING in between was
    ///   lost or is late) is taken when it is newer and for another match;
    /// - the same status again is a duplicate: nothing happens (and nothing is pushed).
    pub fn may_follow(
        self,
        current: Self,
        current_at: EpochMillis,
        current_match: Option<&str>,
        at: EpochMillis,
        match_id: Option<&str>,
    ) -> bool {
        if current.is_final() {
            return false;
        }
        if self.is_final() {
            return true;
        }
        if at < current_at {
            return false;
        }
        match (current, self) {
            (Self::RequiresAcceptance | Self::Placing, Self::Searching) => at > current_at,
            (Self::RequiresAcceptance, Self::RequiresAcceptance) => {
                at > current_at && match_id.is_some() && match_id != current_match
            }
            _ => self.rank() > current.rank(),
        }
    }
}

impl fmt::Display for TicketStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use TicketStatus::*;

    const T: EpochMillis = 1_000;

    fn follows(next: TicketStatus, current: TicketStatus, at: EpochMillis) -> bool {
        next.may_follow(current, T, Some("m1"), at, Some("m1"))
    }

    #[test]
    fn given_a_made_ticket_id_then_it_is_time_ordered_and_prefixed() {
        let id = TicketId::new_at(4_102_444_800_123);
        assert!(id.as_str().starts_with("mm-"), "{id}");
        assert_eq!(id.as_str().len(), 39);
        assert_eq!(id.requested_at(), Some(4_102_444_800_123));
        assert!(TicketId::new_at(4_102_444_800_124) > id);
    }

    #[test]
    fn given_a_ticket_id_made_elsewhere_then_it_has_no_request_time() {
        let foreign = TicketId::parse("ticket-1.a").unwrap();
        assert_eq!(foreign.requested_at(), None);
    }

    #[test]
    fn given_bad_ticket_ids_then_each_is_refused_saying_why() {
        assert_eq!(TicketId::parse(""), Err(TicketIdError::Empty));
        assert_eq!(
            TicketId::parse("x".repeat(129)),
            Err(TicketIdError::TooLong { len: 129 })
        );
        assert!(matches!(
            TicketId::parse("a b"),
            Err(TicketIdError::ForbiddenCharacter { found: ' ', .. })
        ));
        assert!(TicketId::parse("x".repeat(128)).is_ok());
    }

    #[test]
    fn statuses_serialize_as_gamelift_spells_them() {
        for status in TicketStatus::ALL {
            let json = serde_json::to_value(status).unwrap();
            assert_eq!(json, serde_json::json!(status.as_str()));
            assert_eq!(TicketStatus::parse(status.as_str()), Some(status));
        }
    }

    #[test]
    fn given_a_ticket_moving_forward_then_each_later_event_is_taken() {
        assert!(follows(Searching, Queued, T));
        assert!(follows(RequiresAcceptance, Searching, T + 1));
        assert!(follows(Placing, RequiresAcceptance, T + 1));
        assert!(follows(Completed, Placing, T + 1));
        assert!(follows(Placing, Searching, T + 1), "no acceptance required");
    }

    #[test]
    fn given_a_duplicate_or_late_event_then_the_ticket_never_regresses() {
        assert!(!follows(Searching, Searching, T + 5), "duplicate");
        assert!(!follows(Placing, Placing, T), "duplicate");
        assert!(!follows(Searching, RequiresAcceptance, T), "same instant");
        assert!(!follows(Searching, RequiresAcceptance, T - 1), "late");
        assert!(!follows(Searching, Placing, T - 1), "late");
        assert!(!follows(Queued, Searching, T + 1), "never back to QUEUED");
        assert!(!follows(RequiresAcceptance, Placing, T + 1));
        assert!(
            !follows(RequiresAcceptance, RequiresAcceptance, T + 1),
            "the same match proposed again is a duplicate"
        );
    }

    #[test]
    fn given_a_rejected_match_then_searching_again_is_the_one_step_back() {
        assert!(follows(Searching, RequiresAcceptance, T + 1));
        assert!(follows(Searching, Placing, T + 1));
        assert!(RequiresAcceptance.may_follow(
            RequiresAcceptance,
            T,
            Some("m1"),
            T + 1,
            Some("m2")
        ));
    }

    #[test]
    fn given_a_final_status_then_nothing_follows_and_an_end_wins_in_any_order() {
        for end in [Completed, TimedOut, Cancelled, Failed] {
            for next in TicketStatus::ALL {
                assert!(!follows(next, end, T + 10), "{next} after {end}");
            }
            for current in [Queued, Searching, RequiresAcceptance, Placing] {
                assert!(
                    follows(end, current, T - 10),
                    "{end} after {current}, early"
                );
            }
        }
    }
}
