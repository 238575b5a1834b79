//! `sessionPlacementRequest`: asks a GameLift queue for a game session for the caller,
//! or, for a party's leader, for the whole party in one game (`party.rs`). The result is
//! pushed later, as a `placement` message per player (`on-placement-event`); this route
//! only acks `{placementId, status: "PENDING"}`. No polling anywhere. The function also
//! serves `setPlacementLatencies` (`latencies.rs`): a member's latencies for their
//! party's placements.
//!
//! Round trips on the normal path: 3 DynamoDB writes + 1 GameLift call, in this order:
//! 0. Players: the request counted against the player's placement rate limit (one
//!    conditional UpdateItem, docs/architecture.md#rate-limits; none with the limit off);
//!    over it: `rate_limited` with `retryAfterMs`, nothing else done;
//! 1. Players: `pendingPlacementId` set only if none is pending and the player is in no
//!    party (one conditional UpdateItem; a conflict names the pending placement, or the
//!    party, from the same write: a party member goes on in `party.rs`);
//! 2. Placements: the placement recorded PENDING (one PutItem). It is recorded before
//!    GameLift is asked because the result event may arrive before this handler
//!    returns, and settles only a PENDING record;
//! 3. GameLift: StartGameSessionPlacement.
//!
//! A refusal by GameLift marks the placement FAILED, then clears the player's pending
//! placement (in that order, so a late event for it can never clear a newer one), and
//! replies with the refusal's error code: nothing stays pending. If a fault stops that
//! clean-up half way, the next request finds the pending placement ended (or never
//! recorded) and clears it: a fault never blocks a player for good.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::json;
use shared::config::Config;
use shared::domain::{PlacementId, PlayerId};
use shared::matchmaking::TicketId;
use shared::ports::{
    Bucket, Clock, GameLift, GameLiftError, PartyStore, PlacementBegun, PlacementRecord,
    PlacementRequest, PlacementStore, PlayerStore, RateLimiter, StoreError,
};
use shared::protocol::ErrorCode;
use shared::requests::{ClientRequest, PlacementRequestBody};
use shared::telemetry::ErrorChain;
use shared::websocket::{
    Opened, Request, RouteError, RouteEvent, RouteHandler, RouteResult, WrongRoute,
};
use tracing::{error, info, warn};

/// A pending placement with no record this long after it was requested was abandoned
/// by a request that died between its two writes (API Gateway gives a route 29 s).
pub const UNRECORDED_PLACEMENT_STALE_AFTER_MS: i64 = 60_000;

mod latencies;
mod party;

/// A placement request, its body resolved against the stack's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct PlacementBody {
    /// Region → milliseconds, rounded to whole milliseconds, in region order.
    pub latencies: Vec<(String, u32)>,
    /// `None` when not given or empty.
    pub player_data: Option<String>,
    /// One of the configured queues.
    pub queue: String,
}

impl PlacementBody {
    /// `body` with its queue (the first configured when it names none) one of `queues`:
    /// another is `not_found`, a well-formed name this stack has no queue of.
    pub fn resolve(body: &PlacementRequestBody, queues: &[String]) -> Result<Self, RouteError> {
        let queue = match &body.queue {
            None => queues.first().cloned().ok_or_else(|| {
                RouteError::new(ErrorCode::Internal, "no game session queue is configured")
            })?,
            Some(name) if queues.iter().any(|q| q == name.as_str()) => name.to_string(),
            Some(name) => {
                return Err(RouteError::new(
                    ErrorCode::NotFound,
                    format!(
                        "`queue` {:?} is not a known queue; use one of: {}",
                        name.as_str(),
                        queues.join(", ")
                    ),
                ));
            }
        };
        Ok(Self {
            latencies: body
                .latencies
                .as_ref()
                .map(|latencies| latencies.rounded())
                .unwrap_or_default(),
            player_data: body
                .player_data
                .as_ref()
                .map(|data| data.to_string())
                .filter(|data| !data.is_empty()),
            queue,
        })
    }
}

pub struct SessionPlacementRequestHandler {
    config: Arc<Config>,
    players: Arc<dyn PlayerStore>,
    limiter: Arc<dyn RateLimiter>,
    placements: Arc<dyn PlacementStore>,
    parties: Arc<dyn PartyStore>,
    gamelift: Arc<dyn GameLift>,
    clock: Arc<dyn Clock>,
}

impl SessionPlacementRequestHandler {
    pub fn new(
        config: Arc<Config>,
        players: Arc<dyn PlayerStore>,
        limiter: Arc<dyn RateLimiter>,
        placements: Arc<dyn PlacementStore>,
        parties: Arc<dyn PartyStore>,
        gamelift: Arc<dyn GameLift>,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self {
            config,
            players,
            limiter,
            placements,
            parties,
            gamelift,
            clock,
        }
    }

    async fn place(
        &self,
        player: &PlayerId,
        body: PlacementBody,
        placement_id: &PlacementId,
    ) -> Result<(), RouteError> {
        self.spend_placement(player).await?;
        // Everyone placed: the caller, or their whole party (the caller leading it).
        let party = match self.begin_solo(player, placement_id).await? {
            None => Vec::new(),
            Some(party_id) => {
                self.begin_party(player, &party_id, &body, placement_id)
                    .await?
            }
        };
        let placed: Vec<PlayerId> = std::iter::once(player.clone())
            .chain(party.iter().map(|member| member.player_id.clone()))
            .collect();
        let now = self.clock.now_millis();
        let mut record =
            PlacementRecord::pending(placement_id.clone(), player.clone(), &body.queue, now);
        record.player_ids = placed.clone();
        if let Err(err) = self.placements.create(&record).await {
            self.abandon_all(&placed, placement_id).await;
            return Err(store_refusal(err));
        }
        let request = PlacementRequest {
            placement_id: placement_id.clone(),
            queue: body.queue,
            max_players: self.config.max_players_per_session,
            player_id: player.clone(),
            player_data: body.player_data,
            latencies: body.latencies,
            party,
        };
        match self.gamelift.start_placement(&request).await {
            Ok(()) => Ok(()),
            Err(refusal) => {
                self.fail(&placed, placement_id, &refusal).await;
                Err(gamelift_refusal(player, placement_id, &refusal))
            }
        }
    }

    /// Makes the placement the caller's pending one. `Some(party)` when the caller is in
    /// a party: nothing was written, and the party's placement goes on from there.
    async fn begin_solo(
        &self,
        player: &PlayerId,
        placement_id: &PlacementId,
    ) -> Result<Option<shared::party::PartyId>, RouteError> {
        match self.players.begin_placement(player, placement_id).await {
            Ok(PlacementBegun::Began) => Ok(None),
            Ok(PlacementBegun::InParty(party)) => Ok(Some(party)),
            Ok(PlacementBegun::AlreadyPending(pending)) => {
                // Only a placement that is still going blocks a new one: one left behind
                // by a fault is cleared, and the request goes on.
                if !self.clear_if_stale(player, &pending).await? {
                    return Err(conflict(&pending));
                }
                match self.players.begin_placement(player, placement_id).await {
                    Ok(PlacementBegun::Began) => Ok(None),
                    Ok(PlacementBegun::InParty(party)) => Ok(Some(party)),
                    Ok(PlacementBegun::AlreadyPending(pending)) => Err(conflict(&pending)),
                    Err(err) => Err(store_refusal(err)),
                }
            }
            Err(err) => Err(store_refusal(err)),
        }
    }

    /// Counts the request against `RATE_LIMIT_PLACEMENTS_PER_MINUTE` (one write on the
    /// player's item; none with the limit off).
    async fn spend_placement(&self, player: &PlayerId) -> Result<(), RouteError> {
        let limit = self.config.rate_limits.placements_per_minute;
        RouteError::spend_call(
            self.limiter.as_ref(),
            player,
            Bucket::Placement,
            limit,
            self.clock.now_millis(),
            &format!("{limit} placement requests a minute"),
            "nothing was placed; retry",
        )
        .await
    }

    /// Whether `pending`, the player's pending placement, was left behind by a fault
    /// (and is now cleared): its record already ended (GameLift refused it and clearing
    /// the player failed), or it was never recorded although it was requested long ago
    /// (the request died between its two writes). A PENDING record is a placement still
    /// going: its event settles it. Costs one read, on the conflict path only.
    async fn clear_if_stale(
        &self,
        player: &PlayerId,
        pending: &PlacementId,
    ) -> Result<bool, RouteError> {
        // A matchmaking ticket in the slot is judged by the matchmaking routes (the
        // next `startMatchmaking` clears one left behind by a fault), never read here.
        if TicketId::from_pending(pending).is_some() {
            return Ok(false);
        }
        let record = match self.placements.get(pending).await {
            Ok(record) => record,
            Err(StoreError::Unavailable(source)) => {
                warn!(player_id = %player, placement_id = %pending, error = %ErrorChain(source.as_ref()), "cannot check the pending placement; reporting the conflict");
                return Ok(false);
            }
            Err(fault) => return Err(store_refusal(fault)),
        };
        let stale = match &record {
            Some(record) => record.status.is_final(),
            None => pending.requested_at().is_some_and(|requested| {
                self.clock.now_millis() - requested > UNRECORDED_PLACEMENT_STALE_AFTER_MS
            }),
        };
        if !stale {
            return Ok(false);
        }
        let status = record.map_or("never recorded", |r| r.status.as_str());
        match self.players.abandon_placement(player, pending).await {
            Ok(()) => {
                warn!(player_id = %player, placement_id = %pending, status, "cleared a pending placement left behind by a fault");
                Ok(true)
            }
            Err(err) => {
                warn!(player_id = %player, placement_id = %pending, error = %ErrorChain(&err), "could not clear a stale pending placement");
                Ok(false)
            }
        }
    }

    /// GameLift refused: no event will settle the placement. FAILED first, so that a
    /// late event (GameLift did start it after all) can no longer settle it and clear a
    /// newer pending placement; then the player's pending placement is cleared.
    ///
    /// A failure that is not an answer (a timeout, a 5xx, an unexpected error) may hide
    /// a placement GameLift did start: it is stopped, best effort, so that no game
    /// session is created for a player who was told nothing was placed. A throttle or a
    /// refused connection did nothing: no extra call then (least of all under throttling).
    async fn fail(&self, placed: &[PlayerId], placement_id: &PlacementId, refusal: &GameLiftError) {
        let now = self.clock.now_millis();
        if let Err(err) = self.placements.mark_failed(placement_id, now).await {
            warn!(placement_id = %placement_id, error = %ErrorChain(&err), "could not mark a refused placement FAILED");
        }
        self.abandon_all(placed, placement_id).await;
        if matches!(
            refusal,
            GameLiftError::OutcomeUnknown(_) | GameLiftError::Other(_)
        ) {
            match self.gamelift.stop_placement(placement_id).await {
                Ok(()) => {
                    warn!(placement_id = %placement_id, "GameLift had started the placement after all; stopped it");
                }
                // NotFound: it was never started, the usual case.
                Err(GameLiftError::NotFound { .. } | GameLiftError::InvalidRequest { .. }) => {}
                Err(err) => {
                    warn!(placement_id = %placement_id, error = %ErrorChain(&err), "could not make sure the failed placement is stopped");
                }
            }
        }
    }

    /// Clears the placement from every player placed (each only if it is still theirs).
    async fn abandon_all(&self, placed: &[PlayerId], placement_id: &PlacementId) {
        for player in placed {
            if let Err(err) = self.players.abandon_placement(player, placement_id).await {
                error!(player_id = %player, placement_id = %placement_id, error = %ErrorChain(&err), "could not clear the pending placement; the player cannot place again until it is cleared");
            }
        }
    }
}

pub(crate) fn store_refusal(err: StoreError) -> RouteError {
    RouteError::from_store(
        err,
        "the placement could not be recorded; nothing was placed; retry",
    )
}

/// A `conflict` that also names the pending placement as `placementId` (or the live
/// matchmaking ticket as `ticketId`).
fn conflict(pending: &PlacementId) -> RouteError {
    if let Some(ticket) = TicketId::from_pending(pending) {
        info!(ticket_id = %ticket, "a matchmaking ticket is live");
        return RouteError::new(
            ErrorCode::Conflict,
            format!("matchmaking ticket {ticket} is live: wait for its result or stopMatchmaking"),
        )
        .with_detail("ticketId", ticket.as_str());
    }
    info!(placement_id = %pending, "a placement is already pending");
    RouteError::new(
        ErrorCode::Conflict,
        format!("placement {pending} is already pending: wait for its result or cancel it"),
    )
    .with_detail("placementId", pending.as_str())
}

fn gamelift_refusal(
    player: &PlayerId,
    placement_id: &PlacementId,
    refusal: &GameLiftError,
) -> RouteError {
    let code = refusal.code();
    let message = match refusal {
        GameLiftError::Unavailable(source) | GameLiftError::OutcomeUnknown(source) => {
            warn!(player_id = %player, placement_id = %placement_id, error = %ErrorChain(source.as_ref()), "GameLift unavailable; placement abandoned");
            "GameLift is unavailable; nothing was placed; retry".to_owned()
        }
        GameLiftError::Other(source) => {
            error!(player_id = %player, placement_id = %placement_id, error = %ErrorChain(source.as_ref()), "StartGameSessionPlacement failed");
            "the placement could not be started".to_owned()
        }
        refusal => {
            warn!(player_id = %player, placement_id = %placement_id, error = %ErrorChain(refusal), "GameLift refused the placement");
            refusal.to_string()
        }
    };
    RouteError::new(code, message)
}

#[async_trait]
impl RouteHandler for SessionPlacementRequestHandler {
    async fn handle(&self, event: RouteEvent) -> RouteResult {
        let request = match Request::open(&event.payload)? {
            Opened::Request(request) => request,
            Opened::Refused(reply) => return Ok(reply),
        };
        let body = match &request.frame {
            ClientRequest::SessionPlacementRequest { body, .. } => body,
            ClientRequest::SetPlacementLatencies { body, .. } => {
                let result = self.set_latencies(&request, body).await;
                return Ok(request.respond(result));
            }
            other => {
                return Err(WrongRoute {
                    function: "session-placement-request",
                    route: other.route(),
                    serves: "sessionPlacementRequest and setPlacementLatencies",
                }
                .into());
            }
        };
        let player = &request.caller.player_id;
        let body = match PlacementBody::resolve(body, &self.config.game_session_queues) {
            Ok(body) => body,
            Err(refusal) => return Ok(request.refuse(refusal)),
        };
        let placement_id = PlacementId::new_at(self.clock.now_millis());
        let queue = body.queue.clone();
        let result = self.place(player, body, &placement_id).await.map(|()| {
            info!(player_id = %player, placement_id = %placement_id, queue, "placement requested");
            json!({"placementId": placement_id, "status": "PENDING"})
        });
        Ok(request.respond(result))
    }
}

#[cfg(test)]
mod tests;
