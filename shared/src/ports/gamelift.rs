//! GameLift as the handlers need it: start and stop a queue placement,
//! and create a player session on an existing game session (rejoin). Placement
//! results do not come back through this port: GameLift pushes them as events
//! (SNS or EventBridge) to `on-placement-event`. Where seated players connect
//! (GetPlayerConnectionDetails) is [`PlayerConnections`], a port of its own.

use async_trait::async_trait;

use crate::domain::{ConnectionDetails, PlacementId, PlayerId};
use crate::frames::ErrorCode;
use crate::placement::{PlacementRequest, PlayerSession};

type Source = Box<dyn std::error::Error + Send + Sync>;

/// GameLift refusals, each mapped to the protocol error a client gets.
#[derive(Debug, thiserror::Error)]
pub enum GameLiftError {
    /// InvalidRequestException: the request itself is wrong.
    #[error("GameLift refused the request as invalid: {message}")]
    InvalidRequest { message: String },
    /// NotFoundException: no such queue, placement or game session.
    #[error("GameLift found no such resource: {message}")]
    NotFound { message: String },
    /// InvalidGameSessionStatusException (the game is not ACTIVE, or its game server
    /// set its player session creation policy to DENY_ALL: GameLift answers both
    /// alike), TerminalRoutingStrategyException: the game cannot take this player.
    #[error("the game session cannot take the player: {message}")]
    SessionEnded { message: String },
    /// GameSessionFullException: every player slot is taken; one may free up.
    #[error("the game session is full: {message}")]
    SessionFull { message: String },
    /// Throttling, or the request never reached GameLift (no connection): nothing was
    /// done; safe to retry.
    #[error("GameLift is unavailable")]
    Unavailable(#[source] Source),
    /// A timeout, a lost answer or a 5xx after the request went out: GameLift may or
    /// may not have acted on it. Retrying is safe for the caller; whoever started
    /// something should make sure it is stopped.
    #[error("GameLift did not answer; the request may or may not have taken effect")]
    OutcomeUnknown(#[source] Source),
    /// Anything else (permissions, unexpected responses): a fault.
    #[error("GameLift call failed")]
    Other(#[source] Source),
}

impl GameLiftError {
    /// A failure that is not an answer (a timeout, a 5xx, an unexpected error) may hide
    /// a request GameLift did act on: whoever started something makes sure it is stopped.
    /// A throttle or a refused connection did nothing.
    pub fn may_have_acted(&self) -> bool {
        matches!(self, Self::OutcomeUnknown(_) | Self::Other(_))
    }

    /// The protocol error code a client receives for this refusal.
    pub fn code(&self) -> ErrorCode {
        match self {
            Self::InvalidRequest { .. } => ErrorCode::BadRequest,
            Self::NotFound { .. } => ErrorCode::NotFound,
            Self::SessionEnded { .. } => ErrorCode::SessionEnded,
            Self::SessionFull { .. } => ErrorCode::SessionFull,
            Self::Unavailable(_) | Self::OutcomeUnknown(_) => ErrorCode::Unavailable,
            Self::Other(_) => ErrorCode::Internal,
        }
    }
}

/// Starting a queue placement.
#[async_trait]
pub trait PlacementStarter: Send + Sync {
    /// StartGameSessionPlacement.
    async fn start_placement(&self, request: &PlacementRequest) -> Result<(), GameLiftError>;
}

/// Stopping a queue placement.
#[async_trait]
pub trait PlacementStopper: Send + Sync {
    /// StopGameSessionPlacement (only a PENDING placement can be stopped); the
    /// CANCELLED result arrives through the normal event path.
    async fn stop_placement(&self, placement_id: &PlacementId) -> Result<(), GameLiftError>;
}

/// A new player session in a game that is running (rejoin).
#[async_trait]
pub trait PlayerSessions: Send + Sync {
    /// CreatePlayerSession on an existing game session.
    async fn create_player_session(
        &self,
        game_session_arn: &str,
        player_id: &PlayerId,
        player_data: Option<&str>,
    ) -> Result<PlayerSession, GameLiftError>;
}

/// GetPlayerConnectionDetails takes at most this many player ids a call (the model's
/// `PlayerIdList`, as CreatePlayerSessions'); a bigger game is asked in batches.
pub const MAX_PLAYERS_PER_CONNECTION_DETAILS_CALL: usize = 25;

/// Where one player of a game session connects, as GameLift gave it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerConnection {
    pub player_id: PlayerId,
    pub details: ConnectionDetails,
}

/// GameLift's GetPlayerConnectionDetails: where each player of a game session connects,
/// player gateway relays and a token that expires, or (a fleet or location without the
/// gateway) the game server itself
/// (<https://docs.aws.amazon.com/gameliftservers/latest/apireference/API_GetPlayerConnectionDetails.html>).
/// A port of its own beside [`PlacementStarter`], [`PlacementStopper`] and [`PlayerSessions`]: only the handlers that seat players need it.
#[async_trait]
pub trait PlayerConnections: Send + Sync {
    /// The details of `players` in the game session `game_session_arn`: one call per
    /// [`MAX_PLAYERS_PER_CONNECTION_DETAILS_CALL`] players (none for none). A player
    /// GameLift gave no usable details for is left out: the caller treats them as it
    /// treats a failed call (`PlayerGateway::without_details`). Errors map as the other
    /// calls' do, but for a read nothing can have been done, so a timeout or a 5xx is
    /// `Unavailable`, not `OutcomeUnknown`; a game session that is not ACTIVE is
    /// `SessionEnded`, an unknown one `NotFound`.
    async fn get_player_connection_details(
        &self,
        game_session_arn: &str,
        players: &[PlayerId],
    ) -> Result<Vec<PlayerConnection>, GameLiftError>;
}
