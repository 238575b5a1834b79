//! The console's metrics: computed from the EMF lines the handlers write, read back as
//! CloudWatch reads them (`shared::metrics::emf`), so the numbers here are the ones a
//! deployed stack's dashboard shows. The local stack installs the same recorder the
//! functions install in Lambda; once it serves, it flushes it every [`FLUSH_EVERY`] into
//! [`Board`] (counters summed since the stack started, histograms kept for percentiles).

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::Duration;

use serde_json::{Value, json};
use shared::metrics::catalogue::{self, Kind};
use shared::metrics::emf;

/// How often the local stack flushes the recorder: the console is live to about this.
pub const FLUSH_EVERY: Duration = Duration::from_millis(500);
/// Values a histogram series keeps for its percentiles (the most recent).
pub const KEPT_VALUES: usize = 2000;
/// The delivery lag histogram's bucket upper bounds, in milliseconds (the last bucket
/// is everything above the last bound).
pub const LAG_BOUNDS_MS: [f64; 9] = [
    10.0, 25.0, 50.0, 100.0, 250.0, 500.0, 1000.0, 2500.0, 5000.0,
];

#[derive(Default)]
struct Series {
    unit: String,
    /// Counters: the sum of every value; histograms: of every value too (mean = total
    /// / count); gauges: the last value.
    total: f64,
    count: u64,
    last: f64,
    kept: VecDeque<f64>,
}

#[derive(Default)]
struct Tally {
    namespace: Option<String>,
    documents: u64,
    bytes: u64,
    invalid: u64,
    series: BTreeMap<(String, Vec<(String, String)>), Series>,
    lag_buckets: [u64; LAG_BOUNDS_MS.len() + 1],
}

/// What the EMF lines have said since the stack started.
#[derive(Default)]
pub struct Board {
    tally: Mutex<Tally>,
    listener: Mutex<Option<shared::metrics::ListenerGuard>>,
}

impl Board {
    fn tally(&self) -> MutexGuard<'_, Tally> {
        // Every change under this lock is a few additions: a panic cannot leave it torn.
        self.tally.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Takes one EMF line as CloudWatch would: a line the specification refuses is
    /// counted as invalid and read no further.
    pub fn record_line(&self, line: &str) {
        let mut tally = self.tally();
        tally.documents += 1;
        tally.bytes += line.len() as u64 + 1;
        let Some(samples) = emf::samples(line) else {
            tally.invalid += 1;
            return;
        };
        for sample in samples {
            tally
                .namespace
                .get_or_insert_with(|| sample.namespace.clone());
            if sample.name == catalogue::DELIVERY_LAG.name {
                for value in &sample.values {
                    let bucket = LAG_BOUNDS_MS.iter().position(|bound| value <= bound);
                    tally.lag_buckets[bucket.unwrap_or(LAG_BOUNDS_MS.len())] += 1;
                }
            }
            let kind = catalogue::metric(&sample.name).map(|m| m.kind);
            let series = tally
                .series
                .entry((sample.name, sample.dimensions))
                .or_default();
            series.unit = sample.unit.unwrap_or_default();
            for value in sample.values {
                series.count += 1;
                series.last = value;
                match kind {
                    Some(Kind::Gauge) => series.total = value,
                    _ => series.total += value,
                }
                if kind == Some(Kind::Histogram) {
                    if series.kept.len() == KEPT_VALUES {
                        series.kept.pop_front();
                    }
                    series.kept.push_back(value);
                }
            }
        }
    }

    /// The `metrics` section: every series, and the delivery lag histogram.
    pub fn snapshot(&self) -> Value {
        let tally = self.tally();
        let series: Vec<Value> = tally
            .series
            .iter()
            .map(|((name, dimensions), series)| {
                let kind = catalogue::metric(name).map_or(Kind::Counter, |m| m.kind);
                let mut row = json!({
                    "name": name,
                    "unit": series.unit,
                    "kind": format!("{kind:?}").to_lowercase(),
                    "dimensions": dimensions.iter().map(|(k, v)| (k.clone(), json!(v))).collect::<serde_json::Map<_, _>>(),
                    "total": series.total,
                    "count": series.count,
                    "last": series.last,
                });
                if kind == Kind::Histogram {
                    let mut sorted: Vec<f64> = series.kept.iter().copied().collect();
                    sorted.sort_by(f64::total_cmp);
                    row["p50"] = json!(percentile(&sorted, 0.50));
                    row["p90"] = json!(percentile(&sorted, 0.90));
                    row["p99"] = json!(percentile(&sorted, 0.99));
                    row["max"] = json!(sorted.last());
                }
                row
            })
            .collect();
        json!({
            "namespace": tally.namespace,
            "documents": tally.documents,
            "bytes": tally.bytes,
            "invalid": tally.invalid,
            "series": series,
            "lag": {
                "boundsMs": LAG_BOUNDS_MS,
                "counts": tally.lag_buckets,
            },
        })
    }
}

/// The value at `q` of `sorted` (nearest rank), `None` when empty.
pub fn percentile(sorted: &[f64], q: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted.get(rank.clamp(1, sorted.len()) - 1).copied()
}

/// Feeds `board` with the EMF lines of this process: listens, and flushes the recorder
/// every [`FLUSH_EVERY`] until the board is dropped. Two stacks in one process (tests)
/// share the one recorder, and so each other's metrics. Only a stack that serves its
/// console attaches one: a one-shot `local invoke` (and the EMF test) writes its lines
/// as Lambda does, one flush per invocation, never split by a flush of the console's.
pub fn attach(board: &Arc<Board>) {
    let weak: Weak<Board> = Arc::downgrade(board);
    let listener = weak.clone();
    let guard = shared::metrics::add_listener(Arc::new(move |line: &str| {
        if let Some(board) = listener.upgrade() {
            board.record_line(line);
        }
    }));
    *board
        .listener
        .lock()
        .unwrap_or_else(PoisonError::into_inner) = Some(guard);
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(FLUSH_EVERY);
        loop {
            ticks.tick().await;
            if weak.strong_count() == 0 {
                return;
            }
            shared::metrics::flush();
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn given_emf_lines_then_counters_sum_histograms_rank_and_bad_lines_are_counted() {
        let board = Board::default();
        let doc = |dims: &str, metrics: &str, values: &str| {
            format!(
                r#"{{"_aws":{{"Timestamp":1,"CloudWatchMetrics":[{{"Namespace":"ns","Dimensions":[[{dims}]],"Metrics":[{metrics}]}}]}},{values}}}"#
            )
        };
        board.record_line(&doc(
            r#""Outcome""#,
            r#"{"Name":"Deliveries","Unit":"Count"}"#,
            r#""Outcome":"posted","Deliveries":2"#,
        ));
        board.record_line(&doc(
            r#""Outcome""#,
            r#"{"Name":"Deliveries","Unit":"Count"}"#,
            r#""Outcome":"posted","Deliveries":3"#,
        ));
        board.record_line(&doc(
            "",
            r#"{"Name":"DeliveryLag","Unit":"Milliseconds"}"#,
            r#""DeliveryLag":[5,30,30,7000]"#,
        ));
        board.record_line("not emf");
        let snapshot = board.snapshot();
        assert_eq!(snapshot["documents"], 4);
        assert_eq!(snapshot["invalid"], 1);
        assert_eq!(snapshot["namespace"], "ns");
        let series = snapshot["series"].as_array().unwrap();
        let posted = series.iter().find(|s| s["name"] == "Deliveries").unwrap();
        assert_eq!(posted["total"], 5.0);
        assert_eq!(posted["dimensions"]["Outcome"], "posted");
        let lag = series.iter().find(|s| s["name"] == "DeliveryLag").unwrap();
        assert_eq!(lag["p50"], 30.0);
        assert_eq!(lag["p99"], 7000.0);
        assert_eq!(
            snapshot["lag"]["counts"],
            json!([1, 0, 2, 0, 0, 0, 0, 0, 0, 1])
        );
    }

    #[test]
    fn given_values_then_percentiles_are_nearest_rank() {
        let sorted: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&sorted, 0.5), Some(50.0));
        assert_eq!(percentile(&sorted, 0.99), Some(99.0));
        assert_eq!(percentile(&[], 0.5), None);
    }
}
