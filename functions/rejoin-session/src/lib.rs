//! `rejoinSession`: a dropped player session is COMPLETED and GameLift never reuses it,
//! so a player who lost their connection to the game server gets a NEW player session
//! on their last game session (CreatePlayerSession), tracked by player id.
//!
//! Round trips: 1 GetItem (Players) + 1 GameLift call + 1 conditional UpdateItem (the
//! new seat stored only if the player's game is still that game session). A game the
//! backend API reported over (`endedGameSessionArn`, no seat) is `session_ended` after
//! the GetItem alone: GameLift is not asked.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::json;
use shared::domain::{GameSession, PlayerId};
use shared::ports::{GameLift, GameLiftError, PlayerStore};
use shared::protocol::ErrorCode;
use shared::websocket::{Opened, Request, RouteError, RouteEvent, RouteHandler, RouteResult};
use tracing::{error, info, warn};

pub struct RejoinSessionHandler {
    players: Arc<dyn PlayerStore>,
    gamelift: Arc<dyn GameLift>,
}

impl RejoinSessionHandler {
    pub fn new(players: Arc<dyn PlayerStore>, gamelift: Arc<dyn GameLift>) -> Self {
        Self { players, gamelift }
    }

    async fn rejoin(&self, player: &PlayerId) -> Result<GameSession, RouteError> {
        let record = self.players.get(player).await.map_err(store_refusal)?;
        let (last, ended) = record
            .map(|r| (r.game_session, r.ended_game_session))
            .unwrap_or_default();
        let Some(last) = last else {
            // The backend API reported the game over: no need to ask GameLift.
            if let Some(arn) = ended {
                info!(player_id = %player, game_session_arn = %arn, "game session reported ended by the backend");
                return Err(RouteError::new(
                    ErrorCode::SessionEnded,
                    "the game session has ended (reported by the game server)",
                )
                .with_detail("gameSessionArn", arn));
            }
            return Err(RouteError::new(
                ErrorCode::NotFound,
                "no game session on record: request a placement first",
            ));
        };
        let seat = match self
            .gamelift
            .create_player_session(&last.game_session_arn, player, None)
            .await
        {
            Ok(seat) => seat,
            Err(refusal) => return Err(gamelift_refusal(player, &last, refusal)),
        };
        let session = GameSession {
            game_session_arn: last.game_session_arn.clone(),
            ip_address: seat.ip_address,
            dns_name: seat.dns_name,
            port: seat.port,
            // PlayerSession does not say; it is the same game session.
            region: last.region,
            player_session_id: seat.player_session_id,
            connection: None,
            connection_unavailable: false,
        };
        match self.players.update_game_session(player, &session).await {
            Ok(true) => Ok(session),
            Ok(false) => {
                warn!(player_id = %player, game_session_arn = %last.game_session_arn, "the player's game changed during the rejoin");
                Err(RouteError::new(
                    ErrorCode::Conflict,
                    "your game session changed meanwhile (a new placement was fulfilled); rejoin again",
                ))
            }
            Err(err) => Err(store_refusal(err)),
        }
    }
}

/// Whatever GameLift says, a game that cannot take the player back is over for them:
/// full, not accepting, terminated, or gone (NotFound).
fn gamelift_refusal(player: &PlayerId, last: &GameSession, refusal: GameLiftError) -> RouteError {
    let arn = &last.game_session_arn;
    match refusal {
        GameLiftError::SessionEnded { message } | GameLiftError::NotFound { message } => {
            info!(player_id = %player, game_session_arn = %arn, gamelift = %message, "game session cannot be rejoined");
            RouteError::new(
                ErrorCode::SessionEnded,
                format!("the game session has ended or cannot take you back: {message}"),
            )
        }
        GameLiftError::Unavailable(source) | GameLiftError::OutcomeUnknown(source) => {
            warn!(player_id = %player, game_session_arn = %arn, error = %shared::telemetry::ErrorChain(source.as_ref()), "GameLift unavailable");
            RouteError::new(ErrorCode::Unavailable, "GameLift is unavailable; retry")
        }
        GameLiftError::Other(source) => {
            error!(player_id = %player, game_session_arn = %arn, error = %shared::telemetry::ErrorChain(source.as_ref()), "CreatePlayerSession failed");
            RouteError::new(
                ErrorCode::Internal,
                "the game session could not be rejoined",
            )
        }
        refusal @ GameLiftError::InvalidRequest { .. } => {
            warn!(player_id = %player, game_session_arn = %arn, error = %shared::telemetry::ErrorChain(&refusal), "CreatePlayerSession refused");
            RouteError::new(refusal.code(), refusal.to_string())
        }
    }
}

fn store_refusal(err: shared::ports::StoreError) -> RouteError {
    RouteError::from_store(err, "your game could not be looked up or saved; retry")
}

#[async_trait]
impl RouteHandler for RejoinSessionHandler {
    async fn handle(&self, event: RouteEvent) -> RouteResult {
        let request = match Request::open(&event.payload)? {
            Opened::Request(request) => request,
            Opened::Refused(reply) => return Ok(reply),
        };
        let player = &request.caller.player_id;
        let result = self.rejoin(player).await.map(|session| {
            info!(player_id = %player, game_session_arn = %session.game_session_arn, player_session_id = %session.player_session_id, "rejoined");
            json!({ "gameSession": session })
        });
        Ok(request.respond(result))
    }
}

#[cfg(test)]
mod tests;
