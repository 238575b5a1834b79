//! A stand-in for the service side of the server SDK 5 WebSocket, for tests of game
//! servers (feature `fake-service`). It answers as the service does (echoed `Action` and
//! `RequestId`, `StatusCode` 200, or an error with `ErrorMessage`), records the upgrade
//! query and every frame, pushes frames without `RequestId`, and can drop a socket
//! without a close frame, as a network failure does. Frames go through
//! `gamelift-server-protocol`, the one model of the wire format.
//!
//! Test code: it panics when a test's expectation fails.
// The upgrade callback's error type is tungstenite's, large by its design.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::result_large_err)]

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use gamelift_server_protocol::{ConnectQuery, ErrorKind, Push, RequestFrame, ResponseFrame};
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::handshake::server::{Request as Upgrade, Response};

use crate::{Backoff, ServerParameters, Timing};

/// An SDK's parameters for the service at `url` (a fake's [`FakeService::url`]): one
/// process, host, fleet and token, and [`fast_timing`].
pub fn parameters(url: &str) -> ServerParameters {
    ServerParameters {
        web_socket_url: url.to_owned(),
        process_id: "proc-1".into(),
        host_id: "host-1".into(),
        fleet_id: "fleet-1".into(),
        auth_token: "tok-1".into(),
        timing: fast_timing(),
        ..ServerParameters::default()
    }
}

/// Heartbeats far apart (so they do not crowd the frames a test reads), short timeouts,
/// quick reconnects.
pub fn fast_timing() -> Timing {
    Timing {
        heartbeat_interval: Duration::from_secs(600),
        heartbeat_max_jitter: Duration::ZERO,
        call_timeout: Duration::from_secs(3),
        activate_timeout: Duration::from_secs(3),
        reconnect: Backoff {
            first: Duration::from_millis(50),
            max: Duration::from_millis(200),
            retries: 3,
        },
        refresh_grace: Duration::from_millis(500),
        ..Timing::default()
    }
}

/// How the fake answers an action.
#[derive(Clone, Debug)]
pub enum Answer {
    /// 200 with these result fields (an object).
    Ok(Value),
    /// An error status with `ErrorMessage`.
    Error(ErrorKind, String),
    /// This whole frame, with `Action` and `RequestId` added (e.g. without StatusCode).
    Frame(Value),
    /// No answer at all.
    Silent,
    /// 200 with these result fields, and this push right behind it on the same socket
    /// (the service placing a game session as soon as the process is ready).
    OkThenPush(Value, Box<Push>),
}

/// An upgrade the fake accepted.
#[derive(Clone, Debug)]
pub struct Connection {
    /// 0, 1, … in the order the sockets opened.
    pub id: usize,
    pub path: String,
    pub query: ConnectQuery,
    pub user_agent: Option<String>,
}

enum Control {
    Text(String),
    Drop,
    Close,
}

#[derive(Default)]
struct Shared {
    answers: Mutex<HashMap<String, Answer>>,
    sockets: Mutex<Vec<mpsc::UnboundedSender<Control>>>,
}

/// The fake service; dropping it stops accepting.
pub struct FakeService {
    address: SocketAddr,
    scheme: &'static str,
    shared: Arc<Shared>,
    connections: tokio::sync::Mutex<mpsc::UnboundedReceiver<Connection>>,
    requests: tokio::sync::Mutex<mpsc::UnboundedReceiver<(usize, RequestFrame)>>,
    closes: tokio::sync::Mutex<mpsc::UnboundedReceiver<(usize, Option<u16>)>>,
    accept: tokio::task::JoinHandle<()>,
}

impl Drop for FakeService {
    fn drop(&mut self) {
        self.accept.abort();
    }
}

/// How long the `next_*` methods wait before failing the test.
pub const WAIT: Duration = Duration::from_secs(10);

impl FakeService {
    /// A plain `ws://` fake on 127.0.0.1.
    pub async fn start() -> Self {
        Self::start_with(None).await
    }

    /// A `wss://` fake with this TLS acceptor.
    pub async fn start_tls(acceptor: tokio_rustls::TlsAcceptor) -> Self {
        Self::start_with(Some(acceptor)).await
    }

    async fn start_with(tls: Option<tokio_rustls::TlsAcceptor>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let shared = Arc::new(Shared::default());
        let (connections_tx, connections) = mpsc::unbounded_channel();
        let (requests_tx, requests) = mpsc::unbounded_channel();
        let (closes_tx, closes) = mpsc::unbounded_channel();
        let scheme = if tls.is_some() { "wss" } else { "ws" };
        let accept_shared = shared.clone();
        let accept = tokio::spawn(async move {
            while let Ok((tcp, _)) = listener.accept().await {
                let shared = accept_shared.clone();
                let connections = connections_tx.clone();
                let requests = requests_tx.clone();
                let closes = closes_tx.clone();
                let tls = tls.clone();
                tokio::spawn(async move {
                    match tls {
                        Some(tls) => match tls.accept(tcp).await {
                            Ok(stream) => {
                                serve(stream, shared, connections, requests, closes).await
                            }
                            Err(e) => eprintln!("fake service: TLS handshake failed: {e}"),
                        },
                        None => serve(tcp, shared, connections, requests, closes).await,
                    }
                });
            }
        });
        Self {
            address,
            scheme,
            shared,
            connections: tokio::sync::Mutex::new(connections),
            requests: tokio::sync::Mutex::new(requests),
            closes: tokio::sync::Mutex::new(closes),
            accept,
        }
    }

    /// `ws://127.0.0.1:PORT` (or `wss://localhost:PORT`, the certificate's name).
    pub fn url(&self) -> String {
        match self.scheme {
            "wss" => format!("wss://localhost:{}", self.address.port()),
            _ => format!("ws://{}", self.address),
        }
    }

    /// Answers `action` this way from now on (the default is 200 with typical fields).
    pub fn answer(&self, action: &str, answer: Answer) {
        self.shared
            .answers
            .lock()
            .unwrap()
            .insert(action.to_owned(), answer);
    }

    /// The next upgrade.
    pub async fn next_connection(&self) -> Connection {
        let next = tokio::time::timeout(WAIT, self.connections.lock().await.recv()).await;
        next.expect("no connection in time")
            .expect("the fake stopped")
    }

    /// The next frame from any socket, heartbeats included, with its socket's id.
    pub async fn next_frame(&self) -> (usize, RequestFrame) {
        let next = tokio::time::timeout(WAIT, self.requests.lock().await.recv()).await;
        next.expect("no request in time").expect("the fake stopped")
    }

    /// The next frame that is not a heartbeat.
    pub async fn next_request(&self) -> RequestFrame {
        loop {
            let (_, frame) = self.next_frame().await;
            if frame.request.action() != "HeartbeatServerProcess" {
                return frame;
            }
        }
    }

    /// The next socket the SDK closed or lost, with the close frame's code (`None`: it
    /// ended without a close frame, what a server sees as 1006).
    pub async fn next_close(&self) -> (usize, Option<u16>) {
        let next = tokio::time::timeout(WAIT, self.closes.lock().await.recv()).await;
        next.expect("no close in time").expect("the fake stopped")
    }

    /// Whether a frame (heartbeats aside) arrives within `within`.
    pub async fn no_request_within(&self, within: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + within;
        let mut requests = self.requests.lock().await;
        loop {
            match tokio::time::timeout_at(deadline, requests.recv()).await {
                Err(_) | Ok(None) => return true,
                Ok(Some((_, frame))) if frame.request.action() == "HeartbeatServerProcess" => {}
                Ok(Some(_)) => return false,
            }
        }
    }

    /// Sends a push on the newest socket.
    pub fn push(&self, push: &Push) {
        self.send_text(push.to_text());
    }

    /// Sends any text on the newest socket.
    pub fn send_text(&self, text: String) {
        self.control(Control::Text(text));
    }

    /// Drops the newest socket without a close frame (the SDK sees an abnormal close).
    pub fn drop_connection(&self) {
        self.control(Control::Drop);
    }

    /// Closes the newest socket with 1000 (normal).
    pub fn close_connection(&self) {
        self.control(Control::Close);
    }

    fn control(&self, control: Control) {
        let sockets = self.shared.sockets.lock().unwrap();
        let _ = sockets.last().expect("no socket yet").send(control);
    }
}

async fn serve<S: AsyncRead + AsyncWrite + Unpin>(
    stream: S,
    shared: Arc<Shared>,
    connections: mpsc::UnboundedSender<Connection>,
    requests: mpsc::UnboundedSender<(usize, RequestFrame)>,
    closes: mpsc::UnboundedSender<(usize, Option<u16>)>,
) {
    let mut seen = None;
    let callback = |request: &Upgrade, response: Response| {
        seen = Some((
            request.uri().path().to_owned(),
            request.uri().query().unwrap_or_default().to_owned(),
            request
                .headers()
                .get("User-Agent")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned),
        ));
        Ok(response)
    };
    let mut socket = match tokio_tungstenite::accept_hdr_async(stream, callback).await {
        Ok(socket) => socket,
        Err(e) => {
            eprintln!("fake service: upgrade failed: {e}");
            return;
        }
    };
    let Some((path, query, user_agent)) = seen else {
        return;
    };
    let (control_tx, mut control) = mpsc::unbounded_channel();
    let id = {
        let mut sockets = shared.sockets.lock().unwrap();
        sockets.push(control_tx);
        sockets.len() - 1
    };
    let query = ConnectQuery::parse(&query).expect("the SDK's query parses");
    let _ = connections.send(Connection {
        id,
        path,
        query,
        user_agent,
    });
    loop {
        tokio::select! {
            message = socket.next() => {
                let message = match message {
                    Some(Ok(Message::Close(frame))) => {
                        let _ = closes.send((id, frame.map(|f| u16::from(f.code))));
                        return;
                    }
                    Some(Ok(message)) => message,
                    _ => {
                        let _ = closes.send((id, None));
                        return;
                    }
                };
                let Message::Text(text) = message else { continue };
                let frame = RequestFrame::decode(text.as_str()).expect("the SDK's frame decodes");
                let answers = answer_for(&shared, &frame);
                let _ = requests.send((id, frame));
                for answer in answers {
                    if socket.send(Message::text(answer)).await.is_err() {
                        return;
                    }
                }
            }
            control = control.recv() => match control {
                Some(Control::Text(text)) => {
                    if socket.send(Message::text(text)).await.is_err() {
                        return;
                    }
                }
                Some(Control::Close) => {
                    let _ = socket.close(None).await;
                }
                Some(Control::Drop) | None => return,
            },
        }
    }
}

fn answer_for(shared: &Shared, frame: &RequestFrame) -> Vec<String> {
    let action = frame.request.action();
    let id = frame.request_id.as_str();
    let answer = shared
        .answers
        .lock()
        .unwrap()
        .get(action)
        .cloned()
        .unwrap_or_else(|| Answer::Ok(default_result(action)));
    match answer {
        Answer::Ok(body) => vec![ResponseFrame::ok(action, id, body).to_text()],
        Answer::Error(kind, message) => {
            vec![ResponseFrame::error(action, id, kind, message).to_text()]
        }
        Answer::Frame(mut frame) => {
            frame["Action"] = json!(action);
            frame["RequestId"] = json!(id);
            vec![frame.to_string()]
        }
        Answer::Silent => vec![],
        Answer::OkThenPush(body, push) => {
            vec![
                ResponseFrame::ok(action, id, body).to_text(),
                push.to_text(),
            ]
        }
    }
}

/// Typical results, as the service returns them.
fn default_result(action: &str) -> Value {
    match action {
        "DescribePlayerSessions" => json!({"PlayerSessions": []}),
        "StartMatchBackfill" => json!({"TicketId": "ticket-1"}),
        "GetComputeCertificate" => {
            json!({"CertificatePath": "/local/cert.pem", "ComputeName": "host-1"})
        }
        "GetFleetRoleCredentials" => json!({
            "AssumedRoleUserArn": "arn:aws:sts::123456789012:assumed-role/role/session",
            "AssumedRoleId": "AROA:session",
            "AccessKeyId": "ASIAFAKE",
            "SecretAccessKey": "secret",
            "SessionToken": "token",
            "Expiration": 4_102_444_800_000i64
        }),
        _ => json!({}),
    }
}
