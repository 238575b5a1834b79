//! Where seated players connect: every seat the backend gives (a fulfilled placement, a
//! completed match, `rejoinSession`, `refreshConnectionDetails`) goes out with its
//! connection details, asked of GameLift once per game session for all its players
//! (docs/architecture.md#player-gateway). One helper for every handler that seats
//! players, so that the mode and the failure policy are decided in one place.
//!
//! GameLift's GetPlayerConnectionDetails answers relays and a token behind player gateway,
//! the game server's address without
//! (<https://docs.aws.amazon.com/gameliftservers/latest/apireference/API_GetPlayerConnectionDetails.html>).

use std::collections::HashMap;
use std::sync::Arc;

use tracing::warn;

use crate::config::PlayerGateway;
use crate::domain::{GameSession, PlayerId};
use crate::ports::{GameLiftError, PlayerConnections};
use crate::telemetry::ErrorChain;

/// Gives seats their connection details, as `PLAYER_GATEWAY` says.
#[derive(Clone)]
pub struct SeatConnector {
    mode: PlayerGateway,
    /// `None` with `PLAYER_GATEWAY=disabled`: nothing to ask.
    connections: Option<Arc<dyn PlayerConnections>>,
}

impl SeatConnector {
    pub fn new(mode: PlayerGateway, connections: Arc<dyn PlayerConnections>) -> Self {
        Self {
            mode,
            connections: Some(connections),
        }
    }

    /// `PLAYER_GATEWAY=disabled`: seats carry the game server's address, and GameLift is
    /// not asked (no port is built: the function needs no grant for it).
    pub fn disabled() -> Self {
        Self {
            mode: PlayerGateway::Disabled,
            connections: None,
        }
    }

    /// Whether seats' details are asked of GameLift (`PLAYER_GATEWAY` enabled or
    /// required), so that a caller can skip a seating that would be thrown away.
    pub fn asks_gamelift(&self) -> bool {
        self.mode.asks_gamelift()
    }

    /// The seats of one game session (`game_session_arn`), each with its player's
    /// connection details: ONE GetPlayerConnectionDetails for all of them (batched by the
    /// port past 25 players), none with `PLAYER_GATEWAY=disabled`. A failed call, or a
    /// player GameLift left out, gets the failure policy
    /// ([`PlayerGateway::without_details`]): the game server's address (`enabled`) or
    /// `connectionUnavailable` (`required`); it is not retried here, the client's
    /// refresh is the retry (a settlement is not held up by GameLift).
    pub async fn connect(
        &self,
        game_session_arn: &str,
        seats: Vec<(PlayerId, GameSession)>,
    ) -> Vec<(PlayerId, GameSession)> {
        match self.details(game_session_arn, &seats).await {
            Ok(found) => self.apply(seats, found),
            Err(error) => {
                warn!(game_session_arn, players = seats.len(), mode = %self.mode, error = %ErrorChain(&error), "no connection details from GameLift; the failure policy decides the seats");
                self.apply(seats, HashMap::new())
            }
        }
    }

    /// One player's seat with fresh connection details (`refreshConnectionDetails`): as
    /// [`Self::connect`], except that a game GameLift says is over or does not know
    /// (`SessionEnded`, `NotFound`) is that error: there is no seat to refresh.
    pub async fn refresh(
        &self,
        player: &PlayerId,
        seat: GameSession,
    ) -> Result<GameSession, GameLiftError> {
        let arn = seat.game_session_arn.clone();
        let seats = vec![(player.clone(), seat)];
        let found = match self.details(&arn, &seats).await {
            Ok(found) => found,
            Err(ended @ (GameLiftError::SessionEnded { .. } | GameLiftError::NotFound { .. })) => {
                return Err(ended);
            }
            Err(error) => {
                warn!(game_session_arn = %arn, player_id = %player, mode = %self.mode, error = %ErrorChain(&error), "no fresh connection details from GameLift; the failure policy decides the seat");
                HashMap::new()
            }
        };
        let mut seats = self.apply(seats, found);
        Ok(seats.remove(0).1)
    }

    async fn details(
        &self,
        game_session_arn: &str,
        seats: &[(PlayerId, GameSession)],
    ) -> Result<HashMap<PlayerId, crate::domain::ConnectionDetails>, GameLiftError> {
        let Some(connections) = self.connections.as_ref() else {
            return Ok(HashMap::new());
        };
        if !self.mode.asks_gamelift() || seats.is_empty() {
            return Ok(HashMap::new());
        }
        let players: Vec<PlayerId> = seats.iter().map(|(player, _)| player.clone()).collect();
        let found = connections
            .get_player_connection_details(game_session_arn, &players)
            .await?;
        Ok(found
            .into_iter()
            .map(|found| (found.player_id, found.details))
            .collect())
    }

    fn apply(
        &self,
        seats: Vec<(PlayerId, GameSession)>,
        mut found: HashMap<PlayerId, crate::domain::ConnectionDetails>,
    ) -> Vec<(PlayerId, GameSession)> {
        seats
            .into_iter()
            .map(|(player, seat)| {
                let seat = match found.remove(&player) {
                    Some(details) => seat.with_connection(details),
                    None => self.mode.without_details(seat),
                };
                (player, seat)
            })
            .collect()
    }
}
