//! The local GameLift simulator (docs/architecture.md#the-local-stack): a fleet of
//! server processes with the lifecycle Initializing → StandingBy → Active →
//! Terminating, one game session queue with a timeout, game sessions that end, and
//! player sessions; placement results go out as GameLift's exact events, in the SNS
//! envelope, to a sink (the real `on-placement-event` handler in the local stack).
//!
//! ```no_run
//! # async fn demo() {
//! use local::gamelift::{Simulator, SimulatorSettings, event_sink};
//! let sink = event_sink(|sns_event: serde_json::Value| async move {
//!     println!("{sns_event}"); // hand it to on-placement-event
//! });
//! let (simulator, task) = Simulator::start(SimulatorSettings::default(), sink);
//! let gamelift: std::sync::Arc<dyn shared::ports::PlacementStarter> = simulator.clone();
//! // ... the handlers use `gamelift`; on shutdown:
//! task.abort();
//! # }
//! ```
//!
//! Behaviour:
//! - Every server process starts Initializing for `SIM_SERVER_STARTUP_MS`, then is
//!   StandingBy.
//! - A placement is PENDING for at least `SIM_PLACEMENT_DELAY_MS`; then, first come
//!   first served, it takes a slot (an Active server with room first, then a StandingBy
//!   one, which becomes Active) and is FULFILLED: a new ACTIVE game session, a RESERVED
//!   `psess-<uuid>` per desired player, and a PlacementFulfilled event.
//! - No capacity: it waits; still PENDING `SIM_QUEUE_TIMEOUT_SECONDS` after it started,
//!   it is TIMED_OUT (PlacementTimedOut). StopGameSessionPlacement while PENDING:
//!   CANCELLED (PlacementCancelled); otherwise InvalidRequest, as GameLift answers
//!   ("results in an InvalidRequestException if a game session has already been
//!   created"); unknown: NotFound.
//! - A game lasts `SIM_GAME_SESSION_SECONDS`, then is TERMINATED and its RESERVED and
//!   ACTIVE player sessions COMPLETED. A server with no game left is Terminating for
//!   `SIM_SERVER_SHUTDOWN_MS`, then a fresh process replaces it (Initializing again):
//!   capacity comes back after shutdown + start-up.
//! - CreatePlayerSession: ACTIVE and not full (RESERVED + ACTIVE < maximum) → a new
//!   RESERVED session; TERMINATED or DENY_ALL → SessionEnded
//!   (InvalidGameSessionStatusException); full → SessionFull (GameSessionFullException);
//!   unknown → NotFound: CreatePlayerSession's errors as GameLift lists them
//!   (<https://docs.aws.amazon.com/gameliftservers/latest/apireference/API_CreatePlayerSession.html#API_CreatePlayerSession_Errors>).
//! - RESERVED sessions not validated within 60 s become TIMEDOUT (nothing validates them
//!   locally unless a test calls [`Simulator::accept_player_session`]).
//! - GetPlayerConnectionDetails ([`PlayerConnections`]) on an ACTIVE game: with
//!   `SIM_PLAYER_GATEWAY=disabled` the game server's address; `enabled` or `required`,
//!   two relays per player on 127.0.0.2 / 127.0.0.3 and a `pgt-…` token expiring
//!   `SIM_PLAYER_GATEWAY_TOKEN_SECONDS` later. TERMINATED → SessionEnded, unknown →
//!   NotFound, more than 25 players → InvalidRequest, the `failConnectionDetails` fault →
//!   Unavailable (throttled). Calls are counted ([`Snapshot::connection_details_calls`]).
//!
//! - Real processes (`local::gamelift_sdk`: game servers on the server SDK 5 WebSocket)
//!   join the fleet on ActivateServerProcess and are placed on first; their game session
//!   is ACTIVATING until ActivateGameSession (the placement PENDING until then), TERMINATED
//!   after `SIM_GAME_SESSION_ACTIVATION_SECONDS` (the placement tries again), and ends
//!   only when the process ends (ProcessEnding, unhealthy past the grace, or gone past
//!   the reconnect window): see `state::processes`.
//!
//! Time is tokio's: tests run the whole lifecycle in a blink with
//! `#[tokio::test(start_paused = true)]`. Event timestamps are the wall clock at start
//! plus simulated time since.

mod backfill;
mod events;
mod faults;
mod processes;
mod settings;
mod state;

#[cfg(test)]
mod tests;

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};

use async_trait::async_trait;
use serde_json::Value;
use shared::domain::{PlacementId, PlayerId};
use shared::placement::{PlacementRequest, PlayerSession};
use shared::ports::{
    GameLiftError, PlacementStarter, PlacementStopper, PlayerConnection, PlayerConnections,
    PlayerSessions,
};
use tokio::sync::{Notify, mpsc};
use tokio::task::JoinHandle;
use tokio::time::Instant;

pub use events::{DETAIL_TYPE, Fulfilment, Outcome, SOURCE, placement_event, sns_envelope};
pub use settings::*;
pub use state::{
    DesiredPlayer, Faults, GameSessionStatus, GameSessionView, GroupPlacementRequest,
    PlacementStatus, PlacementView, PlayerConnectionView, PlayerSessionStatus, PlayerSessionView,
    ProcessError, ProcessRegistration, ProcessView, RELAY_IPS, ServerState, ServerView, Snapshot,
    Socket,
};

use state::State;

/// What a sink returns: delivery is awaited before the next event goes out.
pub type SinkFuture = Pin<Box<dyn Future<Output = ()> + Send + 'static>>;

/// Receives each placement event as SNS delivers it to Lambda (an `SnsEvent` JSON with
/// one record whose `Message` is the GameLift event's JSON text).
pub type EventSink = Arc<dyn Fn(Value) -> SinkFuture + Send + Sync>;

/// An [`EventSink`] from an async function.
pub fn event_sink<F, Fut>(sink: F) -> EventSink
where
    F: Fn(Value) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    Arc::new(move |event| Box::pin(sink(event)))
}

/// An [`EventSink`] that forwards every event to the returned receiver.
pub fn channel_sink() -> (EventSink, mpsc::UnboundedReceiver<Value>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let sink = event_sink(move |event| {
        // A receiver that went away wants no more events.
        let _ = tx.send(event);
        async {}
    });
    (sink, rx)
}

/// The simulated GameLift: the GameLift ports ([`PlacementStarter`], [`PlacementStopper`],
/// [`PlayerSessions`], [`PlayerConnections`]), plus the calls a game server would
/// make and a few a test needs.
pub struct Simulator {
    state: Mutex<State>,
    wake: Arc<Notify>,
    /// The FlexMatch simulator that StartMatchBackfill goes to (weak: it holds us).
    flexmatch: Mutex<Option<Weak<crate::flexmatch::FlexMatch>>>,
}

impl std::fmt::Debug for Simulator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Simulator")
            .field("settings", self.lock().settings())
            .finish_non_exhaustive()
    }
}

impl Simulator {
    /// Starts the fleet (every server Initializing now) and the one background task
    /// that drives it and delivers events to `sink`, one at a time, in order. Abort the
    /// task to stop; it also ends by itself once the simulator is dropped. Must be
    /// called within a tokio runtime.
    pub fn start(settings: SimulatorSettings, sink: EventSink) -> (Arc<Self>, JoinHandle<()>) {
        let (events_tx, mut events_rx) = mpsc::unbounded_channel::<Value>();
        let wall_millis = crate::time::now_millis();
        let simulator = Arc::new(Self {
            state: Mutex::new(State::new(settings, Instant::now(), wall_millis, events_tx)),
            wake: Arc::new(Notify::new()),
            flexmatch: Mutex::new(None),
        });
        let driver = drive(Arc::downgrade(&simulator), simulator.wake.clone());
        let delivery = async move {
            while let Some(event) = events_rx.recv().await {
                sink(event).await;
            }
        };
        let task = tokio::spawn(async move {
            tokio::join!(driver, delivery);
        });
        (simulator, task)
    }

    pub fn settings(&self) -> SimulatorSettings {
        self.lock().settings().clone()
    }

    /// Everything the simulator holds, as of now.
    pub fn snapshot(&self) -> Snapshot {
        self.with_state(|state, _| state.snapshot())
    }

    /// StartGameSessionPlacement with several players in `DesiredPlayerSessions`: each
    /// gets a player session in the same new game.
    pub fn start_group_placement(
        &self,
        request: GroupPlacementRequest,
    ) -> Result<(), GameLiftError> {
        self.with_state(|state, now| state.start_placement(now, request))
    }

    /// Ends a PENDING placement as FAILED (GameLift: "generally caused by an unexpected
    /// internal error"), with its PlacementFailed event.
    pub fn fail_placement(&self, placement_id: &PlacementId) -> Result<(), GameLiftError> {
        self.with_state(|state, now| state.stop_placement(now, placement_id, Outcome::Failed))
    }

    /// The game server validates a player (server SDK AcceptPlayerSession): RESERVED →
    /// ACTIVE; any other status is refused, as GameLift does.
    pub fn accept_player_session(&self, player_session_id: &str) -> Result<(), GameLiftError> {
        self.with_state(|state, _| state.accept_player_session(player_session_id))
    }

    /// The player left or dropped (server SDK RemovePlayerSession): COMPLETED, never to
    /// be reused, as in GameLift.
    pub fn remove_player_session(&self, player_session_id: &str) -> Result<(), GameLiftError> {
        self.with_state(|state, now| state.remove_player_session(now, player_session_id))
    }

    /// Ends a game now (TerminateGameSession), by ARN or id; its server then shuts down
    /// and is replaced as after a normal end.
    pub fn terminate_game_session(&self, game_session_id: &str) -> Result<(), GameLiftError> {
        self.with_state(|state, now| state.terminate_game_session(now, game_session_id))
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // No panic can leave the state half-changed in a way later calls cannot use.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Brings the model up to now, runs `f`, and wakes the driver (the next change may
    /// have moved).
    fn with_state<T>(&self, f: impl FnOnce(&mut State, Instant) -> T) -> T {
        let now = Instant::now();
        let result = {
            let mut state = self.lock();
            state.advance(now);
            f(&mut state, now)
        };
        self.wake.notify_one();
        result
    }
}

impl Drop for Simulator {
    fn drop(&mut self) {
        // Lets the driver see that the simulator is gone.
        self.wake.notify_one();
    }
}

/// Applies changes as they fall due; sleeps until the next one or a call that may
/// have moved it.
async fn drive(simulator: Weak<Simulator>, wake: Arc<Notify>) {
    loop {
        let next = match simulator.upgrade() {
            Some(simulator) => simulator.lock().advance(Instant::now()),
            None => return,
        };
        match next {
            Some(at) => {
                tokio::select! {
                    () = tokio::time::sleep_until(at) => {}
                    () = wake.notified() => {}
                }
            }
            None => wake.notified().await,
        }
    }
}

#[async_trait]
impl PlacementStarter for Simulator {
    async fn start_placement(&self, request: &PlacementRequest) -> Result<(), GameLiftError> {
        let players = request.players();
        for (region, _) in players.iter().flat_map(|(_, latencies)| latencies.iter()) {
            if region.is_empty() || region.len() > 64 {
                return Err(GameLiftError::InvalidRequest {
                    message: format!("RegionIdentifier {region:?} is not 1-64 characters."),
                });
            }
        }
        // One location: latencies cannot change where the game goes.
        self.start_group_placement(GroupPlacementRequest {
            placement_id: request.placement_id.clone(),
            queue: request.queue.clone(),
            max_players: request.max_players,
            players: players
                .into_iter()
                .map(|(player_id, _)| DesiredPlayer {
                    player_id: player_id.clone(),
                    // The requester's data; members send none.
                    player_data: (*player_id == request.player_id)
                        .then(|| request.player_data.clone())
                        .flatten(),
                })
                .collect(),
            matchmaker_data: None,
        })
    }
}

#[async_trait]
impl PlacementStopper for Simulator {
    async fn stop_placement(&self, placement_id: &PlacementId) -> Result<(), GameLiftError> {
        self.with_state(|state, now| state.stop_placement(now, placement_id, Outcome::Cancelled))
    }
}

#[async_trait]
impl PlayerSessions for Simulator {
    async fn create_player_session(
        &self,
        game_session_arn: &str,
        player_id: &PlayerId,
        player_data: Option<&str>,
    ) -> Result<PlayerSession, GameLiftError> {
        self.with_state(|state, now| {
            state.create_player_session(now, game_session_arn, player_id, player_data)
        })
    }
}

#[async_trait]
impl PlayerConnections for Simulator {
    async fn get_player_connection_details(
        &self,
        game_session_arn: &str,
        players: &[PlayerId],
    ) -> Result<Vec<PlayerConnection>, GameLiftError> {
        self.with_state(|state, now| {
            state.player_connection_details(now, game_session_arn, players)
        })
    }
}
