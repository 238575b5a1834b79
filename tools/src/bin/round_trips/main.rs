//! Round trips per operation, measured: runs the real handlers against DynamoDB (Local,
//! or any endpoint) through a client that counts every HTTP attempt per API operation
//! and asks DynamoDB what each one consumed, and prints one row per operation.
//!
//!     cargo run --release -p tools --bin round_trips -- http://127.0.0.1:8000 \
//!         [--write tools/data/operation-counts.json]
//!
//! (or set DYNAMODB_ENDPOINT). Management API calls go to a recording gateway, GameLift
//! calls to a scripted fake and presence events to an in-process bus; all are counted.
//! Handlers log as they do in Lambda (JSON lines at `info`) into a byte counter. With
//! `--write`, every row is also written as JSON (`tools::counts`), which `cost` reads.
//! The party rows (`parties.rs`) run on tables of their own, so that their sweeps find
//! only the party's members; so do the matchmaking rows (`matchmaking.rs`) and the
//! backend API's (`backend_api.rs`) and the seats' with `PLAYER_GATEWAY=enabled`
//! (`gateway.rs`, run last: the scripted GameLift then answers as a player gateway fleet).

#![allow(clippy::expect_used)] // A benchmark tool: fixed, valid player ids.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use aws_adapters::call_counter::CallCounter;
use aws_adapters::dynamodb::{
    create_friends_table, create_messages_table, create_parties_table, create_placements_table,
    create_players_table,
};
use aws_config::BehaviorVersion;
use aws_lambda_events::apigw::ApiGatewayProxyResponse;
use aws_lambda_events::encodings::Body;
use aws_sdk_dynamodb::config::{Credentials, Region};
use contracts::events::route_event;
use contracts::fake_gamelift::{FakeGameLift, GameLiftCall};
use contracts::fake_matchmaker::{FakeMatchmaker, MatchmakerCall};
use contracts::fixtures::{new_connection, system_message};
use contracts::recording_gateway::{GatewayCall, RecordingGateway};
use edge::websocket::RouteEvent;
use lambda_runtime::LambdaEvent;
use memory_adapters::InProcessEventBus;
use serde_json::{Value, json};
use shared::config::Config;
use shared::domain::MessageId;
use shared::matchmaking::MatchmakingSettings;
use shared::messaging::MessageKind;
use shared::ports::{Clock, Connections, MessageStore, SystemClock};
use shared::requests::Route;
use shared::wiring::{ServiceSet, Wiring};
use tools::counts::{Measured, Operation, OperationCounts, REGENERATE};
use tools::frames::client_frame;

mod access_log;
mod backend_api;
mod gateway;
mod matchmaking;
mod parties;
mod scenarios;

/// Counts the bytes and lines the handlers log (the JSON lines Lambda would ship to
/// CloudWatch).
#[derive(Clone, Default)]
struct LogMeter {
    bytes: Arc<AtomicU64>,
    lines: Arc<AtomicU64>,
}

impl LogMeter {
    fn reset(&self) {
        self.bytes.store(0, Ordering::Relaxed);
        self.lines.store(0, Ordering::Relaxed);
    }
}

impl std::io::Write for LogMeter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.bytes.fetch_add(buf.len() as u64, Ordering::Relaxed);
        let lines = buf.iter().filter(|b| **b == b'\n').count() as u64;
        self.lines.fetch_add(lines, Ordering::Relaxed);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// What has been seen so far, and the rows made of it.
pub struct Bench {
    counter: CallCounter,
    gateway: Arc<RecordingGateway>,
    gateway_seen: usize,
    gamelift: Arc<FakeGameLift>,
    gamelift_seen: usize,
    /// GetPlayerConnectionDetails, which the fake keeps apart from its other calls.
    connection_details_seen: usize,
    matchmaker: Arc<FakeMatchmaker>,
    matchmaker_seen: usize,
    bus: Arc<InProcessEventBus>,
    bus_seen: usize,
    logs: LogMeter,
    invocations: u32,
    lambda_ms: f64,
    replies: u64,
    rows: Vec<(String, Operation, String)>,
}

impl Bench {
    /// The functions' wiring on the tables `config` names (through the counting
    /// `client`) with the bench's services: each handler measured is built by its
    /// function's own `wire`, as in Lambda.
    pub fn wiring(&self, client: &aws_sdk_dynamodb::Client, config: Arc<Config>) -> Wiring {
        Wiring {
            keep_alive: config.keep_alive(),
            stores: Arc::new(aws_adapters::wiring::DynamoStores::new(
                client.clone(),
                &config,
                aws_adapters::calls::Recorder::default(),
            )),
            // The bench's outside services, all counted: the recording gateway, the
            // scripted GameLift and matchmaker, the in-process bus.
            services: Arc::new(ServiceSet {
                gateway: self.gateway.clone(),
                gamelift: self.gamelift.clone(),
                matchmaker: self.matchmaker.clone(),
                events: self.bus.clone(),
            }),
            config,
            clock: clock(),
            matchmaking: MatchmakingSettings::single("default"),
        }
    }

    /// Forgets the calls so far (set-up that is not part of the next operation).
    pub fn reset(&mut self) {
        self.counter.take_all();
        self.gateway_seen = self.gateway.calls().len();
        self.gamelift_seen = self.gamelift.calls().len();
        self.connection_details_seen = self.gamelift.connection_details_calls().len();
        self.matchmaker_seen = self.matchmaker.calls().len();
        self.bus_seen = self.bus.published().len();
        self.logs.reset();
        self.invocations = 0;
        self.lambda_ms = 0.0;
        self.replies = 0;
    }

    /// Runs one Lambda invocation, timing it.
    pub async fn invoke<T, E>(
        &mut self,
        invocation: impl Future<Output = Result<T, E>>,
    ) -> Result<T, E> {
        let started = Instant::now();
        let result = invocation.await;
        self.lambda_ms += started.elapsed().as_secs_f64() * 1000.0;
        self.invocations += 1;
        result
    }

    /// Runs one route invocation; a reply with a body is a frame sent to the caller.
    pub async fn route<E>(
        &mut self,
        invocation: impl Future<Output = Result<ApiGatewayProxyResponse, E>>,
    ) -> Result<ApiGatewayProxyResponse, E> {
        let response = self.invoke(invocation).await?;
        if matches!(&response.body, Some(Body::Text(text)) if !text.is_empty()) {
            self.replies += 1;
        }
        Ok(response)
    }

    /// Runs a route API Gateway serves without a function (no invocation); a frame it
    /// answers with is a reply.
    pub async fn integration(&mut self, answer: impl Future<Output = Option<String>>) {
        if answer.await.is_some() {
            self.replies += 1;
        }
    }

    /// Records what happened since the last row as operation `id`.
    pub fn row(&mut self, id: &str, label: &str, target: &str) {
        let (dynamodb_calls, capacity) = self.counter.take_all();
        let mut management_calls = BTreeMap::new();
        let all = self.gateway.calls();
        for call in &all[self.gateway_seen..] {
            let kind = match call {
                GatewayCall::Post { .. } => "PostToConnection",
                GatewayCall::Delete { .. } => "DeleteConnection",
                GatewayCall::Get { .. } => "GetConnection",
            };
            *management_calls.entry(kind.to_owned()).or_default() += 1;
        }
        self.gateway_seen = all.len();
        let mut gamelift_calls = BTreeMap::new();
        let calls = self.gamelift.calls();
        for call in &calls[self.gamelift_seen..] {
            let kind = match call {
                GameLiftCall::StartPlacement(_) => "StartGameSessionPlacement",
                GameLiftCall::StopPlacement(_) => "StopGameSessionPlacement",
                GameLiftCall::CreatePlayerSession { .. } => "CreatePlayerSession",
            };
            *gamelift_calls.entry(kind.to_owned()).or_default() += 1;
        }
        self.gamelift_seen = calls.len();
        let details = self.gamelift.connection_details_calls().len();
        if details > self.connection_details_seen {
            let n = (details - self.connection_details_seen) as u64;
            gamelift_calls.insert("GetPlayerConnectionDetails".to_owned(), n);
        }
        self.connection_details_seen = details;
        let calls = self.matchmaker.calls();
        for call in &calls[self.matchmaker_seen..] {
            let kind = match call {
                MatchmakerCall::Start(_) => "StartMatchmaking",
                MatchmakerCall::Accept { .. } => "AcceptMatch",
                MatchmakerCall::Stop(_) => "StopMatchmaking",
            };
            *gamelift_calls.entry(kind.to_owned()).or_default() += 1;
        }
        self.matchmaker_seen = calls.len();
        let published = self.bus.published().len();
        let operation = Operation {
            label: label.to_owned(),
            lambda_invocations: self.invocations,
            lambda_ms: (self.lambda_ms * 100.0).round() / 100.0,
            dynamodb_calls,
            // DynamoDB bills the minimum read for a query that found nothing, and two
            // units per transactional write, where DynamoDB Local reports 0 and one.
            read_units: capacity.read_units + capacity.empty_read_minimum,
            write_units: capacity.write_units + 2.0 * capacity.transaction_write_units,
            index_write_units: capacity.index_write_units,
            failed_conditions: capacity.failed_conditions,
            management_calls,
            gamelift_calls,
            events_published: (published - self.bus_seen) as u64,
            replies: self.replies,
            log_bytes: self.logs.bytes.load(Ordering::Relaxed),
            log_lines: self.logs.lines.load(Ordering::Relaxed),
        };
        self.bus_seen = published;
        self.rows
            .push((id.to_owned(), operation, target.to_owned()));
        self.reset();
    }

    fn print_table(&self, endpoint: &str) {
        println!("Round trips per operation (endpoint {endpoint})\n");
        println!(
            "| operation | Lambda | DynamoDB calls | units (read / write + index) | management API / GameLift calls | log bytes | target |"
        );
        println!("|---|---:|---|---|---|---:|---|");
        let list = |calls: &BTreeMap<String, u64>| {
            calls
                .iter()
                .map(|(op, n)| format!("{n} {op}"))
                .collect::<Vec<_>>()
                .join(" + ")
        };
        for (_, op, target) in &self.rows {
            let dynamodb = match list(&op.dynamodb_calls) {
                none if none.is_empty() => "none".to_owned(),
                some => some,
            };
            let mut outside = op.management_calls.clone();
            outside.extend(op.gamelift_calls.clone());
            if op.events_published > 0 {
                outside.insert("PutEvents entries".into(), op.events_published);
            }
            let outside = match list(&outside) {
                none if none.is_empty() => "none".to_owned(),
                some => some,
            };
            let failed = if op.failed_conditions > 0 {
                format!(" ({} refused by its condition)", op.failed_conditions)
            } else {
                String::new()
            };
            println!(
                "| {} | {} | {dynamodb} | {} / {} + {}{failed} | {outside} | {} | {target} |",
                op.label,
                op.lambda_invocations,
                op.read_units,
                op.write_units,
                op.index_write_units,
                op.log_bytes
            );
        }
    }
}

fn tree() -> String {
    std::process::Command::new("git")
        .args(["describe", "--always", "--dirty"])
        .output()
        .ok()
        .filter(|out| out.status.success())
        .and_then(|out| String::from_utf8(out.stdout).ok())
        .map_or_else(|| "unknown".to_owned(), |s| s.trim().to_owned())
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_runtime::Error> {
    let mut args = std::env::args().skip(1);
    let mut endpoint = std::env::var("DYNAMODB_ENDPOINT").ok();
    let mut write = None;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--write" => write = Some(args.next().ok_or("--write needs a file path")?),
            _ => endpoint = Some(arg),
        }
    }
    let endpoint = endpoint.ok_or(
        "usage: round_trips <dynamodb endpoint URL> [--write FILE] (or set DYNAMODB_ENDPOINT)",
    )?;

    let logs = LogMeter::default();
    let meter = logs.clone();
    shared::telemetry::init_lambda_json("info", move || meter.clone());

    let sdk = aws_config::defaults(BehaviorVersion::latest())
        .region(Region::new("us-east-1"))
        .credentials_provider(Credentials::new("local", "local", None, None, "static"))
        .endpoint_url(&endpoint)
        .load()
        .await;
    let counter = CallCounter::measuring_capacity();
    let client = aws_sdk_dynamodb::Client::from_conf(
        aws_sdk_dynamodb::config::Builder::from(&sdk)
            .interceptor(counter.clone())
            .build(),
    );
    let mut bench = Bench {
        counter,
        gateway: Arc::new(RecordingGateway::new()),
        gateway_seen: 0,
        gamelift: Arc::new(FakeGameLift::new()),
        gamelift_seen: 0,
        connection_details_seen: 0,
        matchmaker: Arc::new(FakeMatchmaker::new()),
        matchmaker_seen: 0,
        bus: Arc::new(InProcessEventBus::new()),
        bus_seen: 0,
        logs,
        invocations: 0,
        lambda_ms: 0.0,
        replies: 0,
        rows: Vec::new(),
    };
    let world = scenarios::World::create(&client, &bench).await?;
    world.run(&mut bench).await?;
    access_log::access_log_line(&mut bench)?;
    parties::rows(&client, &mut bench).await?;
    matchmaking::rows(&client, &mut bench).await?;
    backend_api::rows(&client, &mut bench).await?;
    // Last: from here on the scripted GameLift answers as a player gateway fleet.
    gateway::rows(&client, &mut bench).await?;

    bench.print_table(&endpoint);
    if let Some(path) = write {
        let counts = OperationCounts {
            measured: Measured {
                command: REGENERATE.to_owned(),
                date: local::time::iso8601(SystemClock.now_millis())[..10].to_owned(),
                tree: tree(),
                dynamodb: "DynamoDB Local, as scripts/dynamodb-local.sh runs it".to_owned(),
                log_level: "info".to_owned(),
                lambda_tracing: template_tracing()?,
                access_logs: template_access_logs()?,
                notes: vec![
                    "Units are what DynamoDB Local reported with ReturnConsumedCapacity=INDEXES, with two corrections to what DynamoDB bills: a TransactWriteItems item is 2 write units (Local reports 1), and a Query that finds nothing is the minimum read, 0.5 or 1 when strongly consistent (Local reports 0).".to_owned(),
                    "A write refused by its condition reports no units; it is counted in failed_conditions (DynamoDB bills it as a write of the item).".to_owned(),
                    "lambda_ms is wall time of a release build on the machine that ran the benchmark, against DynamoDB Local (management API calls answered at once by a recording gateway); Lambda bills its own duration.".to_owned(),
                    "log_bytes are the JSON lines the handlers wrote at info, as telemetry writes them in Lambda; Lambda's own start/report lines are off (SystemLogLevel WARN).".to_owned(),
                ],
            },
            operations: bench
                .rows
                .iter()
                .map(|(id, op, _)| (id.clone(), op.clone()))
                .collect(),
        };
        let text = serde_json::to_string_pretty(&counts)? + "\n";
        std::fs::write(&path, text)?;
        println!("\nwrote {} operations to {path}", counts.operations.len());
    }
    Ok(())
}

/// `Globals.Function.Tracing` of template.yaml, a parameter's default when it is one.
fn template_tracing() -> Result<String, lambda_runtime::Error> {
    let template = local::template::parse(local::template::TEMPLATE_YAML)?;
    let tracing = &template["Globals"]["Function"]["Tracing"];
    let value = match tracing["Ref"].as_str() {
        Some(parameter) => &template["Parameters"][parameter]["Default"],
        None => tracing,
    };
    Ok(value.as_str().unwrap_or("PassThrough").to_owned())
}

/// The `AccessLogs` parameter's default: whether the stage writes access logs.
fn template_access_logs() -> Result<String, lambda_runtime::Error> {
    let template = local::template::parse(local::template::TEMPLATE_YAML)?;
    Ok(template["Parameters"]["AccessLogs"]["Default"]
        .as_str()
        .unwrap_or("Enabled")
        .to_owned())
}

/// `route` from `player` on `connection`, its frame `{"route", "body"}` carrying `body`,
/// as API Gateway hands it to the route's function.
pub fn client_event(route: Route, player: &str, connection: &str, body: Value) -> RouteEvent {
    let frame = client_frame(route, None, Some(body)).to_string();
    route_event(route.as_str(), player, connection, now(), Some(&frame))
}

/// Wraps a payload as Lambda hands it to a handler.
pub fn lambda_event<T>(payload: T) -> LambdaEvent<T> {
    LambdaEvent::new(payload, lambda_runtime::Context::default())
}

/// The local stage's settings on new Players, Messages, Placements and Parties tables of
/// their own (`rt-{label}-players-{now}`…), created through `client`.
pub async fn fresh_tables(
    client: &aws_sdk_dynamodb::Client,
    label: &str,
) -> Result<Config, lambda_runtime::Error> {
    let suffix = now();
    let mut config = Config::for_local("Development");
    config.players_table = format!("rt-{label}-players-{suffix}");
    config.messages_table = format!("rt-{label}-messages-{suffix}");
    config.placements_table = format!("rt-{label}-placements-{suffix}");
    config.parties_table = format!("rt-{label}-parties-{suffix}");
    config.friends_table = format!("rt-{label}-friends-{suffix}");
    create_players_table(client, &config.players_table).await?;
    create_messages_table(client, &config.messages_table).await?;
    create_placements_table(client, &config.placements_table).await?;
    create_parties_table(client, &config.parties_table).await?;
    create_friends_table(client, &config.friends_table).await?;
    Ok(config)
}

/// Gives `name`'s inbox a first message, `id` carrying `payload` (set-up), so that the
/// rows show the usual append, not an inbox's first (its epoch item).
pub async fn first_message(
    messages: &dyn MessageStore,
    id: MessageId,
    name: &str,
    payload: Value,
) -> Result<(), lambda_runtime::Error> {
    let message = system_message(MessageKind::Chat, id, name, payload.to_string(), now());
    messages.append(&[message]).await?;
    Ok(())
}

/// `name` connected on `c-<name>` (the [`new_connection`] write) with a first message in
/// their inbox, of id `<label>#<name>` (set-up).
pub async fn arrive(
    players: &dyn Connections,
    messages: &dyn MessageStore,
    label: &str,
    name: &str,
) -> Result<(), lambda_runtime::Error> {
    players
        .connect(&new_connection(name, &format!("c-{name}"), now()))
        .await?;
    let id = MessageId::deterministic(&[label, name]);
    first_message(
        messages,
        id,
        name,
        json!({"type": "message", "hello": name}),
    )
    .await
}

/// Now, in epoch milliseconds.
pub fn now() -> i64 {
    SystemClock.now_millis()
}

/// The clock every handler here runs on.
pub fn clock() -> Arc<dyn Clock> {
    Arc::new(SystemClock)
}
