//! Real processes: game servers that joined over the server SDK 5 WebSocket
//! (`local::gamelift_sdk`). They sit in the fleet beside the simulated ones and are
//! placed on by the same queue, but their game sessions start ACTIVATING (the process
//! is sent CreateGameSession) and the placement is FULFILLED only once the process calls
//! ActivateGameSession. A process is its `pID`, not its socket: a new socket for the
//! same pID takes over its pushes. It is taken out (Terminated, its games ended) when it
//! calls ProcessEnding, when the grace after TerminateProcess runs out, or when its
//! socket stays dropped past the reconnect window.

use gamelift_server_protocol::model::MatchmakerData;
use gamelift_server_protocol::{CreateGameSession, ErrorKind, Push, TerminateProcess};
use shared::ports::GameLiftError;
use tokio::time::Instant;

use super::model::{GameSession, GameSessionStatus, RealProcess, ServerState, Socket, State};
use crate::gamelift::events::{Fulfilment, Outcome, uuid_v4};
use crate::gamelift::settings::UNHEALTHY_AFTER_HEARTBEATS;

/// A refused server SDK call: the status kind the SDKs read and a message that says why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ProcessError {
    pub kind: ErrorKind,
    pub message: String,
}

impl ProcessError {
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self {
            kind: ErrorKind::BadRequest,
            message: message.into(),
        }
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        Self {
            kind: ErrorKind::NotFound,
            message: message.into(),
        }
    }
}

impl From<GameLiftError> for ProcessError {
    fn from(error: GameLiftError) -> Self {
        match error {
            GameLiftError::NotFound { message } => Self::not_found(message),
            GameLiftError::InvalidRequest { message }
            | GameLiftError::SessionEnded { message }
            | GameLiftError::SessionFull { message } => Self::bad_request(message),
            other => Self {
                kind: ErrorKind::InternalService,
                message: other.to_string(),
            },
        }
    }
}

/// What ActivateServerProcess and the upgrade's query say about a process.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProcessRegistration {
    /// `pID`.
    pub process_id: String,
    /// `ComputeId` (the host id).
    pub compute_id: String,
    pub sdk_language: String,
    pub sdk_version: String,
    /// Where its players connect.
    pub port: u16,
    pub log_paths: Vec<String>,
}

impl State {
    /// ActivateServerProcess (ProcessReady): the process joins the fleet StandingBy. Again
    /// for a live pID: its port and socket are updated.
    pub(crate) fn activate_process(
        &mut self,
        now: Instant,
        registration: ProcessRegistration,
        socket: Socket,
    ) -> Result<(), ProcessError> {
        if registration.port == 0 {
            return Err(ProcessError::bad_request(
                "Port 0 is not a port players can connect to: ProcessReady needs the game \
                 server's port (1-65535)",
            ));
        }
        if let Some(s) = self.live_process(&registration.process_id) {
            let real = self.servers[s].real.as_mut().ok_or_else(not_real)?;
            real.port = registration.port;
            real.socket = Some(socket);
            real.disconnected_at = None;
            return Ok(());
        }
        tracing::info!(
            process_id = registration.process_id,
            port = registration.port,
            sdk = registration.sdk_language,
            "game server process activated (ProcessReady)"
        );
        let s = self.servers.len();
        self.real_index.insert(registration.process_id.clone(), s);
        self.servers.push(super::model::Server {
            process_id: registration.process_id,
            real: Some(RealProcess {
                compute_id: registration.compute_id,
                sdk_language: registration.sdk_language,
                sdk_version: registration.sdk_version,
                port: registration.port,
                log_paths: registration.log_paths,
                socket: Some(socket),
                disconnected_at: None,
                last_heartbeat: now,
                last_heartbeat_millis: None,
                unhealthy_reports: 0,
                healthy: true,
                terminate_by: None,
                ended: None,
            }),
            state: ServerState::StandingBy,
            until: None,
            sessions_hosted: 0,
            running: Vec::new(),
        });
        Ok(())
    }

    /// A live (not Terminated) real process's index.
    pub(super) fn live_process(&self, process_id: &str) -> Option<usize> {
        self.real_index
            .get(process_id)
            .copied()
            .filter(|&s| self.servers[s].state != ServerState::Terminated)
    }

    /// The live process a call comes from, or why there is none.
    pub(crate) fn caller(&self, process_id: &str) -> Result<usize, ProcessError> {
        if let Some(s) = self.live_process(process_id) {
            return Ok(s);
        }
        let ended = self
            .real_index
            .get(process_id)
            .and_then(|&s| self.servers[s].real.as_ref())
            .and_then(|real| real.ended.clone());
        Err(ProcessError::bad_request(match ended {
            Some(why) => format!(
                "process {process_id} was taken out ({why}); call ProcessReady \
                 (ActivateServerProcess) again to rejoin the fleet"
            ),
            None => format!(
                "process {process_id} has not called ProcessReady (ActivateServerProcess) on \
                 this stack yet"
            ),
        }))
    }

    /// A socket opened for a pID: it takes over the process's pushes (a reconnect);
    /// `false` when the pID has no live process (the socket waits for
    /// ActivateServerProcess).
    pub(crate) fn attach_socket(&mut self, process_id: &str, socket: Socket) -> bool {
        let Some(s) = self.live_process(process_id) else {
            return false;
        };
        if let Some(real) = self.servers[s].real.as_mut() {
            real.socket = Some(socket);
            real.disconnected_at = None;
        }
        true
    }

    /// A socket closed: the process keeps its games for the reconnect window, unless a
    /// newer socket already took over.
    pub(crate) fn detach_socket(&mut self, now: Instant, process_id: &str, socket_id: u64) {
        let Some(s) = self.live_process(process_id) else {
            return;
        };
        if let Some(real) = self.servers[s].real.as_mut()
            && real
                .socket
                .as_ref()
                .is_some_and(|socket| socket.id == socket_id)
        {
            real.socket = None;
            real.disconnected_at = Some(now);
            tracing::info!(
                process_id,
                "game server socket dropped; waiting for it to reconnect"
            );
        }
    }

    /// HeartbeatServerProcess: three `false` in a row make the process unhealthy.
    pub(crate) fn heartbeat(
        &mut self,
        now: Instant,
        process_id: &str,
        healthy: bool,
    ) -> Result<(), ProcessError> {
        let s = self.caller(process_id)?;
        let millis = self.wall(now);
        let real = self.servers[s].real.as_mut().ok_or_else(not_real)?;
        real.last_heartbeat = now;
        real.last_heartbeat_millis = Some(millis);
        if healthy {
            real.unhealthy_reports = 0;
            if real.terminate_by.is_none() {
                real.healthy = true;
            }
            return Ok(());
        }
        real.unhealthy_reports += 1;
        if real.unhealthy_reports >= UNHEALTHY_AFTER_HEARTBEATS && real.terminate_by.is_none() {
            self.unhealthy(s, now, "reported unhealthy three times in a row");
        }
        Ok(())
    }

    /// Sends a placement to a real process: a game session ACTIVATING, and
    /// CreateGameSession on its socket; the placement stays PENDING.
    pub(super) fn send_to_process(&mut self, s: usize, p: usize, at: Instant) {
        let settings = &self.settings;
        let id = uuid_v4();
        let arn = format!(
            "arn:aws:gamelift:{}::gamesession/{}/{id}",
            settings.region, settings.fleet_id
        );
        let g = self.game_sessions.len();
        let server = &mut self.servers[s];
        let Some(real) = server.real.as_ref() else {
            return;
        };
        let placement = &mut self.placements[p];
        let push = Push::CreateGameSession(CreateGameSession {
            game_session_id: arn.clone(),
            game_session_name: placement.id.to_string(),
            game_session_data: String::new(),
            matchmaker_data: placement
                .matchmaker_data
                .as_ref()
                .map(MatchmakerData::to_text)
                .unwrap_or_default(),
            maximum_player_session_count: i32::try_from(placement.max_players).unwrap_or(i32::MAX),
            port: i32::from(real.port),
            ip_address: settings.server_ip.clone(),
            dns_name: settings.server_dns.clone(),
            game_properties: Default::default(),
        });
        let sent = real
            .socket
            .as_ref()
            .is_some_and(|socket| socket.outbox.send(push).is_ok());
        if !sent {
            // Its socket went between the check and now: the placement waits.
            return;
        }
        let port = real.port;
        server.sessions_hosted += 1;
        server.state = ServerState::Active;
        server.running.push(g);
        placement.activating = Some(g);
        tracing::info!(
            placement_id = %placement.id,
            game_session_arn = arn,
            process_id = server.process_id,
            "game session ACTIVATING on a game server (CreateGameSession sent)"
        );
        let game = GameSession {
            id: id.clone(),
            arn: arn.clone(),
            status: GameSessionStatus::Activating,
            placement_id: placement.id.clone(),
            server: s,
            process_id: server.process_id.clone(),
            max_players: placement.max_players,
            ip_address: settings.server_ip.clone(),
            dns_name: settings.server_dns.clone(),
            port,
            ends_at: None,
            activation_deadline: Some(at + settings.game_session_activation),
            creation_policy: Default::default(),
            player_sessions: Vec::new(),
        };
        self.game_index.insert(arn, g);
        self.game_index.insert(id, g);
        self.game_sessions.push(game);
    }

    /// ActivateGameSession: ACTIVE, a RESERVED player session per player asked for, and
    /// the placement FULFILLED.
    pub(crate) fn activate_game_session(
        &mut self,
        now: Instant,
        process_id: &str,
        game_session_id: &str,
    ) -> Result<(), ProcessError> {
        let s = self.caller(process_id)?;
        let g = self.own_game(s, game_session_id)?;
        let game = &self.game_sessions[g];
        match game.status {
            GameSessionStatus::Activating => {}
            GameSessionStatus::Active => {
                return Err(ProcessError::bad_request(format!(
                    "game session {} is already ACTIVE",
                    game.arn
                )));
            }
            GameSessionStatus::Terminated => {
                return Err(ProcessError::bad_request(format!(
                    "game session {} is TERMINATED (not activated within \
                     SIM_GAME_SESSION_ACTIVATION_SECONDS, or ended)",
                    game.arn
                )));
            }
        }
        let created = self.wall(now);
        let reservation = self.settings.player_session_reservation;
        let placement_id = game.placement_id.clone();
        let Some(&p) = self.placement_index.get(&placement_id) else {
            return Err(ProcessError::not_found(format!(
                "no placement {placement_id} for game session {}",
                game.arn
            )));
        };
        let players = self.placements[p].players.clone();
        let (seats, placed) = self.reserve_player_sessions(g, &players, now + reservation, created);
        self.game_sessions[g].player_sessions.extend(seats);
        let game = &mut self.game_sessions[g];
        game.status = GameSessionStatus::Active;
        game.activation_deadline = None;
        let fulfilment = Fulfilment {
            game_session_arn: game.arn.clone(),
            ip_address: game.ip_address.clone(),
            dns_name: game.dns_name.clone(),
            port: game.port,
            placed_player_sessions: placed,
        };
        tracing::info!(
            game_session_arn = game.arn,
            process_id,
            "game session ACTIVE (ActivateGameSession); placement FULFILLED"
        );
        let placement = &mut self.placements[p];
        placement.activating = None;
        placement.game_session = Some(g);
        if placement.status == super::model::PlacementStatus::Pending {
            self.finish(p, now, Outcome::Fulfilled(fulfilment));
        }
        Ok(())
    }

    /// A game session of this process, by ARN or id.
    pub(super) fn own_game(&self, s: usize, game_session_id: &str) -> Result<usize, ProcessError> {
        let g = self.game(game_session_id)?;
        let game = &self.game_sessions[g];
        if game.server != s || game.process_id != self.servers[s].process_id {
            return Err(ProcessError::bad_request(format!(
                "game session {game_session_id} belongs to another process ({})",
                game.process_id
            )));
        }
        Ok(g)
    }

    /// Not activated in time: TERMINATED, and its placement (still PENDING) tries again.
    pub(super) fn activation_timed_out(&mut self, g: usize, at: Instant) {
        tracing::warn!(
            game_session_arn = self.game_sessions[g].arn,
            "game session not activated within SIM_GAME_SESSION_ACTIVATION_SECONDS: TERMINATED"
        );
        // Ending it frees its placement to try again.
        self.end_game(g, at);
    }

    /// Unhealthy: TerminateProcess now, taken out after the grace.
    pub(super) fn unhealthy(&mut self, s: usize, at: Instant, why: &str) {
        if let Some(real) = self.servers[s].real.as_mut() {
            real.healthy = false;
        }
        tracing::warn!(
            process_id = self.servers[s].process_id,
            why,
            "game server process unhealthy"
        );
        self.send_terminate(s, at);
    }

    /// TerminateProcess, with the time it will be taken out (epoch milliseconds).
    pub(super) fn send_terminate(&mut self, s: usize, at: Instant) {
        let by = at + self.settings.termination_grace;
        let termination_time = self.wall(by);
        let Some(real) = self.servers[s].real.as_mut() else {
            return;
        };
        if real.terminate_by.is_some() {
            return;
        }
        real.terminate_by = Some(by);
        let push = Push::TerminateProcess(TerminateProcess { termination_time });
        if let Some(socket) = &real.socket {
            // A closed socket: the grace runs all the same.
            let _ = socket.outbox.send(push);
        }
    }

    /// The console's TerminateProcess: as GameLift's scale-in or an unhealthy process.
    pub(crate) fn terminate_process(
        &mut self,
        now: Instant,
        process_id: &str,
    ) -> Result<(), ProcessError> {
        let s = self.caller(process_id)?;
        self.send_terminate(s, now);
        Ok(())
    }

    /// Any push to a live process's current socket (RefreshConnection).
    pub(crate) fn push(&mut self, process_id: &str, push: Push) -> Result<(), ProcessError> {
        let s = self.caller(process_id)?;
        let socket = self.servers[s]
            .real
            .as_ref()
            .and_then(|real| real.socket.as_ref())
            .ok_or_else(|| {
                ProcessError::bad_request(format!("process {process_id} has no open socket"))
            })?;
        socket.outbox.send(push).map_err(|_| {
            ProcessError::bad_request(format!("process {process_id}'s socket just closed"))
        })
    }

    /// ProcessEnding (TerminateServerProcess): taken out now.
    pub(crate) fn process_ending(
        &mut self,
        now: Instant,
        process_id: &str,
    ) -> Result<(), ProcessError> {
        let s = self.caller(process_id)?;
        self.take_out(s, now, "it called ProcessEnding");
        Ok(())
    }

    /// Terminated: its games end (TERMINATED, seats COMPLETED), and it is never placed
    /// on again.
    pub(super) fn take_out(&mut self, s: usize, at: Instant, why: &str) {
        if self.servers[s].state == ServerState::Terminated {
            return;
        }
        tracing::info!(
            process_id = self.servers[s].process_id,
            why,
            "game server process TERMINATED"
        );
        for g in self.servers[s].running.clone() {
            self.end_game(g, at);
        }
        let server = &mut self.servers[s];
        server.state = ServerState::Terminated;
        if let Some(real) = server.real.as_mut() {
            real.ended = Some(why.to_owned());
            real.terminate_by = None;
            real.disconnected_at = None;
        }
    }
}

fn not_real() -> ProcessError {
    ProcessError {
        kind: ErrorKind::InternalService,
        message: "the process is a simulated one".into(),
    }
}
