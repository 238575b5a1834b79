//! The kit every WebSocket route handler uses: who is calling (from the authorizer
//! context), the management endpoint of their connection, and replies.
//!
//! API Gateway sends the integration's response body back to the client on routes
//! with a route response (two-way routes), so a reply is just the body of a 200.

use async_trait::async_trait;
use aws_lambda_events::apigw::{ApiGatewayProxyResponse, ApiGatewayWebsocketProxyRequest};
use aws_lambda_events::encodings::Body;
use lambda_runtime::LambdaEvent;

use std::sync::Arc;

use serde::Serialize;
use tracing::{error, warn};

use crate::domain::{ConnectionId, ConnectionIdError, EpochMillis, PlayerId, PlayerIdError};
use crate::ports::rate_limit::{Bucket, Quota, RateLimiter, Spent};
use crate::ports::{ConnectionGateway, GatewayError, StoreError};
use crate::protocol::{Answered, ClientFrame, ErrorCode, FrameRejection, ServerFrame};
use crate::requests::ClientRequest;
use crate::telemetry::ErrorChain;

/// The authorizer context key carrying the player id.
pub const PLAYER_ID_CONTEXT_KEY: &str = "playerId";

pub type RouteEvent = LambdaEvent<ApiGatewayWebsocketProxyRequest>;
pub type RouteResult = Result<ApiGatewayProxyResponse, lambda_runtime::Error>;

/// A WebSocket route handler, as API Gateway (or the local stack) invokes it.
#[async_trait]
pub trait RouteHandler: Send + Sync {
    async fn handle(&self, event: RouteEvent) -> RouteResult;
}

/// Faults in the event itself: only a misconfigured API (no authorizer on `$connect`,
/// a non-WebSocket integration) produces these, so they are errors, not replies.
#[derive(Debug, thiserror::Error)]
pub enum CallerError {
    #[error("requestContext.connectionId is missing")]
    MissingConnectionId,
    #[error("requestContext.connectionId is invalid")]
    InvalidConnectionId(#[source] ConnectionIdError),
    #[error(
        "requestContext.authorizer.playerId is missing: is the authorizer attached to $connect?"
    )]
    MissingPlayerId,
    #[error("requestContext.authorizer.playerId is invalid")]
    InvalidPlayerId(#[source] PlayerIdError),
    #[error("requestContext.domainName or stage is missing")]
    MissingEndpoint,
}

/// Who sent an event, taken from the request context only (never from the body).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caller {
    pub player_id: PlayerId,
    pub connection_id: ConnectionId,
    /// Management API base URL for this connection.
    pub endpoint: String,
    pub connected_at: EpochMillis,
    pub request_time: EpochMillis,
}

impl Caller {
    pub fn from_event(event: &ApiGatewayWebsocketProxyRequest) -> Result<Self, CallerError> {
        let ctx = &event.request_context;
        let connection_id = ctx
            .connection_id
            .clone()
            .ok_or(CallerError::MissingConnectionId)?;
        let connection_id =
            ConnectionId::parse(connection_id).map_err(CallerError::InvalidConnectionId)?;
        let player_id = ctx
            .authorizer
            .fields
            .get(PLAYER_ID_CONTEXT_KEY)
            .and_then(|v| v.as_str())
            .ok_or(CallerError::MissingPlayerId)?;
        let player_id = PlayerId::parse(player_id).map_err(CallerError::InvalidPlayerId)?;
        let endpoint = management_endpoint(event).ok_or(CallerError::MissingEndpoint)?;
        Ok(Self {
            player_id,
            connection_id,
            endpoint,
            connected_at: ctx.connected_at,
            request_time: ctx.request_time_epoch,
        })
    }
}

/// `https://{domainName}/{stage}`, the base URL of the `@connections` API; plain http
/// for a loopback host (the local stack).
pub fn management_endpoint(event: &ApiGatewayWebsocketProxyRequest) -> Option<String> {
    let ctx = &event.request_context;
    let domain = ctx.domain_name.as_deref().filter(|d| !d.is_empty())?;
    let stage = ctx.stage.as_deref().filter(|s| !s.is_empty())?;
    let host = domain.rsplit_once(':').map_or(domain, |(host, _port)| host);
    let scheme = if host == "localhost" || host.starts_with("127.") || host == "[::1]" {
        "http"
    } else {
        "https"
    };
    Some(format!("{scheme}://{domain}/{stage}"))
}

/// Tells a socket why it is closing (`frame`), then closes it: what the server does to a
/// connection it will not serve. Both steps are best effort (the socket may be gone, or
/// still opening: then API Gateway answers 410, and the socket's own first frame gets it
/// closed); failures other than 410 are logged.
pub async fn tell_and_close(
    gateway: &dyn ConnectionGateway,
    endpoint: &str,
    connection: &ConnectionId,
    frame: &ServerFrame,
) {
    match gateway
        .post(endpoint, connection, frame.to_json().as_bytes())
        .await
    {
        Ok(()) | Err(GatewayError::Gone) => {}
        Err(err) => {
            warn!(connection_id = %connection, error = %ErrorChain(&err), "could not tell a connection why it closes")
        }
    }
    match gateway.delete(endpoint, connection).await {
        Ok(()) | Err(GatewayError::Gone) => {}
        Err(err) => {
            warn!(connection_id = %connection, error = %ErrorChain(&err), "could not close a connection")
        }
    }
}

/// A 200 whose body API Gateway sends back to the client.
pub fn reply(frame: &ServerFrame) -> ApiGatewayProxyResponse {
    let mut response = ApiGatewayProxyResponse::default();
    response.status_code = 200;
    response.body = Some(Body::Text(frame.to_json()));
    response
}

/// A bodiless response: `200` accepts a `$connect`, anything else refuses it.
pub fn status(code: i64) -> ApiGatewayProxyResponse {
    let mut response = ApiGatewayProxyResponse::default();
    response.status_code = code;
    response
}

/// The frame text of an event: API Gateway base64-encodes binary frames.
pub fn body_text(event: &ApiGatewayWebsocketProxyRequest) -> Result<&str, &'static str> {
    if event.is_base64_encoded {
        return Err("binary frames are not supported: send each request as a JSON text frame");
    }
    Ok(event.body.as_deref().unwrap_or(""))
}

/// The client frame of a route event (route, `requestId` and the body untyped), or the
/// error reply to send instead: a bad frame is the client's mistake, answered on the
/// socket, never a Lambda error. `$default` reads frames this way; routes read theirs
/// typed, with [`Request::open`].
#[allow(clippy::result_large_err)] // The Err is the reply itself, returned straight to the runtime.
pub fn client_frame(
    event: &ApiGatewayWebsocketProxyRequest,
) -> Result<ClientFrame, ApiGatewayProxyResponse> {
    frame_text(event)
        .and_then(ClientFrame::parse)
        .map_err(|rejection| reply(&rejection.into_frame()))
}

/// The typed request of a route event (its body read into the route's type), or the
/// error reply to send instead: `bad_request` naming the field at fault, with the frame's
/// route and `requestId`.
#[allow(clippy::result_large_err)] // The Err is the reply itself, returned straight to the runtime.
pub fn client_request(
    event: &ApiGatewayWebsocketProxyRequest,
) -> Result<ClientRequest, ApiGatewayProxyResponse> {
    frame_text(event)
        .and_then(ClientRequest::parse)
        .map_err(|rejection| reply(&rejection.into_frame()))
}

/// The route API Gateway matched (its `routeKey`), as one of the protocol's names:
/// a metric's `Route` takes no value a client made up.
fn route_of(event: &ApiGatewayWebsocketProxyRequest) -> &'static str {
    let key = event
        .request_context
        .route_key
        .as_deref()
        .unwrap_or_default();
    crate::protocol::ROUTES
        .iter()
        .find(|route| **route == key)
        .copied()
        .unwrap_or("$default")
}

fn frame_text(event: &ApiGatewayWebsocketProxyRequest) -> Result<&str, FrameRejection> {
    body_text(event).map_err(|message| FrameRejection {
        route: None,
        request_id: None,
        code: ErrorCode::BadRequest,
        message: message.to_owned(),
    })
}

/// A client's request on a route: who sent it (from the authorizer context, never the
/// body) and the frame, typed: its body already read into the route's type. Every route
/// with a client frame opens with [`Request::open`] and answers with
/// [`Request::respond`], so they all follow one failure contract: a bad frame (one its
/// route's type does not read) or a refused request is an `error` frame carrying the
/// route and `requestId`; a dependency that fails is `unavailable` (safe to retry) and a
/// fault is `internal`, both logged with their whole cause; only an API wired wrong (no
/// authorizer context, a route sent to the wrong function) is a Lambda error.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    pub caller: Caller,
    pub frame: ClientRequest,
}

/// A frame of a route the function it reached does not serve: the API is wired wrong.
#[derive(Debug, thiserror::Error)]
#[error("{function} was invoked for route {route:?}; it serves {serves}")]
pub struct WrongRoute {
    pub function: &'static str,
    pub route: &'static str,
    pub serves: &'static str,
}

/// What [`Request::open`] found in a route event: a request to handle, or the reply a
/// bad frame gets instead.
#[derive(Clone, Debug)]
pub enum Opened {
    /// A well-formed frame from an authorized caller: the route handles it.
    Request(Request),
    /// A bad frame: this `error` reply is the answer, and the route does nothing else.
    Refused(ApiGatewayProxyResponse),
}

impl Request {
    /// The request of a route event, or the `error` reply a bad frame gets. `Err` only
    /// when the event itself is wrong (a fault in how the API is wired).
    pub fn open(event: &ApiGatewayWebsocketProxyRequest) -> Result<Opened, CallerError> {
        let caller = Caller::from_event(event)?;
        Ok(match client_request(event) {
            Ok(frame) => Opened::Request(Self { caller, frame }),
            Err(reply) => {
                crate::metrics::request(route_of(event), Some(ErrorCode::BadRequest));
                Opened::Refused(reply)
            }
        })
    }

    /// The reply: an `ack` carrying `result`'s fields, or the `error` frame of a refusal
    /// (logged first, with its cause, when it is the server's or a dependency's doing).
    pub fn respond<T: Serialize>(&self, result: Result<T, RouteError>) -> ApiGatewayProxyResponse {
        match result {
            Ok(fields) => {
                crate::metrics::request(self.frame.route(), None);
                reply(&ServerFrame::ack(&self.frame, fields))
            }
            Err(refusal) => self.refuse(refusal),
        }
    }

    /// The `error` frame of `refusal`, logged first when it is not the client's mistake.
    pub fn refuse(&self, refusal: RouteError) -> ApiGatewayProxyResponse {
        self.log(&refusal);
        crate::metrics::request(self.frame.route(), Some(refusal.code));
        reply(&refusal.into_frame(&self.frame))
    }

    /// Logs a refusal that is the server's or a dependency's doing, with its whole cause.
    pub fn log(&self, refusal: &RouteError) {
        let (player, connection, route) = (
            self.caller.player_id.as_str(),
            self.caller.connection_id.as_str(),
            self.frame.route(),
        );
        let cause = refusal
            .cause()
            .map(|cause| ErrorChain(cause).to_string())
            .unwrap_or_default();
        match refusal.code {
            ErrorCode::Unavailable => {
                warn!(player_id = player, connection_id = connection, route, error = %cause, "{}", refusal.message)
            }
            ErrorCode::Internal => {
                error!(player_id = player, connection_id = connection, route, error = %cause, "{}", refusal.message)
            }
            _ => {}
        }
    }
}

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

    /// Counts one call of `player`'s against `calls_per_minute` in `bucket` (0: no limit,
    /// no write), as every route that limits calls does: over the limit, `rate_limited`
    /// naming `limit` ("10 party invitations a minute"); a store failure, `from_store`
    /// with `consequence`.
    pub async fn spend_call(
        limiter: &dyn RateLimiter,
        player: &PlayerId,
        bucket: Bucket,
        calls_per_minute: u32,
        now: EpochMillis,
        limit: &str,
        consequence: &str,
    ) -> Result<(), Self> {
        let quota = Quota {
            calls: calls_per_minute,
            units: 0,
        };
        let spent = limiter
            .spend(player, bucket, quota, 0, now)
            .await
            .map_err(|e| Self::from_store(e, consequence))?;
        match spent {
            Spent::Allowed => Ok(()),
            Spent::Limited { retry_after_ms, .. } => {
                crate::metrics::rate_limited(bucket.as_str());
                Err(Self::rate_limited(limit, retry_after_ms))
            }
        }
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

#[cfg(test)]
mod route_tests {
    use super::*;
    use crate::testing::events::route_event;

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
