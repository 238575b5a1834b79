//! The run's phases: connect every client (paced, bounded), hold, send (at --rate, at
//! most --max-in-flight unacknowledged), drain the expected deliveries, stop; all within
//! --duration-limit. Progress lines go to stderr each second.

use std::sync::Arc;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use tokio::sync::{Semaphore, watch};

use crate::args::Args;
use crate::client::client;
use crate::connect::preflight;
use crate::report::{self, Outcome, print_header, proc_status_kb};
use crate::state::{Counters, Phase, Shared};

pub async fn run(args: Args, nofile: (u64, u64)) -> i32 {
    let prefix = args.player_prefix.clone().unwrap_or_else(|| {
        let secs = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        format!("lg{}x{secs}-", std::process::id())
    });
    let tls = if args.url.starts_with("wss://") {
        match tools::wss::tls_connector() {
            Ok(connector) => Some(connector),
            Err(error) => {
                eprintln!("loadgen: TLS setup failed: {error}");
                return 2;
            }
        }
    } else {
        None
    };
    print_header(&args, nofile, &prefix);
    if !args.no_preflight {
        match preflight(&args, &prefix).await {
            Ok(line) => println!("{line}"),
            Err(why) => {
                eprintln!("loadgen: preflight: {why}");
                return 2;
            }
        }
    }
    if nofile.0 < args.connections as u64 + 64 {
        eprintln!(
            "loadgen: warning: the open-files limit is {} for {} connections: raise it (ulimit -n / LimitNOFILE)",
            nofile.0, args.connections
        );
    }

    let shared = Arc::new(Shared {
        prefix,
        epoch: Instant::now(),
        counters: Counters {
            first_send: AtomicU64::new(u64::MAX),
            ..Counters::default()
        },
        connected: OnceLock::new(),
        in_flight: Semaphore::new(args.max_in_flight),
        next_slot: AtomicU64::new(0),
        next_connect_slot: AtomicU64::new(0),
        connect_gate: Semaphore::new(args.connect_concurrency),
        tls,
        first_error: std::sync::Mutex::new(None),
        ready: (0..args.connections)
            .map(|_| AtomicBool::new(false))
            .collect(),
        send_epoch: OnceLock::new(),
        args: args.clone(),
    });
    let deadline = tokio::time::Instant::now() + Duration::from_secs(args.duration_limit);
    let (phase_tx, phase_rx) = watch::channel(Phase::Connect);

    let progress = (!args.quiet).then(|| tokio::spawn(progress(shared.clone())));

    // Connect phase.
    let connect_started = Instant::now();
    let mut clients = Vec::with_capacity(args.connections);
    for i in 0..args.connections {
        clients.push(tokio::spawn(client(i, shared.clone(), phase_rx.clone())));
    }
    let c = &shared.counters;
    let all_in = wait_until(deadline, || {
        c.connected.load(Ordering::Relaxed) + c.failed.load(Ordering::Relaxed) >= args.connections
    })
    .await;
    let connect_secs = connect_started.elapsed().as_secs_f64();
    let established = c.connected.load(Ordering::Relaxed);
    let failed = c.failed.load(Ordering::Relaxed);
    let rss_connected = args.watch_pid.and_then(|pid| proc_status_kb(pid, "VmRSS:"));

    // Hold.
    let mut timed_out = !all_in;
    if !timed_out && args.hold_seconds > 0 {
        let hold_until = tokio::time::Instant::now() + Duration::from_secs(args.hold_seconds);
        tokio::select! {
            () = tokio::time::sleep_until(hold_until) => {}
            () = tokio::time::sleep_until(deadline) => timed_out = true,
        }
    }
    let held_after_hold = established - c.dropped.load(Ordering::Relaxed);
    let rss_held = args.watch_pid.and_then(|pid| proc_status_kb(pid, "VmRSS:"));

    // Send phase.
    let mut connected: Vec<u32> = Vec::new();
    if !timed_out && args.messages > 0 {
        connected = shared
            .ready
            .iter()
            .enumerate()
            .filter(|(_, ready)| ready.load(Ordering::Relaxed))
            .map(|(i, _)| i as u32)
            .collect();
        let _ = shared.connected.set(connected.clone());
        let _ = shared.send_epoch.set(Instant::now());
        let _ = phase_tx.send(Phase::Send);
        let senders = connected.len();
        let sent_all = wait_until(deadline, || {
            c.writers_done.load(Ordering::Relaxed) >= senders
        })
        .await;
        timed_out = !sent_all;
        // Drain: every ack, then every expected delivery, or the drain timeout.
        let drain_until = std::cmp::min(
            deadline,
            tokio::time::Instant::now() + Duration::from_secs(args.drain_timeout),
        );
        let drained = wait_until(drain_until, || {
            let sent = c.sent.load(Ordering::Relaxed);
            let answered = c.acked.load(Ordering::Relaxed) + c.send_errors.load(Ordering::Relaxed);
            answered >= sent
                && c.received.load(Ordering::Relaxed) >= c.expected.load(Ordering::Relaxed)
        })
        .await;
        if !drained && tokio::time::Instant::now() >= deadline {
            timed_out = true;
        }
    }
    let held_at_end = established - c.dropped.load(Ordering::Relaxed);
    let rss_end = args.watch_pid.and_then(|pid| proc_status_kb(pid, "VmRSS:"));
    let hwm_end = args.watch_pid.and_then(|pid| proc_status_kb(pid, "VmHWM:"));

    // Stop: close every connection, collect the clients' records.
    let _ = phase_tx.send(Phase::Stop);
    let mut latencies = Vec::new();
    let mut ack_latencies = Vec::new();
    let collect_until = tokio::time::Instant::now() + Duration::from_secs(15);
    for handle in clients {
        if let Ok(Ok(result)) = tokio::time::timeout_at(collect_until, handle).await {
            latencies.extend(result.latencies_ns);
            ack_latencies.extend(result.ack_latencies_ns);
        }
    }
    if let Some(progress) = progress {
        progress.abort();
    }

    let outcome = Outcome {
        connect_secs,
        established,
        failed,
        held_after_hold,
        held_at_end,
        senders: connected.len(),
        rss_connected,
        rss_held,
        rss_end,
        hwm_end,
        latencies,
        ack_latencies,
        timed_out,
    };
    report::print(&args, &shared, outcome)
}

async fn wait_until(deadline: tokio::time::Instant, done: impl Fn() -> bool) -> bool {
    loop {
        if done() {
            return true;
        }
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn progress(shared: Arc<Shared>) {
    let c = &shared.counters;
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    tick.tick().await;
    loop {
        tick.tick().await;
        eprintln!(
            "[{:6.1} s] connected {} failed {} dropped {} | sent {} acked {} expected {} received {}",
            shared.epoch.elapsed().as_secs_f64(),
            c.connected.load(Ordering::Relaxed),
            c.failed.load(Ordering::Relaxed),
            c.dropped.load(Ordering::Relaxed),
            c.sent.load(Ordering::Relaxed),
            c.acked.load(Ordering::Relaxed),
            c.expected.load(Ordering::Relaxed),
            c.received.load(Ordering::Relaxed),
        );
    }
}
