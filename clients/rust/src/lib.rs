//! GameLift Sockets client for Rust games (Bevy, macroquad) and bots, on tokio.
//!
//! It does the subtle half of the protocol (README.md#client-protocol-v1) once: `resume`
//! with the cursor of the last frame handled on every connect, a heartbeat timer (`ping`,
//! or `heartbeat` with the cursor when a push was handled since the last report),
//! reconnects with capped exponential backoff and full jitter and a fresh token each time,
//! stops for good on `session_replaced` and on a 401/403 upgrade, hands at-least-once
//! pushes on once, rolls the socket over before API Gateway's 2-hour limit, and matches
//! replies to requests with timeouts and typed errors. It keeps the player's seat
//! ([`Client::seat`]) and refreshes its player gateway token before it expires
//! ([`Event::ConnectionDetails`]). Frames are the protocol crate's types.
//!
//! ```no_run
//! # async fn game() -> Result<(), gamelift_sockets_client::ClientError> {
//! use gamelift_sockets_client::{Auth, Client, Config, Event, protocol::ServerFrame};
//! let config = Config::new("ws://127.0.0.1:3001/Development", Auth::player_id("alice"));
//! let (client, mut events) = Client::connect(config).await?;
//! client.send_message(&["bob"], serde_json::json!({"text": "gg"})).await?;
//! while let Some(event) = events.next().await {
//!     if let Event::Push { frame: ServerFrame::Message { from, message, .. }, .. } = event {
//!         println!("{from}: {message}");
//!     }
//! }
//! # Ok(()) }
//! ```

/// Sends `ClientRequest::$route` with `$body` from `$client` and answers its ack, as the
/// route's type (`RouteAck::$route`'s): every typed shortcut is this.
macro_rules! ask {
    ($client:expr, $route:ident, $body:expr) => {
        match $client
            .request_ack(::gamelift_sockets_protocol::ClientRequest::$route {
                request_id: None,
                body: $body,
            })
            .await?
        {
            ::gamelift_sockets_protocol::acks::RouteAck::$route(ack) => Ok(ack),
            other => Err($crate::other_ack(&other)),
        }
    };
}

mod actor;
mod dedupe;
mod routes;
mod types;

use std::sync::{Arc, Mutex};
use std::time::Duration;

pub use actor::{REFRESH_RETRY_INITIAL, REFRESH_RETRY_MAX, refresh_margin};
pub use gamelift_sockets_protocol as protocol;
use gamelift_sockets_protocol::ClientRequest;
use gamelift_sockets_protocol::acks::{PlacementAck, RouteAck};
use gamelift_sockets_protocol::domain::{GameSession, PlayerId};
use gamelift_sockets_protocol::requests::{
    CursorBody, EmptyBody, PlacementRequestBody, SendMessageBody,
};
use serde_json::{Map, Value};
use tokio::sync::{mpsc, oneshot};
pub use types::{Auth, ClientError, Config, ConnectionState, Event, StopReason, TokenFuture};

use actor::Command;

/// A handle on a running client; cheap to clone. The connection lives in a background
/// task until [`Client::close`] or every handle is dropped.
#[derive(Clone)]
pub struct Client {
    commands: mpsc::UnboundedSender<Command>,
    request_timeout: Duration,
    seat: Arc<Mutex<Option<GameSession>>>,
}

/// The client's events, in order: pushes (each once), `resume` acks, state changes.
pub struct Events(mpsc::UnboundedReceiver<Event>);

impl Events {
    /// The next event; `None` once the client stopped and every event was read.
    pub async fn next(&mut self) -> Option<Event> {
        self.0.recv().await
    }

    /// The next event if one is waiting (for a game loop that polls once a frame).
    pub fn try_next(&mut self) -> Option<Event> {
        self.0.try_recv().ok()
    }
}

impl Client {
    /// Starts the client and waits for the first `resume` ack (also delivered as
    /// [`Event::Resumed`]); fails if the client stops first (e.g. a refused token).
    pub async fn connect(config: Config) -> Result<(Self, Events), ClientError> {
        Self::start(config, None).await
    }

    /// As [`Client::connect`], resuming after `cursor`: the `seq` of the last push an
    /// earlier run of the game handled (and saved), so only what came after it is replayed.
    pub async fn connect_after(config: Config, cursor: u64) -> Result<(Self, Events), ClientError> {
        Self::start(config, Some(cursor)).await
    }

    async fn start(config: Config, cursor: Option<u64>) -> Result<(Self, Events), ClientError> {
        let (commands, commands_rx) = mpsc::unbounded_channel();
        let (events_tx, events_rx) = mpsc::unbounded_channel();
        let (live_tx, live_rx) = oneshot::channel();
        let request_timeout = config.request_timeout;
        let seat = Arc::new(Mutex::new(None));
        let actor = actor::Actor::new(config, commands_rx, events_tx, live_tx, seat.clone());
        tokio::spawn(actor.starting_after(cursor).run());
        match live_rx.await {
            Ok(Ok(())) => Ok((
                Self {
                    commands,
                    request_timeout,
                    seat,
                },
                Events(events_rx),
            )),
            Ok(Err(error)) => Err(error),
            Err(_) => Err(ClientError::Closed(StopReason::ClosedByClient)),
        }
    }

    /// Sends a request and waits for its `ack` fields (or its typed error), for at most
    /// the configured request timeout. A `heartbeat` without `cursor` is sent with the
    /// client's; a `ping` is refused with [`ClientError::Invalid`] (it is never answered).
    pub async fn request(&self, frame: ClientRequest) -> Result<Map<String, Value>, ClientError> {
        self.request_within(frame, self.request_timeout).await
    }

    /// Sends a request and reads its `ack` as its route's type ([`RouteAck`]).
    pub async fn request_ack(&self, frame: ClientRequest) -> Result<RouteAck, ClientError> {
        let route = frame.route();
        let fields = self.request(frame).await?;
        let ack: RouteAck = serde_json::from_value(Value::Object(fields)).map_err(|e| {
            ClientError::Invalid(format!("the ack does not read as its route's type: {e}"))
        })?;
        if ack.route() == route {
            Ok(ack)
        } else {
            Err(other_ack(&ack))
        }
    }

    /// As [`Client::request`], with its own timeout.
    pub async fn request_within(
        &self,
        frame: ClientRequest,
        timeout: Duration,
    ) -> Result<Map<String, Value>, ClientError> {
        let route = frame.route();
        if frame == ClientRequest::Ping {
            // Never answered, so never a request: the heartbeat timer sends it.
            return Err(ClientError::Invalid(
                "`ping` is never answered; the heartbeat timer sends it".into(),
            ));
        }
        let (reply, answer) = oneshot::channel();
        self.commands
            .send(Command::Request { frame, reply })
            .map_err(|_| ClientError::Closed(StopReason::ClosedByClient))?;
        match tokio::time::timeout(timeout, answer).await {
            Ok(Ok(result)) => result,
            Ok(Err(_)) => Err(ClientError::Closed(StopReason::ClosedByClient)),
            Err(_) => Err(ClientError::Timeout {
                route: route.as_str(),
            }),
        }
    }

    /// `sendMessage` to 1–100 players; returns how many were queued.
    pub async fn send_message(&self, to: &[&str], message: Value) -> Result<u64, ClientError> {
        let player_ids = to
            .iter()
            .map(|id| PlayerId::parse(*id))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| ClientError::Invalid(e.to_string()))?;
        let body = SendMessageBody::ToPlayers {
            player_ids,
            message,
        };
        ask!(self, SendMessage, body).map(|ack| ack.queued)
    }

    /// `sessionPlacementRequest`: the ack (`placementId`, `status: PENDING`); the result
    /// comes as a `placement` push.
    pub async fn request_placement(
        &self,
        body: PlacementRequestBody,
    ) -> Result<PlacementAck, ClientError> {
        ask!(self, SessionPlacementRequest, body)
    }

    /// A `heartbeat` that asks for the server time (the timer's frames ask for nothing); it
    /// carries the client's cursor, as every heartbeat without one does.
    pub async fn heartbeat(&self) -> Result<i64, ClientError> {
        ask!(self, Heartbeat, CursorBody::default()).map(|ack| ack.server_time)
    }

    /// The player's seat: the last one a placement, a match, `rejoinSession`,
    /// `joinFriendGame` or `resume` gave, with the freshest connection details (`None`:
    /// none). Its `connection` says where to send game traffic; the client refreshes it
    /// before the player gateway token expires.
    pub fn seat(&self) -> Option<GameSession> {
        self.seat.lock().ok().and_then(|seat| seat.clone())
    }

    /// `rejoinSession`: a new player session in your last game, which becomes the seat.
    pub async fn rejoin_session(&self) -> Result<GameSession, ClientError> {
        ask!(self, RejoinSession, EmptyBody {}).map(|ack| ack.game_session)
    }

    /// `refreshConnectionDetails`: fresh connection details for your seat (a new player
    /// gateway token). The client sends it itself before `expiresAt`; call it to refresh
    /// sooner (e.g. when a relay stops answering). Also delivered as
    /// [`Event::ConnectionDetails`].
    pub async fn refresh_connection_details(&self) -> Result<GameSession, ClientError> {
        ask!(self, RefreshConnectionDetails, EmptyBody {}).map(|ack| ack.game_session)
    }

    /// Closes the socket and stops for good; pending requests fail with `Closed`.
    pub fn close(&self) {
        let _ = self.commands.send(Command::Close);
    }
}

/// An ack of another route than the request's: the server broke the protocol.
pub(crate) fn other_ack(ack: &RouteAck) -> ClientError {
    ClientError::Invalid(format!(
        "the reply is the ack of another route ({})",
        ack.route()
    ))
}
