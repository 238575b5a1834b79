//! The operations `round_trips` measures, in order, each set up so that it is the
//! operation a running stack sees most (a later message to an inbox that has one, a
//! sweep of players who are still heartbeating, ...). Set-up work is forgotten before
//! each measured operation (`Bench::reset`).

use std::sync::Arc;

use aws_adapters::dynamodb::{
    DynamoMessageStore, DynamoPlacementStore, create_messages_table, create_parties_table,
    create_placements_table, create_players_table, create_subscriptions_table,
};
use aws_lambda_events::apigw::ApiGatewayCustomAuthorizerRequestTypeRequest;
use aws_lambda_events::eventbridge::EventBridgeEvent;
use connect::ConnectHandler;
use contracts::events::{route_event, stream_insert};
use disconnect::DisconnectHandler;
use local::integration::dynamodb::DynamoDbUpdateItem;
use local::integration::{Integration, IntegrationRequest, MockIntegration, UpdateItemIntegration};
use on_message_inserted::{MessageInsertedHandler, StreamBatch};
use on_presence_event::PresenceEventHandler;
use resume::ResumeHandler;
use send_message::SendMessageHandler;
use serde_json::{Value, json};
use shared::config::Config;
use shared::domain::{MessageId, PlacementId, PlayerId};
use shared::messaging::{MessageKind, NewMessage, ReplayFrom};
use shared::placement::PlacementRecord;
use shared::ports::{GameLiftError, InboxReader, MessageStore, PlacementRecorder};
use shared::websocket::RouteHandler;
use shared::wiring::Wiring;
use subscribe_presence::SubscribePresenceHandler;

use crate::{Bench, body, lambda_event, now};

/// Tables, stores and handlers, built once.
pub struct World {
    client: aws_sdk_dynamodb::Client,
    config: Arc<Config>,
    messages: Arc<DynamoMessageStore>,
    placements: Arc<DynamoPlacementStore>,
    /// What the handlers measured here are built from (each by its function's `wire`).
    wiring: Wiring,
    connect: ConnectHandler,
    disconnect: DisconnectHandler,
    /// The heartbeat route: API Gateway's DynamoDB integration, from template.yaml.
    heartbeat: UpdateItemIntegration,
    /// The ping route: API Gateway's MOCK integration, from template.yaml.
    ping: MockIntegration,
    resume: ResumeHandler,
    send: SendMessageHandler,
    deliver: MessageInsertedHandler,
    subscribe: SubscribePresenceHandler,
    on_presence: PresenceEventHandler,
}

type Error = lambda_runtime::Error;

fn player(name: &str) -> PlayerId {
    PlayerId::parse(name).expect("valid id")
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

/// `events/presence-connected.json` about `player`.
fn presence_bus_event(player: &str) -> Result<EventBridgeEvent<Value>, Error> {
    let mut raw: Value =
        serde_json::from_str(include_str!("../../../../events/presence-connected.json"))?;
    raw["detail"]["playerId"] = json!(player);
    raw["detail"]["at"] = json!(now());
    Ok(serde_json::from_value(raw)?)
}

fn schedule_event() -> Result<EventBridgeEvent<Value>, Error> {
    Ok(serde_json::from_str(include_str!(
        "../../../../events/schedule-presence-timeout.json"
    ))?)
}

impl World {
    pub async fn create(client: &aws_sdk_dynamodb::Client, bench: &Bench) -> Result<Self, Error> {
        let suffix = now();
        let mut config = Config::for_local("Development");
        config.players_table = format!("rt-players-{suffix}");
        config.messages_table = format!("rt-messages-{suffix}");
        config.placements_table = format!("rt-placements-{suffix}");
        config.subscriptions_table = format!("rt-subscriptions-{suffix}");
        config.parties_table = format!("rt-parties-{suffix}");
        create_parties_table(client, &config.parties_table).await?;
        create_players_table(client, &config.players_table).await?;
        create_messages_table(client, &config.messages_table).await?;
        create_placements_table(client, &config.placements_table).await?;
        create_subscriptions_table(client, &config.subscriptions_table).await?;
        let config = Arc::new(config);
        let messages = Arc::new(DynamoMessageStore::new(
            client.clone(),
            config.messages_table.clone(),
        ));
        let placements = Arc::new(DynamoPlacementStore::new(
            client.clone(),
            config.placements_table.clone(),
        ));
        let w = bench.wiring(client, config.clone());
        Ok(Self {
            connect: connect::wire(&w),
            disconnect: disconnect::wire(&w),
            heartbeat: UpdateItemIntegration::from_template(
                &local::template::parse(local::template::TEMPLATE_YAML)?,
                "heartbeat",
                &[
                    ("PlayersTable", config.players_table.as_str()),
                    (
                        "HeartbeatTimeoutSeconds",
                        config.heartbeat_timeout.as_secs().to_string().as_str(),
                    ),
                ],
                Arc::new(DynamoDbUpdateItem::new(client.clone())),
            )?,
            ping: MockIntegration::from_template(
                &local::template::parse(local::template::TEMPLATE_YAML)?,
                "ping",
            )?,
            resume: resume::wire(&w),
            send: send_message::wire(&w),
            deliver: on_message_inserted::wire(&w),
            subscribe: subscribe_presence::wire(&w),
            on_presence: on_presence_event::wire(&w),
            client: client.clone(),
            config,
            messages,
            placements,
            wiring: w,
        })
    }

    /// Connects and resumes `name` on `connection` (set-up, not measured).
    async fn live(&self, bench: &mut Bench, name: &str, connection: &str) -> Result<(), Error> {
        bench
            .route(
                self.connect
                    .handle(route_event("$connect", name, connection, now(), None)),
            )
            .await?;
        bench
            .route(self.resume.handle(route_event(
                "resume",
                name,
                connection,
                now(),
                Some(&body("resume", json!({}))),
            )))
            .await?;
        Ok(())
    }

    pub async fn run(&self, bench: &mut Bench) -> Result<(), Error> {
        bench.reset();
        self.connections(bench).await?;
        self.messaging(bench).await?;
        self.placement(bench).await?;
        self.presence(bench).await?;
        Ok(())
    }

    async fn connections(&self, bench: &mut Bench) -> Result<(), Error> {
        let authorizer = authorizer::Authorizer::new(
            authorizer::AuthConfig::Header,
            Arc::new(authorizer::StaticJwks::empty()),
        );
        let request: ApiGatewayCustomAuthorizerRequestTypeRequest = serde_json::from_str(
            include_str!("../../../../events/authorizer-header-mode.json"),
        )?;
        bench
            .invoke(authorizer.handle(lambda_event(request)))
            .await?;
        bench.row(
            "authorizer",
            "$connect authorizer (header mode)",
            "no storage",
        );
        let connect = |connection: &str| {
            self.connect
                .handle(route_event("$connect", "alice", connection, now(), None))
        };
        bench.route(connect("c1")).await?;
        bench.row("connect_new_session", "$connect, new session", "1 write");
        bench.route(connect("c2")).await?;
        bench.row(
            "connect_takeover",
            "$connect, takeover",
            "1 write (+1 DeleteConnection)",
        );
        let request = IntegrationRequest {
            connection_id: "c2".into(),
            route_key: "heartbeat".into(),
            stage: "Development".into(),
            domain_name: "abcdef1234.execute-api.us-east-1.amazonaws.com".into(),
            api_id: "abcdef1234".into(),
            request_id: "Kx8bNFq-IAMFZ3g=".into(),
            message_id: "Kx8cDdf1IAMCJzQ=".into(),
            request_time_epoch: now(),
            connected_at: now(),
            authorizer: serde_json::Map::from_iter([("playerId".to_owned(), json!("alice"))]),
        };
        let heartbeat = |frame: Value| {
            let request = IntegrationRequest {
                request_time_epoch: now(),
                ..request.clone()
            };
            async move { self.heartbeat.handle(&frame.to_string(), &request).await }
        };
        bench
            .integration(heartbeat(json!({"route": "heartbeat"})))
            .await;
        bench.row(
            "heartbeat",
            "heartbeat (API Gateway's DynamoDB integration, no Lambda)",
            "1 write, no reply",
        );
        bench
            .integration(heartbeat(
                json!({"route": "heartbeat", "requestId": "h-1", "body": {"cursor": 42}}),
            ))
            .await;
        bench.row(
            "heartbeat_with_cursor",
            "heartbeat with a cursor and a requestId",
            "1 write (the same one), the ack",
        );
        // A ping: the MOCK integration renders its request template and nothing else
        // (the frame still marks the socket active, which GetConnection reports).
        let ping_request = IntegrationRequest {
            route_key: "ping".into(),
            request_time_epoch: now(),
            ..request.clone()
        };
        bench
            .integration(self.ping.handle(r#"{"route":"ping"}"#, &ping_request))
            .await;
        bench.row(
            "ping",
            "ping (API Gateway's MOCK integration, one-way: no Lambda, no DynamoDB, no reply)",
            "the inbound message only",
        );
        bench
            .route(
                self.disconnect
                    .handle(route_event("$disconnect", "alice", "c2", now(), None)),
            )
            .await?;
        bench.row("disconnect", "$disconnect", "1 write");
        bench.route(connect("c3")).await?;
        bench.row(
            "connect_resume_within_grace",
            "$connect, resume within grace",
            "1 write",
        );
        bench
            .route(self.resume.handle(route_event(
                "resume",
                "alice",
                "c3",
                now(),
                Some(&body("resume", json!({}))),
            )))
            .await?;
        bench.row(
            "resume_nothing_pending",
            "resume, nothing pending",
            "1 read + 1 query + 1 hand-over transaction",
        );
        Ok(())
    }

    async fn messaging(&self, bench: &mut Bench) -> Result<(), Error> {
        // The recipients have connected once (messages go only to known players).
        for n in [1usize, 25, 100] {
            for i in 0..n {
                let name = format!("peer{n}-{i}");
                bench
                    .route(
                        self.connect
                            .handle(route_event("$connect", &name, &name, now(), None)),
                    )
                    .await?;
            }
        }
        bench.reset();
        for (round, suffix) in [
            ("first message to each inbox", "_first"),
            ("later messages", ""),
        ] {
            for n in [1usize, 25, 100] {
                let ids: Vec<String> = (0..n).map(|i| format!("peer{n}-{i}")).collect();
                bench
                    .route(self.send.handle(route_event(
                        "sendMessage",
                        "alice",
                        "c3",
                        now(),
                        Some(&body(
                            "sendMessage",
                            json!({"playerIds": ids, "message": {"hi": 1}}),
                        )),
                    )))
                    .await?;
                let floor = if suffix.is_empty() {
                    "1 rate-limit write + ceil(N / 100) BatchGetItem + N queries + N conditional writes"
                } else {
                    "1 rate-limit write (2 in a new minute) + ceil(N / 100) BatchGetItem + N queries + N transactions (the epoch item with the message)"
                };
                bench.row(
                    &format!("send_message_{n}{suffix}"),
                    &format!("sendMessage to {n}, {round}"),
                    floor,
                );
            }
        }

        // Refusals: over a limit, and an id nobody has.
        let mut strict = (*self.config).clone();
        strict.rate_limits.messages_per_minute = 1;
        let strict_send = send_message::wire(&Wiring {
            config: Arc::new(strict),
            ..self.wiring.clone()
        });
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
        bench.route(strict_send.handle(to_peer())).await?;
        bench.row(
            "send_message_rate_limited",
            "sendMessage over the rate limit (rate_limited)",
            "1 failed conditional write (its old item says why) + 1 BatchGetItem, nothing stored",
        );
        bench
            .route(self.send.handle(route_event(
                "sendMessage",
                "alice",
                "c3",
                now(),
                Some(&body(
                    "sendMessage",
                    json!({"playerIds": ["peer1-0", "nobody"], "message": {"hi": 1}}),
                )),
            )))
            .await?;
        bench.row(
            "send_message_not_found",
            "sendMessage to an id nobody has (not_found)",
            "1 rate-limit write + 1 BatchGetItem, nothing stored",
        );

        // Delivery: 100 recipients live (connected and resumed), one message each.
        for i in 0..100 {
            self.live(bench, &format!("peer{i}"), &format!("p{i}"))
                .await?;
        }
        let batch: Vec<NewMessage> = (0..100)
            .map(|i| NewMessage {
                message_id: MessageId::generate(now()),
                recipient_id: player(&format!("peer{i}")),
                sender_id: "alice".into(),
                kind: MessageKind::Chat,
                payload: json!({"type": "message", "n": i}).to_string(),
                created_at: now(),
                expire_at_secs: now() / 1000 + 3600,
            })
            .collect();
        self.messages.append(&batch).await?;
        let mut stored = Vec::with_capacity(batch.len());
        for m in &batch {
            let inbox = self
                .messages
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
        let one: StreamBatch = serde_json::from_value(json!({"Records": [records[0].clone()]}))?;
        bench.invoke(self.deliver.handle(lambda_event(one))).await?;
        bench.row(
            "deliver_1",
            "on-message-inserted, 1 record, 1 live recipient",
            "1 read, no writes (+1 post)",
        );
        let all: StreamBatch = serde_json::from_value(json!({"Records": records}))?;
        bench.invoke(self.deliver.handle(lambda_event(all))).await?;
        bench.row(
            "deliver_100",
            "on-message-inserted, 100 records, 100 live recipients",
            "1 read, no writes (+100 posts)",
        );

        // Replay: 30 messages waiting for a player who was away.
        let waiting: Vec<NewMessage> = (0..30)
            .map(|i| NewMessage {
                message_id: MessageId::generate(now()),
                recipient_id: player("alice"),
                sender_id: "peer1".into(),
                kind: MessageKind::Chat,
                payload: json!({"type": "message", "n": i}).to_string(),
                created_at: now(),
                expire_at_secs: now() / 1000 + 3600,
            })
            .collect();
        self.messages.append(&waiting).await?;
        // She comes back on a new socket (a socket already live replays nothing without a
        // cursor: everything reached it).
        self.connect
            .handle(route_event("$connect", "alice", "c4", now(), None))
            .await?;
        bench.reset();
        bench
            .route(self.resume.handle(route_event(
                "resume",
                "alice",
                "c4",
                now(),
                Some(&body("resume", json!({}))),
            )))
            .await?;
        bench.row(
            "resume_replay_30",
            "resume, replaying 30 messages",
            "1 read + ceil((30 - 10) / 100) + 1 queries + 1 hand-over transaction (+30 posts, and the taken-over socket told and closed again)",
        );
        Ok(())
    }

    async fn placement(&self, bench: &mut Bench) -> Result<(), Error> {
        let gamelift = bench.gamelift.clone();
        let request = session_placement_request::wire(&self.wiring);
        let cancel = cancel_placement::wire(&self.wiring);
        let rejoin = rejoin_session::wire(&self.wiring);
        let on_event = on_placement_event::wire(&self.wiring);
        let place = |player: &str, connection: &str| {
            route_event(
                "sessionPlacementRequest",
                player,
                connection,
                now(),
                Some(&body("sessionPlacementRequest", json!({}))),
            )
        };
        let pending_of = |reply: aws_lambda_events::apigw::ApiGatewayProxyResponse| -> Result<PlacementId, Error> {
            let frame = contracts::events::reply_frame(&reply);
            let raw = frame["placementId"]
                .as_str()
                .ok_or_else(|| format!("no placementId in {frame}"))?;
            Ok(PlacementId::parse(raw)?)
        };
        bench.reset();
        let alice_placement = pending_of(bench.route(request.handle(place("alice", "c3"))).await?)?;
        bench.row(
            "session_placement_request",
            "sessionPlacementRequest",
            "1 rate-limit write (2 in a new minute) + 2 writes + 1 GameLift call",
        );
        bench.route(request.handle(place("alice", "c3"))).await?;
        bench.row(
            "session_placement_conflict",
            "sessionPlacementRequest while one is pending (conflict)",
            "1 rate-limit write + 1 write (+1 read: is the pending one still going?)",
        );
        let alice = vec!["alice".to_owned()];
        let fulfilled = placement_event(&alice_placement, "PlacementFulfilled", &alice);
        bench
            .invoke(on_event.handle(lambda_event(fulfilled.clone())))
            .await?;
        bench.row(
            "placement_fulfilled_1",
            "placement event: FULFILLED, 1 player",
            "1 inbox head query per player + 1 transaction",
        );
        bench
            .invoke(on_event.handle(lambda_event(fulfilled)))
            .await?;
        bench.row(
            "placement_duplicate",
            "placement event: the same FULFILLED again (duplicate)",
            "1 query + 1 transaction, cancelled by its condition",
        );
        bench
            .route(rejoin.handle(route_event(
                "rejoinSession",
                "alice",
                "c3",
                now(),
                Some(&body("rejoinSession", json!({}))),
            )))
            .await?;
        bench.row(
            "rejoin_session",
            "rejoinSession",
            "1 read + 1 write + 1 GameLift call",
        );

        for p in [2usize, 8] {
            let group: Vec<String> = (0..p).map(|i| format!("peer{i}")).collect();
            let placement_id = PlacementId::new_at(now());
            let mut record = PlacementRecord::pending(
                placement_id.clone(),
                player(&group[0]),
                "default-queue",
                now(),
            );
            record.player_ids = group.iter().map(|p| player(p)).collect();
            self.placements.create(&record).await?;
            bench.reset();
            let event = placement_event(&placement_id, "PlacementFulfilled", &group);
            bench.invoke(on_event.handle(lambda_event(event))).await?;
            bench.row(
                &format!("placement_fulfilled_{p}"),
                &format!("placement event: FULFILLED, {p} players"),
                "P inbox head queries + 1 transaction of 1 + 2P items",
            );
        }

        let bob_placement = pending_of(request.handle(place("peer1", "p1")).await?)?;
        bench.reset();
        bench
            .route(cancel.handle(route_event(
                "cancelPlacement",
                "peer1",
                "p1",
                now(),
                Some(&body("cancelPlacement", json!({}))),
            )))
            .await?;
        bench.row(
            "cancel_placement",
            "cancelPlacement",
            "1 read + 1 GameLift call",
        );
        let cancelled = placement_event(&bob_placement, "PlacementCancelled", &[]);
        bench
            .invoke(on_event.handle(lambda_event(cancelled)))
            .await?;
        bench.row(
            "placement_cancelled_1",
            "placement event: CANCELLED (TIMED_OUT, FAILED alike), 1 player",
            "1 read (the event names no players) + 1 query + 1 transaction",
        );

        gamelift.fail_next_start(GameLiftError::InvalidRequest {
            message: "no such region".into(),
        });
        bench.route(request.handle(place("peer2", "p2"))).await?;
        bench.row(
            "placement_refused",
            "sessionPlacementRequest refused by GameLift",
            "4 writes (pending, record, FAILED, cleared) + 1 GameLift call",
        );
        Ok(())
    }

    async fn presence(&self, bench: &mut Bench) -> Result<(), Error> {
        // Ten watchers of "star" (live, so their presence frames are delivered).
        let watchers: Vec<String> = (0..10).map(|i| format!("fan{i}")).collect();
        for (i, fan) in watchers.iter().enumerate() {
            self.live(bench, fan, &format!("f{i}")).await?;
        }
        let targets: Vec<String> = (0..10).map(|i| format!("friend{i}")).collect();
        bench.reset();
        bench
            .route(self.subscribe.handle(route_event(
                "subscribePresence",
                "fan0",
                "f0",
                now(),
                Some(&body("subscribePresence", json!({"playerIds": targets}))),
            )))
            .await?;
        bench.row(
            "subscribe_presence_10",
            "subscribePresence to 10 players",
            "1 BatchWriteItem + 1 BatchGetItem (their presence)",
        );
        for (i, fan) in watchers.iter().enumerate() {
            self.subscribe
                .handle(route_event(
                    "subscribePresence",
                    fan,
                    &format!("f{i}"),
                    now(),
                    Some(&body("subscribePresence", json!({"playerIds": ["star"]}))),
                ))
                .await?;
        }
        bench.reset();
        bench
            .invoke(
                self.on_presence
                    .handle(lambda_event(presence_bus_event("nobody-watches")?)),
            )
            .await?;
        bench.row(
            "presence_event_no_watchers",
            "presence event, nobody watching",
            "1 query",
        );
        bench
            .invoke(
                self.on_presence
                    .handle(lambda_event(presence_bus_event("star")?)),
            )
            .await?;
        bench.row(
            "presence_event_10_watchers_first",
            "presence event, 10 watchers, first message to each inbox",
            "1 query + 10 appends (each starts its inbox: a two-item transaction)",
        );
        bench
            .invoke(
                self.on_presence
                    .handle(lambda_event(presence_bus_event("star")?)),
            )
            .await?;
        bench.row(
            "presence_event_10_watchers",
            "presence event, 10 watchers, later messages",
            "1 query + 10 appends (a query and a conditional write each)",
        );
        self.sweeps(bench).await
    }

    /// The sweeper on a Players table of its own: empty, then 100 players heartbeating,
    /// then those 100 silent past the timeout.
    async fn sweeps(&self, bench: &mut Bench) -> Result<(), Error> {
        let table = format!("{}-sweep", self.config.players_table);
        create_players_table(&self.client, &table).await?;
        let mut config = (*self.config).clone();
        config.players_table = table.clone();
        // The mode that asks API Gateway: its rows are a superset of heartbeat mode's
        // (sweep_100_silent's GetConnection calls are the difference).
        config.presence_liveness = shared::config::PresenceLiveness::ConnectionActivity;
        let config = Arc::new(config);
        // Nobody swept here is in a party: the parties index is queried once per shard.
        let w = bench.wiring(&self.client, config.clone());
        let sweeper = presence_timeout::wire(&w);
        bench.reset();
        bench
            .invoke(sweeper.handle(lambda_event(schedule_event()?)))
            .await?;
        bench.row(
            "sweep_empty",
            "presence-timeout run, nobody online",
            "1 query per shard",
        );
        let connect = connect::wire(&w);
        for i in 0..100 {
            let name = format!("swept{i}");
            connect
                .handle(route_event("$connect", &name, &name, now(), None))
                .await?;
        }
        bench.reset();
        bench
            .invoke(sweeper.handle(lambda_event(schedule_event()?)))
            .await?;
        bench.row(
            "sweep_100_online",
            "presence-timeout run, 100 players online and heartbeating",
            "1 query per shard",
        );
        // Their sessions end: each closes, and the sweeper retires it after the grace.
        let disconnect = disconnect::wire(&w);
        for i in 0..100 {
            let name = format!("swept{i}");
            disconnect
                .handle(route_event("$disconnect", &name, &name, now(), None))
                .await?;
        }
        let after_grace = now() + config.reconnect_grace.as_millis() as i64 + 1_000;
        bench.reset();
        bench
            .invoke(async { Ok::<_, Error>(sweeper.sweep_once(after_grace).await) })
            .await?;
        bench.row(
            "sweep_100_grace_over",
            "presence-timeout run, 100 sessions ended (closed, grace over)",
            "1 query per shard + 1 write per player (+ 1 PutEvents per 10)",
        );
        for i in 0..100 {
            let name = format!("silent{i}");
            connect
                .handle(route_event("$connect", &name, &name, now(), None))
                .await?;
        }
        let later = now() + config.heartbeat_timeout.as_millis() as i64 + 1_000;
        bench.reset();
        bench
            .invoke(async { Ok::<_, Error>(sweeper.sweep_once(later).await) })
            .await?;
        bench.row(
            "sweep_100_silent",
            "presence-timeout run, 100 players silent past the timeout (zombies)",
            "1 query per shard + 1 GetConnection + 1 write per player (+ close, + 1 PutEvents per 10)",
        );
        // 100 players past their deadline who ping: no cursor heartbeat moved `sweepAt`,
        // but API Gateway saw each socket a second before the sweep (GetConnection's
        // `lastActiveAt`), so each stays online and nothing is written.
        let later = now() + config.heartbeat_timeout.as_millis() as i64 + 1_000;
        for i in 0..100 {
            let name = format!("pinging{i}");
            connect
                .handle(route_event("$connect", &name, &name, now(), None))
                .await?;
            bench.gateway.set_last_active(&name, later - 1_000);
        }
        bench.reset();
        let summary = bench
            .invoke(async { Ok::<_, Error>(sweeper.sweep_once(later).await) })
            .await?;
        if summary.still_active != 100 || summary.swept != 0 {
            return Err(
                format!("the pinging players were not all left online: {summary:?}").into(),
            );
        }
        bench.row(
            "sweep_100_pinging",
            "presence-timeout run, 100 players online past their deadline who ping",
            "1 query per shard + 1 GetConnection per player, no writes",
        );
        Ok(())
    }
}
