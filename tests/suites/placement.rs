//! GameLift placement end to end over real WebSockets (functions/on-placement-event/src/lib.rs):
//! `sessionPlacementRequest` → the GameLift simulator → its SNS event →
//! `on-placement-event` → the Messages table → its stream → `on-message-inserted` →
//! the `placement` frame pushed to the player (no polling); `cancelPlacement`,
//! `resume` and `rejoinSession` after a drop. In memory, and (with `DYNAMODB_ENDPOINT`
//! set) on DynamoDB Local.

use std::time::{Duration, Instant};

use local::Settings;
use serde_json::{Value, json};
use tests::stack::{Client, TestStack};

/// A fleet ready at once and a placement fulfilled 200 ms after it is asked for.
const PLACEMENT_DELAY_MS: u64 = 200;

fn fast_fleet(settings: &mut Settings) {
    settings.simulator.sim_server_startup_ms = 0;
    settings.simulator.sim_placement_delay_ms = PLACEMENT_DELAY_MS;
}

/// Connects `player` and sends `resume`; returns the client and the ack.
async fn online(stack: &TestStack, player: &str) -> (Client, Value) {
    let mut client = stack.connect(player).await;
    let ack = client.resume(None).await;
    assert_eq!(ack["type"], "ack", "{ack}");
    (client, ack)
}

/// Sends `sessionPlacementRequest` and returns the placement id of its `PENDING` ack.
async fn request_placement(client: &mut Client) -> String {
    let ack = client.request("sessionPlacementRequest", json!({})).await;
    assert_eq!(ack["type"], "ack", "{ack}");
    assert_eq!(ack["route"], "sessionPlacementRequest", "{ack}");
    assert_eq!(ack["status"], "PENDING", "{ack}");
    ack["placementId"]
        .as_str()
        .unwrap_or_else(|| panic!("no placementId in {ack}"))
        .to_owned()
}

/// The next frame, which must be the `placement` frame of `placement_id`, within `wait`.
async fn placement_frame(client: &mut Client, placement_id: &str, wait: Duration) -> Value {
    let frame = match client.receive(wait).await {
        tests::stack::Received::Text(text) => serde_json::from_str::<Value>(&text).unwrap(),
        other => panic!("expected the placement frame within {wait:?}, got {other:?}"),
    };
    assert_eq!(frame["type"], "placement", "{frame}");
    assert_eq!(frame["placementId"], placement_id, "{frame}");
    frame
}

/// Checks a `gameSession` object has every field, with `port` a number.
fn assert_game_session(session: &Value) {
    let text = |field: &str| {
        session[field]
            .as_str()
            .unwrap_or_else(|| panic!("`{field}` is not a string in {session}"))
            .to_owned()
    };
    assert!(
        text("gameSessionArn").starts_with("arn:aws:gamelift:"),
        "{session}"
    );
    assert!(!text("ipAddress").is_empty(), "{session}");
    assert!(!text("dnsName").is_empty(), "{session}");
    assert!(!text("region").is_empty(), "{session}");
    assert!(text("playerSessionId").starts_with("psess-"), "{session}");
    let port = session["port"]
        .as_u64()
        .unwrap_or_else(|| panic!("`port` is not a number in {session}"));
    assert!((1..=65_535).contains(&port), "{session}");
}

/// The whole happy path, on whichever storage `stack` uses: placed, pushed, dropped,
/// back, rejoined.
async fn alice_is_placed_drops_and_rejoins(stack: &TestStack) {
    let (mut alice, _) = online(stack, "alice").await;
    let placement_id = request_placement(&mut alice).await;

    let frame = placement_frame(
        &mut alice,
        &placement_id,
        Duration::from_millis(PLACEMENT_DELAY_MS + 1_000),
    )
    .await;
    assert_eq!(frame["status"], "FULFILLED", "{frame}");
    let placed = frame["gameSession"].clone();
    assert_game_session(&placed);

    // The socket drops; alice comes back and asks where she was, reporting the last
    // frame she processed so that it is not replayed.
    let cursor = alice.cursor();
    assert!(cursor.is_some(), "pushed frames carry a seq");
    alice.vanish();
    let mut alice = stack.connect("alice").await;
    let ack = alice.resume(cursor).await;
    assert_eq!(ack["pendingMessages"], 0, "{ack}");
    assert_eq!(
        ack["gameSession"], placed,
        "resume shows the last game: {ack}"
    );
    assert_eq!(ack["placement"], Value::Null, "nothing pending: {ack}");

    // Her player session is spent (GameLift never reuses one): a new one, same game.
    let rejoined = alice.request("rejoinSession", json!({})).await;
    assert_eq!(rejoined["type"], "ack", "{rejoined}");
    let session = &rejoined["gameSession"];
    assert_game_session(session);
    assert_eq!(session["gameSessionArn"], placed["gameSessionArn"]);
    assert_ne!(session["playerSessionId"], placed["playerSessionId"]);

    // The record now holds the new seat.
    let ack = alice.resume(None).await;
    assert_eq!(ack["gameSession"], *session, "{ack}");
}

#[tokio::test]
async fn given_capacity_when_alice_requests_a_placement_then_fulfilled_is_pushed_and_after_a_drop_she_rejoins_the_same_game()
 {
    let stack = TestStack::start_with(fast_fleet).await;
    alice_is_placed_drops_and_rejoins(&stack).await;
    stack.shutdown().await;
}

/// The same with `--dynamodb-endpoint`: the real DynamoDB adapters (the settlement's
/// TransactWriteItems included) and the Messages table's real stream.
#[tokio::test]
async fn given_dynamodb_local_when_alice_requests_a_placement_then_fulfilled_is_pushed_and_after_a_drop_she_rejoins_the_same_game()
 {
    let Some(endpoint) = tests::dynamodb::endpoint_or_skip() else {
        return;
    };
    let stack = TestStack::start_with(|s| {
        fast_fleet(s);
        tests::dynamodb::use_fresh_tables(&mut s.storage, endpoint);
    })
    .await;
    assert!(stack.stack().storage().starts_with("DynamoDB"));
    alice_is_placed_drops_and_rejoins(&stack).await;
    stack.shutdown().await;
}

#[tokio::test]
async fn given_a_pending_placement_when_alice_asks_again_then_conflict_names_the_pending_placement()
{
    // No capacity: the first placement stays PENDING.
    let stack = TestStack::start_with(|s| {
        fast_fleet(s);
        s.simulator.sim_fleet_servers = 0;
    })
    .await;
    let (mut alice, _) = online(&stack, "alice").await;
    let pending = request_placement(&mut alice).await;

    let second = alice.request("sessionPlacementRequest", json!({})).await;
    assert_eq!(second["type"], "error", "{second}");
    assert_eq!(second["code"], "conflict", "{second}");
    assert_eq!(second["placementId"], pending.as_str(), "{second}");

    let ack = alice.resume(None).await;
    assert_eq!(
        ack["placement"],
        json!({"placementId": pending, "status": "PENDING"}),
        "{ack}"
    );
    assert_eq!(
        stack.stack().simulator().snapshot().placements.len(),
        1,
        "the refused request reached GameLift"
    );
    stack.shutdown().await;
}

#[tokio::test]
async fn given_no_capacity_when_alice_requests_a_placement_then_timed_out_is_pushed_after_the_queue_timeout()
 {
    let stack = TestStack::start_with(|s| {
        fast_fleet(s);
        s.simulator.sim_fleet_servers = 0;
        s.simulator.sim_queue_timeout_seconds = 1;
    })
    .await;
    let (mut alice, _) = online(&stack, "alice").await;
    let asked = Instant::now();
    let placement_id = request_placement(&mut alice).await;

    let frame = placement_frame(&mut alice, &placement_id, Duration::from_secs(2)).await;
    assert_eq!(frame["status"], "TIMED_OUT", "{frame}");
    assert!(
        frame.get("gameSession").is_none_or(Value::is_null),
        "{frame}"
    );
    assert!(
        asked.elapsed() >= Duration::from_secs(1),
        "timed out before the queue timeout"
    );
    stack.wait_for_stream_idle().await;

    // Nothing is pending any more: alice may try again.
    let ack = alice.resume(None).await;
    assert_eq!(ack["placement"], Value::Null, "{ack}");
    assert_eq!(ack["gameSession"], Value::Null, "{ack}");
    request_placement(&mut alice).await;
    stack.shutdown().await;
}

#[tokio::test]
async fn given_a_pending_placement_when_alice_cancels_then_cancelled_is_pushed_and_a_fulfilled_one_cannot_be_cancelled()
 {
    // Placements take 1.5 s: long enough to cancel one.
    let stack = TestStack::start_with(|s| {
        fast_fleet(s);
        s.simulator.sim_placement_delay_ms = 1_500;
    })
    .await;
    let (mut alice, _) = online(&stack, "alice").await;
    let placement_id = request_placement(&mut alice).await;

    let ack = alice.request("cancelPlacement", json!({})).await;
    assert_eq!(ack["type"], "ack", "{ack}");
    assert_eq!(ack["placementId"], placement_id.as_str(), "{ack}");
    let frame = placement_frame(&mut alice, &placement_id, Duration::from_secs(1)).await;
    assert_eq!(frame["status"], "CANCELLED", "{frame}");

    // A second placement runs to FULFILLED; cancelling it then is too late.
    let placement_id = request_placement(&mut alice).await;
    let frame = placement_frame(&mut alice, &placement_id, Duration::from_millis(2_500)).await;
    assert_eq!(frame["status"], "FULFILLED", "{frame}");
    let refused = alice
        .request("cancelPlacement", json!({"placementId": placement_id}))
        .await;
    assert_eq!(refused["type"], "error", "{refused}");
    assert_eq!(refused["code"], "conflict", "{refused}");
    stack.shutdown().await;
}

#[tokio::test]
async fn given_a_game_that_ended_when_alice_rejoins_then_session_ended() {
    let stack = TestStack::start_with(|s| {
        fast_fleet(s);
        s.simulator.sim_game_session_seconds = 1;
    })
    .await;
    let (mut alice, _) = online(&stack, "alice").await;
    let rejoin = alice.request("rejoinSession", json!({})).await;
    assert_eq!(rejoin["code"], "not_found", "no game yet: {rejoin}");

    let placement_id = request_placement(&mut alice).await;
    let frame = placement_frame(&mut alice, &placement_id, Duration::from_secs(2)).await;
    assert_eq!(frame["status"], "FULFILLED", "{frame}");

    // The game lasts one second after it was placed.
    tokio::time::sleep(Duration::from_millis(1_300)).await;
    let rejoin = alice.request("rejoinSession", json!({})).await;
    assert_eq!(rejoin["type"], "error", "{rejoin}");
    assert_eq!(rejoin["code"], "session_ended", "{rejoin}");
    stack.shutdown().await;
}

#[tokio::test]
async fn given_two_players_placed_together_then_each_gets_their_own_player_session_in_one_game() {
    let stack = TestStack::start_with(fast_fleet).await;
    let (mut alice, _) = online(&stack, "alice").await;
    let (mut bob, _) = online(&stack, "bob").await;

    // The test hook: one placement for both, as a matchmaker would ask for it.
    let placement_id = stack.place_together(&["alice", "bob"]).await;

    let wait = Duration::from_millis(PLACEMENT_DELAY_MS + 1_000);
    let for_alice = placement_frame(&mut alice, placement_id.as_str(), wait).await;
    let for_bob = placement_frame(&mut bob, placement_id.as_str(), wait).await;
    let (a, b) = (&for_alice["gameSession"], &for_bob["gameSession"]);
    assert_game_session(a);
    assert_game_session(b);
    assert_eq!(a["gameSessionArn"], b["gameSessionArn"], "one game");
    assert_ne!(a["playerSessionId"], b["playerSessionId"], "a seat each");
    stack.shutdown().await;
}

#[tokio::test]
async fn given_bad_placement_input_then_bad_request_names_the_field_and_nothing_is_placed() {
    let stack = TestStack::start_with(fast_fleet).await;
    let (mut alice, _) = online(&stack, "alice").await;
    let too_many_regions: serde_json::Map<String, Value> = (0..21)
        .map(|i| (format!("region-{i}"), json!(10)))
        .collect();
    for (body, code, field) in [
        (json!({"latencies": [1, 2]}), "bad_request", "latencies"),
        (
            json!({"latencies": {"us-east-1": "fast"}}),
            "bad_request",
            "latencies",
        ),
        (
            json!({"latencies": {"us-east-1": -1}}),
            "bad_request",
            "latencies",
        ),
        (
            json!({"latencies": {"us-east-1": 10_001}}),
            "bad_request",
            "latencies",
        ),
        (
            json!({"latencies": too_many_regions}),
            "bad_request",
            "latencies",
        ),
        // Well formed, but no queue of this stack.
        (json!({"queue": "no-such-queue"}), "not_found", "queue"),
        (
            json!({"playerData": "x".repeat(2_049)}),
            "bad_request",
            "playerData",
        ),
    ] {
        let reply = alice.request("sessionPlacementRequest", body.clone()).await;
        assert_eq!(reply["type"], "error", "{body} → {reply}");
        assert_eq!(reply["code"], code, "{body} → {reply}");
        let message = reply["message"].as_str().unwrap_or_default();
        assert!(message.contains(field), "{body} → {reply} names no {field}");
    }
    let ack = alice.resume(None).await;
    assert_eq!(ack["placement"], Value::Null, "nothing pending: {ack}");
    assert!(
        stack.stack().simulator().snapshot().placements.is_empty(),
        "nothing reached GameLift"
    );
    // The socket is still good for a real request.
    request_placement(&mut alice).await;
    stack.shutdown().await;
}
