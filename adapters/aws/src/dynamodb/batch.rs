//! BatchWriteItem for any number of writes to one table: 25 requests per call, a few
//! calls in flight at once, and `UnprocessedItems` retried with bounded, jittered
//! exponential backoff (as the DynamoDB guide asks); BatchGetItem of up to 100 keys,
//! its `UnprocessedKeys` retried the same way ([`get_batch`]). Whole-call failures (throttling,
//! 5xx, timeouts) are already retried by the SDK's retry policy and are not retried
//! again here.

use std::future::Future;
use std::time::Duration;

use aws_sdk_dynamodb::Client;
use std::collections::HashMap;

use aws_sdk_dynamodb::types::{AttributeValue, KeysAndAttributes, WriteRequest};
use futures_util::StreamExt;
use futures_util::stream;

use super::error::store_error;
use shared::ports::StoreError;

/// DynamoDB's limit of requests per BatchWriteItem call.
pub(crate) const MAX_BATCH_SIZE: usize = 25;

/// How many BatchWriteItem calls one `write_all` has in flight at most (100 recipients
/// → 4 calls, all at once).
pub(crate) const MAX_CONCURRENT_BATCHES: usize = 4;

/// How unprocessed items are retried.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RetryPolicy {
    /// Calls after the first one, for the items the previous call left unprocessed.
    pub retries: u32,
    /// The wait before the first retry; it doubles before each next one.
    pub base_delay: Duration,
}

/// Five retries after 25, 50, 100, 200 and 400 ms (each jittered down to as little as
/// half): at most 775 ms of waiting per batch.
pub(crate) const DEFAULT_RETRY: RetryPolicy = RetryPolicy {
    retries: 5,
    base_delay: Duration::from_millis(25),
};

impl RetryPolicy {
    /// The wait before retry `retry` (1-based), from `base_delay`: [`jittered`](crate::backoff::jittered).
    pub(crate) fn delay(&self, retry: u32) -> Duration {
        crate::backoff::jittered(self.base_delay, retry)
    }
}

/// What `write_all` could not write after every retry; the source of the
/// [`StoreError::Unavailable`] it returns.
#[derive(Debug, thiserror::Error)]
#[error(
    "{unprocessed} of {total} write requests still unprocessed after {attempts} BatchWriteItem attempts"
)]
pub(crate) struct UnprocessedWrites {
    pub unprocessed: usize,
    pub total: usize,
    /// Calls per batch: the first one plus the retries.
    pub attempts: u32,
}

/// Writes every request to `table` with BatchWriteItem: `ceil(n / 25)` calls when
/// nothing comes back unprocessed, up to [`MAX_CONCURRENT_BATCHES`] at once.
///
/// The requests must not contain two writes to the same key (DynamoDB rejects such a
/// batch, and two batches racing on one key leave either write).
pub(crate) async fn write_all(
    client: &Client,
    table: &str,
    requests: Vec<WriteRequest>,
) -> Result<(), StoreError> {
    write_all_with(requests, DEFAULT_RETRY, |batch| async move {
        let output = client
            .batch_write_item()
            .request_items(table, batch)
            .send()
            .await
            .map_err(store_error)?;
        Ok(output
            .unprocessed_items
            .and_then(|mut unprocessed| unprocessed.remove(table))
            .unwrap_or_default())
    })
    .await
}

/// [`write_all`] over any `send`: one BatchWriteItem call that takes a batch (≤ 25
/// requests) and returns the requests it left unprocessed.
///
/// Every batch runs to its end, so the error counts everything left; a `send` error
/// (after the SDK's own retries) is returned as it is, in preference to a count.
pub(crate) async fn write_all_with<F, Fut>(
    requests: Vec<WriteRequest>,
    policy: RetryPolicy,
    send: F,
) -> Result<(), StoreError>
where
    F: Fn(Vec<WriteRequest>) -> Fut,
    Fut: Future<Output = Result<Vec<WriteRequest>, StoreError>>,
{
    let total = requests.len();
    let mut batches = Vec::with_capacity(total.div_ceil(MAX_BATCH_SIZE));
    let mut requests = requests.into_iter().peekable();
    while requests.peek().is_some() {
        batches.push(requests.by_ref().take(MAX_BATCH_SIZE).collect::<Vec<_>>());
    }
    let outcomes: Vec<Result<usize, StoreError>> = stream::iter(batches)
        .map(|batch| write_batch(batch, policy, &send))
        .buffer_unordered(MAX_CONCURRENT_BATCHES)
        .collect()
        .await;
    let mut unprocessed = 0;
    for outcome in outcomes {
        unprocessed += outcome?;
    }
    if unprocessed == 0 {
        return Ok(());
    }
    Err(StoreError::Unavailable(Box::new(UnprocessedWrites {
        unprocessed,
        total,
        attempts: policy.retries + 1,
    })))
}

/// One batch, retried until everything is processed or the retries run out; returns how
/// many requests are left.
async fn write_batch<F, Fut>(
    mut batch: Vec<WriteRequest>,
    policy: RetryPolicy,
    send: &F,
) -> Result<usize, StoreError>
where
    F: Fn(Vec<WriteRequest>) -> Fut,
    Fut: Future<Output = Result<Vec<WriteRequest>, StoreError>>,
{
    for retry in 0..=policy.retries {
        if retry > 0 {
            tokio::time::sleep(policy.delay(retry)).await;
        }
        batch = send(batch).await?;
        if batch.is_empty() {
            return Ok(0);
        }
    }
    tracing::warn!(
        unprocessed = batch.len(),
        attempts = policy.retries + 1,
        "BatchWriteItem left items unprocessed after every retry"
    );
    Ok(batch.len())
}

/// What a read returns of an item: a projection expression and the names it uses in place
/// of reserved words.
pub(crate) struct Projection {
    pub expression: &'static str,
    pub names: &'static [(&'static str, &'static str)],
}

/// BatchGetItem takes at most 100 keys.
pub(crate) const BATCH_GET_LIMIT: usize = 100;
/// The keys DynamoDB left unprocessed are asked for again after 25, 50, 100 and 200 ms
/// (jittered like BatchWriteItem's retries): five calls per 100 keys at most.
const BATCH_GET_RETRY: RetryPolicy = RetryPolicy {
    retries: 4,
    base_delay: Duration::from_millis(25),
};

/// What [`get_batch`] could not read after every retry; the source of the
/// [`StoreError::Unavailable`] it returns.
#[derive(Debug, thiserror::Error)]
#[error(
    "{unprocessed} of {requested} keys still unprocessed after {attempts} BatchGetItem attempts"
)]
pub(crate) struct UnprocessedReads {
    pub unprocessed: usize,
    /// The keys of the batch (≤ 100) that ran out of retries.
    pub requested: usize,
    /// The first call plus the retries.
    pub attempts: u32,
}

/// The items of `keys` (at most 100) of `table` in one BatchGetItem ([`get_tables`]).
pub(crate) async fn get_batch(
    client: &Client,
    table: &str,
    keys: Vec<HashMap<String, AttributeValue>>,
    consistent: bool,
    projection: Option<&Projection>,
) -> Result<Vec<HashMap<String, AttributeValue>>, StoreError> {
    let request = keys_and_attributes(keys, consistent, projection)?;
    let mut items = get_tables(client, HashMap::from([(table.to_owned(), request)])).await?;
    Ok(items.remove(table).unwrap_or_default())
}

/// What one table's part of a BatchGetItem asks for.
pub(crate) fn keys_and_attributes(
    keys: Vec<HashMap<String, AttributeValue>>,
    consistent: bool,
    projection: Option<&Projection>,
) -> Result<KeysAndAttributes, StoreError> {
    KeysAndAttributes::builder()
        .set_keys(Some(keys))
        .consistent_read(consistent)
        .set_projection_expression(projection.map(|p| p.expression.to_owned()))
        .set_expression_attribute_names(projection.map(|p| {
            p.names
                .iter()
                .map(|(alias, name)| ((*alias).to_owned(), (*name).to_owned()))
                .collect()
        }))
        .build()
        .map_err(|e| StoreError::Other(Box::new(e)))
}

/// The items of one BatchGetItem over one or more tables (at most 100 keys in all), by
/// table, asking again (after a backoff) for the keys DynamoDB left unprocessed; never a
/// partial answer (a missing item would read as "absent"): `Unavailable` when keys are
/// still left.
pub(crate) async fn get_tables(
    client: &Client,
    mut requests: HashMap<String, KeysAndAttributes>,
) -> Result<HashMap<String, Vec<HashMap<String, AttributeValue>>>, StoreError> {
    let requested = requests.values().map(|r| r.keys().len()).sum();
    let mut items: HashMap<String, Vec<HashMap<String, AttributeValue>>> = HashMap::new();
    for retry in 0..=BATCH_GET_RETRY.retries {
        if retry > 0 {
            tokio::time::sleep(BATCH_GET_RETRY.delay(retry)).await;
        }
        let output = client
            .batch_get_item()
            .set_request_items(Some(std::mem::take(&mut requests)))
            .send()
            .await
            .map_err(store_error)?;
        for (table, found) in output.responses.unwrap_or_default() {
            items.entry(table).or_default().extend(found);
        }
        requests = output.unprocessed_keys.unwrap_or_default();
        requests.retain(|_, left| !left.keys().is_empty());
        if requests.is_empty() {
            return Ok(items);
        }
    }
    let unprocessed = requests.values().map(|r| r.keys().len()).sum();
    tracing::warn!(
        unprocessed,
        attempts = BATCH_GET_RETRY.retries + 1,
        "BatchGetItem left keys unprocessed after every retry"
    );
    Err(StoreError::Unavailable(Box::new(UnprocessedReads {
        unprocessed,
        requested,
        attempts: BATCH_GET_RETRY.retries + 1,
    })))
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use aws_sdk_dynamodb::types::{AttributeValue, DeleteRequest};

    use super::*;

    fn requests(n: usize) -> Vec<WriteRequest> {
        (0..n)
            .map(|i| {
                WriteRequest::builder()
                    .delete_request(
                        DeleteRequest::builder()
                            .key("messageId", AttributeValue::S(format!("m{i}")))
                            .build()
                            .unwrap(),
                    )
                    .build()
            })
            .collect()
    }

    fn id(request: &WriteRequest) -> String {
        let key = request.delete_request().unwrap().key();
        key["messageId"].as_s().unwrap().clone()
    }

    /// Records every call's request ids; answers with `unprocessed(call, batch)`.
    struct FakeDynamo<U> {
        calls: Mutex<Vec<Vec<String>>>,
        unprocessed: U,
    }

    impl<U> FakeDynamo<U>
    where
        U: Fn(usize, &[WriteRequest]) -> Vec<WriteRequest>,
    {
        fn new(unprocessed: U) -> Self {
            Self {
                calls: Mutex::default(),
                unprocessed,
            }
        }

        async fn send(&self, batch: Vec<WriteRequest>) -> Result<Vec<WriteRequest>, StoreError> {
            assert!(!batch.is_empty() && batch.len() <= MAX_BATCH_SIZE);
            let call = {
                let mut calls = self.calls.lock().unwrap();
                calls.push(batch.iter().map(id).collect());
                calls.len() - 1
            };
            Ok((self.unprocessed)(call, &batch))
        }

        fn calls(&self) -> Vec<Vec<String>> {
            self.calls.lock().unwrap().clone()
        }
    }

    fn unprocessed_count(err: &StoreError) -> Option<(usize, usize, u32)> {
        match err {
            StoreError::Unavailable(source) => source
                .downcast_ref::<UnprocessedWrites>()
                .map(|u| (u.unprocessed, u.total, u.attempts)),
            _ => None,
        }
    }

    #[tokio::test(start_paused = true)]
    async fn everything_processed_the_first_time_is_one_call() {
        let dynamo = FakeDynamo::new(|_, _| Vec::new());
        write_all_with(requests(10), DEFAULT_RETRY, |b| dynamo.send(b))
            .await
            .unwrap();
        let calls = dynamo.calls();
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].len(), 10);
    }

    #[tokio::test(start_paused = true)]
    async fn nothing_to_write_is_no_call() {
        let dynamo = FakeDynamo::new(|_, _| Vec::new());
        write_all_with(Vec::new(), DEFAULT_RETRY, |b| dynamo.send(b))
            .await
            .unwrap();
        assert!(dynamo.calls().is_empty());
    }

    #[tokio::test(start_paused = true)]
    async fn sixty_requests_are_three_calls_of_at_most_25_covering_each_once() {
        let dynamo = FakeDynamo::new(|_, _| Vec::new());
        write_all_with(requests(60), DEFAULT_RETRY, |b| dynamo.send(b))
            .await
            .unwrap();
        let calls = dynamo.calls();
        let mut sizes: Vec<_> = calls.iter().map(Vec::len).collect();
        sizes.sort_unstable();
        assert_eq!(sizes, vec![10, 25, 25]);
        let mut ids: Vec<_> = calls.concat();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), 60);
    }

    #[tokio::test(start_paused = true)]
    async fn unprocessed_requests_are_retried_alone_after_a_backoff_until_written() {
        // The first two calls leave the last 3 requests; the third writes them.
        let dynamo = FakeDynamo::new(|call, batch: &[WriteRequest]| {
            if call < 2 {
                batch[batch.len() - 3..].to_vec()
            } else {
                Vec::new()
            }
        });
        let started = tokio::time::Instant::now();
        write_all_with(requests(10), DEFAULT_RETRY, |b| dynamo.send(b))
            .await
            .unwrap();
        let calls = dynamo.calls();
        assert_eq!(calls.len(), 3);
        assert_eq!(calls[1], vec!["m7", "m8", "m9"]);
        assert_eq!(calls[2], vec!["m7", "m8", "m9"]);
        // Two waits: 25 then 50 ms, each jittered into its upper half.
        let waited = started.elapsed();
        assert!(
            waited >= Duration::from_micros(37_500) && waited <= Duration::from_millis(75),
            "{waited:?}"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn requests_still_unprocessed_after_the_last_retry_are_unavailable_with_a_count() {
        // Batch 1 (m0..m24) never gets m0..m3 written; batch 2 (m25..m29) is fine.
        let dynamo = FakeDynamo::new(|_, batch: &[WriteRequest]| {
            batch
                .iter()
                .filter(|r| ["m0", "m1", "m2", "m3"].contains(&id(r).as_str()))
                .cloned()
                .collect()
        });
        let started = tokio::time::Instant::now();
        let err = write_all_with(requests(30), DEFAULT_RETRY, |b| dynamo.send(b))
            .await
            .unwrap_err();
        assert_eq!(unprocessed_count(&err), Some((4, 30, 6)), "{err:?}");
        let source = std::error::Error::source(&err).unwrap().to_string();
        assert_eq!(
            source,
            "4 of 30 write requests still unprocessed after 6 BatchWriteItem attempts"
        );
        // 1 + 5 calls for batch 1, 1 for batch 2; 25+50+100+200+400 ms, jittered.
        assert_eq!(dynamo.calls().len(), 7);
        let waited = started.elapsed();
        assert!(
            waited >= Duration::from_micros(387_500) && waited <= Duration::from_millis(775),
            "{waited:?}"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_failed_call_is_returned_as_it_is_and_not_retried_here() {
        let calls = AtomicUsize::new(0);
        let err = write_all_with(requests(5), DEFAULT_RETRY, |_| {
            calls.fetch_add(1, Ordering::SeqCst);
            async { Err(StoreError::Other("AccessDeniedException".into())) }
        })
        .await
        .unwrap_err();
        assert!(matches!(err, StoreError::Other(_)), "{err:?}");
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }

    #[tokio::test(start_paused = true)]
    async fn at_most_four_calls_are_in_flight() {
        let in_flight = AtomicUsize::new(0);
        let most = AtomicUsize::new(0);
        let calls = AtomicUsize::new(0);
        write_all_with(requests(250), DEFAULT_RETRY, |_| {
            calls.fetch_add(1, Ordering::SeqCst);
            let now = in_flight.fetch_add(1, Ordering::SeqCst) + 1;
            most.fetch_max(now, Ordering::SeqCst);
            let in_flight = &in_flight;
            async move {
                tokio::time::sleep(Duration::from_millis(10)).await;
                in_flight.fetch_sub(1, Ordering::SeqCst);
                Ok(Vec::new())
            }
        })
        .await
        .unwrap();
        assert_eq!(calls.load(Ordering::SeqCst), 10);
        assert_eq!(most.load(Ordering::SeqCst), MAX_CONCURRENT_BATCHES);
    }

    /// `write_all` on a real SDK client answering from `rule` (SDK retries off: one
    /// HTTP attempt per call), so the `UnprocessedItems` of the response drive it.
    mod with_the_sdk {
        use std::sync::Arc;

        use aws_sdk_dynamodb::config::retry::RetryConfig;
        use aws_sdk_dynamodb::operation::batch_write_item::BatchWriteItemOutput;
        use aws_smithy_mocks::{Rule, RuleMode, mock, mock_client};

        use super::*;

        const TABLE: &str = "Messages";

        fn client(rule: &Rule) -> Client {
            mock_client!(aws_sdk_dynamodb, RuleMode::MatchAny, [rule], |config| {
                config.retry_config(RetryConfig::disabled())
            })
        }

        /// A BatchWriteItem rule that records each call's ids and leaves unprocessed
        /// the requests `leave(call, id)` picks.
        fn batch_write(
            calls: &Arc<Mutex<Vec<Vec<String>>>>,
            leave: impl Fn(usize, &str) -> bool + Send + Sync + 'static,
        ) -> Rule {
            let calls = calls.clone();
            mock!(Client::batch_write_item).then_compute_output(move |req| {
                let batch = &req.request_items().unwrap()[TABLE];
                let call = {
                    let mut calls = calls.lock().unwrap();
                    calls.push(batch.iter().map(id).collect());
                    calls.len() - 1
                };
                let left: Vec<WriteRequest> = batch
                    .iter()
                    .filter(|r| leave(call, &id(r)))
                    .cloned()
                    .collect();
                let output = BatchWriteItemOutput::builder();
                if left.is_empty() {
                    output.build()
                } else {
                    output.unprocessed_items(TABLE, left).build()
                }
            })
        }

        #[tokio::test(start_paused = true)]
        async fn given_unprocessed_items_in_the_response_then_they_alone_are_sent_again() {
            // Given the first response leaves m3 and m7 unprocessed
            let calls = Arc::default();
            let rule = batch_write(&calls, |call, id| call == 0 && (id == "m3" || id == "m7"));

            // When writing ten requests
            write_all(&client(&rule), TABLE, requests(10))
                .await
                .unwrap();

            // Then a second call carries just those two, and that is all.
            assert_eq!(rule.num_calls(), 2);
            let calls = calls.lock().unwrap().clone();
            assert_eq!(calls[0].len(), 10);
            assert_eq!(calls[1], vec!["m3", "m7"]);
        }

        #[tokio::test(start_paused = true)]
        async fn given_items_unprocessed_in_every_response_then_unavailable_after_six_calls() {
            // Given m1 comes back unprocessed every time
            let calls = Arc::default();
            let rule = batch_write(&calls, |_, id| id == "m1");

            // When writing three requests
            let err = write_all(&client(&rule), TABLE, requests(3))
                .await
                .unwrap_err();

            // Then the write fails as transient, never silently, with the count as source.
            assert_eq!(unprocessed_count(&err), Some((1, 3, 6)), "{err:?}");
            assert_eq!(rule.num_calls(), 6);
            assert!(calls.lock().unwrap()[1..].iter().all(|ids| ids == &["m1"]));
        }
    }

    #[test]
    fn delays_double_from_25_ms_and_are_jittered_into_their_upper_half() {
        for (retry, full_ms) in [(1, 25), (2, 50), (3, 100), (4, 200), (5, 400)] {
            for _ in 0..200 {
                let delay = DEFAULT_RETRY.delay(retry);
                let full = Duration::from_millis(full_ms);
                assert!(delay >= full / 2 && delay <= full, "{retry}: {delay:?}");
            }
        }
        // Absurd retry counts saturate instead of overflowing.
        assert!(DEFAULT_RETRY.delay(u32::MAX) <= Duration::from_millis(25 << 16));
    }
}
