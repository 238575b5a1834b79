use super::*;
use contracts::events::{parse_event, reply_frame, route_event};
use contracts::fake_gamelift::FakeGameLift;
use contracts::fixtures::{assert_refused, connected, placement_id, settlement};
use contracts::ports::*;
use edge::websocket::RouteHandler;
use memory_adapters::test_wiring::TestWiring;
use memory_adapters::{InMemoryPlacementOutcomes, InMemoryPlacementStore, InMemoryPlayerStore};
use serde_json::Value;
use serde_json::json;
use shared::domain::PlacementStatus;
use shared::matchmaking::TicketId;
use shared::pending::Pending;
use shared::placement::PlacementRecord;
use shared::ports::PlacementOutcomes;

const T0: i64 = 1_795_323_600_000;

struct World {
    players: Arc<InMemoryPlayerStore>,
    placements: Arc<InMemoryPlacementStore>,
    outcomes: Arc<InMemoryPlacementOutcomes>,
    gamelift: Arc<FakeGameLift>,
    handler: CancelPlacementHandler,
}

fn alice() -> PlayerId {
    PlayerId::parse("alice").unwrap()
}

async fn world() -> World {
    let w = TestWiring::new().at(T0);
    let players = w.tables.players.clone();
    for (player, connection) in [("alice", "L0SM9cOFvHcCIhw="), ("bob", "c-bob")] {
        connected(&*players, player, connection, T0).await;
    }
    World {
        handler: wire(&w.wiring()),
        players,
        placements: w.tables.placements.clone(),
        outcomes: w.tables.outcomes.clone(),
        gamelift: w.gamelift.clone(),
    }
}

/// `player` requested placement `id`, still pending.
async fn pending(w: &World, player: &str, id: &str) {
    let player = PlayerId::parse(player).unwrap();
    w.players
        .reserve(&player, &contracts::fixtures::pending(id))
        .await
        .unwrap();
    w.placements
        .create(&PlacementRecord::pending(placement_id(id), player, "q", T0))
        .await
        .unwrap();
}

/// The placement ended with `status`, as `on-placement-event` settles it.
async fn ended(w: &World, player: &str, id: &str, status: PlacementStatus) {
    let settlement = settlement(id, status, &[player], T0 + 1);
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
    let raw = serde_json::from_str(include_str!("../../../events/cancel-placement.json")).unwrap();
    let ack = reply_frame(&w.handler.handle(parse_event(raw)).await.unwrap());
    assert_eq!(
        ack,
        json!({"type":"ack","route":"cancelPlacement","requestId":"cp-1","placementId":"p-1"})
    );
    assert_eq!(w.gamelift.stopped(), vec![placement_id("p-1")]);
    // The result (CANCELLED) arrives through the event path, which clears it.
    let record = w.players.get(&alice()).await.unwrap().unwrap();
    assert_eq!(record.pending, Some(contracts::fixtures::pending("p-1")));
}

#[tokio::test]
async fn given_a_pending_placement_when_cancelling_it_by_id_then_it_is_stopped() {
    let w = world().await;
    pending(&w, "alice", "p-1").await;
    let ack = cancel(&w, "alice", json!({"placementId": "p-1"})).await;
    assert_eq!(ack["placementId"], "p-1");
    assert_eq!(w.gamelift.stopped(), vec![placement_id("p-1")]);
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
        assert_refused(&frame, "conflict", "p-1 already ended (FULFILLED)");
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

#[tokio::test]
async fn given_a_placement_id_that_breaks_the_rule_then_bad_request_naming_the_field_and_the_rule_and_nothing_is_touched()
 {
    let w = world().await;
    pending(&w, "alice", "p-1").await;
    let before = w.players.get(&alice()).await.unwrap();
    let too_long = "a".repeat(49);
    for (raw, why) in [
        ("p_1", "'_' at position 1"),
        ("p 1", "' ' at position 1"),
        ("../p-1", "'.' at position 0"),
        (too_long.as_str(), "49 characters long; the maximum is 48"),
        ("", "placement id is empty"),
    ] {
        let frame = cancel(&w, "alice", json!({"placementId": raw})).await;
        assert_eq!(frame["type"], "error", "{raw:?}: {frame}");
        assert_eq!(frame["code"], "bad_request", "{raw:?}: {frame}");
        let message = frame["message"].as_str().unwrap();
        assert!(
            message.starts_with(&format!(
                "`placementId` {raw:?} is not a placement id (1–48 of A-Z a-z 0-9 -)"
            )),
            "{message}"
        );
        assert!(message.contains(why), "{raw:?}: {message}");
    }
    assert!(w.gamelift.calls().is_empty(), "nothing was stopped");
    assert_eq!(w.players.get(&alice()).await.unwrap(), before);
    let record = w
        .placements
        .get(&placement_id("p-1"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(record.status, PlacementStatus::Pending);
}

#[tokio::test]
async fn given_a_live_matchmaking_ticket_when_cancelling_then_not_found_naming_it_and_nothing_stopped()
 {
    let w = world().await;
    let ticket = TicketId::new_at(T0);
    w.players
        .reserve(&alice(), &Pending::of_ticket(&ticket).unwrap())
        .await
        .unwrap();
    let frame = cancel(&w, "alice", json!({})).await;
    assert_refused(&frame, "not_found", "stopMatchmaking");
    assert_eq!(frame["ticketId"], ticket.as_str());
    assert!(w.gamelift.calls().is_empty());
}
