//! The published schema and what the server accepts agree (issue 24): frames made from
//! protocol/schema.json's `$defs.ClientFrame`, for every route, go over a real socket to
//! the local stack (its real handlers, and API Gateway's own integrations for `heartbeat`
//! and `ping`), and
//! - a frame the schema allows is never refused as malformed (`bad_request`,
//!   `unknown_route`); other refusals (`not_found`, `conflict`, `forbidden`, ...) are
//!   answers about the player's state, not the frame;
//! - a frame the schema refuses (a valid one with one thing broken) is never acked.
//!
//! Every reply is also checked against `$defs.ServerFrame` (the test client does that).
//! The frames are random from a seed, printed with any failure: rerun one with
//! `CLIENT_FRAMES_SEED=<seed> cargo test -p tests --test suites client_frames`.

mod generate;
mod mutate;

use std::time::Instant;

use rand::SeedableRng;
use rand::rngs::StdRng;
use serde_json::{Value, json};
use shared::frames::{MAX_FRAME_BYTES, MAX_WEBSOCKET_MESSAGE_BYTES};
use tests::schema::{client_frame, document};
use tests::stack::{Client, Received, TestStack, fragmented};
use tokio_tungstenite::tungstenite::Message;

use generate::Generator;

/// The seed when `CLIENT_FRAMES_SEED` is not set: fixed, so CI runs the same frames.
const DEFAULT_SEED: u64 = 24;
/// Frames per route, each way.
const PER_ROUTE: usize = 30;
/// The player every frame comes from.
const CALLER: &str = "frame-caller";

/// What the server answered one frame with: its `ack` or `error`, if any.
async fn answer(client: &mut Client, frame: &Value, n: usize) -> Option<Value> {
    let text = frame.to_string();
    if text.len() <= MAX_FRAME_BYTES {
        client.send_text(&text).await;
    } else {
        // Over API Gateway's 32 KB frame: a client sends it in several.
        for part in fragmented(&text) {
            client.send_message(Message::Frame(part)).await;
        }
    }
    // Frames are handled in order on a socket: the marker's ack comes after whatever
    // answered `frame` (a `ping`, or a `heartbeat` without `requestId`, gets nothing).
    let marker = format!("marker-{n}");
    client
        .send_json(json!({"route": "heartbeat", "requestId": marker}))
        .await;
    let mut answers = Vec::new();
    loop {
        let text = match client.receive(std::time::Duration::from_secs(10)).await {
            Received::Text(text) => text,
            other => panic!("waiting for the answer to {frame}, got {other:?}"),
        };
        let reply: Value = serde_json::from_str(&text).expect("a JSON frame");
        if reply["requestId"] == marker.as_str() {
            assert_eq!(reply["type"], "ack", "the marker heartbeat: {reply}");
            break;
        }
        // Pushes (placement results, party changes, ...) are not answers.
        if reply["type"] == "ack" || reply["type"] == "error" {
            answers.push(reply);
        }
    }
    assert!(
        answers.len() <= 1,
        "{frame} got several answers: {answers:?}"
    );
    answers.pop()
}

/// Whether API Gateway takes `frame` at all: a message over 128 KB closes the socket
/// (1009) before any route sees it, a size JSON Schema cannot state.
fn deliverable(frame: &Value) -> bool {
    frame.to_string().len() <= MAX_WEBSOCKET_MESSAGE_BYTES
}

/// Whether the server must answer `frame` when it takes it.
fn answered(frame: &Value) -> bool {
    match frame["route"].as_str() {
        Some("ping") => false,
        Some("heartbeat") => frame["requestId"].is_string(),
        _ => true,
    }
}

fn seed() -> u64 {
    std::env::var("CLIENT_FRAMES_SEED")
        .ok()
        .and_then(|seed| seed.trim().parse().ok())
        .unwrap_or(DEFAULT_SEED)
}

#[tokio::test]
async fn given_frames_made_from_the_schema_then_valid_ones_are_never_malformed_and_invalid_ones_never_acked()
 {
    let seed = seed();
    let rule_set = concat!(env!("CARGO_MANIFEST_DIR"), "/../local/rule-sets/duel.json");
    let stack = TestStack::start_with(|s| {
        // Refusals about how often are not what this is about.
        s.rate_limits.rate_limit_messages_per_minute = 0;
        s.rate_limits.rate_limit_recipients_per_minute = 0;
        s.rate_limits.rate_limit_placements_per_minute = 0;
        s.rate_limits.rate_limit_party_invites_per_minute = 0;
        s.rate_limits.rate_limit_friend_invites_per_minute = 0;
        s.rate_limits.rate_limit_activity_per_minute = 0;
        s.simulator.sim_server_startup_ms = 0;
        s.simulator.sim_placement_delay_ms = 50;
        // Matchmaking set up, so its routes read their bodies.
        s.matchmaking.matchmaking_rule_set = Some(rule_set.to_owned());
    })
    .await;
    let (mut client, _) = stack.online(CALLER).await;
    let schema = document();
    let validator = client_frame();
    let routes = schema["$defs"]["ClientFrame"]["oneOf"]
        .as_array()
        .expect("ClientFrame is a oneOf");
    let started = Instant::now();
    let mut n = 0;
    for (index, branch) in routes.iter().enumerate() {
        let route = branch["properties"]["route"]["const"]
            .as_str()
            .expect("a route");
        let mut generator = Generator::new(&schema, StdRng::seed_from_u64(seed + index as u64));
        let context = |frame: &Value, reply: &Option<Value>| {
            format!("seed {seed}, route {route}: {frame} → {reply:?}")
        };
        // Valid frames: never refused as malformed.
        let mut valid = Vec::new();
        while valid.len() < PER_ROUTE {
            let frame = generator.value(branch, 0);
            if !deliverable(&frame) {
                continue;
            }
            assert!(
                validator.is_valid(&frame),
                "seed {seed}: the generator made a frame the schema refuses: {frame}"
            );
            n += 1;
            let reply = answer(&mut client, &frame, n).await;
            if let Some(code) = reply.as_ref().and_then(|r| r["code"].as_str()) {
                assert!(
                    !matches!(code, "bad_request" | "unknown_route"),
                    "a frame the schema allows was refused as malformed: {}",
                    context(&frame, &reply)
                );
            }
            assert_eq!(
                reply.is_some(),
                answered(&frame),
                "{}",
                context(&frame, &reply)
            );
            valid.push(frame);
        }
        // Invalid frames: a valid one with one thing broken, kept when the schema
        // refuses it. Never acked: answered with an error (a `ping` is never answered,
        // but a frame that breaks the schema is no `ping`).
        let mut invalid = 0;
        for tries in 0.. {
            if invalid == PER_ROUTE {
                break;
            }
            assert!(
                tries < 100 * PER_ROUTE,
                "seed {seed}: too few mutants of {route}"
            );
            let base = &valid[tries % valid.len()];
            let mutant = mutate::mutate(base, &mut generator.rng);
            if validator.is_valid(&mutant) || !deliverable(&mutant) {
                continue;
            }
            invalid += 1;
            n += 1;
            let reply = answer(&mut client, &mutant, n).await;
            assert_eq!(
                reply.as_ref().map(|r| r["type"].clone()),
                Some(json!("error")),
                "a frame the schema refuses was not refused: {}",
                context(&mutant, &reply)
            );
        }
    }
    eprintln!(
        "client_frames: seed {seed}, {n} frames ({PER_ROUTE} valid and {PER_ROUTE} invalid for each of {} routes) in {:?}",
        routes.len(),
        started.elapsed()
    );
    stack.shutdown().await;
}
