//! What `coldstart` prints: each binary's runs summed up as one row of the table, and
//! the machine it ran on.

use std::collections::BTreeMap;
use std::time::Duration;

use tools::runtime_api::OutcomeKind;

use crate::Target;

/// Targets (per function): median cold start and peak RSS.
const TARGET_COLD_START_MS: f64 = 5.0;
const TARGET_RSS_MIB: f64 = 12.0;

/// One run's measurements.
#[derive(Debug)]
pub struct Measurement {
    pub cold_start: Option<Duration>,
    pub invoke: Option<Duration>,
    pub hwm_kb: Option<u64>,
    pub outcome: RunOutcome,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum RunOutcome {
    Invoked(OutcomeKind),
    /// The process ended before answering (`fn main() {}` placeholders, config errors).
    Exited(String),
    TimedOut,
}

impl RunOutcome {
    fn label(&self) -> String {
        match self {
            Self::Invoked(kind) => kind.as_str().to_owned(),
            Self::Exited(status) => format!("exited ({status})"),
            Self::TimedOut => "timed out".to_owned(),
        }
    }
}

/// One table row.
pub struct Row {
    pub name: String,
    pub size: Option<u64>,
    pub event: String,
    pub runs: usize,
    pub cold_median: Option<f64>,
    pub cold_p90: Option<f64>,
    pub cold_min: Option<f64>,
    pub invoke_median: Option<f64>,
    pub rss_median_kb: Option<u64>,
    pub results: String,
}

pub fn summarize(target: &Target, runs: &[Measurement]) -> Row {
    let mut cold: Vec<f64> = runs
        .iter()
        .filter_map(|r| r.cold_start)
        .map(|d| d.as_secs_f64() * 1000.0)
        .collect();
    cold.sort_by(f64::total_cmp);
    let mut invoke: Vec<f64> = runs
        .iter()
        .filter_map(|r| r.invoke)
        .map(|d| d.as_secs_f64() * 1000.0)
        .collect();
    invoke.sort_by(f64::total_cmp);
    let mut rss: Vec<u64> = runs.iter().filter_map(|r| r.hwm_kb).collect();
    rss.sort_unstable();
    let mut outcomes: BTreeMap<RunOutcome, usize> = BTreeMap::new();
    for run in runs {
        *outcomes.entry(run.outcome.clone()).or_default() += 1;
    }
    let results = outcomes
        .iter()
        .map(|(outcome, n)| format!("{} {n}/{}", outcome.label(), runs.len()))
        .collect::<Vec<_>>()
        .join(", ");
    Row {
        name: target.name.clone(),
        size: std::fs::metadata(&target.path).ok().map(|m| m.len()),
        event: target
            .event_file
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default(),
        runs: runs.len(),
        cold_median: percentile(&cold, 50.0),
        cold_p90: percentile(&cold, 90.0),
        cold_min: cold.first().copied(),
        invoke_median: percentile(&invoke, 50.0),
        rss_median_kb: percentile(&rss, 50.0),
        results,
    }
}

/// Nearest-rank percentile of sorted values.
fn percentile<T: Copy>(sorted: &[T], p: f64) -> Option<T> {
    if sorted.is_empty() {
        return None;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

pub fn print_table(rows: &[Row]) {
    println!(
        "| binary | size (bytes) | event | runs | cold start median (ms) | p90 (ms) | min (ms) | invoke median (ms) | peak RSS median (MiB) | result | cold ≤ {TARGET_COLD_START_MS} ms | RSS ≤ {TARGET_RSS_MIB} MiB |"
    );
    println!("|---|---:|---|---:|---:|---:|---:|---:|---:|---|---|---|");
    for row in rows {
        let cold_ok = row.cold_median.map(|ms| ms <= TARGET_COLD_START_MS);
        // VmHWM is in KiB; Lambda's "Max Memory Used" and the target are in MiB.
        let rss_ok = row
            .rss_median_kb
            .map(|kb| kb as f64 <= TARGET_RSS_MIB * 1024.0);
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            row.name,
            row.size.map_or("?".into(), |s| s.to_string()),
            row.event,
            row.runs,
            fmt_ms(row.cold_median),
            fmt_ms(row.cold_p90),
            fmt_ms(row.cold_min),
            fmt_ms(row.invoke_median),
            fmt_mib(row.rss_median_kb),
            row.results,
            pass(cold_ok),
            pass(rss_ok),
        );
    }
}

fn pass(ok: Option<bool>) -> &'static str {
    match ok {
        Some(true) => "PASS",
        Some(false) => "FAIL",
        None => "n/a",
    }
}

pub fn fmt_ms(ms: Option<f64>) -> String {
    ms.map_or("-".into(), |ms| format!("{ms:.1}"))
}

pub fn fmt_mib(kb: Option<u64>) -> String {
    kb.map_or("-".into(), |kb| format!("{:.1}", kb as f64 / 1024.0))
}

pub fn print_machine() {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find_map(|l| l.strip_prefix("model name"))
        .and_then(|l| l.split_once(':'))
        .map_or("unknown".to_owned(), |(_, m)| m.trim().to_owned());
    let nproc = std::thread::available_parallelism().map_or(0, |n| n.get());
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    let mem_kb: u64 = std::fs::read_to_string("/proc/meminfo")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|r| r.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0);
    println!(
        "machine: nproc {nproc}, CPU {model}, {:.1} GiB RAM, Linux {}",
        mem_kb as f64 / 1024.0 / 1024.0,
        kernel.trim()
    );
    println!("load average before: {}", load_average());
}

pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}
