//! The Messages table's stream and its consumer, `on-message-inserted`:
//! the part of the deployed system that is a DynamoDB stream plus a Lambda event source
//! mapping (`StartingPosition: LATEST`, `FilterCriteria`: INSERTs of messages, not of epoch items,
//! `FunctionResponseTypes: ReportBatchItemFailures`, `MaximumBatchingWindowInSeconds: 0`).
//!
//! Two sources, one consumer:
//! - in memory: the in-memory Messages store reports each new item ([`memory`]), turned
//!   into the INSERT record a stream would carry;
//! - `--dynamodb-endpoint`: the table's real stream, read through the DynamoDB Streams
//!   API ([`dynamodb`]).
//!
//! Either way the records go through the same [`feeder::Feeder`] (partitions, batches,
//! retries from the first failed record) to the real handler, in-process.
//!
//! ```text
//! storage::open ── MessageStream::new(source) ── input() ──▶ MemoryStream (observer)
//! LocalStack::start ── MessageStream::start(handler) ──▶ RunningStream (workers [+ poller])
//! RunningStack::shutdown ──▶ RunningStream::stop
//! ```

pub mod dynamodb;
pub mod feeder;
pub mod memory;
pub mod record;
pub mod stats;

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

pub use dynamodb::{PollerConfig, StreamError};
pub use feeder::{
    Feeder, FeederConfig, FeederInput, StreamHandler, StreamStats, StreamStatsSnapshot,
};
pub use memory::MemoryStream;
pub use record::StreamRecord;

/// Where the records come from.
#[derive(Clone, Debug)]
pub enum StreamSource {
    /// The in-memory store's inserts (its observer pushes into [`MessageStream::input`]).
    Memory,
    /// The table's stream on DynamoDB (Local).
    DynamoDb(PollerConfig),
}

/// The stream and its mapping, assembled but not running: records pushed meanwhile wait.
pub struct MessageStream {
    feeder: Feeder,
    source: StreamSource,
    config: FeederConfig,
}

impl MessageStream {
    pub fn new(source: StreamSource, config: FeederConfig) -> Self {
        Self {
            feeder: Feeder::new(config.partitions),
            source,
            config,
        }
    }

    /// Where records enter (what the in-memory store's observer pushes to).
    pub fn input(&self) -> FeederInput {
        self.feeder.input()
    }

    pub fn source(&self) -> &StreamSource {
        &self.source
    }

    pub fn config(&self) -> &FeederConfig {
        &self.config
    }

    /// Starts the mapping's workers with `handler` and, on DynamoDB, the stream poller
    /// (its `LATEST` iterators are taken before this returns); runs until `shutdown`.
    pub async fn start(
        self,
        handler: Arc<dyn StreamHandler>,
        shutdown: watch::Receiver<bool>,
    ) -> Result<RunningStream, StreamError> {
        let stats = self.feeder.input().stats().clone();
        let mapping = describe_mapping(&self.config);
        let (poller, description) = match &self.source {
            StreamSource::Memory => (None, format!("in-memory feeder; {mapping}")),
            StreamSource::DynamoDb(config) => {
                let poller =
                    dynamodb::Poller::start(config.clone(), self.feeder.input(), shutdown.clone())
                        .await?;
                let description = format!(
                    "DynamoDB Streams of table {} ({}; {} open shard(s) from LATEST; \
                     GetRecords Limit {}, STREAM_POLL_INTERVAL_MS={} when a poll is empty); {mapping}",
                    config.table,
                    poller.stream_arn(),
                    poller.shards(),
                    config.limit,
                    config.poll_interval.as_millis(),
                );
                (Some(poller), description)
            }
        };
        let workers = self.feeder.start(handler, self.config, shutdown);
        Ok(RunningStream {
            workers,
            poller,
            stats,
            description,
        })
    }
}

fn describe_mapping(config: &FeederConfig) -> String {
    let retries = match config.max_retry_attempts {
        Some(n) => format!("STREAM_MAX_RETRY_ATTEMPTS={n}"),
        None => "STREAM_MAX_RETRY_ATTEMPTS=-1 (forever)".to_owned(),
    };
    format!(
        "STREAM_SHARDS={} partitions by recipientId, STREAM_BATCH_SIZE={} (no batching window), \
         partial batch failures retried from the first failed record, {retries} \
         (backoff {} ms doubling to {} ms)",
        config.partitions,
        config.batch_size,
        config.initial_backoff.as_millis(),
        config.max_backoff.as_millis(),
    )
}

/// The running stream consumer.
pub struct RunningStream {
    workers: feeder::FeederTask,
    poller: Option<dynamodb::Poller>,
    stats: Arc<StreamStats>,
    description: String,
}

impl RunningStream {
    /// The mode and its knobs, for the start-up summary.
    pub fn description(&self) -> &str {
        &self.description
    }

    pub fn stats(&self) -> StreamStatsSnapshot {
        self.stats.snapshot()
    }

    /// Waits for the poller and the workers to stop (the shutdown signal must have been
    /// sent), each at most `limit`.
    pub async fn stop(self, limit: Duration) {
        if let Some(poller) = self.poller {
            poller.join(limit).await;
        }
        self.workers.join(limit).await;
    }
}
