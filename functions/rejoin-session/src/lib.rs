//! `rejoinSession`: a dropped player session is COMPLETED and cannot be reused (seed
//! 000), so a player who lost their connection to the game server gets a NEW player
//! session on their last game session (CreatePlayerSession), tracked by player id.
//!
//! Round trips: 1 GetItem (Players) + 1 GameLift call + 1 conditional UpdateItem (the
//! new seat stored only if the player's game is still that game session).

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::json;
use shared::domain::{GameSession, PlayerId};
use shared::ports::{GameLift, GameLiftError, PlayerStore, StoreError};
use shared::protocol::{ErrorCode, RouteError, ServerFrame};
use shared::websocket::{Caller, RouteEvent, RouteHandler, RouteResult, client_frame, reply};
use tracing::{error, info, warn};

pub struct RejoinSessionHandler {
    players: Arc<dyn PlayerStore>,
    gamelift: Arc<dyn GameLift>,
}

impl RejoinSessionHandler {
    pub fn new(players: Arc<dyn PlayerStore>, gamelift: Arc<dyn GameLift>) -> Self {
        Self { players, gamelift }
    }

    async fn rejoin(
        &self,
        player: &PlayerId,
    ) -> Result<Result<GameSession, RouteError>, lambda_runtime::Error> {
        let record = match self.players.get(player).await {
            Ok(record) => record,
            Err(err) => return refused_by_store(err),
        };
        let Some(last) = record.and_then(|r| r.game_session) else {
            return Ok(Err(RouteError::new(
                ErrorCode::NotFound,
                "no game session on record: request a placement first",
            )));
        };
        let seat = match self
            .gamelift
            .create_player_session(&last.game_session_arn, player, None)
            .await
        {
            Ok(seat) => seat,
            Err(refusal) => return Ok(Err(gamelift_refusal(player, &last, refusal))),
        };
        let session = GameSession {
            game_session_arn: last.game_session_arn.clone(),
            ip_address: seat.ip_address,
            dns_name: seat.dns_name,
            port: seat.port,
            // PlayerSession does not say; it is the same game session.
            region: last.region,
            player_session_id: seat.player_session_id,
        };
        match self.players.update_game_session(player, &session).await {
            Ok(true) => Ok(Ok(session)),
            Ok(false) => {
                warn!(player_id = %player, game_session_arn = %last.game_session_arn, "the player's game changed during the rejoin");
                Ok(Err(RouteError::new(
                    ErrorCode::Conflict,
                    "your game session changed meanwhile (a new placement was fulfilled); rejoin again",
                )))
            }
            Err(err) => refused_by_store(err),
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
            warn!(player_id = %player, game_session_arn = %arn, error = %source, "GameLift unavailable");
            RouteError::new(ErrorCode::Unavailable, "GameLift is unavailable; retry")
        }
        GameLiftError::Other(source) => {
            error!(player_id = %player, game_session_arn = %arn, error = %source, "CreatePlayerSession failed");
            RouteError::new(
                ErrorCode::Internal,
                "the game session could not be rejoined",
            )
        }
        refusal @ GameLiftError::InvalidRequest { .. } => {
            warn!(player_id = %player, game_session_arn = %arn, error = %refusal, "CreatePlayerSession refused");
            RouteError::new(refusal.code(), refusal.to_string())
        }
    }
}

fn refused_by_store<T>(err: StoreError) -> Result<Result<T, RouteError>, lambda_runtime::Error> {
    match err {
        StoreError::Unavailable(source) => {
            warn!(error = %source, "store unavailable");
            Ok(Err(RouteError::new(
                ErrorCode::Unavailable,
                "your game could not be looked up or saved; retry",
            )))
        }
        fault => Err(fault.into()),
    }
}

#[async_trait]
impl RouteHandler for RejoinSessionHandler {
    async fn handle(&self, event: RouteEvent) -> RouteResult {
        let caller = Caller::from_event(&event.payload)?;
        let frame = match client_frame(&event.payload) {
            Ok(frame) => frame,
            Err(error_reply) => return Ok(error_reply),
        };
        match self.rejoin(&caller.player_id).await? {
            Ok(session) => {
                info!(player_id = %caller.player_id, game_session_arn = %session.game_session_arn, player_session_id = %session.player_session_id, "rejoined");
                Ok(reply(&ServerFrame::ack(
                    &frame,
                    json!({ "gameSession": session }),
                )))
            }
            Err(error) => Ok(reply(&error.into_frame(&frame))),
        }
    }
}

#[cfg(test)]
mod tests;
