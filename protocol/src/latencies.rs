//! The latencies a client reports (region → round-trip milliseconds), as
//! `sessionPlacementRequest`, `setPlacementLatencies` and `startMatchmaking` carry them:
//! at most 20 regions, each named by 1–64 of `a-z 0-9 -`, each 0–10000 ms. Parsed once,
//! here; the schema says the same (`Latencies`).

use std::collections::BTreeMap;
use std::marker::PhantomData;

use schemars::json_schema;
use serde::{Deserialize, Deserializer, Serialize};

use crate::bounded::{Bound, BoundedMap, CheckedNumber};

/// At most this many regions in `latencies`.
pub const MAX_LATENCY_REGIONS: usize = 20;
/// The largest latency a client may report, in milliseconds.
pub const MAX_LATENCY_MS: f64 = 10_000.0;
/// The longest region name accepted as a `latencies` key.
pub const MAX_REGION_LEN: usize = 64;

/// What a region name is, as every refusal says it.
const REGION_RULE: &str = "1–64 of a-z 0-9 -";

/// Region → round-trip milliseconds, at most [`MAX_LATENCY_REGIONS`] regions, in region
/// order. A region is 1–64 of `a-z 0-9 -` (an AWS Region or a GameLift location); a
/// latency a number from 0 to 10000.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(transparent)]
pub struct Latencies(BTreeMap<String, f64>);

/// Why a map is not [`Latencies`]; the words follow the field's name.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
enum LatenciesError {
    #[error("names {0} regions; the maximum is {MAX_LATENCY_REGIONS}")]
    TooMany(usize),
    #[error("key {0:?} is not a region name ({REGION_RULE})")]
    Region(String),
    #[error("is {0}; it must be from 0 to {MAX_LATENCY_MS} milliseconds")]
    OutOfRange(f64),
}

impl Latencies {
    /// `latencies` checked as the server checks them; the error names the entry at fault
    /// (as in "`latencies.us-east-1` is -5; ...").
    pub fn new(latencies: BTreeMap<String, f64>) -> Result<Self, String> {
        if latencies.len() > MAX_LATENCY_REGIONS {
            return Err(format!(
                "`latencies` {}",
                LatenciesError::TooMany(latencies.len())
            ));
        }
        for (region, millis) in &latencies {
            if !is_region(region) {
                return Err(format!(
                    "`latencies` {}",
                    LatenciesError::Region(region.clone())
                ));
            }
            if !in_range(*millis) {
                return Err(format!(
                    "`latencies.{region}` {}",
                    LatenciesError::OutOfRange(*millis)
                ));
            }
        }
        Ok(Self(latencies))
    }

    /// Region → whole milliseconds (rounded), in region order: what is stored and what
    /// GameLift is given.
    pub fn rounded(&self) -> Vec<(String, u32)> {
        // Within 0..=10000, so every rounded value fits.
        self.0
            .iter()
            .map(|(region, millis)| (region.clone(), millis.round() as u32))
            .collect()
    }

    pub fn as_map(&self) -> &BTreeMap<String, f64> {
        &self.0
    }
}

fn is_region(name: &str) -> bool {
    (1..=MAX_REGION_LEN).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

fn in_range(millis: f64) -> bool {
    (0.0..=MAX_LATENCY_MS).contains(&millis)
}

/// One latency: a number from 0 to 10000, its error naming the value.
struct Millis(f64);

impl<'de> Deserialize<'de> for Millis {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_f64(CheckedNumber {
            expecting: "a number of milliseconds",
            check: |millis| {
                if in_range(millis) {
                    Ok(Millis(millis))
                } else {
                    Err(LatenciesError::OutOfRange(millis).to_string())
                }
            },
        })
    }
}

impl<'de> Deserialize<'de> for Latencies {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let latencies = deserializer.deserialize_map(BoundedMap {
            bound: Bound {
                expecting: "an object of region → milliseconds",
                max: MAX_LATENCY_REGIONS,
                too_many: |count| LatenciesError::TooMany(count).to_string(),
            },
            key: |region| {
                if is_region(&region) {
                    Ok(region)
                } else {
                    Err(LatenciesError::Region(region).to_string())
                }
            },
            value: PhantomData::<Millis>,
        })?;
        Ok(Latencies(
            latencies
                .into_iter()
                .map(|(region, Millis(millis))| (region, millis))
                .collect(),
        ))
    }
}

hand_schema!(Latencies, |_| json_schema!({
    "description": "Region → round-trip milliseconds (0–10000), at most 20 regions; a region is 1–64 of `a-z 0-9 -` (an AWS Region or a GameLift location).",
    "type": "object",
    "maxProperties": MAX_LATENCY_REGIONS,
    "propertyNames": {
        "type": "string",
        "minLength": 1,
        "maxLength": MAX_REGION_LEN,
        "pattern": "^[a-z0-9-]+$"
    },
    "additionalProperties": {
        "type": "number",
        "minimum": 0,
        "maximum": MAX_LATENCY_MS
    }
}));

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// `value` as `setPlacementLatencies`'s `latencies`, read as the server reads it.
    fn read(value: serde_json::Value) -> Result<Latencies, String> {
        let body = serde_json::Map::from_iter([("latencies".to_owned(), value)]);
        crate::requests::body::read_body::<crate::requests::LatenciesBody>(body)
            .map(|body| body.latencies)
    }

    #[test]
    fn given_good_latencies_then_they_are_kept_and_rounded_in_region_order() {
        let latencies = read(json!({"us-east-1": 40.4, "eu-west-1": 120, "local": 0})).unwrap();
        assert_eq!(
            latencies.rounded(),
            vec![
                ("eu-west-1".into(), 120),
                ("local".into(), 0),
                ("us-east-1".into(), 40)
            ]
        );
        assert_eq!(read(json!({})).unwrap(), Latencies::default());
    }

    #[test]
    fn given_each_bad_map_then_the_words_say_what_is_wrong() {
        let many: serde_json::Map<String, serde_json::Value> =
            (0..21).map(|i| (format!("r{i}"), json!(1))).collect();
        for (value, says) in [
            (
                json!({"us-east-1": -5}),
                "`latencies.us-east-1` is -5; it must be from 0 to 10000 milliseconds",
            ),
            (
                json!({"us-east-1": 10000.5}),
                "`latencies.us-east-1` is 10000.5; it must be",
            ),
            (
                json!({"US": 10}),
                "`latencies` key \"US\" is not a region name (1–64 of a-z 0-9 -)",
            ),
            (json!({"": 10}), "`latencies` key \"\" is not a region name"),
            (
                json!({"us-east-1": "fast"}),
                "`latencies.us-east-1` must be a number of milliseconds, got a string",
            ),
            (
                json!([10]),
                "`latencies` must be an object of region → milliseconds, got an array",
            ),
            (
                serde_json::Value::Object(many),
                "`latencies` names 21 regions; the maximum is 20",
            ),
        ] {
            let error = read(value.clone()).unwrap_err();
            assert!(error.starts_with(says), "{value}: {error}");
        }
        assert!(
            read(json!({"a": 0, "b": 10000})).is_ok(),
            "both ends are in"
        );
        assert_eq!(
            Latencies::new(BTreeMap::from([("us-east-1".into(), -5.0)])).unwrap_err(),
            "`latencies.us-east-1` is -5; it must be from 0 to 10000 milliseconds"
        );
    }
}
