//! The API Gateway WebSocket API, emulated: `ws://127.0.0.1:{port}/{stage}`.
//!
//! On upgrade: the REQUEST authorizer (Deny → 401/403, no upgrade), then `$connect`
//! (non-2xx → that status, no upgrade), then the upgrade, and only then is the
//! connection registered (the `@connections` API answers 410 before). Each message is
//! routed on `$request.body.route` and handled in order; replies of two-way routes are
//! sent back. Frame and message limits close with 1009; idle and maximum-duration
//! timeouts close with 1001; `$disconnect` fires once per connection, after it is
//! unregistered.

mod connection;
pub mod events;
pub mod registry;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use aws_lambda_events::encodings::Body;
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::{ConnectInfo, Query, State};
use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use shared::frames::{MAX_FRAME_BYTES, MAX_WEBSOCKET_MESSAGE_BYTES};
use tokio::sync::{oneshot, watch};

use crate::auth::{AuthDecision, ConnectAuthorizer};
use crate::ids;
use crate::invoke::invoke;
use crate::routes::{CONNECT, Routes};
use events::{ConnectionFacts, Invocation, UpgradeRequest};
use registry::ConnectionRegistry;

/// Everything the WebSocket side of the stack shares.
pub struct Gateway {
    pub stage: String,
    /// `127.0.0.1:{port}`: `requestContext.domainName`.
    pub domain_name: String,
    pub routes: Arc<Routes>,
    pub authorizer: Arc<dyn ConnectAuthorizer>,
    pub registry: Arc<ConnectionRegistry>,
    pub idle_timeout: Duration,
    pub max_connection_duration: Duration,
    /// Frames sent to a client move its `lastActiveAt` too (LAST_ACTIVE_COUNTS_SENT_FRAMES).
    pub last_active_counts_sent_frames: bool,
    /// Where `connectedAt` and `requestTimeEpoch` come from (the stack's clock).
    pub clock: Arc<dyn shared::ports::Clock>,
    pub(crate) shutdown: watch::Receiver<bool>,
    pub(crate) tracker: Tracker,
    /// Told of each connection and frame (the console's feed).
    pub tap: Arc<dyn ConnectionTap>,
}

/// Which way a text frame went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameDirection {
    /// From the client.
    In,
    /// Written to the client (a reply or an `@connections` post).
    Out,
}

/// What the gateway tells of each connection as it goes. The console's feed implements
/// it (`local::console::Hub`): the gateway names only this trait, so the console depends
/// on the gateway and not the other way round.
pub trait ConnectionTap: Send + Sync {
    /// A connection opened (after `$connect` accepted it).
    fn connected(&self, at: i64, player_id: Option<&str>, connection_id: &str);

    /// A text frame; `at` is read only if the frame is recorded (this is on every
    /// frame's path).
    fn frame(
        &self,
        direction: FrameDirection,
        at: &dyn Fn() -> i64,
        player_id: Option<&str>,
        connection_id: &str,
        text: &str,
    );

    /// A connection closed with `code` (1006: abruptly).
    fn disconnected(
        &self,
        at: i64,
        player_id: Option<&str>,
        connection_id: &str,
        code: u16,
        reason: &str,
    );
}

/// Counts the connections (and handshakes) in progress, so shutdown can wait for
/// every `$disconnect`.
#[derive(Clone)]
pub(crate) struct Tracker(Arc<watch::Sender<usize>>);

pub(crate) struct TrackerGuard(Arc<watch::Sender<usize>>);

impl Tracker {
    pub(crate) fn new() -> Self {
        Self(Arc::new(watch::Sender::new(0)))
    }

    pub(crate) fn enter(&self) -> TrackerGuard {
        self.0.send_modify(|n| *n += 1);
        TrackerGuard(self.0.clone())
    }

    /// Resolves once nothing is in progress.
    pub(crate) async fn idle(&self) {
        let mut rx = self.0.subscribe();
        // The sender lives in `self`: `wait_for` cannot fail.
        let _ = rx.wait_for(|n| *n == 0).await;
    }
}

impl Drop for TrackerGuard {
    fn drop(&mut self) {
        self.0.send_modify(|n| *n = n.saturating_sub(1));
    }
}

/// Resolves when the stack shuts down (never, if its handle was dropped without).
pub(crate) async fn shutting_down(mut shutdown: watch::Receiver<bool>) {
    if shutdown.wait_for(|down| *down).await.is_err() {
        std::future::pending::<()>().await;
    }
}

/// API Gateway's JSON error body with a status.
pub(crate) fn message_response(status: StatusCode, message: &str) -> Response {
    (status, axum::Json(json!({ "message": message }))).into_response()
}

/// Any path or method the API does not have: API Gateway answers 403.
pub async fn forbidden() -> Response {
    message_response(StatusCode::FORBIDDEN, "Forbidden")
}

/// A path that is not the stage's (`/`, `/Prod`, `/development`, ...): API Gateway's 403,
/// and one log line saying where the API is.
pub async fn unknown_path(
    State(gateway): State<Arc<Gateway>>,
    method: Method,
    uri: Uri,
) -> Response {
    let path = uri.path();
    let url = format!("ws://{}/{}", gateway.domain_name, gateway.stage);
    let stage = &gateway.stage;
    let wrong_case = path
        .trim_start_matches('/')
        .split('/')
        .next()
        .is_some_and(|first| first != stage && first.eq_ignore_ascii_case(stage));
    let hint = if wrong_case {
        " (stage paths are case-sensitive)"
    } else {
        ""
    };
    tracing::info!(
        "{method} {path} refused (403 Forbidden): no such stage path{hint}; the WebSocket API is \
         {url} (the path is the stage, STAGE={stage}), e.g. websocat \"{url}?playerId=alice\""
    );
    forbidden().await
}

/// Another method than GET on the stage path: 403, and a log line.
pub async fn stage_method_not_allowed(
    State(gateway): State<Arc<Gateway>>,
    method: Method,
    uri: Uri,
) -> Response {
    tracing::info!(
        "{method} {} refused (403 Forbidden): the WebSocket API takes only a GET with a \
         WebSocket upgrade at ws://{}/{}",
        uri.path(),
        gateway.domain_name,
        gateway.stage
    );
    forbidden().await
}

/// A connection the authorizer and `$connect` accepted.
struct Accepted {
    facts: ConnectionFacts,
    /// The subprotocol `$connect` selected (its `Sec-WebSocket-Protocol` header).
    protocol: Option<String>,
}

/// `GET /{stage}` with a WebSocket upgrade.
pub async fn upgrade(
    State(gateway): State<Arc<Gateway>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    uri: Uri,
    ws: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Response {
    let ws = match ws {
        Ok(ws) => ws,
        Err(rejection) => {
            let why = rejection.to_string();
            let response = rejection.into_response();
            tracing::info!(
                "GET {} refused ({}): not a WebSocket upgrade ({why}); connect with a \
                 WebSocket client (websocat, a browser's WebSocket), not plain HTTP",
                uri.path(),
                response.status()
            );
            return response;
        }
    };
    let guard = gateway.tracker.enter();

    let call = Invocation {
        request_id: ids::new_id(),
        at: gateway.clock.now_millis(),
    };
    let request = upgrade_request(&headers, &uri, peer);
    let user_agent = headers
        .get(header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let facts = ConnectionFacts {
        connection_id: ids::new_id(),
        connected_at: call.at,
        stage: gateway.stage.clone(),
        domain_name: gateway.domain_name.clone(),
        source_ip: peer.ip().to_string(),
        user_agent,
        authorizer: serde_json::Map::new(),
    };

    // The authorizer and `$connect` run in their own task: if the client gives up
    // meanwhile (this future is dropped), a connection `$connect` accepted still gets
    // its `$disconnect`.
    let (tx, rx) = oneshot::channel();
    let task_gateway = gateway.clone();
    let task_guard = gateway.tracker.enter();
    tokio::spawn(async move {
        let outcome = handshake(&task_gateway, facts, &request, &call).await;
        if let Err(Ok(accepted)) = tx.send(outcome) {
            tracing::info!(connection_id = %accepted.facts.connection_id, "client left during $connect");
            connection::fire_disconnect(
                &task_gateway,
                &accepted.facts,
                1006,
                "Connection closed abnormally",
            )
            .await;
        }
        drop(task_guard);
    });
    let Accepted { facts, protocol } = match rx.await {
        Ok(Ok(accepted)) => accepted,
        Ok(Err(refusal)) => return refusal,
        // The handshake task panicked.
        Err(_) => {
            return message_response(StatusCode::INTERNAL_SERVER_ERROR, "Internal server error");
        }
    };
    let ws = match protocol {
        Some(protocol) => ws.protocols([protocol]),
        None => ws,
    };

    // The upgrade; the connection is registered once it is open.
    let on_failure = {
        let gateway = gateway.clone();
        let facts = facts.clone();
        move |error: axum::Error| {
            tracing::warn!(connection_id = %facts.connection_id, %error, "upgrade failed");
            let guard = gateway.tracker.enter();
            tokio::spawn(async move {
                connection::fire_disconnect(&gateway, &facts, 1006, "Connection closed abnormally")
                    .await;
                drop(guard);
            });
        }
    };
    ws.read_buffer_size(1024)
        .max_frame_size(MAX_FRAME_BYTES)
        .max_message_size(MAX_WEBSOCKET_MESSAGE_BYTES)
        .on_failed_upgrade(on_failure)
        .on_upgrade(move |socket| connection::run(socket, facts, gateway, guard))
}

/// The authorizer, then `$connect`: the accepted connection, or the response that
/// refuses the upgrade.
async fn handshake(
    gateway: &Gateway,
    mut facts: ConnectionFacts,
    request: &UpgradeRequest,
    call: &Invocation,
) -> Result<Accepted, Response> {
    let connection_id = facts.connection_id.clone();
    let internal_error =
        || message_response(StatusCode::INTERNAL_SERVER_ERROR, "Internal server error");

    // 1. The authorizer.
    let auth_event = events::authorizer_request(&facts, request, call).map_err(|error| {
        tracing::error!(%error, "cannot build the authorizer event");
        internal_error()
    })?;
    match gateway.authorizer.authorize(&auth_event).await {
        AuthDecision::Allow { context } => facts.authorizer = context,
        // One line per refusal: what was wrong and what to do (never the token).
        AuthDecision::Unauthorized { why } => {
            tracing::info!(connection_id, "upgrade refused (401 Unauthorized): {why}");
            return Err(message_response(StatusCode::UNAUTHORIZED, "Unauthorized"));
        }
        AuthDecision::Forbidden { why } => {
            tracing::info!(connection_id, "upgrade refused (403 Forbidden): {why}");
            return Err(message_response(StatusCode::FORBIDDEN, "Forbidden"));
        }
    }

    // 2. `$connect` (optional in API Gateway).
    let Some(route) = gateway.routes.get(CONNECT) else {
        return Ok(Accepted {
            facts,
            protocol: None,
        });
    };
    let event = events::connect_event(&facts, request, call).map_err(|error| {
        tracing::error!(%error, "cannot build the $connect event");
        internal_error()
    })?;
    match invoke(
        route.handler.clone(),
        &route.function,
        &call.request_id,
        event,
    )
    .await
    {
        Ok(response) if (200..300).contains(&response.status_code) => {
            // A $connect integration selects the subprotocol (as in API Gateway).
            let protocol = response
                .headers
                .get(header::SEC_WEBSOCKET_PROTOCOL)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            Ok(Accepted { facts, protocol })
        }
        Ok(response) => {
            tracing::info!(
                connection_id,
                status = response.status_code,
                "upgrade refused by $connect"
            );
            Err(refusal(response.status_code, response.body))
        }
        Err(error) => {
            tracing::warn!(connection_id, %error, "upgrade refused: $connect failed");
            Err(internal_error())
        }
    }
}

/// The upgrade request as API Gateway passes it on: headers (with the `X-Forwarded-*`
/// headers its front end adds) and the query string.
fn upgrade_request(headers: &HeaderMap, uri: &Uri, peer: SocketAddr) -> UpgradeRequest {
    let mut pairs: Vec<(String, String)> = headers
        .iter()
        .filter_map(|(name, value)| {
            let value = value.to_str().ok()?;
            Some((name.as_str().to_owned(), value.to_owned()))
        })
        .collect();
    let mut add = |name: &str, value: String| {
        if !headers.contains_key(name) {
            pairs.push((name.to_owned(), value));
        }
    };
    add("x-forwarded-for", peer.ip().to_string());
    add("x-forwarded-port", peer.port().to_string());
    add("x-forwarded-proto", "http".to_owned());
    let query = Query::<Vec<(String, String)>>::try_from_uri(uri)
        .map(|Query(pairs)| pairs)
        .unwrap_or_default();
    UpgradeRequest {
        headers: pairs,
        query,
    }
}

/// `$connect` answered non-2xx: the client gets that status (and body, if any).
fn refusal(status: i64, body: Option<Body>) -> Response {
    let status = u16::try_from(status)
        .ok()
        .and_then(|s| StatusCode::from_u16(s).ok())
        .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    match body {
        Some(Body::Text(text)) => (status, text).into_response(),
        Some(Body::Binary(bytes)) => (status, bytes).into_response(),
        _ => status.into_response(),
    }
}

/// The error frames API Gateway itself sends on a connection.
pub(crate) fn gateway_error_frame(message: &str, connection_id: &str, request_id: &str) -> String {
    let value: Value = json!({
        "message": message,
        "connectionId": connection_id,
        "requestId": request_id,
    });
    value.to_string()
}
