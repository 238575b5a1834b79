//! `--dynamodb-endpoint` mode's stream: the Messages table's stream read through the
//! DynamoDB Streams API, as Lambda's event source mapping does, and handed to the same
//! [`Feeder`](super::feeder::Feeder) as in-memory mode.
//!
//! - `DescribeTable` gives the stream's ARN (`LatestStreamArn`); `DescribeStream` (all
//!   pages) its shards.
//! - At start, every open shard is read from `LATEST` (the mapping's starting position):
//!   the iterators are taken before the stack serves, so no message written through it
//!   is missed. Shards already closed then are history, and skipped.
//! - Every few seconds `DescribeStream` again: a new shard is read from `TRIM_HORIZON`
//!   once its parent (if this poller reads it) has been read to its end, so records keep
//!   their order per item across a shard split.
//! - Per shard: `GetRecords` (`Limit` = the batch size) in a loop, sleeping the poll
//!   interval only when a call returns nothing; only `INSERT`s of messages pass (the
//!   mapping's filter: `eventName` INSERT, `seq` not 0; TTL deletions and inbox epoch
//!   items are not handed to the function). An expired iterator is renewed after the last
//!   record read; a closed shard ends when its iterator does.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use aws_adapters::dynamodb::client_for_endpoint;
use aws_sdk_dynamodbstreams::Client;
use aws_sdk_dynamodbstreams::config::{BehaviorVersion, Credentials, Region};
use aws_sdk_dynamodbstreams::error::DisplayErrorContext;
use aws_sdk_dynamodbstreams::operation::get_records::GetRecordsError;
use aws_sdk_dynamodbstreams::types::{Shard, ShardIteratorType};
use tokio::sync::watch;
use tokio::task::{JoinHandle, JoinSet};

use super::feeder::FeederInput;
use super::record::{Skipped, from_streams_api};

/// How often new shards are looked for.
pub const SHARD_DISCOVERY_INTERVAL: Duration = Duration::from_secs(5);
/// The wait after a failed `GetRecords` or `DescribeStream`.
const ERROR_BACKOFF: Duration = Duration::from_secs(1);

/// What the poller needs.
#[derive(Clone, Debug)]
pub struct PollerConfig {
    pub endpoint: String,
    pub table: String,
    /// The sleep after a `GetRecords` that returned nothing.
    pub poll_interval: Duration,
    /// `GetRecords` `Limit` (1–1000).
    pub limit: i32,
}

#[derive(Debug, thiserror::Error)]
pub enum StreamError {
    #[error("cannot describe table {table}: {message}")]
    DescribeTable { table: String, message: String },
    #[error("table {0} has no stream (it needs StreamSpecification NEW_IMAGE)")]
    NoStream(String),
    #[error("cannot describe stream {arn}: {message}")]
    DescribeStream { arn: String, message: String },
    #[error("cannot get an iterator for shard {shard}: {message}")]
    ShardIterator { shard: String, message: String },
}

/// A client for DynamoDB Streams at `endpoint` with the same static credentials and
/// region as the store's client (DynamoDB Local keys its tables by them).
pub fn streams_client(endpoint: &str) -> Client {
    let config = aws_sdk_dynamodbstreams::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::from_static("us-east-1"))
        .credentials_provider(Credentials::new(
            "local",
            "local",
            None,
            None,
            "dynamodb-local",
        ))
        .endpoint_url(endpoint)
        .build();
    Client::from_conf(config)
}

/// The running poller.
pub struct Poller {
    stream_arn: String,
    shards: usize,
    task: JoinHandle<()>,
}

impl Poller {
    /// Finds the stream, takes a `LATEST` iterator on every open shard, and starts
    /// reading; runs until `shutdown` turns true.
    pub async fn start(
        config: PollerConfig,
        input: FeederInput,
        shutdown: watch::Receiver<bool>,
    ) -> Result<Self, StreamError> {
        let dynamodb = client_for_endpoint(&config.endpoint).await;
        let table = dynamodb
            .describe_table()
            .table_name(&config.table)
            .send()
            .await
            .map_err(|e| StreamError::DescribeTable {
                table: config.table.clone(),
                message: DisplayErrorContext(&e).to_string(),
            })?;
        let stream_arn = table
            .table()
            .and_then(|t| t.latest_stream_arn())
            .ok_or_else(|| StreamError::NoStream(config.table.clone()))?
            .to_owned();

        let reader = Arc::new(Reader {
            client: streams_client(&config.endpoint),
            stream_arn: stream_arn.clone(),
            input,
            config,
            book: Mutex::default(),
        });
        let shards = reader.shards().await?;
        let mut readers = JoinSet::new();
        let mut open = 0;
        for shard in &shards {
            let Some(id) = shard.shard_id() else { continue };
            if is_closed(shard) {
                reader.mark(id, ShardState::Done);
                continue;
            }
            let iterator = reader.iterator(id, ShardIteratorType::Latest, None).await?;
            reader.mark(id, ShardState::Reading);
            readers.spawn(reader.clone().read(
                id.to_owned(),
                iterator,
                ShardIteratorType::Latest,
                shutdown.clone(),
            ));
            open += 1;
        }
        tracing::info!(stream_arn, shards = open, "reading the Messages stream");
        let task = tokio::spawn(reader.discover(readers, shutdown));
        Ok(Self {
            stream_arn,
            shards: open,
            task,
        })
    }

    pub fn stream_arn(&self) -> &str {
        &self.stream_arn
    }

    /// Open shards at start.
    pub fn shards(&self) -> usize {
        self.shards
    }

    /// Waits for the readers to stop (after the shutdown signal), at most `limit`.
    pub async fn join(self, limit: Duration) {
        let abort = self.task.abort_handle();
        if tokio::time::timeout(limit, self.task).await.is_err() {
            tracing::warn!("the stream poller did not stop within {limit:?}; stopping it");
            abort.abort();
        }
    }
}

fn is_closed(shard: &Shard) -> bool {
    shard
        .sequence_number_range()
        .and_then(|r| r.ending_sequence_number())
        .is_some()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ShardState {
    Reading,
    /// Read to its end (or closed before the poller started).
    Done,
}

struct Reader {
    client: Client,
    stream_arn: String,
    input: FeederInput,
    config: PollerConfig,
    /// Every shard seen, by id.
    book: Mutex<HashMap<String, ShardState>>,
}

impl Reader {
    fn mark(&self, shard: &str, state: ShardState) {
        self.book
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(shard.to_owned(), state);
    }

    fn state(&self, shard: &str) -> Option<ShardState> {
        self.book
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(shard)
            .copied()
    }

    /// Every shard of the stream (`DescribeStream`, all pages).
    async fn shards(&self) -> Result<Vec<Shard>, StreamError> {
        let mut shards = Vec::new();
        let mut start: Option<String> = None;
        loop {
            let output = self
                .client
                .describe_stream()
                .stream_arn(&self.stream_arn)
                .set_exclusive_start_shard_id(start.take())
                .send()
                .await
                .map_err(|e| StreamError::DescribeStream {
                    arn: self.stream_arn.clone(),
                    message: DisplayErrorContext(&e).to_string(),
                })?;
            let Some(description) = output.stream_description() else {
                return Ok(shards);
            };
            shards.extend(description.shards().iter().cloned());
            match description.last_evaluated_shard_id() {
                Some(last) => start = Some(last.to_owned()),
                None => return Ok(shards),
            }
        }
    }

    async fn iterator(
        &self,
        shard: &str,
        kind: ShardIteratorType,
        after: Option<&str>,
    ) -> Result<String, StreamError> {
        let error = |message: String| StreamError::ShardIterator {
            shard: shard.to_owned(),
            message,
        };
        let output = self
            .client
            .get_shard_iterator()
            .stream_arn(&self.stream_arn)
            .shard_id(shard)
            .shard_iterator_type(kind)
            .set_sequence_number(after.map(str::to_owned))
            .send()
            .await
            .map_err(|e| error(DisplayErrorContext(&e).to_string()))?;
        output
            .shard_iterator()
            .map(str::to_owned)
            .ok_or_else(|| error("no iterator returned".to_owned()))
    }

    /// Looks for new shards until shutdown; then waits for every reader.
    async fn discover(
        self: Arc<Self>,
        mut readers: JoinSet<()>,
        mut shutdown: watch::Receiver<bool>,
    ) {
        loop {
            tokio::select! {
                biased;
                _ = shutdown.wait_for(|down| *down) => break,
                () = tokio::time::sleep(SHARD_DISCOVERY_INTERVAL) => {}
            }
            // Reap finished readers.
            while readers.try_join_next().is_some() {}
            let shards = match self.shards().await {
                Ok(shards) => shards,
                Err(error) => {
                    tracing::warn!(%error, "cannot list the stream's shards; trying again later");
                    continue;
                }
            };
            for shard in shards {
                let Some(id) = shard.shard_id() else { continue };
                if self.state(id).is_some() {
                    continue;
                }
                // A child waits until its parent has been read to its end.
                let parent = shard.parent_shard_id().and_then(|p| self.state(p));
                if parent == Some(ShardState::Reading) {
                    continue;
                }
                match self
                    .iterator(id, ShardIteratorType::TrimHorizon, None)
                    .await
                {
                    Ok(iterator) => {
                        tracing::info!(shard = id, "reading a new stream shard from TRIM_HORIZON");
                        self.mark(id, ShardState::Reading);
                        readers.spawn(self.clone().read(
                            id.to_owned(),
                            iterator,
                            ShardIteratorType::TrimHorizon,
                            shutdown.clone(),
                        ));
                    }
                    Err(error) => tracing::warn!(%error, "cannot read a new shard yet"),
                }
            }
        }
        while readers.join_next().await.is_some() {}
    }

    /// Reads one shard until it ends or shutdown.
    async fn read(
        self: Arc<Self>,
        shard: String,
        mut iterator: String,
        start: ShardIteratorType,
        mut shutdown: watch::Receiver<bool>,
    ) {
        let mut last_read: Option<String> = None;
        loop {
            if *shutdown.borrow() {
                return;
            }
            let result = self
                .client
                .get_records()
                .shard_iterator(&iterator)
                .limit(self.config.limit)
                .send()
                .await;
            let wait = match result {
                Ok(output) => {
                    let records = output.records();
                    for record in records {
                        if let Some(seq) = record.dynamodb().and_then(|d| d.sequence_number()) {
                            last_read = Some(seq.to_owned());
                        }
                        match from_streams_api(record, &self.stream_arn) {
                            Ok(record) => {
                                let key = record
                                    .partition_key()
                                    .unwrap_or(&record.sequence_number)
                                    .to_owned();
                                self.input.push(&key, record);
                            }
                            Err(Skipped::NotInsert | Skipped::EpochItem) => {}
                            Err(Skipped::NoSequenceNumber) => {
                                tracing::warn!(
                                    shard,
                                    "skipping a stream record without a sequence number"
                                );
                            }
                        }
                    }
                    match output.next_shard_iterator() {
                        Some(next) => iterator = next.to_owned(),
                        None => {
                            tracing::info!(shard, "stream shard read to its end");
                            self.mark(&shard, ShardState::Done);
                            return;
                        }
                    }
                    if records.is_empty() {
                        Some(self.config.poll_interval)
                    } else {
                        None
                    }
                }
                Err(error) => {
                    let renew = match error.as_service_error() {
                        Some(GetRecordsError::ExpiredIteratorException(_)) => {
                            Some(match &last_read {
                                Some(_) => ShardIteratorType::AfterSequenceNumber,
                                None => start.clone(),
                            })
                        }
                        Some(GetRecordsError::TrimmedDataAccessException(_)) => {
                            Some(ShardIteratorType::TrimHorizon)
                        }
                        Some(GetRecordsError::ResourceNotFoundException(_)) => {
                            tracing::error!(shard, error = %DisplayErrorContext(&error), "the stream is gone; stopped reading it");
                            return;
                        }
                        _ => None,
                    };
                    match renew {
                        Some(kind) => {
                            let after = match kind {
                                ShardIteratorType::AfterSequenceNumber => last_read.as_deref(),
                                _ => None,
                            };
                            match self.iterator(&shard, kind, after).await {
                                Ok(fresh) => {
                                    iterator = fresh;
                                    None
                                }
                                Err(error) => {
                                    tracing::warn!(shard, %error, "cannot renew the shard iterator");
                                    Some(ERROR_BACKOFF)
                                }
                            }
                        }
                        None => {
                            tracing::warn!(shard, error = %DisplayErrorContext(&error), "GetRecords failed; trying again");
                            Some(ERROR_BACKOFF)
                        }
                    }
                }
            };
            if let Some(wait) = wait {
                tokio::select! {
                    biased;
                    _ = shutdown.wait_for(|down| *down) => return,
                    () = tokio::time::sleep(wait) => {}
                }
            }
        }
    }
}
