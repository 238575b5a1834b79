//! Cold start and memory of the Lambda function binaries, run the way Lambda runs them.
//!
//! For each binary, N times: a tiny Lambda Runtime API on 127.0.0.1 (a fresh port per
//! run), the binary spawned with the environment Lambda gives a `provided.al2023`
//! function (plus every variable the functions' configuration needs), then:
//! - cold start = spawn → the first `GET /2018-06-01/runtime/invocation/next` (what
//!   Lambda reports as "Init Duration": process start to ready);
//! - one invocation: the event from `events/` the function's tests use, answered with
//!   `POST …/response` or `…/error`;
//! - peak RSS = `VmHWM` of `/proc/<pid>/status` read after the response, before the kill.
//!
//! ```sh
//! cargo build --release -p authorizer -p connect -p disconnect -p default \
//!     -p resume -p send-message -p on-message-inserted
//! cargo run --release -p tools --bin coldstart              # every function binary found
//! cargo run --release -p tools --bin coldstart -- -n 50 connect resume
//! cargo run --release -p tools --bin coldstart -- --dynamodb-endpoint http://127.0.0.1:8000
//! cargo run --release -p tools --bin coldstart -- --authorizer-ssm authorizer
//! ```
//!
//! Without `--dynamodb-endpoint`, every AWS endpoint is a closed local port: the
//! invocation fails fast wherever it needs DynamoDB (result `error`) but init, the
//! runtime loop and the handler's error path run as deployed. With it, the tables are
//! created there first and the invocation does its real work. Management API calls
//! (`PostToConnection`) go to the stub itself: the events' `domainName` is rewritten to
//! the stub's address, so nothing ever leaves the machine. So does SSM Parameter Store
//! (`AWS_ENDPOINT_URL_SSM`): the stub answers `GetParameter` with a SecureString holding
//! the sample events' HS256 secret, which `--authorizer-ssm` has the authorizer read at
//! init (JWT mode with `JWT_HS256_SECRET_PARAMETER`, invoked with `authorizer-jwt.json`).
//! By default the authorizer runs in header mode (`ALLOW_UNAUTHENTICATED=true`).

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use clap::Parser;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::task::JoinSet;

/// Every Lambda binary of the workspace, in deployment order, with the sample event its
/// invocation gets (a file name in `--events-dir`; for functions whose sample events do
/// not exist yet, the first file named `<binary>*.json` is used, else the binary is
/// skipped).
const FUNCTIONS: &[(&str, &str)] = &[
    ("authorizer", "authorizer-header-mode.json"),
    ("connect", "connect.json"),
    ("disconnect", "disconnect.json"),
    ("default", "default-not-json.json"),
    ("resume", "resume.json"),
    ("send-message", "send-message.json"),
    ("on-message-inserted", "stream-insert-single.json"),
    (
        "session-placement-request",
        "session-placement-request.json",
    ),
    ("cancel-placement", "cancel-placement.json"),
    ("rejoin-session", "rejoin-session.json"),
    ("on-placement-event", "placement-fulfilled-sns.json"),
    ("presence-timeout", "schedule-presence-timeout.json"),
    ("subscribe-presence", "presence-subscribe.json"),
    ("on-presence-event", "presence-connected.json"),
    ("party", "party-create.json"),
    ("matchmaking", "start-matchmaking.json"),
    ("on-matchmaking-event", "matchmaking-searching.json"),
    ("backend-api", "backend-api-send-message.json"),
];

/// The HS256 secret `events/authorizer-jwt.json`'s token is signed with (test-only, in
/// the repository: never a deployed secret), served as the SSM parameter's value.
const SAMPLE_EVENT_SECRET: &str = "gamelift-sockets-sample-event-secret-NOT-FOR-PRODUCTION";
/// The parameter `--authorizer-ssm` names, and the issuer and audience of that token.
const SSM_PARAMETER: &str = "/coldstart/jwt-hs256-secret";
const SAMPLE_EVENT_ISSUER: &str = "https://auth.example.com/";
const SAMPLE_EVENT_AUDIENCE: &str = "gamelift-sockets";

/// Targets (per function): median cold start and peak RSS.
const TARGET_COLD_START_MS: f64 = 5.0;
const TARGET_RSS_MIB: f64 = 12.0;

/// Cold start and memory of the Lambda function binaries, run as Lambda runs them.
#[derive(Parser, Debug)]
#[command(name = "coldstart")]
struct Args {
    /// Binaries to measure: names in --bin-dir or paths. Default: every Lambda binary of
    /// the workspace found in --bin-dir.
    binaries: Vec<String>,
    /// Where the release binaries are.
    #[arg(long, default_value = "target/release")]
    bin_dir: PathBuf,
    /// The sample events.
    #[arg(long, default_value = "events")]
    events_dir: PathBuf,
    /// Runs per binary.
    #[arg(short = 'n', long, default_value_t = 20)]
    runs: usize,
    /// A DynamoDB(-compatible) endpoint: the tables are created there and the functions
    /// use it (AWS_ENDPOINT_URL_DYNAMODB). Default: a closed local port.
    #[arg(long)]
    dynamodb_endpoint: Option<String>,
    /// Per-run limit from spawn to the invocation's outcome.
    #[arg(long, default_value_t = 15_000)]
    timeout_ms: u64,
    /// Another variable for the functions (repeatable; overrides the defaults).
    #[arg(long = "env", value_name = "NAME=VALUE")]
    extra_env: Vec<String>,
    /// Another event for a binary (repeatable): `resume=path/to/event.json`.
    #[arg(long = "event", value_name = "BINARY=FILE")]
    event_overrides: Vec<String>,
    /// Run the authorizer in JWT mode with its HS256 secret in Parameter Store (the
    /// stub's GetParameter), invoked with authorizer-jwt.json. Default: header mode.
    #[arg(long)]
    authorizer_ssm: bool,
    /// Each binary's output (stdout and stderr) of its last run is kept here.
    #[arg(long, default_value = "target/coldstart-logs")]
    log_dir: PathBuf,
}

/// What the stub saw, in order.
#[derive(Debug)]
enum StubEvent {
    /// The first `GET …/invocation/next`: the function finished init.
    Ready(Instant),
    /// `POST …/response`, `…/error` or `…/init/error`.
    Outcome {
        kind: OutcomeKind,
        at: Instant,
        body: String,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum OutcomeKind {
    Response,
    Error,
    InitError,
}

impl OutcomeKind {
    fn as_str(self) -> &'static str {
        match self {
            Self::Response => "response",
            Self::Error => "error",
            Self::InitError => "init error",
        }
    }
}

/// One run's measurements.
#[derive(Debug)]
struct Run {
    cold_start: Option<Duration>,
    invoke: Option<Duration>,
    hwm_kb: Option<u64>,
    outcome: RunOutcome,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum RunOutcome {
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

/// One binary to measure.
struct Target {
    name: String,
    path: PathBuf,
    event: Value,
    event_file: PathBuf,
}

#[tokio::main]
async fn main() {
    let args = Args::parse();
    if args.runs == 0 {
        eprintln!("coldstart: --runs must be at least 1");
        std::process::exit(2);
    }
    let targets = match targets(&args) {
        Ok(targets) if !targets.is_empty() => targets,
        Ok(_) => {
            eprintln!(
                "coldstart: no function binary found in {} (build them first: cargo build --release -p authorizer -p connect ...)",
                args.bin_dir.display()
            );
            std::process::exit(2);
        }
        Err(message) => {
            eprintln!("coldstart: {message}");
            std::process::exit(2);
        }
    };
    let env = match function_env(&args).await {
        Ok(env) => env,
        Err(message) => {
            eprintln!("coldstart: {message}");
            std::process::exit(2);
        }
    };
    if let Err(error) = std::fs::create_dir_all(&args.log_dir) {
        eprintln!(
            "coldstart: cannot create {}: {error}",
            args.log_dir.display()
        );
        std::process::exit(2);
    }

    print_machine();
    println!(
        "runs per binary: {}; storage: {}; memory size given: 128 MB",
        args.runs,
        args.dynamodb_endpoint
            .as_deref()
            .unwrap_or("none (AWS endpoints are a closed local port)")
    );
    println!();

    let mut rows = Vec::new();
    for target in &targets {
        let mut runs = Vec::with_capacity(args.runs);
        for _ in 0..args.runs {
            let run = measure_once(target, &env, &args).await;
            runs.push(run);
        }
        let row = summarize(target, &runs);
        eprintln!(
            "{:<27} cold median {} ms, peak RSS median {} MiB, {}",
            target.name,
            fmt_ms(row.cold_median),
            fmt_mib(row.rss_median_kb),
            row.results
        );
        rows.push(row);
    }
    println!();
    print_table(&rows);
    println!();
    println!("load average after: {}", load_average());
    println!(
        "logs of each binary's last run: {}/<binary>.log",
        args.log_dir.display()
    );
}

/// The binaries to measure and their events.
fn targets(args: &Args) -> Result<Vec<Target>, String> {
    let mut overrides = BTreeMap::new();
    for spec in &args.event_overrides {
        let (name, file) = spec
            .split_once('=')
            .ok_or_else(|| format!("--event {spec:?}: expected BINARY=FILE"))?;
        overrides.insert(name.to_owned(), PathBuf::from(file));
    }
    let explicit = !args.binaries.is_empty();
    let names: Vec<String> = if explicit {
        args.binaries.clone()
    } else {
        FUNCTIONS
            .iter()
            .map(|(name, _)| (*name).to_owned())
            .collect()
    };
    let mut targets = Vec::new();
    for spec in names {
        let spec_path = PathBuf::from(&spec);
        let (name, path) = if spec.contains('/') {
            let name = spec_path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| spec.clone());
            (name, spec_path)
        } else {
            (spec.clone(), args.bin_dir.join(&spec))
        };
        if !path.is_file() {
            if explicit {
                return Err(format!("{} does not exist", path.display()));
            }
            continue;
        }
        let event_file = match overrides.get(&name) {
            Some(file) => file.clone(),
            None if name == "authorizer" && args.authorizer_ssm => {
                args.events_dir.join("authorizer-jwt.json")
            }
            None => match default_event(&args.events_dir, &name) {
                Some(file) => file,
                None => {
                    eprintln!(
                        "coldstart: skipping {name}: no sample event in {} (give one with --event {name}=FILE)",
                        args.events_dir.display()
                    );
                    continue;
                }
            },
        };
        let text = std::fs::read_to_string(&event_file)
            .map_err(|e| format!("cannot read {}: {e}", event_file.display()))?;
        let event: Value = serde_json::from_str(&text)
            .map_err(|e| format!("{} is not JSON: {e}", event_file.display()))?;
        targets.push(Target {
            name,
            path,
            event,
            event_file,
        });
    }
    Ok(targets)
}

fn default_event(events_dir: &Path, name: &str) -> Option<PathBuf> {
    if let Some((_, file)) = FUNCTIONS.iter().find(|(n, _)| *n == name) {
        let path = events_dir.join(file);
        if path.is_file() {
            return Some(path);
        }
    }
    let mut candidates: Vec<PathBuf> = std::fs::read_dir(events_dir)
        .ok()?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| {
            path.extension().is_some_and(|ext| ext == "json")
                && path
                    .file_name()
                    .is_some_and(|f| f.to_string_lossy().starts_with(name))
        })
        .collect();
    candidates.sort();
    candidates.into_iter().next()
}

/// The environment every function gets: Lambda's own variables (minus the per-run
/// ones), fake credentials, endpoints, and the shared configuration.
async fn function_env(args: &Args) -> Result<Vec<(String, String)>, String> {
    let closed = closed_port()?;
    let mut env: BTreeMap<String, String> = [
        ("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "128"),
        ("AWS_LAMBDA_FUNCTION_VERSION", "$LATEST"),
        ("AWS_LAMBDA_INITIALIZATION_TYPE", "on-demand"),
        ("AWS_LAMBDA_LOG_FORMAT", "JSON"),
        ("AWS_EXECUTION_ENV", "AWS_Lambda_provided.al2023"),
        ("AWS_REGION", "us-east-1"),
        ("AWS_DEFAULT_REGION", "us-east-1"),
        ("AWS_ACCESS_KEY_ID", "AKIDCOLDSTARTFAKE"),
        ("AWS_SECRET_ACCESS_KEY", "coldstart-fake-secret"),
        ("AWS_SESSION_TOKEN", "coldstart-fake-session"),
        ("TZ", ":UTC"),
        ("LAMBDA_TASK_ROOT", "/var/task"),
        ("LANG", "en_US.UTF-8"),
        ("GAME", "gamelift-sockets"),
        ("STAGE", "Development"),
        ("PLAYERS_TABLE", "coldstart-players"),
        ("MESSAGES_TABLE", "coldstart-messages"),
        ("PLACEMENTS_TABLE", "coldstart-placements"),
        ("SUBSCRIPTIONS_TABLE", "coldstart-subscriptions"),
        ("PARTIES_TABLE", "coldstart-parties"),
        ("PRESENCE_EVENT_BUS", "coldstart-presence"),
        ("GAME_SESSION_QUEUES", "coldstart-queue"),
        ("MAX_PLAYERS_PER_SESSION", "8"),
        ("HEARTBEAT_TIMEOUT_SECONDS", "90"),
        ("RECONNECT_GRACE_SECONDS", "30"),
        ("MESSAGE_TTL_SECONDS", "86400"),
        ("PRESENCE_SHARDS", "4"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect();
    env.insert(
        "AWS_ENDPOINT_URL".into(),
        format!("http://127.0.0.1:{closed}"),
    );
    if let Some(endpoint) = &args.dynamodb_endpoint {
        env.insert("AWS_ENDPOINT_URL_DYNAMODB".into(), endpoint.clone());
    }
    for spec in &args.extra_env {
        let (name, value) = spec
            .split_once('=')
            .ok_or_else(|| format!("--env {spec:?}: expected NAME=VALUE"))?;
        env.insert(name.to_owned(), value.to_owned());
    }
    if let Some(endpoint) = &args.dynamodb_endpoint {
        create_tables(endpoint, &env).await?;
    }
    Ok(env.into_iter().collect())
}

/// A local port nothing listens on (bound, then released).
fn closed_port() -> Result<u16, String> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")
        .map_err(|e| format!("cannot bind a local port: {e}"))?;
    listener
        .local_addr()
        .map(|a| a.port())
        .map_err(|e| format!("cannot read a local port: {e}"))
}

async fn create_tables(endpoint: &str, env: &BTreeMap<String, String>) -> Result<(), String> {
    use shared::adapters::dynamodb::{
        client_for_endpoint, create_messages_table, create_parties_table, create_placements_table,
        create_players_table, create_subscriptions_table,
    };
    let client = client_for_endpoint(endpoint).await;
    let table = |name: &str| env.get(name).cloned().unwrap_or_default();
    create_players_table(&client, &table("PLAYERS_TABLE"))
        .await
        .map_err(|e| format!("creating the Players table at {endpoint}: {e}"))?;
    create_messages_table(&client, &table("MESSAGES_TABLE"))
        .await
        .map_err(|e| format!("creating the Messages table at {endpoint}: {e}"))?;
    create_subscriptions_table(&client, &table("SUBSCRIPTIONS_TABLE"))
        .await
        .map_err(|e| format!("creating the Subscriptions table at {endpoint}: {e}"))?;
    create_placements_table(&client, &table("PLACEMENTS_TABLE"))
        .await
        .map_err(|e| format!("creating the Placements table at {endpoint}: {e}"))?;
    create_parties_table(&client, &table("PARTIES_TABLE"))
        .await
        .map_err(|e| format!("creating the Parties table at {endpoint}: {e}"))?;
    Ok(())
}

/// One cold start and invocation.
async fn measure_once(target: &Target, env: &[(String, String)], args: &Args) -> Run {
    let failed = |outcome: RunOutcome| Run {
        cold_start: None,
        invoke: None,
        hwm_kb: None,
        outcome,
    };
    let listener = match TcpListener::bind("127.0.0.1:0").await {
        Ok(listener) => listener,
        Err(error) => return failed(RunOutcome::Exited(format!("stub bind failed: {error}"))),
    };
    let Ok(addr) = listener.local_addr() else {
        return failed(RunOutcome::Exited("stub has no address".into()));
    };
    let event = localize(target.event.clone(), &addr.to_string());
    let stub = Stub {
        event: Arc::new(serde_json::to_vec(&event).unwrap_or_default()),
        function: target.name.clone(),
    };
    let (events_tx, mut events) = mpsc::unbounded_channel();
    let server = tokio::spawn(stub.serve(listener, events_tx));

    let log_path = args.log_dir.join(format!("{}.log", target.name));
    let (stdout, stderr) = match File::create(&log_path).and_then(|f| Ok((f.try_clone()?, f))) {
        Ok((out, err)) => (Stdio::from(out), Stdio::from(err)),
        Err(_) => (Stdio::null(), Stdio::null()),
    };
    let mut command = Command::new(&target.path);
    command
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .env("AWS_LAMBDA_RUNTIME_API", addr.to_string())
        .env("AWS_LAMBDA_FUNCTION_NAME", &target.name)
        .env(
            "AWS_LAMBDA_LOG_GROUP_NAME",
            format!("/aws/lambda/{}", target.name),
        )
        .env(
            "AWS_LAMBDA_LOG_STREAM_NAME",
            "2026/11/22/[$LATEST]0123456789abcdef",
        )
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr);
    // Parameter Store is the stub too (only the authorizer calls it).
    command.env("AWS_ENDPOINT_URL_SSM", format!("http://{addr}"));
    let chosen = |name: &str| {
        args.extra_env
            .iter()
            .any(|e| e.starts_with(&format!("{name}=")))
    };
    if target.name == "authorizer" && !chosen("AUTH_MODE") {
        if args.authorizer_ssm {
            command
                .env("AUTH_MODE", "jwt")
                .env("JWT_ISSUER", SAMPLE_EVENT_ISSUER)
                .env("JWT_AUDIENCE", SAMPLE_EVENT_AUDIENCE)
                .env("JWT_HS256_SECRET_PARAMETER", SSM_PARAMETER);
        } else {
            command
                .env("AUTH_MODE", "header")
                .env("ALLOW_UNAUTHENTICATED", "true");
        }
    }

    let started = Instant::now();
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(error) => {
            server.abort();
            return failed(RunOutcome::Exited(format!("spawn failed: {error}")));
        }
    };
    let deadline = tokio::time::Instant::from_std(started + Duration::from_millis(args.timeout_ms));

    let mut ready = None;
    let result = loop {
        tokio::select! {
            event = events.recv() => match event {
                Some(StubEvent::Ready(at)) => ready = Some(at),
                Some(StubEvent::Outcome { kind, at, body }) => {
                    if kind != OutcomeKind::Response {
                        append_log(&log_path, &format!("\n[coldstart] {}: {body}\n", kind.as_str()));
                    }
                    break Ok((kind, at));
                }
                None => break Err(RunOutcome::Exited("stub stopped".into())),
            },
            () = tokio::time::sleep(Duration::from_millis(2)) => {
                if let Ok(Some(status)) = child.try_wait() {
                    break Err(RunOutcome::Exited(status.to_string()));
                }
            }
            () = tokio::time::sleep_until(deadline) => break Err(RunOutcome::TimedOut),
        }
    };
    let hwm_kb = if result.is_ok() {
        vm_hwm_kb(child.id())
    } else {
        None
    };
    stop(&mut child);
    server.abort();
    let cold_start = ready.map(|at| at.duration_since(started));
    match result {
        Ok((kind, at)) => Run {
            cold_start,
            invoke: ready.map(|r| at.duration_since(r)),
            hwm_kb,
            outcome: RunOutcome::Invoked(kind),
        },
        Err(outcome) => Run {
            cold_start,
            invoke: None,
            hwm_kb: None,
            outcome,
        },
    }
}

fn stop(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

fn append_log(path: &Path, text: &str) {
    use std::io::Write;
    if let Ok(mut file) = std::fs::OpenOptions::new().append(true).open(path) {
        let _ = file.write_all(text.as_bytes());
    }
}

/// Points the event's management API endpoint (`requestContext.domainName`) at the stub,
/// so a `PostToConnection` stays on this machine (loopback hosts get plain http).
fn localize(mut event: Value, stub: &str) -> Value {
    if let Some(context) = event
        .get_mut("requestContext")
        .and_then(Value::as_object_mut)
        && context.contains_key("domainName")
    {
        context.insert("domainName".into(), Value::String(stub.to_owned()));
    }
    event
}

fn vm_hwm_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
}

/// The Lambda Runtime API of one run, plus the `@connections` API the events point at.
#[derive(Clone)]
struct Stub {
    event: Arc<Vec<u8>>,
    function: String,
}

impl Stub {
    async fn serve(self, listener: TcpListener, events: mpsc::UnboundedSender<StubEvent>) {
        let mut connections = JoinSet::new();
        let served = Arc::new(std::sync::atomic::AtomicBool::new(false));
        loop {
            let Ok((socket, _)) = listener.accept().await else {
                tokio::time::sleep(Duration::from_millis(1)).await;
                continue;
            };
            let _ = socket.set_nodelay(true);
            connections.spawn(
                self.clone()
                    .connection(socket, events.clone(), served.clone()),
            );
        }
    }

    /// Requests one after another on one keep-alive connection.
    async fn connection(
        self,
        mut socket: TcpStream,
        events: mpsc::UnboundedSender<StubEvent>,
        served: Arc<std::sync::atomic::AtomicBool>,
    ) {
        let mut buffer = Vec::with_capacity(8192);
        loop {
            let Some(request) = read_request(&mut socket, &mut buffer).await else {
                return;
            };
            let path = request.path.as_str();
            let response = if request.method == "GET"
                && path == "/2018-06-01/runtime/invocation/next"
            {
                if served.swap(true, std::sync::atomic::Ordering::SeqCst) {
                    // The one invocation was given: hold this poll until the kill, as Lambda
                    // holds it while the environment is frozen.
                    std::future::pending::<()>().await;
                    return;
                }
                let _ = events.send(StubEvent::Ready(request.received));
                self.next_response()
            } else if request.method == "POST" && path.starts_with("/2018-06-01/runtime/") {
                let kind = if path.ends_with("/response") {
                    Some(OutcomeKind::Response)
                } else if path == "/2018-06-01/runtime/init/error" {
                    Some(OutcomeKind::InitError)
                } else if path.ends_with("/error") {
                    Some(OutcomeKind::Error)
                } else {
                    None
                };
                match kind {
                    Some(kind) => {
                        let body = String::from_utf8_lossy(&request.body);
                        let _ = events.send(StubEvent::Outcome {
                            kind,
                            at: request.received,
                            body: body.chars().take(2000).collect(),
                        });
                        http_response(202, "Accepted", &[], br#"{"status":"OK"}"#)
                    }
                    None => http_response(404, "Not Found", &[], b""),
                }
            } else if request.method == "POST"
                && request.target.as_deref() == Some("AmazonSSM.GetParameter")
            {
                ssm_get_parameter(&request.body)
            } else if path.contains("/@connections/") {
                match request.method.as_str() {
                    "POST" => http_response(200, "OK", &[], b""),
                    "DELETE" => http_response(204, "No Content", &[], b""),
                    "GET" => http_response(
                        200,
                        "OK",
                        &[],
                        br#"{"connectedAt":"2026-11-22T05:00:00Z","lastActiveAt":"2026-11-22T05:00:00Z","identity":{"sourceIp":"127.0.0.1"}}"#,
                    ),
                    _ => http_response(404, "Not Found", &[], b""),
                }
            } else {
                http_response(404, "Not Found", &[], b"")
            };
            if socket.write_all(&response).await.is_err() {
                return;
            }
        }
    }

    /// The invocation, with the headers Lambda sends.
    fn next_response(&self) -> Vec<u8> {
        let now_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        let request_id = format!("c0ld5747-0000-4000-8000-{:012x}", now_ms);
        let headers = [
            ("Lambda-Runtime-Aws-Request-Id", request_id),
            ("Lambda-Runtime-Deadline-Ms", (now_ms + 3000).to_string()),
            (
                "Lambda-Runtime-Invoked-Function-Arn",
                format!(
                    "arn:aws:lambda:us-east-1:123456789012:function:{}",
                    self.function
                ),
            ),
            (
                "Lambda-Runtime-Trace-Id",
                "Root=1-67a88a42-1d2c3b4a5e6f708192a3b4c5;Parent=53995c3f42cd8ad8;Sampled=0"
                    .to_owned(),
            ),
        ];
        http_response(200, "OK", &headers, &self.event)
    }
}

struct Request {
    method: String,
    path: String,
    /// `X-Amz-Target` (AWS JSON protocols: the operation).
    target: Option<String>,
    body: Vec<u8>,
    received: Instant,
}

/// SSM's answer to `GetParameter` (AWS JSON 1.1): the sample secret as a SecureString,
/// whatever the name asked for (decrypted when asked, as SSM does).
fn ssm_get_parameter(body: &[u8]) -> Vec<u8> {
    let request: Value = serde_json::from_slice(body).unwrap_or_default();
    let name = request["Name"].as_str().unwrap_or(SSM_PARAMETER);
    let value = if request["WithDecryption"] == Value::Bool(true) {
        SAMPLE_EVENT_SECRET
    } else {
        "AQICAHjcoldstart-ciphertext"
    };
    let answer = serde_json::json!({
        "Parameter": {
            "ARN": format!("arn:aws:ssm:us-east-1:123456789012:parameter/{}", name.trim_start_matches('/')),
            "DataType": "text",
            "LastModifiedDate": 1.7955e9,
            "Name": name,
            "Type": "SecureString",
            "Value": value,
            "Version": 1
        }
    });
    http_response(
        200,
        "OK",
        &[],
        &serde_json::to_vec(&answer).unwrap_or_default(),
    )
}

/// One HTTP/1.1 request (Content-Length or chunked body), or None at end of stream.
async fn read_request(socket: &mut TcpStream, buffer: &mut Vec<u8>) -> Option<Request> {
    let head_end = loop {
        if let Some(pos) = find(buffer, b"\r\n\r\n") {
            break pos + 4;
        }
        if buffer.len() > 64 * 1024 || !fill(socket, buffer).await {
            return None;
        }
    };
    let received = Instant::now();
    let head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
    buffer.drain(..head_end);
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split(' ');
    let method = first.next()?.to_owned();
    let path = first.next()?.to_owned();
    let mut content_length = 0usize;
    let mut chunked = false;
    let mut target = None;
    for line in lines {
        if let Some((name, value)) = line.split_once(':') {
            let name = name.trim().to_ascii_lowercase();
            let value = value.trim();
            if name == "x-amz-target" {
                target = Some(value.to_owned());
            } else if name == "content-length" {
                content_length = value.parse().ok()?;
            } else if name == "transfer-encoding" && value.eq_ignore_ascii_case("chunked") {
                chunked = true;
            }
        }
    }
    let body = if chunked {
        read_chunked(socket, buffer).await?
    } else {
        while buffer.len() < content_length {
            if !fill(socket, buffer).await {
                return None;
            }
        }
        buffer.drain(..content_length).collect()
    };
    Some(Request {
        method,
        path,
        target,
        body,
        received,
    })
}

async fn read_chunked(socket: &mut TcpStream, buffer: &mut Vec<u8>) -> Option<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let line_end = loop {
            if let Some(pos) = find(buffer, b"\r\n") {
                break pos;
            }
            if !fill(socket, buffer).await {
                return None;
            }
        };
        let size_text = String::from_utf8_lossy(&buffer[..line_end]).into_owned();
        let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
        buffer.drain(..line_end + 2);
        if size == 0 {
            // Trailers, then the empty line.
            loop {
                if let Some(pos) = find(buffer, b"\r\n") {
                    let empty = pos == 0;
                    buffer.drain(..pos + 2);
                    if empty {
                        return Some(body);
                    }
                } else if !fill(socket, buffer).await {
                    return None;
                }
            }
        }
        while buffer.len() < size + 2 {
            if !fill(socket, buffer).await {
                return None;
            }
        }
        body.extend_from_slice(&buffer[..size]);
        buffer.drain(..size + 2);
    }
}

async fn fill(socket: &mut TcpStream, buffer: &mut Vec<u8>) -> bool {
    let mut chunk = [0u8; 8192];
    match socket.read(&mut chunk).await {
        Ok(0) | Err(_) => false,
        Ok(n) => {
            buffer.extend_from_slice(&chunk[..n]);
            true
        }
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn http_response(status: u16, reason: &str, headers: &[(&str, String)], body: &[u8]) -> Vec<u8> {
    let mut out = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        out.push_str(&format!("{name}: {value}\r\n"));
    }
    out.push_str("\r\n");
    let mut bytes = out.into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

/// One table row.
struct Row {
    name: String,
    size: Option<u64>,
    event: String,
    runs: usize,
    cold_median: Option<f64>,
    cold_p90: Option<f64>,
    cold_min: Option<f64>,
    invoke_median: Option<f64>,
    rss_median_kb: Option<u64>,
    results: String,
}

fn summarize(target: &Target, runs: &[Run]) -> Row {
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

fn print_table(rows: &[Row]) {
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

fn fmt_ms(ms: Option<f64>) -> String {
    ms.map_or("-".into(), |ms| format!("{ms:.1}"))
}

fn fmt_mib(kb: Option<u64>) -> String {
    kb.map_or("-".into(), |kb| format!("{:.1}", kb as f64 / 1024.0))
}

fn print_machine() {
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

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}
