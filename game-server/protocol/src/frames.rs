//! The frames: every one a text frame holding one JSON object (Go
//! `model/message/*.go`, `model/request/*.go`, `model/response/*.go`; C++
//! `internal/model/{request,message}/*.h`).
//!
//! - SDK → service: `{"Action", "RequestId", …fields}` ([`RequestFrame`]).
//! - Service → SDK, answers: `{"Action" (echoed), "RequestId" (echoed), "StatusCode",
//!   "ErrorMessage"?, …result}` ([`ResponseFrame`]). C++ and C# read a result only
//!   through a handler keyed by the echoed Action.
//! - Service → SDK, pushes: `{"Action", …fields}` with no `RequestId` ([`Push`]). A push
//!   that carries a `RequestId` without `StatusCode` 200 is taken for a failed answer and
//!   dropped by all three SDKs.

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::{
    GameSession, Player, PlayerSession, PlayerSessionCreationPolicy, PlayerSessionStatus,
    UpdateReason,
};
use crate::status::{ErrorKind, STATUS_OK};

/// No fields.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Empty {}

/// Declares the enum of one direction's actions and the list of their names from one
/// list, so the names a decoder knows are the variants it can decode.
macro_rules! actions {
    ($(#[$meta:meta])* $name:ident { $($(#[$doc:meta])* $action:ident($body:ty),)* }) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        #[serde(tag = "Action")]
        pub enum $name {
            $($(#[$doc])* $action($body),)*
        }

        impl $name {
            /// Every `Action` of this direction.
            pub const ACTIONS: &'static [&'static str] = &[$(stringify!($action)),*];

            /// This frame's `Action`.
            pub fn action(&self) -> &'static str {
                match self {
                    $(Self::$action(_) => stringify!($action),)*
                }
            }
        }
    };
}

actions! {
    /// What a game server asks, by `Action`.
    Request {
        /// `ProcessReady()`: the process is ready for game sessions on `Port`.
        ActivateServerProcess(ActivateServerProcess),
        /// The SDK's health timer: sent right after ProcessReady, then every 60 s ± 10 s.
        HeartbeatServerProcess(HeartbeatServerProcess),
        /// `ActivateGameSession()`, after `OnStartGameSession`.
        ActivateGameSession(ActivateGameSession),
        AcceptPlayerSession(AcceptPlayerSession),
        RemovePlayerSession(RemovePlayerSession),
        UpdatePlayerSessionCreationPolicy(UpdatePlayerSessionCreationPolicy),
        DescribePlayerSessions(DescribePlayerSessions),
        StartMatchBackfill(StartMatchBackfill),
        StopMatchBackfill(StopMatchBackfill),
        GetComputeCertificate(Empty),
        GetFleetRoleCredentials(GetFleetRoleCredentials),
        /// `ProcessEnding()`: there is no `ProcessEnding` action.
        TerminateServerProcess(Empty),
    }
}

actions! {
    /// What the service sends unasked, by `Action`.
    Push {
        /// Start a game session: the SDK calls `OnStartGameSession`.
        CreateGameSession(CreateGameSession),
        /// `OnUpdateGameSession`: backfill results.
        UpdateGameSession(UpdateGameSession),
        /// `OnProcessTerminate`: end by `TerminationTime`.
        TerminateProcess(TerminateProcess),
        /// Reconnect to another endpoint with a new token.
        RefreshConnection(RefreshConnection),
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ActivateServerProcess {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sdk_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sdk_language: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sdk_tool_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sdk_tool_version: Option<String>,
    /// The port players connect to (Go leaves out 0).
    #[serde(default)]
    pub port: i32,
    /// Go sends `null` when there are none.
    #[serde(default)]
    pub log_paths: Option<Vec<String>>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct HeartbeatServerProcess {
    pub health_status: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ActivateGameSession {
    pub game_session_id: String,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct AcceptPlayerSession {
    pub game_session_id: String,
    pub player_session_id: String,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct RemovePlayerSession {
    pub game_session_id: String,
    pub player_session_id: String,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct UpdatePlayerSessionCreationPolicy {
    pub game_session_id: String,
    pub player_session_policy: PlayerSessionCreationPolicy,
}

/// Exactly one of `GameSessionId`, `PlayerId`, `PlayerSessionId` (the service checks).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct DescribePlayerSessions {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game_session_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player_session_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player_session_status_filter: Option<PlayerSessionStatus>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_token: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<i64>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct StartMatchBackfill {
    pub game_session_arn: String,
    pub matchmaking_configuration_arn: String,
    /// Go always sends it, empty when the caller chose none.
    #[serde(default)]
    pub ticket_id: String,
    #[serde(default)]
    pub players: Vec<Player>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct StopMatchBackfill {
    pub game_session_arn: String,
    pub matchmaking_configuration_arn: String,
    pub ticket_id: String,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct GetFleetRoleCredentials {
    pub role_arn: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role_session_name: Option<String>,
}

/// DescribePlayerSessions' result.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct DescribePlayerSessionsResult {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_token: Option<String>,
    #[serde(default)]
    pub player_sessions: Vec<PlayerSession>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct StartMatchBackfillResult {
    pub ticket_id: String,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct GetComputeCertificateResult {
    pub certificate_path: String,
    pub compute_name: String,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct GetFleetRoleCredentialsResult {
    pub assumed_role_user_arn: String,
    pub assumed_role_id: String,
    pub access_key_id: String,
    pub secret_access_key: String,
    pub session_token: String,
    /// Epoch milliseconds.
    pub expiration: i64,
}

/// CreateGameSession's fields (Go `model/message/create_game_session.go`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct CreateGameSession {
    pub game_session_id: String,
    pub game_session_name: String,
    pub game_session_data: String,
    /// A [`crate::model::MatchmakerData`] as JSON text, or empty.
    pub matchmaker_data: String,
    pub maximum_player_session_count: i32,
    pub port: i32,
    pub ip_address: String,
    pub dns_name: String,
    pub game_properties: BTreeMap<String, String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct UpdateGameSession {
    pub game_session: GameSession,
    pub update_reason: UpdateReason,
    #[serde(default)]
    pub backfill_ticket_id: String,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct TerminateProcess {
    /// Epoch **milliseconds** (Go's `GetTerminationTime` divides by 1,000).
    pub termination_time: i64,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct RefreshConnection {
    /// A whole `ws://` or `wss://` URL.
    pub refresh_connection_endpoint: String,
    pub auth_token: String,
}

/// A request with its id.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RequestFrame {
    #[serde(rename = "RequestId")]
    pub request_id: String,
    #[serde(flatten)]
    pub request: Request,
}

/// An answer: `StatusCode` 200 with the result's fields, or an error with
/// `ErrorMessage`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResponseFrame<T = Empty> {
    #[serde(rename = "Action")]
    pub action: String,
    #[serde(rename = "RequestId")]
    pub request_id: String,
    #[serde(rename = "StatusCode")]
    pub status_code: u16,
    #[serde(
        rename = "ErrorMessage",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub error_message: Option<String>,
    #[serde(flatten)]
    pub body: T,
}

impl<T: Serialize> ResponseFrame<T> {
    /// A success, echoing the request's Action and RequestId.
    pub fn ok(action: &str, request_id: &str, body: T) -> Self {
        Self {
            action: action.to_owned(),
            request_id: request_id.to_owned(),
            status_code: STATUS_OK,
            error_message: None,
            body,
        }
    }

    /// The frame's JSON text.
    pub fn to_text(&self) -> String {
        // Result types are strings, numbers and string-keyed maps.
        serde_json::to_string(self).unwrap_or_default()
    }
}

impl ResponseFrame<Empty> {
    /// A failure; `action` and `request_id` are empty when the request's could not be
    /// read (the SDK then matches it to nothing, and times the call out).
    pub fn error(action: &str, request_id: &str, kind: ErrorKind, message: String) -> Self {
        Self {
            action: action.to_owned(),
            request_id: request_id.to_owned(),
            status_code: kind.status(),
            error_message: Some(message),
            body: Empty {},
        }
    }
}

impl Push {
    /// The frame's JSON text: no `RequestId`, as every SDK takes a push.
    pub fn to_text(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

impl RequestFrame {
    pub fn new(request_id: String, request: Request) -> Self {
        Self {
            request_id,
            request,
        }
    }

    /// The frame's JSON text.
    pub fn to_text(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Reads a frame a game server sent. The error keeps whatever `Action` and
    /// `RequestId` could be read, so the answer can still reach the caller.
    pub fn decode(text: &str) -> Result<Self, FrameError> {
        let object = match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(object)) => object,
            Ok(_) => return Err(FrameError::bare(FrameProblem::NotAnObject)),
            Err(e) => return Err(FrameError::bare(FrameProblem::NotJson(e.to_string()))),
        };
        let field = |key: &str| object.get(key).and_then(Value::as_str).map(str::to_owned);
        let error = |problem| FrameError {
            action: field("Action"),
            request_id: field("RequestId"),
            problem,
        };
        let Some(action) = field("Action") else {
            return Err(error(FrameProblem::NoAction));
        };
        if !Request::ACTIONS.contains(&action.as_str()) {
            return Err(error(FrameProblem::UnknownAction(action)));
        }
        if field("RequestId").is_none_or(|id| id.is_empty()) {
            return Err(error(FrameProblem::NoRequestId));
        }
        serde_json::from_value(Value::Object(object.clone()))
            .map_err(|e| error(FrameProblem::BadFields(e.to_string())))
    }
}

/// A frame the service sent, as an SDK sorts it.
#[derive(Clone, Debug, PartialEq)]
pub enum Inbound {
    /// An answer to the request with this id.
    Response {
        request_id: String,
        /// 0 when the frame had none (an error to every SDK).
        status_code: u16,
        error_message: Option<String>,
        /// The whole frame, for [`Inbound::result`].
        frame: Value,
    },
    Push(Push),
}

impl Inbound {
    /// A push is a frame whose Action is a push's and that has no `RequestId` (or has
    /// `StatusCode` 200); any other frame with a `RequestId` is an answer.
    pub fn decode(text: &str) -> Result<Self, FrameError> {
        let frame = match serde_json::from_str::<Value>(text) {
            Ok(frame @ Value::Object(_)) => frame,
            Ok(_) => return Err(FrameError::bare(FrameProblem::NotAnObject)),
            Err(e) => return Err(FrameError::bare(FrameProblem::NotJson(e.to_string()))),
        };
        let field = |key: &str| frame.get(key).and_then(Value::as_str).map(str::to_owned);
        let action = field("Action");
        let request_id = field("RequestId").filter(|id| !id.is_empty());
        let status_code = frame
            .get("StatusCode")
            .and_then(Value::as_u64)
            .and_then(|code| u16::try_from(code).ok())
            .unwrap_or(0);
        let is_push_action = action
            .as_deref()
            .is_some_and(|action| Push::ACTIONS.contains(&action));
        if is_push_action && (request_id.is_none() || status_code == STATUS_OK) {
            return serde_json::from_value(frame.clone())
                .map(Inbound::Push)
                .map_err(|e| FrameError {
                    action: action.clone(),
                    request_id: request_id.clone(),
                    problem: FrameProblem::BadFields(e.to_string()),
                });
        }
        match request_id {
            Some(request_id) => Ok(Inbound::Response {
                request_id,
                status_code,
                error_message: field("ErrorMessage"),
                frame,
            }),
            None => Err(FrameError {
                action,
                request_id: None,
                problem: FrameProblem::NoRequestId,
            }),
        }
    }

    /// An answer's result fields, read as `T`; the status decides success, not this.
    pub fn result<T: DeserializeOwned>(frame: &Value) -> Result<T, serde_json::Error> {
        T::deserialize(frame)
    }
}

/// A frame that could not be read, with what could be.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{problem}")]
pub struct FrameError {
    pub action: Option<String>,
    pub request_id: Option<String>,
    pub problem: FrameProblem,
}

impl FrameError {
    fn bare(problem: FrameProblem) -> Self {
        Self {
            action: None,
            request_id: None,
            problem,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FrameProblem {
    #[error("the frame is not JSON: {0}")]
    NotJson(String),
    #[error("the frame is not a JSON object")]
    NotAnObject,
    #[error("the frame has no \"Action\"")]
    NoAction,
    #[error("unknown Action {0:?}; the actions are: {actions}", actions = Request::ACTIONS.join(", "))]
    UnknownAction(String),
    #[error("the frame has no \"RequestId\"")]
    NoRequestId,
    #[error("the frame's fields do not fit its Action: {0}")]
    BadFields(String),
}

#[cfg(test)]
mod tests;
