//! `on-message-inserted`: live delivery from the Messages table's stream.
//!
//! Per batch: one `BatchGetItem` per 100 recipients, then each recipient's messages
//! posted in seq order (recipients concurrently, up to a bound) to their live
//! connection: the one that completed `resume`'s hand-over, and only messages after the
//! seq that hand-over's replay reached (`liveFrom`). Nothing is deleted: a message stays
//! in its inbox until its TTL, and `resume` replays what a client reports it has not
//! processed (shared/src/messaging/mod.rs). Outcomes per record:
//! - posted → done (the client may still lose it on a dying socket: that is what the
//!   cursor on `resume` is for);
//! - no live connection (offline, disconnected, or still before its `resume`), or
//!   already replayed → done: `resume` replays it;
//! - 410 Gone from the live connection → the player is marked disconnected (only if
//!   that connection is still theirs); the rest of their messages wait for `resume`;
//! - 429 / 5xx / timeouts → reported as a batch item failure so Lambda retries from it;
//!   the recipient's later messages are reported too, so none overtakes it.
//!
//! A retried batch posts again what the first attempt posted after the failed record:
//! at-least-once, and clients ignore a `seq` they have already processed.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

/// The payload, as the Messages stream's adapter decodes it into typed messages.
pub use aws_adapters::dynamodb::message_stream::{BatchRecord, StreamBatch, StreamedMessage};
use aws_lambda_events::streams::{DynamoDbBatchItemFailure, DynamoDbEventResponse};
use futures_util::stream::{self, StreamExt};
use lambda_runtime::LambdaEvent;
use shared::config::Config;
use shared::domain::{EpochMillis, PlayerId};
use shared::metrics::Delivery as Metric;
use shared::players::PlayerRecord;
use shared::ports::{Clock, ConnectionGateway, Connections, GatewayError, PlayerLookup};
use shared::telemetry::ErrorChain;
use tracing::{debug, info, warn};

#[cfg(test)]
mod tests;

/// How many recipients are posted to at once.
pub const DELIVERY_CONCURRENCY: usize = 64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Delivery {
    Posted,
    /// Not posted live; `resume` replays it (no live connection, already replayed, the
    /// connection is gone, or a failure a retry cannot fix).
    LeftForResume,
    /// Transient failure: retry.
    Retry,
}

shared::wired! {
    /// `on-message-inserted` as every deployment builds it.
    pub fn wire(w) -> pub struct MessageInsertedHandler {
        config: Arc<Config> = w.config.clone(),
        /// The recipients' records: who is live, on which connection.
        players: Arc<dyn PlayerLookup> = w.stores.player_lookup(),
        /// A live connection found gone is marked disconnected.
        connections: Arc<dyn Connections> = w.stores.connections(),
        gateway: Arc<dyn ConnectionGateway> = w.services.connection_gateway(),
        clock: Arc<dyn Clock> = w.clock.clone(),
    }
}

impl MessageInsertedHandler {
    pub async fn handle(
        &self,
        event: LambdaEvent<StreamBatch>,
    ) -> Result<DynamoDbEventResponse, lambda_runtime::Error> {
        let records = event.payload.records.len();
        let inserted = event.payload.messages();
        let failures = (self.deliver(&inserted).await)
            .inspect_err(|_| shared::metrics::stream_batch(records, records))?;
        shared::metrics::stream_batch(records, failures.len());
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

    /// Delivers the batch; returns the sequence numbers to retry. A store that cannot
    /// say who is live fails the whole batch (Lambda retries it).
    async fn deliver(
        &self,
        batch: &[StreamedMessage],
    ) -> Result<Vec<String>, lambda_runtime::Error> {
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

        // Per recipient, in seq order (the stream's order for one inbox already).
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
            .into_values()
            .map(|mut indexes| {
                indexes.sort_by_key(|i| batch[*i].message.seq);
                let record = records.get(&batch[indexes[0]].message.recipient_id);
                async move { self.deliver_to(record, batch, indexes).await }
            })
            .collect();
        let outcomes: Vec<(usize, Delivery)> = stream::iter(deliveries)
            .buffer_unordered(DELIVERY_CONCURRENCY)
            .flat_map(stream::iter)
            .collect()
            .await;
        let mut outcome_of = vec![Delivery::LeftForResume; batch.len()];
        for (index, outcome) in outcomes {
            outcome_of[index] = outcome;
        }
        let count = |wanted: Delivery| outcome_of.iter().filter(|o| **o == wanted).count();
        let (posted, retry) = (count(Delivery::Posted), count(Delivery::Retry));
        if retry > 0 {
            warn!(
                retry,
                batch = batch.len(),
                "reporting transient delivery failures for retry"
            );
        }
        debug!(records = batch.len(), posted, retry, "batch processed");
        Ok(batch
            .iter()
            .zip(&outcome_of)
            .filter(|(_, outcome)| **outcome == Delivery::Retry)
            .map(|(record, _)| record.sequence_number.clone())
            .collect())
    }

    /// Posts one recipient's messages in seq order to their live connection. After a
    /// transient failure the rest are retried too, so the recipient never sees them out
    /// of order; after Gone the rest wait for `resume`.
    async fn deliver_to(
        &self,
        record: Option<&PlayerRecord>,
        batch: &[StreamedMessage],
        indexes: Vec<usize>,
    ) -> Vec<(usize, Delivery)> {
        let mut outcomes = Vec::with_capacity(indexes.len());
        let mut stopped: Option<Delivery> = None;
        for index in indexes {
            let message = &batch[index].message;
            if let Some(outcome) = stopped {
                shared::metrics::delivery(match outcome {
                    Delivery::Retry => Metric::Failed,
                    _ => Metric::Offline,
                });
                outcomes.push((index, outcome));
                continue;
            }
            let Some(record) = record.filter(|r| r.delivers_live(message.seq)) else {
                shared::metrics::delivery(Metric::Offline);
                outcomes.push((index, Delivery::LeftForResume));
                continue;
            };
            let kicked = message.kicks();
            if kicked
                .as_ref()
                .is_some_and(|target| target != record.connection_id.as_str())
            {
                // A kick for an earlier connection: this one is not kicked.
                debug!(player_id = %record.player_id, seq = %message.seq, "stale kick skipped");
                shared::metrics::delivery(Metric::Offline);
                outcomes.push((index, Delivery::LeftForResume));
                continue;
            }
            let result = self
                .gateway
                .post(
                    &record.endpoint,
                    &record.connection_id,
                    message.frame().as_bytes(),
                )
                .await;
            self.count_post(&result, &batch[index]);
            let outcome = match result {
                Ok(()) if kicked.is_some() => {
                    // The frame first, then the close: the rest waits for the
                    // player's next connection (or is retried with the kick).
                    let closed = self.close_kicked(record).await;
                    stopped = Some(match closed {
                        Delivery::Retry => Delivery::Retry,
                        _ => Delivery::LeftForResume,
                    });
                    closed
                }
                Ok(()) => Delivery::Posted,
                Err(GatewayError::Gone) => {
                    // The live connection closed without (or before) its $disconnect:
                    // it did complete `resume`, so it was open, and is gone for good.
                    self.mark_gone(record).await;
                    stopped = Some(Delivery::LeftForResume);
                    Delivery::LeftForResume
                }
                Err(error) if error.is_transient() => {
                    warn!(player_id = %record.player_id, seq = %message.seq, error = %ErrorChain(&error), "transient delivery failure");
                    stopped = Some(Delivery::Retry);
                    Delivery::Retry
                }
                Err(error) => {
                    // 403, 413, 400: a retry fails the same way; the message stays in
                    // the inbox for `resume`.
                    warn!(player_id = %record.player_id, seq = %message.seq, error = %ErrorChain(&error), "delivery failed; left for resume");
                    Delivery::LeftForResume
                }
            };
            outcomes.push((index, outcome));
        }
        outcomes
    }

    /// One post's outcome, and a posted frame's lag from its insert.
    fn count_post(&self, result: &Result<(), GatewayError>, inserted: &StreamedMessage) {
        shared::metrics::delivery(match result {
            Ok(()) => Metric::Posted,
            Err(GatewayError::Gone) => Metric::Gone,
            Err(_) => Metric::Failed,
        });
        if result.is_ok() {
            shared::metrics::delivery_lag(self.clock.now_millis() - inserted_at(inserted));
        }
    }

    /// Closes a connection its kick frame was just posted to. A transient failure
    /// retries the record (the frame is posted again: clients ignore a seq they have).
    async fn close_kicked(&self, record: &PlayerRecord) -> Delivery {
        match self
            .gateway
            .delete(&record.endpoint, &record.connection_id)
            .await
        {
            Ok(()) | Err(GatewayError::Gone) => {
                info!(player_id = %record.player_id, connection_id = %record.connection_id, "connection ended by the backend");
                Delivery::Posted
            }
            Err(error) if error.is_transient() => {
                warn!(player_id = %record.player_id, error = %ErrorChain(&error), "could not close a kicked connection; retrying");
                Delivery::Retry
            }
            Err(error) => {
                warn!(player_id = %record.player_id, error = %ErrorChain(&error), "could not close a kicked connection");
                Delivery::Posted
            }
        }
    }

    /// Starts the grace period of a player whose live connection is gone.
    async fn mark_gone(&self, record: &PlayerRecord) {
        let now = self.clock.now_millis();
        let grace_until = now + self.config.reconnect_grace.as_millis() as i64;
        match self
            .connections
            .disconnect(&record.player_id, &record.connection_id, now, grace_until)
            .await
        {
            Ok(marked) => {
                info!(player_id = %record.player_id, connection_id = %record.connection_id, marked, "live connection gone; the rest waits for resume")
            }
            Err(error) => {
                warn!(player_id = %record.player_id, error = %ErrorChain(&error), "could not mark a gone connection disconnected")
            }
        }
    }
}

/// When a message was written: the later of the stream's timestamp (rounded down to the
/// second) and the writer's `createdAt` (milliseconds, taken just before the write).
fn inserted_at(inserted: &StreamedMessage) -> EpochMillis {
    inserted.message.created_at.max(inserted.streamed_at)
}
