//! The request fields that are more than a domain id: the player-id lists, the names of
//! a queue and of a matchmaking configuration, `playerData` and a player's activity text.
//! Each is parsed once, as it is read; its schema says what it accepts.

use std::fmt;
use std::marker::PhantomData;

use schemars::JsonSchema;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};

use crate::bounded::{Bound, BoundedSeq};
use crate::domain::PlayerId;
use crate::frames::MAX_PLAYER_IDS;

/// `playerData` is handed to the game server; GameLift takes at most 2048 characters.
pub const MAX_PLAYER_DATA_CHARS: usize = 2048;
/// The longest queue or matchmaking configuration name (or ARN) GameLift takes.
pub const MAX_GAMELIFT_NAME_CHARS: usize = 256;
/// The longest activity text (`setActivity`): a line a friends list shows.
pub const MAX_ACTIVITY_CHARS: usize = 64;

/// 1–[`MAX_PLAYER_IDS`] player ids, duplicates dropped (the first kept): `playerIds`.
pub(crate) struct PlayerIdList(pub(crate) Vec<PlayerId>);

impl<'de> Deserialize<'de> for PlayerIdList {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let listed = deserializer.deserialize_seq(BoundedSeq {
            bound: Bound {
                expecting: "an array of player ids",
                max: MAX_PLAYER_IDS,
                too_many: |count| format!("names {count} players; the maximum is {MAX_PLAYER_IDS}"),
            },
            item: PhantomData::<PlayerId>,
        })?;
        let mut ids = Vec::with_capacity(listed.len());
        for id in listed {
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
        if ids.is_empty() {
            return Err(D::Error::custom("must name at least one player"));
        }
        Ok(PlayerIdList(ids))
    }
}

/// `playerIds` as a `Vec` field reads it (`#[serde(deserialize_with)]`).
pub(crate) fn player_ids<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<PlayerId>, D::Error> {
    PlayerIdList::deserialize(d).map(|list| list.0)
}

/// A string of `min`..=`max` characters, refused saying how long it is.
fn bounded<'de, D: Deserializer<'de>>(d: D, min: usize, max: usize) -> Result<String, D::Error> {
    let text = String::deserialize(d)?;
    let chars = text.chars().count();
    if chars < min {
        return Err(D::Error::custom("must not be empty"));
    }
    if chars > max {
        return Err(D::Error::custom(format!(
            "is {chars} characters; the maximum is {max}"
        )));
    }
    Ok(text)
}

/// What `sessionPlacementRequest` hands the game server (GameLift's `PlayerData`): at
/// most 2048 characters; empty is the same as none.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(transparent)]
pub struct PlayerData(#[schemars(length(max = 2048))] String);

/// The name (or ARN) of one of the stack's GameLift queues: 1–256 characters. Which
/// queues there are is the stack's setting (`GAME_SESSION_QUEUES`): another name is
/// `not_found`, not malformed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(transparent)]
pub struct QueueName(#[schemars(length(min = 1, max = 256))] String);

/// The name (or ARN) of one of the stack's matchmaking configurations: 1–256
/// characters. Which there are is the stack's setting (`MATCHMAKING_CONFIGURATIONS`):
/// another name is `not_found`, not malformed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(transparent)]
pub struct ConfigurationName(#[schemars(length(min = 1, max = 256))] String);

/// What a player is doing, in the game's words (`"in lobby"`, `"ranked, map Dust, 3–1"`):
/// at most 64 characters; empty (with no `details`) clears it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(transparent)]
pub struct ActivityText(#[schemars(length(max = MAX_ACTIVITY_CHARS))] String);

macro_rules! bounded_string {
    ($name:ident, $min:expr, $max:expr) => {
        impl $name {
            /// `raw`, if it fits.
            pub fn parse(raw: impl Into<String>) -> Result<Self, String> {
                use serde::de::IntoDeserializer;
                let raw: String = raw.into();
                let d: serde::de::value::StringDeserializer<serde::de::value::Error> =
                    raw.into_deserializer();
                bounded(d, $min, $max).map(Self).map_err(|e| e.to_string())
            }

            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                bounded(d, $min, $max).map(Self)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }
    };
}

bounded_string!(PlayerData, 0, MAX_PLAYER_DATA_CHARS);
bounded_string!(QueueName, 1, MAX_GAMELIFT_NAME_CHARS);
bounded_string!(ConfigurationName, 1, MAX_GAMELIFT_NAME_CHARS);
bounded_string!(ActivityText, 0, MAX_ACTIVITY_CHARS);

/// `heartbeat`'s body as the server reads it: API Gateway itself, with the mapping
/// template of template.yaml's `HeartbeatIntegration`, which takes a `cursor` of at most
/// 15 digits. Only the schema uses this type; Rust writes the body as `CursorBody` (seqs
/// stay below 10^15 until the year 2286).
#[derive(JsonSchema)]
#[schemars(rename = "HeartbeatBody")]
pub struct HeartbeatBody {
    /// The `seq` of the last pushed frame the client processed.
    #[schemars(range(max = 999_999_999_999_999_u64))]
    pub cursor: Option<u64>,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[derive(Debug, Deserialize)]
    struct Ids(#[serde(deserialize_with = "player_ids")] Vec<PlayerId>);

    fn ids(value: serde_json::Value) -> Result<Vec<String>, String> {
        serde_json::from_value::<Ids>(value)
            .map(|Ids(ids)| ids.iter().map(ToString::to_string).collect())
            .map_err(|e| e.to_string())
    }

    #[test]
    fn given_duplicate_player_ids_then_they_are_dropped_keeping_the_first_order() {
        assert_eq!(
            ids(json!(["bob", "carol", "bob"])).unwrap(),
            vec!["bob", "carol"]
        );
    }

    #[test]
    fn given_more_than_100_player_ids_then_refused_even_with_duplicates_as_the_schema_says() {
        let hundred: Vec<String> = (0..100).map(|i| format!("p{i}")).collect();
        assert_eq!(ids(json!(hundred)).unwrap().len(), 100);
        let mut over = hundred.clone();
        over.push("p0".into());
        assert_eq!(
            ids(json!(over)).unwrap_err(),
            "names 101 players; the maximum is 100"
        );
        assert_eq!(ids(json!([])).unwrap_err(), "must name at least one player");
    }

    #[test]
    fn given_bounded_names_then_their_lengths_are_checked_in_characters() {
        assert!(QueueName::parse("q").is_ok());
        assert_eq!(QueueName::parse("").unwrap_err(), "must not be empty");
        assert_eq!(
            ConfigurationName::parse("é".repeat(257)).unwrap_err(),
            "is 257 characters; the maximum is 256"
        );
        assert!(PlayerData::parse("").is_ok());
        assert_eq!(
            PlayerData::parse("x".repeat(2049)).unwrap_err(),
            "is 2049 characters; the maximum is 2048"
        );
        assert!(ActivityText::parse("").is_ok());
        assert!(ActivityText::parse("é".repeat(MAX_ACTIVITY_CHARS)).is_ok());
        assert_eq!(
            ActivityText::parse("x".repeat(65)).unwrap_err(),
            "is 65 characters; the maximum is 64"
        );
    }
}
