use contracts::events::{parse_event, reply_frame, route_event};
use contracts::fixtures::connected;
use memory_adapters::test_wiring::TestWiring;
use serde_json::{Value, json};
use shared::domain::{ConnectionId, PlayerId};
use shared::ports::StoreError;

use super::*;
use contracts::ports::*;
use edge::websocket::RouteHandler;
use shared::domain::PresenceStatus;

const T0: i64 = 1_795_323_600_000;
const GRACE: i64 = 30_000;

struct World {
    handler: SubscribePresenceHandler,
    tables: memory_adapters::MemoryStores,
}

fn world() -> World {
    let w = TestWiring::new().at(T0);
    World {
        handler: wire(&w.wiring()),
        tables: w.tables,
    }
}

/// The handler on a Subscriptions table that fails as `broken` says.
fn handler_on(broken: BrokenSubscriptions) -> SubscribePresenceHandler {
    let mut w = TestWiring::new().at(T0);
    w.replace::<dyn Subscriptions>(Arc::new(broken));
    wire(&w.wiring())
}

fn p(name: &str) -> PlayerId {
    PlayerId::parse(name).unwrap()
}

async fn request(w: &World, route: &str, body: Value) -> Value {
    let text = json!({"route": route, "requestId": "r1", "body": body}).to_string();
    let event = route_event(route, "bob", "c-bob", T0 - 1000, Some(&text));
    reply_frame(&w.handler.handle(event).await.unwrap())
}

/// bob asks `route` about the players `ids` (its `playerIds`).
async fn ask_about(w: &World, route: &str, ids: &[&str]) -> Value {
    request(w, route, json!({ "playerIds": ids })).await
}

async fn connect(w: &World, player: &str, at: i64) {
    connected(&*w.tables.players, player, &format!("c-{player}"), at).await;
}

async fn disconnect(w: &World, player: &str, at: i64) {
    let connection = ConnectionId::parse(format!("c-{player}")).unwrap();
    assert!(
        w.tables
            .players
            .disconnect(&p(player), &connection, at, at + GRACE)
            .await
            .unwrap()
    );
}

/// (target, watcher, expireAt) of every stored subscription.
fn stored(w: &World) -> Vec<(String, String, i64)> {
    w.tables
        .subscriptions
        .all()
        .into_iter()
        .map(|(t, w, e)| (t.to_string(), w.to_string(), e))
        .collect()
}

#[tokio::test]
async fn given_bob_subscribes_to_alice_and_carol_when_neither_is_connected_then_the_ack_says_both_offline()
 {
    let w = world();
    let ack = ask_about(&w, SUBSCRIBE_ROUTE, &["alice", "carol"]).await;
    assert_eq!(
        ack,
        json!({"type": "ack", "route": "subscribePresence", "requestId": "r1",
               "presence": {"alice": "offline", "carol": "offline"}})
    );
    // bob's connection opened 1 s ago (the event's connectedAt): the subscriptions
    // end when API Gateway must have closed it, 2 h after that.
    let expire = (T0 - 1000) / 1000 + 2 * 3600;
    assert_eq!(
        stored(&w),
        vec![
            ("alice".into(), "bob".into(), expire),
            ("carol".into(), "bob".into(), expire),
        ]
    );
}

#[tokio::test]
async fn given_a_connection_opened_an_hour_ago_when_subscribing_then_the_subscription_expires_with_the_connection()
 {
    let w = world();
    let connected_at = T0 - 3_600_000;
    let text = json!({"route": SUBSCRIBE_ROUTE, "body": {"playerIds": ["alice"]}}).to_string();
    let event = route_event(SUBSCRIBE_ROUTE, "bob", "c-bob", connected_at, Some(&text));
    let ack = reply_frame(&w.handler.handle(event).await.unwrap());
    assert_eq!(ack["type"], "ack");
    // One hour of the connection's two is left, and so of the subscription.
    assert_eq!(
        stored(&w),
        vec![("alice".into(), "bob".into(), T0 / 1000 + 3600)]
    );
}

#[tokio::test]
async fn given_no_connected_at_in_the_event_when_subscribing_then_the_expiry_counts_from_now() {
    let w = world();
    let text = json!({"route": SUBSCRIBE_ROUTE, "body": {"playerIds": ["alice"]}}).to_string();
    let mut event = route_event(SUBSCRIBE_ROUTE, "bob", "c-bob", T0, Some(&text));
    // 0: no connection time known (as `connect` treats it too).
    event.payload.request_context.connected_at = 0;
    w.handler.handle(event).await.unwrap();
    assert_eq!(
        stored(&w),
        vec![("alice".into(), "bob".into(), T0 / 1000 + 2 * 3600)]
    );
}

#[test]
fn a_subscription_never_outlives_the_connection_that_made_it() {
    for connected_at in [T0 - 7_199_999, T0 - 60_000, T0 - 1, T0] {
        let expire_ms = subscription_expire_at_secs(connected_at, T0) * 1000;
        assert!(expire_ms <= connected_at + 2 * 3_600_000, "{connected_at}");
        assert!(
            expire_ms > connected_at + 2 * 3_600_000 - 1000,
            "{connected_at}"
        );
    }
    assert_eq!(subscription_expire_at_secs(0, T0), T0 / 1000 + 2 * 3600);
}

#[tokio::test]
async fn given_online_in_grace_and_past_grace_players_then_the_ack_reports_what_watchers_see() {
    let w = world();
    // alice: online. carol: dropped 10 s ago (in grace). dave: dropped 40 s ago.
    connect(&w, "alice", T0 - 60_000).await;
    connect(&w, "carol", T0 - 60_000).await;
    disconnect(&w, "carol", T0 - 10_000).await;
    connect(&w, "dave", T0 - 60_000).await;
    disconnect(&w, "dave", T0 - 40_000).await;
    let ack = ask_about(&w, SUBSCRIBE_ROUTE, &["alice", "carol", "dave", "erin"]).await;
    assert_eq!(
        ack["presence"],
        json!({"alice": "online", "carol": "online", "dave": "offline", "erin": "offline"})
    );
}

#[tokio::test]
async fn a_grace_period_ends_inclusively_and_an_offline_record_is_offline() {
    let w = world();
    connect(&w, "alice", T0 - 60_000).await;
    disconnect(&w, "alice", T0 - GRACE).await;
    let in_grace = w.tables.players.get(&p("alice")).await.unwrap();
    assert_eq!(
        watched_status(in_grace.as_ref(), T0),
        PresenceStatus::Online
    );
    assert_eq!(
        watched_status(in_grace.as_ref(), T0 + 1),
        PresenceStatus::Offline
    );
    let offline = w
        .tables
        .players
        .mark_offline(&p("alice"), T0 + 1)
        .await
        .unwrap();
    assert!(offline.is_some());
    let offline = w.tables.players.get(&p("alice")).await.unwrap();
    assert_eq!(
        watched_status(offline.as_ref(), T0),
        PresenceStatus::Offline
    );
    assert_eq!(watched_status(None, T0), PresenceStatus::Offline);
}

#[tokio::test]
async fn given_duplicates_and_bob_himself_then_each_target_is_subscribed_once() {
    let w = world();
    connect(&w, "bob", T0 - 1000).await;
    let ack = ask_about(&w, SUBSCRIBE_ROUTE, &["bob", "alice", "bob"]).await;
    assert_eq!(
        ack["presence"],
        json!({"alice": "offline", "bob": "online"})
    );
    assert_eq!(stored(&w).len(), 2);
}

#[tokio::test]
async fn given_bad_input_on_either_route_then_bad_request_naming_the_field_and_nothing_written() {
    let w = world();
    let too_many: Vec<String> = (0..101).map(|i| format!("p{i}")).collect();
    for route in [SUBSCRIBE_ROUTE, UNSUBSCRIBE_ROUTE] {
        for (body, says) in [
            (json!({}), "`playerIds` is required"),
            (
                json!({"playerIds": "alice"}),
                "`playerIds` must be an array",
            ),
            (
                json!({"playerIds": []}),
                "`playerIds` must name at least one",
            ),
            (json!({"playerIds": too_many}), "`playerIds` names 101"),
            (
                json!({"playerIds": ["alice", 7]}),
                "`playerIds[1]` must be a string",
            ),
            (
                json!({"playerIds": ["alice", "a/b"]}),
                "`playerIds[1]` is not a valid player id",
            ),
        ] {
            let frame = request(&w, route, body.clone()).await;
            assert_eq!(frame["type"], "error", "{route} {body}");
            assert_eq!(frame["code"], "bad_request", "{route} {body}");
            assert_eq!(frame["route"], route);
            assert_eq!(frame["requestId"], "r1");
            let message = frame["message"].as_str().unwrap();
            assert!(message.contains(says), "{route} {body}: {message}");
        }
    }
    assert!(stored(&w).is_empty());
}

#[tokio::test]
async fn given_subscriptions_when_unsubscribing_then_only_the_named_ones_go_and_the_ack_counts_them()
 {
    let w = world();
    ask_about(&w, SUBSCRIBE_ROUTE, &["alice", "carol"]).await;
    let ack = ask_about(&w, UNSUBSCRIBE_ROUTE, &["alice", "alice", "zed"]).await;
    assert_eq!(
        ack,
        json!({"type": "ack", "route": "unsubscribePresence", "requestId": "r1", "unsubscribed": 2})
    );
    let left: Vec<_> = stored(&w).into_iter().map(|(t, w, _)| (t, w)).collect();
    assert_eq!(left, vec![("carol".to_owned(), "bob".to_owned())]);
}

#[tokio::test]
async fn given_a_frame_that_is_not_json_then_bad_request_and_nothing_written() {
    let w = world();
    let event = route_event(SUBSCRIBE_ROUTE, "bob", "c-bob", T0, Some("subscribe me"));
    let frame = reply_frame(&w.handler.handle(event).await.unwrap());
    assert_eq!(frame["code"], "bad_request");
    assert!(stored(&w).is_empty());
}

#[tokio::test]
async fn given_another_route_key_then_it_is_a_wiring_fault_not_a_reply() {
    let w = world();
    let text = json!({"route": "heartbeat", "body": {}}).to_string();
    let event = route_event("heartbeat", "bob", "c-bob", T0, Some(&text));
    let error = w.handler.handle(event).await.unwrap_err();
    assert!(error.to_string().contains("\"heartbeat\""), "{error}");
}

/// A subscription table that is throttled, or missing.
struct BrokenSubscriptions {
    transient: bool,
}

#[async_trait]
impl Subscriptions for BrokenSubscriptions {
    async fn subscribe(&self, _: &PlayerId, _: &[PlayerId], _: i64) -> Result<(), StoreError> {
        Err(self.error())
    }
    async fn unsubscribe(&self, _: &PlayerId, _: &[PlayerId]) -> Result<(), StoreError> {
        Err(self.error())
    }
}

impl BrokenSubscriptions {
    fn error(&self) -> StoreError {
        if self.transient {
            StoreError::Unavailable("throttled".into())
        } else {
            StoreError::Other("ResourceNotFoundException".into())
        }
    }
}

#[tokio::test]
async fn given_the_table_throttled_then_unavailable_is_replied_and_a_missing_table_is_internal() {
    let text = json!({"route": SUBSCRIBE_ROUTE, "body": {"playerIds": ["alice"]}}).to_string();
    for route in [SUBSCRIBE_ROUTE, UNSUBSCRIBE_ROUTE] {
        let throttled = handler_on(BrokenSubscriptions { transient: true });
        let event = route_event(route, "bob", "c-bob", T0, Some(&text));
        let frame = reply_frame(&throttled.handle(event).await.unwrap());
        assert_eq!(frame["code"], "unavailable", "{route}");

        let missing = handler_on(BrokenSubscriptions { transient: false });
        let event = route_event(route, "bob", "c-bob", T0, Some(&text));
        let frame = reply_frame(&missing.handle(event).await.unwrap());
        assert_eq!(frame["code"], "internal", "{route}");
    }
}

#[tokio::test]
async fn the_sample_subscribe_and_unsubscribe_events_are_run_through_the_handler() {
    let w = world();
    connect(&w, "alice", T0 - 1000).await;
    let raw =
        serde_json::from_str(include_str!("../../../events/presence-subscribe.json")).unwrap();
    let ack = reply_frame(&w.handler.handle(parse_event(raw)).await.unwrap());
    assert_eq!(ack["route"], "subscribePresence");
    assert_eq!(
        ack["presence"],
        json!({"alice": "online", "carol": "offline"})
    );
    assert_eq!(stored(&w).len(), 2);

    let raw =
        serde_json::from_str(include_str!("../../../events/presence-unsubscribe.json")).unwrap();
    let ack = reply_frame(&w.handler.handle(parse_event(raw)).await.unwrap());
    assert_eq!(ack["unsubscribed"], 1);
    assert_eq!(stored(&w).len(), 1);
}
