//! The messaging load tool: C WebSocket clients, each `resume`s, then sends M
//! `sendMessage` requests to K recipients chosen among the connected clients; every
//! receiver records each `message` frame, whose body carries the send time, so the
//! end-to-end latency (client → gateway → handler → store → stream → PostToConnection →
//! client) is measured on one clock.
//!
//! ```sh
//! ulimit -n 65536            # or rely on the tool raising the soft limit to the hard one
//! cargo run --release -p local &
//! cargo run --release -p tools --bin loadgen -- -c 1000 -m 10 -k 1
//! cargo run --release -p tools --bin loadgen -- -c 5000 -m 0 --hold-seconds 30 --watch-pid $(pgrep -n local)
//! cargo run --release -p tools --bin loadgen -- -c 1000 -m 50 --rate 10000
//! # a deployed stack (JWT mode, HS256):
//! cargo run --release -p tools --bin loadgen -- --url wss://abc.execute-api.eu-west-1.amazonaws.com/Development \
//!     --jwt-hs256-secret "$SECRET" --jwt-issuer https://issuer --jwt-audience game -c 100
//! ```
//!
//! Bounded: C connections, C×M messages, `--duration-limit` seconds overall, and only the
//! `--url` given is ever contacted (the default is the local stack on loopback).
//!
//! A preflight connection through the Rust client checks the URL and credentials first
//! (`preflight` says why the measured connections stay raw sockets); tools/tests/loadgen.rs
//! runs the tool at a tiny size against the local stack.

#![allow(unsafe_code)] // raise_nofile_limit: getrlimit/setrlimit through libc, nothing else.
#![allow(clippy::expect_used)] // A benchmark tool: failing to start its runtime ends it, with the message.

use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use clap::{Parser, ValueEnum};
use futures_util::{SinkExt, StreamExt};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio::sync::{Semaphore, watch};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::protocol::frame::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};
use tokio_tungstenite::{Connector, MaybeTlsStream, WebSocketStream};

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// WebSocket load: connections held, messages/s delivered, end-to-end latency.
#[derive(Parser, Debug, Clone)]
#[command(name = "loadgen")]
struct Args {
    /// The WebSocket API (ws:// or wss://). Only this address is contacted.
    #[arg(long, default_value = "ws://127.0.0.1:3001/Development")]
    url: String,
    /// Clients (one connection each).
    #[arg(short = 'c', long, default_value_t = 1000)]
    connections: usize,
    /// Messages each client sends (0: connect, resume and hold only).
    #[arg(short = 'm', long, default_value_t = 10)]
    messages: usize,
    /// Recipients per message, distinct, chosen among the connected clients.
    #[arg(short = 'k', long, default_value_t = 1)]
    recipients: usize,
    /// Target send rate, messages/s over all clients (0: as fast as possible, with at
    /// most --max-in-flight unacknowledged requests).
    #[arg(long, default_value_t = 0.0)]
    rate: f64,
    /// Unacknowledged sendMessage requests allowed at once, over all clients.
    #[arg(long, default_value_t = 1000)]
    max_in_flight: usize,
    /// How clients name themselves.
    #[arg(long, value_enum, default_value_t = Auth::QueryPlayerId)]
    auth: Auth,
    /// Player ids are <prefix><i>. Default: `lg<pid>x<unix seconds>-`, new each run, so
    /// a run never resumes the players (and their undelivered messages) of another.
    #[arg(long)]
    player_prefix: Option<String>,
    /// `--auth token`: the token of client i, `{player}` and `{i}` substituted; sent as
    /// `?token=`.
    #[arg(long)]
    token_template: Option<String>,
    /// `--auth token`: mint HS256 JWTs (sub = player id) with this secret (the
    /// deployment's JWT_HS256_SECRET), instead of --token-template.
    #[arg(long, env = "LOADGEN_JWT_HS256_SECRET", hide_env_values = true)]
    jwt_hs256_secret: Option<String>,
    #[arg(long, default_value = "loadgen")]
    jwt_issuer: String,
    #[arg(long, default_value = "loadgen")]
    jwt_audience: String,
    /// Connection attempts in progress at once.
    #[arg(long, default_value_t = 256)]
    connect_concurrency: usize,
    /// Connections opened per second (0: no pacing).
    #[arg(long, default_value_t = 0.0)]
    connect_rate: f64,
    /// Seconds to hold every connection open after the connect phase, before sending.
    #[arg(long, default_value_t = 0)]
    hold_seconds: u64,
    /// Send `heartbeat` on every connection this often while holding (0: never).
    #[arg(long, default_value_t = 0)]
    heartbeat_seconds: u64,
    /// Seconds to wait for a client's `resume` ack.
    #[arg(long, default_value_t = 30)]
    resume_timeout: u64,
    /// Seconds to wait, after the last send, for the expected deliveries.
    #[arg(long, default_value_t = 10)]
    drain_timeout: u64,
    /// Hard limit on the whole run (seconds).
    #[arg(long, default_value_t = 120)]
    duration_limit: u64,
    /// Extra bytes of padding in each message body.
    #[arg(long, default_value_t = 0)]
    pad_bytes: usize,
    /// A process to sample RSS from (the local stack): VmRSS when every connection is
    /// established, at the end, and its VmHWM.
    #[arg(long)]
    watch_pid: Option<u32>,
    /// No progress lines on stderr.
    #[arg(long)]
    quiet: bool,
    /// Skip the preflight: one connection through the Rust client, before the run, that
    /// ends it at once (exit 2) when the URL or the credentials are wrong.
    #[arg(long)]
    no_preflight: bool,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
enum Auth {
    /// `?playerId=<prefix><i>` (AUTH_MODE=header, the local stack's default).
    QueryPlayerId,
    /// Header `X-Player-Id: <prefix><i>` (AUTH_MODE=header).
    HeaderPlayerId,
    /// `?token=<JWT>` from --token-template or --jwt-hs256-secret (AUTH_MODE=jwt).
    Token,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Phase {
    Connect,
    Send,
    Stop,
}

/// Counters every client updates.
#[derive(Default)]
struct Counters {
    connected: AtomicUsize,
    failed: AtomicUsize,
    /// Connections closed by the server or by an error after they were established.
    dropped: AtomicUsize,
    sent: AtomicU64,
    acked: AtomicU64,
    /// Sum of `queued` over the sendMessage acks: the deliveries expected.
    expected: AtomicU64,
    send_errors: AtomicU64,
    received: AtomicU64,
    duplicates: AtomicU64,
    foreign: AtomicU64,
    other_frames: AtomicU64,
    writers_done: AtomicUsize,
    /// Nanoseconds since `epoch`.
    first_send: AtomicU64,
    last_send: AtomicU64,
    last_ack: AtomicU64,
    last_receive: AtomicU64,
}

struct Shared {
    args: Args,
    prefix: String,
    epoch: Instant,
    counters: Counters,
    /// The connected clients (their indices), fixed when the send phase starts.
    connected: OnceLock<Vec<u32>>,
    in_flight: Semaphore,
    /// The next send slot (for --rate pacing).
    next_slot: AtomicU64,
    next_connect_slot: AtomicU64,
    connect_gate: Semaphore,
    tls: Option<Connector>,
    first_error: std::sync::Mutex<Option<String>>,
    /// Which clients are connected, resumed and still open, by index.
    ready: Vec<AtomicBool>,
    /// When the send phase started: --rate slots count from here.
    send_epoch: OnceLock<Instant>,
}

impl Shared {
    fn now_nanos(&self) -> u64 {
        self.epoch.elapsed().as_nanos() as u64
    }

    fn player(&self, i: usize) -> String {
        format!("{}{i}", self.prefix)
    }

    fn note_error(&self, error: String) {
        if let Ok(mut first) = self.first_error.lock()
            && first.is_none()
        {
            *first = Some(error);
        }
    }
}

/// What each client hands back at the end.
#[derive(Default)]
struct ClientResult {
    latencies_ns: Vec<u64>,
    ack_latencies_ns: Vec<u64>,
}

/// The fields of a server frame the tool looks at.
#[derive(Deserialize)]
struct Frame<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(default, borrow)]
    route: Option<Cow<'a, str>>,
    #[serde(default, rename = "requestId", borrow)]
    request_id: Option<Cow<'a, str>>,
    #[serde(default)]
    queued: Option<u64>,
    #[serde(default)]
    message: Option<Value>,
    #[serde(default, borrow)]
    code: Option<Cow<'a, str>>,
}

fn main() {
    let args = Args::parse();
    if let Err(problem) = validate(&args) {
        eprintln!("loadgen: {problem}");
        std::process::exit(2);
    }
    let nofile = raise_nofile_limit();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("loadgen: cannot start the tokio runtime");
    let code = runtime.block_on(run(args, nofile));
    std::process::exit(code);
}

fn validate(args: &Args) -> Result<(), String> {
    if !(args.url.starts_with("ws://") || args.url.starts_with("wss://")) {
        return Err(format!("--url {:?}: expected ws:// or wss://", args.url));
    }
    if args.connections == 0 {
        return Err("--connections must be at least 1".into());
    }
    if args.messages > 0 && (args.recipients == 0 || args.recipients > 100) {
        return Err("--recipients must be 1 to 100 (the sendMessage limit)".into());
    }
    if args.messages > 0 && args.connections < 2 {
        return Err("sending needs at least 2 connections".into());
    }
    if args.max_in_flight == 0 || args.connect_concurrency == 0 {
        return Err("--max-in-flight and --connect-concurrency must be at least 1".into());
    }
    let valid_rate = |rate: f64| rate.is_finite() && rate >= 0.0;
    if !valid_rate(args.rate) || !valid_rate(args.connect_rate) {
        return Err("--rate and --connect-rate must be ≥ 0".into());
    }
    if args.auth == Auth::Token && args.token_template.is_none() && args.jwt_hs256_secret.is_none()
    {
        return Err("--auth token needs --token-template or --jwt-hs256-secret".into());
    }
    Ok(())
}

/// Raises the soft open-files limit to the hard limit; returns (soft, hard) after.
fn raise_nofile_limit() -> (u64, u64) {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit only read/write the struct passed by pointer.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return (0, 0);
        }
        if limit.rlim_cur < limit.rlim_max {
            let raised = libc::rlimit {
                rlim_cur: limit.rlim_max,
                rlim_max: limit.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                limit = raised;
            }
        }
    }
    (limit.rlim_cur, limit.rlim_max)
}

async fn run(args: Args, nofile: (u64, u64)) -> i32 {
    let prefix = args.player_prefix.clone().unwrap_or_else(|| {
        let secs = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        format!("lg{}x{secs}-", std::process::id())
    });
    let tls = if args.url.starts_with("wss://") {
        match rustls_connector() {
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

    // Report.
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
            connected.len(),
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

/// One client: connect, resume, then read and (in the send phase) write until Stop.
async fn client(i: usize, shared: Arc<Shared>, mut phase: watch::Receiver<Phase>) -> ClientResult {
    let socket = {
        let Ok(_permit) = shared.connect_gate.acquire().await else {
            return ClientResult::default();
        };
        if shared.args.connect_rate > 0.0 {
            let slot = shared.next_connect_slot.fetch_add(1, Ordering::Relaxed);
            let at = shared.epoch + Duration::from_secs_f64(slot as f64 / shared.args.connect_rate);
            tokio::time::sleep_until(tokio::time::Instant::from_std(at)).await;
        }
        match connect_and_resume(i, &shared).await {
            Ok(socket) => socket,
            Err(error) => {
                shared.counters.failed.fetch_add(1, Ordering::Relaxed);
                shared.note_error(format!("client {i}: {error}"));
                return ClientResult::default();
            }
        }
    };
    if let Some(ready) = shared.ready.get(i) {
        ready.store(true, Ordering::Relaxed);
    }
    shared.counters.connected.fetch_add(1, Ordering::Relaxed);

    let (mut sink, mut stream) = socket.split();
    let outstanding = Arc::new(AtomicU64::new(0));
    let me = shared.player(i);
    let mut result = ClientResult::default();
    let mut seen: HashSet<(u64, u64)> = HashSet::new();

    // Reader: runs until Stop or the connection ends.
    let reader = {
        let shared = shared.clone();
        let outstanding = outstanding.clone();
        let mut phase = phase.clone();
        async move {
            let mut closed = false;
            loop {
                tokio::select! {
                    frame = stream.next() => match frame {
                        Some(Ok(Message::Text(text))) => {
                            on_frame(&shared, &text, &outstanding, &mut result, &mut seen);
                        }
                        Some(Ok(Message::Close(_))) | None => { closed = true; break; }
                        Some(Ok(_)) => {}
                        Some(Err(error)) => {
                            shared.note_error(format!("client {i} read: {error}"));
                            closed = true;
                            break;
                        }
                    },
                    changed = phase.changed() => {
                        if changed.is_err() || *phase.borrow() == Phase::Stop { break; }
                    }
                }
            }
            if closed && *phase.borrow() != Phase::Stop {
                shared.counters.dropped.fetch_add(1, Ordering::Relaxed);
                if let Some(ready) = shared.ready.get(i) {
                    ready.store(false, Ordering::Relaxed);
                }
                // Requests this connection will never see answered.
                let lost = outstanding.swap(0, Ordering::Relaxed);
                shared.in_flight.add_permits(lost as usize);
            }
            result
        }
    };

    // Writer: the messages, heartbeats while holding, then the close.
    let writer = async {
        let mut heartbeat = (shared.args.heartbeat_seconds > 0).then(|| {
            let period = Duration::from_secs(shared.args.heartbeat_seconds);
            tokio::time::interval_at(tokio::time::Instant::now() + period, period)
        });
        loop {
            let current = *phase.borrow_and_update();
            match current {
                Phase::Stop => break,
                Phase::Send => {
                    send_messages(i, &me, &shared, &mut sink, &outstanding, &mut phase).await;
                    shared.counters.writers_done.fetch_add(1, Ordering::Relaxed);
                    // Hold the connection (and keep heartbeating) until Stop.
                    loop {
                        tokio::select! {
                            changed = phase.changed() => {
                                if changed.is_err() || *phase.borrow() == Phase::Stop { break; }
                            }
                            () = tick(&mut heartbeat) => {
                                let _ = sink.send(Message::text(r#"{"route":"heartbeat"}"#)).await;
                            }
                        }
                    }
                    break;
                }
                Phase::Connect => {
                    tokio::select! {
                        changed = phase.changed() => if changed.is_err() { break; },
                        () = tick(&mut heartbeat) => {
                            let _ = sink.send(Message::text(r#"{"route":"heartbeat"}"#)).await;
                        }
                    }
                }
            }
        }
        let normal = Message::Close(Some(CloseFrame {
            code: CloseCode::Normal,
            reason: Utf8Bytes::from_static("loadgen done"),
        }));
        let _ = tokio::time::timeout(Duration::from_secs(2), async {
            let _ = sink.send(normal).await;
            let _ = sink.close().await;
        })
        .await;
    };

    let (result, ()) = tokio::join!(reader, writer);
    result
}

async fn tick(interval: &mut Option<tokio::time::Interval>) {
    match interval {
        Some(interval) => {
            interval.tick().await;
        }
        None => std::future::pending().await,
    }
}

async fn send_messages(
    i: usize,
    me: &str,
    shared: &Shared,
    sink: &mut futures_util::stream::SplitSink<Socket, Message>,
    outstanding: &AtomicU64,
    phase: &mut watch::Receiver<Phase>,
) {
    let args = &shared.args;
    let Some(connected) = shared.connected.get() else {
        return;
    };
    let others = connected.len().saturating_sub(1);
    if others == 0 {
        return;
    }
    let k = args.recipients.min(others);
    let mut rng = fastrand::Rng::with_seed(i as u64 ^ 0x9e37_79b9_7f4a_7c15);
    let pad = "x".repeat(args.pad_bytes);
    let c = &shared.counters;
    for seq in 0..args.messages {
        if args.rate > 0.0 {
            let slot = shared.next_slot.fetch_add(1, Ordering::Relaxed);
            let at = Duration::from_secs_f64(slot as f64 / args.rate);
            let start = *shared.send_epoch.get_or_init(Instant::now);
            let at = tokio::time::Instant::from_std(start + at);
            tokio::select! {
                () = tokio::time::sleep_until(at) => {}
                _ = phase.changed() => return,
            }
        }
        let permit = tokio::select! {
            permit = shared.in_flight.acquire() => permit,
            _ = phase.changed() => return,
        };
        let Ok(permit) = permit else { return };
        permit.forget();
        // Recipients: k distinct connected clients other than this one.
        let mut recipients: Vec<u32> = Vec::with_capacity(k);
        while recipients.len() < k {
            let pick = connected[rng.usize(..connected.len())];
            if pick as usize != i && !recipients.contains(&pick) {
                recipients.push(pick);
            }
        }
        let ids = recipients
            .iter()
            .map(|r| format!("\"{}\"", shared.player(*r as usize)))
            .collect::<Vec<_>>()
            .join(",");
        let t = shared.now_nanos();
        let pad_field = if pad.is_empty() {
            String::new()
        } else {
            format!(",\"pad\":\"{pad}\"")
        };
        let frame = format!(
            "{{\"route\":\"sendMessage\",\"requestId\":\"{t}\",\"body\":{{\"playerIds\":[{ids}],\"message\":{{\"seq\":{seq},\"t\":{t},\"from\":{i}{pad_field}}}}}}}"
        );
        outstanding.fetch_add(1, Ordering::Relaxed);
        if let Err(error) = sink.send(Message::Text(Utf8Bytes::from(frame))).await {
            outstanding.fetch_sub(1, Ordering::Relaxed);
            shared.in_flight.add_permits(1);
            shared.note_error(format!("client {i} ({me}) send: {error}"));
            return;
        }
        let now = shared.now_nanos();
        c.sent.fetch_add(1, Ordering::Relaxed);
        c.first_send.fetch_min(t, Ordering::Relaxed);
        c.last_send.fetch_max(now, Ordering::Relaxed);
    }
}

fn on_frame(
    shared: &Shared,
    text: &str,
    outstanding: &AtomicU64,
    result: &mut ClientResult,
    seen: &mut HashSet<(u64, u64)>,
) {
    let c = &shared.counters;
    let Ok(frame) = serde_json::from_str::<Frame<'_>>(text) else {
        c.other_frames.fetch_add(1, Ordering::Relaxed);
        return;
    };
    let now = shared.now_nanos();
    match frame.kind.as_ref() {
        "message" => {
            let probe = frame.message.as_ref();
            let field = |name: &str| probe.and_then(|m| m.get(name)).and_then(Value::as_u64);
            match (field("t"), field("seq"), field("from")) {
                (Some(t), Some(seq), Some(from)) if t <= now => {
                    if seen.insert((from, seq)) {
                        c.received.fetch_add(1, Ordering::Relaxed);
                        c.last_receive.fetch_max(now, Ordering::Relaxed);
                        result.latencies_ns.push(now - t);
                    } else {
                        c.duplicates.fetch_add(1, Ordering::Relaxed);
                    }
                }
                _ => {
                    c.foreign.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
        "ack" | "error" if frame.route.as_deref() == Some("sendMessage") => {
            if frame.kind == "ack" {
                c.acked.fetch_add(1, Ordering::Relaxed);
                c.expected
                    .fetch_add(frame.queued.unwrap_or(0), Ordering::Relaxed);
                c.last_ack.fetch_max(now, Ordering::Relaxed);
            } else {
                c.send_errors.fetch_add(1, Ordering::Relaxed);
                shared.note_error(format!(
                    "sendMessage error {}: {text}",
                    frame.code.as_deref().unwrap_or("?")
                ));
            }
            if let Some(t) = frame
                .request_id
                .as_deref()
                .and_then(|r| r.parse::<u64>().ok())
                && t <= now
            {
                result.ack_latencies_ns.push(now - t);
            }
            if outstanding
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
                .is_ok()
            {
                shared.in_flight.add_permits(1);
            }
        }
        "ack" if frame.route.as_deref() == Some("heartbeat") => {}
        _ => {
            c.other_frames.fetch_add(1, Ordering::Relaxed);
        }
    }
}

async fn connect_and_resume(i: usize, shared: &Shared) -> Result<Socket, String> {
    let args = &shared.args;
    let player = shared.player(i);
    let separator = if args.url.contains('?') { '&' } else { '?' };
    let url = match args.auth {
        Auth::QueryPlayerId => format!("{}{separator}playerId={player}", args.url),
        Auth::HeaderPlayerId => args.url.clone(),
        Auth::Token => format!("{}{separator}token={}", args.url, token(args, i, &player)?),
    };
    let mut request = url
        .as_str()
        .into_client_request()
        .map_err(|e| format!("bad request: {e}"))?;
    if args.auth == Auth::HeaderPlayerId {
        let value = HeaderValue::from_str(&player).map_err(|e| format!("bad player id: {e}"))?;
        request.headers_mut().insert("X-Player-Id", value);
    }
    let config = WebSocketConfig::default()
        .read_buffer_size(16 * 1024)
        .write_buffer_size(0)
        .max_message_size(Some(1 << 20));
    let timeout = Duration::from_secs(args.resume_timeout);
    let connecting = tokio_tungstenite::connect_async_tls_with_config(
        request,
        Some(config),
        true,
        shared.tls.clone(),
    );
    let (mut socket, _) = tokio::time::timeout(timeout, connecting)
        .await
        .map_err(|_| "connect timed out".to_owned())?
        .map_err(|e| format!("connect: {e}"))?;
    socket
        .send(Message::text(
            r#"{"route":"resume","requestId":"resume","body":{}}"#,
        ))
        .await
        .map_err(|e| format!("send resume: {e}"))?;
    let until = tokio::time::Instant::now() + timeout;
    loop {
        let frame = tokio::time::timeout_at(until, socket.next())
            .await
            .map_err(|_| "no resume ack in time".to_owned())?;
        match frame {
            Some(Ok(Message::Text(text))) => {
                if let Ok(frame) = serde_json::from_str::<Frame<'_>>(&text)
                    && frame.route.as_deref() == Some("resume")
                {
                    if frame.kind == "ack" {
                        return Ok(socket);
                    }
                    return Err(format!("resume answered: {text}"));
                }
            }
            Some(Ok(Message::Close(close))) => {
                return Err(format!("closed before the resume ack: {close:?}"));
            }
            Some(Ok(_)) => {}
            Some(Err(error)) => return Err(format!("reading the resume ack: {error}")),
            None => return Err("closed before the resume ack".into()),
        }
    }
}

/// Before the run, one connection of its own player (`<prefix>preflight`, with the run's
/// credential form) through the Rust client (clients/rust): a wrong URL, stage, secret or
/// token ends the run at once with the reason, instead of C failed connects. It is closed
/// before the connect phase and counts in no figure.
///
/// The run's own C connections stay raw sockets: the client adds what would change the
/// figures (a background task with a 25 ms timer and timed heartbeats per connection on
/// the cores the stack shares, silent reconnects where loadgen counts drops, de-duplication
/// where it counts duplicates, its own `requestId`s where loadgen carries the send time).
async fn preflight(args: &Args, prefix: &str) -> Result<String, String> {
    use gamelift_sockets_client::{Auth as Credential, Client, ClientError, Config, StopReason};
    let player = format!("{prefix}preflight");
    let auth = match args.auth {
        Auth::QueryPlayerId => Credential::player_id(player.clone()),
        Auth::HeaderPlayerId => Credential::player_id_header(player.clone()),
        Auth::Token => {
            let token = match &args.token_template {
                Some(template) => template
                    .replace("{player}", &player)
                    .replace("{i}", "preflight"),
                None => token(args, 0, &player)?,
            };
            Credential::token(move || std::future::ready(Ok(token.clone())))
        }
    };
    let timeout = Duration::from_secs(args.resume_timeout);
    let mut config = Config::new(args.url.as_str(), auth);
    config.request_timeout = timeout;
    config.max_attempts = Some(0);
    let (client, mut events) = match tokio::time::timeout(timeout, Client::connect(config)).await {
        Err(_) => return Err(format!("{player}: no resume ack within {timeout:?}")),
        Ok(Err(ClientError::Closed(StopReason::Unauthorized(status)))) => {
            return Err(format!(
                "the upgrade was refused with HTTP {status}: a wrong stage in --url, or credentials the stack does not take (--auth, the token or its secret)"
            ));
        }
        Ok(Err(ClientError::Closed(StopReason::GaveUp))) => {
            return Err(format!("could not connect to {}", args.url));
        }
        Ok(Err(error)) => return Err(format!("{player}: {error}")),
        Ok(Ok(connected)) => connected,
    };
    client.close();
    let _ = tokio::time::timeout(Duration::from_secs(2), async {
        while events.next().await.is_some() {}
    })
    .await;
    Ok(format!(
        "preflight: {player} connected and resumed through the Rust client, then closed"
    ))
}

fn token(args: &Args, i: usize, player: &str) -> Result<String, String> {
    if let Some(template) = &args.token_template {
        return Ok(template
            .replace("{player}", player)
            .replace("{i}", &i.to_string()));
    }
    let secret = args
        .jwt_hs256_secret
        .as_deref()
        .ok_or("--auth token needs --token-template or --jwt-hs256-secret")?;
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let header = b64.encode(br#"{"alg":"HS256","typ":"JWT"}"#);
    let claims = json!({
        "sub": player, "iss": args.jwt_issuer, "aud": args.jwt_audience,
        "iat": now, "exp": now + args.duration_limit + 600,
    });
    let claims = b64.encode(claims.to_string());
    let signing_input = format!("{header}.{claims}");
    let key = aws_lc_rs::hmac::Key::new(aws_lc_rs::hmac::HMAC_SHA256, secret.as_bytes());
    let signature = aws_lc_rs::hmac::sign(&key, signing_input.as_bytes());
    Ok(format!(
        "{signing_input}.{}",
        b64.encode(signature.as_ref())
    ))
}

/// rustls on aws-lc-rs (the TLS stack the AWS SDK already builds) with the system roots.
fn rustls_connector() -> Result<Connector, String> {
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let mut roots = rustls::RootCertStore::empty();
    let native = rustls_native_certs::load_native_certs();
    for cert in native.certs {
        let _ = roots.add(cert);
    }
    if roots.is_empty() {
        return Err(format!(
            "no system root certificates found ({:?})",
            native.errors
        ));
    }
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Connector::Rustls(Arc::new(config)))
}

fn print_header(args: &Args, nofile: (u64, u64), prefix: &str) {
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

fn proc_status_kb(pid: u32, field: &str) -> Option<u64> {
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
