//! `on-message-inserted`: delivers new Messages items from the table's stream.
//!
//! Per batch: one `BatchGetItem` per 100 recipients, posts grouped by recipient (in
//! stream order within a recipient, recipients concurrently up to a bound), one
//! `BatchWriteItem` per 25 delivered messages to delete them. Outcomes per record:
//! - delivered → deleted;
//! - recipient offline / disconnected / unknown → kept for `resume` to replay;
//! - 410 Gone → recipient marked disconnected (only if that connection is still theirs),
//!   message kept;
//! - 429 / 5xx / timeouts → reported as a batch item failure, so Lambda retries it.
//!
//! Lambda retries a stream batch from the lowest failed record onwards, which includes
//! records after it that this invocation already delivered and deleted. So before
//! reporting failures, the handler notes on the failed recipient's item which later
//! messages were delivered (a "redelivery" marker); the retry reads that marker with the
//! recipients it looks up anyway and skips them. Normal batches pay nothing for this.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use aws_lambda_events::streams::{DynamoDbBatchItemFailure, DynamoDbEventResponse};
use futures_util::stream::{self, StreamExt};
use lambda_runtime::LambdaEvent;
use serde::Deserialize;
use serde_json::Value;
use shared::adapters::dynamodb::message_item::message_from_stream_image;
use shared::config::Config;
use shared::domain::{MessageId, PlayerId, PresenceStatus};
use shared::ports::{
    Clock, ConnectionGateway, GatewayError, MessageStore, PlayerRecord, PlayerStore, StoredMessage,
};
use tracing::{debug, info, warn};

/// How many recipients are posted to at once.
pub const DELIVERY_CONCURRENCY: usize = 64;

/// The stream event, with records kept raw so one malformed record is skipped instead
/// of failing (and endlessly retrying) the whole batch.
#[derive(Debug, Deserialize)]
pub struct StreamBatch {
    #[serde(rename = "Records", default)]
    pub records: Vec<Value>,
}

/// One record that parsed.
#[derive(Debug, Clone)]
struct Inserted {
    sequence_number: String,
    message: StoredMessage,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Delivery {
    Delivered,
    /// Kept for replay (offline, disconnected, gone, or already delivered on a retry).
    Kept,
    /// Transient failure: retry.
    Retry,
    /// Delivered by an earlier attempt of this batch.
    AlreadyDelivered,
}

pub struct MessageInsertedHandler {
    config: Arc<Config>,
    players: Arc<dyn PlayerStore>,
    messages: Arc<dyn MessageStore>,
    gateway: Arc<dyn ConnectionGateway>,
    clock: Arc<dyn Clock>,
}

impl MessageInsertedHandler {
    pub fn new(
        config: Arc<Config>,
        players: Arc<dyn PlayerStore>,
        messages: Arc<dyn MessageStore>,
        gateway: Arc<dyn ConnectionGateway>,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self {
            config,
            players,
            messages,
            gateway,
            clock,
        }
    }

    pub async fn handle(
        &self,
        event: LambdaEvent<StreamBatch>,
    ) -> Result<DynamoDbEventResponse, lambda_runtime::Error> {
        let inserted = parse_records(event.payload.records);
        let failures = self.deliver(&inserted).await?;
        let mut response = DynamoDbEventResponse::default();
        response.batch_item_failures = failures
            .into_iter()
            .map(|sequence_number| {
                let mut failure = DynamoDbBatchItemFailure::default();
                failure.item_identifier = Some(sequence_number);
                failure
            })
            .collect();
        Ok(response)
    }

    /// Delivers the batch; returns the sequence numbers to retry.
    async fn deliver(&self, batch: &[Inserted]) -> Result<Vec<String>, lambda_runtime::Error> {
        if batch.is_empty() {
            return Ok(Vec::new());
        }
        let recipients: Vec<PlayerId> = {
            let mut seen = HashSet::new();
            batch
                .iter()
                .map(|r| r.message.recipient_id.clone())
                .filter(|id| seen.insert(id.clone()))
                .collect()
        };
        let records: HashMap<PlayerId, PlayerRecord> = self
            .players
            .get_many(&recipients)
            .await?
            .into_iter()
            .map(|record| (record.player_id.clone(), record))
            .collect();

        // Markers left by an earlier attempt of this batch (see the module docs).
        let in_batch: HashSet<&MessageId> = batch.iter().map(|r| &r.message.message_id).collect();
        let mut used_markers: Vec<(PlayerId, MessageId)> = Vec::new();
        let mut already_delivered: HashSet<MessageId> = HashSet::new();
        for record in records.values() {
            for (checkpoint, delivered) in &record.redelivery {
                if in_batch.contains(checkpoint) {
                    used_markers.push((record.player_id.clone(), checkpoint.clone()));
                    already_delivered.extend(delivered.iter().cloned());
                }
            }
        }

        // Per recipient, in stream order.
        let mut by_recipient: BTreeMap<&PlayerId, Vec<usize>> = BTreeMap::new();
        for (index, record) in batch.iter().enumerate() {
            by_recipient
                .entry(&record.message.recipient_id)
                .or_default()
                .push(index);
        }
        // Built as a Vec first, not with `stream::map`: a closure taking `&PlayerId`
        // would make this future not provably `Send` (a rustc limitation with
        // higher-ranked lifetimes), and the local stack runs it on a multi-threaded
        // runtime's task.
        let deliveries: Vec<_> = by_recipient
            .into_iter()
            .map(|(recipient, indexes)| {
                let record = records.get(recipient);
                let already_delivered = &already_delivered;
                async move {
                    self.deliver_to(record, batch, indexes, already_delivered)
                        .await
                }
            })
            .collect();
        let outcomes: Vec<(usize, Delivery)> = stream::iter(deliveries)
            .buffer_unordered(DELIVERY_CONCURRENCY)
            .flat_map(stream::iter)
            .collect()
            .await;
        let mut outcome_of = vec![Delivery::Kept; batch.len()];
        for (index, outcome) in outcomes {
            outcome_of[index] = outcome;
        }

        let delivered: Vec<MessageId> = batch
            .iter()
            .zip(&outcome_of)
            .filter(|(_, o)| matches!(o, Delivery::Delivered | Delivery::AlreadyDelivered))
            .map(|(r, _)| r.message.message_id.clone())
            .collect();
        if !delivered.is_empty() {
            self.messages.delete_all(&delivered).await?;
        }

        let failed: Vec<usize> = (0..batch.len())
            .filter(|i| outcome_of[*i] == Delivery::Retry)
            .collect();
        if let Some(&first) = failed.first() {
            // Lambda resumes at `first`: remember what after it is already delivered.
            let after: Vec<MessageId> = (first + 1..batch.len())
                .filter(|i| {
                    matches!(
                        outcome_of[*i],
                        Delivery::Delivered | Delivery::AlreadyDelivered
                    )
                })
                .map(|i| batch[i].message.message_id.clone())
                .collect();
            if !after.is_empty() {
                let checkpoint = &batch[first].message;
                self.players
                    .mark_redelivery(&checkpoint.recipient_id, &checkpoint.message_id, &after)
                    .await?;
            }
            warn!(
                failed = failed.len(),
                batch = batch.len(),
                "reporting transient delivery failures for retry"
            );
        }
        for (player, checkpoint) in used_markers {
            if !failed
                .iter()
                .any(|i| batch[*i].message.message_id == checkpoint)
            {
                self.players.clear_redelivery(&player, &checkpoint).await?;
            }
        }
        let delivered_now = outcome_of
            .iter()
            .filter(|o| **o == Delivery::Delivered)
            .count();
        info!(
            records = batch.len(),
            delivered = delivered_now,
            retry = failed.len(),
            "batch processed"
        );
        Ok(failed
            .into_iter()
            .map(|i| batch[i].sequence_number.clone())
            .collect())
    }

    /// Posts one recipient's messages in order. After a transient failure the rest are
    /// retried too, so the recipient never sees them out of order.
    async fn deliver_to(
        &self,
        record: Option<&PlayerRecord>,
        batch: &[Inserted],
        indexes: Vec<usize>,
        already_delivered: &HashSet<MessageId>,
    ) -> Vec<(usize, Delivery)> {
        let mut outcomes = Vec::with_capacity(indexes.len());
        let online = record.filter(|r| r.status == PresenceStatus::Online);
        let mut state = if online.is_some() {
            Delivery::Delivered
        } else {
            Delivery::Kept
        };
        for index in indexes {
            let message = &batch[index].message;
            if already_delivered.contains(&message.message_id) {
                outcomes.push((index, Delivery::AlreadyDelivered));
                continue;
            }
            let (Some(record), Delivery::Delivered) = (online, state) else {
                outcomes.push((index, state));
                continue;
            };
            let result = self
                .gateway
                .post(
                    &record.endpoint,
                    &record.connection_id,
                    message.payload.as_bytes(),
                )
                .await;
            let outcome = match result {
                Ok(()) => Delivery::Delivered,
                Err(GatewayError::Gone) => {
                    // A stale record: the socket went away without a $disconnect.
                    let now = self.clock.now_millis();
                    let grace_until = now + self.config.reconnect_grace.as_millis() as i64;
                    if let Err(error) = self
                        .players
                        .disconnect(&record.player_id, &record.connection_id, now, grace_until)
                        .await
                    {
                        warn!(player_id = %record.player_id, error = %error, "could not mark a gone connection disconnected");
                    }
                    info!(player_id = %record.player_id, connection_id = %record.connection_id, "connection gone; message kept for replay");
                    state = Delivery::Kept;
                    Delivery::Kept
                }
                Err(GatewayError::PayloadTooLarge) => {
                    // Cannot succeed on retry; keep it out of the way rather than block.
                    warn!(player_id = %record.player_id, message_id = %message.message_id, "message too large to post; kept");
                    Delivery::Kept
                }
                Err(error) if error.is_transient() => {
                    warn!(player_id = %record.player_id, message_id = %message.message_id, error = %error, "transient delivery failure");
                    state = Delivery::Retry;
                    Delivery::Retry
                }
                Err(error) => {
                    warn!(player_id = %record.player_id, message_id = %message.message_id, error = %error, "delivery failed; message kept for replay");
                    Delivery::Kept
                }
            };
            outcomes.push((index, outcome));
        }
        outcomes
    }
}

/// INSERT records that map to a message; anything else is logged and skipped.
fn parse_records(raw: Vec<Value>) -> Vec<Inserted> {
    raw.into_iter()
        .enumerate()
        .filter_map(|(i, value)| {
            let record: aws_lambda_events::event::dynamodb::EventRecord = match serde_json::from_value(value) {
                Ok(record) => record,
                Err(error) => {
                    warn!(record = i, error = %error, "skipping a malformed stream record");
                    return None;
                }
            };
            if record.event_name != "INSERT" {
                debug!(record = i, event_name = %record.event_name, "skipping a non-INSERT record");
                return None;
            }
            let Some(sequence_number) = record.change.sequence_number.clone() else {
                warn!(record = i, "skipping a stream record without a sequence number");
                return None;
            };
            match message_from_stream_image(&record.change.new_image) {
                Ok(message) => Some(Inserted { sequence_number, message }),
                Err(error) => {
                    warn!(record = i, sequence_number, error = %error, "skipping a stream record that is not a message");
                    None
                }
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use shared::adapters::memory::{InMemoryMessageStore, InMemoryPlayerStore};
    use shared::domain::ConnectionId;
    use shared::ports::{ManualClock, MessageKind, NewConnection};
    use shared::testing::events::{parse_event, stream_insert};
    use shared::testing::recording_gateway::RecordingGateway;

    const T0: i64 = 1_795_323_600_000;

    struct World {
        players: Arc<InMemoryPlayerStore>,
        messages: Arc<InMemoryMessageStore>,
        gateway: Arc<RecordingGateway>,
        handler: MessageInsertedHandler,
    }

    fn world() -> World {
        let players = Arc::new(InMemoryPlayerStore::new());
        let messages = Arc::new(InMemoryMessageStore::new());
        let gateway = Arc::new(RecordingGateway::new());
        let handler = MessageInsertedHandler::new(
            Arc::new(Config::for_local("Development")),
            players.clone(),
            messages.clone(),
            gateway.clone(),
            Arc::new(ManualClock::at(T0)),
        );
        World {
            players,
            messages,
            gateway,
            handler,
        }
    }

    impl World {
        async fn online(&self, player: &str) {
            self.players
                .connect(&NewConnection {
                    player_id: PlayerId::parse(player).unwrap(),
                    connection_id: ConnectionId::parse(format!("conn-{player}")).unwrap(),
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

        /// Stores messages (as send-message does) and returns their stream records.
        async fn insert(&self, recipients: &[&str]) -> (Vec<StoredMessage>, Vec<Value>) {
            let stored: Vec<StoredMessage> = recipients
                .iter()
                .enumerate()
                .map(|(i, r)| {
                    let id = MessageId::generate(T0);
                    StoredMessage {
                        payload: json!({"type": "message", "messageId": id.as_str(), "n": i})
                            .to_string(),
                        message_id: id,
                        recipient_id: PlayerId::parse(*r).unwrap(),
                        sender_id: "alice".into(),
                        kind: MessageKind::Chat,
                        created_at: T0,
                        expire_at_secs: T0 / 1000 + 86_400,
                    }
                })
                .collect();
            self.messages.put_all(&stored).await.unwrap();
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

        fn stored_ids(&self) -> Vec<String> {
            self.messages
                .all()
                .iter()
                .map(|m| m.message_id.to_string())
                .collect()
        }
    }

    #[tokio::test]
    async fn given_an_online_recipient_when_the_message_is_inserted_then_it_is_posted_and_deleted()
    {
        let w = world();
        w.online("bob").await;
        let (stored, records) = w.insert(&["bob"]).await;
        assert!(w.run(records).await.is_empty());
        assert_eq!(
            w.gateway.posted_to("conn-bob"),
            vec![stored[0].payload.clone()]
        );
        assert!(w.stored_ids().is_empty());
    }

    #[tokio::test]
    async fn given_an_offline_or_unknown_recipient_then_the_message_is_kept_for_replay() {
        let w = world();
        w.online("bob").await;
        let bob = PlayerId::parse("bob").unwrap();
        let conn = ConnectionId::parse("conn-bob").unwrap();
        w.players
            .disconnect(&bob, &conn, T0, T0 + 30_000)
            .await
            .unwrap();
        let (stored, records) = w.insert(&["bob", "carol"]).await;
        assert!(w.run(records).await.is_empty());
        assert!(w.gateway.calls().is_empty());
        assert_eq!(w.messages.all(), stored);
    }

    #[tokio::test]
    async fn given_a_stale_connection_when_posting_gets_gone_then_the_message_is_kept_and_the_player_marked_disconnected()
     {
        let w = world();
        w.online("bob").await;
        w.gateway.mark_gone("conn-bob");
        let (stored, records) = w.insert(&["bob", "bob"]).await;
        assert!(w.run(records).await.is_empty(), "Gone is not retried");
        assert_eq!(w.messages.all(), stored);
        assert_eq!(
            w.gateway.posted_to("conn-bob").len(),
            1,
            "no second post to a gone socket"
        );
        let record = w
            .players
            .get(&PlayerId::parse("bob").unwrap())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(record.status, PresenceStatus::Disconnected);
    }

    #[tokio::test]
    async fn given_a_transient_failure_for_one_record_then_only_that_record_is_reported() {
        let w = world();
        for p in ["bob", "carol", "dave"] {
            w.online(p).await;
        }
        w.gateway.throttle("conn-carol");
        let (stored, records) = w.insert(&["bob", "carol", "dave"]).await;
        assert_eq!(w.run(records).await, vec!["1001".to_string()]);
        assert_eq!(
            w.stored_ids(),
            vec![stored[1].message_id.to_string()],
            "only carol's is kept"
        );
    }

    /// bob, carol and dave online, carol's posts failing with `make()`: runs one batch
    /// of a message to each and returns the reported failures.
    async fn carol_failing_with(
        make: impl Fn() -> GatewayError + Send + Sync + 'static,
    ) -> (World, Vec<StoredMessage>, Vec<String>) {
        let w = world();
        for p in ["bob", "carol", "dave"] {
            w.online(p).await;
        }
        w.gateway.fail_with("conn-carol", make);
        let (stored, records) = w.insert(&["bob", "carol", "dave"]).await;
        let failures = w.run(records).await;
        (w, stored, failures)
    }

    #[tokio::test]
    async fn given_a_server_error_for_one_record_then_only_that_record_is_reported_for_retry() {
        // Given carol's post answers 503 (the adapter maps 5xx to Unavailable)
        let (w, stored, failures) =
            carol_failing_with(|| GatewayError::Unavailable("503 Service Unavailable".into()))
                .await;

        // Then exactly carol's record is retried; bob's and dave's are delivered and gone.
        assert_eq!(failures, vec!["1001".to_string()]);
        assert_eq!(w.stored_ids(), vec![stored[1].message_id.to_string()]);
        assert_eq!(w.gateway.posted_to("conn-bob").len(), 1);
        assert_eq!(w.gateway.posted_to("conn-dave").len(), 1);
    }

    #[tokio::test]
    async fn given_a_timeout_for_one_record_then_only_that_record_is_reported_for_retry() {
        // Given carol's post times out (the adapter maps SDK and connector timeouts to
        // Unavailable)
        let (w, stored, failures) =
            carol_failing_with(|| GatewayError::Unavailable("operation timed out".into())).await;

        // Then exactly carol's record is retried; the others are delivered and gone.
        assert_eq!(failures, vec!["1001".to_string()]);
        assert_eq!(w.stored_ids(), vec![stored[1].message_id.to_string()]);
    }

    #[tokio::test]
    async fn given_a_forbidden_or_other_non_transient_error_then_the_message_is_kept_and_not_retried()
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
            let (w, stored, failures) = carol_failing_with(make).await;

            // Then nothing is reported (a retry would fail the same way), carol's message
            // waits for her resume, and she is not marked disconnected (that is 410 only).
            assert!(failures.is_empty(), "{case}: {failures:?}");
            assert_eq!(
                w.stored_ids(),
                vec![stored[1].message_id.to_string()],
                "{case}"
            );
            assert_eq!(w.gateway.posted_to("conn-carol").len(), 1, "{case}");
            let carol = w
                .players
                .get(&PlayerId::parse("carol").unwrap())
                .await
                .unwrap()
                .unwrap();
            assert_eq!(carol.status, PresenceStatus::Online, "{case}");
        }
    }

    #[tokio::test]
    async fn given_a_retried_batch_then_nothing_already_delivered_is_delivered_twice() {
        let w = world();
        for p in ["bob", "carol", "dave"] {
            w.online(p).await;
        }
        w.gateway.throttle("conn-carol");
        let (stored, records) = w.insert(&["bob", "carol", "dave"]).await;
        let failed = w.run(records.clone()).await;
        assert_eq!(failed, vec!["1001".to_string()]);

        // Lambda retries from the lowest failed record onwards: carol's and dave's.
        w.gateway.recover("conn-carol");
        assert!(w.run(records[1..].to_vec()).await.is_empty());
        assert_eq!(
            w.gateway.posted_to("conn-dave"),
            vec![stored[2].payload.clone()],
            "dave once"
        );
        assert_eq!(w.gateway.posted_to("conn-bob").len(), 1);
        let carol_posts = w.gateway.posted_to("conn-carol");
        assert_eq!(
            carol_posts.last(),
            Some(&stored[1].payload),
            "carol finally gets hers"
        );
        assert!(w.stored_ids().is_empty());
        let carol = w
            .players
            .get(&PlayerId::parse("carol").unwrap())
            .await
            .unwrap()
            .unwrap();
        assert!(
            carol.redelivery.is_empty(),
            "the marker is cleared once used"
        );
    }

    #[tokio::test]
    async fn given_a_transient_failure_then_later_messages_to_the_same_recipient_wait_to_keep_order()
     {
        let w = world();
        w.online("bob").await;
        w.gateway.throttle("conn-bob");
        let (_, records) = w.insert(&["bob", "bob"]).await;
        assert_eq!(
            w.run(records).await,
            vec!["1000".to_string(), "1001".to_string()]
        );
        assert_eq!(
            w.gateway.posted_to("conn-bob").len(),
            1,
            "the second was not attempted"
        );
    }

    #[tokio::test]
    async fn given_malformed_and_non_insert_records_then_they_are_skipped_and_the_rest_delivered() {
        let w = world();
        w.online("bob").await;
        let (_, mut records) = w.insert(&["bob"]).await;
        let mut remove = records[0].clone();
        remove["eventName"] = json!("REMOVE");
        let mut no_payload = records[0].clone();
        no_payload["dynamodb"]["NewImage"]
            .as_object_mut()
            .unwrap()
            .remove("payload");
        records.extend([
            remove,
            no_payload,
            json!("not a record"),
            json!({"eventName": 5}),
        ]);
        assert!(w.run(records).await.is_empty());
        assert_eq!(w.gateway.posted_to("conn-bob").len(), 1);
    }

    #[tokio::test]
    async fn the_sample_stream_events_are_handled() {
        let w = world();
        w.online("bob").await;
        w.online("carol").await;
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
            assert_eq!(w.gateway.calls().len() - before, posts);
        }
    }
}
