//! The simulated fleet, queue and sessions: a discrete-event model driven by tokio time.
//!
//! Every change happens at a known instant (a server finishing start-up, a placement
//! becoming ready, a game ending, a reservation or a queue timing out). `advance(now)`
//! applies every change due by `now`, earliest first, each at its own instant (so a
//! late wake-up never reorders them), and returns when the next one is due.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::Value;
use shared::domain::PlayerId;
use shared::ports::gamelift::{GameLiftError, PlayerSession};
use tokio::sync::mpsc::UnboundedSender;
use tokio::time::Instant;

use super::events::{self, Fulfilment, Outcome, uuid_v4};
use super::settings::SimulatorSettings;

/// GameLift's limits on StartGameSessionPlacement and CreatePlayerSession.
const MAX_PLACEMENT_ID_LEN: usize = 48;
const MAX_DESIRED_PLAYER_SESSIONS: usize = 25;
const MAX_PLAYER_DATA_LEN: usize = 2048;
const MAX_PLAYERS_PER_GAME: u32 = 200;
const MAX_QUEUE_NAME_LEN: usize = 256;

/// A server process's state: Initializing → StandingBy → Active → Terminating.
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
    fn holds_seat(self) -> bool {
        matches!(self, Self::Reserved | Self::Active)
    }

    fn as_str(self) -> &'static str {
        match self {
            Self::Reserved => "RESERVED",
            Self::Active => "ACTIVE",
            Self::Completed => "COMPLETED",
            Self::TimedOut => "TIMEDOUT",
        }
    }
}

/// A player asked for in a placement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DesiredPlayer {
    pub player_id: PlayerId,
    pub player_data: Option<String>,
}

/// StartGameSessionPlacement with any number of players (GameLift's
/// `DesiredPlayerSessions`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupPlacementRequest {
    pub placement_id: String,
    /// A queue name or ARN.
    pub queue: String,
    pub max_players: u32,
    pub players: Vec<DesiredPlayer>,
}

struct Server {
    process_id: String,
    state: ServerState,
    /// End of Initializing or Terminating.
    until: Option<Instant>,
    /// Game sessions started on this process (running or ended).
    sessions_hosted: u32,
    /// Game sessions (indices) still running.
    running: Vec<usize>,
}

struct Placement {
    seq: u64,
    id: String,
    queue: String,
    max_players: u32,
    players: Vec<DesiredPlayer>,
    status: PlacementStatus,
    start_millis: i64,
    end_millis: Option<i64>,
    ready_at: Instant,
    timeout_at: Instant,
    game_session: Option<usize>,
}

struct GameSession {
    id: String,
    arn: String,
    status: GameSessionStatus,
    placement_id: String,
    server: usize,
    process_id: String,
    max_players: u32,
    ip_address: String,
    dns_name: String,
    port: u16,
    ends_at: Instant,
    player_sessions: Vec<usize>,
}

struct PlayerSessionRecord {
    id: String,
    player_id: String,
    game_session: usize,
    status: PlayerSessionStatus,
    /// When a RESERVED session times out.
    reserved_until: Instant,
}

/// Changes that happen by themselves, in the order they win a tie.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Due {
    ServerReady(usize),
    ServerReplaced(usize),
    GameEnds(usize),
    ReservationExpires(usize),
    Fulfil(usize),
    PlacementTimesOut(usize),
}

pub(crate) struct State {
    settings: SimulatorSettings,
    /// The instant of the last change applied (never goes back).
    clock: Instant,
    base: Instant,
    base_wall_millis: i64,
    next_process: u64,
    next_seq: u64,
    subscription_id: String,
    servers: Vec<Server>,
    placements: Vec<Placement>,
    placement_index: HashMap<String, usize>,
    game_sessions: Vec<GameSession>,
    game_index: HashMap<String, usize>,
    player_sessions: Vec<PlayerSessionRecord>,
    player_session_index: HashMap<String, usize>,
    events: UnboundedSender<Value>,
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

    fn fresh_server(&mut self, at: Instant) -> Server {
        let process_id = format!("process-{}", self.next_process);
        self.next_process += 1;
        tracing::debug!(process_id, "simulated server process Initializing");
        Server {
            process_id,
            state: ServerState::Initializing,
            until: Some(at + self.settings.server_startup),
            sessions_hosted: 0,
            running: Vec::new(),
        }
    }

    /// Epoch milliseconds at `at`: wall time at start plus simulated time since.
    fn wall(&self, at: Instant) -> i64 {
        let elapsed = at.saturating_duration_since(self.base).as_millis();
        self.base_wall_millis
            .saturating_add(i64::try_from(elapsed).unwrap_or(i64::MAX))
    }

    /// Applies every change due by `now`; returns when the next one is due.
    pub(crate) fn advance(&mut self, now: Instant) -> Option<Instant> {
        loop {
            match self.next_due() {
                Some((at, due)) if at <= now => {
                    self.clock = self.clock.max(at);
                    self.apply(due, self.clock);
                }
                _ => break,
            }
        }
        // Nothing else happened up to now: calls made now happen at now.
        self.clock = self.clock.max(now);
        self.next_due().map(|(at, _)| at)
    }

    /// The earliest change, ties broken by `Due`'s order.
    fn next_due(&self) -> Option<(Instant, Due)> {
        let mut candidates: Vec<(Instant, Due)> = Vec::new();
        for (i, server) in self.servers.iter().enumerate() {
            match (server.state, server.until) {
                (ServerState::Initializing, Some(until)) => {
                    candidates.push((until, Due::ServerReady(i)));
                }
                (ServerState::Terminating, Some(until)) => {
                    candidates.push((until, Due::ServerReplaced(i)));
                }
                _ => {}
            }
        }
        for (i, game) in self.game_sessions.iter().enumerate() {
            if game.status == GameSessionStatus::Active {
                candidates.push((game.ends_at, Due::GameEnds(i)));
            }
        }
        for (i, session) in self.player_sessions.iter().enumerate() {
            if session.status == PlayerSessionStatus::Reserved {
                candidates.push((session.reserved_until, Due::ReservationExpires(i)));
            }
        }
        let has_capacity = self.free_server().is_some();
        let mut first_ready: Option<(Instant, u64, usize)> = None;
        for (i, placement) in self.placements.iter().enumerate() {
            if placement.status != PlacementStatus::Pending {
                continue;
            }
            candidates.push((placement.timeout_at, Due::PlacementTimesOut(i)));
            if has_capacity {
                // Capacity exists from `clock` on: the placement goes as soon as it is
                // ready, first come first served.
                let key = (placement.ready_at.max(self.clock), placement.seq, i);
                if first_ready.is_none_or(|best| key < best) {
                    first_ready = Some(key);
                }
            }
        }
        if let Some((at, _, i)) = first_ready {
            candidates.push((at, Due::Fulfil(i)));
        }
        candidates.into_iter().min()
    }

    fn apply(&mut self, due: Due, at: Instant) {
        match due {
            Due::ServerReady(i) => {
                let server = &mut self.servers[i];
                server.state = ServerState::StandingBy;
                server.until = None;
                tracing::debug!(
                    process_id = server.process_id,
                    "simulated server StandingBy"
                );
            }
            Due::ServerReplaced(i) => {
                tracing::debug!(
                    process_id = self.servers[i].process_id,
                    "simulated server terminated"
                );
                self.servers[i] = self.fresh_server(at);
            }
            Due::GameEnds(g) => self.end_game(g, at),
            Due::ReservationExpires(p) => {
                self.player_sessions[p].status = PlayerSessionStatus::TimedOut;
            }
            Due::Fulfil(p) => self.fulfil(p, at),
            Due::PlacementTimesOut(p) => self.finish(p, at, Outcome::TimedOut),
        }
    }

    /// A server with a free slot: an Active one first (fill it), then a StandingBy one.
    fn free_server(&self) -> Option<usize> {
        let per_server = self.settings.sessions_per_server;
        let active = self.servers.iter().position(|server| {
            server.state == ServerState::Active && server.sessions_hosted < per_server
        });
        active.or_else(|| {
            self.servers
                .iter()
                .position(|server| server.state == ServerState::StandingBy)
        })
    }

    fn fulfil(&mut self, p: usize, at: Instant) {
        let Some(s) = self.free_server() else {
            return;
        };
        let settings = &self.settings;
        let server = &mut self.servers[s];
        let slot = server.sessions_hosted;
        server.sessions_hosted += 1;
        server.state = ServerState::Active;
        let port_offset = s as u64 * u64::from(settings.sessions_per_server) + u64::from(slot);
        let port =
            u16::try_from(u64::from(settings.server_port_base) + port_offset).unwrap_or(u16::MAX);
        let id = uuid_v4();
        let arn = format!(
            "arn:aws:gamelift:{}::gamesession/{}/{id}",
            settings.region, settings.fleet_id
        );
        let g = self.game_sessions.len();
        server.running.push(g);
        let process_id = server.process_id.clone();
        let placement = &mut self.placements[p];
        let mut game = GameSession {
            id,
            arn: arn.clone(),
            status: GameSessionStatus::Active,
            placement_id: placement.id.clone(),
            server: s,
            process_id,
            max_players: placement.max_players,
            ip_address: settings.server_ip.clone(),
            dns_name: settings.server_dns.clone(),
            port,
            ends_at: at + settings.game_session_duration,
            player_sessions: Vec::new(),
        };
        let mut placed = Vec::new();
        for player in &placement.players {
            let session_id = format!("psess-{}", uuid_v4());
            let index = self.player_sessions.len();
            self.player_sessions.push(PlayerSessionRecord {
                id: session_id.clone(),
                player_id: player.player_id.as_str().to_owned(),
                game_session: g,
                status: PlayerSessionStatus::Reserved,
                reserved_until: at + settings.player_session_reservation,
            });
            self.player_session_index.insert(session_id.clone(), index);
            game.player_sessions.push(index);
            placed.push((player.player_id.as_str().to_owned(), session_id));
        }
        placement.game_session = Some(g);
        let fulfilment = Fulfilment {
            game_session_arn: arn.clone(),
            ip_address: game.ip_address.clone(),
            dns_name: game.dns_name.clone(),
            port,
            placed_player_sessions: placed,
        };
        tracing::info!(
            placement_id = placement.id,
            game_session_arn = arn,
            process_id = game.process_id,
            "simulated placement fulfilled"
        );
        self.game_index.insert(arn, g);
        self.game_index.insert(game.id.clone(), g);
        self.game_sessions.push(game);
        self.finish(p, at, Outcome::Fulfilled(fulfilment));
    }

    /// Ends a PENDING placement and emits its event.
    fn finish(&mut self, p: usize, at: Instant, outcome: Outcome) {
        let end_millis = self.wall(at);
        let placement = &mut self.placements[p];
        placement.status = match outcome {
            Outcome::Fulfilled(_) => PlacementStatus::Fulfilled,
            Outcome::Cancelled => PlacementStatus::Cancelled,
            Outcome::TimedOut => PlacementStatus::TimedOut,
            Outcome::Failed => PlacementStatus::Failed,
        };
        placement.end_millis = Some(end_millis);
        if !matches!(outcome, Outcome::Fulfilled(_)) {
            tracing::info!(
                placement_id = placement.id,
                outcome = outcome.event_type(),
                "simulated placement ended"
            );
        }
        let event = events::placement_event(
            &self.settings,
            &placement.queue,
            &placement.id,
            placement.start_millis,
            end_millis,
            &outcome,
        );
        let envelope =
            events::sns_envelope(&self.settings, &self.subscription_id, &event, end_millis);
        // The receiver goes only when the simulator does.
        let _ = self.events.send(envelope);
    }

    fn end_game(&mut self, g: usize, at: Instant) {
        let game = &mut self.game_sessions[g];
        if game.status != GameSessionStatus::Active {
            return;
        }
        game.status = GameSessionStatus::Terminated;
        tracing::info!(
            game_session_arn = game.arn,
            "simulated game session TERMINATED"
        );
        for &p in &game.player_sessions {
            let session = &mut self.player_sessions[p];
            if session.status.holds_seat() {
                session.status = PlayerSessionStatus::Completed;
            }
        }
        let server = &mut self.servers[game.server];
        // A replaced process's games ended with it.
        if server.process_id != game.process_id {
            return;
        }
        server.running.retain(|&running| running != g);
        if server.running.is_empty() {
            server.state = ServerState::Terminating;
            server.until = Some(at + self.settings.server_shutdown);
            tracing::debug!(
                process_id = server.process_id,
                "simulated server Terminating"
            );
        }
    }

    // ---- API calls, each at `now` (after `advance(now)`) ----

    pub(crate) fn start_placement(
        &mut self,
        now: Instant,
        request: GroupPlacementRequest,
    ) -> Result<(), GameLiftError> {
        let queue = self.queue_name(&request.queue)?;
        validate_placement(&request)?;
        if self.placement_index.contains_key(&request.placement_id) {
            return Err(invalid(format!(
                "A game session placement with ID {} already exists.",
                request.placement_id
            )));
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        let index = self.placements.len();
        tracing::info!(
            placement_id = request.placement_id,
            queue,
            players = request.players.len(),
            "simulated placement PENDING"
        );
        self.placement_index
            .insert(request.placement_id.clone(), index);
        self.placements.push(Placement {
            seq,
            id: request.placement_id,
            queue,
            max_players: request.max_players,
            players: request.players,
            status: PlacementStatus::Pending,
            start_millis: self.wall(now),
            end_millis: None,
            ready_at: now + self.settings.placement_delay,
            timeout_at: now + self.settings.queue_timeout,
            game_session: None,
        });
        Ok(())
    }

    /// The queue's name (GameSessionQueueName may be a name or an ARN); NotFound when
    /// queues are configured and it is not one of them.
    fn queue_name(&self, queue: &str) -> Result<String, GameLiftError> {
        let name = if queue.starts_with("arn:") {
            queue
                .split_once(":gamesessionqueue/")
                .map(|(_, name)| name)
                .ok_or_else(|| invalid(format!("{queue} is not a game session queue ARN.")))?
        } else {
            queue
        };
        let valid = (1..=MAX_QUEUE_NAME_LEN).contains(&name.len())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
        if !valid {
            return Err(invalid(format!(
                "GameSessionQueueName {queue:?} is not 1-256 of [a-zA-Z0-9-]."
            )));
        }
        if !self.settings.queues.is_empty() && !self.settings.queues.iter().any(|q| q == name) {
            return Err(GameLiftError::NotFound {
                message: format!("Game session queue {name} not found."),
            });
        }
        Ok(name.to_owned())
    }

    pub(crate) fn stop_placement(
        &mut self,
        now: Instant,
        placement_id: &str,
        outcome: Outcome,
    ) -> Result<(), GameLiftError> {
        let &p = self
            .placement_index
            .get(placement_id)
            .ok_or_else(|| GameLiftError::NotFound {
                message: format!("Game session placement {placement_id} not found."),
            })?;
        let status = self.placements[p].status;
        if status != PlacementStatus::Pending {
            return Err(invalid(format!(
                "Game session placement {placement_id} is {}, not PENDING.",
                placement_status_str(status)
            )));
        }
        self.finish(p, now, outcome);
        Ok(())
    }

    pub(crate) fn create_player_session(
        &mut self,
        now: Instant,
        game_session_id: &str,
        player_id: &PlayerId,
        player_data: Option<&str>,
    ) -> Result<PlayerSession, GameLiftError> {
        if player_data.is_some_and(|data| data.chars().count() > MAX_PLAYER_DATA_LEN) {
            return Err(invalid(format!(
                "PlayerData is longer than {MAX_PLAYER_DATA_LEN} characters."
            )));
        }
        let valid_id = (1..=256).contains(&game_session_id.len())
            && game_session_id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, ':' | '/' | '-'));
        if !valid_id {
            return Err(invalid(format!(
                "GameSessionId {game_session_id:?} is not 1-256 of [a-zA-Z0-9:/-]."
            )));
        }
        let g = self.game(game_session_id)?;
        let game = &self.game_sessions[g];
        if game.status != GameSessionStatus::Active {
            return Err(GameLiftError::SessionEnded {
                message: format!(
                    "Game session {} is not ACTIVE (InvalidGameSessionStatusException: TERMINATED).",
                    game.arn
                ),
            });
        }
        let seated = game
            .player_sessions
            .iter()
            .filter(|&&p| self.player_sessions[p].status.holds_seat())
            .count();
        if seated >= game.max_players as usize {
            return Err(GameLiftError::SessionEnded {
                message: format!(
                    "Game session {} is full (GameSessionFullException: {seated} of {}).",
                    game.arn, game.max_players
                ),
            });
        }
        let session = PlayerSession {
            player_session_id: format!("psess-{}", uuid_v4()),
            game_session_arn: game.arn.clone(),
            ip_address: game.ip_address.clone(),
            dns_name: game.dns_name.clone(),
            port: game.port,
        };
        let index = self.player_sessions.len();
        self.player_sessions.push(PlayerSessionRecord {
            id: session.player_session_id.clone(),
            player_id: player_id.as_str().to_owned(),
            game_session: g,
            status: PlayerSessionStatus::Reserved,
            reserved_until: now + self.settings.player_session_reservation,
        });
        self.player_session_index
            .insert(session.player_session_id.clone(), index);
        self.game_sessions[g].player_sessions.push(index);
        tracing::info!(
            player_session_id = session.player_session_id,
            game_session_arn = session.game_session_arn,
            "simulated player session RESERVED"
        );
        Ok(session)
    }

    fn game(&self, game_session_id: &str) -> Result<usize, GameLiftError> {
        self.game_index
            .get(game_session_id)
            .copied()
            .ok_or_else(|| GameLiftError::NotFound {
                message: format!("Game session {game_session_id} not found."),
            })
    }

    /// The game server validates a player (GameLift server SDK AcceptPlayerSession).
    pub(crate) fn accept_player_session(
        &mut self,
        player_session_id: &str,
    ) -> Result<(), GameLiftError> {
        let p = self.player_session(player_session_id)?;
        let session = &mut self.player_sessions[p];
        if session.status != PlayerSessionStatus::Reserved {
            return Err(invalid(format!(
                "PlayerSession ({player_session_id}) has a status of {} instead of RESERVED",
                session.status.as_str()
            )));
        }
        session.status = PlayerSessionStatus::Active;
        Ok(())
    }

    /// A player left the game (GameLift server SDK RemovePlayerSession): COMPLETED,
    /// never reusable, as in GameLift.
    pub(crate) fn remove_player_session(
        &mut self,
        player_session_id: &str,
    ) -> Result<(), GameLiftError> {
        let p = self.player_session(player_session_id)?;
        let session = &mut self.player_sessions[p];
        if !session.status.holds_seat() {
            return Err(invalid(format!(
                "PlayerSession ({player_session_id}) has a status of {}",
                session.status.as_str()
            )));
        }
        session.status = PlayerSessionStatus::Completed;
        Ok(())
    }

    fn player_session(&self, player_session_id: &str) -> Result<usize, GameLiftError> {
        self.player_session_index
            .get(player_session_id)
            .copied()
            .ok_or_else(|| GameLiftError::NotFound {
                message: format!("Player session {player_session_id} not found."),
            })
    }

    /// Ends a game now (as TerminateGameSession, or the server process ending it).
    pub(crate) fn terminate_game_session(
        &mut self,
        now: Instant,
        game_session_id: &str,
    ) -> Result<(), GameLiftError> {
        let g = self.game(game_session_id)?;
        if self.game_sessions[g].status != GameSessionStatus::Active {
            return Err(invalid(format!(
                "Game session {game_session_id} is already TERMINATED."
            )));
        }
        self.end_game(g, now);
        Ok(())
    }

    pub(crate) fn snapshot(&self) -> Snapshot {
        let servers = self
            .servers
            .iter()
            .enumerate()
            .map(|(index, server)| ServerView {
                index,
                process_id: server.process_id.clone(),
                state: server.state,
                sessions_hosted: server.sessions_hosted,
                game_session_arns: server
                    .running
                    .iter()
                    .map(|&g| self.game_sessions[g].arn.clone())
                    .collect(),
            })
            .collect();
        let placements = self
            .placements
            .iter()
            .map(|placement| PlacementView {
                placement_id: placement.id.clone(),
                queue: placement.queue.clone(),
                status: placement.status,
                player_ids: placement
                    .players
                    .iter()
                    .map(|player| player.player_id.as_str().to_owned())
                    .collect(),
                game_session_arn: placement
                    .game_session
                    .map(|g| self.game_sessions[g].arn.clone()),
                start_time: events::iso8601_millis(placement.start_millis),
                end_time: placement.end_millis.map(events::iso8601_millis),
            })
            .collect();
        let game_sessions = self
            .game_sessions
            .iter()
            .map(|game| GameSessionView {
                game_session_id: game.id.clone(),
                game_session_arn: game.arn.clone(),
                status: game.status,
                placement_id: game.placement_id.clone(),
                process_id: game.process_id.clone(),
                ip_address: game.ip_address.clone(),
                dns_name: game.dns_name.clone(),
                port: game.port,
                maximum_player_session_count: game.max_players,
                current_player_session_count: game
                    .player_sessions
                    .iter()
                    .filter(|&&p| self.player_sessions[p].status.holds_seat())
                    .count(),
            })
            .collect();
        let player_sessions = self
            .player_sessions
            .iter()
            .map(|session| PlayerSessionView {
                player_session_id: session.id.clone(),
                player_id: session.player_id.clone(),
                game_session_arn: self.game_sessions[session.game_session].arn.clone(),
                status: session.status,
            })
            .collect();
        Snapshot {
            servers,
            placements,
            game_sessions,
            player_sessions,
        }
    }
}

fn validate_placement(request: &GroupPlacementRequest) -> Result<(), GameLiftError> {
    let id = &request.placement_id;
    if !(1..=MAX_PLACEMENT_ID_LEN).contains(&id.len())
        || !id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
    {
        return Err(invalid(format!(
            "PlacementId {id:?} is not 1-{MAX_PLACEMENT_ID_LEN} of [a-zA-Z0-9-]."
        )));
    }
    if request.max_players > MAX_PLAYERS_PER_GAME {
        return Err(invalid(format!(
            "MaximumPlayerSessionCount {} is more than {MAX_PLAYERS_PER_GAME}.",
            request.max_players
        )));
    }
    if request.players.len() > MAX_DESIRED_PLAYER_SESSIONS {
        return Err(invalid(format!(
            "DesiredPlayerSessions has more than {MAX_DESIRED_PLAYER_SESSIONS} players."
        )));
    }
    if request.players.len() > request.max_players as usize {
        return Err(invalid(format!(
            "DesiredPlayerSessions has {} players; MaximumPlayerSessionCount is {}.",
            request.players.len(),
            request.max_players
        )));
    }
    for (i, player) in request.players.iter().enumerate() {
        if request.players[..i]
            .iter()
            .any(|other| other.player_id == player.player_id)
        {
            return Err(invalid(format!(
                "Player {} appears twice in DesiredPlayerSessions.",
                player.player_id.as_str()
            )));
        }
        if player
            .player_data
            .as_ref()
            .is_some_and(|data| data.chars().count() > MAX_PLAYER_DATA_LEN)
        {
            return Err(invalid(format!(
                "PlayerData is longer than {MAX_PLAYER_DATA_LEN} characters."
            )));
        }
    }
    Ok(())
}

fn invalid(message: String) -> GameLiftError {
    GameLiftError::InvalidRequest { message }
}

fn placement_status_str(status: PlacementStatus) -> &'static str {
    match status {
        PlacementStatus::Pending => "PENDING",
        PlacementStatus::Fulfilled => "FULFILLED",
        PlacementStatus::Cancelled => "CANCELLED",
        PlacementStatus::TimedOut => "TIMED_OUT",
        PlacementStatus::Failed => "FAILED",
    }
}

/// Everything the simulator holds, for tests and diagnostics.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Snapshot {
    pub servers: Vec<ServerView>,
    pub placements: Vec<PlacementView>,
    pub game_sessions: Vec<GameSessionView>,
    pub player_sessions: Vec<PlayerSessionView>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerView {
    /// The fleet slot; a replacement process takes its predecessor's slot.
    pub index: usize,
    pub process_id: String,
    pub state: ServerState,
    pub sessions_hosted: u32,
    /// Game sessions running on it.
    pub game_session_arns: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlacementView {
    pub placement_id: String,
    pub queue: String,
    pub status: PlacementStatus,
    pub player_ids: Vec<String>,
    pub game_session_arn: Option<String>,
    pub start_time: String,
    pub end_time: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GameSessionView {
    pub game_session_id: String,
    pub game_session_arn: String,
    pub status: GameSessionStatus,
    pub placement_id: String,
    pub process_id: String,
    pub ip_address: String,
    pub dns_name: String,
    pub port: u16,
    pub maximum_player_session_count: u32,
    /// RESERVED + ACTIVE player sessions.
    pub current_player_session_count: usize,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlayerSessionView {
    pub player_session_id: String,
    pub player_id: String,
    pub game_session_arn: String,
    pub status: PlayerSessionStatus,
}

impl Snapshot {
    /// The servers' states, by fleet slot.
    pub fn server_states(&self) -> Vec<ServerState> {
        self.servers.iter().map(|server| server.state).collect()
    }

    pub fn placement(&self, placement_id: &str) -> Option<&PlacementView> {
        self.placements
            .iter()
            .find(|placement| placement.placement_id == placement_id)
    }

    /// By ARN or id.
    pub fn game_session(&self, game_session_id: &str) -> Option<&GameSessionView> {
        self.game_sessions.iter().find(|game| {
            game.game_session_arn == game_session_id || game.game_session_id == game_session_id
        })
    }

    pub fn player_session(&self, player_session_id: &str) -> Option<&PlayerSessionView> {
        self.player_sessions
            .iter()
            .find(|session| session.player_session_id == player_session_id)
    }

    /// The player sessions of a game (by ARN).
    pub fn player_sessions_of(&self, game_session_arn: &str) -> Vec<&PlayerSessionView> {
        self.player_sessions
            .iter()
            .filter(|session| session.game_session_arn == game_session_arn)
            .collect()
    }
}
