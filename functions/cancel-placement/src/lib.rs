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
use serde_json::{Map, Value, json};
use shared::domain::{PlayerId, is_placement_id};
use shared::ports::{GameLift, GameLiftError, PlacementStore, PlayerStore, StoreError};
use shared::protocol::{ErrorCode, json_kind};
use shared::websocket::{Request, RouteError, RouteEvent, RouteHandler, RouteResult};
use tracing::{error, info, warn};

pub struct CancelPlacementHandler {
    players: Arc<dyn PlayerStore>,
    placements: Arc<dyn PlacementStore>,
    gamelift: Arc<dyn GameLift>,
}

/// `placementId` of the body, if given.
pub fn requested_placement(body: &Map<String, Value>) -> Result<Option<String>, RouteError> {
    match body.get("placementId") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(id)) if is_placement_id(id) => Ok(Some(id.clone())),
        Some(Value::String(id)) => Err(RouteError::bad_request(format!(
            "`placementId` {id:?} is not a placement id (1–48 of A-Z a-z 0-9 -)"
        ))),
        Some(other) => Err(RouteError::bad_request(format!(
            "`placementId` must be a string, got {}",
            json_kind(other)
        ))),
    }
}

impl CancelPlacementHandler {
    pub fn new(
        players: Arc<dyn PlayerStore>,
        placements: Arc<dyn PlacementStore>,
        gamelift: Arc<dyn GameLift>,
    ) -> Self {
        Self {
            players,
            placements,
            gamelift,
        }
    }

    /// The placement cancelled, or why not.
    async fn cancel(
        &self,
        player: &PlayerId,
        requested: Option<String>,
    ) -> Result<String, RouteError> {
        let record = self.players.get(player).await.map_err(store_refusal)?;
        let pending = record.as_ref().and_then(|r| r.pending_placement_id.clone());
        let last = record.as_ref().and_then(|r| r.last_placement_id.clone());
        // Default: the pending placement, else the last one (so that a cancel that
        // raced the result says "already ended" rather than "no placement").
        let Some(target) = requested.or_else(|| pending.clone()).or(last) else {
            return Err(RouteError::new(
                ErrorCode::NotFound,
                "no placement is pending",
            ));
        };
        if pending.as_deref() != Some(target.as_str()) {
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
                        warn!(player_id = %player, placement_id = %target, error = %other, "StopGameSessionPlacement refused");
                        other.to_string()
                    }
                };
                Err(RouteError::new(refusal.code(), message))
            }
        }
    }
}

fn already_ended(placement_id: &str, status: Option<&str>) -> RouteError {
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
impl RouteHandler for CancelPlacementHandler {
    async fn handle(&self, event: RouteEvent) -> RouteResult {
        let request = match Request::open(&event.payload)? {
            Ok(request) => request,
            Err(reply) => return Ok(reply),
        };
        let player = &request.caller.player_id;
        let result = match requested_placement(&request.frame.body) {
            Ok(requested) => self.cancel(player, requested).await.map(|placement_id| {
                info!(player_id = %player, placement_id, "placement cancel requested");
                json!({ "placementId": placement_id })
            }),
            Err(refusal) => Err(refusal),
        };
        Ok(request.respond(result))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shared::adapters::memory::{
        InMemoryMessageStore, InMemoryPlacementOutcomes, InMemoryPlacementStore,
        InMemoryPlayerStore,
    };
    use shared::domain::{ConnectionId, MessageId, PlacementStatus};
    use shared::ports::{
        MessageKind, NewConnection, NewMessage, PlacementOutcomes, PlacementRecord, SettledPlayer,
        Settlement,
    };
    use shared::testing::events::{parse_event, reply_frame, route_event};
    use shared::testing::fake_gamelift::FakeGameLift;

    const T0: i64 = 1_795_323_600_000;

    struct World {
        players: Arc<InMemoryPlayerStore>,
        placements: Arc<InMemoryPlacementStore>,
        outcomes: InMemoryPlacementOutcomes,
        gamelift: Arc<FakeGameLift>,
        handler: CancelPlacementHandler,
    }

    fn alice() -> PlayerId {
        PlayerId::parse("alice").unwrap()
    }

    async fn world() -> World {
        let players = Arc::new(InMemoryPlayerStore::new());
        for (player, connection) in [("alice", "L0SM9cOFvHcCIhw="), ("bob", "c-bob")] {
            players
                .connect(&NewConnection {
                    player_id: PlayerId::parse(player).unwrap(),
                    connection_id: ConnectionId::parse(connection).unwrap(),
                    endpoint: "https://x/Development".into(),
                    connected_at: T0,
                    now: T0,
                    heartbeat_deadline: T0 + 90_000,
                    sweep_shard: 0,
                    expire_at_secs: 0,
                })
                .await
                .unwrap();
        }
        let placements = Arc::new(InMemoryPlacementStore::new());
        let outcomes = InMemoryPlacementOutcomes::new(
            placements.clone(),
            players.clone(),
            Arc::new(InMemoryMessageStore::new()),
        );
        let gamelift = Arc::new(FakeGameLift::new());
        let handler =
            CancelPlacementHandler::new(players.clone(), placements.clone(), gamelift.clone());
        World {
            players,
            placements,
            outcomes,
            gamelift,
            handler,
        }
    }

    /// `player` requested `placement_id`, still pending.
    async fn pending(w: &World, player: &str, placement_id: &str) {
        let player = PlayerId::parse(player).unwrap();
        w.players
            .begin_placement(&player, placement_id)
            .await
            .unwrap()
            .unwrap();
        w.placements
            .create(&PlacementRecord::pending(placement_id, player, "q", T0))
            .await
            .unwrap();
    }

    /// The placement ended with `status`, as `on-placement-event` settles it.
    async fn ended(w: &World, player: &str, placement_id: &str, status: PlacementStatus) {
        let player_id = PlayerId::parse(player).unwrap();
        let settlement = Settlement {
            placement_id: placement_id.into(),
            status,
            game_session: None,
            players: vec![SettledPlayer {
                player_id: player_id.clone(),
                player_session_id: None,
                message: NewMessage {
                    message_id: MessageId::deterministic(&["placement", placement_id, player]),
                    recipient_id: player_id,
                    sender_id: "system".into(),
                    kind: MessageKind::Placement,
                    payload: "{}".into(),
                    created_at: T0,
                    expire_at_secs: 0,
                },
            }],
            at: T0 + 1,
        };
        assert!(w.outcomes.settle(&settlement).await.unwrap());
    }

    async fn cancel(w: &World, player: &str, body: Value) -> Value {
        let text = json!({"route": "cancelPlacement", "requestId": "cp", "body": body}).to_string();
        let event = route_event("cancelPlacement", player, "c1", T0, Some(&text));
        reply_frame(&w.handler.handle(event).await.unwrap())
    }

    #[tokio::test]
    async fn given_a_pending_placement_when_cancelling_without_an_id_then_it_is_stopped() {
        let w = world().await;
        pending(&w, "alice", "p-1").await;
        let raw =
            serde_json::from_str(include_str!("../../../events/cancel-placement.json")).unwrap();
        let ack = reply_frame(&w.handler.handle(parse_event(raw)).await.unwrap());
        assert_eq!(
            ack,
            json!({"type":"ack","route":"cancelPlacement","requestId":"cp-1","placementId":"p-1"})
        );
        assert_eq!(w.gamelift.stopped(), vec!["p-1"]);
        // The result (CANCELLED) arrives through the event path, which clears it.
        let record = w.players.get(&alice()).await.unwrap().unwrap();
        assert_eq!(record.pending_placement_id.as_deref(), Some("p-1"));
    }

    #[tokio::test]
    async fn given_a_pending_placement_when_cancelling_it_by_id_then_it_is_stopped() {
        let w = world().await;
        pending(&w, "alice", "p-1").await;
        let ack = cancel(&w, "alice", json!({"placementId": "p-1"})).await;
        assert_eq!(ack["placementId"], "p-1");
        assert_eq!(w.gamelift.stopped(), vec!["p-1"]);
    }

    #[tokio::test]
    async fn given_no_placement_ever_when_cancelling_then_not_found() {
        let w = world().await;
        let frame = cancel(&w, "alice", json!({})).await;
        assert_eq!(frame["code"], "not_found");
        assert!(w.gamelift.calls().is_empty());
    }

    #[tokio::test]
    async fn given_a_fulfilled_placement_when_cancelling_then_conflict_already_ended() {
        let w = world().await;
        pending(&w, "alice", "p-1").await;
        ended(&w, "alice", "p-1", PlacementStatus::Fulfilled).await;
        for body in [json!({"placementId": "p-1"}), json!({})] {
            let frame = cancel(&w, "alice", body.clone()).await;
            assert_eq!(frame["code"], "conflict", "{body}");
            assert!(
                frame["message"]
                    .as_str()
                    .unwrap()
                    .contains("p-1 already ended (FULFILLED)"),
                "{frame}"
            );
        }
        assert!(w.gamelift.calls().is_empty());
    }

    #[tokio::test]
    async fn given_someone_elses_or_an_unknown_placement_then_not_found_and_nothing_stopped() {
        let w = world().await;
        pending(&w, "bob", "p-bob").await;
        pending(&w, "alice", "p-alice").await;
        for id in ["p-bob", "p-unknown"] {
            let frame = cancel(&w, "alice", json!({"placementId": id})).await;
            assert_eq!(frame["code"], "not_found", "{id}");
        }
        assert!(w.gamelift.calls().is_empty());
    }

    #[tokio::test]
    async fn given_gamelift_says_it_is_no_longer_pending_then_conflict() {
        for refusal in [
            GameLiftError::InvalidRequest {
                message: "placement is FULFILLED".into(),
            },
            GameLiftError::NotFound {
                message: "no such placement".into(),
            },
        ] {
            let w = world().await;
            pending(&w, "alice", "p-1").await;
            w.gamelift.fail_next_stop(refusal);
            let frame = cancel(&w, "alice", json!({})).await;
            assert_eq!(frame["code"], "conflict");
            assert!(frame["message"].as_str().unwrap().contains("already ended"));
        }
    }

    #[tokio::test]
    async fn given_gamelift_unavailable_then_unavailable() {
        let w = world().await;
        pending(&w, "alice", "p-1").await;
        w.gamelift
            .fail_next_stop(GameLiftError::Unavailable("throttled".into()));
        let frame = cancel(&w, "alice", json!({})).await;
        assert_eq!(frame["code"], "unavailable");
    }

    #[tokio::test]
    async fn given_a_malformed_placement_id_then_bad_request_naming_it() {
        let w = world().await;
        for (body, says) in [
            (json!({"placementId": 7}), "`placementId` must be a string"),
            (json!({"placementId": "a/b"}), "`placementId` \"a/b\""),
            (json!({"placementId": ""}), "`placementId` \"\""),
        ] {
            let frame = cancel(&w, "alice", body.clone()).await;
            assert_eq!(frame["code"], "bad_request", "{body}");
            assert!(frame["message"].as_str().unwrap().contains(says), "{frame}");
        }
        assert!(w.gamelift.calls().is_empty());
    }
}
