//! The credentials, and a raw socket of one player for the checks that must misbehave or
//! see what a well-behaved client hides (bad frames, the server closing a replaced
//! socket): send any text, wait for frames. Frames that arrive while waiting for something
//! else are kept for later waits, so no push is lost to ordering. Every other journey
//! goes through the Rust client (player.rs).

use std::collections::VecDeque;
use std::time::Duration;

use contracts::events::percent_encoded;
use futures_util::{SinkExt, StreamExt};
use gamelift_sockets_client::protocol::Route;
use serde_json::Value;
use tokio::net::TcpStream;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::{Error as WsError, Message};
use tokio_tungstenite::{Connector, MaybeTlsStream, WebSocketStream};
use tools::frames::client_frame;

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// How a connection names its player, and where the credential goes.
#[derive(Clone, Debug)]
pub enum Credential {
    /// Header mode: the player id, as `X-Player-Id` or `?playerId=`.
    PlayerId(String),
    /// JWT mode: a token, as `Authorization: Bearer` or `?token=`.
    Token(String),
}

/// Where the credential travels: both forms are what clients use (browsers can only use
/// the query string).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Carrier {
    Header,
    Query,
}

impl Credential {
    /// How it was sent, for the report (never the token itself).
    pub fn describe(&self, carrier: Carrier) -> &'static str {
        match (self, carrier) {
            (Self::PlayerId(_), Carrier::Header) => "X-Player-Id header",
            (Self::PlayerId(_), Carrier::Query) => "?playerId=",
            (Self::Token(_), Carrier::Header) => "Authorization: Bearer",
            (Self::Token(_), Carrier::Query) => "?token=",
        }
    }
}

/// An open raw socket.
pub struct RawSocket {
    socket: Socket,
    /// Frames read while waiting for another one.
    kept: VecDeque<Value>,
    next_request: u64,
    /// Who, for messages: `a`, `b`, `a (second socket)`.
    pub name: String,
}

impl RawSocket {
    /// Opens a socket to `url` with `credential` carried as `carrier`. A refused upgrade
    /// says what API Gateway's status means for this stack.
    pub async fn connect(
        name: &str,
        url: &str,
        credential: &Credential,
        carrier: Carrier,
        tls: Option<Connector>,
        timeout: Duration,
    ) -> Result<Self, String> {
        let separator = if url.contains('?') { '&' } else { '?' };
        let url = match (credential, carrier) {
            (_, Carrier::Header) => url.to_owned(),
            (Credential::PlayerId(id), Carrier::Query) => {
                format!("{url}{separator}playerId={}", percent_encoded(id))
            }
            (Credential::Token(token), Carrier::Query) => {
                format!("{url}{separator}token={}", percent_encoded(token))
            }
        };
        let mut request = url
            .as_str()
            .into_client_request()
            .map_err(|e| format!("not a WebSocket URL ({e})"))?;
        if carrier == Carrier::Header {
            let (header, value) = match credential {
                Credential::PlayerId(id) => ("X-Player-Id", id.clone()),
                Credential::Token(token) => ("Authorization", format!("Bearer {token}")),
            };
            let value = HeaderValue::from_str(&value)
                .map_err(|_| format!("the {header} value is not a valid HTTP header value"))?;
            request.headers_mut().insert(header, value);
        }
        let connecting =
            tokio_tungstenite::connect_async_tls_with_config(request, None, false, tls);
        let (socket, _) = tokio::time::timeout(timeout, connecting)
            .await
            .map_err(|_| format!("no answer to the WebSocket upgrade within {timeout:?}"))?
            .map_err(|e| refusal(&e, credential))?;
        Ok(Self {
            socket,
            kept: VecDeque::new(),
            next_request: 0,
            name: name.to_owned(),
        })
    }

    /// Sends one text frame as is (bad frames too).
    pub async fn send_text(&mut self, text: &str) -> Result<(), String> {
        self.socket
            .send(Message::text(text))
            .await
            .map_err(|e| format!("{}: sending failed: {e}", self.name))
    }

    /// Sends `{"route"}`, with `requestId` when given: a request without a body.
    pub async fn send_bare(
        &mut self,
        route: Route,
        request_id: Option<&str>,
    ) -> Result<(), String> {
        self.send_text(&client_frame(route, request_id, None).to_string())
            .await
    }

    /// Sends `{"route", "requestId", "body"}` (any body, bad ones too) and returns the
    /// `ack` or `error` frame answering it (same `requestId`).
    pub async fn request(
        &mut self,
        route: Route,
        body: Value,
        timeout: Duration,
    ) -> Result<Value, String> {
        self.next_request += 1;
        let request_id = format!("smoke-{}", self.next_request);
        let frame = client_frame(route, Some(&request_id), Some(body));
        self.send_text(&frame.to_string()).await?;
        self.wait_for(&format!("an answer to {route}"), timeout, |f| {
            f["requestId"] == request_id.as_str()
        })
        .await
    }

    /// The first frame (kept or new) for which `wanted` is true, within `timeout`.
    pub async fn wait_for(
        &mut self,
        what: &str,
        timeout: Duration,
        wanted: impl Fn(&Value) -> bool,
    ) -> Result<Value, String> {
        if let Some(index) = self.kept.iter().position(&wanted) {
            return Ok(self.kept.remove(index).unwrap_or_default());
        }
        let deadline = Instant::now() + timeout;
        loop {
            let frame = self.read(deadline, what).await?;
            if wanted(&frame) {
                return Ok(frame);
            }
            self.kept.push_back(frame);
        }
    }

    /// The next frame as JSON, or why there is none.
    async fn read(&mut self, deadline: Instant, what: &str) -> Result<Value, String> {
        loop {
            let next = tokio::time::timeout_at(deadline, self.socket.next()).await;
            let message = match next {
                Err(_) => return Err(format!("{}: no {what} in time", self.name)),
                Ok(None) => {
                    return Err(format!(
                        "{}: the socket closed, waiting for {what}",
                        self.name
                    ));
                }
                Ok(Some(Err(e))) => return Err(format!("{}: {e}, waiting for {what}", self.name)),
                Ok(Some(Ok(message))) => message,
            };
            match message {
                Message::Text(text) => {
                    return serde_json::from_str(&text).map_err(|e| {
                        format!("{}: a frame that is not JSON ({e}): {text}", self.name)
                    });
                }
                Message::Close(frame) => {
                    return Err(format!(
                        "{}: closed by the server ({}), waiting for {what}",
                        self.name,
                        frame.map_or("no code".to_owned(), |f| format!("{} {}", f.code, f.reason))
                    ));
                }
                _ => continue,
            }
        }
    }

    /// The next text frame as it came (JSON or not, empty too), or `None` if none came
    /// within `wait`; frames kept from earlier waits come first.
    pub async fn next_text_within(&mut self, wait: Duration) -> Result<Option<String>, String> {
        if let Some(frame) = self.kept.pop_front() {
            return Ok(Some(frame.to_string()));
        }
        let deadline = Instant::now() + wait;
        loop {
            match tokio::time::timeout_at(deadline, self.socket.next()).await {
                Err(_) => return Ok(None),
                Ok(Some(Ok(Message::Text(text)))) => return Ok(Some(text.as_str().to_owned())),
                Ok(Some(Ok(Message::Binary(bytes)))) => {
                    return Ok(Some(format!("(binary, {} bytes)", bytes.len())));
                }
                Ok(Some(Ok(_))) => {}
                Ok(None | Some(Err(_))) => {
                    return Err(format!("{}: the socket closed", self.name));
                }
            }
        }
    }

    /// Waits for the server to close this socket (after `session_replaced`).
    pub async fn closed_by_server(&mut self, timeout: Duration) -> Result<(), String> {
        let deadline = Instant::now() + timeout;
        loop {
            match tokio::time::timeout_at(deadline, self.socket.next()).await {
                Err(_) => return Err(format!("{}: still open after {timeout:?}", self.name)),
                Ok(None | Some(Ok(Message::Close(_))) | Some(Err(_))) => return Ok(()),
                Ok(Some(Ok(_))) => {}
            }
        }
    }

    /// Closes the socket as a client leaving does (1000), without waiting for long.
    pub async fn close(mut self) {
        let _ = tokio::time::timeout(Duration::from_secs(5), self.socket.close(None)).await;
    }
}

/// What a refused connection means here: API Gateway answers the upgrade with the
/// authorizer's verdict (401 no credentials, 403 refused) or 403 for a wrong path.
fn refusal(error: &WsError, credential: &Credential) -> String {
    let WsError::Http(response) = error else {
        return format!("could not connect: {error}");
    };
    refused_upgrade(response.status().as_u16(), credential)
}

/// What an upgrade refused with `status` means for this stack.
pub fn refused_upgrade(status: u16, credential: &Credential) -> String {
    let hint = match (status, credential) {
        (401, Credential::PlayerId(_)) => {
            "no credentials the stack accepts: a JWT stack (AuthMode=jwt) needs --token-command or --token-a/--token-b"
        }
        (401, Credential::Token(_)) => {
            "no credentials the stack accepts: a header-mode stack takes player ids; leave out the tokens"
        }
        (403, _) => {
            "refused: a wrong path (the URL must end with the stage, exactly as the WebSocketUrl output) or credentials the authorizer refused (its log says which)"
        }
        _ => "the WebSocket upgrade was refused",
    };
    format!("HTTP {status}: {hint}")
}
