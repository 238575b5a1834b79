//! The client's settings, events and errors.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use gamelift_sockets_protocol::domain::GameSession;
use gamelift_sockets_protocol::{ErrorReply, ServerFrame};
use serde_json::{Map, Value};

/// What a token provider returns: a JWT, or why there is none.
pub type TokenFuture = Pin<Box<dyn Future<Output = Result<String, String>> + Send>>;

/// How the client identifies its player.
#[derive(Clone)]
pub enum Auth {
    /// Header-mode development stacks: `?playerId=`.
    PlayerId(String),
    /// JWT stacks: called before every connect (so return a fresh token), sent as `?token=`.
    Token(Arc<dyn Fn() -> TokenFuture + Send + Sync>),
    /// Header-mode development stacks: an `X-Player-Id` header (not for browsers).
    PlayerIdHeader(String),
    /// JWT stacks: as [`Auth::Token`], sent as `Authorization: Bearer` (kept out of URLs
    /// and their logs; not for browsers).
    BearerToken(Arc<dyn Fn() -> TokenFuture + Send + Sync>),
}

impl Auth {
    pub fn player_id(id: impl Into<String>) -> Self {
        Self::PlayerId(id.into())
    }

    /// A token provider from an async function.
    pub fn token<F, Fut>(provider: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<String, String>> + Send + 'static,
    {
        Self::Token(Arc::new(move || Box::pin(provider())))
    }

    /// [`Auth::PlayerIdHeader`]: the player id in an `X-Player-Id` header.
    pub fn player_id_header(id: impl Into<String>) -> Self {
        Self::PlayerIdHeader(id.into())
    }

    /// [`Auth::BearerToken`]: a token provider whose tokens go in `Authorization: Bearer`.
    pub fn bearer_token<F, Fut>(provider: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<String, String>> + Send + 'static,
    {
        Self::BearerToken(Arc::new(move || Box::pin(provider())))
    }
}

/// Settings; [`Config::new`] gives the defaults, then change the fields you need.
#[derive(Clone)]
pub struct Config {
    /// The WebSocket API URL, e.g. `wss://abc.execute-api.us-east-1.amazonaws.com/production`.
    pub url: String,
    pub auth: Auth,
    /// How often the timer shows the player is alive when the server does not say
    /// (`resume`'s ack carries `keepAlive`, which wins: the stack chooses). Default 30 s.
    pub heartbeat_interval: Duration,
    /// What an idle tick sends when the server does not say: `ping` (true, the default)
    /// or `heartbeat`. A server's `keepAlive` wins.
    pub ping_when_idle: bool,
    /// How long a request waits for its reply (and a `resume` for its ack). Default 10 s.
    pub request_timeout: Duration,
    /// Reconnect delay: random(0, min(`reconnect_max`, `reconnect_initial` × 2^attempt)).
    pub reconnect_initial: Duration,
    pub reconnect_max: Duration,
    /// Failed connects in a row before giving up (`None`: never).
    pub max_attempts: Option<u32>,
    /// Open a new socket (and close the old) this long after connecting. Default 110 min.
    pub rollover_after: Duration,
    /// How many recent `seq`s, `messageId`s and placement results are remembered.
    pub dedupe_window: usize,
    /// Requests made while reconnecting: held and sent after `resume` (true, the default)
    /// or refused at once with [`ClientError::NotConnected`].
    pub queue_while_reconnecting: bool,
}

impl Config {
    pub fn new(url: impl Into<String>, auth: Auth) -> Self {
        Self {
            url: url.into(),
            auth,
            heartbeat_interval: Duration::from_secs(30),
            ping_when_idle: true,
            request_timeout: Duration::from_secs(10),
            reconnect_initial: Duration::from_millis(500),
            reconnect_max: Duration::from_secs(30),
            max_attempts: None,
            rollover_after: Duration::from_secs(110 * 60),
            dedupe_window: 1000,
            queue_while_reconnecting: true,
        }
    }
}

/// Where the client is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConnectionState {
    Connecting,
    Live,
    /// The next connect attempt (the `attempt`-th in a row) starts after `delay`.
    Reconnecting {
        attempt: u32,
        delay: Duration,
    },
    Closed,
}

/// Why the client stopped for good.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StopReason {
    ClosedByClient,
    /// The same player connected elsewhere: do not take the session back.
    SessionReplaced,
    /// The upgrade was refused with this status (401 or 403).
    Unauthorized(u16),
    /// `max_attempts` connects in a row failed.
    GaveUp,
    /// The token provider failed.
    TokenFailed(String),
}

/// What the client reports.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// A pushed frame (`message`, `placement`, `presence`, `party`, ...), each once.
    Push {
        seq: Option<u64>,
        frame: ServerFrame,
    },
    /// A pushed frame of a type this version does not know, as JSON.
    Unknown(Value),
    /// A (re)connect completed: the `resume` ack's fields (`resumed`: the session was kept).
    Resumed(Map<String, Value>),
    /// The socket was rolled over before the maximum connection time.
    Rollover {
        resumed: bool,
    },
    State(ConnectionState),
    /// Your seat with fresh connection details (`refreshConnectionDetails`, sent by the
    /// client before the player gateway token expires, or by you): send game traffic to
    /// its `connection` from now on.
    ConnectionDetails(GameSession),
    /// The client stopped for good.
    Closed(StopReason),
}

/// A failed request.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ClientError {
    /// The server's `error` frame: the route it answers, and its code, message and that
    /// code's fields (e.g. `retryAfterMs` of a `rate_limited`); boxed, as the largest
    /// variant by far.
    #[error("{route}: {:?}: {}", .reply.code(), .reply.message())]
    Server {
        route: String,
        reply: Box<ErrorReply>,
    },
    #[error("no reply to {route} in time (it may still have been done)")]
    Timeout { route: &'static str },
    #[error("the socket closed before {route} was answered (it may have been done)")]
    ConnectionLost { route: &'static str },
    #[error("not connected; the request was not sent")]
    NotConnected,
    #[error("the client stopped: {0:?}")]
    Closed(StopReason),
    #[error("invalid request: {0}")]
    Invalid(String),
}

impl ClientError {
    /// The error's code: the server's (`not_found`, ...) or the client's own (`timeout`,
    /// `connection_lost`, `not_connected`, `closed`, `invalid`).
    pub fn code(&self) -> String {
        match self {
            Self::Server { reply, .. } => reply.code().as_str().to_owned(),
            Self::Timeout { .. } => "timeout".into(),
            Self::ConnectionLost { .. } => "connection_lost".into(),
            Self::NotConnected => "not_connected".into(),
            Self::Closed(_) => "closed".into(),
            Self::Invalid(_) => "invalid".into(),
        }
    }
}
