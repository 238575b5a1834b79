//! The Rust client (clients/rust) against the local stack in JWT mode: reconnect after a
//! server-side drop with a fresh token, `session_replaced`, rollover before the maximum
//! connection time, typed errors and timeouts, a refused token, and the timer keeping
//! its player online in both liveness modes (what `resume`'s `keepAlive` says).

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use edge::websocket::{RouteEvent, RouteHandler, RouteResult};
use gamelift_sockets_client::protocol::domain::PlayerId;
use gamelift_sockets_client::protocol::{ErrorReply, ServerFrame};
use gamelift_sockets_client::{
    Auth, Client, ClientError, Config, ConnectionState, Event, Events, StopReason,
};
use jsonwebtoken::{EncodingKey, Header, encode};
use local::AuthMode;
use serde_json::{Value, json};
use tests::stack::TestStack;

const ISSUER: &str = "https://id.example";
const AUDIENCE: &str = "game";
const SECRET: &str = "a-local-test-secret-of-32-bytes!";

async fn jwt_stack(settings: impl FnOnce(&mut local::Settings)) -> TestStack {
    jwt_stack_with(settings, |_| {}).await
}

async fn jwt_stack_with(
    settings: impl FnOnce(&mut local::Settings),
    customize: impl FnOnce(&mut local::LocalStack),
) -> TestStack {
    let adjust = |s: &mut local::Settings| {
        s.auth.auth_mode = AuthMode::Jwt;
        s.auth.jwt_issuer = Some(ISSUER.into());
        s.auth.jwt_audience = Some(AUDIENCE.into());
        s.auth.jwt_hs256_secret = Some(SECRET.into());
        s.auth.jwt_leeway_seconds = 0;
        settings(s);
    };
    TestStack::start_custom(adjust, customize).await
}

/// A route that answers only after a while: the client's request times out first.
struct Slow(Arc<dyn RouteHandler>);

#[async_trait::async_trait]
impl RouteHandler for Slow {
    async fn handle(&self, event: RouteEvent) -> RouteResult {
        tokio::time::sleep(Duration::from_millis(1500)).await;
        self.0.handle(event).await
    }
}

static JTI: AtomicU32 = AtomicU32::new(0);

fn token(sub: &str, lifetime_seconds: u64) -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let jti = JTI.fetch_add(1, Ordering::SeqCst);
    let claims = json!({"sub": sub, "iss": ISSUER, "aud": AUDIENCE, "iat": now,
                        "exp": now + lifetime_seconds, "jti": jti});
    encode(
        &Header::default(),
        &claims,
        &EncodingKey::from_secret(SECRET.as_bytes()),
    )
    .unwrap()
}

/// A client for `player` whose token provider mints a fresh token per connect (each
/// living `lifetime` seconds) and records them.
struct Player {
    client: Client,
    tokens: Arc<Mutex<Vec<String>>>,
    events: Arc<Mutex<Vec<Event>>>,
}

async fn player(
    stack: &TestStack,
    name: &str,
    lifetime: u64,
    adjust: impl FnOnce(&mut Config),
) -> Player {
    let tokens = Arc::new(Mutex::new(Vec::new()));
    let (recorded, name_owned) = (tokens.clone(), name.to_owned());
    let auth = Auth::token(move || {
        let token = token(&name_owned, lifetime);
        recorded.lock().unwrap().push(token.clone());
        async move { Ok(token) }
    });
    let mut config = Config::new(stack.url(), auth);
    config.reconnect_initial = Duration::from_millis(50);
    config.reconnect_max = Duration::from_millis(400);
    config.request_timeout = Duration::from_secs(5);
    adjust(&mut config);
    let (client, events) = Client::connect(config).await.expect("connects");
    Player {
        client,
        tokens,
        events: record(events),
    }
}

fn record(mut events: Events) -> Arc<Mutex<Vec<Event>>> {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    tokio::spawn(async move {
        while let Some(event) = events.next().await {
            sink.lock().unwrap().push(event);
        }
    });
    seen
}

impl Player {
    fn messages(&self) -> Vec<Value> {
        self.events
            .lock()
            .unwrap()
            .iter()
            .filter_map(|e| match e {
                Event::Push {
                    frame: ServerFrame::Message { message, .. },
                    ..
                } => Some(message.clone()),
                _ => None,
            })
            .collect()
    }

    fn count(&self, matches: impl Fn(&Event) -> bool) -> usize {
        self.events
            .lock()
            .unwrap()
            .iter()
            .filter(|e| matches(e))
            .count()
    }

    async fn until(&self, what: &str, done: impl Fn(&Self) -> bool) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while !done(self) {
            assert!(
                tokio::time::Instant::now() < deadline,
                "timed out waiting for {what}: {:#?}",
                self.events.lock().unwrap()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

fn resumed(event: &Event) -> Option<bool> {
    match event {
        Event::Resumed(ack) => ack.get("resumed").and_then(Value::as_bool),
        _ => None,
    }
}

#[tokio::test]
async fn given_a_server_side_drop_when_it_reconnects_with_a_fresh_token_then_resumed_and_every_message_once()
 {
    let stack = jwt_stack(|_| {}).await;
    // The first token lives 2 s: reconnecting after it expired works only with a new one.
    let alice = player(&stack, "alice", 2, |_| {}).await;
    let bob = player(&stack, "bob", 600, |_| {}).await;
    // bob sends alice messages `{"n": n}`, one by one.
    let send = async |numbers: std::ops::Range<i32>| {
        for n in numbers {
            bob.client
                .send_message(&["alice"], json!({"n": n}))
                .await
                .unwrap();
        }
    };
    send(0..5).await;
    alice
        .until("five messages", |a| a.messages().len() == 5)
        .await;

    tokio::time::sleep(Duration::from_millis(2500)).await;
    let id = stack.connection_id("alice").await;
    stack.stack().connections().delete(&id).unwrap();
    send(5..10).await;

    alice
        .until("the reconnect", |a| a.count(|e| resumed(e).is_some()) == 2)
        .await;
    alice
        .until("ten messages", |a| a.messages().len() >= 10)
        .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let resumes: Vec<bool> = alice
        .events
        .lock()
        .unwrap()
        .iter()
        .filter_map(resumed)
        .collect();
    assert_eq!(
        resumes,
        [false, true],
        "within the grace the session is kept"
    );
    let numbers: Vec<Value> = (0..10).map(|n| json!({"n": n})).collect();
    assert_eq!(alice.messages(), numbers, "each message once, in order");
    let tokens = alice.tokens.lock().unwrap().clone();
    assert_eq!(tokens.len(), 2, "one token per connect");
    assert_ne!(tokens[0], tokens[1], "the reconnect used a fresh token");
    alice.client.close();
    bob.client.close();
}

#[tokio::test]
async fn given_the_same_player_connects_elsewhere_then_the_first_client_stops_and_never_reconnects()
{
    let stack = jwt_stack(|_| {}).await;
    let first = player(&stack, "carol", 600, |_| {}).await;
    let second = player(&stack, "carol", 600, |_| {}).await;
    first
        .until("session_replaced", |p| {
            p.count(|e| *e == Event::Closed(StopReason::SessionReplaced)) == 1
        })
        .await;
    tokio::time::sleep(Duration::from_millis(1000)).await;
    assert_eq!(
        first.tokens.lock().unwrap().len(),
        1,
        "no reconnect attempt"
    );
    assert_eq!(
        first.count(|e| matches!(e, Event::State(ConnectionState::Reconnecting { .. }))),
        0
    );
    assert!(
        second.client.heartbeat().await.unwrap() > 0,
        "the second one stays live"
    );
    assert!(matches!(
        first.client.heartbeat().await,
        Err(ClientError::Closed(_))
    ));
    second.client.close();
}

#[tokio::test]
async fn given_bad_requests_or_no_time_to_answer_then_typed_errors_with_codes() {
    let stack = jwt_stack_with(
        |_| {},
        |stack| {
            let routes = stack.routes_mut();
            let rejoin = routes.get("rejoinSession").unwrap().handler.clone();
            routes.insert("rejoinSession", "rejoin-session", Arc::new(Slow(rejoin)));
        },
    )
    .await;
    let dave = player(&stack, "dave", 600, |_| {}).await;
    match dave
        .client
        .send_message(&["nobody-has-this-id"], json!(1))
        .await
    {
        Err(error @ ClientError::Server { .. }) => {
            assert_eq!(error.code(), "not_found");
            let ClientError::Server { route, reply } = error else {
                unreachable!()
            };
            let ErrorReply::NotFound(not_found) = *reply else {
                panic!("expected not_found: {reply:?}")
            };
            assert_eq!(route, "sendMessage");
            assert_eq!(
                not_found.detail.player_ids,
                Some(vec![PlayerId::parse("nobody-has-this-id").unwrap()])
            );
        }
        other => panic!("expected not_found, got {other:?}"),
    }
    let frame = serde_json::from_value(json!({"route": "rejoinSession"})).unwrap();
    let error = dave
        .client
        .request_within(frame, Duration::from_millis(300))
        .await
        .unwrap_err();
    assert_eq!(
        error,
        ClientError::Timeout {
            route: "rejoinSession"
        }
    );
    assert_eq!(error.code(), "timeout");
    // The late reply is dropped; the client goes on working.
    assert!(dave.client.heartbeat().await.unwrap() > 0);
    dave.client.close();
}

#[tokio::test]
async fn given_a_token_the_stack_refuses_then_connect_fails_as_unauthorized_without_retrying() {
    let stack = jwt_stack(|_| {}).await;
    let calls = Arc::new(AtomicU32::new(0));
    let counted = calls.clone();
    let auth = Auth::token(move || {
        counted.fetch_add(1, Ordering::SeqCst);
        async { Ok("not-a-jwt".to_owned()) }
    });
    let result = Client::connect(Config::new(stack.url(), auth)).await;
    assert!(
        matches!(
            result,
            Err(ClientError::Closed(StopReason::Unauthorized(401 | 403)))
        ),
        "{:?}",
        result.err()
    );
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn given_rollover_before_a_3_second_limit_then_no_drop_and_no_lost_message() {
    let stack = jwt_stack(|s| s.gateway.max_connection_seconds = 3).await;
    let rollover = |c: &mut Config| c.rollover_after = Duration::from_millis(1200);
    let alice = player(&stack, "erin", 600, rollover).await;
    let bob = player(&stack, "frank", 600, rollover).await;
    let mut sent = 0;
    let deadline = tokio::time::Instant::now() + Duration::from_millis(4500);
    while tokio::time::Instant::now() < deadline {
        bob.client
            .send_message(&["erin"], json!({"n": sent}))
            .await
            .unwrap();
        sent += 1;
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    alice
        .until("every message", |a| a.messages().len() >= sent)
        .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let rollovers = alice.count(|e| matches!(e, Event::Rollover { .. }));
    assert!(rollovers >= 2, "rolled over {rollovers} times");
    assert_eq!(
        alice.count(|e| matches!(e, Event::State(ConnectionState::Reconnecting { .. }))),
        0,
        "never dropped: the rollover came first"
    );
    let numbers: Vec<Value> = (0..sent).map(|n| json!({"n": n})).collect();
    assert_eq!(alice.messages(), numbers, "each message once, in order");
    assert_eq!(alice.tokens.lock().unwrap().len(), 1 + rollovers);
    alice.client.close();
    bob.client.close();
}

/// A raw socket of `name`'s that resumes and then sends nothing at all.
async fn silent_socket(stack: &TestStack, name: &str) -> tests::stack::Client {
    let mut silent = stack
        .connect_query(&format!("token={}", token(name, 600)))
        .await
        .expect("the stack takes the token");
    silent.resume(None).await;
    silent
}

#[tokio::test]
async fn given_a_2_second_idle_timeout_then_the_timer_keeps_the_socket_and_silence_loses_it() {
    // The stack tells the client a frame a second (its idle timeout less a tenth, at least
    // a second to spare); a socket that sends nothing is closed by the idle timeout.
    let stack = jwt_stack(|s| s.gateway.idle_timeout_seconds = 2).await;
    let beating = player(&stack, "gus", 600, |_| {}).await;
    let mut silent = silent_socket(&stack, "hal").await;
    tokio::time::sleep(Duration::from_millis(3500)).await;
    let dropped =
        |p: &Player| p.count(|e| matches!(e, Event::State(ConnectionState::Reconnecting { .. })));
    assert_eq!(dropped(&beating), 0, "the timer kept it open");
    assert_eq!(beating.tokens.lock().unwrap().len(), 1);
    assert_eq!(
        silent.expect_close_within(Duration::from_millis(100)).await,
        1001,
        "the idle timeout closed the silent one"
    );
    beating.client.close();
}

/// A client library left to its timer, and a silent socket, on a stack that takes players
/// silent for 2 seconds offline, in `liveness` mode: the client stays online (the same
/// socket) for three timeouts, the silent one is swept. Returns how far the client's
/// deadline moved (heartbeats move it; pings do not).
async fn left_to_its_timer(liveness: shared::config::PresenceLiveness) -> i64 {
    let stack = jwt_stack(|s| {
        s.presence.heartbeat_timeout_seconds = 2;
        s.presence.sweep_interval_seconds = 1;
        s.presence.presence_liveness = liveness;
    })
    .await;
    // The config says a frame a minute; the stack's keepAlive (a frame a second) wins.
    let timed = player(&stack, "ivy", 600, |c| {
        c.heartbeat_interval = Duration::from_secs(60);
    })
    .await;
    let mut silent = silent_socket(&stack, "jay").await;
    let ivy = PlayerId::parse("ivy").unwrap();
    let connected = stack.stack().players().get(&ivy).await.unwrap().unwrap();
    tokio::time::sleep(Duration::from_millis(6500)).await;
    let dropped = timed.count(|e| matches!(e, Event::State(ConnectionState::Reconnecting { .. })));
    assert_eq!(
        dropped, 0,
        "{liveness:?}: the timer kept her online, her socket open"
    );
    let now = stack.stack().players().get(&ivy).await.unwrap().unwrap();
    assert_eq!(
        now.status,
        shared::domain::PresenceStatus::Online,
        "{liveness:?}"
    );
    assert_eq!(
        now.connection_id, connected.connection_id,
        "{liveness:?}: the same socket"
    );
    assert_eq!(
        silent.next_frame().await,
        json!({"type": "disconnected", "reason": "heartbeat_timeout"}),
        "{liveness:?}: the sweeper took the silent one offline"
    );
    timed.client.close();
    now.sweep_at.unwrap_or_default() - connected.sweep_at.unwrap_or_default()
}

#[tokio::test]
async fn given_heartbeat_mode_when_a_client_is_left_to_its_timer_then_its_heartbeats_keep_it_online_for_three_timeouts()
 {
    let moved = left_to_its_timer(shared::config::PresenceLiveness::Heartbeat).await;
    assert!(moved > 0, "heartbeats moved the deadline");
}

#[tokio::test]
async fn given_connection_activity_mode_when_a_client_is_left_to_its_timer_then_its_pings_keep_it_online_for_three_timeouts()
 {
    // Nothing is pushed to her: the timer has no cursor to report, so it only pings.
    let moved = left_to_its_timer(shared::config::PresenceLiveness::ConnectionActivity).await;
    assert_eq!(moved, 0, "no heartbeat moved the deadline `$connect` set");
}

/// A client whose every connect after the first waits for `gate` to give it a token, so
/// a test decides how long it stays disconnected.
async fn gated(
    stack: &TestStack,
    name: &str,
    gate: Arc<tokio::sync::Semaphore>,
    queue: bool,
) -> Player {
    let name_owned = name.to_owned();
    let auth = Auth::token(move || {
        let (gate, name) = (gate.clone(), name_owned.clone());
        async move {
            gate.acquire().await.map_err(|e| e.to_string())?.forget();
            Ok(token(&name, 600))
        }
    });
    let mut config = Config::new(stack.url(), auth);
    config.reconnect_initial = Duration::from_millis(10);
    config.reconnect_max = Duration::from_millis(10);
    config.queue_while_reconnecting = queue;
    let (client, events) = Client::connect(config).await.expect("connects");
    Player {
        client,
        tokens: Arc::new(Mutex::new(Vec::new())),
        events: record(events),
    }
}

#[tokio::test]
async fn given_a_drop_then_requests_meanwhile_wait_for_resume_or_are_refused_as_configured() {
    let stack = jwt_stack(|_| {}).await;
    let gate = Arc::new(tokio::sync::Semaphore::new(2));
    let queued = gated(&stack, "ida", gate.clone(), true).await;
    let refused = gated(&stack, "jon", gate.clone(), false).await;
    for name in ["ida", "jon"] {
        let id = stack.connection_id(name).await;
        stack.stack().connections().delete(&id).unwrap();
    }
    for p in [&queued, &refused] {
        p.until("the drop", |p| {
            p.count(|e| matches!(e, Event::State(ConnectionState::Reconnecting { .. }))) >= 1
        })
        .await;
    }
    assert_eq!(
        refused.client.heartbeat().await,
        Err(ClientError::NotConnected)
    );
    let beat = tokio::spawn({
        let client = queued.client.clone();
        async move { client.heartbeat().await }
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!beat.is_finished(), "held while disconnected");
    gate.add_permits(2);
    // Held until the new socket's resume, then sent: it succeeds.
    assert!(beat.await.unwrap().unwrap() > 0);
    assert_eq!(
        queued
            .events
            .lock()
            .unwrap()
            .iter()
            .filter_map(resumed)
            .collect::<Vec<_>>(),
        [false, true]
    );
    queued.client.close();
    refused.client.close();
}
