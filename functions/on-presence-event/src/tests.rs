use std::collections::BTreeMap;

use contracts::events::parse_event;
use memory_adapters::InMemoryMessageStore;
use memory_adapters::test_wiring::TestWiring;
use serde_json::json;
use shared::domain::EpochMillis;
use shared::messaging::{MessageKind, StoredMessage};
use shared::presence::SUBSCRIPTION_TTL_SECONDS;

use super::*;
use contracts::ports::*;

const T0: i64 = 1_795_323_600_000;

struct World {
    handler: PresenceEventHandler,
    tables: memory_adapters::MemoryStores,
}

fn world() -> World {
    let w = TestWiring::new().at(T0);
    World {
        handler: wire(&w.wiring()),
        tables: w.tables,
    }
}

impl World {
    /// Tells the watchers of `event` as the handler does for each one; how many it told.
    async fn notify(&self, event: PresenceEvent) -> usize {
        self.handler.notify(&event).await.unwrap()
    }
}

fn p(name: &str) -> PlayerId {
    PlayerId::parse(name).unwrap()
}

async fn watch(w: &World, watcher: &str, targets: &[&str], expire_at_secs: i64) {
    let targets: Vec<PlayerId> = targets.iter().map(|t| p(t)).collect();
    w.tables
        .subscriptions
        .subscribe(&p(watcher), &targets, expire_at_secs)
        .await
        .unwrap();
}

fn bus_event(detail_type: &str, detail: Value) -> LambdaEvent<EventBridgeEvent<Value>> {
    parse_event(json!({
        "version": "0",
        "id": "6a7e8feb-b491-4cf7-a9f1-bf3703467718",
        "detail-type": detail_type,
        "source": "gamelift-sockets.presence",
        "account": "123456789012",
        "time": "2026-11-22T05:00:00Z",
        "region": "us-east-1",
        "resources": [],
        "detail": detail
    }))
}

/// Each recipient's presence frames.
fn frames_by_recipient(messages: &InMemoryMessageStore) -> BTreeMap<String, Vec<Value>> {
    let mut frames: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for m in messages.all() {
        frames
            .entry(m.recipient_id.to_string())
            .or_default()
            .push(serde_json::from_str(&m.payload).unwrap());
    }
    frames
}

#[tokio::test]
async fn given_two_watchers_when_alice_connects_then_each_gets_one_short_lived_presence_message() {
    let w = world();
    let expire = T0 / 1000 + SUBSCRIPTION_TTL_SECONDS;
    watch(&w, "bob", &["alice", "carol"], expire).await;
    watch(&w, "dave", &["alice"], expire).await;
    watch(&w, "erin", &["carol"], expire).await;

    let outcome = w
        .handler
        .handle(bus_event(
            "presence.connected",
            json!({"playerId": "alice", "at": T0 - 5}),
        ))
        .await
        .unwrap();
    assert_eq!(
        outcome,
        Outcome {
            notified: 2,
            skipped: false
        }
    );
    let frame = json!({"type": "presence", "playerId": "alice", "status": "online", "at": T0 - 5});
    assert_eq!(
        frames_by_recipient(&w.tables.messages),
        BTreeMap::from([
            ("bob".to_owned(), vec![frame.clone()]),
            ("dave".to_owned(), vec![frame]),
        ])
    );
    for m in w.tables.messages.all() {
        assert_eq!(m.kind, MessageKind::Presence);
        assert_eq!(m.sender_id, "system");
        assert_eq!(m.created_at, T0);
        assert_eq!(m.expire_at_secs, T0 / 1000 + 60);
        assert_eq!(
            m.message_id.as_str(),
            format!(
                "presence#alice#presence.connected#{}#{}",
                T0 - 5,
                m.recipient_id
            )
        );
    }
}

/// Counts the INSERTs a stream would carry for the Messages table.
#[derive(Clone, Default)]
struct Inserts(Arc<std::sync::atomic::AtomicUsize>);

impl memory_adapters::InsertObserver for Inserts {
    fn inserted(&self, _: StoredMessage) {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
}

#[tokio::test]
async fn given_the_same_event_delivered_twice_when_handled_then_the_retry_appends_nothing_new() {
    let inserts = Inserts::default();
    let w = TestWiring::with_messages(InMemoryMessageStore::with_observer(inserts.clone())).at(T0);
    let (subscriptions, messages, clock) = (&w.tables.subscriptions, &w.tables.messages, &w.clock);
    let handler = wire(&w.wiring());
    let expire = T0 / 1000 + 600;
    for watcher in ["bob", "dave"] {
        subscriptions
            .subscribe(&p(watcher), &[p("alice")], expire)
            .await
            .unwrap();
    }
    let event = || {
        bus_event(
            "presence.connected",
            json!({"playerId": "alice", "at": T0 - 5}),
        )
    };

    assert_eq!(handler.handle(event()).await.unwrap().notified, 2);
    let first: Vec<MessageId> = messages.all().into_iter().map(|m| m.message_id).collect();
    // EventBridge retries a little later (the first attempt timed out after writing).
    clock.advance(2_000);
    assert_eq!(handler.handle(event()).await.unwrap().notified, 2);
    let second: Vec<MessageId> = messages.all().into_iter().map(|m| m.message_id).collect();

    assert_eq!(second, first, "the retry overwrote the same items");
    assert_eq!(
        inserts.0.load(std::sync::atomic::Ordering::SeqCst),
        2,
        "one INSERT per watcher"
    );

    // A later change of the same player is a new message, not an overwrite.
    handler
        .handle(bus_event(
            "presence.disconnected",
            json!({"playerId": "alice", "at": T0 + 1}),
        ))
        .await
        .unwrap();
    assert_eq!(messages.all().len(), 4);
    assert_eq!(inserts.0.load(std::sync::atomic::Ordering::SeqCst), 4);
}

#[tokio::test]
async fn given_a_disconnected_event_then_watchers_are_told_offline() {
    let w = world();
    watch(&w, "bob", &["alice"], T0 / 1000 + 600).await;
    w.handler
        .handle(bus_event(
            "presence.disconnected",
            json!({"playerId": "alice", "at": T0}),
        ))
        .await
        .unwrap();
    assert_eq!(
        frames_by_recipient(&w.tables.messages)["bob"],
        vec![json!({"type": "presence", "playerId": "alice", "status": "offline", "at": T0})]
    );
}

#[tokio::test]
async fn given_no_watchers_or_only_expired_ones_then_nothing_is_written() {
    let w = world();
    watch(&w, "bob", &["alice"], T0 / 1000).await;
    let outcome = w
        .handler
        .handle(bus_event(
            "presence.connected",
            json!({"playerId": "alice", "at": T0}),
        ))
        .await
        .unwrap();
    assert_eq!(outcome.notified, 0);
    assert!(w.tables.messages.all().is_empty());
}

#[tokio::test]
async fn given_a_malformed_event_then_it_is_skipped_without_error_and_nothing_written() {
    let w = world();
    watch(&w, "bob", &["alice"], T0 / 1000 + 600).await;
    for (detail_type, detail) in [
        ("presence.connected", json!({"at": T0})),
        (
            "presence.connected",
            json!({"playerId": "no/slash", "at": T0}),
        ),
        (
            "presence.disconnected",
            json!({"playerId": "alice", "at": "now"}),
        ),
        ("presence.connected", json!("alice")),
        (
            "presence.teleported",
            json!({"playerId": "alice", "at": T0}),
        ),
    ] {
        let outcome = w
            .handler
            .handle(bus_event(detail_type, detail.clone()))
            .await
            .unwrap();
        assert!(outcome.skipped, "{detail_type} {detail}");
    }
    assert!(w.tables.messages.all().is_empty());
}

#[tokio::test]
async fn given_the_messages_table_down_then_the_invocation_fails_so_eventbridge_retries_it() {
    let mut w = TestWiring::new().at(T0);
    w.tables
        .subscriptions
        .subscribe(&p("bob"), &[p("alice")], T0 / 1000 + 600)
        .await
        .unwrap();
    w.replace::<dyn MessageStore>(Arc::new(contracts::unavailable::Unavailable));
    let handler = wire(&w.wiring());
    let error = handler
        .handle(bus_event(
            "presence.connected",
            json!({"playerId": "alice", "at": T0}),
        ))
        .await
        .unwrap_err();
    assert!(error.to_string().contains("unavailable"), "{error}");
}

fn sample(text: &str) -> LambdaEvent<EventBridgeEvent<Value>> {
    parse_event(serde_json::from_str(text).unwrap())
}

fn at_of(event: &LambdaEvent<EventBridgeEvent<Value>>) -> EpochMillis {
    event.payload.detail["at"].as_i64().unwrap()
}

#[tokio::test]
async fn the_sample_presence_events_are_run_through_the_handler() {
    let w = world();
    watch(&w, "bob", &["alice"], T0 / 1000 + 600).await;

    let connected = sample(include_str!("../../../events/presence-connected.json"));
    let connected_at = at_of(&connected);
    assert_eq!(connected.payload.source, "gamelift-sockets.presence");
    assert_eq!(w.handler.handle(connected).await.unwrap().notified, 1);

    let disconnected = sample(include_str!("../../../events/presence-disconnected.json"));
    let disconnected_at = at_of(&disconnected);
    assert_eq!(w.handler.handle(disconnected).await.unwrap().notified, 1);

    let malformed = sample(include_str!("../../../events/presence-malformed.json"));
    assert!(w.handler.handle(malformed).await.unwrap().skipped);

    let mut frames = frames_by_recipient(&w.tables.messages)
        .remove("bob")
        .unwrap();
    frames.sort_by_key(|f| f["at"].as_i64());
    assert_eq!(
        frames,
        vec![
            json!({"type": "presence", "playerId": "alice", "status": "online", "at": connected_at}),
            json!({"type": "presence", "playerId": "alice", "status": "offline", "at": disconnected_at}),
        ]
    );
}

/// `a` and `b` made friends (the friend pushes go to the inboxes, cleared here).
async fn befriend(w: &World, a: &str, b: &str) {
    contracts::friend_store_contract::befriend(&*w.tables.friends, a, b).await;
}

async fn online(w: &World, name: &str) {
    w.tables
        .players
        .connect(&contracts::fixtures::new_connection(
            name,
            &format!("c-{name}"),
            T0 - 1_000,
        ))
        .await
        .unwrap();
}

/// The presence frames each recipient got.
fn presence_frames(w: &World) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for m in w.tables.messages.all() {
        if m.kind == MessageKind::Presence {
            *counts.entry(m.recipient_id.to_string()).or_insert(0) += 1;
        }
    }
    counts
}

#[tokio::test]
async fn given_online_friends_and_a_watcher_when_alice_connects_then_each_is_told_once_and_offline_friends_not_at_all()
 {
    let w = world();
    for friend in ["bob", "carol", "dave"] {
        befriend(&w, "alice", friend).await;
    }
    online(&w, "bob").await;
    online(&w, "carol").await;
    // carol also subscribed; erin only subscribed; dave is offline.
    let expire = T0 / 1000 + SUBSCRIPTION_TTL_SECONDS;
    watch(&w, "carol", &["alice"], expire).await;
    watch(&w, "erin", &["alice"], expire).await;

    assert_eq!(w.notify(PresenceEvent::connected(p("alice"), T0)).await, 3);
    let counts = presence_frames(&w);
    assert_eq!(
        counts,
        [("bob", 1), ("carol", 1), ("erin", 1)]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect()
    );
}

#[tokio::test]
async fn given_200_online_friends_when_alice_goes_offline_then_all_200_are_told() {
    let w = world();
    for i in 0..200 {
        let friend = format!("f{i:03}");
        befriend(&w, "alice", &friend).await;
        online(&w, &friend).await;
    }
    let offline = PresenceEvent::disconnected(p("alice"), T0);
    assert_eq!(w.notify(offline).await, 200);
}

#[tokio::test]
async fn given_an_activity_event_then_each_watcher_gets_the_activity_with_status_online() {
    let w = world();
    watch(&w, "bob", &["alice"], T0 / 1000 + SUBSCRIPTION_TTL_SECONDS).await;

    for detail in [
        json!({"playerId": "alice", "at": T0 - 5, "activity": "in lobby", "details": {"map": "dust"}}),
        json!({"playerId": "alice", "at": T0 - 4}),
    ] {
        w.handler
            .handle(bus_event("presence.activity", detail))
            .await
            .unwrap();
    }

    let frames = frames_by_recipient(&w.tables.messages)
        .remove("bob")
        .unwrap();
    assert_eq!(
        frames,
        vec![
            json!({"type": "presence", "playerId": "alice", "status": "online",
                   "activity": "in lobby", "details": {"map": "dust"}, "at": T0 - 5}),
            json!({"type": "presence", "playerId": "alice", "status": "online", "at": T0 - 4}),
        ],
        "a cleared activity is a frame without one"
    );
}
