//! Read-only views of everything the simulator holds, for tests and diagnostics.

use serde::Serialize;
use shared::config::PlayerGateway;
use shared::domain::{ConnectionDetails, PlacementId};

use super::model::{GameSessionStatus, PlacementStatus, PlayerSessionStatus, ServerState, State};
use crate::gamelift::events;

impl State {
    pub(crate) fn snapshot(&self) -> Snapshot {
        let servers = self
            .servers
            .iter()
            .enumerate()
            .map(|(index, server)| ServerView {
                index,
                real: server.real.is_some(),
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
        let mut player_connections: Vec<PlayerConnectionView> = self
            .issued
            .iter()
            .map(|((g, player_id), details)| PlayerConnectionView {
                game_session_arn: self.game_sessions[*g].arn.clone(),
                player_id: player_id.clone(),
                details: details.clone(),
            })
            .collect();
        player_connections.sort_by(|a, b| {
            (&a.game_session_arn, &a.player_id).cmp(&(&b.game_session_arn, &b.player_id))
        });
        let processes = self
            .servers
            .iter()
            .filter_map(|server| {
                let real = server.real.as_ref()?;
                Some(ProcessView {
                    process_id: server.process_id.clone(),
                    compute_id: real.compute_id.clone(),
                    sdk_language: real.sdk_language.clone(),
                    sdk_version: real.sdk_version.clone(),
                    port: real.port,
                    log_paths: real.log_paths.clone(),
                    state: server.state,
                    connected: real.socket.is_some(),
                    healthy: real.healthy,
                    last_heartbeat: real.last_heartbeat_millis.map(events::iso8601_millis),
                    termination_sent: real.terminate_by.is_some(),
                    ended: real.ended.clone(),
                    game_session_arns: self
                        .game_sessions
                        .iter()
                        .filter(|game| game.process_id == server.process_id)
                        .map(|game| game.arn.clone())
                        .collect(),
                })
            })
            .collect();
        Snapshot {
            processes,
            servers,
            placements,
            game_sessions,
            player_sessions,
            player_gateway: self.settings.player_gateway,
            connection_details_calls: self.connection_details_calls,
            player_connections,
        }
    }
}

/// Everything the simulator holds, for tests and diagnostics.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Snapshot {
    pub servers: Vec<ServerView>,
    /// The real processes (game servers on the server SDK 5 WebSocket), also in
    /// `servers`, with what they said about themselves.
    pub processes: Vec<ProcessView>,
    pub placements: Vec<PlacementView>,
    pub game_sessions: Vec<GameSessionView>,
    pub player_sessions: Vec<PlayerSessionView>,
    /// The fleet's PlayerGatewayMode (`SIM_PLAYER_GATEWAY`).
    pub player_gateway: PlayerGateway,
    /// GetPlayerConnectionDetails calls since start, refused ones included.
    pub connection_details_calls: u64,
    /// The latest connection details given to each player of each game.
    pub player_connections: Vec<PlayerConnectionView>,
}

/// What GetPlayerConnectionDetails last gave a player of a game session.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlayerConnectionView {
    pub game_session_arn: String,
    pub player_id: String,
    /// `endpoints`, and behind player gateway `playerGatewayToken` and `expiresAt`.
    #[serde(flatten)]
    pub details: ConnectionDetails,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerView {
    /// The fleet slot; a replacement process takes its predecessor's slot.
    pub index: usize,
    /// A game server on the server SDK 5 WebSocket (else simulated).
    pub real: bool,
    pub process_id: String,
    pub state: ServerState,
    pub sessions_hosted: u32,
    /// Game sessions running on it.
    pub game_session_arns: Vec<String>,
}

/// A real process: what its upgrade and ActivateServerProcess said, its health and its
/// game sessions (all, ended ones too).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProcessView {
    /// Its `pID`.
    pub process_id: String,
    pub compute_id: String,
    pub sdk_language: String,
    pub sdk_version: String,
    pub port: u16,
    pub log_paths: Vec<String>,
    /// StandingBy, Active (hosting a game) or Terminated.
    pub state: ServerState,
    /// It has an open socket.
    pub connected: bool,
    pub healthy: bool,
    /// ISO 8601; `None` before its first heartbeat.
    pub last_heartbeat: Option<String>,
    /// TerminateProcess was sent and it has not ended yet.
    pub termination_sent: bool,
    /// Why it was taken out, once Terminated.
    pub ended: Option<String>,
    pub game_session_arns: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlacementView {
    pub placement_id: PlacementId,
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
    pub placement_id: PlacementId,
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

    pub fn placement(&self, placement_id: &PlacementId) -> Option<&PlacementView> {
        self.placements
            .iter()
            .find(|placement| placement.placement_id == *placement_id)
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

    /// A real process, by `pID`.
    pub fn process(&self, process_id: &str) -> Option<&ProcessView> {
        self.processes
            .iter()
            .rev()
            .find(|process| process.process_id == process_id)
    }

    /// The player sessions of a game (by ARN).
    pub fn player_sessions_of(&self, game_session_arn: &str) -> Vec<&PlayerSessionView> {
        self.player_sessions
            .iter()
            .filter(|session| session.game_session_arn == game_session_arn)
            .collect()
    }
}
