//! The matchmaking routes (README: Client protocol, Matchmaking): `startMatchmaking`
//! (`start.rs`), `acceptMatch` and `stopMatchmaking` (`answer.rs`), and
//! `setMatchmakingAttributes` (`answer.rs`: a party member's own attributes for their
//! leader's tickets). Results are never
//! polled: every status change of a ticket is pushed to each of its players as a
//! `matchmaking` frame by `on-matchmaking-event`.
//!
//! A ticket takes its players' one pending-request slot (the Players item's
//! `pendingPlacementId`, which a queue placement also takes): a player has one live
//! ticket or one pending placement, never both, checked by the same conditional write
//! that reserves the slot. A conflict names what is pending (`ticketId` or
//! `placementId`); one left behind by a fault (ended, or never recorded long after it
//! was asked for) is cleared and the request goes on.

use std::sync::Arc;

use async_trait::async_trait;
use shared::domain::{PlacementId, PlayerId};
use shared::matchmaking::{MatchmakingSettings, TicketId};
use shared::ports::{
    Clock, GameLiftError, Matchmaker, PartyStore, PlacementStore, PlayerStore, RateLimiter,
    StoreError, TicketStore,
};
use shared::protocol::ErrorCode;
use shared::rate_limits::Bucket;
use shared::requests::ClientRequest;
use shared::telemetry::ErrorChain;
use shared::websocket::{
    Opened, Request, RouteError, RouteEvent, RouteHandler, RouteResult, WrongRoute,
};
use tracing::{error, info, warn};

mod answer;
mod start;

/// A pending request with no record this long after it was asked for was abandoned by
/// a request that died between its writes (API Gateway gives a route 29 s).
pub const UNRECORDED_STALE_AFTER_MS: i64 = 60_000;

pub const START_ROUTE: &str = "startMatchmaking";
pub const ACCEPT_ROUTE: &str = "acceptMatch";
pub const STOP_ROUTE: &str = "stopMatchmaking";
pub const ATTRIBUTES_ROUTE: &str = "setMatchmakingAttributes";
/// Every route this function serves.
pub const ROUTES: [&str; 4] = [START_ROUTE, ACCEPT_ROUTE, STOP_ROUTE, ATTRIBUTES_ROUTE];

/// The stores the routes use.
pub struct Stores {
    pub players: Arc<dyn PlayerStore>,
    /// The per-player rate limits (on the players' items).
    pub limiter: Arc<dyn RateLimiter>,
    pub parties: Arc<dyn PartyStore>,
    /// Read only to tell a pending placement left behind by a fault.
    pub placements: Arc<dyn PlacementStore>,
    pub tickets: Arc<dyn TicketStore>,
}

pub struct MatchmakingHandler {
    settings: MatchmakingSettings,
    players: Arc<dyn PlayerStore>,
    limiter: Arc<dyn RateLimiter>,
    parties: Arc<dyn PartyStore>,
    placements: Arc<dyn PlacementStore>,
    tickets: Arc<dyn TicketStore>,
    matchmaker: Arc<dyn Matchmaker>,
    clock: Arc<dyn Clock>,
}

impl MatchmakingHandler {
    pub fn new(
        settings: MatchmakingSettings,
        stores: Stores,
        matchmaker: Arc<dyn Matchmaker>,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self {
            settings,
            players: stores.players,
            limiter: stores.limiter,
            parties: stores.parties,
            placements: stores.placements,
            tickets: stores.tickets,
            matchmaker,
            clock,
        }
    }

    /// Counts a `startMatchmaking` against the player's placement requests (one write on
    /// their item; none with the limit off).
    pub(crate) async fn spend(&self, player: &PlayerId) -> Result<(), RouteError> {
        let limit = self.settings.requests_per_minute;
        RouteError::spend_call(
            self.limiter.as_ref(),
            player,
            Bucket::Placement,
            limit,
            self.clock.now_millis(),
            &format!("{limit} placement and matchmaking requests a minute"),
            "nothing was started; retry",
        )
        .await
    }

    /// Whether `pending`, `player`'s pending request, was left behind by a fault (and
    /// is now cleared): its record already ended, or it was never recorded although it
    /// was asked for long ago. Costs one read, on the conflict path only.
    pub(crate) async fn clear_if_stale(
        &self,
        player: &PlayerId,
        pending: &PlacementId,
    ) -> Result<bool, RouteError> {
        let now = self.clock.now_millis();
        let old = |asked: Option<i64>| asked.is_some_and(|at| now - at > UNRECORDED_STALE_AFTER_MS);
        let read = match TicketId::from_pending(pending) {
            Some(ticket) => self.tickets.get(&ticket).await.map(|record| match record {
                Some(record) => record.status.is_final(),
                None => old(ticket.requested_at()),
            }),
            None => self
                .placements
                .get(pending)
                .await
                .map(|record| match record {
                    Some(record) => record.status.is_final(),
                    None => old(pending.requested_at()),
                }),
        };
        let stale = match read {
            Ok(stale) => stale,
            Err(StoreError::Unavailable(source)) => {
                warn!(player_id = %player, pending = %pending, error = %ErrorChain(source.as_ref()), "cannot check the pending request; reporting the conflict");
                return Ok(false);
            }
            Err(fault) => return Err(store_refusal(fault)),
        };
        if !stale {
            return Ok(false);
        }
        match self.players.abandon_placement(player, pending).await {
            Ok(()) => {
                warn!(player_id = %player, pending = %pending, "cleared a pending request left behind by a fault");
                Ok(true)
            }
            Err(err) => {
                warn!(player_id = %player, pending = %pending, error = %ErrorChain(&err), "could not clear a stale pending request");
                Ok(false)
            }
        }
    }
}

pub(crate) fn store_refusal(err: StoreError) -> RouteError {
    RouteError::from_store(err, "nothing was changed; retry")
}

/// A `conflict` naming what `player` waits for: a ticket (`ticketId`) or a queue
/// placement (`placementId`); `playerId` too when it is another member of the party.
pub(crate) fn pending_conflict(
    player: &PlayerId,
    pending: &PlacementId,
    caller: &PlayerId,
) -> RouteError {
    let whose = if player == caller {
        "you have".to_owned()
    } else {
        format!("{player} has")
    };
    let error = match TicketId::from_pending(pending) {
        Some(ticket) => RouteError::new(
            ErrorCode::Conflict,
            format!(
                "{whose} a live matchmaking ticket {ticket}: wait for its result or stopMatchmaking"
            ),
        )
        .with_detail("ticketId", ticket.as_str()),
        None => RouteError::new(
            ErrorCode::Conflict,
            format!(
                "{whose} a pending placement {pending}: wait for its result or cancelPlacement"
            ),
        )
        .with_detail("placementId", pending.as_str()),
    };
    if player == caller {
        error
    } else {
        error.with_detail("playerId", player.as_str())
    }
}

/// GameLift's refusal as the client's error.
pub(crate) fn gamelift_refusal(
    call: &str,
    ticket: &TicketId,
    refusal: &GameLiftError,
) -> RouteError {
    let message = match refusal {
        GameLiftError::Unavailable(source) | GameLiftError::OutcomeUnknown(source) => {
            warn!(ticket_id = %ticket, call, error = %ErrorChain(source.as_ref()), "GameLift unavailable");
            "GameLift is unavailable; retry".to_owned()
        }
        GameLiftError::Other(source) => {
            error!(ticket_id = %ticket, call, error = %ErrorChain(source.as_ref()), "GameLift call failed");
            format!("{call} failed")
        }
        refusal => {
            info!(ticket_id = %ticket, call, error = %ErrorChain(refusal), "GameLift refused");
            refusal.to_string()
        }
    };
    RouteError::new(refusal.code(), message)
}

#[async_trait]
impl RouteHandler for MatchmakingHandler {
    async fn handle(&self, event: RouteEvent) -> RouteResult {
        let request = match Request::open(&event.payload)? {
            Opened::Request(request) => request,
            Opened::Refused(reply) => return Ok(reply),
        };
        if self.settings.configurations.is_empty() {
            return Ok(request.refuse(RouteError::new(
                ErrorCode::Unavailable,
                "matchmaking is not set up here: no matchmaking configuration is configured \
                 (MATCHMAKING_CONFIGURATIONS; locally, --matchmaking-rule-set)",
            )));
        }
        let result = match &request.frame {
            ClientRequest::StartMatchmaking { body, .. } => self.start(&request, body).await,
            ClientRequest::AcceptMatch { body, .. } => self.accept(&request, body).await,
            ClientRequest::StopMatchmaking { body, .. } => self.stop(&request, body).await,
            ClientRequest::SetMatchmakingAttributes { body, .. } => {
                self.set_attributes(&request, body).await
            }
            other => {
                return Err(WrongRoute {
                    function: "matchmaking",
                    route: other.route(),
                    serves: "startMatchmaking, acceptMatch, stopMatchmaking and setMatchmakingAttributes",
                }
                .into());
            }
        };
        Ok(request.respond(result))
    }
}

#[cfg(test)]
mod tests;
