//! Player-to-player messages end to end over real WebSockets
//! (functions/send-message/src/lib.rs): `sendMessage` → the Messages table → its
//! stream → `on-message-inserted` → PostToConnection, and `resume` replaying what could
//! not be delivered. In memory, and (with `DYNAMODB_ENDPOINT` set) on DynamoDB Local
//! reading the table's real stream.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use aws_lambda_events::streams::DynamoDbEventResponse;
use contracts::fixtures::malformed_send_message_bodies;
use edge::websocket::{RouteEvent, RouteHandler, RouteResult, status};
use lambda_runtime::LambdaEvent;
use local::LocalConnectionGateway;
use local::StreamHandler;
use local::routes::DISCONNECT;
use on_message_inserted::StreamBatch;
use serde_json::{Value, json};
use shared::domain::{ConnectionId, PresenceStatus};
use shared::ports::{ConnectionGateway, ConnectionInfo, ConnectionProbe, GatewayError};
use shared::wiring::{ServiceSet, Wiring};
use tests::stack::{Client, TestStack, fragmented};
use tokio_tungstenite::tungstenite::Message;

/// How long a test waits to be sure nothing more arrives.
const QUIET: Duration = Duration::from_millis(300);

/// Connects `player` and sends `resume` (which also proves the connection is open:
/// posting to it works from here on); returns the client and the ack.
async fn online(stack: &TestStack, player: &str) -> (Client, Value) {
    let mut client = stack.connect(player).await;
    let ack = client.resume(None).await;
    assert_eq!(ack["type"], "ack", "{ack}");
    assert_eq!(ack["route"], "resume", "{ack}");
    (client, ack)
}

/// Sends `sendMessage` and returns alice's reply.
async fn send(client: &mut Client, request_id: &str, body: Value) -> Value {
    client
        .send_json(json!({"route": "sendMessage", "requestId": request_id, "body": body}))
        .await;
    client.next_frame().await
}

fn assert_message_frame(frame: &Value, from: &str, message: &Value) {
    assert_eq!(frame["type"], "message", "{frame}");
    assert_eq!(frame["from"], from, "{frame}");
    assert_eq!(&frame["message"], message, "{frame}");
    assert!(
        frame["messageId"].as_str().is_some_and(|id| !id.is_empty()),
        "{frame}"
    );
    assert!(frame["sentAt"].is_i64(), "{frame}");
}

/// Connects `player` once and leaves: the backend knows them, they are offline.
async fn known_and_offline(stack: &TestStack, player: &str) {
    let (client, _) = online(stack, player).await;
    client.close().await;
    stack
        .wait_for_status(player, PresenceStatus::Disconnected)
        .await;
}

/// The must-show scenario on `stack`, whose stream must be the one named `stream` (how
/// long bob's frame took is printed with that name); the stack is shut down after.
async fn must_show_on(stack: TestStack, stream: &str) {
    assert!(
        stack.stack().stream().starts_with(stream),
        "{}",
        stack.stack().stream()
    );
    let latency = alice_messages_bob_and_carol(&stack).await;
    eprintln!("{stream}: alice → bob took {latency:?}");
    stack.shutdown().await;
}

/// The must-show scenario, on whatever stack it is given: alice sends to
/// [bob, carol, bob]; bob (online) gets one frame within 1 s; alice's ack says queued 2;
/// carol (offline) gets it on her next resume, and not on a second one.
/// Returns how long bob's frame took.
async fn alice_messages_bob_and_carol(stack: &TestStack) -> Duration {
    known_and_offline(stack, "carol").await;
    let (mut bob, ack) = online(stack, "bob").await;
    assert_eq!(ack["pendingMessages"], 0, "{ack}");
    let mut alice = stack.connect("alice").await;
    let message = json!({"text": "gg", "score": [3, 1], "nested": {"ok": true}});

    let sent = Instant::now();
    let ack = send(
        &mut alice,
        "m-1",
        json!({"playerIds": ["bob", "carol", "bob"], "message": message}),
    )
    .await;
    let frame = match bob.receive(Duration::from_secs(1)).await {
        tests::stack::Received::Text(text) => serde_json::from_str::<Value>(&text).unwrap(),
        other => panic!("bob got no frame within 1 s: {other:?}"),
    };
    let latency = sent.elapsed();

    assert_eq!(
        ack,
        json!({"type": "ack", "route": "sendMessage", "requestId": "m-1", "queued": 2})
    );
    assert_message_frame(&frame, "alice", &message);
    bob.expect_no_frame(QUIET).await;
    alice.expect_no_frame(Duration::ZERO).await;
    // Each inbox keeps its copy (until its TTL): bob's was delivered live, carol's waits.
    let stats = stack.wait_for_stream_records(2).await;
    assert_eq!(stats.dropped, 0, "{stats:?}");
    assert_eq!(stack.inbox("bob").await.len(), 1);
    assert_eq!(stack.inbox("carol").await.len(), 1);

    let mut carol = stack.connect("carol").await;
    let ack = carol.resume(None).await;
    assert_eq!(ack["type"], "ack", "{ack}");
    assert_eq!(ack["pendingMessages"], 1, "{ack}");
    let replayed = carol.next_frame().await;
    assert_message_frame(&replayed, "alice", &message);
    assert_eq!(replayed["sentAt"], frame["sentAt"]);
    assert_eq!(
        replayed["messageId"], frame["messageId"],
        "one message, one id, whoever receives it"
    );
    assert!(replayed["seq"].is_u64(), "{replayed}");
    carol.expect_no_frame(QUIET).await;

    // A second resume without a cursor does not replay it again; with the cursor of
    // the frame before it, it does.
    let again = carol.resume(None).await;
    assert_eq!(again["pendingMessages"], 0, "{again}");
    carol.expect_no_frame(QUIET).await;
    let before = replayed["seq"].as_u64().unwrap() - 1;
    let from_cursor = carol.resume(Some(before)).await;
    assert_eq!(from_cursor["pendingMessages"], 1, "{from_cursor}");
    assert_eq!(carol.next_frame().await, replayed);
    latency
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn given_bob_online_and_carol_offline_when_alice_sends_to_bob_carol_bob_then_bob_gets_one_frame_at_once_and_carol_gets_it_on_resume_once()
 {
    must_show_on(TestStack::start().await, "in-memory feeder").await;
}

/// The same scenario with `--dynamodb-endpoint`: the real DynamoDB adapters, fresh
/// tables, and the Messages table's stream read through the DynamoDB Streams API.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn given_dynamodb_local_when_alice_sends_to_bob_carol_bob_then_bob_gets_one_frame_at_once_and_carol_gets_it_on_resume_once()
 {
    let Some(endpoint) = tests::dynamodb::endpoint_or_skip() else {
        return;
    };
    let stack = TestStack::start_with(|s| {
        tests::dynamodb::use_fresh_tables(&mut s.storage, endpoint);
    })
    .await;
    must_show_on(stack, "DynamoDB Streams").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn given_bob_online_when_alice_sends_200_messages_one_after_another_then_each_arrives_in_well_under_a_second()
 {
    // 200 messages in a few seconds: over the default 120 a minute.
    let stack = TestStack::start_with(|s| s.rate_limits.rate_limit_messages_per_minute = 0).await;
    let (mut bob, _) = online(&stack, "bob").await;
    let mut alice = stack.connect("alice").await;

    let mut latencies = Vec::with_capacity(200);
    for n in 0..200 {
        let sent = Instant::now();
        alice
            .send_json(
                json!({"route": "sendMessage", "body": {"playerIds": ["bob"], "message": n}}),
            )
            .await;
        let frame = bob.next_frame().await;
        latencies.push(sent.elapsed());
        assert_eq!(frame["message"], n, "{frame}");
        assert_eq!(alice.next_frame().await["queued"], 1);
    }

    latencies.sort_unstable();
    let p50 = latencies[latencies.len() / 2];
    let p99 = latencies[latencies.len() * 99 / 100];
    let max = latencies[latencies.len() - 1];
    eprintln!("in memory, one at a time: p50 {p50:?}, p99 {p99:?}, max {max:?}");
    assert!(max < Duration::from_secs(1), "max {max:?}");
    stack.wait_for_stream_idle().await;
    stack.shutdown().await;
}

// --- A stale connection: online on record, but its socket is gone ---

/// `$disconnect` that API Gateway "loses" for one player (it is best effort): the socket
/// is gone, but the record still says online with that connection.
struct LostDisconnect {
    inner: Arc<dyn RouteHandler>,
    player: &'static str,
    lost: Arc<Mutex<Vec<String>>>,
}

#[async_trait]
impl RouteHandler for LostDisconnect {
    async fn handle(&self, event: RouteEvent) -> RouteResult {
        let context = &event.payload.request_context;
        if context.authorizer.fields.get("playerId") == Some(&json!(self.player)) {
            let id = context.connection_id.clone().unwrap_or_default();
            self.lost.lock().unwrap().push(id);
            return Ok(status(200));
        }
        self.inner.handle(event).await
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn given_a_stale_connection_when_a_message_is_sent_then_it_is_kept_and_replayed_when_the_player_comes_back()
 {
    let lost = Arc::new(Mutex::new(Vec::new()));
    let lost_in_stack = lost.clone();
    let stack = TestStack::start_custom(
        |_| {},
        move |stack| {
            let routes = stack.routes_mut();
            let inner = routes.get(DISCONNECT).unwrap().handler.clone();
            routes.insert(
                DISCONNECT,
                "disconnect",
                Arc::new(LostDisconnect {
                    inner,
                    player: "bob",
                    lost: lost_in_stack,
                }),
            );
        },
    )
    .await;
    let (bob, _) = online(&stack, "bob").await;
    let stale = stack.connection_id("bob").await;
    // Bob's network goes: the socket ends without a closing handshake, and the
    // $disconnect that follows is lost.
    bob.vanish();
    let deadline = Instant::now() + Duration::from_secs(2);
    while lost.lock().unwrap().is_empty() {
        assert!(Instant::now() < deadline, "the socket never ended");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(*lost.lock().unwrap(), vec![stale.clone()]);
    assert!(stack.stack().connections().get(&stale).is_err(), "gone");
    let bob_id = shared::domain::PlayerId::parse("bob").unwrap();
    let record = stack.stack().players().get(&bob_id).await.unwrap().unwrap();
    assert_eq!(record.status, PresenceStatus::Online, "stale: still online");
    assert_eq!(record.connection_id.as_str(), stale);

    let mut alice = stack.connect("alice").await;
    let message = json!({"text": "are you there?"});
    let ack = send(
        &mut alice,
        "m-2",
        json!({"playerIds": ["bob"], "message": message}),
    )
    .await;
    assert_eq!(ack["queued"], 1, "{ack}");
    stack.wait_for_stream_records(1).await;

    // PostToConnection answered 410: bob is marked disconnected; his inbox has it.
    assert_eq!(stack.inbox("bob").await.len(), 1);
    let record = stack.stack().players().get(&bob_id).await.unwrap().unwrap();
    assert_eq!(record.status, PresenceStatus::Disconnected);

    let mut bob = stack.connect("bob").await;
    let ack = bob.resume(None).await;
    assert_eq!(ack["pendingMessages"], 1, "{ack}");
    assert_message_frame(&bob.next_frame().await, "alice", &message);
    bob.expect_no_frame(QUIET).await;
    assert_eq!(bob.resume(None).await["pendingMessages"], 0);
    stack.shutdown().await;
}

// --- Bad input, over the socket ---

#[tokio::test]
async fn given_bad_send_message_input_then_a_precise_error_nothing_is_queued_and_the_socket_stays_open()
 {
    let stack = TestStack::start().await;
    known_and_offline(&stack, "bob").await;
    let mut alice = stack.connect("alice").await;
    let malformed = malformed_send_message_bodies()
        .into_iter()
        .map(|(body, says)| (body, "bad_request", says));
    let unknown = (
        json!({"playerIds": ["bob", "nobody"], "message": 1}),
        "not_found",
        "no player has the id nobody",
    );
    for (i, (body, code, says)) in malformed.chain([unknown]).enumerate() {
        let request_id = format!("bad-{i}");
        let reply = send(&mut alice, &request_id, body.clone()).await;
        assert_eq!(reply["type"], "error", "{body}: {reply}");
        assert_eq!(reply["code"], code, "{body}: {reply}");
        assert_eq!(reply["route"], "sendMessage", "{reply}");
        assert_eq!(reply["requestId"], request_id.as_str(), "{reply}");
        let text = reply["message"].as_str().unwrap_or_default();
        assert!(text.contains(says), "{body}: {reply}");
    }

    // Over 32 KiB serialized: sent in several frames (one frame holds at most 32 KiB).
    let big = json!({
        "route": "sendMessage",
        "requestId": "big",
        "body": {"playerIds": ["bob"], "message": "x".repeat(33 * 1024)}
    })
    .to_string();
    for frame in fragmented(&big) {
        alice.send_message(Message::Frame(frame)).await;
    }
    let reply = alice.next_frame().await;
    assert_eq!(reply["code"], "payload_too_large", "{reply}");
    assert_eq!(reply["requestId"], "big", "{reply}");

    let ack = send(
        &mut alice,
        "ok",
        json!({"playerIds": ["bob"], "message": "still here"}),
    )
    .await;
    assert_eq!(ack["queued"], 1, "the socket stays open: {ack}");
    let stats = stack.wait_for_stream_idle().await;
    assert_eq!(
        stats.received, 1,
        "only the good message was queued: {stats:?}"
    );
    stack.shutdown().await;
}

// --- The feeder's retry semantics, with the real handler ---

/// A `ConnectionGateway` that answers 429 once for a chosen connection, then behaves.
struct FlakyGateway {
    inner: Arc<LocalConnectionGateway>,
    fail_once: Mutex<Option<String>>,
}

#[async_trait]
impl ConnectionGateway for FlakyGateway {
    async fn post(
        &self,
        endpoint: &str,
        connection: &ConnectionId,
        data: &[u8],
    ) -> Result<(), GatewayError> {
        let fail = {
            let mut target = self.fail_once.lock().unwrap();
            if target.as_deref() == Some(connection.as_str()) {
                *target = None;
                true
            } else {
                false
            }
        };
        if fail {
            return Err(GatewayError::LimitExceeded);
        }
        self.inner.post(endpoint, connection, data).await
    }

    async fn delete(&self, endpoint: &str, connection: &ConnectionId) -> Result<(), GatewayError> {
        self.inner.delete(endpoint, connection).await
    }
}

#[async_trait]
impl ConnectionProbe for FlakyGateway {
    async fn get(
        &self,
        endpoint: &str,
        connection: &ConnectionId,
    ) -> Result<ConnectionInfo, GatewayError> {
        self.inner.get(endpoint, connection).await
    }
}

/// One invocation of the stream consumer: its records' recipients, and the recipients
/// of the records it reported as failed.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Invocation {
    recipients: Vec<String>,
    failed: Vec<String>,
}

/// Wraps the consumer, recording invocations; holds the first one until released.
struct Recorded {
    inner: Arc<dyn StreamHandler>,
    invocations: Arc<Mutex<Vec<Invocation>>>,
    gate: Arc<tokio::sync::Notify>,
}

#[async_trait]
impl StreamHandler for Recorded {
    async fn handle(
        &self,
        event: LambdaEvent<StreamBatch>,
    ) -> Result<DynamoDbEventResponse, lambda_runtime::Error> {
        let recipient = |record: &Value| {
            record["dynamodb"]["NewImage"]["recipientId"]["S"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        };
        let by_sequence: Vec<(String, String)> = event
            .payload
            .records
            .iter()
            .filter_map(|r| match r {
                on_message_inserted::BatchRecord::Record(record) => {
                    let r = serde_json::to_value(record.as_ref()).ok()?;
                    let seq = r["dynamodb"]["SequenceNumber"].as_str().unwrap_or_default();
                    Some((seq.to_owned(), recipient(&r)))
                }
                on_message_inserted::BatchRecord::Inserted(inserted) => Some((
                    inserted.sequence_number.clone(),
                    inserted.message.recipient_id.as_str().to_owned(),
                )),
                on_message_inserted::BatchRecord::Malformed(_) => None,
            })
            .collect();
        let first = self.invocations.lock().unwrap().is_empty();
        self.invocations.lock().unwrap().push(Invocation {
            recipients: by_sequence.iter().map(|(_, r)| r.clone()).collect(),
            failed: Vec::new(),
        });
        if first {
            self.gate.notified().await;
        }
        let response = self.inner.handle(event).await?;
        let failed = response
            .batch_item_failures
            .iter()
            .filter_map(|f| {
                let id = f.item_identifier.as_deref()?;
                by_sequence
                    .iter()
                    .find(|(s, _)| s == id)
                    .map(|(_, r)| r.clone())
            })
            .collect();
        if let Some(last) = self.invocations.lock().unwrap().last_mut() {
            last.failed = failed;
        }
        Ok(response)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn given_a_transient_failure_for_one_record_then_the_feeder_reinvokes_from_it_and_every_recipient_gets_it()
 {
    let invocations = Arc::new(Mutex::new(Vec::new()));
    let gate = Arc::new(tokio::sync::Notify::new());
    let flaky: Arc<Mutex<Option<Arc<FlakyGateway>>>> = Arc::default();
    let (seen, held, flaky_slot) = (invocations.clone(), gate.clone(), flaky.clone());
    // One partition: every record in one ordered sequence, as on one stream shard.
    let stack = TestStack::start_custom(
        |s| s.stream.stream_shards = 1,
        move |stack| {
            let deps = stack.dependencies().clone();
            let gateway = Arc::new(FlakyGateway {
                inner: Arc::new(LocalConnectionGateway::new(stack.connections().clone())),
                fail_once: Mutex::new(None),
            });
            *flaky_slot.lock().unwrap() = Some(gateway.clone());
            // The stack's wiring but for the gateway: the handler as its `wire` builds it.
            let wiring = Wiring {
                services: Arc::new(ServiceSet {
                    gateway,
                    events: deps.services.event_bus(),
                    gamelift: stack.simulator().clone(),
                    matchmaker: deps.services.matchmaker(),
                }),
                ..deps.wiring
            };
            let real = Arc::new(on_message_inserted::wire(&wiring));
            stack.set_stream_handler(Arc::new(Recorded {
                inner: real,
                invocations: seen,
                gate: held,
            }));
        },
    )
    .await;
    let flaky = flaky.lock().unwrap().clone().unwrap();
    known_and_offline(&stack, "zed").await;
    let (mut bob, _) = online(&stack, "bob").await;
    let (mut carol, _) = online(&stack, "carol").await;
    let (mut dave, _) = online(&stack, "dave").await;
    *flaky.fail_once.lock().unwrap() = Some(stack.connection_id("carol").await);
    let mut alice = stack.connect("alice").await;

    // A first message (to zed, offline) occupies the consumer, so the next three
    // records queue up and form one batch, in order bob, carol, dave.
    send(
        &mut alice,
        "warm-up",
        json!({"playerIds": ["zed"], "message": 0}),
    )
    .await;
    let deadline = Instant::now() + Duration::from_secs(2);
    while invocations.lock().unwrap().is_empty() {
        assert!(Instant::now() < deadline, "the consumer was never invoked");
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    let ack = send(
        &mut alice,
        "m-3",
        json!({"playerIds": ["bob", "carol", "dave"], "message": "hello all"}),
    )
    .await;
    assert_eq!(ack["queued"], 3, "{ack}");
    gate.notify_one();

    for (name, client) in [("bob", &mut bob), ("carol", &mut carol)] {
        let frame = client.next_frame().await;
        assert_message_frame(&frame, "alice", &json!("hello all"));
        client.expect_no_frame(QUIET).await;
        eprintln!("{name} got it once");
    }
    // dave's was posted by the first invocation and again by the retry (at least once):
    // the same frame, same seq, which a client ignores the second time.
    let first = dave.next_frame().await;
    assert_message_frame(&first, "alice", &json!("hello all"));
    assert_eq!(dave.next_frame().await, first);
    dave.expect_no_frame(QUIET).await;
    let stats = stack.wait_for_stream_records(4).await;

    let strings = |names: &[&str]| names.iter().map(|n| (*n).to_owned()).collect::<Vec<_>>();
    assert_eq!(
        *invocations.lock().unwrap(),
        vec![
            Invocation {
                recipients: strings(&["zed"]),
                failed: vec![]
            },
            // carol's post got 429: only her record is reported.
            Invocation {
                recipients: strings(&["bob", "carol", "dave"]),
                failed: strings(&["carol"])
            },
            // Re-invoked from carol's record on (not bob's), dave's included.
            Invocation {
                recipients: strings(&["carol", "dave"]),
                failed: vec![]
            },
        ]
    );
    assert_eq!(stats.failed_invocations, 1, "{stats:?}");
    assert_eq!(stats.dropped, 0, "{stats:?}");
    assert_eq!(stack.inbox("zed").await.len(), 1);
    stack.shutdown().await;
}
