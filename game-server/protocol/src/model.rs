//! The records the frames carry, keys as the SDKs write them (Go `model/*.go`, C++
//! `internal/model/*.h`). Fields the SDKs leave out when empty (Go `omitempty`, C++
//! `WriteNonEmptyString`) default when absent, so a frame from any of them reads.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A player session's status (GameLift's `PlayerSession.Status`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PlayerSessionStatus {
    /// Created; the game server has not accepted the player yet.
    #[serde(rename = "RESERVED")]
    Reserved,
    /// Accepted by the game server (AcceptPlayerSession).
    #[serde(rename = "ACTIVE")]
    Active,
    /// The player left (RemovePlayerSession) or the game ended.
    #[serde(rename = "COMPLETED")]
    Completed,
    /// Not accepted within 60 s of its creation.
    #[serde(rename = "TIMEDOUT")]
    TimedOut,
}

impl PlayerSessionStatus {
    pub const ALL: [Self; 4] = [
        Self::Reserved,
        Self::Active,
        Self::Completed,
        Self::TimedOut,
    ];

    /// The status as GameLift writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Reserved => "RESERVED",
            Self::Active => "ACTIVE",
            Self::Completed => "COMPLETED",
            Self::TimedOut => "TIMEDOUT",
        }
    }

    /// Holds a seat (GameLift's CurrentPlayerSessionCount counts these).
    pub fn holds_seat(self) -> bool {
        matches!(self, Self::Reserved | Self::Active)
    }
}

/// Whether a game session takes new player sessions (UpdatePlayerSessionCreationPolicy).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PlayerSessionCreationPolicy {
    #[default]
    #[serde(rename = "ACCEPT_ALL")]
    AcceptAll,
    #[serde(rename = "DENY_ALL")]
    DenyAll,
}

/// A player session as DescribePlayerSessions returns it (Go `model/player.go`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct PlayerSession {
    pub player_id: String,
    pub player_session_id: String,
    pub game_session_id: String,
    pub fleet_id: String,
    pub player_data: String,
    pub ip_address: String,
    pub port: i32,
    /// Epoch milliseconds.
    pub creation_time: i64,
    /// Epoch milliseconds; 0 while it holds a seat.
    pub termination_time: i64,
    pub dns_name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<PlayerSessionStatus>,
}

/// A player in a StartMatchBackfill request (Go `model/player.go`, C++
/// `WebSocketPlayer.h`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct Player {
    pub player_id: String,
    pub team: String,
    pub player_attributes: BTreeMap<String, AttributeValue>,
    /// Region to milliseconds.
    #[serde(rename = "LatencyInMs")]
    pub latency_in_ms: BTreeMap<String, i64>,
}

/// A player attribute, typed by `AttrType` with its value in `S`, `N`, `SL` or `SDM`
/// (Go `model/attribute_value.go`, which leaves the other keys out).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "AttrType")]
pub enum AttributeValue {
    #[default]
    #[serde(rename = "NONE")]
    None,
    #[serde(rename = "STRING")]
    String {
        #[serde(rename = "S", default)]
        s: String,
    },
    #[serde(rename = "DOUBLE")]
    Double {
        #[serde(rename = "N", default)]
        n: f64,
    },
    #[serde(rename = "STRING_LIST")]
    StringList {
        #[serde(rename = "SL", default)]
        sl: Vec<String>,
    },
    #[serde(rename = "STRING_DOUBLE_MAP")]
    StringDoubleMap {
        #[serde(rename = "SDM", default)]
        sdm: BTreeMap<String, f64>,
    },
}

/// A game session as UpdateGameSession nests it: note `Name`, where CreateGameSession
/// says `GameSessionName` (Go `model/game_session.go`, C++ `WebSocketGameSession.h`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct GameSession {
    pub game_session_id: String,
    pub name: String,
    pub fleet_id: String,
    pub maximum_player_session_count: i32,
    pub port: i32,
    pub ip_address: String,
    pub dns_name: String,
    pub game_session_data: String,
    /// A [`MatchmakerData`] as JSON text, or empty.
    pub matchmaker_data: String,
    pub game_properties: BTreeMap<String, String>,
}

/// Why a game session was updated (Go `model/update_reason.go`); anything else is
/// `UNKNOWN` to the SDKs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum UpdateReason {
    #[serde(rename = "MATCHMAKING_DATA_UPDATED")]
    MatchmakingDataUpdated,
    #[serde(rename = "BACKFILL_FAILED")]
    BackfillFailed,
    #[serde(rename = "BACKFILL_TIMED_OUT")]
    BackfillTimedOut,
    #[serde(rename = "BACKFILL_CANCELLED")]
    BackfillCancelled,
    #[serde(rename = "UNKNOWN", other)]
    Unknown,
}

/// The matchmaker data of a FlexMatch game session: the JSON text in
/// `CreateGameSession.MatchmakerData` (Go `model/matchmaker_data.go`; AWS documents it
/// in the developer guide's "Work with matchmaker data").
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct MatchmakerData {
    pub match_id: String,
    pub matchmaking_configuration_arn: String,
    pub teams: Vec<MatchmakerTeam>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto_backfill_ticket_id: Option<String>,
    /// `AUTOMATIC` or `MANUAL`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto_backfill_mode: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct MatchmakerTeam {
    pub name: String,
    pub players: Vec<MatchmakerPlayer>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct MatchmakerPlayer {
    pub player_id: String,
    pub attributes: BTreeMap<String, MatchmakerAttribute>,
}

/// A player attribute in matchmaker data: `{"attributeType", "valueAttribute"}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "attributeType", content = "valueAttribute")]
pub enum MatchmakerAttribute {
    #[serde(rename = "STRING")]
    String(String),
    #[serde(rename = "DOUBLE")]
    Double(f64),
    #[serde(rename = "STRING_LIST")]
    StringList(Vec<String>),
    #[serde(rename = "STRING_DOUBLE_MAP")]
    StringDoubleMap(BTreeMap<String, f64>),
}

impl MatchmakerData {
    /// Reads `CreateGameSession.MatchmakerData`: `None` for the empty text of a game
    /// session not made by FlexMatch.
    pub fn parse(text: &str) -> Result<Option<Self>, serde_json::Error> {
        if text.trim().is_empty() {
            return Ok(None);
        }
        serde_json::from_str(text).map(Some)
    }

    /// The JSON text the service puts in `MatchmakerData`.
    pub fn to_text(&self) -> String {
        // Strings, numbers and maps with string keys: nothing the encoder refuses.
        serde_json::to_string(self).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn given_go_attribute_values_when_read_then_each_type_keeps_its_value() {
        let text = json!({
            "a": {"AttrType": "STRING", "S": "x"},
            "b": {"AttrType": "DOUBLE", "N": 0.0},
            "c": {"AttrType": "STRING_LIST", "SL": ["p", "q"]},
            "d": {"AttrType": "STRING_DOUBLE_MAP", "SDM": {"k": 1.5}},
            "e": {"AttrType": "NONE"}
        });
        let read: BTreeMap<String, AttributeValue> = serde_json::from_value(text.clone()).unwrap();
        assert_eq!(read["a"], AttributeValue::String { s: "x".into() });
        assert_eq!(read["b"], AttributeValue::Double { n: 0.0 });
        assert_eq!(serde_json::to_value(&read).unwrap(), text);
    }

    #[test]
    fn given_matchmaker_data_when_written_then_it_has_the_documented_shape() {
        let data = MatchmakerData {
            match_id: "m-1".into(),
            matchmaking_configuration_arn:
                "arn:aws:gamelift:us-west-2:123456789012:matchmakingconfiguration/default".into(),
            teams: vec![MatchmakerTeam {
                name: "red".into(),
                players: vec![MatchmakerPlayer {
                    player_id: "alice".into(),
                    attributes: BTreeMap::from([(
                        "skill".into(),
                        MatchmakerAttribute::Double(23.0),
                    )]),
                }],
            }],
            auto_backfill_ticket_id: None,
            auto_backfill_mode: Some("MANUAL".into()),
        };
        let text = data.to_text();
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            value["teams"][0]["players"][0]["attributes"]["skill"],
            json!({"attributeType": "DOUBLE", "valueAttribute": 23.0})
        );
        assert_eq!(MatchmakerData::parse(&text).unwrap(), Some(data));
        assert_eq!(MatchmakerData::parse("").unwrap(), None);
    }

    #[test]
    fn given_an_unknown_update_reason_when_read_then_it_is_unknown() {
        let reason: UpdateReason = serde_json::from_value(json!("SOMETHING_NEW")).unwrap();
        assert_eq!(reason, UpdateReason::Unknown);
    }
}
