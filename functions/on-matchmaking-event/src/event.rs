//! The FlexMatch events GameLift sends for a matchmaking configuration ("GameLift
//! Matchmaking Event" on EventBridge, or the same JSON as the `Message` of an SNS record
//! when the configuration has a notification topic), read into [`MatchmakingEvent`]s.
//! What cannot be read is a [`MalformedMatchmakingEvent`], per event, so the other
//! events of a batch are still applied.
//!
//! Shapes, as GameLift documents them: `detail.type`, `detail.tickets[]` (each with
//! `ticketId` and `players[]` of `playerId`, `team`, `playerSessionId` (succeeded),
//! `accepted` (AcceptMatch)), `detail.matchId`, `detail.acceptanceRequired` and
//! `detail.acceptanceTimeout` (PotentialMatchCreated), `detail.acceptance` (`Accepted`,
//! `Rejected` or `TimedOut`: AcceptMatchCompleted), `detail.gameSessionInfo` (with
//! `gameSessionArn`, `ipAddress`, `dnsName`, `port` and `players[]` once succeeded),
//! `detail.reason` and `detail.message` (ended).

use edge::gamelift_events::{self, EnvelopeError, GameLiftEvent};
use serde::Deserialize;
use serde_json::Value;

use shared::domain::{EpochMillis, PlayerId};
use shared::matchmaking::{TicketId, TicketIdError, TicketStatus};
use shared::placement::PlacedGameSession;

/// `detail-type` of FlexMatch events.
pub const MATCHMAKING_DETAIL_TYPE: &str = "GameLift Matchmaking Event";

/// Why an event was skipped.
#[derive(Debug, thiserror::Error)]
pub enum MalformedMatchmakingEvent {
    /// Not a FlexMatch event in an SNS or EventBridge envelope.
    #[error(transparent)]
    Envelope(#[from] EnvelopeError),
    #[error("the event has no `time`")]
    NoTime,
    #[error("the matchmaking event's detail is malformed")]
    Detail(#[source] serde_json::Error),
    #[error("unknown matchmaking event type {0:?}")]
    UnknownType(String),
    #[error("ticket id {raw:?} is not a ticket id")]
    TicketId {
        raw: String,
        #[source]
        source: TicketIdError,
    },
    #[error("{kind} event: {reason}")]
    Invalid { kind: String, reason: String },
}

/// How a proposed match's acceptance ended (AcceptMatchCompleted).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Acceptance {
    Accepted,
    Rejected,
    TimedOut,
}

/// What happened, per the event's `detail.type`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MatchmakingEventKind {
    /// MatchmakingSearching: new, or back after a proposed match fell through.
    Searching,
    /// PotentialMatchCreated.
    PotentialMatchCreated {
        acceptance_required: bool,
        /// Seconds, when acceptance is required.
        acceptance_timeout: Option<u32>,
    },
    /// AcceptMatch: some players answered (`accepted` on each); no status change.
    AcceptMatch,
    /// AcceptMatchCompleted.
    AcceptMatchCompleted { acceptance: Acceptance },
    /// MatchmakingSucceeded: the game session every player of the match shares.
    Succeeded { game_session: PlacedGameSession },
    /// MatchmakingTimedOut, MatchmakingCancelled, MatchmakingFailed: `status` says
    /// which; `reason` is GameLift's message (or reason code).
    Ended {
        status: TicketStatus,
        reason: Option<String>,
    },
}

/// A player of an event's ticket.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventPlayer {
    pub player_id: PlayerId,
    pub team: Option<String>,
    /// MatchmakingSucceeded: the player's own player session.
    pub player_session_id: Option<String>,
    /// AcceptMatch: the player's answer, once given.
    pub accepted: Option<bool>,
}

/// A ticket an event is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventTicket {
    pub ticket_id: TicketId,
    pub players: Vec<EventPlayer>,
}

/// One FlexMatch event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchmakingEvent {
    /// The EventBridge event id (what logs name).
    pub id: String,
    /// When GameLift emitted it: orders a ticket's events.
    pub at: EpochMillis,
    /// `resources[0]`: the matchmaking configuration's ARN.
    pub configuration_arn: Option<String>,
    pub match_id: Option<String>,
    pub kind: MatchmakingEventKind,
    pub tickets: Vec<EventTicket>,
}

impl MatchmakingEvent {
    /// The status the event moves each of its tickets to; `None` when it moves none
    /// (AcceptMatch, and an acceptance that failed: MatchmakingSearching or
    /// MatchmakingCancelled follows per ticket).
    pub fn status(&self) -> Option<TicketStatus> {
        match &self.kind {
            MatchmakingEventKind::Searching => Some(TicketStatus::Searching),
            MatchmakingEventKind::PotentialMatchCreated {
                acceptance_required: true,
                ..
            } => Some(TicketStatus::RequiresAcceptance),
            MatchmakingEventKind::PotentialMatchCreated { .. } => Some(TicketStatus::Placing),
            MatchmakingEventKind::AcceptMatch => None,
            MatchmakingEventKind::AcceptMatchCompleted {
                acceptance: Acceptance::Accepted,
            } => Some(TicketStatus::Placing),
            MatchmakingEventKind::AcceptMatchCompleted { .. } => None,
            MatchmakingEventKind::Succeeded { .. } => Some(TicketStatus::Completed),
            MatchmakingEventKind::Ended { status, .. } => Some(*status),
        }
    }

    /// Every player of the event, each once, in ticket order.
    pub fn players(&self) -> impl Iterator<Item = &EventPlayer> {
        self.tickets.iter().flat_map(|ticket| ticket.players.iter())
    }
}

/// Reads an invocation's payload: an SNS event (one FlexMatch event per record) or
/// one EventBridge event. Each event read, or why not.
pub fn read_payload(payload: &Value) -> Vec<Result<MatchmakingEvent, MalformedMatchmakingEvent>> {
    gamelift_events::read(payload, MATCHMAKING_DETAIL_TYPE)
        .into_iter()
        .map(|event| MatchmakingEvent::try_from(event?))
        .collect()
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawDetail {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    tickets: Vec<RawTicket>,
    #[serde(default)]
    match_id: Option<String>,
    #[serde(default)]
    acceptance_required: Option<bool>,
    #[serde(default)]
    acceptance_timeout: Option<u32>,
    #[serde(default)]
    acceptance: Option<String>,
    #[serde(default)]
    game_session_info: Option<RawGameSessionInfo>,
    #[serde(default)]
    reason: Option<String>,
    #[serde(default)]
    message: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawTicket {
    ticket_id: String,
    #[serde(default)]
    players: Vec<RawPlayer>,
}

#[derive(Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawPlayer {
    player_id: String,
    #[serde(default)]
    team: Option<String>,
    #[serde(default)]
    player_session_id: Option<String>,
    #[serde(default)]
    accepted: Option<bool>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawGameSessionInfo {
    #[serde(default)]
    game_session_arn: Option<String>,
    #[serde(default)]
    ip_address: Option<String>,
    #[serde(default)]
    dns_name: Option<String>,
    /// A number in the documented examples; a string is read too.
    #[serde(default)]
    port: Option<Value>,
    #[serde(default)]
    players: Vec<RawPlayer>,
}

impl TryFrom<GameLiftEvent> for MatchmakingEvent {
    type Error = MalformedMatchmakingEvent;

    fn try_from(event: GameLiftEvent) -> Result<Self, Self::Error> {
        let at = event
            .time
            .map(|time| time.timestamp_millis())
            .ok_or(MalformedMatchmakingEvent::NoTime)?;
        let detail =
            RawDetail::deserialize(&event.detail).map_err(MalformedMatchmakingEvent::Detail)?;
        let invalid = |reason: String| MalformedMatchmakingEvent::Invalid {
            kind: detail.kind.clone(),
            reason,
        };
        let session_players = detail
            .game_session_info
            .as_ref()
            .map(|info| info.players.as_slice())
            .unwrap_or_default();
        let tickets = detail
            .tickets
            .iter()
            .map(|ticket| read_ticket(ticket, session_players))
            .collect::<Result<Vec<_>, _>>()?;
        let reason = detail.message.clone().or(detail.reason.clone());
        let kind = match detail.kind.as_str() {
            "MatchmakingSearching" => MatchmakingEventKind::Searching,
            "PotentialMatchCreated" => MatchmakingEventKind::PotentialMatchCreated {
                acceptance_required: detail.acceptance_required.unwrap_or(false),
                acceptance_timeout: detail.acceptance_timeout,
            },
            "AcceptMatch" => MatchmakingEventKind::AcceptMatch,
            "AcceptMatchCompleted" => MatchmakingEventKind::AcceptMatchCompleted {
                acceptance: match detail.acceptance.as_deref() {
                    Some("Accepted") => Acceptance::Accepted,
                    Some("Rejected") => Acceptance::Rejected,
                    Some("TimedOut") => Acceptance::TimedOut,
                    other => return Err(invalid(format!("unknown acceptance {other:?}"))),
                },
            },
            "MatchmakingSucceeded" => MatchmakingEventKind::Succeeded {
                game_session: game_session(
                    detail.game_session_info.as_ref(),
                    event.region.as_deref(),
                )
                .map_err(invalid)?,
            },
            "MatchmakingTimedOut" => MatchmakingEventKind::Ended {
                status: TicketStatus::TimedOut,
                reason,
            },
            "MatchmakingCancelled" => MatchmakingEventKind::Ended {
                status: TicketStatus::Cancelled,
                reason,
            },
            "MatchmakingFailed" => MatchmakingEventKind::Ended {
                status: TicketStatus::Failed,
                reason,
            },
            other => return Err(MalformedMatchmakingEvent::UnknownType(other.to_owned())),
        };
        if tickets.is_empty() {
            return Err(invalid("it names no ticket".to_owned()));
        }
        Ok(Self {
            id: event.id.unwrap_or_default(),
            at,
            configuration_arn: event.resources.and_then(|r| r.into_iter().next()),
            match_id: detail.match_id,
            kind,
            tickets,
        })
    }
}

fn read_ticket(
    ticket: &RawTicket,
    session_players: &[RawPlayer],
) -> Result<EventTicket, MalformedMatchmakingEvent> {
    let ticket_id = TicketId::parse(ticket.ticket_id.as_str()).map_err(|source| {
        MalformedMatchmakingEvent::TicketId {
            raw: ticket.ticket_id.clone(),
            source,
        }
    })?;
    let players = ticket
        .players
        .iter()
        .map(|player| {
            let player_id = PlayerId::parse(player.player_id.as_str()).map_err(|e| {
                MalformedMatchmakingEvent::Invalid {
                    kind: "ticket".to_owned(),
                    reason: format!(
                        "player id {:?} of ticket {ticket_id}: {e}",
                        player.player_id
                    ),
                }
            })?;
            // The game session's list has what the ticket's may leave out.
            let seated = session_players
                .iter()
                .find(|p| p.player_id == player.player_id);
            Ok(EventPlayer {
                player_id,
                team: player
                    .team
                    .clone()
                    .or_else(|| seated.and_then(|p| p.team.clone())),
                player_session_id: player
                    .player_session_id
                    .clone()
                    .or_else(|| seated.and_then(|p| p.player_session_id.clone())),
                accepted: player.accepted,
            })
        })
        .collect::<Result<Vec<_>, MalformedMatchmakingEvent>>()?;
    Ok(EventTicket { ticket_id, players })
}

/// The game session of a MatchmakingSucceeded: its ARN and port are required; the
/// region is the ARN's (a multi-location fleet places anywhere), else the event's.
fn game_session(
    info: Option<&RawGameSessionInfo>,
    event_region: Option<&str>,
) -> Result<PlacedGameSession, String> {
    let info = info.ok_or("no gameSessionInfo")?;
    let arn = info
        .game_session_arn
        .clone()
        .filter(|arn| !arn.is_empty())
        .ok_or("no gameSessionInfo.gameSessionArn")?;
    let port = match &info.port {
        Some(Value::Number(n)) => n.as_u64().and_then(|p| u16::try_from(p).ok()),
        Some(Value::String(s)) => s.parse().ok(),
        _ => None,
    }
    .ok_or("no valid gameSessionInfo.port")?;
    let region = arn
        .split(':')
        .nth(3)
        .filter(|r| !r.is_empty())
        .or(event_region)
        .unwrap_or_default()
        .to_owned();
    Ok(PlacedGameSession {
        game_session_arn: arn,
        ip_address: info.ip_address.clone().unwrap_or_default(),
        dns_name: info.dns_name.clone().unwrap_or_default(),
        port,
        region,
    })
}

#[cfg(test)]
mod tests;
