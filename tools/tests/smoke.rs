//! The smoke tool (`cargo run -p tools --bin smoke`) against the local stack, started
//! in-process on a free port, in header and JWT mode: the commands docs/deploy.md gives
//! for after `sam deploy` run here as written, so neither the tool nor the docs can rot.
//!
//! docs/deploy.md marks those blocks `<!-- docs-test: skip (tools/tests/smoke.rs ...) -->`
//! (local/tests/binary/docs.rs, which runs the others, has no smoke binary); this file
//! runs them under `bash` with `cargo run -p tools --bin smoke --` standing for the
//! binary under test.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Test support: a panic is the test failing, with its message.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use local::{RunningStack, Settings};
use tools::SMOKE_CHECKS as CHECKS;

const REPO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
/// What docs/deploy.md's JWT example configures: the stack's issuer, audience, secret.
const ISSUER: &str = "https://issuer.example.com/";
const AUDIENCE: &str = "my-game";
const SECRET: &str = "smoke-test-secret-of-at-least-32-bytes";

async fn local_stack(jwt: bool) -> RunningStack {
    local_stack_with(jwt, |_| {}).await
}

async fn local_stack_with(jwt: bool, adjust: impl FnOnce(&mut Settings)) -> RunningStack {
    let mut settings = Settings::default();
    adjust(&mut settings);
    if jwt {
        common::jwt(&mut settings, ISSUER, AUDIENCE, SECRET);
    }
    common::started(settings).await
}

/// The shell blocks of docs/deploy.md that this file runs, in order.
fn documented_commands() -> Vec<String> {
    let text = std::fs::read_to_string(Path::new(REPO).join("docs/deploy.md")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut blocks = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if line
            .trim()
            .starts_with("<!-- docs-test: skip (tools/tests/smoke.rs")
        {
            let body: Vec<&str> = lines[i + 1..]
                .iter()
                .skip_while(|l| l.trim().is_empty())
                .skip(1) // the opening fence
                .take_while(|l| !l.trim_start().starts_with("```"))
                .copied()
                .collect();
            blocks.push(body.join("\n"));
        }
    }
    blocks
}

/// A folder with `cargo`: `cargo run -p tools --bin smoke -- ARGS` runs the binary under
/// test; anything else fails (the blocks run nothing else through cargo).
fn cargo_shim() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("smoke-test-shim-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cargo = dir.join("cargo");
    std::fs::write(
        &cargo,
        format!(
            "#!/usr/bin/env bash\n\
             if [[ \"$1 $2 $3 $4 $5 $6\" == \"run -p tools --bin smoke --\" ]]; then\n\
             \x20   shift 6; exec \"{}\" \"$@\"\n\
             fi\n\
             echo \"cargo shim: not the smoke command: $*\" >&2; exit 97\n",
            env!("CARGO_BIN_EXE_smoke")
        ),
    )
    .unwrap();
    let status = Command::new("chmod")
        .arg("+x")
        .arg(&cargo)
        .status()
        .unwrap();
    assert!(status.success());
    dir
}

/// Runs a documented block under bash, in the repository, with `URL` (and `SECRET`) set.
async fn run_block(block: &str, url: &str) -> Output {
    let path = format!(
        "{}:{}",
        cargo_shim().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut command = Command::new("bash");
    command
        .args(["-euo", "pipefail", "-c", block])
        .current_dir(REPO)
        .env("PATH", path)
        .env("URL", url)
        .env("SECRET", SECRET)
        .env_remove("SMOKE_TOKEN_A")
        .env_remove("SMOKE_TOKEN_B")
        .stdin(Stdio::null());
    // The stack serves on this runtime: wait for the tool off it.
    tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap()
}

/// Runs the binary under test with `args`.
async fn run_smoke(args: Vec<String>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_smoke"));
    command
        .args(args)
        .env_remove("SMOKE_URL")
        .env_remove("SMOKE_TOKEN_A")
        .env_remove("SMOKE_TOKEN_B")
        .stdin(Stdio::null());
    tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap()
}

/// The table's rows: (result, check).
fn rows(stdout: &str) -> Vec<(String, String)> {
    stdout
        .lines()
        .filter_map(|line| {
            let (result, rest) = line.split_once(' ')?;
            let check = CHECKS.iter().find(|c| rest.trim_start().starts_with(**c))?;
            matches!(result, "PASS" | "FAIL" | "SKIP")
                .then(|| (result.to_owned(), (*check).to_owned()))
        })
        .collect()
}

/// What a run printed: its stdout, and stdout and stderr together for a failure's message.
fn printed(output: &Output) -> (String, String) {
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let report = format!("{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    (stdout, report)
}

fn assert_every_check_passed(output: &Output, what: &str) {
    let (stdout, report) = printed(output);
    let report = format!("{what}:\n{report}");
    assert!(output.status.success(), "{report}");
    let expected: Vec<(String, String)> = CHECKS
        .iter()
        .map(|c| ("PASS".to_owned(), (*c).to_owned()))
        .collect();
    assert_eq!(rows(&stdout), expected, "{report}");
    assert!(stdout.contains("result: every check passed"), "{report}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn given_a_header_mode_stack_when_the_documented_smoke_command_runs_then_every_check_passes()
{
    let stack = local_stack(false).await;
    let blocks = documented_commands();
    let header = blocks
        .iter()
        .find(|b| !b.contains("--token") && !b.contains("--check-assumptions"))
        .expect("docs/deploy.md has the header-mode smoke command");
    let output = run_block(header, &stack.url()).await;
    assert_every_check_passed(&output, header);
    stack.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn given_a_jwt_stack_when_the_documented_token_command_smoke_runs_then_every_check_passes() {
    let stack = local_stack(true).await;
    let blocks = documented_commands();
    let jwt = blocks
        .iter()
        .find(|b| b.contains("--token-command"))
        .expect("docs/deploy.md has the JWT smoke command");
    assert!(
        jwt.contains(&format!("ISS={ISSUER}")) && jwt.contains(&format!("AUD={AUDIENCE}")),
        "the documented command mints for another issuer or audience than the stack here:\n{jwt}"
    );
    let output = run_block(jwt, &stack.url()).await;
    assert_every_check_passed(&output, jwt);
    stack.shutdown().await;
}

/// Two tokens minted beforehand, as a CI secret would hold them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn given_a_jwt_stack_and_two_pre_minted_tokens_when_smoke_runs_then_every_check_passes() {
    let stack = local_stack(true).await;
    let mint = |player: &str| {
        let output = Command::new("python3")
            .arg(Path::new(REPO).join("scripts/mint-hs256-token.py"))
            .arg(player)
            .env("SECRET", SECRET)
            .env("ISS", ISSUER)
            .env("AUD", AUDIENCE)
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        String::from_utf8(output.stdout).unwrap().trim().to_owned()
    };
    let suffix = std::process::id();
    let (a, b) = (
        mint(&format!("ci-a-{suffix}")),
        mint(&format!("ci-b-{suffix}")),
    );
    let output = run_smoke(vec![
        "--url".into(),
        stack.url(),
        "--token-a".into(),
        a,
        "--token-b".into(),
        b,
    ])
    .await;
    assert_every_check_passed(&output, "--token-a/--token-b");
    stack.shutdown().await;
}

/// No server process to place a game on: the placement stays pending, so the tool
/// cancels it and needs the CANCELLED result pushed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn given_a_fleet_without_capacity_when_no_result_comes_in_time_then_the_cancelled_result_passes_the_placement_check()
 {
    let stack = local_stack_with(false, |s| s.simulator.sim_fleet_servers = 0).await;
    let output = run_smoke(vec![
        "--url".into(),
        stack.url(),
        "--placement".into(),
        "require".into(),
        "--placement-wait".into(),
        "1".into(),
    ])
    .await;
    assert_every_check_passed(&output, "no capacity");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("no result within 1s, so cancelled: CANCELLED pushed"),
        "{stdout}"
    );
    stack.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn given_a_jwt_stack_when_smoke_runs_without_tokens_then_connect_fails_with_the_reason_and_it_exits_1()
 {
    let stack = local_stack(true).await;
    let output = run_smoke(vec!["--url".into(), stack.url()]).await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    let rows = rows(&stdout);
    assert_eq!(rows.len(), CHECKS.len(), "a row for every check:\n{stdout}");
    assert!(rows.iter().all(|(result, _)| result == "FAIL"), "{stdout}");
    assert!(
        stdout.contains("HTTP 401: no credentials the stack accepts: a JWT stack (AuthMode=jwt) needs --token-command or --token-a/--token-b"),
        "{stdout}"
    );
    assert!(
        stdout.contains("not run: an earlier check failed"),
        "{stdout}"
    );
    assert!(stdout.contains("result: 8 of 8 checks FAILED"), "{stdout}");
    stack.shutdown().await;
}

#[tokio::test]
async fn given_bad_arguments_when_smoke_starts_then_it_says_what_is_wrong_and_exits_2() {
    for (args, expected) in [
        (
            vec!["--url", "https://example.com/Development"],
            "is not a WebSocket URL: it starts with wss:// (deployed) or ws:// (local)",
        ),
        (
            vec![
                "--url",
                "ws://127.0.0.1:1/Development",
                "--player-prefix",
                "bad prefix",
            ],
            "which is not 1-128 of A-Z a-z 0-9 . _ : @ -",
        ),
        (
            vec![
                "--url",
                "ws://127.0.0.1:1/Development",
                "--token-a",
                "x.e30.y",
                "--token-b",
                "x.e30.y",
            ],
            "--token-a is not a JWT with a `sub` claim",
        ),
        (
            vec![
                "--url",
                "ws://127.0.0.1:1/Development",
                "--token-command",
                "exit 3",
            ],
            "--token-command failed for player",
        ),
    ] {
        let output = run_smoke(args.iter().map(|a| (*a).to_owned()).collect()).await;
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        assert!(output.stdout.is_empty(), "{args:?}: nothing was run");
    }
}

/// `smoke --check-assumptions`'s verdict lines: (result, assumption id).
fn verdicts(stdout: &str) -> Vec<(String, String)> {
    stdout
        .lines()
        .filter_map(|line| {
            let (result, rest) = line.split_once(' ')?;
            let id = rest.trim_start().split(':').next()?;
            matches!(result, "CONFIRMED" | "CONTRADICTED" | "UNKNOWN")
                .then(|| (result.to_owned(), id.to_owned()))
        })
        .collect()
}

const ASSUMPTIONS: [&str; 6] = [
    "sent-frames-are-not-activity",
    "ping-is-activity",
    "heartbeat-acked",
    "heartbeat-silent",
    "replaced-socket-told",
    "closed-socket-gone",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn given_the_local_stack_when_the_documented_assumptions_check_runs_then_every_assumption_is_confirmed()
 {
    let stack = local_stack(false).await;
    let block = documented_commands()
        .into_iter()
        .find(|b| b.contains("--check-assumptions"))
        .expect("docs/deploy.md has the --check-assumptions command");
    let output = run_block(&block, &stack.url()).await;
    let (stdout, report) = printed(&output);
    assert!(output.status.success(), "{report}");
    let expected: Vec<(String, String)> = ASSUMPTIONS
        .iter()
        .map(|id| ("CONFIRMED".to_owned(), (*id).to_owned()))
        .collect();
    assert_eq!(verdicts(&stdout), expected, "{report}");
    assert!(
        stdout.contains("set: PRESENCE_LIVENESS=connection-activity is safe here"),
        "{report}"
    );
    stack.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn given_an_api_gateway_that_counts_its_own_frames_as_activity_when_checked_then_that_assumption_is_contradicted_and_heartbeat_mode_advised()
 {
    let stack = local_stack_with(true, |s| s.gateway.last_active_counts_sent_frames = true).await;
    let mint = Path::new(REPO).join("scripts/mint-hs256-token.py");
    let output = run_smoke(vec![
        "--url".into(),
        stack.url(),
        "--token-command".into(),
        format!(
            "SECRET={SECRET} ISS={ISSUER} AUD={AUDIENCE} {} \"$1\"",
            mint.display()
        ),
        "--check-assumptions".into(),
    ])
    .await;
    let (stdout, report) = printed(&output);
    assert_eq!(output.status.code(), Some(3), "{report}");
    let seen = verdicts(&stdout);
    assert_eq!(
        seen.first(),
        Some(&(
            "CONTRADICTED".to_owned(),
            "sent-frames-are-not-activity".to_owned()
        )),
        "{report}"
    );
    assert!(
        seen[1..].iter().all(|(result, _)| result == "CONFIRMED"),
        "{report}"
    );
    assert!(
        stdout.contains("set: keep PRESENCE_LIVENESS=heartbeat (the default)"),
        "{report}"
    );
    stack.shutdown().await;
}
