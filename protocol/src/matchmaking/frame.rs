//! What the `matchmaking` frame carries besides its ticket and status (README: Client
//! protocol, Matchmaking). Plain serde types: no SDK types in the protocol.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::domain::{GameSession, PlayerId};

/// The fields a `matchmaking` frame carries for its status; each present only where it
/// applies.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MatchmakingDetail {
    /// REQUIRES_ACCEPTANCE: seconds left to `acceptMatch`.
    pub acceptance_timeout: Option<u32>,
    /// REQUIRES_ACCEPTANCE: the other players of the proposed match.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub players: Vec<PlayerId>,
    /// COMPLETED: this player's own seat in the match's game session.
    pub game_session: Option<MatchedSeat>,
    /// FAILED, TIMED_OUT, CANCELLED: why, as GameLift said it.
    pub reason: Option<String>,
}

/// A player's seat in a game made by matchmaking: the game session, the player's own
/// player session, the match and the player's team.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MatchedSeat {
    #[serde(flatten)]
    pub seat: GameSession,
    pub match_id: String,
    pub team: Option<String>,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::frames::ServerFrame;
    use crate::matchmaking::{TicketId, TicketStatus};

    fn frame(status: TicketStatus, detail: MatchmakingDetail) -> ServerFrame {
        ServerFrame::Matchmaking {
            ticket_id: TicketId::parse("mm-1").unwrap(),
            status,
            detail: Box::new(detail),
        }
    }

    #[test]
    fn given_a_searching_update_then_the_frame_has_only_ticket_and_status() {
        assert_eq!(
            serde_json::to_value(frame(TicketStatus::Searching, MatchmakingDetail::default()))
                .unwrap(),
            json!({"type": "matchmaking", "ticketId": "mm-1", "status": "SEARCHING"})
        );
    }

    #[test]
    fn given_acceptance_required_then_the_timeout_and_other_players_are_sent() {
        let detail = MatchmakingDetail {
            acceptance_timeout: Some(30),
            players: vec![PlayerId::parse("bob").unwrap()],
            ..MatchmakingDetail::default()
        };
        assert_eq!(
            serde_json::to_value(frame(TicketStatus::RequiresAcceptance, detail)).unwrap(),
            json!({"type": "matchmaking", "ticketId": "mm-1", "status": "REQUIRES_ACCEPTANCE",
                   "acceptanceTimeout": 30, "players": ["bob"]})
        );
    }

    #[test]
    fn given_a_completed_update_then_the_players_own_seat_round_trips() {
        let detail = MatchmakingDetail {
            game_session: Some(MatchedSeat {
                seat: crate::fixtures::seat(),
                match_id: "match-1".into(),
                team: Some("red".into()),
            }),
            ..MatchmakingDetail::default()
        };
        let completed = frame(TicketStatus::Completed, detail);
        assert_eq!(
            serde_json::to_value(&completed).unwrap(),
            json!({"type": "matchmaking", "ticketId": "mm-1", "status": "COMPLETED",
                   "gameSession": {"gameSessionArn": "arn:gs", "ipAddress": "10.0.0.1",
                   "dnsName": "host.example", "port": 7777, "region": "us-east-1",
                   "playerSessionId": "psess-1", "matchId": "match-1", "team": "red"}})
        );
        let back: ServerFrame = serde_json::from_str(&completed.to_json()).unwrap();
        assert_eq!(back, completed);
        let failed = frame(
            TicketStatus::Failed,
            MatchmakingDetail {
                reason: Some("no".into()),
                ..MatchmakingDetail::default()
            },
        );
        assert_eq!(
            serde_json::to_value(&failed).unwrap(),
            json!({"type": "matchmaking", "ticketId": "mm-1", "status": "FAILED", "reason": "no"})
        );
    }
}
