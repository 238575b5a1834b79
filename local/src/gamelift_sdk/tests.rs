//! The endpoint over real sockets (ws:// and wss://), frames written and read with
//! `gamelift-server-protocol` as a game server's SDK would, against the simulator.

use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use gamelift_server_protocol::model::PlayerSessionCreationPolicy;
use gamelift_server_protocol::{
    AcceptPlayerSession, ActivateGameSession, ActivateServerProcess, ConnectQuery,
    DescribePlayerSessions, Empty, GetFleetRoleCredentials, HeartbeatServerProcess,
    RemovePlayerSession, Request, RequestFrame, StopMatchBackfill,
    UpdatePlayerSessionCreationPolicy,
};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use serde_json::Value;
use shared::domain::PlayerId;
use shared::ports::{GameLiftError, PlayerSessions};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::watch;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::{Error as WsError, Message};

use super::*;
use crate::console::feed::FeedKind;
use crate::gamelift::{
    DesiredPlayer, GameSessionStatus, GroupPlacementRequest, PlacementStatus, ServerState,
    SimulatorSettings, channel_sink,
};

mod backfill;

/// `player` starts matchmaking alone (ticket `ticket`) with `skill`, from the local region.
async fn search(flexmatch: &crate::flexmatch::FlexMatch, ticket: &str, player: &str, skill: f64) {
    use shared::matchmaking::{AttributeValue, MatchmakingPlayer, MatchmakingRequest, TicketId};
    use shared::ports::Matchmaker;
    flexmatch
        .start_matchmaking(&MatchmakingRequest {
            ticket_id: TicketId::parse(ticket).unwrap(),
            configuration: "default".into(),
            players: vec![MatchmakingPlayer {
                player_id: PlayerId::parse(player).unwrap(),
                attributes: [("skill".to_owned(), AttributeValue::Number(skill))].into(),
                latencies: vec![("local".into(), 20)],
            }],
        })
        .await
        .unwrap();
}

struct Harness {
    sim: Arc<Simulator>,
    hub: Arc<Hub>,
    running: RunningEndpoint,
    _events: tokio::sync::mpsc::UnboundedReceiver<Value>,
    _shutdown: watch::Sender<bool>,
}

impl Harness {
    async fn start(settings: SimulatorSettings) -> Self {
        let (sink, events) = channel_sink();
        let (sim, _task) = Simulator::start(settings, sink);
        let hub = Arc::new(Hub::new());
        let (shutdown, stop) = watch::channel(false);
        let running = start(
            IpAddr::V4(Ipv4Addr::LOCALHOST),
            (0, 0),
            sim.clone(),
            hub.clone(),
            stop,
        )
        .await
        .unwrap();
        Self {
            sim,
            hub,
            running,
            _events: events,
            _shutdown: shutdown,
        }
    }

    /// Only real processes; the activation timeout and queue timeout given.
    async fn real_only(activation: u64, queue: u64) -> Self {
        Self::start(SimulatorSettings {
            fleet_servers: 0,
            game_session_activation: Duration::from_secs(activation),
            queue_timeout: Duration::from_secs(queue),
            ..SimulatorSettings::default()
        })
        .await
    }

    fn endpoint(&self) -> &GameServerEndpoint {
        self.running.servers.endpoint()
    }

    /// The query a Go SDK sends for `pid`.
    fn query(&self, pid: &str) -> ConnectQuery {
        ConnectQuery {
            process_id: pid.into(),
            sdk_version: Some("5.6.0".into()),
            sdk_language: Some("Go".into()),
            compute_id: Some("host-1".into()),
            fleet_id: self.endpoint().fleet_id.clone(),
            idempotency_token: Some("idem-1".into()),
            authorization: Some(self.endpoint().auth_token.clone()),
            ..ConnectQuery::default()
        }
    }

    async fn connect(&self, pid: &str) -> Client<impl AsyncRead + AsyncWrite + Unpin> {
        let url = format!("{}/?{}", self.endpoint().ws_url, self.query(pid).encode());
        Client(tokio_tungstenite::connect_async(url).await.unwrap().0)
    }

    fn place(&self, id: &str, players: &[&str]) {
        self.sim
            .start_group_placement(GroupPlacementRequest {
                placement_id: contracts::fixtures::placement_id(id),
                queue: "default-queue".into(),
                max_players: 4,
                players: players
                    .iter()
                    .map(|p| DesiredPlayer {
                        player_id: PlayerId::parse(*p).unwrap(),
                        player_data: None,
                    })
                    .collect(),
                matchmaker_data: None,
            })
            .unwrap();
    }
}

struct Client<S>(WebSocketStream<S>);

impl<S: AsyncRead + AsyncWrite + Unpin> Client<S> {
    async fn send_text(&mut self, text: String) {
        self.0.send(Message::text(text)).await.unwrap();
    }

    /// Sends a request; its answer (the next frame that carries its RequestId: pushes
    /// in between are handed to `pushes`).
    async fn call(&mut self, id: &str, request: Request) -> Value {
        self.send_text(RequestFrame::new(id.into(), request).to_text())
            .await;
        self.next_answer(id).await
    }

    async fn next_answer(&mut self, id: &str) -> Value {
        loop {
            let frame = self.next().await;
            if frame["RequestId"] == id {
                return frame;
            }
            assert!(frame.get("RequestId").is_none(), "{frame}");
        }
    }

    /// The next text frame, within 5 s.
    async fn next(&mut self) -> Value {
        loop {
            let message = tokio::time::timeout(Duration::from_secs(5), self.0.next())
                .await
                .expect("a frame within 5 s")
                .expect("the socket is open")
                .unwrap();
            if let Message::Text(text) = message {
                return serde_json::from_str(text.as_str()).unwrap();
            }
        }
    }

    /// The next push with this Action (answers are skipped).
    async fn push(&mut self, action: &str) -> Value {
        loop {
            let frame = self.next().await;
            if frame["Action"] == action && frame.get("RequestId").is_none() {
                return frame;
            }
        }
    }
}

fn ok(answer: &Value, action: &str, id: &str) {
    assert_eq!(answer["StatusCode"], 200, "{answer}");
    assert_eq!(answer["Action"], action, "{answer}");
    assert_eq!(answer["RequestId"], id, "{answer}");
    assert!(answer.get("ErrorMessage").is_none(), "{answer}");
}

fn refused(answer: &Value, status: u16, says: &str) {
    assert_eq!(answer["StatusCode"], status, "{answer}");
    let message = answer["ErrorMessage"].as_str().unwrap_or_default();
    assert!(message.contains(says), "{says:?} not in {answer}");
}

fn activate(port: i32) -> Request {
    Request::ActivateServerProcess(ActivateServerProcess {
        sdk_version: Some("5.6.0".into()),
        sdk_language: Some("Go".into()),
        port,
        log_paths: Some(vec!["/tmp/game.log".into()]),
        ..ActivateServerProcess::default()
    })
}

fn heartbeat(healthy: bool) -> Request {
    Request::HeartbeatServerProcess(HeartbeatServerProcess {
        health_status: healthy,
    })
}

fn placement_status(h: &Harness) -> PlacementStatus {
    h.sim.snapshot().placements[0].status
}

#[tokio::test]
async fn given_a_go_sdks_game_server_when_it_plays_a_whole_game_then_every_action_is_answered() {
    let h = Harness::real_only(30, 60).await;
    let mut gs = h.connect("proc-1").await;
    ok(
        &gs.call("r1", activate(7777)).await,
        "ActivateServerProcess",
        "r1",
    );
    ok(
        &gs.call("r2", heartbeat(true)).await,
        "HeartbeatServerProcess",
        "r2",
    );
    let process = h.sim.snapshot().process("proc-1").cloned().unwrap();
    assert_eq!(
        (
            process.compute_id.as_str(),
            process.sdk_language.as_str(),
            process.sdk_version.as_str()
        ),
        ("host-1", "Go", "5.6.0")
    );
    assert!(process.last_heartbeat.is_some() && process.connected);

    h.place("p-1", &["alice", "bob"]);
    let create = gs.push("CreateGameSession").await;
    let arn = create["GameSessionId"].as_str().unwrap().to_owned();
    assert_eq!(create["Port"], 7777);
    assert_eq!(create["MaximumPlayerSessionCount"], 4);
    assert_eq!(create["IpAddress"], "127.0.0.1");
    assert_eq!(create["DnsName"], "localhost");
    assert_eq!(create["MatchmakerData"], "");
    assert_eq!(placement_status(&h), PlacementStatus::Pending);

    let activate_game = |id: &str| {
        Request::ActivateGameSession(ActivateGameSession {
            game_session_id: id.into(),
        })
    };
    ok(
        &gs.call("r3", activate_game(&arn)).await,
        "ActivateGameSession",
        "r3",
    );
    assert_eq!(placement_status(&h), PlacementStatus::Fulfilled);
    let seats = h.sim.snapshot();
    let alice = seats
        .player_sessions
        .iter()
        .find(|s| s.player_id == "alice")
        .unwrap();
    let alice = alice.player_session_id.clone();

    let accept = |id: &str| {
        Request::AcceptPlayerSession(AcceptPlayerSession {
            game_session_id: arn.clone(),
            player_session_id: id.into(),
        })
    };
    ok(
        &gs.call("r4", accept(&alice)).await,
        "AcceptPlayerSession",
        "r4",
    );
    refused(&gs.call("r5", accept(&alice)).await, 400, "not RESERVED");
    refused(
        &gs.call("r6", accept("psess-forged")).await,
        404,
        "psess-forged",
    );

    let describe = Request::DescribePlayerSessions(DescribePlayerSessions {
        game_session_id: Some(arn.clone()),
        limit: Some(1),
        ..DescribePlayerSessions::default()
    });
    let page = gs.call("r7", describe).await;
    ok(&page, "DescribePlayerSessions", "r7");
    assert_eq!(page["PlayerSessions"][0]["PlayerId"], "alice");
    assert_eq!(page["PlayerSessions"][0]["Status"], "ACTIVE");
    assert_eq!(page["PlayerSessions"][0]["FleetId"], "fleet-local");
    assert_eq!(page["NextToken"], "1");

    let remove = Request::RemovePlayerSession(RemovePlayerSession {
        game_session_id: arn.clone(),
        player_session_id: alice.clone(),
    });
    ok(&gs.call("r8", remove).await, "RemovePlayerSession", "r8");
    // The seat reopened: the backend's rejoin (CreatePlayerSession) seats alice again.
    let alice_id = PlayerId::parse("alice").unwrap();
    assert!(
        h.sim
            .create_player_session(&arn, &alice_id, None)
            .await
            .is_ok()
    );

    let deny = Request::UpdatePlayerSessionCreationPolicy(UpdatePlayerSessionCreationPolicy {
        game_session_id: arn.clone(),
        player_session_policy: PlayerSessionCreationPolicy::DenyAll,
    });
    ok(
        &gs.call("r9", deny).await,
        "UpdatePlayerSessionCreationPolicy",
        "r9",
    );
    let denied = h.sim.create_player_session(&arn, &alice_id, None).await;
    assert!(
        matches!(denied, Err(GameLiftError::SessionEnded { .. })),
        "{denied:?}"
    );

    let certificate = gs
        .call("r10", Request::GetComputeCertificate(Empty {}))
        .await;
    ok(&certificate, "GetComputeCertificate", "r10");
    assert_eq!(
        certificate["CertificatePath"],
        h.endpoint().certificate_path.display().to_string()
    );
    assert_eq!(certificate["ComputeName"], "host-1");
    let role = Request::GetFleetRoleCredentials(GetFleetRoleCredentials {
        role_arn: "arn:aws:iam::123456789012:role/game".into(),
        role_session_name: None,
    });
    refused(&gs.call("r11", role).await, 400, "no instance role");
    let stop = Request::StopMatchBackfill(StopMatchBackfill::default());
    refused(
        &gs.call("r12", stop).await,
        400,
        "matchmaking is not configured",
    );

    ok(
        &gs.call("r13", Request::TerminateServerProcess(Empty {}))
            .await,
        "TerminateServerProcess",
        "r13",
    );
    let snapshot = h.sim.snapshot();
    assert_eq!(
        snapshot.game_sessions[0].status,
        GameSessionStatus::Terminated
    );
    assert_eq!(
        snapshot.process("proc-1").unwrap().state,
        ServerState::Terminated
    );
    let after = h.sim.create_player_session(&arn, &alice_id, None).await;
    assert!(
        matches!(after, Err(GameLiftError::SessionEnded { .. })),
        "{after:?}"
    );
}

#[tokio::test]
async fn given_bad_frames_when_sent_then_each_is_answered_4xx_saying_which_and_in_the_feed() {
    let h = Harness::real_only(30, 60).await;
    let mut gs = h.connect("proc-1").await;
    // Before ProcessReady.
    refused(&gs.call("b1", heartbeat(true)).await, 400, "ProcessReady");
    gs.send_text("not json".into()).await;
    let answer = gs.next().await;
    refused(&answer, 400, "not JSON");
    assert_eq!(answer["RequestId"], "");
    gs.send_text(r#"{"Action":"Dance","RequestId":"b2"}"#.into())
        .await;
    let answer = gs.next_answer("b2").await;
    refused(&answer, 400, "unknown Action \"Dance\"");
    assert_eq!(answer["Action"], "Dance");
    gs.send_text(r#"{"Action":"AcceptPlayerSession","RequestId":"b3","GameSessionId":"g"}"#.into())
        .await;
    refused(&gs.next_answer("b3").await, 400, "PlayerSessionId");
    refused(&gs.call("b4", activate(0)).await, 400, "Port 0");
    let feed = h.hub.recent();
    let refusals: Vec<_> = feed
        .iter()
        .filter(|e| e.kind == FeedKind::GameServer && e.summary.contains(": 400"))
        .collect();
    assert_eq!(refusals.len(), 5, "{feed:?}");
}

#[tokio::test]
async fn given_bad_upgrades_then_each_is_refused_with_a_body_naming_what_is_expected() {
    let h = Harness::real_only(30, 60).await;
    let ws = &h.endpoint().ws_url;
    let mut other_fleet = h.query("p");
    other_fleet.fleet_id = "fleet-elsewhere".into();
    let mut bad_token = h.query("p");
    bad_token.authorization = Some("tok-forged".into());
    let mut no_token = h.query("p");
    no_token.authorization = None;
    for (query, status, says) in [
        ("FleetId=fleet-local".to_owned(), 400, "pID"),
        (other_fleet.encode(), 403, "expected FleetId=fleet-local"),
        (bad_token.encode(), 401, "GAMELIFT_SDK_AUTH_TOKEN"),
        (no_token.encode(), 401, "no Authorization"),
    ] {
        match tokio_tungstenite::connect_async(format!("{ws}/any/path?{query}")).await {
            Err(WsError::Http(response)) => {
                assert_eq!(response.status().as_u16(), status, "{query}");
                let body = String::from_utf8(response.body().clone().unwrap_or_default()).unwrap();
                assert!(body.contains(says), "{says:?} not in {body:?}");
            }
            other => panic!("{query}: expected a refusal, got {other:?}"),
        }
    }
    // SigV4 is accepted (its signature is not checked locally), on any path.
    let mut sigv4 = h.query("p");
    sigv4.authorization = Some("SigV4".into());
    let url = format!("{ws}/elsewhere?{}", sigv4.encode());
    assert!(tokio_tungstenite::connect_async(url).await.is_ok());
}

#[tokio::test]
async fn given_a_dropped_socket_when_the_pid_reconnects_then_it_keeps_its_game_without_activating_again()
 {
    let h = Harness::real_only(30, 60).await;
    let mut first = h.connect("proc-1").await;
    ok(
        &first.call("r1", activate(7777)).await,
        "ActivateServerProcess",
        "r1",
    );
    h.place("p-1", &["alice"]);
    let arn = first.push("CreateGameSession").await["GameSessionId"]
        .as_str()
        .unwrap()
        .to_owned();
    drop(first);
    let mut second = h.connect("proc-1").await;
    // No ActivateServerProcess again: the process is its pID.
    let activate_game = Request::ActivateGameSession(ActivateGameSession {
        game_session_id: arn,
    });
    ok(
        &second.call("r2", activate_game).await,
        "ActivateGameSession",
        "r2",
    );
    ok(
        &second.call("r3", heartbeat(true)).await,
        "HeartbeatServerProcess",
        "r3",
    );
    assert_eq!(placement_status(&h), PlacementStatus::Fulfilled);
    // Pushes follow the new socket.
    h.running.servers.terminate_process("proc-1").unwrap();
    let terminate = second.push("TerminateProcess").await;
    assert!(terminate["TerminationTime"].as_i64().unwrap() > crate::time::now_millis());
    assert!(h.sim.snapshot().process("proc-1").unwrap().connected);
}

#[tokio::test]
async fn given_three_missed_heartbeats_then_the_process_is_sent_terminate_process() {
    let h = Harness::start(SimulatorSettings {
        fleet_servers: 0,
        heartbeat_interval: Duration::from_millis(150),
        ..SimulatorSettings::default()
    })
    .await;
    let mut gs = h.connect("proc-1").await;
    ok(
        &gs.call("r1", activate(7777)).await,
        "ActivateServerProcess",
        "r1",
    );
    let terminate = gs.push("TerminateProcess").await;
    let in_five_minutes = crate::time::now_millis() + 300_000;
    let at = terminate["TerminationTime"].as_i64().unwrap();
    assert!((at - in_five_minutes).abs() < 5_000, "{terminate}");
    assert!(terminate.get("RequestId").is_none());
    assert!(!h.sim.snapshot().process("proc-1").unwrap().healthy);
}

#[tokio::test]
async fn given_a_game_server_that_never_activates_then_the_placement_retries_and_times_out() {
    let h = Harness::real_only(1, 3).await;
    let mut gs = h.connect("proc-1").await;
    ok(
        &gs.call("r1", activate(7777)).await,
        "ActivateServerProcess",
        "r1",
    );
    h.place("p-1", &["alice"]);
    let first = gs.push("CreateGameSession").await;
    assert_eq!(placement_status(&h), PlacementStatus::Pending);
    let second = gs.push("CreateGameSession").await;
    assert_ne!(first["GameSessionId"], second["GameSessionId"]);
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    assert_eq!(placement_status(&h), PlacementStatus::TimedOut);
}

#[tokio::test]
async fn given_refresh_connection_then_the_sdk_is_told_a_new_url_and_token_that_the_endpoint_accepts()
 {
    let h = Harness::real_only(30, 60).await;
    let mut gs = h.connect("proc-1").await;
    ok(
        &gs.call("r1", activate(7777)).await,
        "ActivateServerProcess",
        "r1",
    );
    h.running.servers.refresh_connection("proc-1").unwrap();
    let refresh = gs.push("RefreshConnection").await;
    let url = refresh["RefreshConnectionEndpoint"].as_str().unwrap();
    let token = refresh["AuthToken"].as_str().unwrap();
    assert_eq!(url, format!("{}/refreshed", h.endpoint().ws_url));
    let mut query = h.query("proc-1");
    query.authorization = Some(token.into());
    let (socket, _) = tokio_tungstenite::connect_async(format!("{url}?{}", query.encode()))
        .await
        .unwrap();
    let mut refreshed = Client(socket);
    ok(
        &refreshed.call("r2", heartbeat(true)).await,
        "HeartbeatServerProcess",
        "r2",
    );
}

#[tokio::test]
async fn given_the_generated_certificate_when_a_client_trusts_it_then_wss_serves_the_sdk() {
    let h = Harness::real_only(30, 60).await;
    let endpoint = h.endpoint();
    let mut roots = rustls::RootCertStore::empty();
    roots
        .add(CertificateDer::from_pem_file(&endpoint.certificate_path).unwrap())
        .unwrap();
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::aws_lc_rs::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_root_certificates(roots)
    .with_no_client_auth();
    let addr = endpoint.wss_url.trim_start_matches("wss://").to_owned();
    let tcp = tokio::net::TcpStream::connect(&addr).await.unwrap();
    let tls = tokio_rustls::TlsConnector::from(Arc::new(config))
        .connect(ServerName::try_from("127.0.0.1").unwrap(), tcp)
        .await
        .unwrap();
    let url = format!("{}/?{}", endpoint.wss_url, h.query("proc-tls").encode());
    let (socket, _) = tokio_tungstenite::client_async(url, tls).await.unwrap();
    let mut gs = Client(socket);
    ok(
        &gs.call("t1", activate(7777)).await,
        "ActivateServerProcess",
        "t1",
    );
    assert!(h.sim.snapshot().process("proc-tls").is_some());
}

/// One HTTP/1.1 request to the stack; the status and the JSON body.
async fn http(addr: SocketAddr, method: &str, path: &str) -> (u16, Value) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Content-Length: 2\r\nConnection: close\r\n\r\n{{}}"
    );
    tcp.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    tcp.read_to_string(&mut response).await.unwrap();
    let status = response[9..12].parse().unwrap();
    let body = response.split_once("\r\n\r\n").unwrap().1;
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

#[tokio::test]
async fn given_the_whole_stack_when_a_game_server_joins_then_the_console_shows_it_and_its_actions_reach_it()
 {
    let mut settings = crate::Settings::default();
    settings.gateway.port = 0;
    settings.simulator.sim_fleet_servers = 0;
    let stack = crate::start(settings).await.unwrap();
    let endpoint = stack.game_server_endpoint().clone();
    assert!(endpoint.ws_url.starts_with("ws://127.0.0.1:"));
    assert!(endpoint.wss_url.starts_with("wss://127.0.0.1:"));
    assert!(endpoint.certificate_path.exists());
    assert_eq!(endpoint.fleet_id, "fleet-local");
    let query = ConnectQuery {
        process_id: "proc-console".into(),
        sdk_language: Some("Go".into()),
        sdk_version: Some("5.6.0".into()),
        compute_id: Some(endpoint.host_id.clone()),
        fleet_id: endpoint.fleet_id.clone(),
        authorization: Some(endpoint.auth_token.clone()),
        ..ConnectQuery::default()
    };
    let url = format!("{}/?{}", endpoint.ws_url, query.encode());
    let mut gs = Client(tokio_tungstenite::connect_async(url).await.unwrap().0);
    ok(
        &gs.call("c1", activate(7777)).await,
        "ActivateServerProcess",
        "c1",
    );

    let addr = stack.addr();
    let (status, processes) = http(addr, "GET", "/console/api/processes").await;
    assert_eq!(status, 200);
    assert_eq!(processes[0]["processId"], "proc-console");
    assert_eq!(processes[0]["sdkLanguage"], "Go");
    assert_eq!(processes[0]["computeId"], "local-compute");
    assert_eq!(processes[0]["state"], "StandingBy");

    let (status, _) = http(
        addr,
        "POST",
        "/console/api/processes/proc-console/refresh-connection",
    )
    .await;
    assert_eq!(status, 200);
    assert!(gs.push("RefreshConnection").await["AuthToken"].is_string());
    let (status, _) = http(
        addr,
        "POST",
        "/console/api/processes/proc-console/terminate",
    )
    .await;
    assert_eq!(status, 200);
    gs.push("TerminateProcess").await;
    let (status, refused) = http(addr, "POST", "/console/api/processes/nobody/terminate").await;
    assert_eq!(
        (status, refused["error"].as_str()),
        (404, Some("not_found"))
    );
    let (_, feed) = http(addr, "GET", "/console/api/feed?kind=gameServer").await;
    assert!(feed.as_array().unwrap().len() >= 4, "{feed}");
    let pem = endpoint.certificate_path.clone();
    stack.shutdown().await;
    assert!(!pem.exists(), "the certificate file is removed on shutdown");
}

#[tokio::test]
async fn given_a_flexmatch_match_placed_on_a_game_server_then_create_game_session_carries_its_teams()
 {
    let h = Harness::real_only(30, 60).await;
    let settings = crate::flexmatch::FlexMatchSettings {
        rule_set: crate::flexmatch::rule_set::RuleSet::parse(include_str!(
            "../../rule-sets/duel.json"
        ))
        .unwrap(),
        configuration: "default".into(),
        acceptance_timeout: None,
        request_timeout: Duration::from_secs(120),
        queue: "default-queue".into(),
        region: "local".into(),
        account_id: "123456789012".into(),
    };
    let (rule, _events) = channel_sink();
    let (flexmatch, _task) = crate::flexmatch::FlexMatch::start(settings, h.sim.clone(), rule);
    let mut gs = h.connect("proc-1").await;
    ok(
        &gs.call("r1", activate(7777)).await,
        "ActivateServerProcess",
        "r1",
    );
    for (ticket, player, skill) in [("t-1", "alice", 1000.0), ("t-2", "bob", 1050.0)] {
        search(&flexmatch, ticket, player, skill).await;
    }
    let create = gs.push("CreateGameSession").await;
    let data = gamelift_server_protocol::model::MatchmakerData::parse(
        create["MatchmakerData"].as_str().unwrap(),
    )
    .unwrap()
    .expect("a FlexMatch game carries matchmaker data");
    assert_eq!(
        data.matchmaking_configuration_arn,
        "arn:aws:gamelift:local:123456789012:matchmakingconfiguration/default"
    );
    let mut teams: Vec<(String, Vec<String>)> = data
        .teams
        .iter()
        .map(|t| {
            (
                t.name.clone(),
                t.players.iter().map(|p| p.player_id.clone()).collect(),
            )
        })
        .collect();
    teams.sort();
    assert_eq!(teams.len(), 2, "{teams:?}");
    assert!(
        teams.iter().all(|(_, players)| players.len() == 1),
        "{teams:?}"
    );
    let alice = data
        .teams
        .iter()
        .flat_map(|t| &t.players)
        .find(|p| p.player_id == "alice")
        .unwrap();
    assert_eq!(
        alice.attributes["skill"],
        gamelift_server_protocol::model::MatchmakerAttribute::Double(1000.0)
    );
}
