//! `on-presence-event`: the presence bus's rule target. For a `presence.connected` or
//! `presence.disconnected` event it looks up who watches the player (one Query per
//! page of watchers) and appends one `presence` message to each watcher's inbox.
//! Delivery then happens like any message, from the Messages stream
//! (`on-message-inserted`); presence messages are short-lived, and `resume` replays only
//! the latest one about each player.
//!
//! An event that is not a presence event (unknown detail-type, malformed detail) is
//! logged and skipped: retrying it would never help.
//!
//! EventBridge delivers at least once and retries a failed invocation, so each message
//! id is derived from the event and the watcher ([`presence_message_id`]): an append
//! whose id is already the newest of that inbox writes nothing, so a retry does not
//! deliver the same change twice.

use std::sync::Arc;

use aws_lambda_events::event::eventbridge::EventBridgeEvent;
use lambda_runtime::LambdaEvent;
use serde::Serialize;
use serde_json::Value;
use shared::domain::{MessageId, PlayerId};
use shared::ports::{
    Clock, MessageKind, MessageStore, NewMessage, PresenceEvent, StoreError, SubscriptionStore,
};
use shared::protocol::ServerFrame;
use tracing::{info, warn};

/// How long an undelivered presence message is kept (DynamoDB TTL): it is only useful
/// to a watcher who is connected right now.
pub const PRESENCE_MESSAGE_TTL_SECONDS: i64 = 60;

/// Sender of presence messages.
pub const SYSTEM_SENDER: &str = "system";

/// The id of the presence message `watcher` gets for `event`: the same for every
/// delivery of the event. Player ids cannot contain `#`, so the parts cannot run into
/// each other.
pub fn presence_message_id(event: &PresenceEvent, watcher: &PlayerId) -> MessageId {
    MessageId::deterministic(&[
        "presence",
        event.player_id.as_str(),
        event.detail_type(),
        &event.at.to_string(),
        watcher.as_str(),
    ])
}

/// What one invocation did (the function's result, for logs and tests).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    /// Presence messages written, one per watcher.
    pub notified: usize,
    /// True when the event was not a presence event and was skipped.
    pub skipped: bool,
}

pub struct PresenceEventHandler {
    subscriptions: Arc<dyn SubscriptionStore>,
    messages: Arc<dyn MessageStore>,
    clock: Arc<dyn Clock>,
}

impl PresenceEventHandler {
    pub fn new(
        subscriptions: Arc<dyn SubscriptionStore>,
        messages: Arc<dyn MessageStore>,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self {
            subscriptions,
            messages,
            clock,
        }
    }

    /// The Lambda entry point: one bus event.
    pub async fn handle(
        &self,
        event: LambdaEvent<EventBridgeEvent<Value>>,
    ) -> Result<Outcome, lambda_runtime::Error> {
        let bus_event = event.payload;
        let presence = match PresenceEvent::from_bus(&bus_event.detail_type, &bus_event.detail) {
            Ok(presence) => presence,
            Err(error) => {
                warn!(
                    event_id = bus_event.id.as_deref().unwrap_or_default(),
                    source = %bus_event.source,
                    detail_type = %bus_event.detail_type,
                    error = %error,
                    "skipping a bus event that is not a presence event"
                );
                return Ok(Outcome {
                    notified: 0,
                    skipped: true,
                });
            }
        };
        let notified = self.notify(&presence).await?;
        Ok(Outcome {
            notified,
            skipped: false,
        })
    }

    /// Writes one presence message per current watcher of the event's player; returns
    /// how many. The local stack calls this directly with the events its in-process
    /// bus carries.
    pub async fn notify(&self, event: &PresenceEvent) -> Result<usize, StoreError> {
        let now = self.clock.now_millis();
        let watchers = self.subscriptions.watchers(&event.player_id, now).await?;
        if watchers.is_empty() {
            info!(player_id = %event.player_id, change = event.detail_type(), "no watchers");
            return Ok(0);
        }
        let payload = ServerFrame::Presence {
            player_id: event.player_id.to_string(),
            status: event.kind.status().to_owned(),
            at: event.at,
        }
        .to_json();
        let expire_at_secs = now.div_euclid(1000) + PRESENCE_MESSAGE_TTL_SECONDS;
        let messages: Vec<NewMessage> = watchers
            .into_iter()
            .map(|recipient_id| NewMessage {
                message_id: presence_message_id(event, &recipient_id),
                recipient_id,
                sender_id: SYSTEM_SENDER.to_owned(),
                kind: MessageKind::Presence,
                payload: payload.clone(),
                created_at: now,
                expire_at_secs,
            })
            .collect();
        self.messages.append(&messages).await?;
        info!(
            player_id = %event.player_id,
            change = event.detail_type(),
            watchers = messages.len(),
            "presence messages written"
        );
        Ok(messages.len())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde_json::json;
    use shared::adapters::memory::{InMemoryMessageStore, InMemorySubscriptionStore};
    use shared::domain::EpochMillis;
    use shared::ports::{ManualClock, SUBSCRIPTION_TTL_SECONDS, StoredMessage};
    use shared::testing::events::parse_event;

    use super::*;

    const T0: i64 = 1_795_323_600_000;

    struct World {
        subscriptions: Arc<InMemorySubscriptionStore>,
        messages: Arc<InMemoryMessageStore>,
        handler: PresenceEventHandler,
    }

    fn world() -> World {
        let subscriptions = Arc::new(InMemorySubscriptionStore::new());
        let messages = Arc::new(InMemoryMessageStore::new());
        let handler = PresenceEventHandler::new(
            subscriptions.clone(),
            messages.clone(),
            Arc::new(ManualClock::at(T0)),
        );
        World {
            subscriptions,
            messages,
            handler,
        }
    }

    fn p(name: &str) -> PlayerId {
        PlayerId::parse(name).unwrap()
    }

    async fn watch(w: &World, watcher: &str, targets: &[&str], expire_at_secs: i64) {
        let targets: Vec<PlayerId> = targets.iter().map(|t| p(t)).collect();
        w.subscriptions
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
    async fn given_two_watchers_when_alice_connects_then_each_gets_one_short_lived_presence_message()
     {
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
        let frame =
            json!({"type": "presence", "playerId": "alice", "status": "online", "at": T0 - 5});
        assert_eq!(
            frames_by_recipient(&w.messages),
            BTreeMap::from([
                ("bob".to_owned(), vec![frame.clone()]),
                ("dave".to_owned(), vec![frame]),
            ])
        );
        for m in w.messages.all() {
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

    impl shared::adapters::memory::InsertObserver for Inserts {
        fn inserted(&self, _: &StoredMessage) {
            self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
    }

    #[tokio::test]
    async fn given_the_same_event_delivered_twice_when_handled_then_the_retry_appends_nothing_new()
    {
        let inserts = Inserts::default();
        let subscriptions = Arc::new(InMemorySubscriptionStore::new());
        let messages = Arc::new(InMemoryMessageStore::with_observer(inserts.clone()));
        let clock = ManualClock::at(T0);
        let handler = PresenceEventHandler::new(
            subscriptions.clone(),
            messages.clone(),
            Arc::new(clock.clone()),
        );
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
            frames_by_recipient(&w.messages)["bob"],
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
        assert!(w.messages.all().is_empty());
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
        assert!(w.messages.all().is_empty());
    }

    #[tokio::test]
    async fn given_the_messages_table_down_then_the_invocation_fails_so_eventbridge_retries_it() {
        let subscriptions = Arc::new(InMemorySubscriptionStore::new());
        subscriptions
            .subscribe(&p("bob"), &[p("alice")], T0 / 1000 + 600)
            .await
            .unwrap();
        let handler = PresenceEventHandler::new(
            subscriptions,
            Arc::new(shared::testing::unavailable::Unavailable),
            Arc::new(ManualClock::at(T0)),
        );
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

        let mut frames = frames_by_recipient(&w.messages).remove("bob").unwrap();
        frames.sort_by_key(|f| f["at"].as_i64());
        assert_eq!(
            frames,
            vec![
                json!({"type": "presence", "playerId": "alice", "status": "online", "at": connected_at}),
                json!({"type": "presence", "playerId": "alice", "status": "offline", "at": disconnected_at}),
            ]
        );
    }
}
