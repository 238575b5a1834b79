//! The API calls, each at `now` (after `advance(now)`): StartGameSessionPlacement,
//! StopGameSessionPlacement, CreatePlayerSession, the server SDK's AcceptPlayerSession
//! and RemovePlayerSession, and TerminateGameSession. Each is checked as GameLift checks
//! it and refused with the error GameLift would give.

use shared::domain::{PlacementId, PlayerId};
use shared::placement::PlayerSession;
use shared::ports::GameLiftError;
use tokio::time::Instant;

use gamelift_server_protocol::model::PlayerSessionCreationPolicy;

use super::model::{
    GameSessionStatus, GroupPlacementRequest, Placement, PlacementStatus, PlayerSessionRecord,
    PlayerSessionStatus, State,
};
use crate::gamelift::events::{Outcome, uuid_v4};

/// GameLift's limits on StartGameSessionPlacement and CreatePlayerSession (a
/// `PlacementId` is 1–48 of `[a-zA-Z0-9-]` by its type).
const MAX_DESIRED_PLAYER_SESSIONS: usize = 25;
const MAX_PLAYER_DATA_LEN: usize = 2048;
const MAX_PLAYERS_PER_GAME: u32 = 200;
const MAX_QUEUE_NAME_LEN: usize = 256;

impl State {
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
            placement_id = %request.placement_id,
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
            activating: None,
            matchmaker_data: request.matchmaker_data,
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
        placement_id: &PlacementId,
        outcome: Outcome,
    ) -> Result<(), GameLiftError> {
        let p = self.pending_placement(placement_id)?;
        self.finish(p, now, outcome);
        Ok(())
    }

    /// The index of placement `placement_id` while it is PENDING; else NotFound, or
    /// InvalidRequest saying its status.
    pub(super) fn pending_placement(
        &self,
        placement_id: &PlacementId,
    ) -> Result<usize, GameLiftError> {
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
                status.as_str()
            )));
        }
        Ok(p)
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
        match game.status {
            GameSessionStatus::Active => {}
            GameSessionStatus::Activating => {
                return Err(invalid(format!(
                    "Game session {} is ACTIVATING: its game server has not activated it yet \
                     (InvalidGameSessionStatusException).",
                    game.arn
                )));
            }
            GameSessionStatus::Terminated => {
                return Err(GameLiftError::SessionEnded {
                    message: format!(
                        "Game session {} is not ACTIVE (InvalidGameSessionStatusException: TERMINATED).",
                        game.arn
                    ),
                });
            }
        }
        if game.creation_policy == PlayerSessionCreationPolicy::DenyAll {
            // GameLift: InvalidGameSessionStatusException, "GameSession is not accepting
            // new player sessions"; the closest of the port's errors is SessionEnded.
            return Err(GameLiftError::SessionEnded {
                message: format!(
                    "Game session {} is not accepting new player sessions (its game server \
                     set PlayerSessionCreationPolicy DENY_ALL; InvalidGameSessionStatusException).",
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
            return Err(GameLiftError::SessionFull {
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
            player_data: player_data.map(str::to_owned),
            creation_millis: self.wall(now),
            termination_millis: None,
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

    pub(super) fn game(&self, game_session_id: &str) -> Result<usize, GameLiftError> {
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
    /// never reusable (GameLift never reuses a player session).
    pub(crate) fn remove_player_session(
        &mut self,
        now: Instant,
        player_session_id: &str,
    ) -> Result<(), GameLiftError> {
        let p = self.player_session(player_session_id)?;
        let session = &self.player_sessions[p];
        if !session.status.holds_seat() {
            return Err(invalid(format!(
                "PlayerSession ({player_session_id}) has a status of {}",
                session.status.as_str()
            )));
        }
        self.end_player_session(p, PlayerSessionStatus::Completed, now);
        Ok(())
    }

    pub(super) fn player_session(&self, player_session_id: &str) -> Result<usize, GameLiftError> {
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
        if self.game_sessions[g].status == GameSessionStatus::Terminated {
            return Err(invalid(format!(
                "Game session {game_session_id} is already TERMINATED."
            )));
        }
        self.end_game(g, now);
        Ok(())
    }
}

fn validate_placement(request: &GroupPlacementRequest) -> Result<(), GameLiftError> {
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

pub(super) fn invalid(message: String) -> GameLiftError {
    GameLiftError::InvalidRequest { message }
}
