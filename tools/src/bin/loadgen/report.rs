//! What the run prints: the machine and target first, then the connection and message
//! tables, the first error, and one `RESULT` JSON line; the exit status says whether
//! every connection and delivery made it.

use std::sync::atomic::Ordering;

use serde_json::json;

use crate::args::Args;
use crate::state::Shared;

/// What the phases measured, besides the shared counters.
pub struct Outcome {
    pub connect_secs: f64,
    pub established: usize,
    pub failed: usize,
    pub held_after_hold: usize,
    pub held_at_end: usize,
    /// The clients that sent (those connected when the send phase started).
    pub senders: usize,
    pub rss_connected: Option<u64>,
    pub rss_held: Option<u64>,
    pub rss_end: Option<u64>,
    pub hwm_end: Option<u64>,
    pub latencies: Vec<u64>,
    pub ack_latencies: Vec<u64>,
    pub timed_out: bool,
}

/// Prints the figures; returns the exit status (1 when the run timed out, a connection
/// failed or a delivery was lost).
pub fn print(args: &Args, shared: &Shared, outcome: Outcome) -> i32 {
    let Outcome {
        connect_secs,
        established,
        failed,
        held_after_hold,
        held_at_end,
        senders,
        rss_connected,
        rss_held,
        rss_end,
        hwm_end,
        mut latencies,
        mut ack_latencies,
        timed_out,
    } = outcome;
    let c = &shared.counters;
    let sent = c.sent.load(Ordering::Relaxed);
    let acked = c.acked.load(Ordering::Relaxed);
    let expected = c.expected.load(Ordering::Relaxed);
    let received = c.received.load(Ordering::Relaxed);
    let lost = expected.saturating_sub(received);
    let first_send = c.first_send.load(Ordering::Relaxed);
    let span = |end: u64| {
        if first_send == u64::MAX || end <= first_send {
            None
        } else {
            Some((end - first_send) as f64 / 1e9)
        }
    };
    let send_span = span(c.last_send.load(Ordering::Relaxed));
    let delivery_span = span(c.last_receive.load(Ordering::Relaxed));
    let per_sec = |n: u64, secs: Option<f64>| secs.filter(|s| *s > 0.0).map(|s| n as f64 / s);
    latencies.sort_unstable();
    ack_latencies.sort_unstable();
    let ms = |sorted: &[u64], p: f64| percentile(sorted, p).map(|ns| ns as f64 / 1e6);

    println!();
    println!("| connections | established | failed | held at end |");
    println!("|---:|---:|---:|---:|");
    println!(
        "| {} | {established} | {failed} | {held_at_end} |",
        args.connections
    );
    println!(
        "connect phase: {connect_secs:.2} s ({:.0} connections/s incl. resume); held after the {} s hold: {held_after_hold}",
        established as f64 / connect_secs.max(1e-9),
        args.hold_seconds
    );
    if let Some(pid) = args.watch_pid {
        println!(
            "server pid {pid} RSS: {} MiB when connected, {} MiB after the hold, {} MiB at the end; peak (VmHWM) {} MiB",
            fmt_mib(rss_connected),
            fmt_mib(rss_held),
            fmt_mib(rss_end),
            fmt_mib(hwm_end)
        );
    }
    if args.messages > 0 {
        println!();
        println!(
            "| messages sent | acked | send errors | deliveries expected | received | lost | duplicates | sent/s | delivered/s | e2e p50 (ms) | p90 | p99 | max | ack p50 (ms) | ack p99 |"
        );
        println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        println!(
            "| {sent} | {acked} | {} | {expected} | {received} | {lost} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            c.send_errors.load(Ordering::Relaxed),
            c.duplicates.load(Ordering::Relaxed),
            fmt_f(per_sec(sent, send_span), 0),
            fmt_f(per_sec(received, delivery_span), 0),
            fmt_f(ms(&latencies, 50.0), 2),
            fmt_f(ms(&latencies, 90.0), 2),
            fmt_f(ms(&latencies, 99.0), 2),
            fmt_f(ms(&latencies, 100.0), 2),
            fmt_f(ms(&ack_latencies, 50.0), 2),
            fmt_f(ms(&ack_latencies, 99.0), 2),
        );
        println!(
            "senders: {}, target rate: {}, max in flight: {}, send span {} s, delivery span {} s",
            senders,
            if args.rate > 0.0 {
                format!("{} msg/s", args.rate)
            } else {
                "as fast as possible".into()
            },
            args.max_in_flight,
            fmt_f(send_span, 2),
            fmt_f(delivery_span, 2),
        );
    }
    let foreign = c.foreign.load(Ordering::Relaxed);
    let other = c.other_frames.load(Ordering::Relaxed);
    if foreign + other > 0 {
        println!("other frames: {other}; message frames not from this run: {foreign}");
    }
    if let Ok(first) = shared.first_error.lock()
        && let Some(error) = first.as_ref()
    {
        println!("first error: {error}");
    }
    if timed_out {
        println!(
            "STOPPED by --duration-limit {} s: figures are partial",
            args.duration_limit
        );
    }
    let summary = json!({
        "connections": args.connections, "established": established, "failed": failed,
        "heldAtEnd": held_at_end, "sent": sent, "acked": acked, "expected": expected,
        "received": received, "lost": lost,
        "deliveredPerSec": per_sec(received, delivery_span),
        "sentPerSec": per_sec(sent, send_span),
        "p50Ms": ms(&latencies, 50.0), "p90Ms": ms(&latencies, 90.0),
        "p99Ms": ms(&latencies, 99.0), "maxMs": ms(&latencies, 100.0),
        "serverRssConnectedKb": rss_connected, "serverRssEndKb": rss_end, "serverHwmKb": hwm_end,
        "timedOut": timed_out,
    });
    println!("RESULT {summary}");
    if timed_out || failed > 0 || lost > 0 {
        1
    } else {
        0
    }
}

pub fn print_header(args: &Args, nofile: (u64, u64), prefix: &str) {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find_map(|l| l.strip_prefix("model name"))
        .and_then(|l| l.split_once(':'))
        .map_or("unknown".to_owned(), |(_, m)| m.trim().to_owned());
    let nproc = std::thread::available_parallelism().map_or(0, |n| n.get());
    let load = std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default();
    println!("machine: nproc {nproc}, CPU {model}; load average {load}");
    println!(
        "target: {} ({} clients, {} messages each to {} recipients, rate {}, auth {:?}, players {prefix}N)",
        args.url,
        args.connections,
        args.messages,
        args.recipients,
        if args.rate > 0.0 {
            format!("{}/s", args.rate)
        } else {
            "max".into()
        },
        args.auth
    );
    println!("open-files limit: soft {} hard {}", nofile.0, nofile.1);
}

pub fn proc_status_kb(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix(field))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
}

fn percentile(sorted: &[u64], p: f64) -> Option<u64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

fn fmt_f(value: Option<f64>, decimals: usize) -> String {
    value.map_or("-".into(), |v| format!("{v:.decimals$}"))
}

fn fmt_mib(kb: Option<u64>) -> String {
    kb.map_or("-".into(), |kb| format!("{:.1}", kb as f64 / 1024.0))
}
