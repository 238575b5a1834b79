//! Cold start and memory of the Lambda function binaries, run the way Lambda runs them.
//!
//! For each binary, N times: a tiny Lambda Runtime API on 127.0.0.1 (a fresh port per
//! run: `tools::runtime_api`), the binary spawned with the environment Lambda gives a `provided.al2023`
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
//! (`PostToConnection`) go to the stub itself (`AWS_ENDPOINT_URL_APIGATEWAYMANAGEMENTAPI`,
//! which replaces the events' endpoint), so nothing ever leaves the machine. So does SSM
//! Parameter Store (`AWS_ENDPOINT_URL_SSM`): the stub answers `GetParameter` with a SecureString holding
//! the sample events' HS256 secret, which `--authorizer-ssm` has the authorizer read at
//! init (JWT mode with `JWT_HS256_SECRET_PARAMETER`, invoked with `authorizer-jwt.json`).
//! By default the authorizer runs in header mode (`ALLOW_UNAUTHENTICATED=true`).

mod environment;
mod report;

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use report::{
    Measurement, RunOutcome, fmt_mib, fmt_ms, load_average, print_machine, print_table, summarize,
};
use serde_json::Value;
use tools::runtime_api::{
    Ended, OutcomeKind, Request, RuntimeApi, SAMPLE_EVENTS, http_response, lambda_environment,
    run_once,
};

/// The HS256 secret `events/authorizer-jwt.json`'s token is signed with (test-only, in
/// the repository: never a deployed secret), served as the SSM parameter's value.
const SAMPLE_EVENT_SECRET: &str = "gamelift-sockets-sample-event-secret-NOT-FOR-PRODUCTION";
/// The parameter `--authorizer-ssm` names, and the issuer and audience of that token.
const SSM_PARAMETER: &str = "/coldstart/jwt-hs256-secret";
const SAMPLE_EVENT_ISSUER: &str = "https://auth.example.com/";
const SAMPLE_EVENT_AUDIENCE: &str = "gamelift-sockets";

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
    let env = match environment::function_env(&args).await {
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
        SAMPLE_EVENTS
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
    if let Some((_, file)) = SAMPLE_EVENTS.iter().find(|(n, _)| *n == name) {
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

/// One cold start and invocation.
async fn measure_once(target: &Target, env: &[(String, String)], args: &Args) -> Measurement {
    let failed = |outcome: RunOutcome| Measurement {
        cold_start: None,
        invoke: None,
        hwm_kb: None,
        outcome,
    };
    let api = match RuntimeApi::bind().await {
        Ok(api) => api,
        Err(error) => return failed(RunOutcome::Exited(format!("stub bind failed: {error}"))),
    };
    let addr = api.addr();
    let log_path = args.log_dir.join(format!("{}.log", target.name));
    let (stdout, stderr) = match File::create(&log_path).and_then(|f| Ok((f.try_clone()?, f))) {
        Ok((out, err)) => (Stdio::from(out), Stdio::from(err)),
        Err(_) => (Stdio::null(), Stdio::null()),
    };
    let mut command = Command::new(&target.path);
    command
        .env_clear()
        .envs(lambda_environment(&target.name, addr))
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr);
    // The @connections API and Parameter Store are the stub too (SSM: only the
    // authorizer calls it), so nothing leaves the machine.
    command
        .env(
            "AWS_ENDPOINT_URL_APIGATEWAYMANAGEMENTAPI",
            format!("http://{addr}/Development"),
        )
        .env("AWS_ENDPOINT_URL_SSM", format!("http://{addr}"));
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
    let event = serde_json::to_vec(&target.event).unwrap_or_default();
    let served = api.serve(&target.name, event, Some(Arc::new(stub_services)));
    let timeout = Duration::from_millis(args.timeout_ms);
    let run = run_once(command, served, timeout, true).await;
    let cold_start = run.ready.map(|at| at.duration_since(run.started));
    match run.result {
        Ok(outcome) => {
            if outcome.kind != OutcomeKind::Response {
                let text = format!(
                    "\n[coldstart] {}: {}\n",
                    outcome.kind.as_str(),
                    outcome.body
                );
                append_log(&log_path, &text);
            }
            Measurement {
                cold_start,
                invoke: run.ready.map(|ready| outcome.at.duration_since(ready)),
                hwm_kb: run.hwm_kb,
                outcome: RunOutcome::Invoked(outcome.kind),
            }
        }
        Err(ended) => Measurement {
            cold_start,
            invoke: None,
            hwm_kb: None,
            outcome: match ended {
                Ended::TimedOut => RunOutcome::TimedOut,
                Ended::Exited(status) => RunOutcome::Exited(status),
                Ended::Stopped => RunOutcome::Exited("stub stopped".into()),
            },
        },
    }
}

fn append_log(path: &Path, text: &str) {
    use std::io::Write;
    if let Ok(mut file) = std::fs::OpenOptions::new().append(true).open(path) {
        let _ = file.write_all(text.as_bytes());
    }
}

/// What the stub answers besides the Runtime API: the `@connections` API (every call
/// succeeds) and SSM's `GetParameter`.
fn stub_services(request: &Request) -> Vec<u8> {
    if request.method == "POST" && request.target.as_deref() == Some("AmazonSSM.GetParameter") {
        return ssm_get_parameter(&request.body);
    }
    if !request.path.contains("/@connections/") {
        return http_response(404, "Not Found", &[], b"");
    }
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
