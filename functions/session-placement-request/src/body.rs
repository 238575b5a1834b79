//! The `sessionPlacementRequest` body and its checks: each field is read on its own and
//! a refusal names the field at fault; unknown fields are ignored.

use serde_json::{Map, Value};
pub use shared::latencies::{MAX_LATENCY_MS, MAX_LATENCY_REGIONS, MAX_REGION_LEN, latencies};
use shared::protocol::{ErrorCode, json_kind};
use shared::websocket::RouteError;

/// `playerData` is handed to the game server; GameLift takes at most 2048 characters.
pub const MAX_PLAYER_DATA_CHARS: usize = 2048;

/// A validated request body.
#[derive(Clone, Debug, PartialEq)]
pub struct PlacementBody {
    /// Region → milliseconds, rounded to whole milliseconds, in region order.
    pub latencies: Vec<(String, u32)>,
    pub player_data: Option<String>,
    /// One of the configured queues.
    pub queue: String,
}

impl PlacementBody {
    /// Reads the body, naming the field at fault; unknown fields are ignored.
    pub fn parse(body: &Map<String, Value>, queues: &[String]) -> Result<Self, RouteError> {
        Ok(Self {
            latencies: latencies(body.get("latencies"))?,
            player_data: player_data(body.get("playerData"))?,
            queue: queue(body.get("queue"), queues)?,
        })
    }
}

fn player_data(value: Option<&Value>) -> Result<Option<String>, RouteError> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(data)) if data.is_empty() => Ok(None),
        Some(Value::String(data)) => {
            let chars = data.chars().count();
            if chars > MAX_PLAYER_DATA_CHARS {
                return Err(RouteError::bad_request(format!(
                    "`playerData` is {chars} characters; the maximum is {MAX_PLAYER_DATA_CHARS}"
                )));
            }
            Ok(Some(data.clone()))
        }
        Some(other) => Err(RouteError::bad_request(format!(
            "`playerData` must be a string, got {}",
            json_kind(other)
        ))),
    }
}

fn queue(value: Option<&Value>, queues: &[String]) -> Result<String, RouteError> {
    let known = || queues.join(", ");
    match value {
        None | Some(Value::Null) => queues.first().cloned().ok_or_else(|| {
            RouteError::new(ErrorCode::Internal, "no game session queue is configured")
        }),
        Some(Value::String(name)) if queues.contains(name) => Ok(name.clone()),
        Some(Value::String(name)) => Err(RouteError::bad_request(format!(
            "`queue` {name:?} is not a known queue; use one of: {}",
            known()
        ))),
        Some(other) => Err(RouteError::bad_request(format!(
            "`queue` must be a string, one of: {}; got {}",
            known(),
            json_kind(other)
        ))),
    }
}
