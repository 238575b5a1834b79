//! The load tool (`cargo run -p tools --bin loadgen`) against the local stack, started
//! in-process on a free port, at a tiny size: a run's figures come out whole, and its
//! preflight (one connection through the Rust client) ends a run with wrong credentials
//! before it opens any of its own connections.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Test support: a panic is the test failing, with its message.

mod common;

use std::process::{Command, Output, Stdio};

use local::{RunningStack, Settings};
use serde_json::Value;

const ISSUER: &str = "loadgen";
const AUDIENCE: &str = "loadgen";
const SECRET: &str = "loadgen-test-secret-of-at-least-32-bytes";

async fn local_stack(jwt: bool) -> RunningStack {
    let mut settings = Settings::default();
    if jwt {
        common::jwt(&mut settings, ISSUER, AUDIENCE, SECRET);
    }
    common::started(settings).await
}

async fn loadgen(url: &str, args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_loadgen"));
    command
        .args(["--url", url, "--quiet", "--duration-limit", "60"])
        .args(args)
        .env_remove("LOADGEN_JWT_HS256_SECRET")
        .stdin(Stdio::null());
    // The stack serves on this runtime: wait for the tool off it.
    tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap()
}

fn result_line(stdout: &str) -> Option<Value> {
    stdout
        .lines()
        .find_map(|l| l.strip_prefix("RESULT "))
        .map(|json| serde_json::from_str(json).unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn given_a_header_mode_stack_when_a_small_run_goes_then_the_preflight_passes_and_every_message_is_delivered()
 {
    let stack = local_stack(false).await;
    let output = loadgen(&stack.url(), &["-c", "4", "-m", "3", "-k", "1"]).await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let report = format!("{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(output.status.code(), Some(0), "{report}");
    assert!(
        stdout.contains("preflight: ")
            && stdout.contains("preflight connected and resumed through the Rust client"),
        "{report}"
    );
    let result = result_line(&stdout).expect("a RESULT line");
    assert_eq!(result["established"], 4, "{report}");
    assert_eq!(result["sent"], 12, "{report}");
    assert_eq!(result["expected"], 12, "{report}");
    assert_eq!(result["received"], 12, "{report}");
    assert_eq!(result["lost"], 0, "{report}");
    stack.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn given_a_jwt_stack_and_the_wrong_secret_when_loadgen_starts_then_the_preflight_ends_it_with_the_reason_before_any_connection()
 {
    let stack = local_stack(true).await;
    let wrong = [
        "--auth",
        "token",
        "--jwt-hs256-secret",
        "not-the-secret-of-this-stack-at-all",
    ];
    let output = loadgen(
        &stack.url(),
        &[&wrong[..], &["-c", "50", "-m", "1"]].concat(),
    )
    .await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("loadgen: preflight: the upgrade was refused with HTTP 40"),
        "{stderr}"
    );
    assert!(result_line(&stdout).is_none(), "no run: {stdout}");

    // Without the preflight, the run itself meets the refusals: every connect fails.
    let output = loadgen(
        &stack.url(),
        &[&wrong[..], &["-c", "3", "-m", "0", "--no-preflight"]].concat(),
    )
    .await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    let result = result_line(&stdout).expect("a RESULT line");
    assert_eq!(
        (result["established"].clone(), result["failed"].clone()),
        (0.into(), 3.into()),
        "{stdout}"
    );

    // The right secret: the preflight passes in JWT mode too.
    let right = ["--auth", "token", "--jwt-hs256-secret", SECRET];
    let output = loadgen(
        &stack.url(),
        &[&right[..], &["-c", "2", "-m", "0"]].concat(),
    )
    .await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("preflight connected"), "{stdout}");
    stack.shutdown().await;
}
