//! The event source mapping, emulated: stream records in, batches of the real
//! `on-message-inserted` handler out, with Lambda's retry semantics. Both stream modes
//! (the in-memory store's inserts, DynamoDB Streams) push records into the same
//! [`Feeder`], so batching and retries exist once.
//!
//! - **Partitions** (like `ParallelizationFactor`): a record goes to partition
//!   `hash(partition key) % N`, the key being the item's partition key (`recipientId`,
//!   the inbox), as Lambda keeps a parallelized shard in order per partition key.
//!   Within a partition, records keep their order; partitions run concurrently.
//! - **Batches**: a partition's worker invokes the handler as soon as at least one record
//!   is there (`MaximumBatchingWindowInSeconds: 0`), with every record available at that
//!   moment, up to the batch size.
//! - **Partial failures** (`ReportBatchItemFailures`): the next invocation starts at the
//!   failed record that comes first in the batch (the lowest sequence number): that
//!   record and every later one of the batch are re-invoked (topped up with new records
//!   up to the batch size); the records before it are done. A failure naming no record,
//!   or one that is not in the batch, fails the whole batch, as in Lambda.
//! - **Function errors** (`Err`, a panic, or the function timeout): the batch is split
//!   in two and its first half retried at once (`BisectBatchOnFunctionError`; a split is
//!   not a retry); a single record is retried whole.
//! - **Retries** back off (100 ms doubling to 5 s by default) and stop after
//!   `MaximumRetryAttempts` failed retries of the same record: the failed records of the
//!   batch are then logged at error level with their contents (what the on-failure
//!   destination would get) and skipped. Their messages stay in the Messages table, so
//!   `resume` still replays them. A retry that gets past the failed record starts the
//!   count again.
//!
//! The defaults match the template's `MessagesStreamMapping` (BatchSize 100,
//! ParallelizationFactor 4, MaximumRetryAttempts 10, function timeout 30 s).

use std::collections::VecDeque;
use std::hash::Hasher;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use async_trait::async_trait;
use aws_lambda_events::streams::DynamoDbEventResponse;
use futures_util::FutureExt;
use lambda_runtime::{Context, LambdaEvent};
use on_message_inserted::{BatchRecord, MessageInsertedHandler, StreamBatch};
use serde_json::Value;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;

use super::record::StreamRecord;
pub use super::stats::{StreamStats, StreamStatsSnapshot};
use crate::ids;

/// The function the batches stand for (logs and the context's ARN).
pub const FUNCTION_NAME: &str = "on-message-inserted";

/// A stream consumer: `on-message-inserted`, or a stand-in in tests.
#[async_trait]
pub trait StreamHandler: Send + Sync {
    async fn handle(
        &self,
        event: LambdaEvent<StreamBatch>,
    ) -> Result<DynamoDbEventResponse, lambda_runtime::Error>;
}

#[async_trait]
impl StreamHandler for MessageInsertedHandler {
    async fn handle(
        &self,
        event: LambdaEvent<StreamBatch>,
    ) -> Result<DynamoDbEventResponse, lambda_runtime::Error> {
        MessageInsertedHandler::handle(self, event).await
    }
}

/// The mapping's settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FeederConfig {
    /// Concurrent partitions (at least 1).
    pub partitions: usize,
    /// Most records per invocation (at least 1).
    pub batch_size: usize,
    /// Failed retries of a record before its batch is skipped; `None`: retry forever.
    pub max_retry_attempts: Option<u32>,
    /// The wait before the first retry; it doubles up to `max_backoff`.
    pub initial_backoff: Duration,
    pub max_backoff: Duration,
    /// An invocation running longer fails (and is retried).
    pub function_timeout: Duration,
}

impl Default for FeederConfig {
    fn default() -> Self {
        Self {
            partitions: 4,
            batch_size: 100,
            max_retry_attempts: Some(10),
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(5),
            function_timeout: Duration::from_secs(30),
        }
    }
}

impl FeederConfig {
    /// The wait before retry number `attempt` (1-based).
    pub fn backoff(&self, attempt: u32) -> Duration {
        let factor = 1u32 << attempt.saturating_sub(1).min(20);
        self.initial_backoff
            .saturating_mul(factor)
            .min(self.max_backoff)
    }
}

/// Where records enter the mapping. Cheap to clone; usable from any thread (no `.await`).
#[derive(Clone)]
pub struct FeederInput {
    partitions: Arc<[mpsc::UnboundedSender<StreamRecord>]>,
    stats: Arc<StreamStats>,
}

impl FeederInput {
    /// Queues `record` on the partition of `partition_key` (the item key). False once
    /// the mapping has stopped (the record is then not delivered from the stream; its
    /// message stays in the table for `resume`).
    pub fn push(&self, partition_key: &str, record: StreamRecord) -> bool {
        let partition = partition_of(partition_key, self.partitions.len());
        StreamStats::add(&self.stats.received, 1);
        if self.partitions[partition].send(record).is_ok() {
            true
        } else {
            StreamStats::add(&self.stats.completed, 1);
            false
        }
    }

    pub fn partitions(&self) -> usize {
        self.partitions.len()
    }

    pub fn stats(&self) -> &Arc<StreamStats> {
        &self.stats
    }
}

/// FNV-1a: stable across runs and cheap for short keys.
fn partition_of(key: &str, partitions: usize) -> usize {
    struct Fnv(u64);
    impl Hasher for Fnv {
        fn finish(&self) -> u64 {
            self.0
        }
        fn write(&mut self, bytes: &[u8]) {
            for byte in bytes {
                self.0 = (self.0 ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3);
            }
        }
    }
    let mut hasher = Fnv(0xcbf2_9ce4_8422_2325);
    hasher.write(key.as_bytes());
    (hasher.finish() % partitions.max(1) as u64) as usize
}

/// The mapping before it runs: records may be pushed already (they wait).
pub struct Feeder {
    input: FeederInput,
    pub(super) receivers: Vec<mpsc::UnboundedReceiver<StreamRecord>>,
}

impl Feeder {
    pub fn new(partitions: usize) -> Self {
        let (senders, receivers): (Vec<_>, Vec<_>) = (0..partitions.max(1))
            .map(|_| mpsc::unbounded_channel())
            .unzip();
        Self {
            input: FeederInput {
                partitions: senders.into(),
                stats: Arc::default(),
            },
            receivers,
        }
    }

    pub fn input(&self) -> FeederInput {
        self.input.clone()
    }

    /// One worker per partition, until `shutdown` turns true (a batch in flight
    /// finishes first; records still queued are left, their messages stay in the table).
    pub fn start(
        self,
        handler: Arc<dyn StreamHandler>,
        config: FeederConfig,
        shutdown: watch::Receiver<bool>,
    ) -> FeederTask {
        let config = Arc::new(config);
        let workers = self
            .receivers
            .into_iter()
            .enumerate()
            .map(|(index, receiver)| {
                let worker = Partition {
                    index,
                    receiver,
                    pending: VecDeque::with_capacity(config.batch_size.max(1)),
                    handler: handler.clone(),
                    config: config.clone(),
                    stats: self.input.stats.clone(),
                };
                tokio::spawn(worker.run(shutdown.clone()))
            })
            .collect();
        FeederTask { workers }
    }
}

/// The running workers.
pub struct FeederTask {
    workers: Vec<JoinHandle<()>>,
}

impl FeederTask {
    /// Waits for every worker to stop (after the shutdown signal), at most `limit`.
    pub async fn join(self, limit: Duration) {
        let aborts: Vec<_> = self.workers.iter().map(JoinHandle::abort_handle).collect();
        let all = futures_join(self.workers);
        if tokio::time::timeout(limit, all).await.is_err() {
            tracing::warn!("stream workers still busy after {limit:?}; stopping them");
            aborts.iter().for_each(tokio::task::AbortHandle::abort);
        }
    }
}

async fn futures_join(handles: Vec<JoinHandle<()>>) {
    for handle in handles {
        let _ = handle.await;
    }
}

/// What an invocation came to.
#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    /// Every record is done.
    Done,
    /// Batch item failures: retry from this index of the batch on (the records before
    /// it are done).
    RetryFrom(usize),
    /// The function failed (`Err`, panic, timeout): nothing is done.
    FunctionError,
}

struct Partition {
    index: usize,
    receiver: mpsc::UnboundedReceiver<StreamRecord>,
    /// The records of the next invocations, in stream order. Holds at most a batch,
    /// topped up from `receiver` just before each invocation.
    pending: VecDeque<StreamRecord>,
    handler: Arc<dyn StreamHandler>,
    config: Arc<FeederConfig>,
    stats: Arc<StreamStats>,
}

impl Partition {
    async fn run(mut self, mut shutdown: watch::Receiver<bool>) {
        let batch_size = self.config.batch_size.max(1);
        // The most records the next invocation may take: the batch size, or half of a
        // batch the function failed on (BisectBatchOnFunctionError).
        let mut cap = batch_size;
        // Failed invocations since the checkpoint last moved.
        let mut attempts: u32 = 0;
        loop {
            if self.pending.is_empty() {
                tokio::select! {
                    biased;
                    _ = shutdown.wait_for(|down| *down) => break,
                    next = self.receiver.recv() => match next {
                        Some(record) => self.pending.push_back(record),
                        None => break,
                    },
                }
            }
            // No batching window: whatever is there now, up to a batch.
            while self.pending.len() < batch_size {
                match self.receiver.try_recv() {
                    Ok(record) => self.pending.push_back(record),
                    Err(_) => break,
                }
            }
            let size = self.pending.len().min(cap);
            let outcome = self.invoke(size).await;
            if outcome == Outcome::Done {
                self.complete(size);
                attempts = 0;
                cap = batch_size;
                continue;
            }
            StreamStats::add(&self.stats.failed_invocations, 1);
            let from = match outcome {
                // The retry reads from the failed record on, topped up to a batch.
                Outcome::RetryFrom(from) => {
                    cap = batch_size;
                    from
                }
                // One record cannot be split: it is retried alone.
                _ if size == 1 => {
                    cap = 1;
                    0
                }
                _ => {
                    // Split in two; a split is not a retry.
                    cap = size / 2;
                    tracing::warn!(
                        function = FUNCTION_NAME,
                        partition = self.index,
                        records = size,
                        "stream batch failed; retrying its first half"
                    );
                    continue;
                }
            };
            if from > 0 {
                self.complete(from);
                attempts = 0;
            }
            let failed = size - from;
            attempts += 1;
            if self
                .config
                .max_retry_attempts
                .is_some_and(|max| attempts > max)
            {
                self.skip(failed, attempts);
                attempts = 0;
                cap = batch_size;
                continue;
            }
            let wait = self.config.backoff(attempts);
            tracing::warn!(
                function = FUNCTION_NAME,
                partition = self.index,
                retry = attempts,
                records = failed,
                first_sequence_number = %self.pending.front().map_or("", |r| r.sequence_number.as_str()),
                ?wait,
                "stream batch failed; retrying from the first failed record"
            );
            tokio::select! {
                biased;
                _ = shutdown.wait_for(|down| *down) => break,
                () = tokio::time::sleep(wait) => {}
            }
        }
    }

    /// The first `n` pending records are done.
    fn complete(&mut self, n: usize) {
        self.pending.drain(..n);
        StreamStats::add(&self.stats.completed, n);
    }

    /// The retries of the first `n` pending records are exhausted: log them (what the
    /// on-failure destination would get) and move on.
    fn skip(&mut self, n: usize, attempts: u32) {
        let skipped: Vec<Value> = self
            .pending
            .iter()
            .take(n)
            .map(StreamRecord::to_value)
            .collect();
        let records = serde_json::to_string(&skipped).unwrap_or_default();
        tracing::error!(
            function = FUNCTION_NAME,
            partition = self.index,
            attempts,
            count = n,
            first_sequence_number = %self.pending.front().map_or("", |r| r.sequence_number.as_str()),
            last_sequence_number = %self.pending.get(n.saturating_sub(1)).map_or("", |r| r.sequence_number.as_str()),
            records,
            "stream batch skipped after its last retry (its messages stay in the table for resume)"
        );
        StreamStats::add(&self.stats.dropped, n);
        self.complete(n);
    }

    /// One invocation with the first `size` pending records.
    async fn invoke(&self, size: usize) -> Outcome {
        StreamStats::add(&self.stats.invocations, 1);
        let records: Vec<BatchRecord> = self
            .pending
            .iter()
            .take(size)
            .map(StreamRecord::to_record)
            .collect();
        let request_id = ids::new_id();
        let mut context = Context::default();
        context.request_id.clone_from(&request_id);
        context.invoked_function_arn =
            format!("arn:aws:lambda:local:000000000000:function:{FUNCTION_NAME}");
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        context.deadline = (now + self.config.function_timeout).as_millis() as u64;
        let event = LambdaEvent::new(StreamBatch { records }, context);

        // Inline, on this partition's task (no thread hop per invocation): a panic is a
        // failed invocation, as with lambda_runtime, and the function timeout drops it.
        let timeout = self.config.function_timeout;
        let invocation = tokio::time::timeout(timeout, self.handler.handle(event));
        match AssertUnwindSafe(invocation).catch_unwind().await {
            Ok(Ok(Ok(response))) => {
                let batch = self.pending.range(..size);
                checkpoint(&response, batch, self.index)
            }
            Ok(Ok(Err(error))) => {
                tracing::error!(function = FUNCTION_NAME, request_id, partition = self.index, %error, "stream handler failed");
                Outcome::FunctionError
            }
            Ok(Err(_elapsed)) => {
                tracing::error!(
                    function = FUNCTION_NAME,
                    request_id,
                    partition = self.index,
                    ?timeout,
                    "stream handler timed out"
                );
                Outcome::FunctionError
            }
            Err(panic) => {
                let message = crate::invoke::panic_message(panic.as_ref());
                tracing::error!(function = FUNCTION_NAME, request_id, partition = self.index, panic = %message, "stream handler panicked");
                Outcome::FunctionError
            }
        }
    }
}

/// Where the next invocation starts, from the handler's batch item failures.
fn checkpoint<'a>(
    response: &DynamoDbEventResponse,
    batch: impl Iterator<Item = &'a StreamRecord> + Clone,
    partition: usize,
) -> Outcome {
    let mut lowest: Option<usize> = None;
    for failure in &response.batch_item_failures {
        let id = failure.item_identifier.as_deref().unwrap_or_default();
        match batch.clone().position(|r| r.sequence_number == id) {
            Some(index) => lowest = Some(lowest.map_or(index, |l| l.min(index))),
            None => {
                tracing::warn!(
                    function = FUNCTION_NAME,
                    partition,
                    item_identifier = id,
                    "a batch item failure names no record of the batch: the whole batch fails"
                );
                return Outcome::RetryFrom(0);
            }
        }
    }
    lowest.map_or(Outcome::Done, Outcome::RetryFrom)
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_lambda_events::streams::DynamoDbBatchItemFailure;
    use serde_json::json;
    use std::sync::Mutex;

    fn record(n: u64) -> StreamRecord {
        StreamRecord::from_json(
            n.to_string(),
            // The fields every Lambda stream record carries; the tests only read the number.
            json!({
                "eventID": n.to_string(),
                "eventName": "INSERT",
                "awsRegion": "local",
                "dynamodb": { "SequenceNumber": n.to_string(), "SizeBytes": 1 },
            }),
        )
    }

    fn response(failed: &[&str]) -> DynamoDbEventResponse {
        let mut response = DynamoDbEventResponse::default();
        response.batch_item_failures = failed
            .iter()
            .map(|id| {
                let mut failure = DynamoDbBatchItemFailure::default();
                failure.item_identifier = Some((*id).to_owned());
                failure
            })
            .collect();
        response
    }

    /// What the stub does with an invocation.
    enum Answer {
        Fail(Vec<&'static str>),
        Error,
        Panic,
        Hang,
    }

    /// Records each invocation's sequence numbers; answers from a script, then succeeds.
    #[derive(Default)]
    struct Stub {
        seen: Mutex<Vec<Vec<String>>>,
        script: Mutex<VecDeque<Answer>>,
        /// Holds the first invocation until notified (to let records queue up).
        gate: Option<Arc<tokio::sync::Notify>>,
    }

    impl Stub {
        fn scripted(answers: Vec<Answer>) -> Arc<Self> {
            Arc::new(Self {
                script: Mutex::new(answers.into()),
                ..Self::default()
            })
        }

        fn seen(&self) -> Vec<Vec<String>> {
            self.seen.lock().unwrap().clone()
        }
    }

    #[async_trait]
    impl StreamHandler for Stub {
        async fn handle(
            &self,
            event: LambdaEvent<StreamBatch>,
        ) -> Result<DynamoDbEventResponse, lambda_runtime::Error> {
            let seqs: Vec<String> = event
                .payload
                .records
                .iter()
                .map(|r| match r {
                    BatchRecord::Record(record) => record.change.sequence_number.clone().unwrap(),
                    BatchRecord::Inserted(inserted) => inserted.sequence_number.clone(),
                    BatchRecord::Malformed(error) => panic!("{error}"),
                })
                .collect();
            let first = {
                let mut seen = self.seen.lock().unwrap();
                seen.push(seqs);
                seen.len() == 1
            };
            if let (true, Some(gate)) = (first, &self.gate) {
                gate.notified().await;
            }
            let answer = self.script.lock().unwrap().pop_front();
            match answer {
                None => Ok(DynamoDbEventResponse::default()),
                Some(Answer::Fail(ids)) => Ok(response(&ids)),
                Some(Answer::Error) => Err("boom".into()),
                Some(Answer::Panic) => panic!("the stub panicked"),
                Some(Answer::Hang) => {
                    tokio::time::sleep(Duration::from_secs(3600)).await;
                    Ok(DynamoDbEventResponse::default())
                }
            }
        }
    }

    fn fast(partitions: usize) -> FeederConfig {
        FeederConfig {
            partitions,
            batch_size: 100,
            max_retry_attempts: Some(3),
            initial_backoff: Duration::from_millis(5),
            max_backoff: Duration::from_millis(20),
            function_timeout: Duration::from_secs(5),
        }
    }

    struct Running {
        input: FeederInput,
        shutdown: watch::Sender<bool>,
        task: FeederTask,
    }

    fn run(stub: Arc<Stub>, config: FeederConfig) -> Running {
        let feeder = Feeder::new(config.partitions);
        let input = feeder.input();
        let (shutdown, rx) = watch::channel(false);
        let task = feeder.start(stub, config, rx);
        Running {
            input,
            shutdown,
            task,
        }
    }

    impl Running {
        async fn idle(&self) -> StreamStatsSnapshot {
            let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
            loop {
                let stats = self.input.stats().snapshot();
                if stats.is_idle() {
                    return stats;
                }
                assert!(
                    tokio::time::Instant::now() < deadline,
                    "not idle: {stats:?}"
                );
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
        }

        async fn stop(self) {
            let _ = self.shutdown.send(true);
            self.task.join(Duration::from_secs(5)).await;
        }
    }

    /// Pushes records 1..=n onto one partition while the stub holds its first
    /// invocation (record 0), so they form one batch.
    async fn queued_batch(
        stub_answers: Vec<Answer>,
        n: u64,
        config: FeederConfig,
    ) -> (Arc<Stub>, Running) {
        let gate = Arc::new(tokio::sync::Notify::new());
        let stub = Arc::new(Stub {
            script: Mutex::new(stub_answers.into()),
            gate: Some(gate.clone()),
            ..Stub::default()
        });
        let running = run(stub.clone(), config);
        running.input.push("k", record(0));
        while stub.seen().is_empty() {
            tokio::task::yield_now().await;
        }
        for i in 1..=n {
            running.input.push("k", record(i));
        }
        gate.notify_one();
        (stub, running)
    }

    fn seqs(batches: &[&[u64]]) -> Vec<Vec<String>> {
        batches
            .iter()
            .map(|b| b.iter().map(u64::to_string).collect())
            .collect()
    }

    #[tokio::test]
    async fn given_records_arriving_while_a_batch_runs_then_the_next_batch_takes_all_of_them_up_to_the_batch_size()
     {
        let config = FeederConfig {
            batch_size: 3,
            ..fast(1)
        };
        let (stub, running) = queued_batch(vec![], 5, config).await;
        running.idle().await;
        assert_eq!(stub.seen(), seqs(&[&[0], &[1, 2, 3], &[4, 5]]));
        running.stop().await;
    }

    #[tokio::test]
    async fn given_a_partial_failure_then_only_the_lowest_failed_record_and_later_ones_are_reinvoked()
     {
        // Records 1..=4 in one batch; 3 and 2 fail (reported out of order): the retry
        // starts at 2.
        let (stub, running) = queued_batch(
            vec![Answer::Fail(vec![]), Answer::Fail(vec!["3", "2"])],
            4,
            fast(1),
        )
        .await;
        let stats = running.idle().await;
        assert_eq!(stub.seen(), seqs(&[&[0], &[1, 2, 3, 4], &[2, 3, 4]]));
        assert_eq!(stats.failed_invocations, 1);
        assert_eq!(stats.completed, 5);
        assert_eq!(stats.dropped, 0);
        running.stop().await;
    }

    #[tokio::test]
    async fn given_a_retry_then_records_that_arrived_meanwhile_join_the_retried_batch() {
        let gate = Arc::new(tokio::sync::Notify::new());
        let stub = Arc::new(Stub {
            script: Mutex::new(vec![Answer::Fail(vec!["1"])].into()),
            gate: Some(gate.clone()),
            ..Stub::default()
        });
        let running = run(stub.clone(), fast(1));
        running.input.push("k", record(0));
        running.input.push("k", record(1));
        while stub.seen().is_empty() {
            tokio::task::yield_now().await;
        }
        // Records 0 and 1 are in flight; 2 arrives before the retry.
        running.input.push("k", record(2));
        gate.notify_one();
        running.idle().await;
        let seen = stub.seen();
        assert_eq!(seen[0], vec!["0", "1"]);
        assert_eq!(seen[1], vec!["1", "2"]);
        assert_eq!(seen.len(), 2);
        running.stop().await;
    }

    #[tokio::test]
    async fn given_a_function_error_then_the_batch_is_split_in_two_until_the_failing_record_is_alone()
     {
        // [1..=4] errs → [1, 2] (a split, not a retry) panics → [1] errs → [1] is retried
        // alone (a retry) and succeeds → [2, 3, 4] (topped up again).
        let (stub, running) = queued_batch(
            vec![
                Answer::Fail(vec![]),
                Answer::Error,
                Answer::Panic,
                Answer::Error,
            ],
            4,
            fast(1),
        )
        .await;
        let stats = running.idle().await;
        assert_eq!(
            stub.seen(),
            seqs(&[&[0], &[1, 2, 3, 4], &[1, 2], &[1], &[1], &[2, 3, 4]])
        );
        assert_eq!(stats.failed_invocations, 3);
        assert_eq!(stats.dropped, 0);
        running.stop().await;
    }

    #[tokio::test]
    async fn given_a_record_on_which_the_function_always_fails_then_only_it_is_skipped() {
        let config = FeederConfig {
            max_retry_attempts: Some(1),
            ..fast(1)
        };
        let mut answers = vec![Answer::Fail(vec![])];
        answers.extend((0..4).map(|_| Answer::Error));
        let (stub, running) = queued_batch(answers, 2, config).await;
        let stats = running.idle().await;
        // [1, 2] errs → [1] errs (first try alone) → [1] errs (the one retry) → skipped
        // → [2] errs → [2] succeeds.
        assert_eq!(stub.seen(), seqs(&[&[0], &[1, 2], &[1], &[1], &[2], &[2]]));
        assert_eq!(stats.dropped, 1);
        running.stop().await;
    }

    #[tokio::test]
    async fn given_an_unknown_or_empty_item_identifier_then_the_whole_batch_is_retried() {
        let (stub, running) = queued_batch(
            vec![
                Answer::Fail(vec![]),
                Answer::Fail(vec!["2", "99"]),
                Answer::Fail(vec![""]),
            ],
            2,
            fast(1),
        )
        .await;
        running.idle().await;
        assert_eq!(stub.seen(), seqs(&[&[0], &[1, 2], &[1, 2], &[1, 2]]));
        running.stop().await;
    }

    #[tokio::test]
    async fn given_a_record_that_keeps_failing_then_its_batch_is_skipped_after_the_last_retry_and_later_records_flow()
     {
        let config = FeederConfig {
            max_retry_attempts: Some(2),
            ..fast(1)
        };
        let stub = Stub::scripted(vec![
            Answer::Fail(vec!["1"]),
            Answer::Fail(vec!["1"]),
            Answer::Fail(vec!["1"]),
        ]);
        let running = run(stub.clone(), config);
        running.input.push("k", record(1));
        let stats = running.idle().await;
        // The first try and two retries.
        assert_eq!(stub.seen(), seqs(&[&[1], &[1], &[1]]));
        assert_eq!(stats.dropped, 1);
        running.input.push("k", record(2));
        running.idle().await;
        assert_eq!(stub.seen().last().unwrap(), &vec!["2".to_string()]);
        running.stop().await;
    }

    #[tokio::test]
    async fn given_progress_past_a_failed_record_then_the_retry_count_starts_again() {
        let config = FeederConfig {
            max_retry_attempts: Some(1),
            ..fast(1)
        };
        // 1 fails; the retry gets past 1 and 2 fails: not over the limit of 1 (a new
        // checkpoint); then it succeeds.
        let (stub, running) = queued_batch(
            vec![
                Answer::Fail(vec![]),
                Answer::Fail(vec!["1"]),
                Answer::Fail(vec!["2"]),
            ],
            2,
            config,
        )
        .await;
        let stats = running.idle().await;
        assert_eq!(stub.seen(), seqs(&[&[0], &[1, 2], &[1, 2], &[2]]));
        assert_eq!(stats.dropped, 0);
        running.stop().await;
    }

    #[tokio::test]
    async fn given_a_handler_that_runs_past_the_function_timeout_then_the_batch_is_retried() {
        let config = FeederConfig {
            function_timeout: Duration::from_millis(50),
            ..fast(1)
        };
        let stub = Stub::scripted(vec![Answer::Hang]);
        let running = run(stub.clone(), config);
        running.input.push("k", record(1));
        let stats = running.idle().await;
        assert_eq!(stub.seen(), seqs(&[&[1], &[1]]));
        assert_eq!(stats.failed_invocations, 1);
        running.stop().await;
    }

    #[tokio::test]
    async fn given_several_partitions_then_a_failing_partition_does_not_hold_up_the_others() {
        let keys: Vec<String> = (0..64).map(|i| format!("key-{i}")).collect();
        let stuck = partition_of(&keys[0], 4);
        let other = keys
            .iter()
            .find(|k| partition_of(k, 4) != stuck)
            .unwrap()
            .clone();
        let config = FeederConfig {
            initial_backoff: Duration::from_secs(30),
            max_backoff: Duration::from_secs(30),
            ..fast(4)
        };
        let stub = Stub::scripted(vec![Answer::Error]);
        let running = run(stub.clone(), config);
        running.input.push(&keys[0], record(1));
        while stub.seen().is_empty() {
            tokio::task::yield_now().await;
        }
        running.input.push(&other, record(2));
        let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
        while stub.seen().len() < 2 {
            assert!(tokio::time::Instant::now() < deadline);
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        assert_eq!(stub.seen()[1], vec!["2"]);
        assert!(!running.input.stats().snapshot().is_idle(), "1 still waits");
        // Shutdown interrupts the backoff.
        let started = tokio::time::Instant::now();
        running.stop().await;
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn partitions_spread_keys_and_are_stable() {
        let mut counts = [0usize; 4];
        for i in 0..4000 {
            counts[partition_of(&format!("01JDK3Z5Q8M2W4X6Y8Z0A{i:05}"), 4)] += 1;
        }
        assert!(counts.iter().all(|c| (700..1300).contains(c)), "{counts:?}");
        assert_eq!(partition_of("abc", 4), partition_of("abc", 4));
        assert_eq!(partition_of("abc", 1), 0);
    }

    #[test]
    fn backoff_doubles_up_to_the_maximum() {
        let config = FeederConfig::default();
        assert_eq!(config.backoff(1), Duration::from_millis(100));
        assert_eq!(config.backoff(2), Duration::from_millis(200));
        assert_eq!(config.backoff(6), Duration::from_millis(3200));
        assert_eq!(config.backoff(7), Duration::from_secs(5));
        assert_eq!(config.backoff(1000), Duration::from_secs(5));
    }

    #[tokio::test]
    async fn records_pushed_after_the_mapping_stopped_are_counted_as_done() {
        let stub = Stub::scripted(vec![]);
        let running = run(stub, fast(1));
        let input = running.input.clone();
        running.stop().await;
        assert!(!input.push("k", record(1)));
        assert!(input.stats().snapshot().is_idle());
    }
}
