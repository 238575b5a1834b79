//! The `local` binary as a developer runs it (`cargo run -p local`): it prints where it
//! listens, serves, and on Ctrl-C (SIGINT) closes every socket with 1001 and exits 0.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Test support: a panic is the test failing, with its message.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

use futures_util::StreamExt;
use tokio_tungstenite::tungstenite::Message;

#[path = "binary/docs.rs"]
mod docs;
#[path = "binary/invoke.rs"]
mod invoke;
#[path = "binary/refusals.rs"]
mod refusals;
#[path = "binary/store_down.rs"]
mod store_down;

/// A started binary: the process, its stdout (read up to the banner's last line), the
/// WebSocket URL and everything it printed until then.
struct Started {
    child: std::process::Child,
    stdout: BufReader<std::process::ChildStdout>,
    url: String,
    printed: String,
}

/// Starts the binary on a free port with `RUST_LOG=log`; returns once it has printed its
/// banner (up to the `try:` line).
fn start_local(log: &str) -> Started {
    start_local_with(log, &[])
}

/// As [`start_local`], with more environment variables.
fn start_local_with(log: &str, env: &[(&str, &str)]) -> Started {
    let mut command = Command::new(env!("CARGO_BIN_EXE_local"));
    command
        .args(["--port", "0"])
        // Its own settings only, whatever the developer's shell exports.
        .env_remove("DYNAMODB_ENDPOINT")
        .env_remove("AUTH_MODE")
        .env("RUST_LOG", log);
    for (name, value) in env {
        command.env(name, value);
    }
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the local binary starts");
    let Some(stdout) = child.stdout.take() else {
        let _ = child.kill();
        let _ = child.wait();
        panic!("no stdout to read");
    };
    let mut stdout = BufReader::new(stdout);
    let mut printed = String::new();
    let mut url = None;
    loop {
        let mut line = String::new();
        match stdout.read_line(&mut line) {
            Ok(0) | Err(_) => {
                // Reap it before failing: no zombie left behind by a failed test.
                let _ = child.kill();
                let status = child.wait();
                panic!("the binary exited before printing its banner: {status:?}\n{printed}");
            }
            Ok(_) => {}
        }
        printed.push_str(&line);
        if let Some(rest) = line.strip_prefix("WebSocket API:") {
            url = Some(rest.trim().to_owned());
        }
        if line.starts_with("try:") {
            let url = url.expect("the banner names the WebSocket URL before `try:`");
            return Started {
                child,
                stdout,
                url,
                printed,
            };
        }
    }
}

/// Stops a started binary (SIGINT), reads the rest of its output (so that it never
/// blocks on a full pipe), waits for it, and returns what it printed after its banner.
fn stop(mut started: Started) -> String {
    let _ = Command::new("kill")
        .args(["-INT", &started.child.id().to_string()])
        .status();
    let mut rest = String::new();
    let _ = std::io::Read::read_to_string(&mut started.stdout, &mut rest);
    let _ = started.child.wait();
    rest
}

/// `$DYNAMODB_ENDPOINT`, which `scripts/test.sh` sets to the DynamoDB Local it started;
/// `None` (said on stderr) where it is not set: the test is skipped.
fn dynamodb_endpoint() -> Option<String> {
    let endpoint = std::env::var("DYNAMODB_ENDPOINT")
        .ok()
        .filter(|e| !e.trim().is_empty());
    if endpoint.is_none() {
        eprintln!("skipped: DYNAMODB_ENDPOINT is not set (run scripts/test.sh)");
    }
    endpoint
}

#[tokio::test]
async fn given_a_running_stack_with_a_client_when_it_gets_sigint_then_the_socket_closes_1001_and_it_exits_0()
 {
    let Started {
        mut child,
        mut stdout,
        url,
        ..
    } = start_local("warn");
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("{url}?playerId=alice"))
        .await
        .expect("a client connects");

    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());

    let close = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            match ws.next().await {
                Some(Ok(Message::Close(frame))) => return frame.map(|f| u16::from(f.code)),
                Some(Ok(_)) => continue,
                other => panic!("expected a close frame, got {other:?}"),
            }
        }
    })
    .await
    .expect("the socket is closed within 10 s");
    assert_eq!(close, Some(1001));

    let exit = tokio::task::spawn_blocking(move || child.wait())
        .await
        .unwrap()
        .expect("waiting for the binary");
    assert!(exit.success(), "exit status {exit}");
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut rest).unwrap();
    assert!(rest.contains("shutting down"), "{rest}");
}

#[test]
fn given_help_then_every_knob_is_listed_and_it_exits_0() {
    let output = Command::new(env!("CARGO_BIN_EXE_local"))
        .arg("--help")
        .env_remove("HEARTBEAT_TIMEOUT_SECONDS")
        .output()
        .expect("the local binary runs");
    assert!(output.status.success());
    let help = String::from_utf8_lossy(&output.stdout);
    for knob in [
        "--port",
        "--dynamodb-endpoint",
        "--sim-fleet-servers",
        "RUST_LOG",
        "[env: HEARTBEAT_TIMEOUT_SECONDS=]",
        "[default: 90]",
        "Possible values:",
        "- header: ",
    ] {
        assert!(help.contains(knob), "{knob} missing from --help");
    }
}

#[test]
fn given_invalid_settings_then_every_problem_is_listed_by_the_name_given_and_it_exits_1() {
    let output = Command::new(env!("CARGO_BIN_EXE_local"))
        .args([
            "--port",
            "0",
            "--stream-shards",
            "0",
            "--presence-shards",
            "zero",
        ])
        .env("SIM_QUEUE_TIMEOUT_SECONDS", "0")
        .env("HEARTBEAT_TIMEOUT_SECONDS", "soon")
        .env("STAGE", "dev/x")
        .env_remove("DYNAMODB_ENDPOINT")
        .output()
        .expect("the local binary runs");
    assert_eq!(output.status.code(), Some(1));
    let errors = String::from_utf8_lossy(&output.stderr);
    for problem in [
        "local stack: invalid settings (see --help):",
        "  - HEARTBEAT_TIMEOUT_SECONDS=\"soon\" is not a whole number of seconds from 1 to 7200",
        "  - --presence-shards=\"zero\" is not a whole number from 1 to 64",
        "  - --stream-shards=\"0\" is not a whole number from 1 to 64",
        "  - SIM_QUEUE_TIMEOUT_SECONDS=\"0\" is not a whole number of seconds from 1 to 43200",
        "  - STAGE=\"dev/x\" is not 1-128 characters of A-Z a-z 0-9 _ -",
    ] {
        assert!(errors.contains(problem), "{problem} missing from: {errors}");
    }
    assert_eq!(errors.lines().count(), 6, "{errors}");
    assert!(output.stdout.is_empty(), "nothing started");
}

#[test]
fn given_a_started_stack_then_a_short_banner_without_escape_codes_and_the_settings_only_at_debug() {
    let started = start_local("info");
    let banner = started.printed.clone();
    stop(started);
    let port = banner
        .split("ws://127.0.0.1:")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .expect("the banner names the WebSocket URL");
    for line in [
        format!("WebSocket API:   ws://127.0.0.1:{port}/Development\n"),
        format!(
            "@connections:    http://127.0.0.1:{port}/Development/@connections/{{connectionId}}\n"
        ),
        "backend API:     http://127.0.0.1:".to_owned(),
        "stage:           Development\n".to_owned(),
        "auth:            header: players name themselves".to_owned(),
        "storage:         in memory\n".to_owned(),
        "GameLift sim:    2 servers".to_owned(),
    ] {
        assert!(banner.contains(&line), "{line:?} missing from:\n{banner}");
    }
    assert!(
        !banner.contains('\u{1b}'),
        "escape codes in a pipe:\n{banner}"
    );
    assert!(!banner.contains("setting "), "settings at info:\n{banner}");
    assert!(banner.lines().count() <= 10, "not short:\n{banner}");

    let started = start_local("debug");
    let debug = started.printed.clone();
    stop(started);
    for line in [
        "setting HEARTBEAT_TIMEOUT_SECONDS=90 (default)",
        "setting PORT=0 (--port)",
        "setting SIM_FLEET_SERVERS=2 (default)",
    ] {
        assert!(debug.contains(line), "{line:?} missing at debug:\n{debug}");
    }
    assert!(
        !debug.contains('\u{1b}'),
        "escape codes in a pipe:\n{debug}"
    );
}
