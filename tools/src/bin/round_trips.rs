//! DynamoDB round trips per operation, measured: runs the real handlers against DynamoDB
//! (Local, or any endpoint) through a client that counts every HTTP attempt per API
//! operation, and prints one row per operation.
//!
//!     cargo run -p tools --bin round_trips -- http://127.0.0.1:8000
//!
//! (or set DYNAMODB_ENDPOINT). Management API calls go to a recording gateway and are
//! counted too.

use std::collections::BTreeMap;
use std::sync::Arc;

use aws_config::BehaviorVersion;
use aws_sdk_dynamodb::config::{Credentials, Region};
use connect::ConnectHandler;
use disconnect::DisconnectHandler;
use heartbeat::HeartbeatHandler;
use lambda_runtime::LambdaEvent;
use on_message_inserted::{MessageInsertedHandler, StreamBatch};
use resume::ResumeHandler;
use send_message::SendMessageHandler;
use serde_json::{Value, json};
use shared::adapters::dynamodb::{
    DynamoMessageStore, DynamoPlayerStore, create_messages_table, create_players_table,
};
use shared::config::Config;
use shared::domain::{MessageId, PlayerId};
use shared::ports::{Clock, MessageKind, MessageStore, StoredMessage, SystemClock};
use shared::testing::call_counter::CallCounter;
use shared::testing::events::{route_event, stream_insert};
use shared::testing::recording_gateway::RecordingGateway;
use shared::websocket::RouteHandler;

struct Bench {
    counter: CallCounter,
    gateway: Arc<RecordingGateway>,
    gateway_seen: usize,
    rows: Vec<(String, String, String)>,
}

impl Bench {
    /// Records what happened since the last row as one operation's round trips.
    fn row(&mut self, operation: &str, target: &str) {
        let calls: BTreeMap<String, u64> = self.counter.take();
        let dynamodb = if calls.is_empty() {
            "none".to_owned()
        } else {
            calls
                .iter()
                .map(|(op, n)| format!("{n} {op}"))
                .collect::<Vec<_>>()
                .join(" + ")
        };
        let all = self.gateway.calls();
        let mut gateway: BTreeMap<&str, usize> = BTreeMap::new();
        for call in &all[self.gateway_seen..] {
            let kind = match call {
                shared::testing::recording_gateway::GatewayCall::Post { .. } => "PostToConnection",
                shared::testing::recording_gateway::GatewayCall::Delete { .. } => {
                    "DeleteConnection"
                }
                shared::testing::recording_gateway::GatewayCall::Get { .. } => "GetConnection",
            };
            *gateway.entry(kind).or_default() += 1;
        }
        self.gateway_seen = all.len();
        let gateway = gateway
            .iter()
            .map(|(op, n)| format!("{n} {op}"))
            .collect::<Vec<_>>()
            .join(" + ");
        let management = if gateway.is_empty() {
            "none".to_owned()
        } else {
            gateway
        };
        self.rows.push((
            operation.to_owned(),
            format!("{dynamodb} | {management}"),
            target.to_owned(),
        ));
    }
}

fn body(route: &str, body: Value) -> String {
    json!({"route": route, "body": body}).to_string()
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_runtime::Error> {
    let endpoint = std::env::args()
        .nth(1)
        .or_else(|| std::env::var("DYNAMODB_ENDPOINT").ok())
        .ok_or("usage: round_trips <dynamodb endpoint URL> (or set DYNAMODB_ENDPOINT)")?;
    let sdk = aws_config::defaults(BehaviorVersion::latest())
        .region(Region::new("us-east-1"))
        .credentials_provider(Credentials::new("local", "local", None, None, "static"))
        .endpoint_url(&endpoint)
        .load()
        .await;
    let counter = CallCounter::new();
    let client = aws_sdk_dynamodb::Client::from_conf(
        aws_sdk_dynamodb::config::Builder::from(&sdk)
            .interceptor(counter.clone())
            .build(),
    );
    let suffix = SystemClock.now_millis();
    let mut config = Config::for_local("Development");
    config.players_table = format!("rt-players-{suffix}");
    config.messages_table = format!("rt-messages-{suffix}");
    create_players_table(&client, &config.players_table).await?;
    create_messages_table(&client, &config.messages_table).await?;
    let config = Arc::new(config);
    let players = Arc::new(DynamoPlayerStore::new(
        client.clone(),
        config.players_table.clone(),
    ));
    let messages = Arc::new(DynamoMessageStore::new(
        client.clone(),
        config.messages_table.clone(),
    ));
    let gateway = Arc::new(RecordingGateway::new());
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let mut bench = Bench {
        counter: counter.clone(),
        gateway: gateway.clone(),
        gateway_seen: 0,
        rows: Vec::new(),
    };
    counter.take();

    let connect = ConnectHandler::new(
        config.clone(),
        players.clone(),
        gateway.clone(),
        clock.clone(),
        Arc::new(shared::adapters::memory::InProcessEventBus::new()),
    );
    let disconnect = DisconnectHandler::new(config.clone(), players.clone(), clock.clone());
    let heartbeat = HeartbeatHandler::new(config.clone(), players.clone(), clock.clone());
    let resume = ResumeHandler::new(players.clone(), messages.clone(), gateway.clone());
    let send = SendMessageHandler::new(config.clone(), messages.clone(), clock.clone());
    let deliver = MessageInsertedHandler::new(
        config.clone(),
        players.clone(),
        messages.clone(),
        gateway.clone(),
        clock.clone(),
    );
    let now = || SystemClock.now_millis();

    connect
        .handle(route_event("$connect", "alice", "c1", now(), None))
        .await?;
    bench.row("$connect, new session", "1 write");
    connect
        .handle(route_event("$connect", "alice", "c2", now(), None))
        .await?;
    bench.row("$connect, takeover", "1 write (+1 DeleteConnection)");
    heartbeat
        .handle(route_event(
            "heartbeat",
            "alice",
            "c2",
            now(),
            Some(&body("heartbeat", json!({}))),
        ))
        .await?;
    bench.row("heartbeat", "1 write");
    disconnect
        .handle(route_event("$disconnect", "alice", "c2", now(), None))
        .await?;
    bench.row("$disconnect", "1 write");
    connect
        .handle(route_event("$connect", "alice", "c3", now(), None))
        .await?;
    bench.row("$connect, resume within grace", "1 write");
    resume
        .handle(route_event(
            "resume",
            "alice",
            "c3",
            now(),
            Some(&body("resume", json!({}))),
        ))
        .await?;
    bench.row(
        "resume, nothing pending",
        "1 read (+1 query for the replay)",
    );

    for n in [1usize, 25, 100] {
        let ids: Vec<String> = (0..n).map(|i| format!("peer{i}")).collect();
        send.handle(route_event(
            "sendMessage",
            "alice",
            "c3",
            now(),
            Some(&body(
                "sendMessage",
                json!({"playerIds": ids, "message": {"hi": 1}}),
            )),
        ))
        .await?;
        bench.row(
            &format!("sendMessage to {n}"),
            &format!("{} writes (ceil(N/25))", n.div_ceil(25)),
        );
    }

    // Delivery: 100 recipients online, one message each.
    for i in 0..100 {
        connect
            .handle(route_event(
                "$connect",
                &format!("peer{i}"),
                &format!("p{i}"),
                now(),
                None,
            ))
            .await?;
    }
    let batch: Vec<StoredMessage> = (0..100)
        .map(|i| StoredMessage {
            message_id: MessageId::generate(now()),
            recipient_id: PlayerId::parse(format!("peer{i}")).expect("valid id"),
            sender_id: "alice".into(),
            kind: MessageKind::Chat,
            payload: json!({"type": "message", "n": i}).to_string(),
            created_at: now(),
            expire_at_secs: now() / 1000 + 3600,
        })
        .collect();
    messages.put_all(&batch).await?;
    counter.take();
    bench.gateway_seen = gateway.calls().len();
    let records: Vec<Value> = batch
        .iter()
        .enumerate()
        .map(|(i, m)| stream_insert(m, &format!("{}", 1000 + i)))
        .collect();
    let event = LambdaEvent::new(
        serde_json::from_value::<StreamBatch>(json!({"Records": records}))?,
        lambda_runtime::Context::default(),
    );
    deliver.handle(event).await?;
    bench.row(
        "on-message-inserted, 100 records, 100 online recipients",
        "≤ 1 read + 4 deletes (+100 posts)",
    );

    // Replay: 30 messages waiting for a player who was away.
    let waiting: Vec<StoredMessage> = (0..30)
        .map(|i| StoredMessage {
            message_id: MessageId::generate(now()),
            recipient_id: PlayerId::parse("alice").expect("valid id"),
            sender_id: "peer1".into(),
            kind: MessageKind::Chat,
            payload: json!({"type": "message", "n": i}).to_string(),
            created_at: now(),
            expire_at_secs: now() / 1000 + 3600,
        })
        .collect();
    messages.put_all(&waiting).await?;
    counter.take();
    resume
        .handle(route_event(
            "resume",
            "alice",
            "c3",
            now(),
            Some(&body("resume", json!({}))),
        ))
        .await?;
    bench.row(
        "resume, replaying 30 messages",
        "1 read + 1 query + 2 deletes (+31 posts)",
    );

    println!("DynamoDB round trips per operation (endpoint {endpoint})\n");
    println!("| operation | DynamoDB calls | management API calls | target |");
    println!("|---|---|---|---|");
    for (operation, calls, target) in &bench.rows {
        println!("| {operation} | {calls} | {target} |");
    }
    Ok(())
}
