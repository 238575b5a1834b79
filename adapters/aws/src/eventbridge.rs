//! [`EventBus`] on an EventBridge custom bus, with `aws-sdk-eventbridge`: PutEvents with
//! at most 10 entries per call, a few calls at once, and the entries a response reports
//! as failed (`ErrorCode`) retried alone with bounded, jittered exponential backoff.
//! Whole-call failures (throttling, 5xx, timeouts) are already retried by the SDK's
//! retry policy and are not retried again here.

use std::time::Duration;

use async_trait::async_trait;
use aws_sdk_eventbridge::Client;
use aws_sdk_eventbridge::config::http::HttpResponse;
use aws_sdk_eventbridge::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_eventbridge::operation::put_events::PutEventsError;
use aws_sdk_eventbridge::primitives::DateTime;
use aws_sdk_eventbridge::types::PutEventsRequestEntry;
use futures_util::StreamExt;
use futures_util::stream;

use crate::calls::{AwsCall, Calls, Resource};
use shared::ports::{EventBus, EventBusError};
use shared::presence::PresenceEvent;

/// EventBridge's limit of entries per PutEvents call.
pub const MAX_ENTRIES_PER_CALL: usize = 10;

/// How many PutEvents calls one `publish` has in flight at most.
pub const MAX_CONCURRENT_CALLS: usize = 8;

/// Error codes of a whole PutEvents call that are worth retrying later.
const TRANSIENT_CODES: &[&str] = &[
    "ThrottlingException",
    "InternalException",
    "InternalFailure",
    "ServiceUnavailable",
    "LimitExceededException",
];

/// How failed entries are retried: `attempts` calls in all, waiting `base_delay` before
/// the second, doubling before each next one, each wait jittered into its upper half.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EntryRetry {
    pub attempts: u32,
    pub base_delay: Duration,
}

/// Four attempts, after 50, 100 and 200 ms (jittered): at most 350 ms of waiting per
/// batch of 10.
pub const DEFAULT_ENTRY_RETRY: EntryRetry = EntryRetry {
    attempts: 4,
    base_delay: Duration::from_millis(50),
};

impl EntryRetry {
    /// The wait before attempt `attempt` (0-based; attempt 0 does not wait), from
    /// `base_delay`: [`jittered`](crate::backoff::jittered).
    fn delay(&self, attempt: u32) -> Duration {
        crate::backoff::jittered(self.base_delay, attempt)
    }
}

/// What `publish` could not publish after every attempt; the source of the
/// [`EventBusError::Unavailable`] it returns.
#[derive(Debug, thiserror::Error)]
#[error(
    "{failed} of {total} events still refused after {attempts} PutEvents attempts (error codes: {codes})",
    codes = error_codes.join(", ")
)]
pub struct UnpublishedEvents {
    pub failed: usize,
    pub total: usize,
    pub attempts: u32,
    /// The distinct `ErrorCode`s of the last refusals.
    pub error_codes: Vec<String>,
}

/// A custom EventBridge bus.
#[derive(Clone, Debug)]
pub struct EventBridgeBus {
    client: Client,
    bus_name: String,
    source: String,
    retry: EntryRetry,
}

impl EventBridgeBus {
    /// Events go to `bus_name` (name or ARN) with `Source` = `source`
    /// (`<game>.presence`, see [`shared::presence::presence_source`]).
    pub fn new(client: Client, bus_name: impl Into<String>, source: impl Into<String>) -> Self {
        Self {
            client,
            bus_name: bus_name.into(),
            source: source.into(),
            retry: DEFAULT_ENTRY_RETRY,
        }
    }

    /// Retries refused entries as `retry` says instead of [`DEFAULT_ENTRY_RETRY`].
    pub fn with_entry_retry(mut self, retry: EntryRetry) -> Self {
        self.retry = retry;
        self
    }

    fn entry(&self, event: &PresenceEvent) -> PutEventsRequestEntry {
        PutEventsRequestEntry::builder()
            .event_bus_name(&self.bus_name)
            .source(&self.source)
            .detail_type(event.detail_type())
            .detail(event.detail_json())
            .time(DateTime::from_millis(event.at))
            .build()
    }

    /// One batch of at most 10, retried until every entry is accepted or the attempts
    /// run out; returns the error codes of the entries still refused.
    async fn publish_batch(&self, batch: &[PresenceEvent]) -> Result<Vec<String>, EventBusError> {
        let mut pending: Vec<PutEventsRequestEntry> =
            batch.iter().map(|event| self.entry(event)).collect();
        let mut codes = Vec::new();
        for attempt in 0..self.retry.attempts.max(1) {
            if attempt > 0 {
                tokio::time::sleep(self.retry.delay(attempt)).await;
            }
            let output = self
                .client
                .put_events()
                .set_entries(Some(pending.clone()))
                .send()
                .await
                .map_err(bus_error)?;
            if output.failed_entry_count() == 0 {
                return Ok(Vec::new());
            }
            // Result entries are in request order; a failed one carries an ErrorCode.
            codes.clear();
            let mut refused = Vec::new();
            for (entry, result) in pending.into_iter().zip(output.entries()) {
                if let Some(code) = result.error_code() {
                    codes.push(code.to_owned());
                    refused.push(entry);
                }
            }
            pending = refused;
            if pending.is_empty() {
                return Ok(Vec::new());
            }
        }
        tracing::warn!(
            refused = pending.len(),
            attempts = self.retry.attempts,
            error_codes = ?codes,
            "PutEvents kept refusing entries"
        );
        Ok(codes)
    }
}

#[async_trait]
impl EventBus for EventBridgeBus {
    async fn publish(&self, events: &[PresenceEvent]) -> Result<(), EventBusError> {
        // Owned batches: a stream of futures borrowing from a closure argument trips
        // the `Send` check of the `async_trait` future.
        let batches: Vec<Vec<PresenceEvent>> = events
            .chunks(MAX_ENTRIES_PER_CALL)
            .map(<[PresenceEvent]>::to_vec)
            .collect();
        let outcomes: Vec<Result<Vec<String>, EventBusError>> = stream::iter(batches)
            .map(|batch| async move { self.publish_batch(&batch).await })
            .buffer_unordered(MAX_CONCURRENT_CALLS)
            .collect()
            .await;
        let mut refused = Vec::new();
        for outcome in outcomes {
            refused.extend(outcome?);
        }
        if refused.is_empty() {
            return Ok(());
        }
        let failed = refused.len();
        refused.sort_unstable();
        refused.dedup();
        Err(EventBusError::Unavailable(Box::new(UnpublishedEvents {
            failed,
            total: events.len(),
            attempts: self.retry.attempts.max(1),
            error_codes: refused,
        })))
    }
}

impl Calls<dyn EventBus> for EventBridgeBus {
    fn calls(&self) -> Vec<AwsCall> {
        vec![AwsCall::new(
            "events:PutEvents",
            Resource::EventBus(self.bus_name.clone()),
        )]
    }
}

/// Throttling, 5xx, timeouts and I/O are transient; the rest (no such bus, access
/// denied, validation) is a fault.
fn bus_error(err: SdkError<PutEventsError, HttpResponse>) -> EventBusError {
    let transient = match &err {
        SdkError::TimeoutError(_) => true,
        // A connector error the caller caused (e.g. a malformed endpoint) will not heal
        // by itself; I/O, timeouts and the rest may.
        SdkError::DispatchFailure(dispatch) => !dispatch.is_user(),
        SdkError::ServiceError(_) | SdkError::ResponseError(_) => {
            err.as_service_error()
                .is_some_and(PutEventsError::is_internal_exception)
                || err
                    .code()
                    .is_some_and(|code| TRANSIENT_CODES.contains(&code))
                || err
                    .raw_response()
                    .is_some_and(|raw| raw.status().is_server_error())
        }
        _ => false,
    };
    if transient {
        EventBusError::Unavailable(Box::new(err))
    } else {
        EventBusError::Other(Box::new(err))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use aws_sdk_eventbridge::config::retry::RetryConfig;
    use aws_sdk_eventbridge::error::ErrorMetadata;
    use aws_sdk_eventbridge::operation::put_events::PutEventsOutput;
    use aws_sdk_eventbridge::types::PutEventsResultEntry;
    use aws_sdk_eventbridge::types::error::InternalException;
    use aws_smithy_mocks::{Rule, RuleMode, mock, mock_client};
    use serde_json::{Value, json};

    use super::*;
    use shared::domain::PlayerId;

    const BUS: &str = "chess-presence";
    const SOURCE: &str = "chess.presence";

    fn events(n: usize) -> Vec<PresenceEvent> {
        (0..n)
            .map(|i| {
                let player = PlayerId::parse(format!("p{i:02}")).unwrap();
                if i % 2 == 0 {
                    PresenceEvent::connected(player, 1_795_323_600_000 + i as i64)
                } else {
                    PresenceEvent::disconnected(player, 1_795_323_600_000 + i as i64)
                }
            })
            .collect()
    }

    /// A bus whose client answers with `rules` (SDK retries off: one HTTP attempt per
    /// call), retrying refused entries quickly.
    fn bus(rules: &[&Rule]) -> EventBridgeBus {
        let client = mock_client!(aws_sdk_eventbridge, RuleMode::MatchAny, rules, |config| {
            config.retry_config(RetryConfig::disabled())
        });
        EventBridgeBus::new(client, BUS, SOURCE).with_entry_retry(EntryRetry {
            attempts: 4,
            base_delay: Duration::from_millis(1),
        })
    }

    /// The player ids of each PutEvents call, in call order.
    type Seen = Arc<Mutex<Vec<Vec<String>>>>;

    fn player_ids(entries: &[PutEventsRequestEntry]) -> Vec<String> {
        entries
            .iter()
            .map(|e| {
                let detail: Value = serde_json::from_str(e.detail().unwrap()).unwrap();
                detail["playerId"].as_str().unwrap().to_owned()
            })
            .collect()
    }

    fn accepted(n: usize) -> PutEventsOutput {
        let entries = (0..n)
            .map(|i| {
                PutEventsResultEntry::builder()
                    .event_id(format!("e{i}"))
                    .build()
            })
            .collect();
        PutEventsOutput::builder()
            .failed_entry_count(0)
            .set_entries(Some(entries))
            .build()
    }

    /// A response refusing the entries for which `refuse(player id)` is true.
    fn answer(entries: &[PutEventsRequestEntry], refuse: impl Fn(&str) -> bool) -> PutEventsOutput {
        let ids = player_ids(entries);
        let failed = ids.iter().filter(|id| refuse(id)).count();
        let results = ids
            .iter()
            .map(|id| {
                if refuse(id) {
                    PutEventsResultEntry::builder()
                        .error_code("InternalFailure")
                        .error_message("try again")
                        .build()
                } else {
                    PutEventsResultEntry::builder()
                        .event_id(format!("e-{id}"))
                        .build()
                }
            })
            .collect();
        PutEventsOutput::builder()
            .failed_entry_count(i32::try_from(failed).unwrap())
            .set_entries(Some(results))
            .build()
    }

    #[tokio::test]
    async fn given_25_events_when_publishing_then_3_calls_of_at_most_10_entries_as_designed() {
        let seen = Seen::default();
        let recorded = seen.clone();
        let rule = mock!(Client::put_events).then_compute_output(move |req| {
            recorded.lock().unwrap().push(player_ids(req.entries()));
            for entry in req.entries() {
                assert_eq!(entry.event_bus_name(), Some(BUS));
                assert_eq!(entry.source(), Some(SOURCE));
            }
            accepted(req.entries().len())
        });
        let published = events(25);
        bus(&[&rule]).publish(&published).await.unwrap();
        assert_eq!(rule.num_calls(), 3);
        let calls = seen.lock().unwrap().clone();
        let mut sizes: Vec<usize> = calls.iter().map(Vec::len).collect();
        sizes.sort_unstable();
        assert_eq!(sizes, vec![5, 10, 10]);
        let mut ids: Vec<String> = calls.concat();
        ids.sort();
        let expected: Vec<String> = published.iter().map(|e| e.player_id.to_string()).collect();
        assert_eq!(ids, expected);
    }

    #[tokio::test]
    async fn each_entry_carries_the_detail_type_the_detail_json_and_the_time() {
        let captured: Arc<Mutex<Vec<PutEventsRequestEntry>>> = Arc::default();
        let recorded = captured.clone();
        let rule = mock!(Client::put_events).then_compute_output(move |req| {
            recorded
                .lock()
                .unwrap()
                .extend(req.entries().iter().cloned());
            accepted(req.entries().len())
        });
        bus(&[&rule]).publish(&events(2)).await.unwrap();
        let entries = captured.lock().unwrap().clone();
        assert_eq!(entries[0].detail_type(), Some("presence.connected"));
        assert_eq!(entries[1].detail_type(), Some("presence.disconnected"));
        let detail: Value = serde_json::from_str(entries[1].detail().unwrap()).unwrap();
        assert_eq!(
            detail,
            json!({"playerId": "p01", "at": 1_795_323_600_001_i64})
        );
        assert_eq!(
            entries[1].time().map(|t| t.to_millis().unwrap()),
            Some(1_795_323_600_001)
        );
    }

    #[tokio::test]
    async fn nothing_to_publish_is_no_call() {
        let rule = mock!(Client::put_events).then_output(|| accepted(0));
        bus(&[&rule]).publish(&[]).await.unwrap();
        assert_eq!(rule.num_calls(), 0);
    }

    #[tokio::test]
    async fn given_a_partial_failure_then_only_the_refused_entries_are_retried_until_accepted() {
        let seen = Seen::default();
        let recorded = seen.clone();
        let rule = mock!(Client::put_events).then_compute_output(move |req| {
            let mut calls = recorded.lock().unwrap();
            calls.push(player_ids(req.entries()));
            // The first call refuses p03 and p07; the retry accepts them.
            if calls.len() == 1 {
                answer(req.entries(), |id| id == "p03" || id == "p07")
            } else {
                accepted(req.entries().len())
            }
        });
        bus(&[&rule]).publish(&events(10)).await.unwrap();
        let calls = seen.lock().unwrap().clone();
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0].len(), 10);
        assert_eq!(calls[1], vec!["p03", "p07"]);
    }

    #[tokio::test]
    async fn given_entries_refused_on_every_attempt_then_unavailable_naming_how_many() {
        let seen = Seen::default();
        let recorded = seen.clone();
        let rule = mock!(Client::put_events).then_compute_output(move |req| {
            recorded.lock().unwrap().push(player_ids(req.entries()));
            answer(req.entries(), |id| id == "p00" || id == "p12")
        });
        let err = bus(&[&rule]).publish(&events(15)).await.unwrap_err();
        let EventBusError::Unavailable(source) = &err else {
            panic!("{err:?}");
        };
        let unpublished = source
            .downcast_ref::<UnpublishedEvents>()
            .expect("the count is the source");
        assert_eq!(
            (unpublished.failed, unpublished.total, unpublished.attempts),
            (2, 15, 4)
        );
        assert_eq!(
            source.to_string(),
            "2 of 15 events still refused after 4 PutEvents attempts (error codes: InternalFailure)"
        );
        // Two batches (10 + 5), each: 1 call + 3 retries of its refused entry.
        assert_eq!(seen.lock().unwrap().len(), 8);
    }

    #[tokio::test]
    async fn given_throttling_or_an_internal_error_then_unavailable_keeping_the_sdk_error() {
        let throttled = mock!(Client::put_events).then_error(|| {
            PutEventsError::generic(
                ErrorMetadata::builder()
                    .code("ThrottlingException")
                    .message("Rate exceeded")
                    .build(),
            )
        });
        match bus(&[&throttled]).publish(&events(3)).await {
            Err(EventBusError::Unavailable(source)) => {
                let sdk = source
                    .downcast_ref::<SdkError<PutEventsError, HttpResponse>>()
                    .expect("the SDK error is the source");
                assert_eq!(sdk.code(), Some("ThrottlingException"));
            }
            other => panic!("{other:?}"),
        }
        let internal = mock!(Client::put_events)
            .then_error(|| PutEventsError::InternalException(InternalException::builder().build()));
        assert!(matches!(
            bus(&[&internal]).publish(&events(1)).await,
            Err(EventBusError::Unavailable(_))
        ));
        let unavailable = mock!(Client::put_events)
            .sequence()
            .http_status(503, None)
            .build();
        assert!(matches!(
            bus(&[&unavailable]).publish(&events(1)).await,
            Err(EventBusError::Unavailable(_))
        ));
    }

    #[tokio::test]
    async fn given_a_missing_bus_or_no_permission_then_a_fault() {
        for code in ["ResourceNotFoundException", "AccessDeniedException"] {
            let rule = mock!(Client::put_events).then_error(move || {
                PutEventsError::generic(ErrorMetadata::builder().code(code).build())
            });
            assert!(
                matches!(
                    bus(&[&rule]).publish(&events(1)).await,
                    Err(EventBusError::Other(_))
                ),
                "{code}"
            );
        }
    }

    #[test]
    fn retry_delays_double_from_the_base_and_are_jittered_into_their_upper_half() {
        for (attempt, full_ms) in [(1, 50), (2, 100), (3, 200)] {
            for _ in 0..200 {
                let delay = DEFAULT_ENTRY_RETRY.delay(attempt);
                let full = Duration::from_millis(full_ms);
                assert!(delay >= full / 2 && delay <= full, "{attempt}: {delay:?}");
            }
        }
        assert!(DEFAULT_ENTRY_RETRY.delay(u32::MAX) <= Duration::from_millis(50 << 16));
    }
}
