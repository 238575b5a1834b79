//! `sam local invoke <Function> -e events/… --env-vars local/sam-env.json`, without
//! Docker: each function's real binary (its main.rs wiring) run under the Lambda Runtime
//! API (`tools::runtime_api`, what the container's runtime interface emulator serves)
//! with exactly the environment SAM would give it (`local::sam_env`: the template's
//! variables, the env file's values, SAM's own `AWS_*`), against DynamoDB Local and a
//! running local stack, answers as `local invoke` does for the same event file.
//!
//! The container reaches the host as `host.docker.internal`; this test runs on the host,
//! so that name becomes 127.0.0.1, and the README's ports (8000, 3001) the free ones the
//! test's DynamoDB Local and stack listen on. Nothing else of the file changes.
//!
//! Needs Java and DynamoDB Local (scripts/test.sh installs them and sets
//! `DYNAMODB_ENDPOINT`; without it the test is skipped). It starts its own DynamoDB Local:
//! the env file names the local stack's tables (`Players`, ...), which it recreates for
//! every function, so it must not share an instance. It builds the 18 function binaries
//! first (`cargo build`: about 4 minutes the first time on 2 busy cores, since a build of
//! those packages alone unifies features differently from the workspace's test build;
//! then under a second); the rest takes about 20 s.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Test support: a panic is the test failing, with its message.

mod common;

use std::collections::BTreeMap;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use local::sam_env::{self, CONTAINER_HOST};
use local::{RunningStack, Settings};
use serde_json::Value;
use shared::domain::{PlacementId, PlacementStatus, PlayerId};
use tools::runtime_api::{
    Ended, OutcomeKind, RuntimeApi, SAMPLE_EVENTS, lambda_environment, run_once,
};

const REPO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
/// What `sam local invoke` gives a function when the caller's AWS session has these
/// (the README's commands export fake ones).
const REGION: &str = "us-east-1";
const ACCESS_KEY_ID: &str = "local";
const SECRET_ACCESS_KEY: &str = "local";

/// DynamoDB Local started by `scripts/dynamodb-local.sh` on a free port, stopped on drop.
struct DynamoDbLocal {
    child: Child,
    port: u16,
}

impl DynamoDbLocal {
    fn start() -> Self {
        let port = free_port();
        let child = Command::new("bash")
            .arg(Path::new(REPO).join("scripts/dynamodb-local.sh"))
            .arg(port.to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("scripts/dynamodb-local.sh starts");
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "DynamoDB Local did not listen on {port} within 60 s"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        Self { child, port }
    }

    fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

impl Drop for DynamoDbLocal {
    fn drop(&mut self) {
        // The script execs Java: this pid is the server's.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// `cargo build` of every function binary, in this test's profile (once: later runs
/// find them current); returns the directory they are in.
fn build_function_binaries() -> PathBuf {
    // target/<profile>/deps/sam_local-<hash> → target/<profile>
    let exe = std::env::current_exe().expect("the test's own path");
    let dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("the test runs from target/<profile>/deps")
        .to_path_buf();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let mut command = Command::new(cargo);
    command
        .current_dir(REPO)
        .args(["build", "--locked", "--bins"]);
    if dir.file_name().is_some_and(|name| name == "release") {
        command.arg("--release");
    }
    for (binary, _) in SAMPLE_EVENTS {
        command.args(["-p", binary]);
    }
    let status = command.status().expect("cargo runs");
    assert!(
        status.success(),
        "cargo build of the function binaries failed"
    );
    dir
}

/// The `local invoke` answer: the function run in-process on the local stack as
/// `cargo run -p local -- invoke <function> <event>` assembles it (in memory).
async fn local_invoke(function: &str, event: &Path) -> Value {
    match local::invoke_once::invoke_once(Settings::default(), function, event).await {
        Ok(response) => response,
        Err(local::invoke_once::InvokeOnceError::FunctionError { response, .. }) => response,
        Err(error) => panic!("local invoke {function} {}: {error}", event.display()),
    }
}

/// A local stack on DynamoDB Local with its tables new: what `cargo run -p local --
/// --dynamodb-endpoint …` serves, empty.
async fn fresh_stack(dynamodb: &DynamoDbLocal) -> RunningStack {
    let mut settings = Settings::default();
    settings.storage.dynamodb_endpoint = Some(dynamodb.endpoint());
    let client = aws_adapters::dynamodb::client_for_endpoint(&dynamodb.endpoint()).await;
    for table in [
        &settings.storage.players_table,
        &settings.storage.messages_table,
        &settings.storage.placements_table,
        &settings.storage.subscriptions_table,
        &settings.storage.parties_table,
    ] {
        // Absent the first time.
        let _ = client.delete_table().table_name(table).send().await;
    }
    common::started(settings).await
}

/// The function's whole environment in the container, its hosts as this machine sees
/// them (see the file's header).
fn container_environment(
    template: &Value,
    id: &str,
    entry: &BTreeMap<String, String>,
    dynamodb: &DynamoDbLocal,
    stack: &RunningStack,
) -> BTreeMap<String, String> {
    let mut env = sam_env::sam_variables(id, REGION, ACCESS_KEY_ID, SECRET_ACCESS_KEY);
    let here = |value: String| {
        value
            .replace(
                &format!("{CONTAINER_HOST}:8000"),
                &format!("127.0.0.1:{}", dynamodb.port),
            )
            .replace(&format!("{CONTAINER_HOST}:3001"), &stack.addr().to_string())
    };
    for (name, value) in sam_env::function_environment(template, id, entry) {
        env.insert(name, here(value));
    }
    env
}

/// The function's log (its stdout and stderr), kept in the target directory for a
/// failure's reader.
fn log_files(function: &str) -> (Stdio, Stdio) {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("sam-local");
    std::fs::create_dir_all(&dir)
        .and_then(|()| std::fs::File::create(dir.join(format!("{function}.log"))))
        .and_then(|file| Ok((file.try_clone()?, file)))
        .map_or_else(
            |_| (Stdio::null(), Stdio::null()),
            |(out, err)| (Stdio::from(out), Stdio::from(err)),
        )
}

/// Runs `binary` once on `event` with `env`; its answer as JSON (Lambda's error object
/// when it failed).
async fn container_invoke(
    binary: &Path,
    function: &str,
    event: &[u8],
    env: &BTreeMap<String, String>,
) -> Value {
    let api = RuntimeApi::bind()
        .await
        .expect("a port for the Runtime API");
    let (stdout, stderr) = log_files(function);
    let mut command = Command::new(binary);
    command
        .env_clear()
        .envs(lambda_environment(function, api.addr()))
        .envs(env)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr);
    let served = api.serve(function, event.to_vec(), None);
    let run = run_once(command, served, Duration::from_secs(20), false).await;
    match run.result {
        Ok(outcome) if outcome.kind == OutcomeKind::InitError => {
            panic!("{function} failed at init: {}", outcome.body)
        }
        Ok(outcome) => serde_json::from_str(&outcome.body)
            .unwrap_or_else(|e| panic!("{function} answered non-JSON ({e}): {}", outcome.body)),
        Err(Ended::Exited(status)) => panic!("{function} exited before answering: {status}"),
        Err(ended) => panic!("{function}: {ended:?}"),
    }
}

/// Fields that differ between two runs of the same event, whoever runs it: generated
/// ids. Replaced by a placeholder (wherever they are, in the response or in the frame
/// its `body` carries).
fn normalize(value: Value) -> Value {
    const GENERATED: [&str; 1] = ["placementId"];
    fn walk(value: &mut Value) {
        match value {
            Value::Object(object) => {
                for (key, field) in object.iter_mut() {
                    if GENERATED.contains(&key.as_str()) && field.is_string() {
                        *field = Value::from("<generated>");
                    } else {
                        walk(field);
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(walk),
            _ => {}
        }
    }
    let mut value = value;
    // A WebSocket route's frame is JSON inside `body`.
    if let Some(body) = value.get("body").and_then(Value::as_str)
        && let Ok(frame) = serde_json::from_str::<Value>(body)
    {
        value["body"] = frame;
    }
    walk(&mut value);
    value
}

/// What two of the functions leave where only a run against DynamoDB Local and the
/// stack can leave it: the player `connect` wrote, read back from DynamoDB Local; the
/// placement `session-placement-request` started through the stack's GameLift API,
/// fulfilled by its simulator (its event through on-placement-event, in the stack, to
/// DynamoDB Local).
async fn side_effects(binary: &str, answer: &Value, stack: &RunningStack) {
    match binary {
        "connect" => {
            let alice = PlayerId::parse("alice").unwrap();
            let record = stack
                .dependencies()
                .stores
                .player_reader()
                .get(&alice)
                .await
                .unwrap();
            assert!(
                record.is_some(),
                "connect did not write alice to DynamoDB Local"
            );
        }
        "session-placement-request" => {
            let frame: Value = serde_json::from_str(answer["body"].as_str().unwrap()).unwrap();
            let id = PlacementId::parse(frame["placementId"].as_str().unwrap()).unwrap();
            let deadline = Instant::now() + Duration::from_secs(15);
            loop {
                let record = stack
                    .dependencies()
                    .stores
                    .placement_reader()
                    .get(&id)
                    .await
                    .unwrap();
                if record
                    .as_ref()
                    .is_some_and(|r| r.status == PlacementStatus::Fulfilled)
                {
                    break;
                }
                assert!(
                    Instant::now() < deadline,
                    "placement {id} not fulfilled by the stack's simulator within 15 s: {record:?}"
                );
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
        _ => {}
    }
}

/// A container function's `@connections` calls reach the stack's sockets: alice is
/// connected to the stack; `connect` run as a container for a newer socket of hers takes
/// the session over, telling the first socket `session_replaced` and closing it through
/// the stack's `@connections` API. (connect.json's times are made now: an older connect
/// than the socket's would be superseded instead, and call nothing.)
async fn takeover_reaches_the_stacks_socket(
    binaries: &Path,
    template: &Value,
    file: &BTreeMap<String, BTreeMap<String, String>>,
    dynamodb: &DynamoDbLocal,
    ids: &BTreeMap<String, String>,
) {
    use futures_util::StreamExt;
    use tokio_tungstenite::tungstenite::Message;

    let stack = fresh_stack(dynamodb).await;
    let (mut socket, _) =
        tokio_tungstenite::connect_async(format!("{}?playerId=alice", stack.url()))
            .await
            .expect("alice connects to the stack");
    let mut event: Value = serde_json::from_slice(
        &std::fs::read(Path::new(REPO).join("events/connect.json")).unwrap(),
    )
    .unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    event["requestContext"]["connectedAt"] = now.into();
    event["requestContext"]["requestTimeEpoch"] = now.into();
    let id = &ids["connect"];
    let env = container_environment(template, id, &file[id.as_str()], dynamodb, &stack);
    let answer = container_invoke(
        &binaries.join("connect"),
        "connect",
        &serde_json::to_vec(&event).unwrap(),
        &env,
    )
    .await;
    assert_eq!(answer["statusCode"], 200, "{answer}");
    let frames = tokio::time::timeout(Duration::from_secs(10), async {
        let mut frames = Vec::new();
        while let Some(Ok(message)) = socket.next().await {
            match message {
                Message::Text(text) => frames.push(text.to_string()),
                Message::Close(_) => break,
                _ => {}
            }
        }
        frames
    })
    .await
    .expect("the first socket is closed within 10 s");
    assert_eq!(
        frames,
        [r#"{"type":"session_replaced"}"#],
        "what the first socket got"
    );
    stack.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn given_each_function_run_as_sam_local_invoke_runs_it_then_it_answers_as_local_invoke_does()
{
    if std::env::var_os("DYNAMODB_ENDPOINT").is_none() {
        eprintln!(
            "skipped: DYNAMODB_ENDPOINT is not set (run scripts/test.sh): no Java or DynamoDB Local here"
        );
        return;
    }
    let started = Instant::now();
    let binaries = build_function_binaries();
    let built = started.elapsed();
    let dynamodb = Arc::new(DynamoDbLocal::start());
    let template = local::template::parse(local::template::TEMPLATE_YAML).unwrap();
    let file = sam_env::parse_env_file(sam_env::ENV_FILE).unwrap();
    let ids: BTreeMap<String, String> = template["Resources"]
        .as_object()
        .unwrap()
        .iter()
        .filter_map(|(id, resource)| {
            let binary = resource["Metadata"]["BuildProperties"]["Binary"].as_str()?;
            Some((binary.to_owned(), id.clone()))
        })
        .collect();

    let mut differences = Vec::new();
    for (binary, event_file) in SAMPLE_EVENTS {
        let id = &ids[*binary];
        let event_path = Path::new(REPO).join("events").join(event_file);
        let event = std::fs::read(&event_path).unwrap();
        let expected = normalize(local_invoke(binary, &event_path).await);

        let stack = fresh_stack(&dynamodb).await;
        let env = container_environment(&template, id, &file[id.as_str()], &dynamodb, &stack);
        let answer = container_invoke(&binaries.join(binary), binary, &event, &env).await;
        side_effects(binary, &answer, &stack).await;
        let actual = normalize(answer);
        stack.shutdown().await;
        if actual != expected {
            differences.push(format!(
                "{id} on events/{event_file}:\n    local invoke: {expected}\n    container:    {actual}"
            ));
        }
    }
    takeover_reaches_the_stacks_socket(&binaries, &template, &file, &dynamodb, &ids).await;
    eprintln!(
        "{} functions in {:.1} s (building their binaries: {:.1} s)",
        SAMPLE_EVENTS.len(),
        started.elapsed().as_secs_f64(),
        built.as_secs_f64()
    );
    assert!(
        differences.is_empty(),
        "run as sam local invoke would, functions answer otherwise than local invoke:\n  {}",
        differences.join("\n  ")
    );
}
