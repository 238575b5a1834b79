//! Every function's metrics, as it writes them: each function runs once on a sample event
//! of `events/` (as `cargo run -p local -- invoke` runs it, wrapped as its Lambda `main`
//! wraps it: `shared::metrics::invocation`), and the EMF lines of that invocation are
//! checked against the embedded metric format specification (a root `_aws` with
//! `Timestamp` and `CloudWatchMetrics`, every metric's value present, at most 100
//! metrics per directive and 30 dimensions per set: `shared::metrics::emf::validate`), the
//! catalogue (each metric's unit and dimension keys), and the metric names that event
//! should produce.
//!
//! Each runs twice: by default, when only each metric's default dimension set may be
//! written, and with `DETAILED_METRICS=true`, when each metric with a detailed set is
//! written with it too.
//!
//! It also writes down the bytes each function's EMF lines take per warm invocation in
//! each shape, which the cost model prices (`tools/data/emf-bytes.json` must agree).
//!
//! One test, in its own binary: the recorder is one per process, and the invocations
//! run one after another so that each one's lines are its own.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Test support: a panic is the test failing, with its message.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use shared::metrics::catalogue;
use shared::metrics::emf::{samples, validate};

/// (function, event file, the metric names its invocation writes besides `ColdStarts`).
const CASES: &[(&str, &str, &[&str])] = &[
    ("authorizer", "authorizer-header-mode.json", &[]),
    ("authorizer", "authorizer-jwt.json", &["AuthorizerDenials"]),
    ("connect", "connect.json", &["Requests"]),
    ("disconnect", "disconnect.json", &[]),
    (
        "default",
        "default-not-json.json",
        &["Refusals", "Requests"],
    ),
    (
        "default",
        "default-unknown-route.json",
        &["Refusals", "Requests"],
    ),
    ("resume", "resume.json", &["Requests"]),
    (
        "send-message",
        "send-message.json",
        &["Refusals", "Requests"],
    ),
    (
        "on-message-inserted",
        "stream-insert-single.json",
        &["Deliveries", "StreamBatchSize"],
    ),
    (
        "on-message-inserted",
        "stream-insert-batch.json",
        &["Deliveries", "StreamBatchSize"],
    ),
    (
        "session-placement-request",
        "session-placement-request.json",
        &["Requests"],
    ),
    (
        "cancel-placement",
        "cancel-placement.json",
        &["Refusals", "Requests"],
    ),
    (
        "rejoin-session",
        "rejoin-session.json",
        &["Refusals", "Requests"],
    ),
    // A placement this stack never recorded: not settled, counted as ignored.
    (
        "on-placement-event",
        "placement-fulfilled-sns.json",
        &["IgnoredEvents"],
    ),
    (
        "on-placement-event",
        "placement-malformed-sns.json",
        &["IgnoredEvents"],
    ),
    (
        "presence-timeout",
        "schedule-presence-timeout.json",
        &["PlayersOnline", "SweepDuration"],
    ),
    (
        "subscribe-presence",
        "presence-subscribe.json",
        &["Requests"],
    ),
    ("on-presence-event", "presence-connected.json", &[]),
    ("party", "party-create.json", &["Refusals", "Requests"]),
    ("friends", "friends-add.json", &["Refusals", "Requests"]),
    (
        "matchmaking",
        "start-matchmaking.json",
        &["Refusals", "Requests"],
    ),
    // Tickets this stack never recorded.
    (
        "on-matchmaking-event",
        "matchmaking-succeeded.json",
        &["IgnoredEvents"],
    ),
    (
        "backend-api",
        "backend-api-send-message.json",
        &["Refusals", "Requests"],
    ),
];

/// The `Reason`s of `IgnoredEvents` each sample event writes on a fresh stack (where no
/// placement or ticket is recorded).
const IGNORED: &[(&str, &[&str])] = &[
    // The samples' placement ids are not of the shape this stack makes.
    ("placement-fulfilled-sns.json", &["foreign"]),
    ("placement-malformed-sns.json", &["foreign", "malformed"]),
    ("matchmaking-succeeded.json", &["unknown"]),
];

fn event(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../events")
        .join(file)
}

fn settings(detailed: bool) -> local::Settings {
    let mut settings = local::Settings::default();
    // No sweep of the stack's own during the invocation: its lines would be counted.
    settings.presence.sweep_interval_seconds = 3600;
    // Nor a placement a session-placement-request case asked for, settled by its stack's
    // simulator while a later case runs.
    settings.simulator.sim_placement_delay_ms = 3_600_000;
    // The stack sets the recorder's detail from its settings when it starts.
    settings.detailed_metrics = detailed;
    settings
}

/// The bytes of the EMF lines `function` writes for `file`, warm.
async fn warm_bytes(
    function: &str,
    file: &str,
    detailed: bool,
    lines: &Mutex<Vec<String>>,
) -> usize {
    shared::metrics::flush();
    lines.lock().unwrap().clear();
    let path = event(file);
    let invoked = local::invoke_once::invoke_once(settings(detailed), function, &path);
    let _ = shared::metrics::invocation(invoked).await;
    shared::metrics::flush();
    lines
        .lock()
        .unwrap()
        .iter()
        .map(|line| line.len() + 1)
        .sum()
}

/// Every case once, with `DETAILED_METRICS` as `detailed` says: problems found, and the
/// bytes each function writes per warm invocation.
async fn pass(
    detailed: bool,
    lines: &Mutex<Vec<String>>,
    problems: &mut Vec<String>,
) -> BTreeMap<&'static str, usize> {
    let shape = if detailed { "detailed" } else { "default" };
    let mut emitted: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    let mut bytes: BTreeMap<&str, usize> = BTreeMap::new();
    for (function, file, expected) in CASES {
        shared::metrics::flush();
        lines.lock().unwrap().clear();
        // Each invocation stands for a new execution environment: a cold start.
        shared::metrics::cold_start_again();
        let result = shared::metrics::invocation(local::invoke_once::invoke_once(
            settings(detailed),
            function,
            &event(file),
        ))
        .await;
        if let Err(error) = result {
            problems.push(format!("{shape}: {function} {file}: {error}"));
        }
        shared::metrics::flush();
        let taken = std::mem::take(&mut *lines.lock().unwrap());
        let mut names = BTreeSet::new();
        let mut reasons = BTreeSet::new();
        let mut detail_written = BTreeSet::new();
        for line in &taken {
            for problem in validate(line) {
                problems.push(format!("{shape}: {function} {file}: {problem}: {line}"));
            }
            for sample in samples(line).unwrap_or_default() {
                let Some(metric) = catalogue::metric(&sample.name) else {
                    problems.push(format!(
                        "{function} {file}: {} is not in the catalogue",
                        sample.name
                    ));
                    continue;
                };
                let keys: Vec<&str> = sample.dimensions.iter().map(|(k, _)| k.as_str()).collect();
                let is_default = metric.default.is_some_and(|d| d.dimensions == keys);
                let is_detailed = metric.detailed.is_some_and(|d| d.dimensions == keys);
                if is_detailed {
                    detail_written.insert(sample.name.clone());
                }
                if !(is_default || detailed && is_detailed)
                    || sample.unit.as_deref() != Some(metric.unit)
                {
                    problems.push(format!(
                        "{shape}: {function} {file}: {} has dimensions {keys:?} and unit {:?}; the catalogue says {:?} and {}",
                        sample.name, sample.unit, metric.dimension_sets().collect::<Vec<_>>(), metric.unit
                    ));
                }
                if !metric.emitted_by.contains(function) {
                    problems.push(format!(
                        "{function} {file}: {} does not list {function} as an emitter",
                        sample.name
                    ));
                }
                if sample.name == catalogue::IGNORED_EVENTS.name {
                    reasons.extend(sample.dimensions.iter().map(|(_, v)| v.clone()));
                }
                names.insert(sample.name.clone());
            }
        }
        let want_reasons: BTreeSet<String> = (IGNORED.iter())
            .filter(|(f, _)| f == file)
            .flat_map(|(_, reasons)| reasons.iter().map(|r| (*r).to_owned()))
            .collect();
        if reasons != want_reasons {
            problems.push(format!(
                "{function} {file}: IgnoredEvents for {reasons:?}, expected {want_reasons:?}"
            ));
        }
        // CASES names what each writes with detail on; by default, what has a default set.
        let mut want: BTreeSet<String> = (expected.iter())
            .filter(|name| detailed || catalogue::metric(name).is_some_and(|m| m.default.is_some()))
            .map(|n| (*n).to_owned())
            .collect();
        want.insert("ColdStarts".to_owned());
        if names != want {
            problems.push(format!(
                "{shape}: {function} {file}: wrote {names:?}, expected {want:?}"
            ));
        }
        // With detail on, every metric written that has a detailed set was written with it.
        if detailed {
            for name in &names {
                let has_detail = catalogue::metric(name).is_some_and(|m| m.detailed.is_some());
                if has_detail && !detail_written.contains(name) {
                    problems.push(format!(
                        "{function} {file}: {name} without its detailed dimensions"
                    ));
                }
            }
        }
        if !emitted.contains_key(function) {
            // The same event again, warm (no cold start line): what the cost model
            // counts per invocation.
            bytes.insert(*function, warm_bytes(function, file, detailed, lines).await);
        }
        emitted.entry(function).or_default().extend(names);
    }
    // The sample events of five functions take a path a stack in use rarely takes (a
    // recipient nobody has, no watcher, no live socket, a placement or ticket never
    // recorded). Their common path, as the recorder writes the calls their handlers make:
    let common: [(&str, fn()); 5] = [
        ("send-message", || {
            shared::metrics::request("sendMessage", None)
        }),
        ("on-message-inserted", || {
            shared::metrics::delivery(shared::metrics::Delivery::Posted);
            shared::metrics::delivery_lag(120);
            shared::metrics::stream_batch(1, 0);
        }),
        ("on-placement-event", || {
            shared::metrics::placement("gamelift-sockets-Production", "FULFILLED", Some(8_000))
        }),
        ("on-presence-event", || shared::metrics::presence_fanout(5)),
        ("on-matchmaking-event", || {
            shared::metrics::ticket("COMPLETED", Some(30_000))
        }),
    ];
    for (function, calls) in common {
        shared::metrics::flush();
        lines.lock().unwrap().clear();
        shared::metrics::set_detailed(detailed);
        shared::metrics::invocation(async { calls() }).await;
        let written: Vec<String> = std::mem::take(&mut *lines.lock().unwrap());
        for line in &written {
            for problem in validate(line) {
                problems.push(format!(
                    "{shape}: {function}'s common path: {problem}: {line}"
                ));
            }
        }
        bytes.insert(function, written.iter().map(|line| line.len() + 1).sum());
    }
    // Every function writes something: at least its cold start.
    for function in local::invoke_once::FUNCTIONS {
        assert!(emitted.contains_key(function), "no case runs {function}");
    }
    bytes
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn given_each_functions_sample_event_when_it_runs_with_detail_off_or_on_then_its_emf_lines_follow_the_specification_and_name_its_metrics()
 {
    let lines = Arc::new(Mutex::new(Vec::<String>::new()));
    let sink = lines.clone();
    // As `telemetry::init` installs it in Lambda, before the first invocation.
    shared::metrics::install("GameLiftSockets/emf-test/Development", false);
    let _listener = shared::metrics::add_listener(Arc::new(move |line: &str| {
        sink.lock().unwrap().push(line.to_owned())
    }));
    let mut problems = Vec::new();
    let file: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tools/data/emf-bytes.json"
        ))
        .unwrap(),
    )
    .unwrap();
    // `functions`: by default; `detailed`: with DETAILED_METRICS=true.
    for (detailed, key) in [(false, "functions"), (true, "detailed")] {
        let bytes = pass(detailed, &lines, &mut problems).await;
        let measured = serde_json::to_string_pretty(&bytes).unwrap();
        println!("EMF bytes per warm invocation (tools/data/emf-bytes.json, {key}):\n{measured}");
        for (function, got) in &bytes {
            let listed = file[key][function].as_f64().unwrap_or(-1.0);
            // Values and timestamps change the length by a few bytes, not more.
            if (listed - *got as f64).abs() > 16.0 {
                problems.push(format!(
                    "tools/data/emf-bytes.json's {key} says {function} writes {listed} bytes; it wrote {got}"
                ));
            }
        }
    }
    shared::metrics::set_detailed(false);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
