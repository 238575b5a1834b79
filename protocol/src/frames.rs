//! The client protocol, v1 (README.md#client-protocol-v1): frames clients send, frames
//! the server sends.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::acks::RouteAck;
use crate::activity::Activity;
use crate::domain::{EpochMillis, GameSession, PlacementId, PlacementStatus, PlayerId};
use crate::friends::FriendUpdate;
use crate::matchmaking::{MatchmakingDetail, TicketId, TicketStatus};
use crate::party::{ChangeKind, PartyId, PartyView};
use crate::schema::pushed;

/// `requestId` is echoed back; it is bounded so a client cannot make us echo megabytes.
pub const MAX_REQUEST_ID_LEN: usize = 64;
/// API Gateway's own limit on a whole (possibly multi-frame) message.
pub const MAX_WEBSOCKET_MESSAGE_BYTES: usize = 128 * 1024;
/// API Gateway's limit on a single WebSocket frame.
pub const MAX_FRAME_BYTES: usize = 32 * 1024;

pub use crate::errors::{ErrorCode, ErrorMessage, ErrorReply};

/// A request from a client as first read, before its body is typed: `{"route": "...",
/// "requestId"?: "...", "body"?: {...}}` with the route any string and the body any
/// object. [`crate::requests::ClientRequest`] is the typed request (the schema's
/// `ClientFrame`); `$default` reads frames only this far.
#[derive(Clone, Debug, PartialEq)]
pub struct UntypedRequest {
    pub route: String,
    pub request_id: Option<String>,
    pub body: Map<String, Value>,
}

/// Why a frame was refused, with whatever could be salvaged from it so the error
/// reply can still carry the client's `route` and `requestId`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrameRejection {
    pub route: Option<String>,
    pub request_id: Option<String>,
    pub code: ErrorCode,
    pub message: String,
}

impl FrameRejection {
    fn bad(route: Option<String>, request_id: Option<String>, message: impl Into<String>) -> Self {
        Self {
            route,
            request_id,
            code: ErrorCode::BadRequest,
            message: message.into(),
        }
    }

    pub fn into_frame(self) -> ServerFrame {
        ServerFrame::Error {
            route: self.route,
            request_id: self.request_id,
            reply: ErrorReply::new(self.code, ErrorMessage::new(self.message)),
        }
    }
}

impl UntypedRequest {
    /// Parses one client frame, saying precisely what is wrong with a bad one.
    pub fn parse(text: &str) -> Result<Self, FrameRejection> {
        if text.len() > MAX_WEBSOCKET_MESSAGE_BYTES {
            return Err(FrameRejection {
                route: None,
                request_id: None,
                code: ErrorCode::PayloadTooLarge,
                message: format!(
                    "frame is {} bytes; the maximum is {MAX_WEBSOCKET_MESSAGE_BYTES}",
                    text.len()
                ),
            });
        }
        let value: Value = serde_json::from_str(text).map_err(|e| {
            FrameRejection::bad(None, None, format!("frame is not valid JSON: {e}"))
        })?;
        let Value::Object(mut object) = value else {
            return Err(FrameRejection::bad(
                None,
                None,
                format!("frame must be a JSON object, got {}", json_kind(&value)),
            ));
        };

        // Salvage the route first so every later error can name it.
        let route = match object.remove("route") {
            Some(Value::String(route)) if !route.is_empty() => Ok(route),
            Some(Value::String(_)) => Err("`route` must not be empty".to_owned()),
            Some(other) => Err(format!(
                "`route` must be a string, got {}",
                json_kind(&other)
            )),
            None => Err("missing `route`".to_owned()),
        };
        let salvaged_route = route.as_ref().ok().cloned();

        let request_id = match object.remove("requestId") {
            None | Some(Value::Null) => None,
            Some(Value::String(id)) if id.chars().count() <= MAX_REQUEST_ID_LEN => Some(id),
            Some(Value::String(id)) => {
                return Err(FrameRejection::bad(
                    salvaged_route,
                    None,
                    format!(
                        "`requestId` must be at most {MAX_REQUEST_ID_LEN} characters, got {}",
                        id.chars().count()
                    ),
                ));
            }
            Some(other) => {
                return Err(FrameRejection::bad(
                    salvaged_route,
                    None,
                    format!("`requestId` must be a string, got {}", json_kind(&other)),
                ));
            }
        };

        let route = route.map_err(|m| FrameRejection::bad(None, request_id.clone(), m))?;

        let body = match object.remove("body") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(body)) => body,
            Some(other) => {
                return Err(FrameRejection::bad(
                    Some(route),
                    request_id,
                    format!("`body` must be a JSON object, got {}", json_kind(&other)),
                ));
            }
        };

        Ok(Self {
            route,
            request_id,
            body,
        })
    }
}

/// A frame a reply answers: the `route` and `requestId` the reply echoes. The request
/// untyped ([`UntypedRequest`]) or typed ([`crate::requests::ClientRequest`]).
pub trait Answered {
    fn route(&self) -> &str;
    fn request_id(&self) -> Option<&str>;
}

impl Answered for UntypedRequest {
    fn route(&self) -> &str {
        &self.route
    }

    fn request_id(&self) -> Option<&str> {
        self.request_id.as_deref()
    }
}

impl Answered for crate::requests::ClientRequest {
    fn route(&self) -> &str {
        Self::route(self).as_str()
    }

    fn request_id(&self) -> Option<&str> {
        Self::request_id(self)
    }
}

/// "an array", "a string", ... for error messages.
pub fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Every frame the server sends; always a JSON object with `"type"`. A frame pushed
/// through the inbox (marked `#[schemars(transform = pushed)]`) also carries `seq`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum ServerFrame {
    /// A successful reply: `route`, `requestId` (if given) and the route's result fields.
    Ack {
        route: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        request_id: Option<String>,
        #[serde(flatten)]
        result: Map<String, Value>,
    },
    /// A failed request. `type` comes first, then `route`, `requestId`, `code`,
    /// `message`, then the fields of that code ([`ErrorReply`]: e.g. the pending
    /// `placementId` of a `conflict`).
    Error {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        route: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        request_id: Option<String>,
        #[serde(flatten)]
        reply: ErrorReply,
    },
    /// A message from another player (or the system); `partyId` when it was sent to
    /// the party.
    #[schemars(transform = pushed)]
    Message {
        message_id: String,
        from: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        party_id: Option<PartyId>,
        message: Value,
        sent_at: EpochMillis,
        /// Sent by a game server or service through the backend API (`from` is then
        /// `system` or the service's name, never a player's).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        backend: bool,
    },
    /// A placement ended: `gameSession` (this player's own seat) only when
    /// `FULFILLED`.
    #[schemars(transform = pushed)]
    Placement {
        placement_id: PlacementId,
        status: PlacementStatus,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        game_session: Option<GameSession>,
    },
    /// A matchmaking ticket you are on changed status; what else it carries depends on
    /// the status ([`MatchmakingDetail`]). Deduplicate on (`ticketId`, `status`).
    #[schemars(transform = pushed)]
    Matchmaking {
        ticket_id: TicketId,
        status: TicketStatus,
        /// Boxed: the largest frame's fields would make every `ServerFrame` that large.
        #[serde(flatten)]
        detail: Box<MatchmakingDetail>,
    },
    /// A friend or a watched player changed presence: came online, went offline, or
    /// set an activity. `status` is `online` or `offline`; `activity` (and `details`),
    /// the player's activity, only while they are online and have one.
    #[schemars(transform = pushed)]
    Presence {
        player_id: String,
        status: String,
        #[serde(flatten)]
        activity: Option<Activity>,
        at: EpochMillis,
    },
    /// A party you are (or were) in changed: its state after the change, which change,
    /// and whom it was about. `party.version` grows by one per change.
    #[schemars(transform = pushed)]
    Party {
        party: PartyView,
        change: ChangeKind,
        player_id: PlayerId,
    },
    /// You are invited to a party until `expiresAt` (ms): `joinParty` or
    /// `declinePartyInvite`.
    #[schemars(transform = pushed)]
    PartyInvite {
        party_id: PartyId,
        from: PlayerId,
        expires_at: EpochMillis,
    },
    /// A player declined your invitation to a party.
    #[schemars(transform = pushed)]
    PartyInviteDeclined {
        party_id: PartyId,
        player_id: PlayerId,
    },
    /// A relation of yours changed: what it is now from your side (`removed`: gone).
    #[schemars(transform = pushed)]
    Friend {
        player_id: PlayerId,
        state: FriendUpdate,
    },
    /// The same player connected elsewhere; this socket closes next. Do not reconnect.
    SessionReplaced,
    /// The server is closing this socket for `reason`; reconnect (and `resume`).
    Disconnected { reason: DisconnectReason },
    /// The backend (a game server or service) ended this connection for `reason`, the
    /// caller's own words; the socket closes next. Not a ban: the player may reconnect.
    /// `connectionId` is the connection it closes: a replay to a later connection
    /// skips it.
    #[schemars(transform = pushed)]
    DisconnectedByServer {
        reason: String,
        connection_id: String,
    },
}

/// Why the server closed a socket (the `disconnected` frame).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DisconnectReason {
    /// No `heartbeat` for longer than the timeout: the sweeper took the player offline.
    HeartbeatTimeout,
    /// The server had already given this connection up (it was reported gone, or its
    /// grace period ended) when it spoke again.
    ConnectionLost,
}

impl ServerFrame {
    /// The `ack` answering `frame` with `ack`'s fields (`ack` is the one for `frame`'s
    /// route: [`RouteAck::route`]).
    pub fn ack(frame: &impl Answered, ack: &RouteAck) -> Self {
        Self::Ack {
            route: frame.route().to_owned(),
            request_id: frame.request_id().map(str::to_owned),
            result: ack.fields(),
        }
    }

    /// An `error` reply to `frame`.
    pub fn error(frame: &impl Answered, code: ErrorCode, message: impl Into<String>) -> Self {
        Self::error_reply(frame, ErrorReply::new(code, ErrorMessage::new(message)))
    }

    /// The `error` frame of `reply`, answering `frame`.
    pub fn error_reply(frame: &impl Answered, reply: ErrorReply) -> Self {
        Self::Error {
            route: Some(frame.route().to_owned()),
            request_id: frame.request_id().map(str::to_owned),
            reply,
        }
    }

    pub fn to_json(&self) -> String {
        // A ServerFrame holds only strings, numbers and JSON values: it always serializes.
        serde_json::to_string(self).unwrap_or_else(|_| {
            r#"{"type":"error","code":"internal","message":"unserializable frame"}"#.to_owned()
        })
    }
}

/// Most recipients (or presence targets) one request may name.
pub const MAX_PLAYER_IDS: usize = 100;

#[cfg(test)]
mod tests {
    use super::*;

    fn placement_id(raw: &str) -> PlacementId {
        PlacementId::parse(raw).unwrap()
    }
    use serde_json::json;

    fn rejection(text: &str) -> FrameRejection {
        UntypedRequest::parse(text).expect_err("should be rejected")
    }

    #[test]
    fn given_a_full_frame_when_parsed_then_route_request_id_and_body_are_kept() {
        let frame =
            UntypedRequest::parse(r#"{"route":"heartbeat","requestId":"r1","body":{"a":1}}"#)
                .unwrap();
        assert_eq!(frame.route, "heartbeat");
        assert_eq!(frame.request_id.as_deref(), Some("r1"));
        assert_eq!(frame.body.get("a"), Some(&json!(1)));
    }

    #[test]
    fn given_no_body_or_a_null_body_when_parsed_then_body_is_empty() {
        assert!(
            UntypedRequest::parse(r#"{"route":"resume"}"#)
                .unwrap()
                .body
                .is_empty()
        );
        assert!(
            UntypedRequest::parse(r#"{"route":"resume","body":null}"#)
                .unwrap()
                .body
                .is_empty()
        );
    }

    #[test]
    fn given_malformed_frames_when_parsed_then_each_error_says_what_is_wrong() {
        let cases = [
            ("hello", "not valid JSON"),
            ("[1,2]", "must be a JSON object, got an array"),
            ("42", "got a number"),
            (r#"{"body":{}}"#, "missing `route`"),
            (r#"{"route":7}"#, "`route` must be a string, got a number"),
            (r#"{"route":""}"#, "`route` must not be empty"),
            (
                r#"{"route":"x","body":[]}"#,
                "`body` must be a JSON object, got an array",
            ),
            (
                r#"{"route":"x","requestId":5}"#,
                "`requestId` must be a string",
            ),
        ];
        for (text, expected) in cases {
            let r = rejection(text);
            assert_eq!(r.code, ErrorCode::BadRequest, "{text}");
            assert!(r.message.contains(expected), "{text}: {}", r.message);
        }
    }

    #[test]
    fn given_a_request_id_over_64_characters_when_parsed_then_bad_request_keeps_the_route() {
        let text = format!(
            r#"{{"route":"heartbeat","requestId":"{}"}}"#,
            "x".repeat(65)
        );
        let r = rejection(&text);
        assert_eq!(r.route.as_deref(), Some("heartbeat"));
        assert_eq!(r.request_id, None);
        assert!(r.message.contains("at most 64"), "{}", r.message);
        let ok = format!(
            r#"{{"route":"heartbeat","requestId":"{}"}}"#,
            "x".repeat(64)
        );
        assert!(UntypedRequest::parse(&ok).is_ok());
    }

    #[test]
    fn given_a_bad_body_when_rejected_then_the_request_id_is_echoed() {
        let r = rejection(r#"{"route":"x","requestId":"r9","body":"no"}"#);
        assert_eq!(r.request_id.as_deref(), Some("r9"));
        let frame: Value = serde_json::from_str(&r.into_frame().to_json()).unwrap();
        assert_eq!(
            frame,
            json!({"type":"error","route":"x","requestId":"r9","code":"bad_request",
                   "message":"`body` must be a JSON object, got a string"})
        );
    }

    #[test]
    fn given_an_oversized_frame_when_parsed_then_payload_too_large() {
        let text = format!(
            r#"{{"route":"x","body":{{"p":"{}"}}}}"#,
            "a".repeat(MAX_WEBSOCKET_MESSAGE_BYTES)
        );
        assert_eq!(rejection(&text).code, ErrorCode::PayloadTooLarge);
    }

    #[test]
    fn server_frames_serialize_with_type_and_camel_case_fields() {
        let frame = UntypedRequest::parse(r#"{"route":"heartbeat","requestId":"r1"}"#).unwrap();
        let ack = ServerFrame::ack(
            &frame,
            &RouteAck::Heartbeat(crate::acks::HeartbeatAck { server_time: 5 }),
        );
        assert_eq!(
            serde_json::to_value(&ack).unwrap(),
            json!({"type":"ack","route":"heartbeat","requestId":"r1","serverTime":5})
        );
        assert_eq!(
            serde_json::to_value(ServerFrame::SessionReplaced).unwrap(),
            json!({"type":"session_replaced"})
        );
        let message = ServerFrame::Message {
            message_id: "m1".into(),
            from: "alice".into(),
            party_id: None,
            message: json!({"hi": true}),
            sent_at: 7,
            backend: false,
        };
        assert_eq!(
            serde_json::to_value(&message).unwrap(),
            json!({"type":"message","messageId":"m1","from":"alice","message":{"hi":true},"sentAt":7})
        );
    }

    #[test]
    fn placement_frames_carry_a_game_session_only_when_fulfilled() {
        let fulfilled = ServerFrame::Placement {
            placement_id: placement_id("p-1"),
            status: PlacementStatus::Fulfilled,
            game_session: Some(crate::fixtures::seat()),
        };
        assert_eq!(
            serde_json::to_value(&fulfilled).unwrap(),
            json!({"type":"placement","placementId":"p-1","status":"FULFILLED",
                   "gameSession":{"gameSessionArn":"arn:gs","ipAddress":"10.0.0.1",
                   "dnsName":"host.example","port":7777,"region":"us-east-1",
                   "playerSessionId":"psess-1"}})
        );
        let back: ServerFrame = serde_json::from_str(&fulfilled.to_json()).unwrap();
        assert_eq!(back, fulfilled);
        let timed_out = ServerFrame::Placement {
            placement_id: placement_id("p-2"),
            status: PlacementStatus::TimedOut,
            game_session: None,
        };
        assert_eq!(
            serde_json::to_value(&timed_out).unwrap(),
            json!({"type":"placement","placementId":"p-2","status":"TIMED_OUT"})
        );
    }

    #[test]
    fn server_frames_round_trip_through_json() {
        let frame = ServerFrame::Error {
            route: None,
            request_id: None,
            reply: ErrorReply::unknown_route("no", Default::default()),
        };
        let back: ServerFrame = serde_json::from_str(&frame.to_json()).unwrap();
        assert_eq!(back, frame);
    }
}
