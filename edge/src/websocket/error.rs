//! The protocol error a refused request becomes ([`RouteError`]), and the domain's
//! errors mapped to it: the domain speaks its own error types, only the edge speaks the
//! protocol's.

use std::sync::Arc;

use shared::domain::PlayerId;
use shared::errors::{
    ConflictDetail, ErrorMessage, FieldDetail, NotFoundDetail, RateLimitedDetail,
};
use shared::frames::{Answered, ErrorCode, ErrorReply, ServerFrame};
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
    /// The code, the message and that code's fields, as the `error` frame carries them
    /// (boxed: a refusal is the rare path, and `Result`s stay small).
    pub reply: Box<ErrorReply>,
    cause: Option<Arc<dyn std::error::Error + Send + Sync>>,
}

impl PartialEq for RouteError {
    /// Equal when the client would see the same frame.
    fn eq(&self, other: &Self) -> bool {
        self.reply == other.reply
    }
}

impl From<ErrorReply> for RouteError {
    fn from(reply: ErrorReply) -> Self {
        Self {
            reply: Box::new(reply),
            cause: None,
        }
    }
}

impl RouteError {
    /// An error of `code` carrying none of that code's fields.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ErrorReply::new(code, ErrorMessage::new(message)).into()
    }

    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::BadRequest, message)
    }

    pub fn code(&self) -> ErrorCode {
        self.reply.code()
    }

    pub fn message(&self) -> &str {
        self.reply.message()
    }

    /// Over a per-player rate limit (`limit` says which, e.g. "5 messages a minute"):
    /// nothing was done; retry after `retry_after_ms` (also a field of the frame).
    pub fn rate_limited(limit: &str, retry_after_ms: i64) -> Self {
        ErrorReply::rate_limited(
            format!("over the limit of {limit}; nothing was done; retry in {retry_after_ms} ms"),
            RateLimitedDetail { retry_after_ms },
        )
        .into()
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
        ServerFrame::error_reply(frame, *self.reply)
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

    /// A message over [`MAX_MESSAGE_FIELD_BYTES`] serialized (`detail`: the field, where
    /// the reply names it).
    pub fn message_too_large(size: usize, detail: FieldDetail) -> Self {
        ErrorReply::payload_too_large(
            format!(
                "`message` is {size} bytes serialized; the maximum is {MAX_MESSAGE_FIELD_BYTES}"
            ),
            detail,
        )
        .into()
    }

    /// Recipients no player has (`not_found` naming them as `playerIds`), or the store
    /// that failed looking them up.
    pub fn from_recipients(err: RecipientsError, consequence: &str) -> Self {
        match err {
            RecipientsError::Unknown(ids) => {
                let names: Vec<&str> = ids.iter().map(PlayerId::as_str).collect();
                let message = format!(
                    "no player has the id {}; nothing was sent",
                    names.join(", ")
                );
                ErrorReply::not_found(
                    message,
                    NotFoundDetail {
                        player_ids: Some(ids),
                        ..NotFoundDetail::default()
                    },
                )
                .into()
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
    // Whose it is, when it is another player's or a party's reservation found it.
    let player_id = (player != caller || in_party).then(|| player.clone());
    let (message, detail) = match pending {
        Pending::Ticket(ticket) => (
            format!(
                "{whose} a live matchmaking ticket {ticket}: wait for its result or stopMatchmaking"
            ),
            ConflictDetail {
                player_id,
                ..ConflictDetail::ticket(ticket.clone())
            },
        ),
        Pending::Placement(placement) => (
            format!(
                "{whose} a pending placement {placement}: wait for its result or cancelPlacement"
            ),
            ConflictDetail {
                placement_id: Some(placement.clone()),
                player_id,
                ..ConflictDetail::default()
            },
        ),
    };
    tracing::info!(player_id = %player, pending = %pending, "a request is already pending");
    ErrorReply::conflict(message, detail).into()
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
        assert_eq!(refused.code(), ErrorCode::Internal);
        assert_eq!(refused.message(), "a server error; retry");
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
