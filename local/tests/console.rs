//! The console in a real browser: a stack with a short reconnect grace, alice and bob
//! connected over WebSockets, alice placed in a game, dave and erin matched by
//! FlexMatch, friends, an invitation, a block and an activity among them; then
//! `tests/console/browser.js`
//! drives headless Chromium (playwright-core) over the page at 1280×800 and 390 px wide
//! and checks what it shows, and that the browser logged no error. Screenshots go to
//! the test's temporary directory (printed).
//!
//! Needs CHROMIUM_PATH and BROWSER_NODE_PATH (scripts/test.sh exports them); without
//! them the test says so and passes, except under CI (`CI` set), where it fails.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Test support: a panic is the test failing, with its message.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

#[path = "console/api.rs"]
mod api;
#[path = "console/friends.rs"]
mod friends;

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn send(ws: &mut Socket, frame: Value) {
    ws.send(Message::Text(frame.to_string().into()))
        .await
        .unwrap();
}

/// The next text frame that satisfies `wanted` (others are skipped), within 10 s.
async fn next_where(ws: &mut Socket, wanted: impl Fn(&Value) -> bool) -> Value {
    tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            match ws.next().await {
                Some(Ok(Message::Text(text))) => {
                    let frame: Value = serde_json::from_str(text.as_str()).unwrap();
                    if wanted(&frame) {
                        return frame;
                    }
                }
                Some(Ok(_)) => {}
                other => panic!("the socket ended: {other:?}"),
            }
        }
    })
    .await
    .expect("the frame came within 10 s")
}

async fn player(url: &str, id: &str) -> Socket {
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("{url}?playerId={id}"))
        .await
        .unwrap();
    send(&mut ws, json!({"route": "resume", "requestId": "r"})).await;
    next_where(&mut ws, |f| f["type"] == "ack" && f["route"] == "resume").await;
    ws
}

/// Sends `route` with `body`; its ack, which it must be (pushes meanwhile are skipped).
async fn ok(ws: &mut Socket, route: &str, body: Value) -> Value {
    send(
        ws,
        json!({"route": route, "requestId": route, "body": body}),
    )
    .await;
    let reply = next_where(ws, |f| f["requestId"] == route).await;
    assert_eq!(reply["type"], "ack", "{route}: {reply}");
    reply
}

/// Reads a socket until it ends, so the server's writes never wait on it.
fn drain(mut ws: Socket) -> tokio::task::JoinHandle<Vec<Value>> {
    tokio::spawn(async move {
        let mut frames = Vec::new();
        while let Some(Ok(message)) = ws.next().await {
            if let Message::Text(text) = message
                && let Ok(frame) = serde_json::from_str(text.as_str())
            {
                frames.push(frame);
            }
        }
        frames
    })
}

fn browser_tools() -> Option<(String, String)> {
    match (
        std::env::var("CHROMIUM_PATH"),
        std::env::var("BROWSER_NODE_PATH"),
    ) {
        (Ok(chromium), Ok(modules)) => Some((chromium, modules)),
        _ if std::env::var_os("CI").is_some() => {
            panic!("CHROMIUM_PATH and BROWSER_NODE_PATH must be set under CI (scripts/test.sh)")
        }
        _ => None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn given_two_players_and_a_game_the_console_shows_them_live_and_a_drop_goes_through_grace_to_offline()
 {
    let Some((chromium, modules)) = browser_tools() else {
        eprintln!(
            "skipped: CHROMIUM_PATH and BROWSER_NODE_PATH are not set (scripts/test.sh sets them)"
        );
        return;
    };
    // Given a stack whose grace period is short and whose sweeper runs every second
    let mut settings = local::Settings::default();
    settings.gateway.port = 0;
    settings.presence.reconnect_grace_seconds = 4;
    settings.presence.sweep_interval_seconds = 1;
    // The metrics card checks per-route requests and the sweeper's counts: detail series.
    settings.detailed_metrics = true;
    settings.simulator.sim_server_startup_ms = 0;
    settings.simulator.sim_placement_delay_ms = 200;
    let rule_set = concat!(env!("CARGO_MANIFEST_DIR"), "/rule-sets/duel.json");
    settings.matchmaking.matchmaking_rule_set = Some(rule_set.to_owned());
    let stack = local::start(settings).await.unwrap();
    let url = stack.url();

    // And dave and erin matched by FlexMatch into a 1v1 game
    let mut dave = player(&url, "dave").await;
    let mut erin = player(&url, "erin").await;
    for ws in [&mut dave, &mut erin] {
        let body = json!({"latencies": {"us-east-1": 40}});
        send(ws, json!({"route": "startMatchmaking", "body": body})).await;
    }
    for ws in [&mut dave, &mut erin] {
        let done = next_where(ws, |f| {
            f["type"] == "matchmaking" && f["status"] == "COMPLETED"
        });
        done.await;
    }

    // And alice and bob connected, alice placed in a game
    let mut alice = player(&url, "alice").await;
    let mut bob = player(&url, "bob").await;
    send(
        &mut alice,
        json!({"route": "sessionPlacementRequest", "body": {"latencies": {"us-east-1": 40}}}),
    )
    .await;
    let placed = next_where(&mut alice, |f| f["type"] == "placement").await;
    assert_eq!(placed["status"], "FULFILLED", "{placed}");

    // And relations for the Friends section: alice and bob friends, alice's activity
    // set, dave inviting alice, bob blocking erin
    ok(&mut alice, "addFriend", json!({"playerId": "bob"})).await;
    ok(&mut bob, "addFriend", json!({"playerId": "alice"})).await;
    ok(&mut alice, "setActivity", json!({"activity": "in a game"})).await;
    ok(&mut dave, "addFriend", json!({"playerId": "alice"})).await;
    ok(&mut bob, "blockPlayer", json!({"playerId": "erin"})).await;
    let (_dave, _erin) = (drain(dave), drain(erin));
    let alice = drain(alice);
    let bob = drain(bob);

    // When the console is driven in Chromium
    let shots = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("console");
    std::fs::create_dir_all(&shots).unwrap();
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/console/browser.js");
    let run = tokio::process::Command::new("node")
        .arg(&script)
        .arg(stack.console_url())
        .arg(&shots)
        .env("CHROMIUM_PATH", chromium)
        .env("BROWSER_NODE_PATH", modules)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(Duration::from_secs(180), run)
        .await
        .expect("the browser script finished within 3 minutes")
        .expect("node runs");
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    println!("{printed}\nscreenshots in {}", shots.display());

    // Then every check in the page passed
    assert!(output.status.success(), "{printed}");
    for shot in [
        "console-desktop.png",
        "console-grace.png",
        "console-phone.png",
        "console-metrics.png",
    ] {
        assert!(shots.join(shot).is_file(), "{shot} was not saved");
    }
    // And what the page did reached the players: bob got carol's message before the
    // drop (through the same inbox as every push)
    let bob_frames = bob.await.unwrap();
    assert!(
        bob_frames
            .iter()
            .any(|f| f["type"] == "message" && f["from"] == "carol"),
        "{bob_frames:?}"
    );
    stack.shutdown().await;
    alice.await.unwrap();
}
