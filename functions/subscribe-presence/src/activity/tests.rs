use std::sync::Arc;

use contracts::events::{reply_frame, route_event};
use contracts::fixtures::connected;
use contracts::unavailable::Unavailable;
use edge::websocket::RouteHandler;
use memory_adapters::InProcessEventBus;
use memory_adapters::test_wiring::TestWiring;
use serde_json::{Value, json};
use shared::activity::Activity;
use shared::domain::{ConnectionId, PlayerId};
use shared::ports::{Activities, Connections, PlayerReader, PresenceSweep};
use shared::presence::{PresenceChange, PresenceEvent};

use crate::{SubscribePresenceHandler, wire};

const T0: i64 = 1_795_323_600_000;

struct World {
    wiring: TestWiring,
    handler: SubscribePresenceHandler,
}

/// Bob online on `c-bob`, the activity limit at `per_minute`.
async fn world_with_limit(per_minute: u32) -> World {
    let mut wiring = TestWiring::new().at(T0);
    wiring.config.rate_limits.activity_per_minute = per_minute;
    connected(&*wiring.tables.players, "bob", "c-bob", T0 - 1000).await;
    World {
        handler: wire(&wiring.wiring()),
        wiring,
    }
}

async fn world() -> World {
    world_with_limit(30).await
}

fn bob() -> PlayerId {
    PlayerId::parse("bob").unwrap()
}

async fn set_activity_on(
    handler: &SubscribePresenceHandler,
    connection: &str,
    body: Value,
) -> Value {
    let text = json!({"route": "setActivity", "requestId": "r1", "body": body}).to_string();
    let event = route_event("setActivity", "bob", connection, T0 - 1000, Some(&text));
    reply_frame(&handler.handle(event).await.unwrap())
}

async fn set_activity(w: &World, body: Value) -> Value {
    set_activity_on(&w.handler, "c-bob", body).await
}

async fn stored(w: &World) -> Option<Activity> {
    w.wiring
        .tables
        .players
        .get(&bob())
        .await
        .unwrap()
        .unwrap()
        .activity
}

fn activity(value: Value) -> Activity {
    serde_json::from_value(value).unwrap()
}

#[tokio::test]
async fn given_an_online_player_when_setting_an_activity_then_it_is_stored_acked_and_published() {
    let w = world().await;
    let body = json!({"activity": "ranked, map Dust, 3–1", "details": {"map": "dust"}});

    let ack = set_activity(&w, body.clone()).await;

    assert_eq!(
        ack,
        json!({"type": "ack", "route": "setActivity", "requestId": "r1",
               "activity": "ranked, map Dust, 3–1", "details": {"map": "dust"}})
    );
    assert_eq!(stored(&w).await, Some(activity(body.clone())));
    assert_eq!(
        w.wiring.bus.take(),
        vec![PresenceEvent::activity(bob(), T0, Some(activity(body)))]
    );
}

#[tokio::test]
async fn given_an_activity_when_cleared_with_an_empty_one_then_none_is_stored_and_the_event_carries_none()
 {
    let w = world().await;
    set_activity(&w, json!({"activity": "in lobby"})).await;
    w.wiring.bus.take();

    let ack = set_activity(&w, json!({"activity": ""})).await;

    assert_eq!(ack["type"], "ack", "{ack}");
    assert_eq!(ack["activity"], "");
    assert_eq!(stored(&w).await, None);
    let events = w.wiring.bus.take();
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].kind, PresenceChange::Activity);
    assert_eq!(events[0].activity, None);
}

#[tokio::test]
async fn given_an_activity_over_the_limits_then_it_is_refused_saying_which_and_nothing_changes() {
    let w = world().await;
    for (body, code, says) in [
        (
            json!({"activity": "x".repeat(65)}),
            "bad_request",
            "`activity` is 65 characters; the maximum is 64",
        ),
        (
            json!({"activity": "a", "details": {"k": "x".repeat(505)}}),
            "payload_too_large",
            "`details` is 513 bytes serialized; the maximum is 512",
        ),
        (
            json!({"activity": "a", "details": ["map"]}),
            "bad_request",
            "`details` must be an object, got an array",
        ),
    ] {
        let refused = set_activity(&w, body.clone()).await;
        assert_eq!(refused["code"], code, "{body}: {refused}");
        assert_eq!(refused["message"], says, "{body}");
    }
    assert_eq!(stored(&w).await, None);
    assert!(w.wiring.bus.take().is_empty());
}

#[tokio::test]
async fn given_the_activity_limit_spent_then_rate_limited_and_nothing_changes() {
    let w = world_with_limit(2).await;
    for text in ["a", "b"] {
        assert_eq!(
            set_activity(&w, json!({"activity": text})).await["type"],
            "ack"
        );
    }
    let limited = set_activity(&w, json!({"activity": "c"})).await;
    assert_eq!(limited["code"], "rate_limited", "{limited}");
    assert!(limited["retryAfterMs"].as_i64().unwrap() > 0);
    assert_eq!(stored(&w).await, Some(activity(json!({"activity": "b"}))));
    assert_eq!(w.wiring.bus.take().len(), 2);
}

#[tokio::test]
async fn given_a_replaced_connection_when_setting_an_activity_then_conflict_and_nothing_is_published()
 {
    let w = world().await;
    let refused = set_activity_on(&w.handler, "c-old", json!({"activity": "in lobby"})).await;
    assert_eq!(refused["code"], "conflict", "{refused}");
    assert_eq!(stored(&w).await, None);
    assert!(w.wiring.bus.take().is_empty());
}

#[tokio::test]
async fn given_an_activity_when_the_sweeper_takes_the_player_offline_then_it_is_gone() {
    let w = world().await;
    set_activity(&w, json!({"activity": "in lobby"})).await;
    let players = &w.wiring.tables.players;
    let connection = ConnectionId::parse("c-bob").unwrap();
    assert!(
        players
            .disconnect(&bob(), &connection, T0, T0 + 1)
            .await
            .unwrap()
    );
    players.mark_offline(&bob(), T0 + 2).await.unwrap().unwrap();
    assert_eq!(stored(&w).await, None);
}

#[tokio::test]
async fn given_the_bus_or_the_table_failing_then_unavailable() {
    let w = world().await;
    let bus = Arc::new(InProcessEventBus::new());
    bus.set_failing(true);
    let mut failing_bus = w.wiring.clone();
    failing_bus.replace::<dyn shared::ports::EventBus>(bus);
    let refused = set_activity_on(
        &wire(&failing_bus.wiring()),
        "c-bob",
        json!({"activity": "a"}),
    )
    .await;
    assert_eq!(refused["code"], "unavailable", "{refused}");

    let mut down = w.wiring.clone();
    down.replace::<dyn Activities>(Arc::new(Unavailable));
    let refused = set_activity_on(&wire(&down.wiring()), "c-bob", json!({"activity": "a"})).await;
    assert_eq!(refused["code"], "unavailable", "{refused}");
}
