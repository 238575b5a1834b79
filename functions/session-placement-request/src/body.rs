//! The `sessionPlacementRequest` body and its checks: each field is read on its own and
//! a refusal names the field at fault; unknown fields are ignored.

use serde_json::{Map, Value};
use shared::protocol::{ErrorCode, json_kind};
use shared::websocket::RouteError;

/// At most this many regions in `latencies`.
pub const MAX_LATENCY_REGIONS: usize = 20;
/// The largest latency a client may report, in milliseconds.
pub const MAX_LATENCY_MS: f64 = 10_000.0;
/// `playerData` is handed to the game server; GameLift takes at most 2048 characters.
pub const MAX_PLAYER_DATA_CHARS: usize = 2048;
/// The longest region name accepted as a `latencies` key.
pub const MAX_REGION_LEN: usize = 64;

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

/// `latencies`: region → milliseconds, rounded, in region order (empty when absent).
pub(crate) fn latencies(value: Option<&Value>) -> Result<Vec<(String, u32)>, RouteError> {
    let entries = match value {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Object(entries)) => entries,
        Some(other) => {
            return Err(RouteError::bad_request(format!(
                "`latencies` must be an object of region → milliseconds, got {}",
                json_kind(other)
            )));
        }
    };
    if entries.len() > MAX_LATENCY_REGIONS {
        return Err(RouteError::bad_request(format!(
            "`latencies` names {} regions; the maximum is {MAX_LATENCY_REGIONS}",
            entries.len()
        )));
    }
    entries
        .iter()
        .map(|(region, millis)| {
            let valid_region = (1..=MAX_REGION_LEN).contains(&region.len())
                && region
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
            if !valid_region {
                return Err(RouteError::bad_request(format!(
                    "`latencies` key {region:?} is not a region name (1–{MAX_REGION_LEN} of a-z 0-9 -)"
                )));
            }
            let field = format!("`latencies.{region}`");
            let Some(ms) = millis.as_f64() else {
                return Err(RouteError::bad_request(format!(
                    "{field} must be a number of milliseconds, got {}",
                    json_kind(millis)
                )));
            };
            if !(0.0..=MAX_LATENCY_MS).contains(&ms) {
                return Err(RouteError::bad_request(format!(
                    "{field} is {ms}; it must be from 0 to {MAX_LATENCY_MS} milliseconds"
                )));
            }
            // Within 0..=10000, so the rounded value fits.
            Ok((region.clone(), ms.round() as u32))
        })
        .collect::<Result<Vec<_>, _>>()
        .map(|mut latencies| {
            // In region order whatever order the JSON map keeps.
            latencies.sort();
            latencies
        })
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
