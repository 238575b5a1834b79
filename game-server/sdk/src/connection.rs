//! The WebSocket: one task owns the socket, writes requests, matches answers to them by
//! `RequestId`, hands pushes on, reconnects and follows RefreshConnection.
//!
//! Reconnects follow the official SDKs (Go `server/internal/transport/websocket.go`,
//! C++ `WebSocketppClientWrapper.cpp`): an abnormal close or a read error reconnects at
//! once with the same URL and query (the same `IdempotencyToken`, no new
//! ActivateServerProcess), retrying with capped doubling delays. A close with 1000 or
//! 1001 does not; the next request reconnects (as Go's write failures do); two requests
//! timing out in a row reconnect too (Go `RequestTimeoutReconnectThreshold`). Requests
//! written before a drop fail with `ConnectionLost` (the service may have applied them);
//! requests made while reconnecting wait in the queue and go out on the new socket.

use std::collections::HashMap;
use std::sync::Arc;

use futures_util::{SinkExt, StreamExt};
use gamelift_server_protocol::{ConnectQuery, Inbound, Push};
use serde_json::Value;
use tokio::net::TcpStream;
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::{Connector, MaybeTlsStream, WebSocketStream};

use crate::config::Timing;

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// An answer to a request, whatever its status.
#[derive(Debug)]
pub(crate) struct Answer {
    pub status_code: u16,
    pub error_message: Option<String>,
    pub frame: Value,
}

/// Why a request got no answer.
#[derive(Debug)]
pub(crate) enum Failure {
    /// Written, then the socket dropped.
    Lost,
    /// No socket could be opened.
    Connect { url: String, reason: String },
}

pub(crate) type Reply = oneshot::Sender<Result<Answer, Failure>>;

pub(crate) enum Command {
    Send {
        request_id: String,
        text: String,
        reply: Reply,
    },
    /// Drop the socket and connect again (the caller saw requests time out in a row).
    Reconnect,
    Close,
}

/// What the task needs to (re)connect.
pub(crate) struct Dialer {
    /// The endpoint without its query.
    pub base_url: String,
    pub query: ConnectQuery,
    pub tls: Arc<rustls::ClientConfig>,
    pub timing: Timing,
}

impl Dialer {
    fn url(&self) -> String {
        url_with_query(&self.base_url, &self.query)
    }

    /// One attempt, bounded by the call timeout (C++ gives the handshake 20 s).
    async fn dial_once(&self, url: &str) -> Result<Socket, String> {
        let mut request = url.into_client_request().map_err(|e| e.to_string())?;
        request.headers_mut().insert(
            "User-Agent",
            HeaderValue::from_static(concat!(
                "gamelift-server-sdk-rust/",
                env!("CARGO_PKG_VERSION")
            )),
        );
        let connect = tokio_tungstenite::connect_async_tls_with_config(
            request,
            None,
            true,
            Some(Connector::Rustls(self.tls.clone())),
        );
        match tokio::time::timeout(self.timing.call_timeout, connect).await {
            Ok(Ok((socket, _))) => Ok(socket),
            Ok(Err(e)) => Err(e.to_string()),
            Err(_) => Err(format!(
                "no handshake within {:?}",
                self.timing.call_timeout
            )),
        }
    }

    /// The first attempt at once, then the backoff's retries.
    async fn dial(&self, url: &str) -> Result<Socket, String> {
        let mut last = String::new();
        for attempt in 0..=self.timing.reconnect.retries {
            if attempt > 0 {
                tokio::time::sleep(self.timing.reconnect.delay(attempt - 1)).await;
            }
            match self.dial_once(url).await {
                Ok(socket) => return Ok(socket),
                Err(reason) => {
                    tracing::warn!(attempt, %reason, "GameLift WebSocket connect failed");
                    last = reason;
                }
            }
        }
        Err(last)
    }
}

/// `base?query`, replacing any query `base` had (as Go sets `RawQuery`), with the path
/// `/` when `base` has none (as C++ does: an HTTP request line needs a path).
pub(crate) fn url_with_query(base: &str, query: &ConnectQuery) -> String {
    let base = base.split_once('?').map_or(base, |(base, _)| base);
    let authority = base.split_once("://").map_or(base, |(_, rest)| rest);
    let slash = if authority.contains('/') { "" } else { "/" };
    format!("{base}{slash}?{}", query.encode())
}

/// Opens the socket (with retries) and starts the task; pushes go to `pushes`.
pub(crate) async fn connect(
    dialer: Dialer,
    pushes: mpsc::UnboundedSender<Push>,
) -> Result<mpsc::UnboundedSender<Command>, Failure> {
    let url = dialer.url();
    let socket = dialer.dial(&url).await.map_err(|reason| Failure::Connect {
        url: redact(&url),
        reason,
    })?;
    tracing::info!(url = %redact(&url), "GameLift WebSocket connected");
    let (commands, receiver) = mpsc::unbounded_channel();
    let task = Task {
        dialer,
        socket: Some(socket),
        old: None,
        pending: HashMap::new(),
        pushes,
        commands: receiver,
    };
    tokio::spawn(task.run());
    Ok(commands)
}

/// The URL without the secrets of its query, for logs and errors.
fn redact(url: &str) -> String {
    url.split_once('?').map_or(url, |(base, _)| base).to_owned()
}

struct Task {
    dialer: Dialer,
    socket: Option<Socket>,
    /// The socket a RefreshConnection replaced, still read until its deadline.
    old: Option<(Socket, Instant)>,
    pending: HashMap<String, Reply>,
    pushes: mpsc::UnboundedSender<Push>,
    commands: mpsc::UnboundedReceiver<Command>,
}

enum Read {
    Frame(Message),
    /// A normal close (1000/1001): no reconnect until the next request.
    Closed,
    /// An abnormal close or a read error: reconnect now.
    Broken(String),
}

async fn read(socket: &mut Option<Socket>) -> Read {
    let Some(socket) = socket else {
        return std::future::pending().await;
    };
    match socket.next().await {
        Some(Ok(Message::Close(frame))) => match frame.map(|f| f.code) {
            Some(CloseCode::Normal | CloseCode::Away) => Read::Closed,
            code => Read::Broken(format!("closed with {code:?}")),
        },
        Some(Ok(message)) => Read::Frame(message),
        Some(Err(e)) => Read::Broken(e.to_string()),
        None => Read::Broken("the socket ended".to_owned()),
    }
}

async fn read_old(old: &mut Option<(Socket, Instant)>) -> Option<Message> {
    let Some((socket, deadline)) = old else {
        return std::future::pending().await;
    };
    match tokio::time::timeout_at(*deadline, socket.next()).await {
        Ok(Some(Ok(message))) => Some(message),
        _ => None,
    }
}

impl Task {
    async fn run(mut self) {
        loop {
            tokio::select! {
                command = self.commands.recv() => match command {
                    Some(Command::Send { request_id, text, reply }) => {
                        self.send(request_id, text, reply).await;
                    }
                    Some(Command::Reconnect) => {
                        tracing::warn!("GameLift requests timed out in a row; reconnecting");
                        self.socket = None;
                        self.fail_pending();
                        if let Err(failure) = self.reconnect().await {
                            tracing::error!(?failure, "GameLift WebSocket reconnect gave up");
                        }
                    }
                    Some(Command::Close) | None => break,
                },
                read = read(&mut self.socket) => match read {
                    Read::Frame(message) => self.handle(message).await,
                    Read::Closed => {
                        tracing::info!("GameLift WebSocket closed by the service");
                        self.socket = None;
                        self.fail_pending();
                    }
                    Read::Broken(reason) => {
                        tracing::warn!(%reason, "GameLift WebSocket dropped; reconnecting");
                        self.socket = None;
                        self.fail_pending();
                        if let Err(failure) = self.reconnect().await {
                            tracing::error!(?failure, "GameLift WebSocket reconnect gave up");
                        }
                    }
                },
                message = read_old(&mut self.old) => match message {
                    Some(message) => self.handle(message).await,
                    None => self.old = None,
                },
            }
        }
        if let Some(mut socket) = self.socket.take() {
            let normal = CloseFrame {
                code: CloseCode::Normal,
                reason: "".into(),
            };
            let _ = socket.close(Some(normal)).await;
        }
        for (_, reply) in self.pending.drain() {
            let _ = reply.send(Err(Failure::Lost));
        }
    }

    async fn reconnect(&mut self) -> Result<(), Failure> {
        let url = self.dialer.url();
        match self.dialer.dial(&url).await {
            Ok(socket) => {
                tracing::info!(url = %redact(&url), "GameLift WebSocket reconnected");
                self.socket = Some(socket);
                Ok(())
            }
            Err(reason) => Err(Failure::Connect {
                url: redact(&url),
                reason,
            }),
        }
    }

    async fn send(&mut self, request_id: String, text: String, reply: Reply) {
        if reply.is_closed() {
            return; // The caller timed out while the request waited.
        }
        // One retry: a write that failed was not sent, so sending it again is safe.
        for _ in 0..2 {
            if self.socket.is_none()
                && let Err(failure) = self.reconnect().await
            {
                let _ = reply.send(Err(failure));
                return;
            }
            let Some(socket) = self.socket.as_mut() else {
                continue;
            };
            match socket.send(Message::text(text.clone())).await {
                Ok(()) => {
                    self.pending.retain(|_, reply| !reply.is_closed());
                    self.pending.insert(request_id, reply);
                    return;
                }
                Err(e) => {
                    tracing::warn!(error = %e, "GameLift WebSocket write failed; reconnecting");
                    self.socket = None;
                    self.fail_pending();
                }
            }
        }
        let _ = reply.send(Err(Failure::Lost));
    }

    fn fail_pending(&mut self) {
        for (_, reply) in self.pending.drain() {
            let _ = reply.send(Err(Failure::Lost));
        }
    }

    async fn handle(&mut self, message: Message) {
        let Message::Text(text) = message else {
            return; // The SDKs ignore other frames; tungstenite answers pings itself.
        };
        match Inbound::decode(text.as_str()) {
            Ok(Inbound::Response {
                request_id,
                status_code,
                error_message,
                frame,
            }) => match self.pending.remove(&request_id) {
                Some(reply) => {
                    let _ = reply.send(Ok(Answer {
                        status_code,
                        error_message,
                        frame,
                    }));
                }
                None => {
                    tracing::debug!(%request_id, "an answer nobody waits for (late or unknown)")
                }
            },
            Ok(Inbound::Push(Push::RefreshConnection(refresh))) => {
                self.refresh(refresh.refresh_connection_endpoint, refresh.auth_token)
                    .await;
            }
            Ok(Inbound::Push(push)) => {
                let _ = self.pushes.send(push);
            }
            Err(error) => tracing::warn!(%error, "a frame from the service could not be read"),
        }
    }

    /// Go `OnRefreshConnection`: the new endpoint with a new IdempotencyToken and the new
    /// token (no SigV4); the old socket is read a few seconds more, then dropped.
    async fn refresh(&mut self, endpoint: String, auth_token: String) {
        let mut query = self.dialer.query.clone();
        query.idempotency_token = Some(uuid::Uuid::new_v4().to_string());
        query.authorization = Some(auth_token);
        query.amz_algorithm = None;
        query.amz_credential = None;
        query.amz_date = None;
        query.amz_signature = None;
        query.amz_security_token = None;
        let url = url_with_query(&endpoint, &query);
        match self.dialer.dial_once(&url).await {
            Ok(socket) => {
                tracing::info!(url = %redact(&url), "GameLift WebSocket refreshed");
                let deadline = Instant::now() + self.dialer.timing.refresh_grace;
                self.old = self.socket.replace(socket).map(|old| (old, deadline));
                self.dialer.base_url = endpoint;
                self.dialer.query = query;
            }
            Err(reason) => {
                tracing::error!(%reason, "RefreshConnection failed; keeping the current socket");
            }
        }
    }
}
