//! `cancelPlacement`: StopGameSessionPlacement for one of the caller's own placements,
//! by default the pending one. The ack only confirms the request: the `CANCELLED`
//! result arrives like every other outcome, as a `placement` message from
//! `on-placement-event` (which also clears the pending placement).
//!
//! Round trips: 1 GetItem (Players) + 1 GameLift call when cancelling the pending
//! placement; when the named placement is not the pending one, 1 more GetItem
//! (Placements) tells "already ended" (`conflict`) from "not yours / no such placement"
//! (`not_found`).

use std::sync::Arc;

use async_trait::async_trait;
use edge::websocket::{Reply, Request, Route, RouteError, Serves};
use shared::acks::{CancelPlacementAck, RouteAck};
use shared::domain::{PlacementId, PlayerId};
use shared::errors::NotFoundDetail;
use shared::frames::{ErrorCode, ErrorReply};
use shared::pending::Pending;
use shared::ports::{GameLiftError, PlacementReader, PlacementStopper, PlayerReader, StoreError};
use shared::requests::{ClientRequest, Route as ClientRoute};
use tracing::{error, info, warn};

shared::wired! {
    /// `cancelPlacement` as every deployment builds it.
    pub fn wire(w) -> pub struct CancelPlacementHandler {
        players: Arc<dyn PlayerReader> = w.stores.player_reader(),
        placements: Arc<dyn PlacementReader> = w.stores.placement_reader(),
        gamelift: Arc<dyn PlacementStopper> = w.services.placement_stopper(),
    }
}

impl CancelPlacementHandler {
    /// The placement cancelled, or why not.
    async fn cancel(
        &self,
        player: &PlayerId,
        requested: Option<PlacementId>,
    ) -> Result<PlacementId, RouteError> {
        let record = self.players.get(player).await.map_err(store_refusal)?;
        let pending = record.as_ref().and_then(|r| r.pending.clone());
        let last = record.as_ref().and_then(|r| r.last_request.clone());
        // Default: the pending placement, else the last one (so that a cancel that
        // raced the result says "already ended" rather than "no placement").
        let Some(target) = requested
            .map(Pending::from)
            .or_else(|| pending.clone())
            .or(last)
        else {
            return Err(RouteError::new(
                ErrorCode::NotFound,
                "no placement is pending",
            ));
        };
        // A live matchmaking ticket takes the same slot; it is stopped with
        // `stopMatchmaking`, not here.
        let target = match target {
            Pending::Placement(placement) => placement,
            Pending::Ticket(ticket) => {
                return Err(ErrorReply::not_found(
                    format!("{ticket} is a matchmaking ticket, not a placement: stopMatchmaking stops a live ticket"),
                    NotFoundDetail::ticket(ticket),
                )
                .into());
            }
        };
        if pending.as_ref().and_then(Pending::placement) != Some(&target) {
            match self.placements.get(&target).await {
                Ok(Some(placement)) if placement.requester_id == *player => {
                    if placement.status.is_final() {
                        return Err(already_ended(&target, Some(placement.status.as_str())));
                    }
                    // Still PENDING yet not the player's pending placement (its
                    // requester's record was cleared after a fault): stop it all the same.
                }
                Ok(_) => {
                    return Err(RouteError::new(
                        ErrorCode::NotFound,
                        format!("you have no placement {target}"),
                    ));
                }
                Err(err) => return Err(store_refusal(err)),
            }
        }
        match self.gamelift.stop_placement(&target).await {
            Ok(()) => Ok(target),
            // StopGameSessionPlacement works only while PENDING: it just ended, and its
            // result is on its way.
            Err(
                GameLiftError::NotFound { message } | GameLiftError::InvalidRequest { message },
            ) => {
                info!(player_id = %player, placement_id = %target, gamelift = %message, "placement no longer pending at GameLift");
                Err(already_ended(&target, None))
            }
            Err(refusal) => {
                let message = match &refusal {
                    GameLiftError::Unavailable(source) | GameLiftError::OutcomeUnknown(source) => {
                        warn!(player_id = %player, placement_id = %target, error = %shared::telemetry::ErrorChain(source.as_ref()), "GameLift unavailable; nothing cancelled");
                        "GameLift is unavailable; nothing was cancelled; retry".to_owned()
                    }
                    GameLiftError::Other(source) => {
                        error!(player_id = %player, placement_id = %target, error = %shared::telemetry::ErrorChain(source.as_ref()), "StopGameSessionPlacement failed");
                        "the placement could not be cancelled".to_owned()
                    }
                    other => {
                        warn!(player_id = %player, placement_id = %target, error = %shared::telemetry::ErrorChain(other), "StopGameSessionPlacement refused");
                        other.to_string()
                    }
                };
                Err(RouteError::new(refusal.code(), message))
            }
        }
    }
}

fn already_ended(placement_id: &PlacementId, status: Option<&str>) -> RouteError {
    let message = match status {
        Some(status) => format!("placement {placement_id} already ended ({status})"),
        None => format!("placement {placement_id} already ended; its result is on its way"),
    };
    RouteError::new(ErrorCode::Conflict, message)
}

fn store_refusal(err: StoreError) -> RouteError {
    RouteError::from_store(
        err,
        "the placement could not be looked up; nothing was cancelled; retry",
    )
}

#[async_trait]
impl Route for CancelPlacementHandler {
    const SERVES: Serves = Serves {
        function: "cancel-placement",
        routes: &[ClientRoute::CancelPlacement],
    };

    async fn answer(&self, request: &Request) -> Result<Reply, RouteError> {
        let ClientRequest::CancelPlacement { body, .. } = &request.frame else {
            return Ok(Reply::WrongRoute);
        };
        let player = &request.caller.player_id;
        // A `placementId` that is not one was refused as the frame was read.
        let placement_id = self.cancel(player, body.placement_id.clone()).await?;
        info!(player_id = %player, placement_id = %placement_id, "placement cancel requested");
        Ok(Reply::Ack(RouteAck::CancelPlacement(CancelPlacementAck {
            placement_id,
        })))
    }
}

#[cfg(test)]
mod tests;
