//! `on-placement-event`: GameLift queue placement events → the placement
//! settled and one `placement` message per player, which the Messages stream delivers.
//!
//! Input: the SNS event of the queue's notification topic (a standard topic; each
//! record's `Message` is the whole GameLift event as a JSON string), or the same event
//! delivered by an EventBridge rule. The payload is taken raw and its shape detected,
//! so one malformed record is logged and skipped instead of failing (and endlessly
//! retrying) the whole invocation.
//!
//! Per event, round trips:
//! - FULFILLED with P placed players: with `PLAYER_GATEWAY` enabled or required, ONE
//!   GetPlayerConnectionDetails for all P (one per 25: GameLift's limit a call), so that
//!   every seat carries where its player connects (`shared::seats`), after one GetItem
//!   of the placement: GameLift is asked only for a PENDING placement of ours (FlexMatch's
//!   own placements reach the same queue topic, and a duplicate event would ask again
//!   for a settlement that writes nothing); then ONE
//!   `TransactWriteItems` (1 + 2P writes: the placement, conditional on PENDING; each
//!   player's pending placement cleared and seat stored; each player's message). The
//!   event names the players, so nothing is read first.
//! - CANCELLED / TIMED_OUT / FAILED: one GetItem (the event does not name the players:
//!   they come from the placement record, which also lets a duplicate stop here) + ONE
//!   `TransactWriteItems` (1 + 2P writes).
//! - A duplicate or out-of-order event: its transaction is cancelled by the placement's
//!   condition, so it writes nothing (and delivers nothing twice); one GetItem then
//!   tells why, for the `IgnoredEvents` metric (an ended event's read tells it already).
//!
//! Fewer is not possible with the guarantees asked: the status change, the players'
//! game state and the messages must commit together or not at all (else a retry after
//! a partial failure would either lose the players' messages or deliver them twice),
//! and DynamoDB's only multi-item atomic write is one transaction. (Above 49 players a
//! settlement takes one transaction per 49; see `DynamoPlacementOutcomes`.)
//!
//! Failures: a malformed event is logged and skipped (`Ok`); a transient store failure
//! returns `Err`, so Lambda retries the invocation (settlement is idempotent); a
//! corrupt placement item is logged and skipped (a retry cannot repair it).
//!
//! # A placement, in sequence
//!
//! A mermaid sequence diagram (paste it into any mermaid renderer to draw it):
//!
//! ```text
//! sequenceDiagram
//!   autonumber
//!   participant C as client
//!   participant G as API Gateway
//!   participant S as session-placement-request
//!   participant GL as GameLift queue
//!   participant T as SNS topic
//!   participant E as on-placement-event
//!   participant P as Players
//!   participant PL as Placements
//!   participant M as Messages (inboxes)
//!   participant D as on-message-inserted
//!
//!   C->>G: sessionPlacementRequest(latencies, playerData, queue)
//!   G->>S: invoke
//!   S->>P: UpdateItem SET pendingPlacementId, condition none pending
//!   alt another placement is pending and still going
//!     S-->>C: error conflict, with the pending placementId
//!   else recorded on the player
//!     S->>PL: PutItem status PENDING, condition new id
//!     S->>GL: StartGameSessionPlacement
//!     alt GameLift refuses
//!       S->>PL: status FAILED, condition PENDING
//!       S->>P: remove pendingPlacementId
//!       S-->>C: error (bad_request, unavailable, ...)
//!     else accepted
//!       S-->>C: ack placementId, status PENDING
//!     end
//!   end
//!   Note over GL: later
//!   GL-)T: placement event (FULFILLED, CANCELLED, TIMED_OUT or FAILED)
//!   T-)E: invoke (async, 2 retries, then DLQ)
//!   opt not FULFILLED: the event does not name the players
//!     E->>PL: GetItem (playerIds)
//!   end
//!   E->>M: read each player's inbox head
//!   E->>PL: TransactWriteItems across Placements, Players and Messages
//!   Note over P,M: one transaction: placement status (condition PENDING),<br/>each player's pendingPlacementId removed and seat set,<br/>each player's placement message appended at head + 1
//!   M-)D: stream INSERT per player
//!   D->>P: BatchGetItem
//!   D->>G: PostToConnection(placement frame) to live connections
//!   G-->>C: placement frame
//! ```

use std::collections::HashMap;
use std::sync::Arc;

use edge::gamelift_events::{self, Handled};
use lambda_runtime::LambdaEvent;
use serde_json::Value;
use shared::config::Config;
use shared::domain::{GameSession, MessageId, PlacementStatus, PlayerId};
use shared::frames::ServerFrame;
use shared::messaging::{MessageKind, NewMessage, SYSTEM_SENDER};
use shared::metrics::Ignored;
use shared::placement::{PlacedGameSession, SeatConnection, SettledPlayer, Settlement};
use shared::ports::{Clock, PlacementOutcomes, PlacementReader, StoreError};
use shared::seats::SeatConnector;
use shared::telemetry::ErrorChain;
use shared::wiring::{Stores, Wiring};
use tracing::{error, info, warn};

mod event;

pub use event::{
    MalformedEvent, PLACEMENT_DETAIL_TYPE, PlacementEvent, PlacementOutcome, read_payload,
};

/// `on-placement-event` as every deployment builds it.
pub fn wire(w: &Wiring) -> PlacementEventHandler {
    gamelift_events::wire(w, seated)
}

/// The handler on `stores`, its seats' connection details from `seats`
/// ([`gamelift_events::Seated`]).
pub fn seated(
    config: Arc<Config>,
    stores: &dyn Stores,
    clock: Arc<dyn Clock>,
    seats: SeatConnector,
) -> PlacementEventHandler {
    PlacementEventHandler {
        config,
        placements: stores.placement_reader(),
        outcomes: stores.placement_outcomes(),
        clock,
        seats,
    }
}

pub struct PlacementEventHandler {
    config: Arc<Config>,
    placements: Arc<dyn PlacementReader>,
    outcomes: Arc<dyn PlacementOutcomes>,
    clock: Arc<dyn Clock>,
    seats: SeatConnector,
}

impl PlacementEventHandler {
    /// Settles every event of the invocation. `Err` only when some event could not be
    /// settled for a reason a retry may fix (after trying all the others).
    pub async fn handle(&self, event: LambdaEvent<Value>) -> Result<(), lambda_runtime::Error> {
        self.settle_all(event.payload).await.finish()
    }

    /// What [`Self::handle`] does, but the metrics: the events ignored, and the first
    /// failure a retry may fix.
    pub async fn settle_all(&self, payload: Value) -> Handled {
        let mut handled = Handled::default();
        for (index, parsed) in read_payload(&payload).into_iter().enumerate() {
            let placement = match parsed {
                Ok(placement) => placement,
                Err(malformed) => {
                    warn!(record = index, error = %ErrorChain(&malformed), "skipping a malformed placement event");
                    handled.ignored.push(Ignored::Malformed);
                    continue;
                }
            };
            match self.settle(&placement).await {
                Ok(None) => {}
                Ok(Some(reason)) => handled.ignored.push(reason),
                Err(StoreError::Corrupt { key, reason }) => {
                    error!(placement_id = %placement.placement_id, key, reason, "skipping an event of a corrupt placement");
                }
                Err(err) => {
                    warn!(placement_id = %placement.placement_id, error = %ErrorChain(&err), "placement not settled; the invocation will be retried");
                    handled.retry.get_or_insert(err);
                }
            }
        }
        handled
    }

    /// Settles one event: `None` when it was, else why it was ignored.
    async fn settle(&self, event: &PlacementEvent) -> Result<Option<Ignored>, StoreError> {
        let placement_id = &event.placement_id;
        let status = event.status();
        let (game_session, placed): (Option<&PlacedGameSession>, Vec<(PlayerId, Option<String>)>) =
            match &event.outcome {
                PlacementOutcome::Fulfilled {
                    game_session,
                    placed,
                } => (
                    Some(game_session),
                    placed
                        .iter()
                        .map(|(player, session)| (player.clone(), Some(session.clone())))
                        .collect(),
                ),
                PlacementOutcome::Ended(_) => match self.placements.get(placement_id).await? {
                    Some(record) if !record.status.is_final() => (
                        None,
                        record.player_ids.into_iter().map(|p| (p, None)).collect(),
                    ),
                    Some(record) => {
                        info!(placement_id = %placement_id, status = %status, settled = %record.status, "placement already settled; duplicate or out-of-order event ignored");
                        return Ok(Some(stale(status, record.status)));
                    }
                    None => {
                        info!(placement_id = %placement_id, status = %status, "no such placement recorded; ignored");
                        return Ok(Some(not_recorded(placement_id)));
                    }
                },
            };
        let seats = self.seats_of(placement_id, game_session, &placed).await?;
        let now = self.clock.now_millis();
        let players = placed
            .into_iter()
            .map(|(player_id, player_session_id)| {
                let seat = seats.get(&player_id).cloned();
                let connection = seat.as_ref().map(SeatConnection::of).unwrap_or_default();
                let payload = ServerFrame::Placement {
                    placement_id: placement_id.clone(),
                    status,
                    game_session: seat,
                }
                .to_json();
                SettledPlayer {
                    message: NewMessage::new(
                        MessageKind::Placement,
                        MessageId::deterministic(&[
                            "placement",
                            placement_id.as_str(),
                            player_id.as_str(),
                        ]),
                        player_id.clone(),
                        SYSTEM_SENDER,
                        payload,
                        now,
                        self.config.message_ttl_secs(),
                    ),
                    player_id,
                    player_session_id,
                    connection,
                }
            })
            .collect::<Vec<_>>();
        let recipients = players.len();
        let settlement = Settlement {
            placement_id: placement_id.clone(),
            status,
            game_session: game_session.cloned(),
            players,
            at: now,
        };
        if self.outcomes.settle(&settlement).await? {
            shared::metrics::placement(&event.queue, status.as_str(), event.duration_ms);
            info!(placement_id = %placement_id, status = %status, recipients, "placement settled");
            return Ok(None);
        }
        // Why the condition failed, read only on this rare path (the settlement needs no
        // read first).
        let reason = match self.placements.get(placement_id).await? {
            None => not_recorded(placement_id),
            Some(record) => stale(status, record.status),
        };
        info!(placement_id = %placement_id, status = %status, reason = reason.as_str(), "placement not pending; event ignored");
        Ok(Some(reason))
    }

    /// FULFILLED: each placed player's seat with where they connect, all asked of
    /// GameLift in one call; none for a placement that is not ours or not PENDING any
    /// more (its settlement writes nothing), which costs a GetItem when GameLift is asked.
    async fn seats_of(
        &self,
        placement_id: &shared::domain::PlacementId,
        game_session: Option<&PlacedGameSession>,
        placed: &[(PlayerId, Option<String>)],
    ) -> Result<HashMap<PlayerId, GameSession>, StoreError> {
        let Some(game) = game_session else {
            return Ok(HashMap::new());
        };
        if self.seats.asks_gamelift() {
            let pending = self.placements.get(placement_id).await?;
            if pending.is_none_or(|record| record.status.is_final()) {
                return Ok(HashMap::new());
            }
        }
        let seats = placed
            .iter()
            .filter_map(|(player, session)| Some((player.clone(), game.seat(session.clone()?))))
            .collect();
        Ok(self
            .seats
            .connect(&game.game_session_arn, seats)
            .await
            .into_iter()
            .collect())
    }
}

/// An event of a placement this stack has no record of: `unknown` if its id has the shape
/// this stack makes (`PlacementId::new_at`), else `foreign`.
fn not_recorded(placement_id: &shared::domain::PlacementId) -> Ignored {
    if placement_id.requested_at().is_some() {
        Ignored::Unknown
    } else {
        Ignored::Foreign
    }
}

/// An event `status` for a placement already `settled`: the same again, or a late one.
fn stale(status: PlacementStatus, settled: PlacementStatus) -> Ignored {
    if status == settled {
        Ignored::Duplicate
    } else {
        Ignored::OutOfOrder
    }
}

#[cfg(test)]
mod tests;
