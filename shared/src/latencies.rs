//! The `latencies` a client reports (region → round-trip milliseconds), read the same way
//! by `sessionPlacementRequest`, `setPlacementLatencies` and `startMatchmaking`: each
//! entry checked on its own, a refusal naming it.

use serde_json::Value;

use crate::protocol::json_kind;
use crate::websocket::RouteError;

/// At most this many regions in `latencies`.
pub const MAX_LATENCY_REGIONS: usize = 20;
/// The largest latency a client may report, in milliseconds.
pub const MAX_LATENCY_MS: f64 = 10_000.0;
/// The longest region name accepted as a `latencies` key.
pub const MAX_REGION_LEN: usize = 64;

/// `latencies`: region → milliseconds, rounded, in region order (empty when absent).
pub fn latencies(value: Option<&Value>) -> Result<Vec<(String, u32)>, RouteError> {
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
    let mut latencies = entries
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
        .collect::<Result<Vec<_>, _>>()?;
    latencies.sort();
    Ok(latencies)
}
