use contracts::events::{parse_event, stream_insert};
use contracts::fixtures::{T0, connected, connection_of, inbox, player, player_record};
use contracts::recording_gateway::{GatewayCall, RecordingGateway};
use memory_adapters::test_wiring::TestWiring;
use memory_adapters::{InMemoryDeliveryHandover, InMemoryMessageStore, InMemoryPlayerStore};
use serde_json::{Value, json};
use shared::domain::{MessageId, PresenceStatus, Seq};
use shared::messaging::{
    Handover, HandoverOutcome, MessageKind, NewMessage, ReplayFrom, StoredMessage,
};
use shared::ports::{DeliveryHandover, MessageStore};

use super::*;
use contracts::ports::*;

struct World {
    players: Arc<InMemoryPlayerStore>,
    messages: Arc<InMemoryMessageStore>,
    handover: Arc<InMemoryDeliveryHandover>,
    gateway: Arc<RecordingGateway>,
    handler: MessageInsertedHandler,
}

fn world() -> World {
    let w = TestWiring::new();
    World {
        handler: wire(&w.wiring()),
        handover: w.tables.handover.clone(),
        players: w.tables.players.clone(),
        messages: w.tables.messages.clone(),
        gateway: w.gateway.clone(),
    }
}

impl World {
    /// Connects `name` on `c-<name>` without the hand-over `resume` makes: a connection
    /// that is still opening, or that has not sent `resume` yet.
    async fn connected(&self, name: &str) {
        connected(&*self.players, name, connection_of(name).as_str(), T0).await;
    }

    /// Connects `name` and hands the connection over to live delivery from the
    /// inbox's current head, as `resume` does after replaying.
    async fn live(&self, name: &str) {
        self.connected(name).await;
        let read = self
            .messages
            .read(&player(name), &ReplayFrom::EVERYTHING, T0)
            .await
            .unwrap();
        let outcome = self
            .handover
            .go_live(&Handover {
                player: player(name),
                connection: connection_of(name),
                head: read.head,
                epoch: read.epoch,
                acked: None,
            })
            .await
            .unwrap();
        assert_eq!(outcome, HandoverOutcome::Live);
    }

    /// Appends one message to each recipient (as send-message does) and returns them as
    /// stored, with their stream records (sequence numbers 1000, 1001, ...).
    async fn insert(&self, recipients: &[&str]) -> (Vec<StoredMessage>, Vec<Value>) {
        let mut stored = Vec::new();
        for (i, recipient) in recipients.iter().enumerate() {
            let id = MessageId::generate(T0);
            let message = NewMessage {
                payload: json!({"type": "message", "messageId": id.as_str(), "n": i}).to_string(),
                message_id: id,
                recipient_id: player(recipient),
                sender_id: "alice".into(),
                kind: MessageKind::Chat,
                created_at: T0,
                expire_at_secs: T0 / 1000 + 86_400,
            };
            stored.push(self.appended(message).await);
        }
        let records = stored
            .iter()
            .enumerate()
            .map(|(i, m)| stream_insert(m, &format!("{}", 1000 + i)))
            .collect();
        (stored, records)
    }

    async fn run(&self, records: Vec<Value>) -> Vec<String> {
        let event = parse_event(json!({ "Records": records }));
        let response = self.handler.handle(event).await.unwrap();
        response
            .batch_item_failures
            .into_iter()
            .map(|f| f.item_identifier.unwrap())
            .collect()
    }

    async fn status(&self, name: &str) -> PresenceStatus {
        player_record(&*self.players, name).await.status
    }
}

fn frames(messages: &[&StoredMessage]) -> Vec<String> {
    messages.iter().map(|m| m.frame()).collect()
}

#[tokio::test]
async fn given_a_live_recipient_when_a_message_is_inserted_then_it_is_posted_with_its_seq() {
    let w = world();
    w.live("bob").await;
    let (stored, records) = w.insert(&["bob"]).await;
    assert!(w.run(records).await.is_empty());
    let posted = w.gateway.posted_to("c-bob");
    assert_eq!(posted, frames(&[&stored[0]]));
    let frame: Value = serde_json::from_str(&posted[0]).unwrap();
    assert_eq!(frame["seq"], json!(stored[0].seq.get()));
    assert_eq!(frame["type"], "message");
    assert_eq!(w.messages.all().len(), 1, "nothing is deleted on delivery");
}

#[tokio::test]
async fn given_a_connection_that_has_not_sent_resume_then_nothing_is_posted_and_it_stays_online() {
    // Given bob's new connection is open (or still opening) but has not resumed
    let w = world();
    w.connected("bob").await;
    // And the socket is not reachable yet (API Gateway answers 410 before $connect returns)
    w.gateway.mark_gone("c-bob");

    // When a message for bob is inserted
    let (_, records) = w.insert(&["bob"]).await;
    assert!(w.run(records).await.is_empty());

    // Then nothing is posted, and bob is not taken for gone: resume will replay it
    assert!(w.gateway.calls().is_empty());
    assert_eq!(w.status("bob").await, PresenceStatus::Online);
}

#[tokio::test]
async fn given_messages_the_resume_already_replayed_then_live_delivery_skips_them() {
    // Given two messages in bob's inbox, then bob's resume replays them and goes live
    let w = world();
    w.connected("bob").await;
    let (replayed, records) = w.insert(&["bob", "bob"]).await;
    w.live("bob").await;
    let (later, later_records) = w.insert(&["bob"]).await;

    // When the stream delivers all three (it lags behind the resume)
    let mut all = records;
    all.extend(later_records);
    assert!(w.run(all).await.is_empty());

    // Then only the one after the replay is posted live
    assert_eq!(replayed.len(), 2);
    assert_eq!(w.gateway.posted_to("c-bob"), frames(&[&later[0]]));
}

#[tokio::test]
async fn given_an_offline_or_unknown_recipient_then_nothing_is_posted() {
    let w = world();
    w.live("bob").await;
    w.players
        .disconnect(&player("bob"), &connection_of("bob"), T0, T0 + 30_000)
        .await
        .unwrap();
    let (_, records) = w.insert(&["bob", "carol"]).await;
    assert!(w.run(records).await.is_empty());
    assert!(w.gateway.calls().is_empty());
    assert_eq!(w.messages.all().len(), 2);
}

#[tokio::test]
async fn given_a_player_who_connected_again_elsewhere_then_the_old_live_connection_gets_nothing() {
    // Given bob is live on c-bob, then connects again on c-bob-2 (not resumed yet)
    let w = world();
    w.live("bob").await;
    connected(&*w.players, "bob", "c-bob-2", T0 + 1).await;
    let (_, records) = w.insert(&["bob"]).await;
    assert!(w.run(records).await.is_empty());
    assert!(w.gateway.calls().is_empty(), "neither socket is posted to");
}

#[tokio::test]
async fn given_the_live_connection_is_gone_then_the_player_is_marked_disconnected_and_the_rest_wait()
 {
    let w = world();
    w.live("bob").await;
    w.gateway.mark_gone("c-bob");
    let (_, records) = w.insert(&["bob", "bob"]).await;
    assert!(w.run(records).await.is_empty(), "Gone is not retried");
    assert_eq!(
        w.gateway.posted_to("c-bob").len(),
        1,
        "no second post to a gone socket"
    );
    assert_eq!(w.status("bob").await, PresenceStatus::Disconnected);
}

#[tokio::test]
async fn given_records_of_one_recipient_out_of_order_then_they_are_posted_in_seq_order() {
    let w = world();
    w.live("bob").await;
    let (stored, mut records) = w.insert(&["bob", "bob", "bob"]).await;
    records.reverse();
    assert!(w.run(records).await.is_empty());
    assert_eq!(
        w.gateway.posted_to("c-bob"),
        frames(&[&stored[0], &stored[1], &stored[2]])
    );
}

/// bob, carol and dave live, carol's posts failing with `make()`: runs one batch of a
/// message to each and returns the reported failures.
async fn carol_failing_with(
    make: impl Fn() -> GatewayError + Send + Sync + 'static,
) -> (World, Vec<StoredMessage>, Vec<String>) {
    let w = world();
    for p in ["bob", "carol", "dave"] {
        w.live(p).await;
    }
    w.gateway.fail_with("c-carol", make);
    let (stored, records) = w.insert(&["bob", "carol", "dave"]).await;
    let failures = w.run(records).await;
    (w, stored, failures)
}

#[tokio::test]
async fn given_a_transient_failure_for_one_record_then_only_that_record_is_reported_for_retry() {
    type Make = fn() -> GatewayError;
    let cases: [(&str, Make); 3] = [
        ("429", || GatewayError::LimitExceeded),
        ("503", || {
            GatewayError::Unavailable("503 Service Unavailable".into())
        }),
        ("timeout", || {
            GatewayError::Unavailable("operation timed out".into())
        }),
    ];
    for (case, make) in cases {
        let (w, _, failures) = carol_failing_with(make).await;
        assert_eq!(failures, vec!["1001".to_string()], "{case}");
        assert_eq!(w.gateway.posted_to("c-bob").len(), 1, "{case}");
        assert_eq!(w.gateway.posted_to("c-dave").len(), 1, "{case}");
        assert_eq!(w.status("carol").await, PresenceStatus::Online, "{case}");
    }
}

#[tokio::test]
async fn given_a_forbidden_or_other_non_transient_error_then_it_is_left_for_resume_and_not_retried()
{
    type Make = fn() -> GatewayError;
    let cases: [(&str, Make); 3] = [
        ("403", || GatewayError::Forbidden("403 Forbidden".into())),
        ("400", || {
            GatewayError::Other("400 Invalid connectionId".into())
        }),
        ("413", || GatewayError::PayloadTooLarge),
    ];
    for (case, make) in cases {
        // Given carol's post fails in a way a retry cannot fix
        let (w, _, failures) = carol_failing_with(make).await;

        // Then nothing is reported (a retry would fail the same way), carol's message
        // waits in her inbox, and she is not marked disconnected (that is 410 only).
        assert!(failures.is_empty(), "{case}: {failures:?}");
        assert_eq!(w.gateway.posted_to("c-carol").len(), 1, "{case}");
        assert_eq!(w.status("carol").await, PresenceStatus::Online, "{case}");
    }
}

#[tokio::test]
async fn given_a_retried_batch_then_the_failed_recipient_gets_hers_at_least_once() {
    let w = world();
    for p in ["bob", "carol", "dave"] {
        w.live(p).await;
    }
    w.gateway.throttle("c-carol");
    let (stored, records) = w.insert(&["bob", "carol", "dave"]).await;
    assert_eq!(w.run(records.clone()).await, vec!["1001".to_string()]);

    // Lambda retries from the lowest failed record onwards: carol's and dave's.
    w.gateway.recover("c-carol");
    assert!(w.run(records[1..].to_vec()).await.is_empty());
    assert_eq!(
        w.gateway.posted_to("c-carol").last(),
        Some(&stored[1].frame())
    );
    // dave's was posted by both attempts: at least once, with the same seq, which the
    // client ignores the second time.
    assert_eq!(
        w.gateway.posted_to("c-dave"),
        frames(&[&stored[2], &stored[2]])
    );
}

#[tokio::test]
async fn given_a_transient_failure_then_later_messages_to_the_same_recipient_wait_to_keep_order() {
    let w = world();
    w.live("bob").await;
    w.gateway.throttle("c-bob");
    let (_, records) = w.insert(&["bob", "bob"]).await;
    assert_eq!(
        w.run(records).await,
        vec!["1000".to_string(), "1001".to_string()]
    );
    assert_eq!(
        w.gateway.posted_to("c-bob").len(),
        1,
        "the second was not attempted"
    );
}

#[tokio::test]
async fn given_malformed_non_insert_and_epoch_item_records_then_they_are_skipped_and_the_rest_delivered()
 {
    let w = world();
    w.live("bob").await;
    let (_, mut records) = w.insert(&["bob"]).await;
    let mut remove = records[0].clone();
    remove["eventName"] = json!("REMOVE");
    let mut no_payload = records[0].clone();
    no_payload["dynamodb"]["NewImage"]
        .as_object_mut()
        .unwrap()
        .remove("payload");
    let mut epoch_item = records[0].clone();
    epoch_item["dynamodb"]["NewImage"] = json!({
        "recipientId": {"S": "bob"}, "seq": {"N": "0"}, "epoch": {"N": "5"}, "expireAt": {"N": "5"}
    });
    records.extend([
        remove,
        no_payload,
        epoch_item,
        json!("not a record"),
        json!({"eventName": 5}),
    ]);
    assert!(w.run(records).await.is_empty());
    assert_eq!(w.gateway.posted_to("c-bob").len(), 1);
}

#[tokio::test]
async fn the_sample_stream_events_are_handled() {
    let w = world();
    w.live("bob").await;
    w.live("carol").await;
    for (file, posts) in [
        (include_str!("../../../events/stream-insert-single.json"), 1),
        (include_str!("../../../events/stream-insert-batch.json"), 3),
        (include_str!("../../../events/stream-remove.json"), 0),
        (include_str!("../../../events/stream-malformed.json"), 0),
    ] {
        let before = w.gateway.calls().len();
        let event = parse_event(serde_json::from_str(file).unwrap());
        let response = w.handler.handle(event).await.unwrap();
        assert!(response.batch_item_failures.is_empty());
        assert_eq!(w.gateway.calls().len() - before, posts, "{file}");
    }
    let seq = Seq::new(179_532_360_000_000).unwrap();
    let first: Value = serde_json::from_str(&w.gateway.posted_to("c-bob")[0]).unwrap();
    assert_eq!(first["seq"], json!(seq.get()));
}

impl World {
    /// Appends a backend kick of `connection` to `name`'s inbox; returns it as stored
    /// with its stream record (sequence number `sequence`).
    async fn kick(&self, name: &str, connection: &str, sequence: &str) -> (StoredMessage, Value) {
        let stored = self
            .appended(NewMessage {
                payload: kick_frame("server restarting", connection),
                message_id: MessageId::generate(T0),
                recipient_id: player(name),
                sender_id: "game-server".into(),
                kind: MessageKind::Kick,
                created_at: T0,
                expire_at_secs: T0 / 1000 + 86_400,
            })
            .await;
        let record = stream_insert(&stored, sequence);
        (stored, record)
    }

    /// Appends `message` to its recipient's inbox; returns it as stored (with its seq).
    async fn appended(&self, message: NewMessage) -> StoredMessage {
        let recipient = message.recipient_id.clone();
        self.messages.append(&[message]).await.unwrap();
        inbox(&*self.messages, recipient.as_str(), T0)
            .await
            .pop()
            .unwrap()
    }
}

/// The kick frame the backend API stores.
fn kick_frame(reason: &str, connection: &str) -> String {
    shared::frames::ServerFrame::DisconnectedByServer {
        reason: reason.into(),
        connection_id: connection.into(),
    }
    .to_json()
}

#[tokio::test]
async fn given_a_live_player_when_a_kick_of_their_connection_is_inserted_then_the_frame_is_posted_and_then_the_socket_closed()
 {
    // Given bob is live on c-bob
    let w = world();
    w.live("bob").await;
    // When the backend's kick of c-bob arrives, followed by a message in the same batch
    let (kick, kick_record) = w.kick("bob", "c-bob", "900").await;
    let (_, records) = w.insert(&["bob"]).await;
    let mut batch = vec![kick_record];
    batch.extend(records);
    assert!(w.run(batch).await.is_empty());

    // Then the frame went first, then the close; the later message waits for resume
    let calls = w.gateway.calls();
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert!(
        matches!(&calls[0], GatewayCall::Post { connection, data, .. } if connection == "c-bob" && *data == kick.frame()),
        "{calls:?}"
    );
    assert!(
        matches!(&calls[1], GatewayCall::Delete { connection, .. } if connection == "c-bob"),
        "{calls:?}"
    );
    let frame: Value = serde_json::from_str(&kick.frame()).unwrap();
    assert_eq!(frame["type"], "disconnected_by_server");
    assert_eq!(frame["reason"], "server restarting");
}

#[tokio::test]
async fn given_a_kick_of_an_earlier_connection_when_the_player_is_live_on_a_new_one_then_it_is_not_kicked()
 {
    // Given bob is live on c-bob
    let w = world();
    w.live("bob").await;
    // When a kick of another (earlier) connection of his is inserted
    let (_, record) = w.kick("bob", "c-bob-old", "900").await;
    assert!(w.run(vec![record]).await.is_empty());
    // Then nothing is posted or closed
    assert!(w.gateway.calls().is_empty());
}

#[tokio::test]
async fn given_a_kick_whose_close_is_throttled_then_it_and_the_players_later_messages_are_retried()
{
    // Given bob is live, and closing his socket is throttled
    let w = world();
    w.live("bob").await;
    w.gateway.throttle_deletes("c-bob");
    let (_, kick) = w.kick("bob", "c-bob", "900").await;
    let (_, later) = w.insert(&["bob"]).await;

    // When the batch is delivered
    let mut batch = vec![kick];
    batch.extend(later);
    let failures = w.run(batch).await;

    // Then the kick and what follows it are retried (the frame will be posted again:
    // clients ignore a seq they have), nothing after the kick was posted
    assert_eq!(failures, vec!["900".to_owned(), "1000".to_owned()]);
    assert_eq!(w.gateway.posted_to("c-bob").len(), 1);
}
