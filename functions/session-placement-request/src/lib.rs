//! `sessionPlacementRequest`: asks a GameLift queue for a game session for the caller,
//! or, for a party's leader, for the whole party in one game (`party.rs`). The result is
//! pushed later, as a `placement` message per player (`on-placement-event`); this route
//! only acks `{placementId, status: "PENDING"}`. No polling anywhere. The function also
//! serves `setPlacementLatencies` (`latencies.rs`): a member's latencies for their
//! party's placements.
//!
//! Round trips on the normal path: 3 DynamoDB writes + 1 GameLift call, in this order:
//! 0. Players: the request counted against the player's placement rate limit (one
//!    conditional UpdateItem, shared/src/rate_limits.rs; none with the limit off);
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
//! recorded) and clears it: a fault never blocks a player for good. The slot, the party
//! and that clean-up are `shared::pending`'s, which `startMatchmaking` shares; this
//! route has no ticket reader, so a ticket in the slot always blocks it.

use std::sync::Arc;

use async_trait::async_trait;
use edge::websocket::{CallLimit, Reply, Request, Route, RouteError, Serves};
use shared::acks::{PlacementAck, RouteAck};
use shared::config::Config;
use shared::domain::{PlacementId, PlacementStatus, PlayerId};
use shared::frames::ErrorCode;
use shared::pending::{Pending, PendingRequests};
use shared::placement::{PlacementPlayer, PlacementRecord, PlacementRequest};
use shared::ports::{
    Clock, GameLiftError, PlacementRecorder, PlacementStarter, PlacementStopper, PlayerLookup,
    Profiles, StoreError,
};
use shared::rate_limits::Bucket;
use shared::requests::{ClientRequest, PlacementRequestBody, Route as ClientRoute};
use shared::telemetry::ErrorChain;
use shared::wiring::Wiring;
use tracing::{error, info, warn};

mod latencies;

/// What the routes use besides the configuration and the clock.
pub struct Ports {
    /// The caller's (or their party's) pending-request slot.
    pub pending: PendingRequests,
    /// Requests, against `RATE_LIMIT_PLACEMENTS_PER_MINUTE`.
    pub limit: CallLimit,
    /// The party members' latencies.
    pub players: Arc<dyn PlayerLookup>,
    /// A member's own latencies (`setPlacementLatencies`).
    pub profiles: Arc<dyn Profiles>,
    pub placements: Arc<dyn PlacementRecorder>,
    pub starter: Arc<dyn PlacementStarter>,
    /// A refused placement whose outcome is unknown is stopped, best effort.
    pub stopper: Arc<dyn PlacementStopper>,
}

/// `sessionPlacementRequest` and `setPlacementLatencies` as every deployment builds them.
pub fn wire(w: &Wiring) -> SessionPlacementRequestHandler {
    SessionPlacementRequestHandler {
        config: w.config.clone(),
        ports: Ports {
            pending: w.pending_requests(),
            limit: CallLimit::new(
                w,
                Bucket::Placement,
                w.config.rate_limits.placements_per_minute,
                "placement requests",
            ),
            players: w.stores.player_lookup(),
            profiles: w.stores.profiles(),
            placements: w.stores.placement_recorder(),
            starter: w.services.placement_starter(),
            stopper: w.services.placement_stopper(),
        },
        clock: w.clock.clone(),
    }
}

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
    ports: Ports,
    clock: Arc<dyn Clock>,
}

/// What a client is told when the store failed.
const NOTHING_PLACED: &str = "the placement could not be recorded; nothing was placed; retry";

impl SessionPlacementRequestHandler {
    async fn place(
        &self,
        player: &PlayerId,
        body: PlacementBody,
        placement_id: &PlacementId,
    ) -> Result<(), RouteError> {
        self.ports
            .limit
            .spend(player, "nothing was placed; retry")
            .await?;
        let pending = Pending::Placement(placement_id.clone());
        // Everyone placed: the caller, or their whole party (the caller leading it).
        let others = self
            .ports
            .pending
            .reserve(player, &pending, None)
            .await
            .map_err(|e| RouteError::from_pending(e, player, NOTHING_PLACED))?;
        let placed: Vec<PlayerId> = std::iter::once(player.clone())
            .chain(others.iter().cloned())
            .collect();
        let party = match self.members(&others).await {
            Ok(party) => party,
            Err(err) => {
                self.ports.pending.release(&placed, &pending).await;
                return Err(RouteError::from_store(err, NOTHING_PLACED));
            }
        };
        if !party.is_empty() {
            info!(placement_id = %placement_id, members = placed.len(), queue = body.queue, "party placement begun");
        }
        let now = self.clock.now_millis();
        let mut record =
            PlacementRecord::pending(placement_id.clone(), player.clone(), &body.queue, now);
        record.player_ids = placed.clone();
        if let Err(err) = self.ports.placements.create(&record).await {
            self.ports.pending.release(&placed, &pending).await;
            return Err(RouteError::from_store(err, NOTHING_PLACED));
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
        match self.ports.starter.start_placement(&request).await {
            Ok(()) => Ok(()),
            Err(refusal) => {
                self.fail(&placed, placement_id, &refusal).await;
                Err(gamelift_refusal(player, placement_id, &refusal))
            }
        }
    }

    /// The party's other members as GameLift gets them: each with their own latencies
    /// (`setPlacementLatencies`); one batched read, none for a player on their own.
    async fn members(&self, others: &[PlayerId]) -> Result<Vec<PlacementPlayer>, StoreError> {
        if others.is_empty() {
            return Ok(Vec::new());
        }
        let records = self.ports.players.get_many(others).await?;
        Ok(others
            .iter()
            .map(|player_id| PlacementPlayer {
                latencies: records
                    .iter()
                    .find(|r| r.player_id == *player_id)
                    .map(|r| r.placement_latencies.clone())
                    .unwrap_or_default(),
                player_id: player_id.clone(),
            })
            .collect())
    }

    /// GameLift refused: no event will settle the placement. FAILED first, so that a
    /// late event (GameLift did start it after all) can no longer settle it and clear a
    /// newer pending placement; then the players' pending placement is cleared.
    ///
    /// A failure that is not an answer may hide a placement GameLift did start: it is
    /// stopped, best effort, so that no game session is created for a player who was
    /// told nothing was placed. A throttle or a refused connection did nothing: no extra
    /// call then (least of all under throttling).
    async fn fail(&self, placed: &[PlayerId], placement_id: &PlacementId, refusal: &GameLiftError) {
        let now = self.clock.now_millis();
        if let Err(err) = self.ports.placements.mark_failed(placement_id, now).await {
            warn!(placement_id = %placement_id, error = %ErrorChain(&err), "could not mark a refused placement FAILED");
        }
        self.ports
            .pending
            .release(placed, &Pending::Placement(placement_id.clone()))
            .await;
        if refusal.may_have_acted() {
            match self.ports.stopper.stop_placement(placement_id).await {
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
impl Route for SessionPlacementRequestHandler {
    const SERVES: Serves = Serves {
        function: "session-placement-request",
        routes: &[
            ClientRoute::SessionPlacementRequest,
            ClientRoute::SetPlacementLatencies,
        ],
    };

    async fn answer(&self, request: &Request) -> Result<Reply, RouteError> {
        let body = match &request.frame {
            ClientRequest::SessionPlacementRequest { body, .. } => body,
            ClientRequest::SetPlacementLatencies { body, .. } => {
                let ack = self.set_latencies(request, body).await?;
                return Ok(Reply::Ack(RouteAck::SetPlacementLatencies(ack)));
            }
            _ => return Ok(Reply::WrongRoute),
        };
        let player = &request.caller.player_id;
        let body = PlacementBody::resolve(body, &self.config.game_session_queues)?;
        let placement_id = PlacementId::new_at(self.clock.now_millis());
        let queue = body.queue.clone();
        self.place(player, body, &placement_id).await?;
        info!(player_id = %player, placement_id = %placement_id, queue, "placement requested");
        Ok(Reply::Ack(RouteAck::SessionPlacementRequest(
            PlacementAck {
                placement_id,
                status: PlacementStatus::Pending,
            },
        )))
    }
}

#[cfg(test)]
mod tests;
