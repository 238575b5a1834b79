//! DynamoDB round trips per operation, measured: runs the real handlers against DynamoDB
//! (Local, or any endpoint) through a client that counts every HTTP attempt per API
//! operation, and prints one row per operation.
//!
//!     cargo run -p tools --bin round_trips -- http://127.0.0.1:8000
//!
//! (or set DYNAMODB_ENDPOINT). Management API calls go to a recording gateway and
//! GameLift calls to a scripted fake; both are counted too. The party rows run on tables
//! of their own, so that their sweeps find only the party's members.

#![allow(clippy::expect_used)] // A benchmark tool: fixed, valid player ids.

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
    DynamoDeliveryHandover, DynamoMessageStore, DynamoPartyStore, DynamoPlacementOutcomes,
    DynamoPlacementStore, DynamoPlayerStore, create_messages_table, create_parties_table,
    create_placements_table, create_players_table,
};
use shared::config::Config;
use shared::domain::{MessageId, PlacementId, PlayerId};
use shared::ports::{
    Clock, GameLiftError, MessageKind, MessageStore, NewMessage, PlacementRecord, PlacementStore,
    ReplayFrom, SystemClock,
};
use shared::testing::call_counter::CallCounter;
use shared::testing::events::{route_event, stream_insert};
use shared::testing::fake_gamelift::{FakeGameLift, GameLiftCall};
use shared::testing::recording_gateway::RecordingGateway;
use shared::websocket::RouteHandler;

struct Bench {
    counter: CallCounter,
    gateway: Arc<RecordingGateway>,
    gateway_seen: usize,
    gamelift: Arc<FakeGameLift>,
    gamelift_seen: usize,
    rows: Vec<(String, String, String)>,
}

impl Bench {
    /// Forgets the calls so far (set-up that is not part of the next operation).
    fn reset(&mut self) {
        self.counter.take();
        self.gateway_seen = self.gateway.calls().len();
        self.gamelift_seen = self.gamelift.calls().len();
    }

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
        let gamelift_calls = self.gamelift.calls();
        for call in &gamelift_calls[self.gamelift_seen..] {
            let kind = match call {
                GameLiftCall::StartPlacement(_) => "StartGameSessionPlacement",
                GameLiftCall::StopPlacement(_) => "StopGameSessionPlacement",
                GameLiftCall::CreatePlayerSession { .. } => "CreatePlayerSession",
            };
            *gateway.entry(kind).or_default() += 1;
        }
        self.gamelift_seen = gamelift_calls.len();
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

/// A GameLift placement event (EventBridge form; the SNS form carries the same JSON).
fn placement_event(placement_id: &PlacementId, outcome: &str, players: &[String]) -> Value {
    let mut detail = json!({
        "type": outcome,
        "placementId": placement_id,
        "startTime": "2026-11-22T05:00:01.123Z",
        "endTime": "2026-11-22T05:00:09.876Z",
    });
    if outcome == "PlacementFulfilled" {
        let sessions: Vec<Value> = players
            .iter()
            .enumerate()
            .map(|(i, p)| json!({"playerId": p, "playerSessionId": format!("psess-{i}")}))
            .collect();
        detail["port"] = json!("7777");
        detail["gameSessionArn"] = json!("arn:aws:gamelift:eu-west-1::gamesession/fleet-1/gsess-1");
        detail["ipAddress"] = json!("52.30.10.20");
        detail["dnsName"] = json!("ec2-52-30-10-20.eu-west-1.compute.amazonaws.com");
        detail["gameSessionRegion"] = json!("eu-west-1");
        detail["placedPlayerSessions"] = json!(sessions);
    }
    json!({
        "version": "0",
        "id": "6f3e7b1a-0c2d-4e5f-9a8b-7c6d5e4f3a21",
        "detail-type": "GameLift Queue Placement Event",
        "source": "aws.gamelift",
        "account": "123456789012",
        "time": "2026-11-22T05:00:10Z",
        "region": "eu-west-1",
        "resources": ["arn:aws:gamelift:eu-west-1:123456789012:gamesessionqueue/default-queue"],
        "detail": detail,
    })
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
    config.placements_table = format!("rt-placements-{suffix}");
    config.parties_table = format!("rt-parties-{suffix}");
    create_players_table(&client, &config.players_table).await?;
    create_messages_table(&client, &config.messages_table).await?;
    create_placements_table(&client, &config.placements_table).await?;
    create_parties_table(&client, &config.parties_table).await?;
    let config = Arc::new(config);
    let players = Arc::new(DynamoPlayerStore::new(
        client.clone(),
        config.players_table.clone(),
    ));
    let messages = Arc::new(DynamoMessageStore::new(
        client.clone(),
        config.messages_table.clone(),
    ));
    let placements = Arc::new(DynamoPlacementStore::new(
        client.clone(),
        config.placements_table.clone(),
    ));
    let outcomes = Arc::new(DynamoPlacementOutcomes::new(
        client.clone(),
        config.placements_table.clone(),
        config.players_table.clone(),
        config.messages_table.clone(),
    ));
    let parties: Arc<DynamoPartyStore> = Arc::new(DynamoPartyStore::new(
        client.clone(),
        config.parties_table.clone(),
        config.players_table.clone(),
        config.messages_table.clone(),
        config.presence_shards,
    ));
    let gateway = Arc::new(RecordingGateway::new());
    let gamelift = Arc::new(FakeGameLift::new());
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let mut bench = Bench {
        counter: counter.clone(),
        gateway: gateway.clone(),
        gateway_seen: 0,
        gamelift: gamelift.clone(),
        gamelift_seen: 0,
        rows: Vec::new(),
    };
    bench.reset();

    let connect = ConnectHandler::new(
        config.clone(),
        players.clone(),
        gateway.clone(),
        clock.clone(),
        Arc::new(shared::adapters::memory::InProcessEventBus::new()),
    );
    let disconnect = DisconnectHandler::new(config.clone(), players.clone(), clock.clone());
    let heartbeat = HeartbeatHandler::new(
        config.clone(),
        players.clone(),
        gateway.clone(),
        clock.clone(),
    );
    let handover = Arc::new(DynamoDeliveryHandover::new(
        client.clone(),
        config.players_table.clone(),
        config.messages_table.clone(),
    ));
    let resume = ResumeHandler::new(
        players.clone(),
        messages.clone(),
        handover,
        shared::party::Parties::new(parties.clone(), clock.clone(), 86_400),
        gateway.clone(),
        clock.clone(),
    );
    let send = SendMessageHandler::new(
        config.clone(),
        messages.clone(),
        players.clone(),
        players.clone(),
        parties.clone(),
        clock.clone(),
    );
    let deliver = MessageInsertedHandler::new(
        config.clone(),
        players.clone(),
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
    heartbeat
        .handle(route_event(
            "heartbeat",
            "alice",
            "c2",
            now(),
            Some(&body("heartbeat", json!({"cursor": 42}))),
        ))
        .await?;
    bench.row("heartbeat with a cursor", "1 write (the same one)");
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
        "1 read + 1 query + 1 hand-over transaction",
    );

    // The recipients have connected once (messages go only to known players).
    for n in [1usize, 25, 100] {
        for i in 0..n {
            let name = format!("peer{n}-{i}");
            connect
                .handle(route_event("$connect", &name, &name, now(), None))
                .await?;
        }
    }
    bench.reset();
    for round in ["first message to each inbox", "later messages"] {
        for n in [1usize, 25, 100] {
            let ids: Vec<String> = (0..n).map(|i| format!("peer{n}-{i}")).collect();
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
            let floor = if round.starts_with("first") {
                "1 rate-limit write (2 in a new minute) + ceil(N / 100) BatchGetItem + N queries + N transactions (the epoch item with the message)"
            } else {
                "1 rate-limit write + ceil(N / 100) BatchGetItem + N queries + N conditional writes"
            };
            bench.row(&format!("sendMessage to {n}, {round}"), floor);
        }
    }

    // Refusals: over a limit, and an id nobody has.
    let mut strict = (*config).clone();
    strict.rate_limits.messages_per_minute = 1;
    let strict_send = SendMessageHandler::new(
        Arc::new(strict),
        messages.clone(),
        players.clone(),
        players.clone(),
        parties.clone(),
        clock.clone(),
    );
    let to_peer = || {
        route_event(
            "sendMessage",
            "alice",
            "c3",
            now(),
            Some(&body(
                "sendMessage",
                json!({"playerIds": ["peer1-0"], "message": {"hi": 1}}),
            )),
        )
    };
    strict_send.handle(to_peer()).await?;
    bench.reset();
    strict_send.handle(to_peer()).await?;
    bench.row(
        "sendMessage over the rate limit (rate_limited)",
        "1 failed conditional write (its old item says why) + 1 BatchGetItem, nothing stored",
    );
    send.handle(route_event(
        "sendMessage",
        "alice",
        "c3",
        now(),
        Some(&body(
            "sendMessage",
            json!({"playerIds": ["peer1-0", "nobody"], "message": {"hi": 1}}),
        )),
    ))
    .await?;
    bench.row(
        "sendMessage to an id nobody has (not_found)",
        "1 rate-limit write + 1 BatchGetItem, nothing stored",
    );

    // Delivery: 100 recipients live (connected and resumed), one message each.
    for i in 0..100 {
        let (name, connection) = (format!("peer{i}"), format!("p{i}"));
        connect
            .handle(route_event("$connect", &name, &connection, now(), None))
            .await?;
        resume
            .handle(route_event(
                "resume",
                &name,
                &connection,
                now(),
                Some(&body("resume", json!({}))),
            ))
            .await?;
    }
    let batch: Vec<NewMessage> = (0..100)
        .map(|i| NewMessage {
            message_id: MessageId::generate(now()),
            recipient_id: PlayerId::parse(format!("peer{i}")).expect("valid id"),
            sender_id: "alice".into(),
            kind: MessageKind::Chat,
            payload: json!({"type": "message", "n": i}).to_string(),
            created_at: now(),
            expire_at_secs: now() / 1000 + 3600,
        })
        .collect();
    messages.append(&batch).await?;
    let mut stored = Vec::with_capacity(batch.len());
    for m in &batch {
        let inbox = messages
            .read(&m.recipient_id, &ReplayFrom::EVERYTHING, now())
            .await?;
        stored.extend(inbox.messages.into_iter().last());
    }
    bench.reset();
    let records: Vec<Value> = stored
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
        "on-message-inserted, 100 records, 100 live recipients",
        "1 read, no writes (+100 posts)",
    );

    // Replay: 30 messages waiting for a player who was away.
    let waiting: Vec<NewMessage> = (0..30)
        .map(|i| NewMessage {
            message_id: MessageId::generate(now()),
            recipient_id: PlayerId::parse("alice").expect("valid id"),
            sender_id: "peer1".into(),
            kind: MessageKind::Chat,
            payload: json!({"type": "message", "n": i}).to_string(),
            created_at: now(),
            expire_at_secs: now() / 1000 + 3600,
        })
        .collect();
    messages.append(&waiting).await?;
    // She comes back on a new socket (a socket already live replays nothing without a
    // cursor: everything reached it).
    connect
        .handle(route_event("$connect", "alice", "c4", now(), None))
        .await?;
    bench.reset();
    resume
        .handle(route_event(
            "resume",
            "alice",
            "c4",
            now(),
            Some(&body("resume", json!({}))),
        ))
        .await?;
    bench.row(
        "resume, replaying 30 messages",
        "1 read + ceil((30 - 10) / 100) + 1 queries + 1 hand-over transaction (+30 posts, and the taken-over socket told and closed again)",
    );

    // Placement: request, conflict, refusal, the four outcomes, a duplicate, rejoin.
    let request = session_placement_request::SessionPlacementRequestHandler::new(
        config.clone(),
        players.clone(),
        players.clone(),
        placements.clone(),
        parties.clone(),
        gamelift.clone(),
        clock.clone(),
    );
    let cancel = cancel_placement::CancelPlacementHandler::new(
        players.clone(),
        placements.clone(),
        gamelift.clone(),
    );
    let rejoin = rejoin_session::RejoinSessionHandler::new(players.clone(), gamelift.clone());
    let on_event = on_placement_event::PlacementEventHandler::new(
        config.clone(),
        placements.clone(),
        outcomes.clone(),
        clock.clone(),
    );
    let place = |player: &str, connection: &str| {
        route_event(
            "sessionPlacementRequest",
            player,
            connection,
            now(),
            Some(&body("sessionPlacementRequest", json!({}))),
        )
    };
    let pending_of = |reply: aws_lambda_events::apigw::ApiGatewayProxyResponse| -> Result<PlacementId, lambda_runtime::Error> {
        let frame = shared::testing::events::reply_frame(&reply);
        let raw = frame["placementId"]
            .as_str()
            .ok_or_else(|| format!("no placementId in {frame}"))?;
        Ok(PlacementId::parse(raw)?)
    };
    bench.reset();
    let alice_placement = pending_of(request.handle(place("alice", "c3")).await?)?;
    bench.row(
        "sessionPlacementRequest",
        "1 rate-limit write (2 in a new minute) + 2 writes + 1 GameLift call",
    );
    request.handle(place("alice", "c3")).await?;
    bench.row(
        "sessionPlacementRequest while one is pending (conflict)",
        "1 rate-limit write + 1 write (+1 read: is the pending one still going?)",
    );
    let invoke = |event: Value| {
        let on_event = &on_event;
        async move {
            on_event
                .handle(LambdaEvent::new(event, lambda_runtime::Context::default()))
                .await
        }
    };
    let alice = vec!["alice".to_owned()];
    invoke(placement_event(
        &alice_placement,
        "PlacementFulfilled",
        &alice,
    ))
    .await?;
    bench.row(
        "placement event: FULFILLED, 1 player",
        "1 inbox head query per player + 1 transaction",
    );
    invoke(placement_event(
        &alice_placement,
        "PlacementFulfilled",
        &alice,
    ))
    .await?;
    bench.row(
        "placement event: the same FULFILLED again (duplicate)",
        "1 query + 1 transaction, cancelled by its condition",
    );
    rejoin
        .handle(route_event(
            "rejoinSession",
            "alice",
            "c3",
            now(),
            Some(&body("rejoinSession", json!({}))),
        ))
        .await?;
    bench.row("rejoinSession", "1 read + 1 write + 1 GameLift call");

    for p in [2usize, 8] {
        let group: Vec<String> = (0..p).map(|i| format!("peer{i}")).collect();
        let placement_id = PlacementId::new_at(now());
        let mut record = PlacementRecord::pending(
            placement_id.clone(),
            PlayerId::parse(group[0].clone()).expect("valid id"),
            "default-queue",
            now(),
        );
        record.player_ids = group
            .iter()
            .map(|p| PlayerId::parse(p.clone()).expect("valid id"))
            .collect();
        placements.create(&record).await?;
        bench.reset();
        invoke(placement_event(&placement_id, "PlacementFulfilled", &group)).await?;
        bench.row(
            &format!("placement event: FULFILLED, {p} players"),
            "P inbox head queries + 1 transaction of 1 + 2P items",
        );
    }

    let bob_placement = pending_of(request.handle(place("peer1", "p1")).await?)?;
    bench.reset();
    cancel
        .handle(route_event(
            "cancelPlacement",
            "peer1",
            "p1",
            now(),
            Some(&body("cancelPlacement", json!({}))),
        ))
        .await?;
    bench.row("cancelPlacement", "1 read + 1 GameLift call");
    invoke(placement_event(&bob_placement, "PlacementCancelled", &[])).await?;
    bench.row(
        "placement event: CANCELLED (TIMED_OUT, FAILED alike), 1 player",
        "1 read (the event names no players) + 1 query + 1 transaction",
    );

    gamelift.fail_next_start(GameLiftError::InvalidRequest {
        message: "no such region".into(),
    });
    request.handle(place("peer2", "p2")).await?;
    bench.row(
        "sessionPlacementRequest refused by GameLift",
        "4 writes (pending, record, FAILED, cleared) + 1 GameLift call",
    );

    party_rows(&mut bench, &client, &config, &endpoint).await?;

    println!("DynamoDB round trips per operation (endpoint {endpoint})\n");
    println!("| operation | DynamoDB calls | management API / GameLift calls | target |");
    println!("|---|---|---|---|");
    for (operation, calls, target) in &bench.rows {
        println!("| {operation} | {calls} | {target} |");
    }
    Ok(())
}

/// The party operations (docs/architecture.md#playing-in-parties), on tables of their own so that a
/// sweep finds only the party's members: a party of three (alice, bob, carol; dave and
/// erin on their own).
async fn party_rows(
    bench: &mut Bench,
    client: &aws_sdk_dynamodb::Client,
    base: &Config,
    endpoint: &str,
) -> Result<(), lambda_runtime::Error> {
    let suffix = SystemClock.now_millis();
    let mut config = base.clone();
    config.heartbeat_timeout = std::time::Duration::from_secs(7_200);
    config.players_table = format!("rt-party-players-{suffix}");
    config.messages_table = format!("rt-party-messages-{suffix}");
    config.placements_table = format!("rt-party-placements-{suffix}");
    config.parties_table = format!("rt-party-parties-{suffix}");
    create_players_table(client, &config.players_table).await?;
    create_messages_table(client, &config.messages_table).await?;
    create_placements_table(client, &config.placements_table).await?;
    create_parties_table(client, &config.parties_table).await?;
    let config = Arc::new(config);
    let players = Arc::new(DynamoPlayerStore::new(
        client.clone(),
        config.players_table.clone(),
    ));
    let messages = Arc::new(DynamoMessageStore::new(
        client.clone(),
        config.messages_table.clone(),
    ));
    let store: Arc<DynamoPartyStore> = Arc::new(DynamoPartyStore::new(
        client.clone(),
        config.parties_table.clone(),
        config.players_table.clone(),
        config.messages_table.clone(),
        config.presence_shards,
    ));
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let parties = || shared::party::Parties::new(store.clone(), clock.clone(), 86_400);
    let connect = ConnectHandler::new(
        config.clone(),
        players.clone(),
        bench.gateway.clone(),
        clock.clone(),
        Arc::new(shared::adapters::memory::InProcessEventBus::new()),
    );
    let party = party::PartyHandler::new(
        config.clone(),
        players.clone(),
        players.clone(),
        store.clone(),
        clock.clone(),
    );
    let send = SendMessageHandler::new(
        config.clone(),
        messages.clone(),
        players.clone(),
        players.clone(),
        store.clone(),
        clock.clone(),
    );
    let resume = ResumeHandler::new(
        players.clone(),
        messages.clone(),
        Arc::new(DynamoDeliveryHandover::new(
            client.clone(),
            config.players_table.clone(),
            config.messages_table.clone(),
        )),
        parties(),
        bench.gateway.clone(),
        clock.clone(),
    );
    let request = session_placement_request::SessionPlacementRequestHandler::new(
        config.clone(),
        players.clone(),
        players.clone(),
        Arc::new(DynamoPlacementStore::new(
            client.clone(),
            config.placements_table.clone(),
        )),
        store.clone(),
        bench.gamelift.clone(),
        clock.clone(),
    );
    let now = || SystemClock.now_millis();
    for name in ["alice", "bob", "carol", "dave", "erin"] {
        connect
            .handle(route_event(
                "$connect",
                name,
                &format!("c-{name}"),
                now(),
                None,
            ))
            .await?;
        // Every inbox has had a message: the rows show the usual append, not an epoch's.
        messages
            .append(&[NewMessage {
                message_id: MessageId::generate(now()),
                recipient_id: PlayerId::parse(name).expect("valid id"),
                sender_id: "system".into(),
                kind: MessageKind::Chat,
                payload: json!({"type": "message"}).to_string(),
                created_at: now(),
                expire_at_secs: now() / 1000 + 3600,
            }])
            .await?;
    }
    let ask = |player: &str, route: &str, body_json: Value| {
        route_event(
            route,
            player,
            &format!("c-{player}"),
            now(),
            Some(&body(route, body_json)),
        )
    };
    let frame = |reply: aws_lambda_events::apigw::ApiGatewayProxyResponse| {
        shared::testing::events::reply_frame(&reply)
    };
    bench.reset();

    let created = frame(party.handle(ask("alice", "createParty", json!({}))).await?);
    let party_id = created["party"]["partyId"]
        .as_str()
        .ok_or_else(|| format!("no party in {created}"))?
        .to_owned();
    bench.row(
        "createParty",
        "1 query + 1 transaction (party, link, 1 push)",
    );
    party
        .handle(ask("alice", "inviteToParty", json!({"playerId": "bob"})))
        .await?;
    bench.row(
        "inviteToParty",
        "1 rate-limit write (2 in a new minute) ‖ 1 read (the caller's party) + 1 read (the party) + 1 query + 1 transaction (party checked, invitation, invitee checked, 1 push)",
    );
    party
        .handle(ask("bob", "joinParty", json!({"partyId": party_id})))
        .await?;
    bench.row(
        "joinParty, the 2nd member",
        "1 read (party + invitation) + N queries + 1 transaction (party, invitation, link, N pushes)",
    );
    party
        .handle(ask("alice", "inviteToParty", json!({"playerId": "carol"})))
        .await?;
    party
        .handle(ask("alice", "inviteToParty", json!({"playerId": "dave"})))
        .await?;
    bench.reset();
    party
        .handle(ask("carol", "joinParty", json!({"partyId": party_id})))
        .await?;
    bench.row(
        "joinParty, the 3rd member",
        "1 read (party + invitation) + N queries + 1 transaction (party, invitation, link, N pushes)",
    );
    party
        .handle(ask(
            "dave",
            "declinePartyInvite",
            json!({"partyId": party_id}),
        ))
        .await?;
    bench.row(
        "declinePartyInvite",
        "1 read (party + invitation) + 1 query + 1 transaction (invitation, 1 push to the inviter)",
    );
    party
        .handle(ask("erin", "joinParty", json!({"partyId": party_id})))
        .await?;
    bench.row(
        "joinParty without an invitation (not_found)",
        "1 read, nothing written",
    );
    send.handle(ask(
        "bob",
        "sendMessage",
        json!({"partyId": party_id, "message": {"text": "gg"}}),
    ))
    .await?;
    bench.row(
        "sendMessage to a party of 3 (2 recipients)",
        "1 read (the party) + 1 rate-limit write + N-1 queries + N-1 conditional writes",
    );
    request
        .handle(ask(
            "bob",
            "setPlacementLatencies",
            json!({"latencies": {"eu-west-1": 30}}),
        ))
        .await?;
    bench.row("setPlacementLatencies", "1 write");
    request
        .handle(ask("bob", "sessionPlacementRequest", json!({})))
        .await?;
    bench.row(
        "sessionPlacementRequest by a member (forbidden)",
        "1 rate-limit write (2 in a new minute) + 1 failed write (its old item names the party) + 1 read (the party)",
    );
    request
        .handle(ask("alice", "sessionPlacementRequest", json!({})))
        .await?;
    bench.row(
        "sessionPlacementRequest by the leader of 3",
        "1 rate-limit write (2 in a new minute) + 1 failed write (names the party) + 1 read (the party) + 1 BatchGetItem (latencies) + 1 transaction (party checked, N pending) + 1 write (the record) + 1 GameLift call",
    );
    resume.handle(ask("carol", "resume", json!({}))).await?;
    bench.row(
        "resume, a party member online",
        "resume's (1 read + 1 query + 1 hand-over transaction) + 1 read (the party)",
    );
    party
        .handle(ask(
            "alice",
            "promotePartyLeader",
            json!({"playerId": "bob"}),
        ))
        .await?;
    bench.row(
        "promotePartyLeader, party of 3",
        "1 read (the caller's party) + 1 read (the party) + N queries + 1 transaction (party, N pushes)",
    );
    party
        .handle(ask("bob", "kickFromParty", json!({"playerId": "carol"})))
        .await?;
    bench.row(
        "kickFromParty, party of 3",
        "1 read + 1 read + N queries + 1 transaction (party, link removed, N pushes)",
    );
    party.handle(ask("bob", "leaveParty", json!({}))).await?;
    bench.row(
        "leaveParty, the leader (hand-over)",
        "1 read + 1 read + N queries + 1 transaction (party, link removed, N pushes)",
    );

    // The sweeper: alice (leading alice and erin) drops and is taken offline, her party
    // told; then she stays away too long and is removed. Nobody else times out (a
    // two-hour heartbeat timeout in this section).
    party
        .handle(ask("alice", "inviteToParty", json!({"playerId": "erin"})))
        .await?;
    party
        .handle(ask("erin", "joinParty", json!({"partyId": party_id})))
        .await?;
    DisconnectHandler::new(config.clone(), players.clone(), clock.clone())
        .handle(route_event("$disconnect", "alice", "c-alice", now(), None))
        .await?;
    let sweeper = presence_timeout::PresenceTimeoutHandler::new(
        config.clone(),
        players.clone(),
        bench.gateway.clone(),
        Arc::new(shared::adapters::memory::InProcessEventBus::new()),
        parties(),
        clock.clone(),
    );
    let past_grace = now() + i64::try_from(config.reconnect_grace.as_millis()).unwrap_or(0) + 1;
    let offline = i64::try_from(config.parties.offline.as_millis()).unwrap_or(0);
    bench.reset();
    sweeper.sweep_once(past_grace).await;
    bench.row(
        "sweep: a member of a party of 2 taken offline",
        "per shard 1 query (players) + 1 query (parties); 1 write (offline) + 1 read (the party) + N queries + 1 transaction (presence, N pushes)",
    );
    sweeper.sweep_once(past_grace + offline).await;
    bench.row(
        "sweep: that member removed after PARTY_OFFLINE_SECONDS",
        "per shard 1 query (players) + 1 query (parties); 1 read (the party) + N queries + 1 transaction (party, link removed, N pushes) + 1 read (nobody else due)",
    );
    let _ = endpoint;
    Ok(())
}
