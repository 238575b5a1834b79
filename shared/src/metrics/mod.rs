//! Metrics as CloudWatch embedded metric format (EMF) log lines: what players feel
//! (players online, deliveries and their lag, placements and tickets by outcome, refusals
//! by route and code), counted where it happens and written with the function's logs. No
//! PutMetricData call, no extra round trip: CloudWatch Logs extracts the metrics from
//! the lines (specification: `emf.rs`).
//!
//! The recorder is `metrics_cloudwatch_embedded` behind the `metrics` facade. A Lambda
//! process serves one invocation at a time: [`invocation`](crate::metrics::invocation) wraps each one and flushes
//! what it counted as one EMF document per dimension set, on stdout, before the response
//! goes back (a few hundred bytes, one `write`). Nothing is installed elsewhere (unit
//! tests, tools), and the facade's macros then do nothing. The local stack installs the
//! same recorder with [`install`](crate::metrics::install) and hands the very lines to its console
//! ([`add_listener`](crate::metrics::add_listener)), so what a developer sees there is what CloudWatch will extract.
//!
//! Every metric, with its unit and dimensions, is in [`catalogue`](crate::metrics::catalogue); handlers call the
//! functions below, never the macros, so no name or dimension is made up on the way.

pub mod catalogue;
pub mod emf;

use std::future::Future;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use ::metrics::Unit;
use metrics_cloudwatch_embedded::{Builder, Collector};

use crate::frames::ErrorCode;
use catalogue::{Kind, Metric};

/// The namespace of a deployed stack's metrics: one per game and stage.
pub fn namespace(game: &str, stage: &str) -> String {
    format!("GameLiftSockets/{game}/{stage}")
}

/// Receives each EMF line a flush writes (the local console).
pub type Listener = Arc<dyn Fn(&str) + Send + Sync>;

struct Installed {
    collector: &'static Collector,
    stdout: bool,
}

static INSTALLED: OnceLock<Installed> = OnceLock::new();
static LISTENERS: Mutex<Vec<(u64, Listener)>> = Mutex::new(Vec::new());
static NEXT_LISTENER: AtomicU64 = AtomicU64::new(0);
static FLUSHING: Mutex<()> = Mutex::new(());
/// Histogram values recorded since the last flush. The recorder keeps at most 100 per
/// histogram between flushes (an EMF value array's limit) and drops the rest, so a flush
/// comes first when a batch records that many.
static PENDING_VALUES: AtomicUsize = AtomicUsize::new(0);
const FLUSH_AT_VALUES: usize = 90;
static WARM: AtomicBool = AtomicBool::new(false);
/// `DETAILED_METRICS`: the detailed series too (`catalogue::Metric::detailed`).
static DETAILED: AtomicBool = AtomicBool::new(false);

/// Writes each metric's detailed series besides its default ones (per route, queue or
/// bucket) from now on, or stops.
pub fn set_detailed(detailed: bool) {
    DETAILED.store(detailed, Ordering::Relaxed);
}

/// Whether the detailed series are written.
pub fn detailed() -> bool {
    DETAILED.load(Ordering::Relaxed)
}

/// In Lambda (`AWS_LAMBDA_FUNCTION_NAME` set): installs the recorder, namespaced by the
/// stack's `GAME` and `STAGE`, writing to stdout, with the detailed series if
/// `DETAILED_METRICS` says so. Each document carries `"level"` set
/// to the function's `AWS_LAMBDA_LOG_LEVEL`: with the JSON log format Lambda filters
/// application lines by their `level` (a line without one counts as INFO), and a
/// document must pass whatever level the stack logs at. Called by `telemetry::init`.
pub fn install_for_lambda() {
    if std::env::var_os("AWS_LAMBDA_FUNCTION_NAME").is_none() {
        return;
    }
    // The settings' own names (config::settings), as every other reader of them.
    use crate::config::settings::{DETAILED_METRICS, GAME, STAGE};
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let mut env = crate::config::reader::EnvReader::from_process();
    set_detailed(env.flag(&DETAILED_METRICS));
    if let Err(problem) = env.finish() {
        // The metrics are not worth refusing to start for: the default series.
        tracing::warn!(%problem, "writing the default metrics only");
    }
    let level = std::env::var("AWS_LAMBDA_LOG_LEVEL").unwrap_or_else(|_| "INFO".into());
    if install(&namespace(&var(GAME.variable), &var(STAGE.variable)), true)
        && let Some(installed) = INSTALLED.get()
    {
        installed
            .collector
            .set_property("level", level.to_uppercase());
    }
}

/// Installs the recorder for this process: `namespace`, lines to stdout if `stdout`
/// and to every listener. False if one was installed already (the process keeps the
/// first: the facade has one global recorder).
pub fn install(namespace: &str, stdout: bool) -> bool {
    if INSTALLED.get().is_some() {
        return false;
    }
    // Fails when the facade already has a recorder (a racing `install`).
    let Ok(collector) = Builder::new()
        .cloudwatch_namespace(namespace.to_owned())
        .init()
    else {
        return false;
    };
    describe_units();
    // What Lambda's JSON log format reads as the line's level (`install_for_lambda`);
    // elsewhere INFO, so that a line is the same size as in Lambda at INFO.
    collector.set_property("level", "INFO");
    INSTALLED.set(Installed { collector, stdout }).is_ok()
}

/// Whether a recorder is installed in this process.
pub fn installed() -> bool {
    INSTALLED.get().is_some()
}

fn describe_units() {
    for metric in catalogue::CATALOGUE {
        let unit = match metric.unit {
            "Milliseconds" => Unit::Milliseconds,
            _ => Unit::Count,
        };
        match metric.kind {
            Kind::Counter => ::metrics::describe_counter!(metric.name, unit, metric.meaning),
            Kind::Histogram => ::metrics::describe_histogram!(metric.name, unit, metric.meaning),
            // Gauges are written as one value each time they are set (see `sweep`).
            Kind::Gauge => ::metrics::describe_histogram!(metric.name, unit, metric.meaning),
        }
    }
}

/// Hands every EMF line flushed from now on to `listener`, until the returned guard
/// is dropped.
pub fn add_listener(listener: Listener) -> ListenerGuard {
    let id = NEXT_LISTENER.fetch_add(1, Ordering::Relaxed);
    lock_listeners().push((id, listener));
    ListenerGuard(id)
}

/// Removes its listener when dropped.
#[derive(Debug)]
pub struct ListenerGuard(u64);

impl Drop for ListenerGuard {
    fn drop(&mut self) {
        lock_listeners().retain(|(id, _)| *id != self.0);
    }
}

fn lock_listeners() -> std::sync::MutexGuard<'static, Vec<(u64, Listener)>> {
    LISTENERS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Writes what was counted since the last flush: one EMF document per dimension set, a
/// line each, to stdout (Lambda) and the listeners (the local console). Nothing when
/// nothing was counted or nothing is installed.
pub fn flush() {
    let Some(installed) = INSTALLED.get() else {
        return;
    };
    // One flush at a time, delivery included: a flush that returns has handed on every
    // line counted before it (another thread's flush cannot still be delivering them).
    let _one_at_a_time = FLUSHING
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let mut lines = Vec::with_capacity(512);
    PENDING_VALUES.store(0, Ordering::Relaxed);
    // Writing into a Vec cannot fail.
    let _ = installed.collector.flush(&mut lines);
    if lines.is_empty() {
        return;
    }
    if installed.stdout {
        // One locked write: no log line of another task lands inside a document.
        let mut stdout = std::io::stdout().lock();
        let _ = stdout.write_all(&lines);
        let _ = stdout.flush();
    }
    let listeners: Vec<Listener> = lock_listeners().iter().map(|(_, l)| l.clone()).collect();
    if listeners.is_empty() {
        return;
    }
    let text = String::from_utf8_lossy(&lines);
    for line in text.lines() {
        for listener in &listeners {
            listener(line);
        }
    }
}

/// Runs one invocation, then flushes what it counted; the first one of the process
/// also counts a cold start. `aws_adapters::lambda::serve` wraps every handler with it (the
/// authorizer's, `default`'s and `backend-api`'s `main` wrap their own).
pub async fn invocation<F: Future>(handling: F) -> F::Output {
    if !WARM.swap(true, Ordering::Relaxed) {
        count(&catalogue::COLD_STARTS, &[], 1);
    }
    let output = handling.await;
    flush();
    output
}

/// Makes the next [`invocation`] count a cold start again: for a test whose invocations
/// each stand for a new execution environment.
#[doc(hidden)]
pub fn cold_start_again() {
    WARM.store(false, Ordering::Relaxed);
}

fn count(metric: &'static Metric, labels: &[(&'static str, String)], n: u64) {
    if n == 0 || !installed() {
        return;
    }
    counter(metric, labels).increment(n);
}

fn record(metric: &'static Metric, labels: &[(&'static str, String)], values: &[f64]) {
    if values.is_empty() || !installed() {
        return;
    }
    record_into(&histogram(metric, labels), values);
}

/// The recorder's handle of one counter series. Registering takes the recorder's lock
/// and copies the labels: the series counted for every message keep theirs
/// ([`Registered`]).
fn counter(metric: &'static Metric, labels: &[(&'static str, String)]) -> ::metrics::Counter {
    ::metrics::counter!(metric.name, to_labels(labels))
}

fn histogram(metric: &'static Metric, labels: &[(&'static str, String)]) -> ::metrics::Histogram {
    ::metrics::histogram!(metric.name, to_labels(labels))
}

fn to_labels(labels: &[(&'static str, String)]) -> Vec<::metrics::Label> {
    labels
        .iter()
        .map(|(key, value)| ::metrics::Label::new(*key, value.clone()))
        .collect()
}

fn record_into(histogram: &::metrics::Histogram, values: &[f64]) {
    for value in values {
        if PENDING_VALUES.fetch_add(1, Ordering::Relaxed) >= FLUSH_AT_VALUES {
            flush();
        }
        histogram.record(*value);
    }
}

/// Handles registered once, on first use after the recorder is installed (the process
/// keeps that recorder, and the recorder its series): for the series counted on every
/// delivery, where registering each time was several allocations and a lock per
/// message.
struct Registered<T>(OnceLock<T>);

impl<T> Registered<T> {
    const fn new() -> Self {
        Self(OnceLock::new())
    }

    /// The handles, or `None` while no recorder is installed (nothing is counted then).
    fn get(&self, register: impl FnOnce() -> T) -> Option<&T> {
        installed().then(|| self.0.get_or_init(register))
    }
}

static DELIVERY_COUNTERS: Registered<[::metrics::Counter; Delivery::ALL.len()]> = Registered::new();
static DELIVERY_LAG: Registered<::metrics::Histogram> = Registered::new();
static STREAM_BATCHES: Registered<(::metrics::Histogram, ::metrics::Counter)> = Registered::new();

fn millis(ms: i64) -> f64 {
    ms.max(0) as f64
}

/// A route's request, answered `code` (`None`: acked).
pub fn request(route: &'static str, code: Option<ErrorCode>) {
    other_request(route, code.map(ErrorCode::as_str));
}

/// A request of a route outside the client protocol (`$connect`, the backend API),
/// refused with `code` (a short stable name) or not.
pub fn other_request(route: &'static str, code: Option<&'static str>) {
    // API Gateway's own MessageCount and ConnectCount count every request, free: per
    // route is the detail.
    if detailed() {
        count(&catalogue::REQUESTS, &[("Route", route.to_owned())], 1);
    }
    if let Some(code) = code {
        count(&catalogue::REFUSALS, &[("Code", code.to_owned())], 1);
        if detailed() {
            let labels = [("Route", route.to_owned()), ("Code", code.to_owned())];
            count(&catalogue::REFUSALS, &labels, 1);
        }
    }
}

/// A call refused by the per-player limit `limit`.
pub fn rate_limited(limit: &'static str) {
    // By default, the refusal's `rate_limited` code counts it.
    if detailed() {
        count(&catalogue::RATE_LIMITED, &[("Limit", limit.to_owned())], 1);
    }
}

/// What became of one pushed frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Delivery {
    Posted,
    Offline,
    Gone,
    Failed,
}

impl Delivery {
    /// Every outcome, each at its own discriminant's index.
    pub const ALL: [Self; 4] = [Self::Posted, Self::Offline, Self::Gone, Self::Failed];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Posted => "posted",
            Self::Offline => "offline",
            Self::Gone => "gone",
            Self::Failed => "failed",
        }
    }
}

/// One pushed frame's outcome.
pub fn delivery(outcome: Delivery) {
    let counters = DELIVERY_COUNTERS.get(|| {
        Delivery::ALL.map(|outcome| {
            counter(
                &catalogue::DELIVERIES,
                &[("Outcome", outcome.as_str().to_owned())],
            )
        })
    });
    if let Some(counters) = counters {
        counters[outcome as usize].increment(1);
    }
}

/// A posted frame's time from its insert to its post.
pub fn delivery_lag(ms: i64) {
    if let Some(lag) = DELIVERY_LAG.get(|| histogram(&catalogue::DELIVERY_LAG, &[])) {
        record_into(lag, &[millis(ms)]);
    }
}

/// One Messages stream batch: its records, and how many go back to Lambda to retry.
pub fn stream_batch(records: usize, failed: usize) {
    let series = STREAM_BATCHES.get(|| {
        (
            histogram(&catalogue::STREAM_BATCH_SIZE, &[]),
            counter(&catalogue::STREAM_FAILURES, &[]),
        )
    });
    if let Some((sizes, failures)) = series {
        record_into(sizes, &[records as f64]);
        if failed > 0 {
            failures.increment(failed as u64);
        }
    }
}

/// A placement settled `status` on `queue`, `ms` after it was asked for (when known).
pub fn placement(queue: &str, status: &'static str, ms: Option<i64>) {
    count(&catalogue::PLACEMENTS, &[("Status", status.to_owned())], 1);
    if let Some(ms) = ms {
        record(&catalogue::PLACEMENT_TIME, &[], &[millis(ms)]);
    }
    if detailed() {
        let labels = [("Queue", queue.to_owned()), ("Status", status.to_owned())];
        count(&catalogue::PLACEMENTS, &labels, 1);
        if let Some(ms) = ms {
            record(&catalogue::PLACEMENT_TIME, &labels, &[millis(ms)]);
        }
    }
}

/// A matchmaking ticket ended `status`, `ms` after it was asked for (when known).
pub fn ticket(status: &'static str, ms: Option<i64>) {
    let labels = [("Status", status.to_owned())];
    count(&catalogue::MATCHMAKING_TICKETS, &labels, 1);
    if let Some(ms) = ms {
        record(&catalogue::MATCHMAKING_TIME, &[], &[millis(ms)]);
        if detailed() {
            record(&catalogue::MATCHMAKING_TIME, &labels, &[millis(ms)]);
        }
    }
}

/// Why a GameLift placement or FlexMatch event changed nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ignored {
    /// Its placement or ticket id has the shape this stack makes, but no record: another
    /// stack's (a queue topic feeding two stacks) or one lost.
    Unknown,
    /// Its placement id has a shape this stack never makes (a v7 UUID): FlexMatch's own
    /// placements through the stack's queue, or another system's.
    Foreign,
    /// The placement or ticket is already where the event would move it.
    Duplicate,
    /// The placement or ticket has moved past the event (late or out of order).
    OutOfOrder,
    /// Not a GameLift event this function reads.
    Malformed,
}

impl Ignored {
    pub const ALL: [Self; 5] = [
        Self::Unknown,
        Self::Foreign,
        Self::Duplicate,
        Self::OutOfOrder,
        Self::Malformed,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Unknown => "unknown",
            Self::Foreign => "foreign",
            Self::Duplicate => "duplicate",
            Self::OutOfOrder => "out_of_order",
            Self::Malformed => "malformed",
        }
    }
}

/// A placement or matchmaking event that changed nothing, for `reason`.
pub fn ignored_event(reason: Ignored) {
    count(
        &catalogue::IGNORED_EVENTS,
        &[("Reason", reason.as_str().to_owned())],
        1,
    );
}

/// What one sweep did, and (from a sweep that read every shard) who is online.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sweep {
    pub examined: usize,
    pub swept: usize,
    pub failures: usize,
    pub duration_ms: i64,
    pub online: Option<usize>,
}

pub fn sweep(sweep: Sweep) {
    if detailed() {
        count(&catalogue::SWEEP_EXAMINED, &[], sweep.examined as u64);
        count(&catalogue::SWEEP_SWEPT, &[], sweep.swept as u64);
    }
    count(&catalogue::SWEEP_FAILURES, &[], sweep.failures as u64);
    record(
        &catalogue::SWEEP_DURATION,
        &[],
        &[millis(sweep.duration_ms)],
    );
    // One value per sweep, recorded as a histogram value: the recorder writes a gauge in
    // every later flush of the process, this once.
    if let Some(online) = sweep.online {
        record(&catalogue::PLAYERS_ONLINE, &[], &[online as f64]);
    }
}

/// Presence frames appended to watchers' inboxes.
pub fn presence_fanout(frames: usize) {
    // Detail: the deliveries count the frames once they are posted.
    if detailed() {
        count(&catalogue::PRESENCE_FANOUT, &[], frames as u64);
    }
}

/// A connection the authorizer denied, for `reason` (a short stable name).
pub fn authorizer_denial(reason: &'static str) {
    count(
        &catalogue::AUTHORIZER_DENIALS,
        &[("Reason", reason.to_owned())],
        1,
    );
}

#[cfg(test)]
mod tests;
