//! The `local` binary as a developer runs it (`cargo run -p local`): it prints where it
//! listens, serves, and on Ctrl-C (SIGINT) closes every socket with 1001 and exits 0.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

use futures_util::StreamExt;
use tokio_tungstenite::tungstenite::Message;

/// Starts the binary on a free port; returns it and the WebSocket URL it printed.
fn start_local() -> (
    std::process::Child,
    String,
    BufReader<std::process::ChildStdout>,
) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_local"))
        .args(["--port", "0"])
        // Its own settings only, whatever the developer's shell exports.
        .env_remove("DYNAMODB_ENDPOINT")
        .env("RUST_LOG", "warn")
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
    let mut line = String::new();
    loop {
        line.clear();
        match stdout.read_line(&mut line) {
            Ok(0) | Err(_) => {
                // Reap it before failing: no zombie left behind by a failed test.
                let _ = child.kill();
                let status = child.wait();
                panic!("the binary exited before printing its URL: {status:?}");
            }
            Ok(_) => {}
        }
        if let Some(url) = line.strip_prefix("WebSocket API:") {
            return (child, url.trim().to_owned(), stdout);
        }
    }
}

#[tokio::test]
async fn given_a_running_stack_with_a_client_when_it_gets_sigint_then_the_socket_closes_1001_and_it_exits_0()
 {
    let (mut child, url, mut stdout) = start_local();
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
