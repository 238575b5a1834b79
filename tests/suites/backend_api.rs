//! The backend API end to end (README, "Backend API"): HTTP requests to the local
//! stack's backend API port, answered by the real `backend-api` handler through
//! `lambda_http`'s types, and what players see on their real WebSockets. In memory, and
//! (with `DYNAMODB_ENDPOINT` set) on DynamoDB Local with the table's real stream.

use std::time::Duration;

use contracts::events::percent_encoded;
use local::Settings;
use local::gamelift::GameSessionStatus;
use serde_json::{Value, json};
use tests::stack::{Client, TestStack};

/// The stack on DynamoDB Local, fresh tables; `false` (skipped) without `DYNAMODB_ENDPOINT`.
fn on_dynamodb(settings: &mut Settings) -> bool {
    let Some(endpoint) = tests::dynamodb::endpoint_or_skip() else {
        return false;
    };
    tests::dynamodb::use_fresh_tables(&mut settings.storage, endpoint);
    true
}

/// A fleet ready at once, a placement fulfilled 200 ms after it is asked for.
fn fast_fleet(settings: &mut Settings) {
    settings.simulator.sim_server_startup_ms = 0;
    settings.simulator.sim_placement_delay_ms = 200;
}

/// Both storages, each scenario on a fresh stack.
async fn stacks() -> Vec<TestStack> {
    let mut stacks = vec![TestStack::start_with(fast_fleet).await];
    let mut dynamodb = false;
    let stack = TestStack::start_with(|s| {
        fast_fleet(s);
        dynamodb = on_dynamodb(s);
    })
    .await;
    if dynamodb {
        assert!(stack.stack().storage().starts_with("DynamoDB"));
        stacks.push(stack);
    } else {
        stack.shutdown().await;
    }
    stacks
}

/// The next text frame as JSON, within `wait`.
async fn frame_within(client: &mut Client, wait: Duration) -> Value {
    client.next_frame_within(wait).await
}

#[tokio::test]
async fn given_a_backend_push_then_an_online_player_gets_it_at_once_and_an_offline_one_on_resume() {
    for stack in stacks().await {
        // Given alice is online and bob has been seen but is offline now
        let (mut alice, _) = stack.online("alice").await;
        let (bob, _) = stack.online("bob").await;
        stack.close(bob, "bob").await;

        // When a match service pushes a result to both
        let response = stack
            .backend_api(
                "POST",
                "/v1/messages",
                Some(
                    json!({"playerIds": ["alice", "bob"], "from": "match-service",
                            "message": {"kind": "match_result", "won": true}}),
                ),
            )
            .await;
        assert_eq!(response.status, 202, "{response:?}");
        assert_eq!(response.body["queued"], 2);

        // Then alice gets it at once, marked as from the backend
        let frame = frame_within(&mut alice, Duration::from_secs(5)).await;
        assert_eq!(frame["type"], "message", "{frame}");
        assert_eq!(frame["from"], "match-service");
        assert_eq!(frame["backend"], true);
        assert_eq!(
            frame["message"],
            json!({"kind": "match_result", "won": true})
        );
        assert_eq!(frame["messageId"], response.body["messageId"]);

        // And bob, when he is back, gets it replayed before his resume ack
        let mut bob = stack.connect("bob").await;
        let ack = bob.resume(None).await;
        assert_eq!(ack["pendingMessages"], 1, "{ack}");
        let replayed = bob.next_frame().await;
        assert_eq!(replayed["from"], "match-service", "{replayed}");
        assert_eq!(replayed["messageId"], response.body["messageId"]);
        stack.shutdown().await;
    }
}

#[tokio::test]
async fn given_a_party_when_the_backend_pushes_to_it_then_every_member_gets_it_with_the_party_id() {
    let stack = TestStack::start().await;
    let (mut alice, _) = stack.online("alice").await;
    alice
        .send_json(json!({"route": "createParty", "requestId": "c1"}))
        .await;
    let party_id = loop {
        let frame = alice.next_frame().await;
        if frame["type"] == "ack" {
            break frame["party"]["partyId"].as_str().unwrap().to_owned();
        }
    };
    let response = stack
        .backend_api(
            "POST",
            "/v1/messages",
            Some(json!({"partyId": party_id, "message": "lobby closes in 60 s"})),
        )
        .await;
    assert_eq!(response.status, 202, "{response:?}");
    assert_eq!(response.body["queued"], 1);
    let frame = loop {
        let frame = alice.next_frame().await;
        if frame["type"] == "message" {
            break frame;
        }
    };
    assert_eq!(frame["partyId"], json!(party_id));
    assert_eq!(frame["from"], "system");
    stack.shutdown().await;
}

#[tokio::test]
async fn given_players_in_every_state_then_batch_presence_matches_reality() {
    for stack in stacks().await {
        // alice online, bob dropped (within his grace period), carol never seen
        let (_alice, _) = stack.online("alice").await;
        let (bob, _) = stack.online("bob").await;
        stack.close(bob, "bob").await;

        let response = stack
            .backend_api(
                "POST",
                "/v1/players:batchGet",
                Some(json!({"playerIds": ["alice", "bob", "carol"]})),
            )
            .await;
        assert_eq!(response.status, 200, "{response:?}");
        let players = response.body["players"].as_array().unwrap();
        assert_eq!(players.len(), 2, "{response:?}");
        assert_eq!(players[0]["playerId"], "alice");
        assert_eq!(players[0]["status"], "online");
        assert_eq!(players[0]["online"], true);
        assert!(players[0]["connectedSince"].as_i64().is_some());
        assert_eq!(players[1]["playerId"], "bob");
        assert_eq!(players[1]["status"], "disconnected");
        assert_eq!(players[1]["online"], true, "within the reconnect grace");
        assert_eq!(players[1]["connectedSince"], Value::Null);
        assert_eq!(response.body["notFound"], json!(["carol"]));

        let one = stack.backend_api("GET", "/v1/players/alice", None).await;
        assert_eq!(one.status, 200);
        assert_eq!(one.body, players[0]);
        stack.shutdown().await;
    }
}

#[tokio::test]
async fn given_an_online_player_when_the_backend_ends_the_connection_then_the_frame_comes_before_the_close_and_they_can_reconnect()
 {
    for stack in stacks().await {
        let (mut alice, _) = stack.online("alice").await;
        let connection = stack.connection_id("alice").await;

        let response = stack
            .backend_api(
                "DELETE",
                "/v1/players/alice/connection",
                Some(json!({"reason": "server shutting down, rejoin"})),
            )
            .await;
        assert_eq!(response.status, 202, "{response:?}");
        assert_eq!(response.body["connectionId"], json!(connection));

        // The frame, then the close
        let frame = frame_within(&mut alice, Duration::from_secs(5)).await;
        assert_eq!(frame["type"], "disconnected_by_server", "{frame}");
        assert_eq!(frame["reason"], "server shutting down, rejoin");
        let cursor = alice.cursor();
        assert!(cursor.is_some(), "the frame has a seq");
        alice.expect_close().await;

        // Not a ban: she reconnects, resumes without a cursor (the stale kick is not
        // replayed, nor does it close the new socket), and is reachable again
        let mut alice = stack.connect("alice").await;
        let ack = alice.resume(None).await;
        assert_eq!(ack["type"], "ack", "{ack}");
        assert_eq!(ack["pendingMessages"], 0, "{ack}");
        let pushed = stack
            .backend_api(
                "POST",
                "/v1/messages",
                Some(json!({"playerIds": ["alice"], "message": "welcome back"})),
            )
            .await;
        assert_eq!(pushed.status, 202);
        let frame = frame_within(&mut alice, Duration::from_secs(5)).await;
        assert_eq!(frame["message"], "welcome back", "{frame}");

        // A player with no open connection: 404
        stack.close(alice, "alice").await;
        let gone = stack
            .backend_api("DELETE", "/v1/players/alice/connection", None)
            .await;
        assert_eq!(gone.status, 404, "{gone:?}");
        assert_eq!(gone.body["presence"], "disconnected");
        stack.shutdown().await;
    }
}

#[tokio::test]
async fn given_a_game_session_reported_ended_then_rejoin_answers_session_ended_without_asking_gamelift()
 {
    for stack in stacks().await {
        // alice is placed in a game
        let (mut alice, _) = stack.online("alice").await;
        let ack = alice.request("sessionPlacementRequest", json!({})).await;
        assert_eq!(ack["status"], "PENDING", "{ack}");
        let frame = frame_within(&mut alice, Duration::from_secs(5)).await;
        assert_eq!(frame["status"], "FULFILLED", "{frame}");
        let arn = frame["gameSession"]["gameSessionArn"]
            .as_str()
            .unwrap()
            .to_owned();

        // The game server reports its game over (the ARN percent-encoded in the path)
        let path = format!("/v1/game-sessions/{}/ended", percent_encoded(&arn));
        let response = stack
            .backend_api("POST", &path, Some(json!({"playerIds": ["alice"]})))
            .await;
        assert_eq!(response.status, 200, "{response:?}");
        assert_eq!(response.body["cleared"], json!(["alice"]));

        // rejoinSession: session_ended at once; GameLift made no player session (the
        // simulated game is still running, so asking it would have seated her)
        let sessions_before = stack.stack().simulator().snapshot().player_sessions.len();
        let rejoin = alice.request("rejoinSession", json!({})).await;
        assert_eq!(rejoin["type"], "error", "{rejoin}");
        assert_eq!(rejoin["code"], "session_ended", "{rejoin}");
        assert_eq!(rejoin["gameSessionArn"], json!(arn));
        let snapshot = stack.stack().simulator().snapshot();
        assert_eq!(snapshot.player_sessions.len(), sessions_before);
        assert!(
            snapshot
                .game_sessions
                .iter()
                .any(|g| g.game_session_arn == arn && g.status == GameSessionStatus::Active),
            "the game is still running in GameLift: {:?}",
            snapshot.game_sessions
        );

        // Her game state is cleared: resume and presence no longer show the seat
        let ack = alice.resume(None).await;
        assert_eq!(ack["gameSession"], Value::Null, "{ack}");
        let player = stack.backend_api("GET", "/v1/players/alice", None).await;
        assert_eq!(player.body["gameSession"], Value::Null);

        // Leaving is idempotent
        let left = format!(
            "/v1/game-sessions/{}/players/alice/left",
            percent_encoded(&arn)
        );
        let response = stack.backend_api("POST", &left, None).await;
        assert_eq!(
            (response.status, &response.body),
            (200, &json!({"cleared": false}))
        );
        stack.shutdown().await;
    }
}

/// A bad request: method, path, body, and the status, code and field it is refused with.
type BadInput = (
    &'static str,
    &'static str,
    Option<Value>,
    u16,
    &'static str,
    Option<&'static str>,
);

#[tokio::test]
async fn given_bad_inputs_then_each_is_a_typed_problem() {
    let stack = TestStack::start().await;
    let (_alice, _) = stack.online("alice").await;
    let cases: [BadInput; 7] = [
        (
            "POST",
            "/v1/messages",
            Some(json!({"message": 1})),
            400,
            "bad_request",
            Some("playerIds"),
        ),
        (
            "POST",
            "/v1/messages",
            Some(json!({"playerIds": ["alice"]})),
            400,
            "bad_request",
            Some("message"),
        ),
        (
            "POST",
            "/v1/messages",
            Some(json!({"playerIds": ["nobody"], "message": 1})),
            404,
            "not_found",
            None,
        ),
        (
            "POST",
            "/v1/messages",
            Some(json!({"playerIds": ["alice"], "message": "x".repeat(40_000)})),
            413,
            "payload_too_large",
            Some("message"),
        ),
        (
            "GET",
            "/v1/players/bad%20id",
            None,
            400,
            "bad_request",
            Some("playerId"),
        ),
        (
            "POST",
            "/v1/players:batchGet",
            Some(json!({"playerIds": "alice"})),
            400,
            "bad_request",
            Some("playerIds"),
        ),
        ("PUT", "/v1/messages", None, 404, "unknown_route", None),
    ];
    for (method, path, body, status, code, field) in cases {
        let response = stack.backend_api(method, path, body).await;
        assert_eq!(response.status, status, "{method} {path}: {response:?}");
        assert_eq!(
            response.header("content-type"),
            Some("application/problem+json")
        );
        assert_eq!(response.body["code"], code, "{response:?}");
        assert_eq!(response.body["status"], status);
        if let Some(field) = field {
            assert_eq!(response.body["field"], field, "{response:?}");
        }
    }
    // Not JSON at all
    let response = tests::http::request(
        &stack.backend_api_url(),
        "POST",
        "/v1/messages",
        Some("{not json"),
        &[],
    )
    .await;
    assert_eq!(
        (response.status, &response.body["field"]),
        (400, &json!("body"))
    );
    stack.shutdown().await;
}

#[tokio::test]
async fn given_a_backend_api_key_then_requests_without_it_are_refused_and_with_it_served() {
    let stack =
        TestStack::start_with(|s| s.gateway.backend_api_key = Some("let-me-in".into())).await;
    let base = stack.backend_api_url();
    let without = tests::http::request(&base, "GET", "/v1/players/alice", None, &[]).await;
    assert_eq!(without.status, 403);
    let wrong = tests::http::request(
        &base,
        "GET",
        "/v1/players/alice",
        None,
        &[("x-api-key", "guess")],
    )
    .await;
    assert_eq!(wrong.status, 403);
    let with = tests::http::request(
        &base,
        "GET",
        "/v1/players/alice",
        None,
        &[("x-api-key", "let-me-in")],
    )
    .await;
    assert_eq!(
        with.status, 404,
        "served (alice has never connected): {with:?}"
    );
    assert_eq!(with.body["code"], "not_found");
    stack.shutdown().await;
}
