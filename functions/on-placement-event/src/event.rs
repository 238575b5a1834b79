//! Reading an invocation's payload: the SNS event of the queue's notification topic
//! (each record's `Message` is a GameLift event as JSON text) or an EventBridge event,
//! taken out of its envelope by `edge::gamelift_events`, each GameLift event parsed into
//! a [`PlacementEvent`]. What cannot be read is a [`MalformedEvent`], reported per record
//! so that the others are still settled.

use std::collections::HashSet;

use edge::gamelift_events::{self, EnvelopeError, GameLiftEvent};
use serde::Deserialize;
use serde_json::Value;
use shared::domain::{PlacementId, PlacementIdError, PlacementStatus, PlayerId};
use shared::placement::PlacedGameSession;
use tracing::warn;

/// `detail-type` of GameLift queue placement events.
pub const PLACEMENT_DETAIL_TYPE: &str = "GameLift Queue Placement Event";

/// Why an event was skipped.
#[derive(Debug, thiserror::Error)]
pub enum MalformedEvent {
    /// Not a GameLift queue placement event in an SNS or EventBridge envelope.
    #[error(transparent)]
    Envelope(#[from] EnvelopeError),
    #[error("the placement event's detail is malformed")]
    Detail(#[source] serde_json::Error),
    #[error("unknown placement event type {0:?}")]
    UnknownType(String),
    #[error("the placement event's placementId {raw:?} is not a placement id")]
    PlacementId {
        raw: String,
        #[source]
        source: PlacementIdError,
    },
    #[error("placement event {placement_id}: {reason}")]
    Invalid {
        placement_id: PlacementId,
        reason: String,
    },
}

/// What a placement event says happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlacementOutcome {
    Fulfilled {
        game_session: PlacedGameSession,
        /// Each placed player once, with their own player session.
        placed: Vec<(PlayerId, String)>,
    },
    /// CANCELLED, TIMED_OUT or FAILED.
    Ended(PlacementStatus),
}

/// One parsed GameLift placement event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlacementEvent {
    pub placement_id: PlacementId,
    pub outcome: PlacementOutcome,
    /// The queue's name, from the event's resource ARN (`unknown` without one).
    pub queue: String,
    /// From the request (GameLift's `startTime`, else the time in our placement id) to
    /// the event: the placement's time to its result.
    pub duration_ms: Option<i64>,
}

impl PlacementEvent {
    pub fn status(&self) -> PlacementStatus {
        match &self.outcome {
            PlacementOutcome::Fulfilled { .. } => PlacementStatus::Fulfilled,
            PlacementOutcome::Ended(status) => *status,
        }
    }

    /// Parses a GameLift queue placement event out of its envelope.
    pub fn parse(event: GameLiftEvent) -> Result<Self, MalformedEvent> {
        let detail: Detail =
            serde_json::from_value(event.detail).map_err(MalformedEvent::Detail)?;
        let placement_id = PlacementId::parse(detail.placement_id.as_str()).map_err(|source| {
            MalformedEvent::PlacementId {
                raw: detail.placement_id.clone(),
                source,
            }
        })?;
        let invalid = |reason: String| MalformedEvent::Invalid {
            placement_id: placement_id.clone(),
            reason,
        };
        let ended = (detail.end_time.or(event.time)).map(|at| at.timestamp_millis());
        let started = (detail.start_time.map(|at| at.timestamp_millis()))
            .or_else(|| placement_id.requested_at());
        let outcome = match detail.kind.as_str() {
            "PlacementFulfilled" => detail.fulfilled(event.region.as_deref()).map_err(invalid)?,
            "PlacementCancelled" => PlacementOutcome::Ended(PlacementStatus::Cancelled),
            "PlacementTimedOut" => PlacementOutcome::Ended(PlacementStatus::TimedOut),
            "PlacementFailed" => PlacementOutcome::Ended(PlacementStatus::Failed),
            other => return Err(MalformedEvent::UnknownType(other.to_owned())),
        };
        let queue = (event.resources.unwrap_or_default().into_iter())
            .find_map(|arn| {
                arn.split_once(":gamesessionqueue/")
                    .map(|(_, name)| name.to_owned())
            })
            .unwrap_or_else(|| "unknown".to_owned());
        Ok(Self {
            placement_id,
            outcome,
            queue,
            duration_ms: started.zip(ended).map(|(started, ended)| ended - started),
        })
    }
}

/// `detail` of a placement event; only what we use (GameLift adds fields freely).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Detail {
    #[serde(rename = "type")]
    kind: String,
    placement_id: String,
    /// A string in GameLift's events (a number is accepted too).
    #[serde(default)]
    port: Option<Value>,
    #[serde(default)]
    game_session_arn: Option<String>,
    #[serde(default)]
    ip_address: Option<String>,
    #[serde(default)]
    dns_name: Option<String>,
    #[serde(default)]
    game_session_region: Option<String>,
    #[serde(default)]
    placed_player_sessions: Vec<PlacedPlayerSession>,
    #[serde(default)]
    start_time: Option<chrono::DateTime<chrono::Utc>>,
    #[serde(default)]
    end_time: Option<chrono::DateTime<chrono::Utc>>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct PlacedPlayerSession {
    player_id: String,
    player_session_id: String,
}

impl Detail {
    fn fulfilled(self, event_region: Option<&str>) -> Result<PlacementOutcome, String> {
        let port = match &self.port {
            Some(Value::String(raw)) => raw.trim().parse::<u16>().ok(),
            Some(Value::Number(raw)) => raw.as_u64().and_then(|p| u16::try_from(p).ok()),
            _ => None,
        }
        .filter(|port| *port > 0)
        .ok_or_else(|| format!("port {:?} is not a port number", self.port))?;
        let game_session_arn = self
            .game_session_arn
            .filter(|arn| !arn.is_empty())
            .ok_or("gameSessionArn is missing")?;
        let ip_address = self
            .ip_address
            .filter(|ip| !ip.is_empty())
            .ok_or("ipAddress is missing")?;
        // `arn:aws:gamelift:<region>::gamesession/...`
        let arn_region = game_session_arn
            .split(':')
            .nth(3)
            .filter(|r| !r.is_empty())
            .map(str::to_owned);
        let region = self
            .game_session_region
            .filter(|r| !r.is_empty())
            .or(arn_region)
            .or_else(|| event_region.map(str::to_owned))
            .ok_or("gameSessionRegion is missing")?;
        let mut seen = HashSet::new();
        let mut placed = Vec::with_capacity(self.placed_player_sessions.len());
        for session in self.placed_player_sessions {
            match PlayerId::parse(session.player_id.as_str()) {
                Ok(player) if seen.insert(player.clone()) => {
                    placed.push((player, session.player_session_id));
                }
                Ok(_) => {}
                // Not a player id this system issues: not one of our players.
                Err(e) => {
                    warn!(player_id = %session.player_id, error = %shared::telemetry::ErrorChain(&e), "skipping a placed player with an id this system does not use");
                }
            }
        }
        Ok(PlacementOutcome::Fulfilled {
            game_session: PlacedGameSession {
                game_session_arn,
                ip_address,
                // TLS fleets need it; a fleet without one gets an empty name.
                dns_name: self.dns_name.unwrap_or_default(),
                port,
                region,
            },
            placed,
        })
    }
}

/// The placement events in an invocation's payload (an SNS event, or one EventBridge
/// event), each read, or why not.
pub fn read_payload(payload: &Value) -> Vec<Result<PlacementEvent, MalformedEvent>> {
    gamelift_events::read(payload, PLACEMENT_DETAIL_TYPE)
        .into_iter()
        .map(|event| PlacementEvent::parse(event?))
        .collect()
}
