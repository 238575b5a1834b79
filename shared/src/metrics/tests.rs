//! The recorder is one per process, so one test installs it and checks everything
//! (other tests of this crate may count into it meanwhile: only what this one counted
//! is asserted, as a floor).

use std::sync::{Arc, Mutex};

use super::emf::{Sample, samples, validate};
use super::*;

fn flushed(lines: &Mutex<Vec<String>>) -> Vec<Sample> {
    flush();
    let lines = std::mem::take(&mut *lines.lock().unwrap());
    for line in &lines {
        assert_eq!(validate(line), Vec::<String>::new(), "{line}");
    }
    lines
        .iter()
        .flat_map(|line| samples(line).unwrap())
        .collect()
}

fn total(samples: &[Sample], name: &str, dimensions: &[(&str, &str)]) -> f64 {
    samples
        .iter()
        .filter(|s| s.name == name)
        .filter(|s| {
            dimensions
                .iter()
                .all(|(k, v)| s.dimensions.iter().any(|(dk, dv)| dk == k && dv == v))
        })
        .flat_map(|s| s.values.iter())
        .sum()
}

/// The sum of `name`'s values written with exactly `dimensions` (no other key).
fn exact(samples: &[Sample], name: &str, dimensions: &[(&str, &str)]) -> f64 {
    samples
        .iter()
        .filter(|s| s.name == name && s.dimensions.len() == dimensions.len())
        .filter(|s| {
            dimensions
                .iter()
                .all(|(k, v)| s.dimensions.iter().any(|(dk, dv)| dk == k && dv == v))
        })
        .flat_map(|s| s.values.iter())
        .sum()
}

#[tokio::test]
async fn given_the_recorder_installed_when_metrics_are_counted_then_each_flush_is_valid_emf_with_them()
 {
    assert!(install("GameLiftSockets/test/Development", false));
    assert!(!install("another", false), "the first recorder stays");
    let lines = Arc::new(Mutex::new(Vec::new()));
    let sink = lines.clone();
    let guard = add_listener(Arc::new(move |line: &str| {
        sink.lock().unwrap().push(line.to_owned())
    }));

    let output = invocation(async {
        request("sendMessage", None);
        request("sendMessage", Some(ErrorCode::RateLimited));
        rate_limited("messages");
        delivery(Delivery::Posted);
        delivery_lag(-5);
        7
    })
    .await;
    assert_eq!(output, 7);
    // `invocation` flushed already.
    let got: Vec<Sample> = lines
        .lock()
        .unwrap()
        .drain(..)
        .flat_map(|line| {
            assert_eq!(validate(&line), Vec::<String>::new(), "{line}");
            samples(&line).unwrap()
        })
        .collect();
    assert!(
        got.iter()
            .all(|s| s.namespace == "GameLiftSockets/test/Development")
    );
    // By default (DETAILED_METRICS unset): no series per route or bucket.
    assert_eq!(total(&got, "Requests", &[]), 0.0);
    assert!(exact(&got, "Refusals", &[("Code", "rate_limited")]) >= 1.0);
    assert_eq!(
        exact(
            &got,
            "Refusals",
            &[("Route", "sendMessage"), ("Code", "rate_limited")]
        ),
        0.0
    );
    assert_eq!(total(&got, "RateLimited", &[]), 0.0);
    assert_eq!(total(&got, "Deliveries", &[("Outcome", "posted")]), 1.0);
    assert_eq!(total(&got, "ColdStarts", &[]), 1.0);
    let lag = got.iter().find(|s| s.name == "DeliveryLag").unwrap();
    assert_eq!(
        lag.values,
        vec![0.0],
        "a clock behind the insert is 0, not negative"
    );
    assert_eq!(lag.unit.as_deref(), Some("Milliseconds"));

    // A second invocation is warm; 250 lag values all arrive, no array over 100.
    invocation(async {
        for ms in 0..250 {
            delivery_lag(ms);
        }
        stream_batch(250, 3);
    })
    .await;
    let got = flushed(&lines);
    assert_eq!(total(&got, "ColdStarts", &[]), 0.0);
    let lags: Vec<&Sample> = got.iter().filter(|s| s.name == "DeliveryLag").collect();
    assert_eq!(lags.iter().map(|s| s.values.len()).sum::<usize>(), 250);
    assert!(
        lags.iter()
            .all(|s| s.values.len() <= emf::MAX_VALUES_PER_METRIC)
    );
    assert_eq!(total(&got, "StreamFailures", &[]), 3.0);

    placement("queue-1", "FULFILLED", Some(1500));
    ticket("TIMED_OUT", None);
    sweep(Sweep {
        examined: 4,
        swept: 1,
        failures: 0,
        duration_ms: 12,
        online: Some(3),
    });
    presence_fanout(5);
    authorizer_denial("missing_credentials");
    other_request("$connect", Some("unavailable"));
    ignored_event(Ignored::Duplicate);
    let got = flushed(&lines);
    assert_eq!(exact(&got, "Placements", &[("Status", "FULFILLED")]), 1.0);
    assert_eq!(total(&got, "Placements", &[("Queue", "queue-1")]), 0.0);
    assert_eq!(exact(&got, "PlacementTime", &[]), 1500.0);
    assert_eq!(
        total(&got, "MatchmakingTickets", &[("Status", "TIMED_OUT")]),
        1.0
    );
    assert_eq!(
        total(&got, "MatchmakingTime", &[]),
        0.0,
        "no time: no value"
    );
    assert_eq!(total(&got, "PlayersOnline", &[]), 3.0);
    assert_eq!(total(&got, "SweepExamined", &[]), 0.0, "detail");
    assert_eq!(total(&got, "PresenceFanout", &[]), 0.0, "detail");
    assert_eq!(
        total(&got, "SweepFailures", &[]),
        0.0,
        "zero is not written"
    );
    assert_eq!(
        total(
            &got,
            "AuthorizerDenials",
            &[("Reason", "missing_credentials")]
        ),
        1.0
    );
    assert!(exact(&got, "Refusals", &[("Code", "unavailable")]) >= 1.0);
    assert!(exact(&got, "IgnoredEvents", &[("Reason", "duplicate")]) >= 1.0);
    check_against_catalogue(&got, false);

    // With DETAILED_METRICS=true: the same default series, and the detailed ones besides.
    set_detailed(true);
    request("sendMessage", Some(ErrorCode::Conflict));
    rate_limited("messages");
    placement("queue-1", "CANCELLED", Some(900));
    ticket("COMPLETED", Some(30_000));
    sweep(Sweep {
        examined: 4,
        swept: 1,
        failures: 0,
        duration_ms: 12,
        online: None,
    });
    presence_fanout(5);
    let got = flushed(&lines);
    set_detailed(false);
    assert!(exact(&got, "Requests", &[("Route", "sendMessage")]) >= 1.0);
    assert!(exact(&got, "Refusals", &[("Code", "conflict")]) >= 1.0);
    assert!(
        exact(
            &got,
            "Refusals",
            &[("Route", "sendMessage"), ("Code", "conflict")]
        ) >= 1.0
    );
    assert!(exact(&got, "RateLimited", &[("Limit", "messages")]) >= 1.0);
    assert_eq!(exact(&got, "Placements", &[("Status", "CANCELLED")]), 1.0);
    assert_eq!(
        exact(
            &got,
            "Placements",
            &[("Queue", "queue-1"), ("Status", "CANCELLED")]
        ),
        1.0
    );
    assert_eq!(exact(&got, "PlacementTime", &[]), 900.0);
    assert_eq!(
        exact(
            &got,
            "PlacementTime",
            &[("Queue", "queue-1"), ("Status", "CANCELLED")]
        ),
        900.0
    );
    assert_eq!(exact(&got, "MatchmakingTime", &[]), 30_000.0);
    assert_eq!(
        exact(&got, "MatchmakingTime", &[("Status", "COMPLETED")]),
        30_000.0
    );
    assert_eq!(total(&got, "SweepExamined", &[]), 4.0);
    assert_eq!(total(&got, "SweepSwept", &[]), 1.0);
    assert_eq!(total(&got, "PresenceFanout", &[]), 5.0);
    check_against_catalogue(&got, true);

    drop(guard);
    request("resume", Some(ErrorCode::NotFound));
    flush();
    assert!(
        lines.lock().unwrap().is_empty(),
        "a dropped listener hears nothing"
    );
}

/// Every sample is a catalogue metric with its unit, written with its default dimension
/// set, or (`detailed`) its detailed one.
fn check_against_catalogue(got: &[Sample], detailed: bool) {
    for sample in got {
        let metric = catalogue::metric(&sample.name).expect("a catalogue metric");
        let keys: Vec<&str> = sample.dimensions.iter().map(|(k, _)| k.as_str()).collect();
        let allowed: Vec<&[&str]> = (metric.default.iter())
            .chain(metric.detailed.iter().filter(|_| detailed))
            .map(|series| series.dimensions)
            .collect();
        assert!(
            allowed.contains(&keys.as_slice()),
            "{} with {keys:?}",
            sample.name
        );
        assert_eq!(sample.unit.as_deref(), Some(metric.unit), "{}", sample.name);
    }
}

#[test]
fn given_every_delivery_outcome_then_its_registered_counter_is_at_its_own_index() {
    // Given / When: the outcomes in the order their counters are registered.
    // Then: each outcome's discriminant is its place (a reordered enum would count one
    // outcome as another).
    for (index, outcome) in Delivery::ALL.into_iter().enumerate() {
        assert_eq!(outcome as usize, index, "{outcome:?}");
    }
}
