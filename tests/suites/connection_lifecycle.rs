//! End to end over real WebSockets: the local stack in-process, the real handlers, and a
//! client that speaks the protocol (README.md#client-protocol-v1; lifecycle:
//! shared/src/players.rs).

use std::time::Duration;

use serde_json::{Value, json};
use shared::domain::PresenceStatus;
use shared::ports::Clock;
use tests::stack::{TestStack, fragmented};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::frame::Frame;

fn assert_error(frame: &Value, code: &str) {
    assert_eq!(frame["type"], "error", "{frame}");
    assert_eq!(frame["code"], code, "{frame}");
    assert!(frame["message"].is_string(), "{frame}");
}

async fn assert_heartbeat_works(client: &mut tests::stack::Client) {
    client
        .send_json(json!({"route": "heartbeat", "requestId": "hb"}))
        .await;
    let ack = client.next_frame().await;
    assert_eq!(ack["type"], "ack", "{ack}");
    assert_eq!(ack["route"], "heartbeat", "{ack}");
    assert_eq!(ack["requestId"], "hb", "{ack}");
}

#[tokio::test]
async fn given_a_player_id_when_resume_is_sent_then_the_ack_names_the_player_and_is_not_resumed() {
    let stack = TestStack::start().await;
    let mut alice = stack.connect("alice").await;

    let ack = alice.resume(None).await;

    assert_eq!(ack["type"], "ack", "{ack}");
    assert_eq!(ack["route"], "resume");
    assert_eq!(ack["playerId"], "alice");
    assert_eq!(ack["resumed"], false);
    stack.shutdown().await;
}

#[tokio::test]
async fn given_a_heartbeat_without_a_request_id_then_no_reply_and_with_one_an_ack_with_the_server_time()
 {
    let stack = TestStack::start().await;
    let mut alice = stack.connect("alice").await;

    // The heartbeat route is API Gateway's DynamoDB integration: only a frame with a
    // requestId is answered.
    alice.send_json(json!({"route": "heartbeat"})).await;
    alice.expect_no_frame(Duration::from_millis(300)).await;
    alice
        .send_json(json!({"route": "heartbeat", "requestId": "h1", "body": {"cursor": 7}}))
        .await;
    let ack = alice.next_frame().await;

    // Exactly these fields, whatever order the JSON object keeps them in.
    assert_eq!(
        ack.as_object().map(|o| {
            let mut keys = o.keys().cloned().collect::<Vec<_>>();
            keys.sort();
            keys
        }),
        Some(vec![
            "requestId".to_owned(),
            "route".to_owned(),
            "serverTime".to_owned(),
            "type".to_owned()
        ]),
        "{ack}"
    );
    assert_eq!(
        (
            ack["type"].as_str(),
            ack["route"].as_str(),
            ack["requestId"].as_str()
        ),
        (Some("ack"), Some("heartbeat"), Some("h1"))
    );
    assert!(ack["serverTime"].is_number(), "{ack}");
    let record = stack.record("alice").await;
    assert_eq!(
        record.acked_seq.map(|s| s.get()),
        Some(7),
        "the cursor is kept"
    );
    stack.shutdown().await;
}

#[tokio::test]
async fn given_a_heartbeat_from_a_socket_that_is_no_longer_current_then_session_replaced_and_nothing_recorded()
 {
    let stack = TestStack::start().await;
    let mut stale = stack.connect("alice").await;
    // A later connection of alice's holds the record (as when two sockets opened at
    // once and this one lost), and this socket was never closed.
    let players = stack.stack().players();
    let alice = shared::domain::PlayerId::parse("alice").unwrap();
    let before = players.get(&alice).await.unwrap().unwrap();
    stack
        .stack()
        .dependencies()
        .stores
        .connections()
        .connect(&shared::players::NewConnection {
            player_id: alice.clone(),
            connection_id: shared::domain::ConnectionId::parse("newer").unwrap(),
            endpoint: stack.management_endpoint(),
            connected_at: before.connected_at + 1,
            now: before.connected_at + 1,
            heartbeat_deadline: before.connected_at + 90_000,
            sweep_shard: 0,
            expire_at_secs: 0,
        })
        .await
        .unwrap();

    // Without a requestId too: the integration response answers every refusal.
    stale.send_json(json!({"route": "heartbeat"})).await;
    let reply = stale.next_frame().await;

    assert_eq!(reply, json!({"type": "session_replaced"}));
    let after = players.get(&alice).await.unwrap().unwrap();
    assert_eq!(after.last_seen, before.connected_at + 1, "nothing recorded");
    // Told, not closed (API Gateway's integration cannot close a socket): the client
    // closes it, as session_replaced says.
    assert_heartbeat_replaced(&mut stale).await;
    stack.shutdown().await;
}

async fn assert_heartbeat_replaced(client: &mut tests::stack::Client) {
    client
        .send_json(json!({"route": "heartbeat", "requestId": "again"}))
        .await;
    assert_eq!(
        client.next_frame().await,
        json!({"type": "session_replaced"})
    );
}

#[tokio::test]
async fn given_a_request_id_when_a_route_replies_then_the_request_id_is_echoed() {
    let stack = TestStack::start().await;
    let mut alice = stack.connect("alice").await;

    alice
        .send_json(json!({"route": "heartbeat", "requestId": "r-42", "body": {}}))
        .await;
    let ack = alice.next_frame().await;

    assert_eq!(ack["requestId"], "r-42", "{ack}");
    stack.shutdown().await;
}

#[tokio::test]
async fn given_a_frame_that_is_not_json_when_sent_then_bad_request_and_the_socket_stays_open() {
    let stack = TestStack::start().await;
    let mut alice = stack.connect("alice").await;

    alice.send_text("hello there").await;
    let reply = alice.next_frame().await;

    assert_error(&reply, "bad_request");
    assert_heartbeat_works(&mut alice).await;
    stack.shutdown().await;
}

#[tokio::test]
async fn given_an_unknown_route_when_sent_then_unknown_route_and_the_socket_stays_open() {
    let stack = TestStack::start().await;
    let mut alice = stack.connect("alice").await;

    alice
        .send_json(json!({"route": "dance", "requestId": "r1"}))
        .await;
    let reply = alice.next_frame().await;

    assert_error(&reply, "unknown_route");
    assert_eq!(reply["route"], "dance");
    assert_eq!(reply["requestId"], "r1");
    assert_heartbeat_works(&mut alice).await;
    stack.shutdown().await;
}

#[tokio::test]
async fn given_each_kind_of_malformed_frame_when_sent_then_bad_request_and_the_socket_stays_open() {
    let stack = TestStack::start().await;
    let mut alice = stack.connect("alice").await;
    let long_id = "x".repeat(65);
    let frames = [
        json!(["heartbeat"]).to_string(),
        json!({"body": {}}).to_string(),
        json!({"route": 7}).to_string(),
        json!({"route": "heartbeat", "body": "not an object"}).to_string(),
        json!({"route": "heartbeat", "requestId": long_id}).to_string(),
        json!({"route": "heartbeat", "requestId": 5}).to_string(),
        json!({"route": ""}).to_string(),
        "42".to_owned(),
    ];

    for frame in frames {
        alice.send_text(&frame).await;
        let reply = alice.next_frame().await;
        assert_error(&reply, "bad_request");
    }
    // A heartbeat whose cursor is not a whole number is refused too (by DynamoDB, before
    // anything is written: the template adds a value no expression uses), without the
    // requestId, which the integration response cannot see.
    alice
        .send_json(json!({"route": "heartbeat", "requestId": "c", "body": {"cursor": "x"}}))
        .await;
    let reply = alice.next_frame().await;
    assert_error(&reply, "bad_request");
    assert_eq!(reply["route"], "heartbeat", "{reply}");
    assert_eq!(reply.get("requestId"), None, "{reply}");
    assert_heartbeat_works(&mut alice).await;
    stack.shutdown().await;
}

#[tokio::test]
async fn given_a_binary_frame_when_sent_then_default_answers_and_the_socket_stays_open() {
    let stack = TestStack::start().await;
    let mut alice = stack.connect("alice").await;

    alice
        .send_message(Message::binary(br#"{"route":"heartbeat"}"#.to_vec()))
        .await;
    let reply = alice.next_frame().await;

    assert_error(&reply, "bad_request");
    assert_heartbeat_works(&mut alice).await;
    stack.shutdown().await;
}

#[tokio::test]
async fn given_alice_connected_when_she_connects_again_then_the_first_socket_is_told_and_closed() {
    let stack = TestStack::start().await;
    let mut first = stack.connect("alice").await;
    assert_heartbeat_works(&mut first).await;

    let mut second = stack.connect("alice").await;

    assert_eq!(
        first.next_frame().await,
        json!({"type": "session_replaced"})
    );
    first.expect_close().await;
    let ack = second.resume(None).await;
    assert_eq!(ack["playerId"], "alice");
    assert_eq!(ack["resumed"], false);
    stack.shutdown().await;
}

#[tokio::test]
async fn given_a_closed_connection_when_the_player_reconnects_within_the_grace_period_then_resumed()
{
    let stack = TestStack::start().await;
    let first = stack.connect("alice").await;
    stack.close(first, "alice").await;

    let mut again = stack.connect("alice").await;
    let ack = again.resume(None).await;

    assert_eq!(ack["resumed"], true, "{ack}");
    stack.shutdown().await;
}

#[tokio::test]
async fn given_a_closed_connection_when_the_player_reconnects_after_the_grace_period_then_not_resumed()
 {
    let clock = shared::ports::ManualClock::at(shared::ports::SystemClock.now_millis());
    let stack =
        TestStack::start_with_clock(|s| s.presence.reconnect_grace_seconds = 1, clock.clone())
            .await;
    let first = stack.connect("alice").await;
    stack.close(first, "alice").await;
    clock.advance(1_300);

    let mut again = stack.connect("alice").await;
    let ack = again.resume(None).await;

    assert_eq!(ack["resumed"], false, "{ack}");
    stack.shutdown().await;
}

#[tokio::test]
async fn given_no_player_id_when_connecting_then_401() {
    let stack = TestStack::start().await;

    let refused = stack.connect_url(&stack.url()).await.err();

    assert_eq!(refused, Some(401));
    stack.shutdown().await;
}

#[tokio::test]
async fn given_an_invalid_player_id_when_connecting_then_403() {
    let stack = TestStack::start().await;

    let refused = stack.connect_query("playerId=al%20ice").await.err();

    assert_eq!(refused, Some(403));
    stack.shutdown().await;
}

#[tokio::test]
async fn given_a_wrong_stage_when_connecting_then_403() {
    let stack = TestStack::start().await;
    let url = format!("ws://{}/Production?playerId=alice", stack.stack().addr());

    let refused = stack.connect_url(&url).await.err();

    assert_eq!(refused, Some(403));
    stack.shutdown().await;
}

/// The local stack in `AUTH_MODE=jwt`, with an HS256 secret: the real authorizer on
/// every upgrade, the player id taken from the token's `sub`.
mod jwt_mode {
    use super::*;
    use jsonwebtoken::{EncodingKey, Header, encode};
    use local::AuthMode;

    const ISSUER: &str = "https://id.example";
    const AUDIENCE: &str = "game";
    const SECRET: &str = "a-local-test-secret-of-32-bytes!";

    async fn jwt_stack() -> TestStack {
        TestStack::start_with(|s| {
            s.auth.auth_mode = AuthMode::Jwt;
            s.auth.jwt_issuer = Some(ISSUER.into());
            s.auth.jwt_audience = Some(AUDIENCE.into());
            s.auth.jwt_hs256_secret = Some(SECRET.into());
        })
        .await
    }

    fn token(sub: &str, issuer: &str, secret: &str) -> String {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs();
        let claims =
            json!({"sub": sub, "iss": issuer, "aud": AUDIENCE, "iat": now, "exp": now + 600});
        encode(
            &Header::default(),
            &claims,
            &EncodingKey::from_secret(secret.as_bytes()),
        )
        .unwrap()
    }

    #[tokio::test]
    async fn given_a_valid_token_in_the_query_or_the_header_then_the_player_is_its_sub() {
        let stack = jwt_stack().await;
        let mut alice = stack
            .connect_query(&format!("token={}", token("alice", ISSUER, SECRET)))
            .await
            .expect("a valid token is allowed");
        let ack = alice.resume(None).await;
        assert_eq!(ack["playerId"], "alice", "{ack}");

        let mut bob = stack
            .connect_with_header(
                "Authorization",
                &format!("Bearer {}", token("bob", ISSUER, SECRET)),
            )
            .await
            .expect("a valid bearer token is allowed");
        let ack = bob.resume(None).await;
        assert_eq!(ack["playerId"], "bob", "{ack}");
        stack.shutdown().await;
    }

    #[tokio::test]
    async fn given_no_token_or_a_bad_one_then_the_upgrade_is_refused() {
        let stack = jwt_stack().await;
        // No credentials at all (a header-mode player id is not one in JWT mode).
        assert_eq!(stack.connect_query("playerId=alice").await.err(), Some(401));
        for bad in [
            token("alice", ISSUER, "another-secret-of-at-least-32-bytes"),
            token("alice", "https://evil.example", SECRET),
            token("bad player", ISSUER, SECRET),
            "not-a-jwt".to_owned(),
        ] {
            assert_eq!(
                stack.connect_query(&format!("token={bad}")).await.err(),
                Some(403),
                "{bad}"
            );
        }
        stack.shutdown().await;
    }
}

#[tokio::test]
async fn given_a_frame_over_32_kib_when_sent_then_the_socket_closes_with_1009() {
    let stack = TestStack::start().await;
    let mut alice = stack.connect("alice").await;

    alice.send_text(&"x".repeat(40 * 1024)).await;

    assert_eq!(alice.expect_close().await, 1009);
    stack
        .wait_for_status("alice", PresenceStatus::Disconnected)
        .await;
    stack.shutdown().await;
}

/// `{"route":"heartbeat","requestId":"big","body":{"pad":"xxx…"}}` of about `size`
/// bytes, cut into frames of at most 30 KiB.
fn fragmented_heartbeat(size: usize) -> Vec<Frame> {
    fragmented(
        &json!({"route": "heartbeat", "requestId": "big", "body": {"pad": "x".repeat(size)}})
            .to_string(),
    )
}

#[tokio::test]
async fn given_a_message_in_several_frames_under_128_kib_when_sent_then_it_is_reassembled_and_routed()
 {
    let stack = TestStack::start().await;
    let mut alice = stack.connect("alice").await;

    for frame in fragmented_heartbeat(100 * 1024) {
        alice.send_message(Message::Frame(frame)).await;
    }

    let ack = alice.next_frame().await;
    assert_eq!(ack["route"], "heartbeat", "{ack}");
    stack.shutdown().await;
}

#[tokio::test]
async fn given_a_message_in_several_frames_over_128_kib_when_sent_then_the_socket_closes_with_1009()
{
    let stack = TestStack::start().await;
    let mut alice = stack.connect("alice").await;

    for frame in fragmented_heartbeat(140 * 1024) {
        alice.send_message(Message::Frame(frame)).await;
    }

    assert_eq!(alice.expect_close().await, 1009);
    stack.shutdown().await;
}

#[tokio::test]
async fn given_an_idle_timeout_when_the_client_sends_nothing_then_the_socket_closes_with_1001() {
    let stack = TestStack::start_with(|s| s.gateway.idle_timeout_seconds = 1).await;
    let mut alice = stack.connect("alice").await;

    assert_eq!(
        alice.expect_close_within(Duration::from_secs(3)).await,
        1001
    );
    stack
        .wait_for_status("alice", PresenceStatus::Disconnected)
        .await;
    stack.shutdown().await;
}

#[tokio::test]
async fn given_an_idle_timeout_when_the_client_only_pings_then_the_socket_still_closes_with_1001() {
    let stack = TestStack::start_with(|s| s.gateway.idle_timeout_seconds = 1).await;
    let mut alice = stack.connect("alice").await;

    for _ in 0..3 {
        tokio::time::sleep(Duration::from_millis(300)).await;
        alice.send_message(Message::Ping(vec![1].into())).await;
    }

    assert_eq!(
        alice.expect_close_within(Duration::from_secs(3)).await,
        1001
    );
    stack.shutdown().await;
}

#[tokio::test]
async fn given_an_idle_timeout_when_the_client_sends_data_frames_then_the_socket_stays_open() {
    let stack = TestStack::start_with(|s| s.gateway.idle_timeout_seconds = 1).await;
    let mut alice = stack.connect("alice").await;

    // 2 s in all, never more than 300 ms (plus a round trip) without a data frame:
    // margin for a loaded machine against the 1 s timeout.
    for _ in 0..7 {
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_heartbeat_works(&mut alice).await;
    }
    stack.shutdown().await;
}

#[tokio::test]
async fn given_a_maximum_duration_when_it_passes_then_the_socket_closes_with_1001_despite_activity()
{
    let stack = TestStack::start_with(|s| s.gateway.max_connection_seconds = 1).await;
    let mut alice = stack.connect("alice").await;
    assert_heartbeat_works(&mut alice).await;

    assert_eq!(
        alice.expect_close_within(Duration::from_secs(3)).await,
        1001
    );
    stack.shutdown().await;
}

#[tokio::test]
async fn given_open_connections_when_the_stack_shuts_down_then_each_closes_with_1001_and_disconnects()
 {
    let stack = TestStack::start().await;
    let mut alice = stack.connect("alice").await;
    let mut bob = stack.connect("bob").await;
    let players = stack.stack().players();

    stack.shutdown().await;

    assert_eq!(alice.expect_close().await, 1001);
    assert_eq!(bob.expect_close().await, 1001);
    for player in ["alice", "bob"] {
        let id = shared::domain::PlayerId::parse(player).unwrap();
        let record = players.get(&id).await.unwrap().unwrap();
        assert_eq!(record.status, PresenceStatus::Disconnected, "{player}");
    }
}

// --- API Gateway fidelity, with recording routes around the real handlers ---

mod fidelity {
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use async_trait::async_trait;
    use aws_lambda_events::apigw::ApiGatewayWebsocketProxyRequest;
    use aws_lambda_events::encodings::Body;
    use edge::websocket::{RouteEvent, RouteHandler, RouteResult, status};
    use serde_json::{Value, json};
    use shared::domain::{ConnectionId, PresenceStatus};
    use shared::ports::{ConnectionGateway, GatewayError};
    use tests::stack::TestStack;

    use local::ConnectionRegistry;
    use local::routes::{CONNECT, DISCONNECT};

    /// What a recording route saw: the event, and whether its connection was still
    /// registered when it ran.
    #[derive(Clone, Debug)]
    struct Seen {
        event: ApiGatewayWebsocketProxyRequest,
        registered: bool,
    }

    /// Wraps a real handler and records every event.
    struct Recording {
        inner: Arc<dyn RouteHandler>,
        registry: Arc<ConnectionRegistry>,
        seen: Arc<Mutex<Vec<Seen>>>,
    }

    #[async_trait]
    impl RouteHandler for Recording {
        async fn handle(&self, event: RouteEvent) -> RouteResult {
            let id = event
                .payload
                .request_context
                .connection_id
                .clone()
                .unwrap_or_default();
            let registered = self.registry.get(&id).is_ok();
            self.seen.lock().unwrap().push(Seen {
                event: event.payload.clone(),
                registered,
            });
            self.inner.handle(event).await
        }
    }

    /// `$connect` that first tries to post to its own connection.
    struct PostingConnect {
        inner: Arc<dyn RouteHandler>,
        gateway: Arc<dyn ConnectionGateway>,
        results: Arc<Mutex<Vec<Result<(), GatewayError>>>>,
    }

    #[async_trait]
    impl RouteHandler for PostingConnect {
        async fn handle(&self, event: RouteEvent) -> RouteResult {
            let id = event.payload.request_context.connection_id.clone();
            let id = ConnectionId::parse(id.unwrap_or_default())?;
            let result = self.gateway.post("ignored", &id, b"too early").await;
            self.results.lock().unwrap().push(result);
            self.inner.handle(event).await
        }
    }

    /// Test routes: `inspect` replies with its own event; `fail` errs; `panic` panics;
    /// `postFirst` posts to its connection, then replies.
    struct TestRoute {
        kind: &'static str,
        gateway: Arc<dyn ConnectionGateway>,
    }

    #[async_trait]
    impl RouteHandler for TestRoute {
        async fn handle(&self, event: RouteEvent) -> RouteResult {
            let mut response = status(200);
            match self.kind {
                "inspect" => {
                    let text = serde_json::to_string(&event.payload)?;
                    response.body = Some(Body::Text(text));
                }
                "fail" => return Err("the handler failed".into()),
                "panic" => panic!("the handler panicked"),
                _ => {
                    let id = event.payload.request_context.connection_id.clone();
                    let id = ConnectionId::parse(id.unwrap_or_default())?;
                    self.gateway.post("", &id, b"posted").await?;
                    response.body = Some(Body::Text("replied".into()));
                }
            }
            Ok(response)
        }
    }

    struct Recorded {
        stack: TestStack,
        disconnects: Arc<Mutex<Vec<Seen>>>,
        early_posts: Arc<Mutex<Vec<Result<(), GatewayError>>>>,
    }

    async fn recorded(adjust: impl FnOnce(&mut local::Settings)) -> Recorded {
        let disconnects = Arc::new(Mutex::new(Vec::new()));
        let early_posts = Arc::new(Mutex::new(Vec::new()));
        let (d, e) = (disconnects.clone(), early_posts.clone());
        let stack = TestStack::start_custom(adjust, move |stack| {
            let registry = stack.connections().clone();
            let gateway = stack.dependencies().services.connection_gateway();
            let routes = stack.routes_mut();
            let disconnect = routes.get(DISCONNECT).unwrap().handler.clone();
            let connect = routes.get(CONNECT).unwrap().handler.clone();
            routes.insert(
                DISCONNECT,
                "disconnect",
                Arc::new(Recording {
                    inner: disconnect,
                    registry,
                    seen: d,
                }),
            );
            routes.insert(
                CONNECT,
                "connect",
                Arc::new(PostingConnect {
                    inner: connect,
                    gateway: gateway.clone(),
                    results: e,
                }),
            );
            for kind in ["inspect", "fail", "panic", "postFirst"] {
                let route = TestRoute {
                    kind,
                    gateway: gateway.clone(),
                };
                routes.insert(kind, kind, Arc::new(route));
            }
        })
        .await
        // Its test routes answer with anything (events, plain text), not protocol frames.
        .without_schema_check();
        Recorded {
            stack,
            disconnects,
            early_posts,
        }
    }

    impl Recorded {
        /// Waits for the connection's `$disconnect`, then checks it was the only one.
        async fn disconnect_of(&self, player: &str) -> Seen {
            self.stack
                .wait_for_status(player, PresenceStatus::Disconnected)
                .await;
            // Let a (wrong) second $disconnect show up if there were one.
            tokio::time::sleep(Duration::from_millis(100)).await;
            let seen = self.disconnects.lock().unwrap().clone();
            assert_eq!(seen.len(), 1, "exactly one $disconnect: {seen:#?}");
            seen[0].clone()
        }
    }

    fn assert_disconnect(seen: &Seen, code: i64, reason: &str) {
        let ctx = &seen.event.request_context;
        assert_eq!(ctx.event_type.as_deref(), Some("DISCONNECT"));
        assert_eq!(ctx.route_key.as_deref(), Some("$disconnect"));
        assert_eq!(ctx.disconnect_status_code, Some(code));
        assert_eq!(ctx.disconnect_reason.as_deref(), Some(reason));
        assert_eq!(ctx.authorizer.fields.get("playerId"), Some(&json!("alice")));
        assert!(!seen.registered, "$disconnect must run after unregistering");
    }

    #[tokio::test]
    async fn given_a_client_close_then_one_disconnect_with_its_code_and_reason() {
        let rec = recorded(|_| {}).await;
        let alice = rec.stack.connect("alice").await;

        alice.close().await;

        assert_disconnect(&rec.disconnect_of("alice").await, 1000, "bye");
        rec.stack.shutdown().await;
    }

    #[tokio::test]
    async fn given_an_idle_timeout_then_one_disconnect_with_1001() {
        let rec = recorded(|s| s.gateway.idle_timeout_seconds = 1).await;
        let mut alice = rec.stack.connect("alice").await;

        alice.expect_close_within(Duration::from_secs(3)).await;

        assert_disconnect(&rec.disconnect_of("alice").await, 1001, "Going away");
        rec.stack.shutdown().await;
    }

    #[tokio::test]
    async fn given_an_oversized_frame_then_one_disconnect_with_1009() {
        let rec = recorded(|_| {}).await;
        let mut alice = rec.stack.connect("alice").await;

        alice.send_text(&"x".repeat(40 * 1024)).await;
        alice.expect_close().await;

        assert_disconnect(&rec.disconnect_of("alice").await, 1009, "Message too big");
        rec.stack.shutdown().await;
    }

    #[tokio::test]
    async fn given_a_delete_via_connections_then_one_disconnect() {
        let rec = recorded(|_| {}).await;
        let mut alice = rec.stack.connect("alice").await;
        let id = rec.stack.connection_id("alice").await;

        rec.stack.stack().connections().delete(&id).unwrap();

        assert_eq!(alice.expect_close().await, 1000);
        assert_disconnect(&rec.disconnect_of("alice").await, 1000, "");
        rec.stack.shutdown().await;
    }

    #[tokio::test]
    async fn given_a_shutdown_then_one_disconnect_per_connection_with_1001() {
        let rec = recorded(|_| {}).await;
        let _alice = rec.stack.connect("alice").await;
        let disconnects = rec.disconnects.clone();

        rec.stack.shutdown().await;

        let seen = disconnects.lock().unwrap().clone();
        assert_eq!(seen.len(), 1, "{seen:#?}");
        assert_disconnect(&seen[0], 1001, "Going away");
    }

    #[tokio::test]
    async fn given_a_connect_in_progress_when_posting_to_it_then_gone_and_reachable_once_open() {
        let rec = recorded(|_| {}).await;
        let mut alice = rec.stack.connect("alice").await;

        let early = rec
            .early_posts
            .lock()
            .unwrap()
            .drain(..)
            .collect::<Vec<_>>();
        assert!(
            matches!(early.as_slice(), [Err(GatewayError::Gone)]),
            "{early:?}"
        );
        let id = rec.stack.connection_id("alice").await;
        rec.stack
            .stack()
            .connections()
            .post(&id, b"{\"hi\":1}")
            .await
            .unwrap();
        assert_eq!(alice.next_frame().await, json!({"hi": 1}));
        rec.stack.shutdown().await;
    }

    #[tokio::test]
    async fn given_a_routed_message_then_its_event_is_shaped_like_api_gateways() {
        let rec = recorded(|_| {}).await;
        let mut alice = rec.stack.connect("alice").await;
        let id = rec.stack.connection_id("alice").await;

        let event = alice.request("inspect", json!({"x": 1})).await;

        let ctx = &event["requestContext"];
        assert_eq!(ctx["routeKey"], "inspect");
        assert_eq!(ctx["eventType"], "MESSAGE");
        assert_eq!(ctx["messageDirection"], "IN");
        assert_eq!(ctx["connectionId"], id.as_str());
        assert_eq!(ctx["stage"], "Development");
        assert_eq!(ctx["apiId"], "local");
        assert_eq!(ctx["authorizer"]["playerId"], "alice");
        assert_eq!(ctx["authorizer"]["principalId"], "alice");
        assert_eq!(ctx["identity"]["sourceIp"], "127.0.0.1");
        assert_eq!(
            ctx["domainName"],
            rec.stack.stack().addr().to_string().as_str()
        );
        for field in ["messageId", "requestId", "extendedRequestId", "requestTime"] {
            assert!(ctx[field].is_string(), "{field}: {ctx}");
        }
        for field in ["connectedAt", "requestTimeEpoch"] {
            assert!(ctx[field].is_i64(), "{field}: {ctx}");
        }
        let body: Value = serde_json::from_str(event["body"].as_str().unwrap()).unwrap();
        assert_eq!(body, json!({"route": "inspect", "body": {"x": 1}}));
        assert_eq!(event["isBase64Encoded"], false);
        rec.stack.shutdown().await;
    }

    #[tokio::test]
    async fn given_a_failing_or_panicking_handler_then_internal_server_error_and_the_socket_stays_open()
     {
        let rec = recorded(|_| {}).await;
        let mut alice = rec.stack.connect("alice").await;
        let id = rec.stack.connection_id("alice").await;

        for route in ["fail", "panic"] {
            let frame = alice.request(route, json!({})).await;
            assert_eq!(frame["message"], "Internal server error", "{frame}");
            assert_eq!(frame["connectionId"], id.as_str());
            assert!(frame["requestId"].is_string(), "{frame}");
        }
        super::assert_heartbeat_works(&mut alice).await;
        rec.stack.shutdown().await;
    }

    #[tokio::test]
    async fn given_a_handler_that_posts_then_replies_then_the_post_arrives_first() {
        let rec = recorded(|_| {}).await;
        let mut alice = rec.stack.connect("alice").await;

        alice.send_json(json!({"route": "postFirst"})).await;

        for expected in ["posted", "replied"] {
            match alice.receive(Duration::from_secs(2)).await {
                tests::stack::Received::Text(text) => assert_eq!(text, expected),
                other => panic!("expected {expected}, got {other:?}"),
            }
        }
        rec.stack.shutdown().await;
    }
}

/// With `DYNAMODB_ENDPOINT` set (scripts/test.sh starts DynamoDB Local), the stack runs on
/// the real DynamoDB adapter, creating its table; without it the test says so and passes.
#[tokio::test]
async fn given_dynamodb_local_when_a_player_reconnects_within_the_grace_period_then_resumed() {
    let Some(endpoint) = tests::dynamodb::endpoint_or_skip() else {
        return;
    };
    let stack =
        TestStack::start_with(|s| tests::dynamodb::use_fresh_tables(&mut s.storage, endpoint))
            .await;
    assert!(stack.stack().storage().contains("DynamoDB"));

    let mut first = stack.connect("alice").await;
    assert_eq!(first.resume(None).await["resumed"], false);
    assert_heartbeat_works(&mut first).await;
    stack.close(first, "alice").await;
    let mut again = stack.connect("alice").await;

    assert_eq!(again.resume(None).await["resumed"], true);
    stack.shutdown().await;
}
