//! The edge every WebSocket route handler shares: who is calling (from the authorizer
//! context), the management endpoint of their connection, replies, the one
//! open-and-respond step of a route with a client frame ([`Route`], in `request`), and
//! the protocol errors the domain's errors become ([`RouteError`], in `error`).
//!
//! API Gateway sends the integration's response body back to the client on routes
//! with a route response (two-way routes), so a reply is just the body of a 200.

mod error;
mod limit;
mod request;

pub use error::RouteError;
pub use limit::CallLimit;
pub use request::{Opened, Reply, Request, Route, Serves, WrongRoute};

use async_trait::async_trait;
use aws_lambda_events::apigw::{ApiGatewayProxyResponse, ApiGatewayWebsocketProxyRequest};
use aws_lambda_events::encodings::Body;
use lambda_runtime::LambdaEvent;

use tracing::warn;

use shared::domain::{ConnectionId, ConnectionIdError, EpochMillis, PlayerId, PlayerIdError};
use shared::frames::{ErrorCode, FrameRejection, ServerFrame, UntypedRequest};
use shared::ports::{ConnectionGateway, GatewayError};
use shared::requests::ClientRequest;
use shared::telemetry::ErrorChain;

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
pub fn untyped_request(
    event: &ApiGatewayWebsocketProxyRequest,
) -> Result<UntypedRequest, ApiGatewayProxyResponse> {
    read_frame(event, UntypedRequest::parse)
}

/// The typed request of a route event (its body read into the route's type), or the
/// error reply to send instead: `bad_request` naming the field at fault, with the frame's
/// route and `requestId`.
#[allow(clippy::result_large_err)] // The Err is the reply itself, returned straight to the runtime.
pub fn client_request(
    event: &ApiGatewayWebsocketProxyRequest,
) -> Result<ClientRequest, ApiGatewayProxyResponse> {
    read_frame(event, ClientRequest::parse)
}

/// The event's frame read by `parse`, or the error reply its rejection becomes.
#[allow(clippy::result_large_err)] // The Err is the reply itself, returned straight to the runtime.
fn read_frame<T>(
    event: &ApiGatewayWebsocketProxyRequest,
    parse: impl FnOnce(&str) -> Result<T, FrameRejection>,
) -> Result<T, ApiGatewayProxyResponse> {
    frame_text(event)
        .and_then(parse)
        .map_err(|rejection| reply(&rejection.into_frame()))
}

fn frame_text(event: &ApiGatewayWebsocketProxyRequest) -> Result<&str, FrameRejection> {
    body_text(event).map_err(|message| FrameRejection {
        route: None,
        request_id: None,
        code: ErrorCode::BadRequest,
        message: message.to_owned(),
    })
}
