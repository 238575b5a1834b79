//! The protocol error a refused request becomes ([`RouteError`]), and the domain's
//! errors mapped to it: the domain speaks its own error types, only the edge speaks the
//! protocol's.

use std::sync::Arc;

use shared::domain::PlayerId;
use shared::frames::{Answered, ErrorCode, ServerFrame};
use shared::friends::{ChangeError, FriendRefusal};
use shared::messaging::recipients::{MAX_MESSAGE_FIELD_BYTES, RecipientsError};
use shared::party::PartyRefusal;
use shared::pending::{Pending, PendingError};
use shared::ports::StoreError;
use shared::rate_limits::{Exceeded, LimitError};

/// A request refused with a protocol error (a client mistake, or a dependency that
/// failed), turned into an `error` frame for the request that caused it. The cause, if
/// any, is kept for the log and never shown to the client.
#[derive(Clone, Debug)]
pub struct RouteError {
    pub code: ErrorCode,
    pub message: String,
    /// Fields the `error` frame carries besides its message (`placementId`, ...).
    pub details: serde_json::Map<String, serde_json::Value>,
    cause: Option<Arc<dyn std::error::Error + Send + Sync>>,
}

impl PartialEq for RouteError {
    /// Equal when the client would see the same frame.
    fn eq(&self, other: &Self) -> bool {
        self.code == other.code && self.message == other.message && self.details == other.details
    }
}

impl RouteError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            details: serde_json::Map::new(),
            cause: None,
        }
    }

    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::BadRequest, message)
    }

    /// Over a per-player rate limit (`limit` says which, e.g. "5 messages a minute"):
    /// nothing was done; retry after `retry_after_ms` (also a field of the frame).
    pub fn rate_limited(limit: &str, retry_after_ms: i64) -> Self {
        Self::new(
            ErrorCode::RateLimited,
            format!("over the limit of {limit}; nothing was done; retry in {retry_after_ms} ms"),
        )
        .with_detail("retryAfterMs", retry_after_ms)
    }

    /// A store that failed while serving the request: `unavailable` when retrying may
    /// work (throttling, 5xx, no connection), `internal` for a fault (a corrupt item, a
    /// missing permission). `consequence` tells the client what did (not) happen, e.g.
    /// "nothing was sent; retry".
    pub fn from_store(err: StoreError, consequence: &str) -> Self {
        let refusal = match &err {
            StoreError::Unavailable(_) => Self::new(
                ErrorCode::Unavailable,
                format!("the game's storage is unavailable; {consequence}"),
            ),
            StoreError::Corrupt { .. } | StoreError::Other(_) => Self::new(
                ErrorCode::Internal,
                format!("a server error; {consequence}"),
            ),
        };
        refusal.caused_by(err)
    }

    /// One more field for the `error` frame (e.g. `placementId`).
    pub fn with_detail(mut self, name: &str, value: impl Into<serde_json::Value>) -> Self {
        self.details.insert(name.to_owned(), value.into());
        self
    }

    /// Keeps `cause` for the log.
    pub fn caused_by(mut self, cause: impl std::error::Error + Send + Sync + 'static) -> Self {
        self.cause = Some(Arc::new(cause));
        self
    }

    /// What made the server refuse, if anything did.
    pub fn cause(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.cause
            .as_deref()
            .map(|cause| cause as &(dyn std::error::Error + 'static))
    }

    pub fn into_frame(self, frame: &impl Answered) -> ServerFrame {
        ServerFrame::Error {
            route: Some(frame.route().to_owned()),
            request_id: frame.request_id().map(str::to_owned),
            code: self.code,
            message: self.message,
            details: self.details,
        }
    }
}

impl From<StoreError> for RouteError {
    fn from(err: StoreError) -> Self {
        Self::from_store(err, "retry")
    }
}

impl From<PartyRefusal> for RouteError {
    fn from(refusal: PartyRefusal) -> Self {
        Self::new(refusal.code(), refusal.to_string())
    }
}

impl From<FriendRefusal> for RouteError {
    fn from(refusal: FriendRefusal) -> Self {
        Self::new(refusal.code(), refusal.to_string())
    }
}

impl From<ChangeError> for RouteError {
    fn from(err: ChangeError) -> Self {
        match err {
            ChangeError::Refused(refusal) => refusal.into(),
            ChangeError::Store(err) => Self::from_store(err, "nothing changed; retry"),
        }
    }
}

impl RouteError {
    /// A rate limit that refused the call (`label` names the limit crossed, e.g. "5
    /// messages a minute"), or the store that failed counting it.
    pub fn from_limit(
        err: LimitError,
        label: impl FnOnce(Exceeded) -> String,
        consequence: &str,
    ) -> Self {
        match err {
            LimitError::Limited {
                exceeded,
                retry_after_ms,
            } => Self::rate_limited(&label(exceeded), retry_after_ms),
            LimitError::Store(err) => Self::from_store(err, consequence),
        }
    }

    /// A message over [`MAX_MESSAGE_FIELD_BYTES`] serialized.
    pub fn message_too_large(size: usize) -> Self {
        Self::new(
            ErrorCode::PayloadTooLarge,
            format!(
                "`message` is {size} bytes serialized; the maximum is {MAX_MESSAGE_FIELD_BYTES}"
            ),
        )
    }

    /// Recipients no player has (`not_found` naming them as `playerIds`), or the store
    /// that failed looking them up.
    pub fn from_recipients(err: RecipientsError, consequence: &str) -> Self {
        match err {
            RecipientsError::Unknown(ids) => {
                let ids: Vec<&str> = ids.iter().map(PlayerId::as_str).collect();
                Self::new(
                    ErrorCode::NotFound,
                    format!("no player has the id {}; nothing was sent", ids.join(", ")),
                )
                .with_detail("playerIds", ids)
            }
            RecipientsError::Store(err) => Self::from_store(err, consequence),
        }
    }

    /// A pending request that could not be reserved, for `caller`: a `conflict` naming
    /// what is pending (`ticketId` or `placementId`, and `playerId` when it is another
    /// member's), the party's refusal, or the store that failed (`consequence`).
    pub fn from_pending(err: PendingError, caller: &PlayerId, consequence: &str) -> Self {
        match err {
            PendingError::Taken {
                player,
                pending,
                in_party,
            } => pending_conflict(&player, &pending, caller, in_party),
            PendingError::Party(refusal) => refusal.into(),
            PendingError::TooManyPlayers { max } => {
                Self::bad_request(format!("a ticket holds at most {max} players"))
            }
            PendingError::KeptChanging => Self::new(
                ErrorCode::Unavailable,
                "your pending request kept changing; retry",
            ),
            PendingError::Store(err) => Self::from_store(err, consequence),
        }
    }
}

/// A `conflict` naming what `player` waits for, and (`playerId`) who, when it is
/// another player or a party's reservation found it.
fn pending_conflict(
    player: &PlayerId,
    pending: &Pending,
    caller: &PlayerId,
    in_party: bool,
) -> RouteError {
    let whose = if player == caller {
        "you have".to_owned()
    } else {
        format!("{player} has")
    };
    let error = match pending {
        Pending::Ticket(ticket) => RouteError::new(
            ErrorCode::Conflict,
            format!(
                "{whose} a live matchmaking ticket {ticket}: wait for its result or stopMatchmaking"
            ),
        )
        .with_detail("ticketId", ticket.as_str()),
        Pending::Placement(placement) => RouteError::new(
            ErrorCode::Conflict,
            format!(
                "{whose} a pending placement {placement}: wait for its result or cancelPlacement"
            ),
        )
        .with_detail("placementId", placement.as_str()),
    };
    tracing::info!(player_id = %player, pending = %pending, "a request is already pending");
    if player == caller && !in_party {
        error
    } else {
        error.with_detail("playerId", player.as_str())
    }
}

#[cfg(test)]
mod route_tests {
    use aws_lambda_events::encodings::Body;

    use super::*;
    use crate::websocket::{Opened, Request};
    use contracts::events::route_event;

    fn request(body: &str) -> Request {
        let mut event = route_event("heartbeat", "alice", "c1", 1, Some(body)).payload;
        event.body = Some(body.to_owned());
        match Request::open(&event).unwrap() {
            Opened::Request(request) => request,
            Opened::Refused(reply) => panic!("refused: {reply:?}"),
        }
    }

    #[test]
    fn a_store_that_is_unavailable_is_an_unavailable_frame_with_route_and_request_id() {
        let request = request(r#"{"route":"heartbeat","requestId":"r7"}"#);
        let refused = RouteError::from_store(
            StoreError::Unavailable("connection refused".into()),
            "nothing was saved; retry",
        );
        assert_eq!(refused.cause().unwrap().to_string(), "store unavailable");
        let response = request.refuse(refused);
        let Some(Body::Text(text)) = response.body else {
            panic!("a text reply")
        };
        let frame: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            frame,
            serde_json::json!({"type":"error","route":"heartbeat","requestId":"r7",
                "code":"unavailable",
                "message":"the game's storage is unavailable; nothing was saved; retry"})
        );
        assert!(text.starts_with(r#"{"type":"error""#), "type first: {text}");
    }

    #[test]
    fn a_store_fault_is_an_internal_frame() {
        let refused = RouteError::from(StoreError::Corrupt {
            key: "playerId=alice".into(),
            reason: "status is 7".into(),
        });
        assert_eq!(refused.code, ErrorCode::Internal);
        assert_eq!(refused.message, "a server error; retry");
    }

    #[test]
    fn a_bad_frame_is_answered_not_a_lambda_error_and_a_missing_authorizer_is() {
        let mut event = route_event("heartbeat", "alice", "c1", 1, Some("x")).payload;
        event.body = Some("not json".into());
        assert!(matches!(Request::open(&event).unwrap(), Opened::Refused(_)));
        event.request_context.authorizer = Default::default();
        assert!(Request::open(&event).is_err());
    }

    #[test]
    fn given_a_body_its_route_cannot_read_then_bad_request_names_the_field_with_route_and_request_id()
     {
        let body = r#"{"route":"joinParty","requestId":"r3","body":{"partyId":7}}"#;
        let event = route_event("joinParty", "alice", "c1", 1, Some(body)).payload;
        let Opened::Refused(response) = Request::open(&event).unwrap() else {
            panic!("a party id of 7 is refused")
        };
        let Some(Body::Text(text)) = response.body else {
            panic!("a text reply")
        };
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&text).unwrap(),
            serde_json::json!({"type":"error","route":"joinParty","requestId":"r3",
                "code":"bad_request","message":"`partyId` must be a string, got a number"})
        );
    }
}
