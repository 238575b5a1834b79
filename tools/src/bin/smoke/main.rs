//! The smoke test of a stack: runs the core journeys against its WebSocket URL with two
//! players, `a` and `b`, prints a pass/fail table and exits 1 if any check failed.
//! It is the step after `sam deploy` (docs/deploy.md), and the test suite runs it
//! against the local stack in both auth modes (tools/tests/smoke.rs).
//!
//! ```sh
//! # AuthMode=header: the players are <prefix>-a and <prefix>-b, new ids each run
//! cargo run -p tools --bin smoke -- --url wss://abc123.execute-api.eu-west-1.amazonaws.com/Development
//! # AuthMode=jwt: a command printing a token for the player id it is given as $1
//! # (the players are the tokens' `sub`s)
//! cargo run -p tools --bin smoke -- --url "$URL" --token-command 'python3 scripts/mint-hs256-token.py "$1"'
//! # or two tokens of two different players (SMOKE_TOKEN_A / SMOKE_TOKEN_B work too)
//! cargo run -p tools --bin smoke -- --url "$URL" --token-a "$TOKEN_A" --token-b "$TOKEN_B"
//! ```
//!
//! The checks: connect and resume; heartbeat; presence (b coming online is pushed to a,
//! who watches b); a message to a connected player; a message to a player who left,
//! delivered when they resume from the last message they handled; a placement and its
//! pushed result (cancelled after `--placement-wait` if nothing came, and the `CANCELLED`
//! result must then be pushed); takeover (a new socket of a stops a's client with
//! `session_replaced`; a second one replaces the first, which the server closes); bad
//! frames (each answered, the socket kept). The players are the Rust client
//! (clients/rust); the last two checks use raw sockets (journeys.rs says why). A
//! placement needs a GameLift queue the stack can reach: when the stack answers
//! `unavailable`, the check is skipped with that line (`--placement require` fails it
//! instead; `--placement skip` does not ask, since a placement starts a real game session
//! on your fleet). Only the `--url` given is contacted.

#![allow(clippy::expect_used)] // Starting the runtime: failing to is the end, with the message.

mod assumptions;
mod client;
mod journeys;
mod player;
mod report;

use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use clap::Parser;
use client::Credential;
use journeys::{PlacementMode, Plan};
use report::Report;

/// Smoke-tests a deployed stack (or the local one) through its WebSocket URL.
#[derive(Parser, Debug)]
#[command(name = "smoke")]
struct Args {
    /// The stack's WebSocket URL, the `WebSocketUrl` output (wss://…/<Stage>), or
    /// ws://127.0.0.1:3001/Development for the local stack.
    #[arg(long, env = "SMOKE_URL")]
    url: String,
    /// JWT mode: a shell command printing a token; run twice, with the player id to mint
    /// for as $1 (and SMOKE_PLAYER_ID): <prefix>-a, then <prefix>-b. The players are the
    /// tokens' `sub`s, which an identity provider may choose itself.
    #[arg(long, conflicts_with_all = ["token_a", "token_b"])]
    token_command: Option<String>,
    /// JWT mode: player a's token (its `sub` is the player id).
    #[arg(
        long,
        env = "SMOKE_TOKEN_A",
        hide_env_values = true,
        requires = "token_b"
    )]
    token_a: Option<String>,
    /// JWT mode: player b's token, another player than a.
    #[arg(
        long,
        env = "SMOKE_TOKEN_B",
        hide_env_values = true,
        requires = "token_a"
    )]
    token_b: Option<String>,
    /// Player ids are <prefix>-a and <prefix>-b (header mode and --token-command).
    /// Default: smoke-<unix seconds>-<random>, new each run.
    #[arg(long)]
    player_prefix: Option<String>,
    /// Whether to request a game placement.
    #[arg(long, value_enum, default_value_t = PlacementMode::Auto)]
    placement: PlacementMode,
    /// Seconds to wait for a placement's result before cancelling it.
    #[arg(long, default_value_t = 60)]
    placement_wait: u64,
    /// Seconds to wait for each answer or push.
    #[arg(long, default_value_t = 30)]
    timeout: u64,
    /// Instead of the journeys: check what the stack assumes of API Gateway where AWS
    /// documents nothing (GetConnection's lastActiveAt, the heartbeat integration's
    /// answers), with player a's socket and your AWS credentials for the @connections API
    /// (the SDK's default chain: AWS_PROFILE, SSO, environment); prints each CONFIRMED or
    /// CONTRADICTED, and what to set. Exits 3 unless every one is confirmed.
    #[arg(long)]
    check_assumptions: bool,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let plan = match plan(&args) {
        Ok(plan) => plan,
        Err(error) => {
            eprintln!("smoke: {error}");
            return ExitCode::from(2);
        }
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime starts");
    if args.check_assumptions {
        println!("assumptions of API Gateway, checked on {}", plan.url);
        println!("player: a = {}\n", plan.a.1);
        return if runtime.block_on(assumptions::check(&plan)) {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(3)
        };
    }
    println!("smoke test of {}", plan.url);
    println!("players: a = {}, b = {}\n", plan.a.1, plan.b.1);
    let passed = runtime.block_on(async {
        let mut report = Report::new(&tools::SMOKE_CHECKS);
        journeys::run(&plan, &mut report).await;
        report.finish()
    });
    if passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Checks the arguments and gathers the credentials; every problem is said plainly.
fn plan(args: &Args) -> Result<Plan, String> {
    let url = args.url.trim_end_matches('/').to_owned();
    let tls = if url.starts_with("wss://") {
        Some(tools::wss::tls_connector()?)
    } else if url.starts_with("ws://") {
        None
    } else {
        return Err(format!(
            "--url {url:?} is not a WebSocket URL: it starts with wss:// (deployed) or ws:// (local)"
        ));
    };
    if args.timeout == 0 || args.placement_wait == 0 {
        return Err("--timeout and --placement-wait are seconds, at least 1".to_owned());
    }
    let prefix = args.player_prefix.clone().unwrap_or_else(default_prefix);
    let ids = [format!("{prefix}-a"), format!("{prefix}-b")];
    for id in &ids {
        if !valid_player_id(id) {
            return Err(format!(
                "--player-prefix {prefix:?} makes the player id {id:?}, which is not 1-128 of A-Z a-z 0-9 . _ : @ -"
            ));
        }
    }
    let tokens = match (&args.token_command, &args.token_a, &args.token_b) {
        (Some(command), ..) => Some((
            (
                token_from(command, &ids[0])?,
                "the token command's token for a",
            ),
            (
                token_from(command, &ids[1])?,
                "the token command's token for b",
            ),
        )),
        (None, Some(a), Some(b)) => Some(((a.clone(), "--token-a"), (b.clone(), "--token-b"))),
        _ => None,
    };
    // With tokens, the players are their `sub`s (an identity provider decides them).
    let [a, b] = match tokens {
        Some(((a, a_what), (b, b_what))) => {
            let (a_id, b_id) = (subject(&a, a_what)?, subject(&b, b_what)?);
            if a_id == b_id {
                return Err(format!(
                    "{a_what} and {b_what} are both for player {a_id}: the checks need two players"
                ));
            }
            [(Credential::Token(a), a_id), (Credential::Token(b), b_id)]
        }
        None => ids.map(|id| (Credential::PlayerId(id.clone()), id)),
    };
    Ok(Plan {
        url,
        tls,
        timeout: Duration::from_secs(args.timeout),
        placement: args.placement,
        placement_wait: Duration::from_secs(args.placement_wait),
        a,
        b,
        nonce: prefix,
    })
}

fn default_prefix() -> String {
    let seconds = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let random: String = (0..4)
        .map(|_| fastrand::alphanumeric().to_ascii_lowercase())
        .collect();
    format!("smoke-{seconds}-{random}")
}

/// The player id rule of the protocol: 1-128 of `A-Z a-z 0-9 . _ : @ -`.
fn valid_player_id(id: &str) -> bool {
    (1..=128).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b':' | b'@' | b'-'))
}

/// Runs the token command for `player`: `sh -c COMMAND sh PLAYER`.
fn token_from(command: &str, player: &str) -> Result<String, String> {
    let output = Command::new("sh")
        .args(["-c", command, "sh", player])
        .env("SMOKE_PLAYER_ID", player)
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("--token-command could not be run with sh: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "--token-command failed for player {player} ({}); its errors are above",
            output.status
        ));
    }
    let token = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    if token.is_empty() || token.contains(char::is_whitespace) {
        return Err(format!(
            "--token-command printed {} for player {player}, not one token",
            if token.is_empty() {
                "nothing"
            } else {
                "more than one word"
            }
        ));
    }
    Ok(token)
}

/// The `sub` of a JWT, read without checking the signature (the stack does that): the
/// player id the resume ack must name.
fn subject(token: &str, flag: &str) -> Result<String, String> {
    let not_jwt = || format!("{flag} is not a JWT with a `sub` claim (header.claims.signature)");
    let claims = token.split('.').nth(1).ok_or_else(not_jwt)?;
    let claims = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(claims.trim_end_matches('='))
        .map_err(|_| not_jwt())?;
    let claims: serde_json::Value = serde_json::from_slice(&claims).map_err(|_| not_jwt())?;
    claims["sub"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(not_jwt)
}
