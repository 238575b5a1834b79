//! Where seated players connect: every seat the backend gives (a fulfilled placement, a
//! completed match, `rejoinSession`, `refreshConnectionDetails`) goes out with its
//! connection details, asked of GameLift once per game session for all its players. One
//! helper for every handler that seats players, so that the mode
//! (`crate::config::player_gateway`) and the failure policy are decided in one place.
//!
//! # Player gateway
//!
//! Amazon GameLift Servers' player gateway puts relays in front of a fleet's game servers
//! (DDoS protection): a game client sends its UDP traffic to relay endpoints, each packet
//! prefixed with a per-player token the relays check and strip
//! (<https://docs.aws.amazon.com/gameliftservers/latest/developerguide/ddos-protection-intro.html>).
//! A fleet has it when created with `PlayerGatewayMode` `ENABLED` (relays offered, direct
//! connections still accepted) or `REQUIRED`. The backend gets each player's endpoints
//! and token from GetPlayerConnectionDetails (a game session ARN and player ids:
//! <https://docs.aws.amazon.com/gameliftservers/latest/apireference/API_GetPlayerConnectionDetails.html>);
//! a token has an `Expiration` (at least 3 minutes away) before which the backend must
//! fetch fresh details; for a fleet or a location without the gateway the same call
//! answers the game server's own address and no token. Every seat the backend gives
//! carries the result as `connection` (the protocol: README.md, "Connecting to the game").
//!
//! **One call per game session, where the seat is decided.** `on-placement-event` (a
//! FULFILLED placement) and `on-matchmaking-event` (a COMPLETED ticket) ask once for
//! every player they seat, before the one transaction that stores the seats and appends
//! the pushes, so each `placement` or `matchmaking` frame, and the stored seat `resume`
//! answers with, already carries its details. `rejoinSession` asks for its one player
//! after CreatePlayerSession. GameLift takes at most 25 player ids a call (the model's
//! `PlayerIdList`), so a bigger game is asked in batches of 25
//! (`adapters/aws/src/gamelift_connections.rs`): one call up to 25 players, 8 for 200. A
//! call that fails is not retried: [`PlayerGateway::without_details`], applied per player
//! (a failed call, or an entry GameLift leaves out or gives without an endpoint, is "no
//! details" for that player only), decides the seat at once, and the client's refresh is
//! the retry (a settlement is not held up by GameLift). With the gateway on, a FULFILLED
//! placement event first reads its placement (one GetItem) and asks GameLift only for a
//! PENDING placement of ours: FlexMatch's own placements reach the same queue topic, and
//! a duplicate event would otherwise ask again for a settlement that writes nothing.
//!
//! The seat is stored with its details (in DynamoDB, the `gameSession` map's
//! `connection`, JSON text, and `connectionUnavailable`), so `resume` answers with them
//! without asking GameLift.
//!
//! **Refresh.** Tokens expire; the backend does not push new ones (a push per seated
//! player per token lifetime, through the inbox and its stream, for players who may have
//! left the game). The client asks: `refreshConnectionDetails` (served by
//! `rejoin-session`) reads the player's seat, calls GetPlayerConnectionDetails for that
//! one player, stores the new details on the seat (only if the player's seat is still
//! that player session: a rejoin that landed meanwhile keeps its new seat, and the
//! refresh answers `conflict`, so the client asks again) and acks the seat. A refresh
//! whose game GameLift says is over (NotFound, not ACTIVE) is `session_ended`; with no
//! seat on record it is `not_found`. It is counted against
//! `RATE_LIMIT_PLACEMENTS_PER_MINUTE`: with GameLift's tokens (minutes) a client
//! refreshes a few times an hour. The client libraries keep the last seat, refresh on
//! their own at `expiresAt` minus min(60 s, a tenth of the time left), retry a
//! `connectionUnavailable` seat with capped backoff, and stop when the seat changes or
//! the client closes.
//!
//! **Permissions.** The three functions build the port through `Wiring::seat_connector`,
//! which builds it only when the mode asks GameLift; template.yaml grants them
//! `gamelift:GetPlayerConnectionDetails` under the same condition (`AsksPlayerGateway`),
//! and the calls↔grants test checks both in each mode. The action has no resource type in
//! the Service Authorization Reference
//! (<https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazongameliftservers.html>),
//! so it is granted on `"*"` to `OnPlacementEventFunction`, `OnMatchmakingEventFunction`
//! and `RejoinSessionFunction` only.
//!
//! **Locally.** The simulator answers as a fleet in `SIM_PLAYER_GATEWAY`'s mode (by
//! default `PLAYER_GATEWAY`'s): relays on 127.0.0.2 and 127.0.0.3, `pgt-…` tokens
//! expiring `SIM_PLAYER_GATEWAY_TOKEN_SECONDS` later; it counts the calls, the console
//! shows what it gave each player and can throttle every call (`failConnectionDetails`).
//! Tested end to end in every mode, in memory and on DynamoDB Local
//! (`tests/suites/player_gateway.rs`).

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
