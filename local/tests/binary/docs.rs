//! Every command README.md and docs/deploy.md tell a user to run locally, run as written
//! against the local stack, in header and JWT mode.
//!
//! The docs mark each fenced block: `<!-- docs-test: NAME -->` before a block this file
//! runs (by NAME), or `<!-- docs-test: skip (why) -->` before one it cannot (it needs an
//! AWS account, or takes 20 minutes). Every shell block must carry one, so a new command
//! in the docs is either run here or says why not. The blocks run under `bash` with two
//! stand-ins on `PATH`: `cargo` (`cargo run -p local ...` is this binary, anything else the
//! real cargo) and `websocat` (binary/websocat, a small Python WebSocket client), and with
//! the docs' ports (3001, 8000) replaced by free ones.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::{Value, json};

#[path = "docs_sam.rs"]
mod sam;

const REPO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
const FILES: [&str; 2] = ["README.md", "docs/deploy.md"];
/// The README's opening: the title, then a block whose first two lines are the two
/// commands a newcomer needs (their comments may change).
const README_HEAD: [&str; 4] = ["# GameLift Sockets", "", "```sh", "cargo run -p local "];
const README_TEST_COMMAND: &str = "scripts/test.sh ";

/// A marked block: its file, its marker's name, its text.
#[derive(Clone, Debug)]
struct Block {
    file: &'static str,
    name: String,
    text: String,
}

/// Every fenced block of the docs with the name of the marker before it ("" if none).
fn fences() -> Vec<(Block, String)> {
    let mut blocks = Vec::new();
    for file in FILES {
        let text = std::fs::read_to_string(Path::new(REPO).join(file)).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let mut i = 0;
        while i < lines.len() {
            let line = lines[i].trim_start();
            if let Some(lang) = line.strip_prefix("```").filter(|l| !l.is_empty()) {
                let marker = lines[..i]
                    .iter()
                    .rev()
                    .find(|l| !l.trim().is_empty())
                    .and_then(|l| l.trim().strip_prefix("<!-- docs-test:"))
                    .and_then(|l| l.strip_suffix("-->"))
                    .map(|l| l.trim().to_owned())
                    .unwrap_or_default();
                let indent = lines[i].len() - line.len();
                let mut body = String::new();
                i += 1;
                while i < lines.len() && !lines[i].trim_start().starts_with("```") {
                    body.push_str(lines[i].get(indent..).unwrap_or(lines[i].trim_start()));
                    body.push('\n');
                    i += 1;
                }
                blocks.push((
                    Block {
                        file,
                        name: marker,
                        text: body,
                    },
                    lang.to_owned(),
                ));
            }
            i += 1;
        }
    }
    blocks
}

/// The blocks to run, by name (each name once).
fn runnable() -> BTreeMap<String, Block> {
    let mut named = BTreeMap::new();
    for (block, _) in fences() {
        if !block.name.is_empty() && !block.name.starts_with("skip") {
            let name = block.name.clone();
            assert!(
                named.insert(name.clone(), block).is_none(),
                "two blocks are marked docs-test: {name}"
            );
        }
    }
    named
}

fn block(name: &str) -> String {
    runnable()
        .remove(name)
        .unwrap_or_else(|| panic!("no block is marked docs-test: {name}"))
        .text
}

/// The names this file runs; a marked block it does not know fails the test.
const SCENARIOS: [&str; 17] = [
    "try-it",
    "try-it-session",
    "backend-api-local",
    "jwt-local",
    "mint-token-local",
    "jwt-connect-local",
    "invoke",
    "sam-generate-event",
    "sim-timeout",
    "dynamodb-local",
    "smoke-header",
    "smoke-header-frames",
    "smoke-bob",
    "smoke-alice-frames",
    "hs256-secret",
    "mint-token",
    "smoke-jwt",
];

#[test]
fn every_shell_block_of_the_docs_is_run_here_or_says_why_not() {
    let readme = std::fs::read_to_string(Path::new(REPO).join("README.md")).unwrap();
    let head: Vec<&str> = readme.lines().take(5).collect();
    assert!(
        head.len() == 5
            && head[..3] == README_HEAD[..3]
            && head[3].starts_with(README_HEAD[3])
            && head[4].starts_with(README_TEST_COMMAND),
        "README.md must begin with the two commands: {head:?}"
    );
    let mut unmarked = Vec::new();
    for (index, (block, lang)) in fences().into_iter().enumerate() {
        // The README's first block: `cargo run -p local` runs in try-it; scripts/test.sh is
        // what runs this test.
        if index == 0 {
            continue;
        }
        if matches!(lang.as_str(), "sh" | "bash" | "shell") && block.name.is_empty() {
            unmarked.push(format!(
                "{}: {}",
                block.file,
                block.text.lines().next().unwrap_or("")
            ));
        }
    }
    assert!(
        unmarked.is_empty(),
        "shell blocks without a docs-test marker:\n{}",
        unmarked.join("\n")
    );
    let named: BTreeSet<String> = runnable().into_keys().collect();
    let known: BTreeSet<String> = SCENARIOS.iter().map(|s| (*s).to_owned()).collect();
    assert_eq!(
        named, known,
        "docs-test markers and the scenarios here differ"
    );
}

// ---- Running blocks ------------------------------------------------------------------

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A folder with the `cargo` and `websocat` stand-ins.
fn shims() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("docs-test-shims-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let websocat = dir.join("websocat");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/binary/websocat"),
        &websocat,
    )
    .unwrap();
    let cargo = dir.join("cargo");
    let real_cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    std::fs::write(
        &cargo,
        format!(
            "#!/usr/bin/env bash\n\
             # `cargo run -p local [--] ARGS`: the binary under test; anything else: cargo.\n\
             if [[ \"${{1:-}} ${{2:-}} ${{3:-}}\" == \"run -p local\" ]]; then\n\
             \x20   shift 3; [[ \"${{1:-}}\" == \"--\" ]] && shift\n\
             \x20   exec \"{}\" \"$@\"\n\
             fi\n\
             exec \"{real_cargo}\" \"$@\"\n",
            env!("CARGO_BIN_EXE_local")
        ),
    )
    .unwrap();
    for file in [&websocat, &cargo] {
        let status = Command::new("chmod").arg("+x").arg(file).status().unwrap();
        assert!(status.success());
    }
    dir
}

/// `bash -c text` with the stand-ins first on PATH, in the repository, its own process
/// group (so that stopping it stops what it started), and `env`.
fn bash(text: &str, env: &[(&str, String)]) -> Command {
    let path = format!(
        "{}:{}",
        shims().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut command = Command::new("bash");
    command
        .args(["-c", text])
        .current_dir(REPO)
        .env("PATH", path)
        .env("RUST_LOG", "info")
        .env_remove("DYNAMODB_ENDPOINT")
        .env_remove("AUTH_MODE")
        .env("WEBSOCAT_LINGER", "1");
    for (name, value) in env {
        command.env(name, value);
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        command.process_group(0);
    }
    command
}

/// Lines a child prints, read on a thread.
fn lines_of(stream: impl std::io::Read + Send + 'static) -> Receiver<String> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// A server block running (the local stack, maybe DynamoDB Local): stopped on drop.
struct Server {
    child: Child,
    output: Receiver<String>,
    port: u16,
    /// The backend API's (3002 in the docs).
    backend_port: u16,
    /// What it printed up to its banner's last line.
    banner: String,
    /// Its stderr, read all along (a full pipe would stall it); shown if it never starts.
    errors: Receiver<String>,
}

impl Server {
    /// Runs `text` with 3001 as a free port (and `PORT` set to it), until its banner's
    /// `try:` line.
    fn start(text: &str, env: &[(&str, String)]) -> Self {
        let port = free_port();
        // The other listeners' ports too: their defaults (PORT + 1, + 2, + 3) may be in
        // use by another test, and the stack then fails to start.
        let backend_port = free_port();
        let text = text.replace("127.0.0.1:3001", &format!("127.0.0.1:{port}"));
        let mut env = env.to_vec();
        env.push(("PORT", port.to_string()));
        env.push(("BACKEND_API_PORT", backend_port.to_string()));
        env.push(("GAMELIFT_SDK_PORT", free_port().to_string()));
        env.push(("GAMELIFT_SDK_TLS_PORT", free_port().to_string()));
        let mut child = bash(&text, &env)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let output = lines_of(child.stdout.take().unwrap());
        let errors = lines_of(child.stderr.take().unwrap());
        let mut server = Self {
            child,
            output,
            port,
            backend_port,
            banner: String::new(),
            errors,
        };
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            let Ok(line) = server.output.recv_timeout(left) else {
                let status = server.child.try_wait().ok().flatten();
                let stderr: Vec<String> = server.errors.try_iter().collect();
                panic!(
                    "the server block never printed its banner:\n{text}\n{}\nexit: {status:?}\nstderr:\n{}",
                    server.banner,
                    stderr.join("\n")
                );
            };
            server.banner.push_str(&line);
            server.banner.push('\n');
            if line.starts_with("try:") {
                return server;
            }
        }
    }

    /// The docs' URLs with this server's ports.
    fn localize(&self, text: &str) -> String {
        text.replace("127.0.0.1:3001", &format!("127.0.0.1:{}", self.port))
            .replace(
                "127.0.0.1:3002",
                &format!("127.0.0.1:{}", self.backend_port),
            )
    }

    fn url(&self) -> String {
        format!("ws://127.0.0.1:{}/Development", self.port)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // The whole process group: the stack, and DynamoDB Local if the block started it.
        let group = format!("-{}", self.child.id());
        let _ = Command::new("kill").args(["-TERM", "--", &group]).status();
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while std::time::Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
        let _ = self.child.wait();
    }
}

/// A client command (websocat) running: frames in on stdin, frames out on stdout.
struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    frames: Receiver<String>,
    command: String,
}

impl Client {
    fn start(command: &str, env: &[(&str, String)]) -> Self {
        let mut child = bash(command, env)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let frames = lines_of(child.stdout.take().unwrap());
        let _ = lines_of(child.stderr.take().unwrap());
        Self {
            child,
            stdin,
            frames,
            command: command.to_owned(),
        }
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    /// The next frame as JSON, within `timeout`.
    fn frame(&mut self, timeout: Duration) -> Value {
        match self.frames.recv_timeout(timeout) {
            Ok(line) => serde_json::from_str(&line).unwrap_or_else(|e| {
                panic!("{}: a frame that is not JSON ({e}): {line}", self.command)
            }),
            Err(_) => panic!("{}: no frame within {timeout:?}", self.command),
        }
    }

    /// The next frame whose `type` is `kind` (others are skipped), within `timeout`.
    fn frame_of(&mut self, kind: &str, timeout: Duration) -> Value {
        let deadline = std::time::Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            let frame = self.frame(left);
            if frame["type"] == kind {
                return frame;
            }
        }
    }

    /// Closes stdin and waits for the command to exit 0.
    fn finish(mut self) {
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        assert!(status.success(), "{} exited with {status}", self.command);
    }
}

const FRAME: Duration = Duration::from_secs(10);

/// `actual` has every field of `expected` with the same value, except that a string with
/// `…` in it stands for any string, one ending in `...` for any string with what comes
/// before, and any number for any number (times, ports, counts that vary).
fn matches(expected: &Value, actual: &Value) -> bool {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => e
            .iter()
            .all(|(key, value)| a.get(key).is_some_and(|v| matches(value, v))),
        (Value::Array(e), Value::Array(a)) => {
            e.len() == a.len() && e.iter().zip(a).all(|(e, a)| matches(e, a))
        }
        (Value::String(e), Value::String(a)) if e.contains('…') => !a.is_empty(),
        (Value::String(e), Value::String(a)) if e.ends_with("...") => {
            a.starts_with(e.trim_end_matches("..."))
        }
        (Value::Number(_), Value::Number(_)) => true,
        _ => expected == actual,
    }
}

/// Sends a session's `>` lines one at a time, checking the `<` frames after each.
fn replay_session(client: &mut Client, session: &str) {
    let mut lines = session.lines().peekable();
    while let Some(line) = lines.next() {
        let Some(sent) = line.strip_prefix("> ") else {
            continue;
        };
        client.send(sent);
        while let Some(reply) = lines.peek().and_then(|l| l.strip_prefix("< ")) {
            let expected: Value = serde_json::from_str(reply).unwrap();
            let actual = client.frame(FRAME);
            assert!(
                matches(&expected, &actual),
                "after {sent}\nthe README says {expected}\nthe stack sent  {actual}"
            );
            lines.next();
        }
    }
}

fn lines(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_owned)
        .collect()
}

/// Runs a block that sets a variable (`TOKEN=$(...)`, `SECRET=$(...)`) and prints it.
fn variable_from(text: &str, variable: &str, env: &[(&str, String)]) -> String {
    let output = bash(&format!("{text}\nprintf %s \"${variable}\""), env)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "the block setting {variable} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let value = String::from_utf8(output.stdout).unwrap();
    assert!(!value.is_empty(), "the block set no {variable}");
    value
}

// ---- README.md -------------------------------------------------------------------------

#[test]
fn readme_try_it_runs_as_its_session_says_in_header_mode() {
    let commands = lines(&block("try-it"));
    assert_eq!(commands.len(), 2, "{commands:?}");
    let server = Server::start(&commands[0], &[]);
    let mut client = Client::start(&server.localize(&commands[1]), &[]);
    replay_session(&mut client, &block("try-it-session"));
    client.finish();
}

#[test]
fn readme_backend_api_calls_reach_alice_as_their_comment_says() {
    let commands = lines(&block("try-it"));
    let server = Server::start(&commands[0], &[]);
    assert!(
        server.banner.contains(&format!(
            "backend API:     http://127.0.0.1:{}/v1/ (no auth)",
            server.backend_port
        )),
        "{}",
        server.banner
    );
    let mut alice = Client::start(&server.localize(&commands[1]), &[]);
    alice.send(r#"{"route":"resume"}"#);
    alice.frame_of("ack", FRAME);

    let text = server.localize(&block("backend-api-local"));
    let output = bash(&text, &[]).stdin(Stdio::null()).output().unwrap();
    assert!(output.status.success(), "{text}: {output:?}");
    // curl -s prints each body as it came: three JSON documents, one after the other.
    let bodies: Vec<Value> = serde_json::Deserializer::from_slice(&output.stdout)
        .into_iter::<Value>()
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("not JSON bodies ({e}): {output:?}"));
    assert_eq!(bodies.len(), 3, "{bodies:?}");
    assert!(
        matches(&json!({"messageId": "…", "queued": 1}), &bodies[0]),
        "{}",
        bodies[0]
    );
    assert!(
        matches(
            &json!({"playerId": "alice", "status": "online", "online": true}),
            &bodies[1]
        ),
        "{}",
        bodies[1]
    );
    assert!(
        matches(&json!({"connectionId": "…", "messageId": "…"}), &bodies[2]),
        "{}",
        bodies[2]
    );
    // What the comment says alice's socket gets, then the kick, then the close.
    let message = alice.frame_of("message", FRAME);
    assert!(
        matches(
            &json!({"type": "message", "from": "match-service", "backend": true,
                    "message": {"kind": "match_result", "won": true}}),
            &message
        ),
        "{message}"
    );
    let kicked = alice.frame_of("disconnected_by_server", FRAME);
    assert_eq!(kicked["reason"], "server restarting", "{kicked}");
    alice.finish();
}

#[test]
fn readme_tokens_minted_as_documented_connect_to_the_stack_in_jwt_mode() {
    let server = Server::start(&block("jwt-local"), &[]);
    assert!(server.url().starts_with("ws://"));
    let token = variable_from(&block("mint-token-local"), "TOKEN", &[]);
    for command in lines(&block("jwt-connect-local")) {
        let mut client = Client::start(&server.localize(&command), &[("TOKEN", token.clone())]);
        client.send(r#"{"route":"resume","requestId":"1"}"#);
        let ack = client.frame_of("ack", FRAME);
        assert_eq!(ack["playerId"], "alice", "{command}: {ack}");
        client.finish();
    }
}

#[test]
fn readme_invoke_prints_each_functions_response() {
    for command in lines(&block("invoke")) {
        let output = bash(&command, &[]).stdin(Stdio::null()).output().unwrap();
        assert!(output.status.success(), "{command}: {output:?}");
        let response: Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|e| panic!("{command} printed no JSON ({e}): {output:?}"));
        assert!(response.is_object(), "{command}: {response}");
    }
}

#[test]
fn readme_simulator_example_times_every_placement_out_after_5_s() {
    let server = Server::start(&block("sim-timeout"), &[]);
    let mut client = Client::start(
        &format!("websocat \"{}?playerId=alice\"", server.url()),
        &[],
    );
    client.send(r#"{"route":"resume"}"#);
    client.frame_of("ack", FRAME);
    client.send(r#"{"route":"sessionPlacementRequest","body":{}}"#);
    let ack = client.frame_of("ack", FRAME);
    assert_eq!(ack["status"], "PENDING", "{ack}");
    let placement = client.frame_of("placement", Duration::from_secs(15));
    assert_eq!(placement["status"], "TIMED_OUT", "{placement}");
    client.finish();
}

#[test]
fn readme_dynamodb_local_commands_run_the_stack_on_dynamodb_local() {
    // DynamoDB Local needs Java and the jar scripts/test.sh installs: run where it did.
    if super::dynamodb_endpoint().is_none() {
        return;
    }
    let dynamodb_port = free_port().to_string();
    let text = block("dynamodb-local").replace("8000", &dynamodb_port);
    let [start, run] = &lines(&text)[..] else {
        panic!("expected two commands: {text}");
    };
    // As a user would: the first command, in the background, until DynamoDB Local
    // answers; then the stack in the foreground of the same shell.
    let script = format!(
        "{start}\nfor i in $(seq 1 300); do (exec 3<>/dev/tcp/127.0.0.1/{dynamodb_port}) 2>/dev/null && break; sleep 0.1; done\n{run}"
    );
    let server = Server::start(&script, &[]);
    let storage = format!("storage:         DynamoDB at http://127.0.0.1:{dynamodb_port}");
    assert!(server.banner.contains(&storage), "{}", server.banner);
    let mut client = Client::start(
        &format!("websocat \"{}?playerId=alice\"", server.url()),
        &[],
    );
    client.send(r#"{"route":"resume"}"#);
    let ack = client.frame_of("ack", FRAME);
    assert_eq!(ack["playerId"], "alice", "{ack}");
    client.finish();
}

// ---- docs/deploy.md, section 8, against the local stack ------------------------------

#[test]
fn deploy_smoke_test_in_header_mode_runs_against_the_local_stack() {
    let server = Server::start("cargo run -p local", &[]);
    let env = [("URL", server.url())];
    for command in lines(&block("smoke-header")) {
        let mut client = Client::start(&command, &env);
        for frame in lines(&block("smoke-header-frames")) {
            client.send(&frame);
        }
        let resume = client.frame(FRAME);
        assert_eq!(
            (resume["type"].as_str(), resume["playerId"].as_str()),
            (Some("ack"), Some("alice")),
            "{resume}"
        );
        let heartbeat = client.frame(FRAME);
        assert!(heartbeat["serverTime"].is_number(), "{heartbeat}");
        let nope = client.frame(FRAME);
        assert_eq!(nope["code"], "unknown_route", "{nope}");
        client.finish();
    }

    let mut bob = Client::start(&lines(&block("smoke-bob"))[0], &env);
    bob.send(r#"{"route":"resume"}"#);
    bob.frame_of("ack", FRAME);
    let alice_command = &lines(&block("smoke-header"))[0];
    let mut alice = Client::start(alice_command, &env);
    alice.send(r#"{"route":"resume"}"#);
    alice.frame_of("ack", FRAME);
    let frames = lines(&block("smoke-alice-frames"));
    alice.send(&frames[0]);
    let subscribed = alice.frame_of("ack", FRAME);
    assert_eq!(subscribed["presence"]["bob"], "online", "{subscribed}");
    alice.send(&frames[1]);
    assert_eq!(alice.frame_of("ack", FRAME)["queued"], 1);
    let message = bob.frame_of("message", FRAME);
    assert_eq!(
        (message["from"].as_str(), &message["message"]),
        (Some("alice"), &serde_json::json!({"text": "hi"})),
        "{message}"
    );
    alice.send(&frames[2]);
    let placement = alice.frame_of("ack", FRAME);
    assert_eq!(placement["status"], "PENDING", "{placement}");
    let result = alice.frame_of("placement", Duration::from_secs(15));
    assert_eq!(result["status"], "FULFILLED", "{result}");
    alice.finish();
    bob.finish();
}

#[test]
fn deploy_smoke_test_in_jwt_mode_accepts_the_documented_secret_and_token() {
    let secret = variable_from(&block("hs256-secret"), "SECRET", &[]);
    assert!(
        secret.len() >= 32,
        "the documented secret is {} bytes",
        secret.len()
    );
    // The stack as the deploy command in section 8 configures it.
    let server = Server::start(
        "AUTH_MODE=jwt JWT_ISSUER=https://issuer.example.com/ JWT_AUDIENCE=my-game JWT_HS256_SECRET=\"$SECRET\" cargo run -p local",
        &[("SECRET", secret.clone())],
    );
    let token = variable_from(&block("mint-token"), "TOKEN", &[("SECRET", secret)]);
    let env = [("URL", server.url()), ("TOKEN", token)];
    for command in lines(&block("smoke-jwt")) {
        let mut client = Client::start(&command, &env);
        client.send(r#"{"route":"resume","requestId":"1"}"#);
        let ack = client.frame_of("ack", FRAME);
        assert_eq!(ack["playerId"], "alice", "{command}: {ack}");
        client.finish();
    }
}

#[test]
fn deploy_sh_refuses_samconfigs_placeholders_before_building() {
    let output = Command::new("bash")
        .args(["scripts/deploy.sh", "--no-guided"])
        .current_dir(REPO)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let errors = String::from_utf8_lossy(&output.stderr);
    assert!(
        errors.contains("still hold placeholders: GameSessionQueues=REPLACE-ME"),
        "{errors}"
    );
    assert!(
        !errors.contains("installing"),
        "it built or installed first: {errors}"
    );
}
