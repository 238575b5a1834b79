//! `rejoinSession`: a dropped player session is COMPLETED and GameLift never reuses it,
//! so a player who lost their connection to the game server gets a NEW player session
//! on their last game session (CreatePlayerSession), tracked by player id.
//! `refreshConnectionDetails`: fresh connection details (a new player gateway token) for
//! the player's current seat, before the old ones expire (shared/src/seats.rs).
//! `joinFriendGame` (the `join` module): a new player session in a friend's game, made
//! and stored as a rejoin's.
//!
//! Round trips, `rejoinSession`: 1 GetItem (Players), CreatePlayerSession, with
//! `PLAYER_GATEWAY` enabled or required 1 GetPlayerConnectionDetails for the new seat,
//! and 1 conditional UpdateItem (the new seat stored only if the player's game is still
//! that game session). A game the backend API reported over (`endedGameSessionArn`, no
//! seat) is `session_ended` after the GetItem alone: GameLift is not asked.
//!
//! `refreshConnectionDetails`: 1 conditional UpdateItem (the per-player limit,
//! `RATE_LIMIT_PLACEMENTS_PER_MINUTE`; none with it off) + 1 GetItem + (enabled or
//! required) 1 GetPlayerConnectionDetails + 1 conditional UpdateItem (the seat's new
//! details, only if the player's seat is still that player session: a rejoin meanwhile
//! wins, and the refresh is a `conflict`). No seat: `not_found`.

use std::sync::Arc;

use async_trait::async_trait;
use edge::websocket::{CallLimit, Reply, Request, Route, RouteError, Serves};
use shared::acks::{RouteAck, SeatAck};
use shared::domain::{GameSession, PlayerId};
use shared::errors::SessionEndedDetail;
use shared::frames::{ErrorCode, ErrorReply};
use shared::ports::{FriendReader, GameLiftError, PlayerReader, PlayerSessions, Seats, StoreError};
use shared::rate_limits::Bucket;
use shared::requests::{ClientRequest, Route as ClientRoute};
use shared::seats::SeatConnector;
use tracing::{error, info, warn};

mod join;

shared::wired! {
    /// `rejoinSession`, `refreshConnectionDetails` and `joinFriendGame` as every deployment
    /// builds them.
    pub fn wire(w) -> pub struct RejoinSessionHandler {
        players: Arc<dyn PlayerReader> = w.stores.player_reader(),
        seats: Arc<dyn Seats> = w.stores.seats(),
        /// "Are we friends", for `joinFriendGame`.
        friends: Arc<dyn FriendReader> = w.stores.friend_reader(),
        gamelift: Arc<dyn PlayerSessions> = w.services.player_sessions(),
        /// Each seat's connection details (player gateway).
        connector: SeatConnector = w.seat_connector(),
        /// What `refreshConnectionDetails` and `joinFriendGame` are counted against: the
        /// placement requests' limit (each costs a GameLift call, as a placement does).
        refresh_limit: CallLimit = CallLimit::new(
            w,
            Bucket::Placement,
            w.config.rate_limits.placements_per_minute,
            "placement requests",
        ),
    }
}

impl RejoinSessionHandler {
    /// The player's seat with fresh connection details, stored with it.
    async fn refresh(&self, player: &PlayerId) -> Result<GameSession, RouteError> {
        self.refresh_limit
            .spend(player, "nothing was refreshed; retry")
            .await?;
        let record = self.players.get(player).await.map_err(store_refusal)?;
        let Some(seat) = record.and_then(|r| r.game_session) else {
            return Err(RouteError::new(
                ErrorCode::NotFound,
                "no seat to refresh: request a placement or rejoin first",
            ));
        };
        let arn = seat.game_session_arn.clone();
        let fresh = match self.connector.refresh(player, seat).await {
            Ok(fresh) => fresh,
            Err(refusal) => {
                info!(player_id = %player, game_session_arn = %arn, error = %shared::telemetry::ErrorChain(&refusal), "no connection details: the game session is over");
                return Err(session_ended(
                    format!("the game session has ended: {refusal}"),
                    arn,
                ));
            }
        };
        // Only over the same player session: a rejoin's newer seat is not overwritten.
        let stored = self.seats.refresh_seat(player, &fresh).await;
        Self::stored(player, fresh, stored)
    }

    /// Stores `seat` as the player's, if their game is still its game session.
    async fn store(&self, player: &PlayerId, seat: GameSession) -> Result<GameSession, RouteError> {
        let stored = self.seats.update_game_session(player, &seat).await;
        Self::stored(player, seat, stored)
    }

    /// The answer once `seat` was (or was not) stored: a seat changed meanwhile is a
    /// `conflict` the client resolves by asking again.
    fn stored(
        player: &PlayerId,
        seat: GameSession,
        stored: Result<bool, StoreError>,
    ) -> Result<GameSession, RouteError> {
        match stored {
            Ok(true) => Ok(seat),
            Ok(false) => {
                warn!(player_id = %player, game_session_arn = %seat.game_session_arn, player_session_id = %seat.player_session_id, "the player's seat changed meanwhile");
                Err(RouteError::new(
                    ErrorCode::Conflict,
                    "your seat changed meanwhile (a new placement, match or rejoin); ask again",
                ))
            }
            Err(err) => Err(store_refusal(err)),
        }
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
                return Err(session_ended(
                    "the game session has ended (reported by the game server)",
                    arn,
                ));
            }
            return Err(RouteError::new(
                ErrorCode::NotFound,
                "no game session on record: request a placement first",
            ));
        };
        let session = match self.seat_in(player, &last).await {
            Ok(session) => session,
            Err(refusal) => return Err(rejoin_refusal(player, &last, refusal)),
        };
        self.store(player, session).await
    }

    /// A new player session for `player` in the game session of `game` (a seat in it:
    /// their own last one, or a friend's), with its connection details: CreatePlayerSession,
    /// then (player gateway) GetPlayerConnectionDetails.
    async fn seat_in(
        &self,
        player: &PlayerId,
        game: &GameSession,
    ) -> Result<GameSession, GameLiftError> {
        let seat = self
            .gamelift
            .create_player_session(&game.game_session_arn, player, None)
            .await?;
        let session = GameSession {
            game_session_arn: game.game_session_arn.clone(),
            ip_address: seat.ip_address,
            dns_name: seat.dns_name,
            port: seat.port,
            // PlayerSession does not say; it is the same game session.
            region: game.region.clone(),
            player_session_id: seat.player_session_id,
            connection: None,
            connection_unavailable: false,
        };
        // The new player session's details: a token is per player, not per session.
        let (_, session) = self
            .connector
            .connect(&game.game_session_arn, vec![(player.clone(), session)])
            .await
            .remove(0);
        Ok(session)
    }
}

/// Whatever GameLift says, a game that cannot take the player back is over for them:
/// full, not accepting, terminated, or gone (NotFound).
fn rejoin_refusal(player: &PlayerId, last: &GameSession, refusal: GameLiftError) -> RouteError {
    let arn = &last.game_session_arn;
    match refusal {
        GameLiftError::SessionEnded { message }
        | GameLiftError::SessionFull { message }
        | GameLiftError::NotFound { message } => {
            info!(player_id = %player, game_session_arn = %arn, gamelift = %message, "game session cannot be rejoined");
            RouteError::new(
                ErrorCode::SessionEnded,
                format!("the game session has ended or cannot take you back: {message}"),
            )
        }
        other => gamelift_failure(player, arn, other),
    }
}

/// A GameLift failure that is no answer about the game (unavailable, a fault, a request
/// refused as invalid), as every seat-giving route answers it.
fn gamelift_failure(player: &PlayerId, arn: &str, refusal: GameLiftError) -> RouteError {
    match refusal {
        GameLiftError::Unavailable(source) | GameLiftError::OutcomeUnknown(source) => {
            warn!(player_id = %player, game_session_arn = %arn, error = %shared::telemetry::ErrorChain(source.as_ref()), "GameLift unavailable");
            RouteError::new(ErrorCode::Unavailable, "GameLift is unavailable; retry")
        }
        GameLiftError::Other(source) => {
            error!(player_id = %player, game_session_arn = %arn, error = %shared::telemetry::ErrorChain(source.as_ref()), "CreatePlayerSession failed");
            RouteError::new(
                ErrorCode::Internal,
                "no seat could be made in the game session",
            )
        }
        refusal => {
            warn!(player_id = %player, game_session_arn = %arn, error = %shared::telemetry::ErrorChain(&refusal), "CreatePlayerSession refused");
            RouteError::new(refusal.code(), refusal.to_string())
        }
    }
}

/// `session_ended`, naming the game session that ended.
fn session_ended(message: impl Into<String>, game_session_arn: String) -> RouteError {
    ErrorReply::session_ended(
        message,
        SessionEndedDetail {
            game_session_arn: Some(game_session_arn),
            ..SessionEndedDetail::default()
        },
    )
    .into()
}

fn store_refusal(err: StoreError) -> RouteError {
    RouteError::from_store(err, "your game could not be looked up or saved; retry")
}

#[async_trait]
impl Route for RejoinSessionHandler {
    const SERVES: Serves = Serves {
        function: "rejoin-session",
        routes: &[
            ClientRoute::RejoinSession,
            ClientRoute::RefreshConnectionDetails,
            ClientRoute::JoinFriendGame,
        ],
    };

    /// `refreshConnectionDetails` refreshes the seat; `rejoinSession` (whose body is
    /// empty) asks to rejoin; `joinFriendGame` asks for a seat in a friend's game.
    async fn answer(&self, request: &Request) -> Result<Reply, RouteError> {
        let player = &request.caller.player_id;
        let (session, ack): (_, fn(SeatAck) -> RouteAck) = match &request.frame {
            ClientRequest::RefreshConnectionDetails { .. } => (
                self.refresh(player).await?,
                RouteAck::RefreshConnectionDetails,
            ),
            ClientRequest::RejoinSession { .. } => {
                (self.rejoin(player).await?, RouteAck::RejoinSession)
            }
            ClientRequest::JoinFriendGame { body, .. } => (
                self.join_friend(player, &body.player_id).await?,
                RouteAck::JoinFriendGame,
            ),
            _ => return Ok(Reply::WrongRoute),
        };
        info!(player_id = %player, route = request.frame.route().as_str(), game_session_arn = %session.game_session_arn, player_session_id = %session.player_session_id, "seat given");
        Ok(Reply::Ack(ack(SeatAck {
            game_session: session,
        })))
    }
}

#[cfg(test)]
mod tests;
