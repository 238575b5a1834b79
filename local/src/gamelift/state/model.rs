//! What the simulator holds: the fleet's server processes, the placements, the game
//! sessions and their player sessions, kept in vectors and found by index (a game
//! session or player session also by id).

use std::collections::HashMap;

use serde::Serialize;
use serde_json::Value;
use shared::domain::{ConnectionDetails, PlacementId, PlayerId};
use tokio::sync::mpsc::UnboundedSender;
use tokio::time::Instant;

use gamelift_server_protocol::Push;
use gamelift_server_protocol::model::{MatchmakerData, PlayerSessionCreationPolicy};

use crate::gamelift::events::uuid_v4;
use crate::gamelift::settings::SimulatorSettings;

/// A server process's state (GameLift's server process lifecycle).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum ServerState {
    /// Starting: loading, not yet ready for a game.
    Initializing,
    /// Ready: a placement may claim it.
    StandingBy,
    /// Hosting at least one game session (never goes back to StandingBy).
    Active,
    /// Shutting down after its games ended; a fresh process replaces it.
    Terminating,
    /// A real process taken out (ProcessEnding, unhealthy, or gone past its reconnect
    /// window): kept for the record, never placed on again.
    Terminated,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum PlacementStatus {
    Pending,
    Fulfilled,
    Cancelled,
    TimedOut,
    Failed,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum GameSessionStatus {
    /// Sent to a real process (CreateGameSession), which has not called
    /// ActivateGameSession yet.
    Activating,
    Active,
    Terminated,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum PlayerSessionStatus {
    /// Created; the game server has not validated the player yet.
    Reserved,
    /// Validated by the game server (AcceptPlayerSession).
    Active,
    /// The player left (RemovePlayerSession) or the game ended.
    Completed,
    /// Not validated within 60 s.
    #[serde(rename = "TIMEDOUT")]
    TimedOut,
}

impl PlayerSessionStatus {
    /// Holds a seat (GameLift's CurrentPlayerSessionCount).
    pub(super) fn holds_seat(self) -> bool {
        matches!(self, Self::Reserved | Self::Active)
    }

    pub(super) fn as_str(self) -> &'static str {
        match self {
            Self::Reserved => "RESERVED",
            Self::Active => "ACTIVE",
            Self::Completed => "COMPLETED",
            Self::TimedOut => "TIMEDOUT",
        }
    }
}

impl PlacementStatus {
    pub(super) fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "PENDING",
            Self::Fulfilled => "FULFILLED",
            Self::Cancelled => "CANCELLED",
            Self::TimedOut => "TIMED_OUT",
            Self::Failed => "FAILED",
        }
    }
}

/// What is currently broken on purpose (the console's knobs: `faults`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Faults {
    /// Every placement that would be fulfilled FAILS instead (PlacementFailed).
    pub fail_placements: bool,
    /// Every GetPlayerConnectionDetails is throttled (ThrottlingException): what
    /// `PLAYER_GATEWAY=enabled` and `required` do without details.
    pub fail_connection_details: bool,
}

/// A player asked for in a placement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DesiredPlayer {
    pub player_id: PlayerId,
    pub player_data: Option<String>,
}

/// StartGameSessionPlacement with any number of players (GameLift's
/// `DesiredPlayerSessions`).
#[derive(Clone, Debug, PartialEq)]
pub struct GroupPlacementRequest {
    pub placement_id: PlacementId,
    /// A queue name or ARN.
    pub queue: String,
    pub max_players: u32,
    pub players: Vec<DesiredPlayer>,
    /// A FlexMatch match's teams and attributes, given to a real process in
    /// CreateGameSession (`MatchmakerData`).
    pub matchmaker_data: Option<MatchmakerData>,
}

pub(super) struct Server {
    pub(super) process_id: String,
    /// A game server connected over the server SDK's WebSocket; `None`: simulated.
    pub(super) real: Option<RealProcess>,
    pub(super) state: ServerState,
    /// End of Initializing or Terminating.
    pub(super) until: Option<Instant>,
    /// Game sessions started on this process (running or ended).
    pub(super) sessions_hosted: u32,
    /// Game sessions (indices) still running.
    pub(super) running: Vec<usize>,
}

pub(super) struct Placement {
    pub(super) seq: u64,
    pub(super) id: PlacementId,
    pub(super) queue: String,
    pub(super) max_players: u32,
    pub(super) players: Vec<DesiredPlayer>,
    pub(super) status: PlacementStatus,
    pub(super) start_millis: i64,
    pub(super) end_millis: Option<i64>,
    pub(super) ready_at: Instant,
    pub(super) timeout_at: Instant,
    pub(super) game_session: Option<usize>,
    /// The game session sent to a real process, waiting for ActivateGameSession.
    pub(super) activating: Option<usize>,
    pub(super) matchmaker_data: Option<MatchmakerData>,
}

pub(super) struct GameSession {
    pub(super) id: String,
    pub(super) arn: String,
    pub(super) status: GameSessionStatus,
    pub(super) placement_id: PlacementId,
    pub(super) server: usize,
    pub(super) process_id: String,
    pub(super) max_players: u32,
    pub(super) ip_address: String,
    pub(super) dns_name: String,
    pub(super) port: u16,
    /// When a simulated game ends by itself; real games end when their process says.
    pub(super) ends_at: Option<Instant>,
    /// While ACTIVATING: when it is TERMINATED unless activated.
    pub(super) activation_deadline: Option<Instant>,
    pub(super) creation_policy: PlayerSessionCreationPolicy,
    pub(super) player_sessions: Vec<usize>,
}

pub(super) struct PlayerSessionRecord {
    pub(super) id: String,
    pub(super) player_id: String,
    pub(super) game_session: usize,
    pub(super) status: PlayerSessionStatus,
    /// When a RESERVED session times out.
    pub(super) reserved_until: Instant,
    pub(super) player_data: Option<String>,
    pub(super) creation_millis: i64,
    /// When it stopped holding a seat (COMPLETED or TIMEDOUT).
    pub(super) termination_millis: Option<i64>,
}

/// A game server process connected over the server SDK 5 WebSocket (its `pID`).
pub(super) struct RealProcess {
    pub(super) compute_id: String,
    pub(super) sdk_language: String,
    pub(super) sdk_version: String,
    /// Where its players connect (ActivateServerProcess `Port`).
    pub(super) port: u16,
    pub(super) log_paths: Vec<String>,
    /// The socket pushes go to; `None` while disconnected.
    pub(super) socket: Option<Socket>,
    pub(super) disconnected_at: Option<Instant>,
    /// The last heartbeat, or the activation before the first one.
    pub(super) last_heartbeat: Instant,
    pub(super) last_heartbeat_millis: Option<i64>,
    /// `HealthStatus: false` heartbeats in a row.
    pub(super) unhealthy_reports: u32,
    pub(super) healthy: bool,
    /// TerminateProcess was sent: taken out at this instant unless it ends first.
    pub(super) terminate_by: Option<Instant>,
    /// Why it was taken out, once Terminated.
    pub(super) ended: Option<String>,
}

/// Where a real process's pushes go: its current socket (a new socket for the same
/// pID replaces it).
#[derive(Clone, Debug)]
pub struct Socket {
    /// The endpoint's number for the socket, so an old socket closing late does not
    /// detach its successor.
    pub id: u64,
    pub outbox: UnboundedSender<Push>,
}

pub(crate) struct State {
    pub(super) settings: SimulatorSettings,
    /// The instant of the last change applied (never goes back).
    pub(super) clock: Instant,
    pub(super) base: Instant,
    pub(super) base_wall_millis: i64,
    pub(super) next_process: u64,
    pub(super) next_seq: u64,
    pub(super) subscription_id: String,
    pub(super) servers: Vec<Server>,
    pub(super) placements: Vec<Placement>,
    pub(super) placement_index: HashMap<PlacementId, usize>,
    pub(super) game_sessions: Vec<GameSession>,
    pub(super) game_index: HashMap<String, usize>,
    pub(super) player_sessions: Vec<PlayerSessionRecord>,
    pub(super) player_session_index: HashMap<String, usize>,
    pub(super) events: UnboundedSender<Value>,
    /// Runtime faults (the console's knobs): none at start.
    pub(super) faults: Faults,
    /// GetPlayerConnectionDetails calls answered (or refused), since start.
    pub(super) connection_details_calls: u64,
    /// The latest connection details given, by game session (index) and player id.
    pub(super) issued: HashMap<(usize, String), ConnectionDetails>,
    /// Real processes by pID: the latest record of each (a pID that ended and
    /// activates again gets a new one).
    pub(super) real_index: HashMap<String, usize>,
}

impl State {
    /// A fleet whose every server starts Initializing at `now`.
    pub(crate) fn new(
        settings: SimulatorSettings,
        now: Instant,
        wall_millis: i64,
        events: UnboundedSender<Value>,
    ) -> Self {
        let mut state = Self {
            settings,
            clock: now,
            base: now,
            base_wall_millis: wall_millis,
            next_process: 1,
            next_seq: 1,
            subscription_id: uuid_v4(),
            servers: Vec::new(),
            placements: Vec::new(),
            placement_index: HashMap::new(),
            game_sessions: Vec::new(),
            game_index: HashMap::new(),
            player_sessions: Vec::new(),
            player_session_index: HashMap::new(),
            events,
            faults: Faults::default(),
            connection_details_calls: 0,
            issued: HashMap::new(),
            real_index: HashMap::new(),
        };
        for _ in 0..state.settings.fleet_servers {
            let server = state.fresh_server(now);
            state.servers.push(server);
        }
        state
    }

    pub(crate) fn settings(&self) -> &SimulatorSettings {
        &self.settings
    }

    pub(super) fn fresh_server(&mut self, at: Instant) -> Server {
        let process_id = format!("process-{}", self.next_process);
        self.next_process += 1;
        tracing::debug!(process_id, "simulated server process Initializing");
        Server {
            process_id,
            real: None,
            state: ServerState::Initializing,
            until: Some(at + self.settings.server_startup),
            sessions_hosted: 0,
            running: Vec::new(),
        }
    }

    /// Epoch milliseconds at `at`: wall time at start plus simulated time since.
    pub(super) fn wall(&self, at: Instant) -> i64 {
        let elapsed = at.saturating_duration_since(self.base).as_millis();
        self.base_wall_millis
            .saturating_add(i64::try_from(elapsed).unwrap_or(i64::MAX))
    }
}
