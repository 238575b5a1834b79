//! The backend HTTP API's model (README.md#backend-api-game-servers-and-services): the
//! request and response bodies game servers and studio services exchange with the
//! `backend-api` function, and the endpoints ([`openapi::OPERATIONS`]) from which its
//! OpenAPI 3.1 document, `docs/backend-api.openapi.json`, is generated. Kept here, beside
//! the client protocol's frames, because a game server or a service needs these types
//! (and the domain types they carry) without the AWS SDK or the Lambda runtime, exactly
//! as a game client does; the function reads every body only through them.

pub mod openapi;

use schemars::{JsonSchema, json_schema};
use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use crate::activity::Activity;
use crate::domain::{EpochMillis, GameSession, PlayerId, PresenceStatus};
use crate::errors::{ErrorReply, NoMessage};
use crate::party::PartyId;
use crate::requests::body::describe;
use crate::requests::fields::PlayerIdList;

pub use crate::acks::{FriendAck, ListFriendsAck};
pub use crate::requests::{ListFriendsBody, PlayerIdsBody};

/// The longest service name `from` may give.
pub const MAX_FROM_LEN: usize = 64;
/// The longest `reason` a kick may give.
pub const MAX_REASON_LEN: usize = 256;

/// A body that does not fit its type: the top-level field at fault (`body` for the body
/// as a whole) and what is wrong with it, in the client protocol's words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BodyError {
    pub field: String,
    pub message: String,
}

impl BodyError {
    fn new(field: &str, message: impl Into<String>) -> Self {
        Self {
            field: field.to_owned(),
            message: message.into(),
        }
    }
}

/// A request body (a JSON object) read into its type `B`, or the field at fault.
pub fn read_request<B: DeserializeOwned>(body: Map<String, Value>) -> Result<B, BodyError> {
    serde_path_to_error::deserialize(Value::Object(body)).map_err(|error| {
        let path = error.path().to_string();
        let path = if path == "." { String::new() } else { path };
        let inner = error.into_inner().to_string();
        // The top-level field: the path's first segment, or the one serde says is missing.
        let field = match path.split(['.', '[']).next().filter(|f| !f.is_empty()) {
            Some(field) => field.to_owned(),
            None => inner
                .strip_prefix("missing field `")
                .and_then(|rest| rest.strip_suffix('`'))
                .unwrap_or("body")
                .to_owned(),
        };
        BodyError {
            field,
            message: describe(&path, &inner),
        }
    })
}

/// `POST /v1/messages`: a `message` frame (`backend: true`) to 1–100 players or to every
/// member of a party; `from` names the sender (`system` when absent).
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SendMessagesRequest {
    /// 1–100 player ids (duplicates dropped); give this or `partyId`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "optional_player_ids"
    )]
    pub player_ids: Option<Vec<PlayerId>>,
    /// Every member of this party; give this or `playerIds`.
    pub party_id: Option<PartyId>,
    /// Any JSON, at most 32 KiB serialized (over it: `413 payload_too_large`).
    pub message: Value,
    pub from: Option<ServiceName>,
}

fn optional_player_ids<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<PlayerId>>, D::Error> {
    Option::<PlayerIdList>::deserialize(d).map(|list| list.map(|list| list.0))
}

/// Whom a message goes to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Audience {
    Players(Vec<PlayerId>),
    Party(PartyId),
}

impl SendMessagesRequest {
    /// `playerIds` or `partyId`, not both.
    pub fn audience(&self) -> Result<Audience, BodyError> {
        match (&self.player_ids, &self.party_id) {
            (Some(_), Some(_)) => Err(BodyError::new(
                "partyId",
                "give `playerIds` or `partyId`, not both",
            )),
            (Some(ids), None) => Ok(Audience::Players(ids.clone())),
            (None, Some(party)) => Ok(Audience::Party(party.clone())),
            (None, None) => Err(BodyError::new("playerIds", "`playerIds` is required")),
        }
    }
}

/// `202`: the message's id, and how many inboxes it was appended to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SendMessagesResponse {
    pub queued: usize,
    pub message_id: String,
}

/// What the API tells about a player.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlayerView {
    pub player_id: PlayerId,
    pub status: PresenceStatus,
    /// What watchers see: online, or dropped within the reconnect grace.
    pub online: bool,
    /// While online: when this connection opened (ms); else null.
    pub connected_since: Option<EpochMillis>,
    pub last_seen: EpochMillis,
    /// The seat, as in `placement` frames.
    pub game_session: Option<GameSession>,
    pub party_id: Option<PartyId>,
    pub pending_placement_id: Option<String>,
    /// What the player is doing (`activity`, and `details` if they gave some), while
    /// `online` and they set one (`setActivity`); absent otherwise.
    #[serde(flatten)]
    pub activity: Option<Activity>,
}

/// `POST /v1/players:batchGet`'s `200`: the players found, in the order asked, and the
/// ids nobody has.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BatchGetPlayersResponse {
    pub players: Vec<PlayerView>,
    pub not_found: Vec<PlayerId>,
}

/// `DELETE /v1/players/{playerId}/connection`: why (shown to the player), and who.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EndConnectionRequest {
    pub reason: Option<Reason>,
    pub from: Option<ServiceName>,
}

/// `202`: the connection being closed, and the `disconnected_by_server` frame's id.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EndConnectionResponse {
    pub connection_id: String,
    pub message_id: String,
}

/// `POST /v1/game-sessions/{gameSessionId}/ended`'s `200`: whose seats were cleared, and
/// who was not seated in that game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GameSessionEndedResponse {
    pub game_session_id: String,
    pub cleared: Vec<PlayerId>,
    pub not_seated: Vec<PlayerId>,
}

/// `POST /v1/game-sessions/{gameSessionId}/players/{playerId}/left`'s `200`: `false` when
/// it was already done.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PlayerLeftResponse {
    pub cleared: bool,
}

/// Every failure: RFC 9457 problem details (`application/problem+json`) with the client
/// protocol's error code, and the fields of that code, as an `error` frame carries them
/// ([`ErrorReply`]: `field` for a 400, the ids a 404 did not find, `allow`,
/// `currentGameSessionId`, …); the frame's `message` is the problem's `detail`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Problem {
    /// `urn:gamelift-sockets:problem:<code>`.
    #[serde(rename = "type")]
    pub kind: String,
    pub title: String,
    pub status: u16,
    pub detail: String,
    #[serde(flatten)]
    pub error: ErrorReply<NoMessage>,
}

/// A service's name: 1–64 of `A-Z a-z 0-9 . _ : @ -` (`system` is the default sender).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct ServiceName(String);

impl ServiceName {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl<'de> Deserialize<'de> for ServiceName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        let valid = !name.is_empty()
            && name.len() <= MAX_FROM_LEN
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"._:@-".contains(&b));
        if valid {
            Ok(Self(name))
        } else {
            Err(D::Error::custom(format!(
                "must be `system` or a service name of 1-{MAX_FROM_LEN} A-Z a-z 0-9 . _ : @ -"
            )))
        }
    }
}

hand_schema!(ServiceName, |_| json_schema!({
    "description": "Who sends: `system` (the default) or a service's name.",
    "type": "string",
    "pattern": format!("^[A-Za-z0-9._:@-]{{1,{MAX_FROM_LEN}}}$"),
}));

/// Why a connection is ended, shown to the player: 1–256 characters, not all blank.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Reason(String);

impl Reason {
    pub fn into_string(self) -> String {
        self.0
    }
}

impl<'de> Deserialize<'de> for Reason {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let reason = String::deserialize(d)?;
        if reason.trim().is_empty() || reason.chars().count() > MAX_REASON_LEN {
            return Err(D::Error::custom(format!(
                "must be 1-{MAX_REASON_LEN} characters"
            )));
        }
        Ok(Self(reason))
    }
}

hand_schema!(Reason, |_| json_schema!({
    "description": "Why the connection is ended, shown to the player (default: \"disconnected by the server\").",
    "type": "string",
    "minLength": 1,
    "maxLength": MAX_REASON_LEN,
}));

#[cfg(test)]
mod tests;
