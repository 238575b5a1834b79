//! The simulator over simulated time (`start_paused`): every lifecycle in milliseconds.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::mpsc::UnboundedReceiver;
use tokio::task::JoinHandle;
use tokio::time::sleep;

use super::*;
use contracts::fixtures::placement_id;

mod connections;
mod processes;

const QUEUE: &str = "default-queue";

fn player(id: &str) -> PlayerId {
    PlayerId::parse(id).unwrap()
}

fn request(id: &str, player_id: &str) -> PlacementRequest {
    PlacementRequest {
        placement_id: placement_id(id),
        queue: QUEUE.into(),
        max_players: 8,
        player_id: player(player_id),
        player_data: None,
        latencies: vec![("local".into(), 20)],
        party: Vec::new(),
    }
}

struct Harness {
    sim: Arc<Simulator>,
    events: UnboundedReceiver<Value>,
    task: JoinHandle<()>,
}

impl Harness {
    fn start(settings: SimulatorSettings) -> Self {
        let (sink, events) = channel_sink();
        let (sim, task) = Simulator::start(settings, sink);
        Self { sim, events, task }
    }

    /// Default settings: 2 servers, start-up 2 s, shutdown 0.5 s, placement 0.5 s,
    /// queue 60 s, games 600 s.
    fn demo() -> Self {
        Self::start(SimulatorSettings::default())
    }

    /// Lets the driver and the delivery catch up with the current instant, then takes
    /// every SNS event delivered so far.
    async fn delivered(&mut self) -> Vec<Value> {
        self.sim.snapshot();
        for _ in 0..20 {
            tokio::task::yield_now().await;
        }
        let mut out = Vec::new();
        while let Ok(event) = self.events.try_recv() {
            out.push(event);
        }
        out
    }

    /// The GameLift events delivered so far (each SNS record's `Message`, parsed).
    async fn placement_events(&mut self) -> Vec<Value> {
        self.delivered().await.iter().map(message).collect()
    }

    fn states(&self) -> Vec<ServerState> {
        self.sim.snapshot().server_states()
    }
}

/// The GameLift event inside an SNS Lambda event (exactly one record).
fn message(sns_event: &Value) -> Value {
    let records = sns_event["Records"].as_array().expect("Records");
    assert_eq!(records.len(), 1);
    let text = records[0]["Sns"]["Message"]
        .as_str()
        .expect("Message is a string");
    serde_json::from_str(text).expect("Message is JSON")
}

/// Epoch milliseconds of `2021-03-01T15:50:49.741Z`.
fn millis(iso: &str) -> i64 {
    let (date, time) = iso.trim_end_matches('Z').split_once('T').unwrap();
    let d: Vec<i64> = date.split('-').map(|p| p.parse().unwrap()).collect();
    let (hms, ms) = time.split_once('.').unwrap_or((time, "0"));
    let t: Vec<i64> = hms.split(':').map(|p| p.parse().unwrap()).collect();
    let (y, m) = if d[1] <= 2 {
        (d[0] - 1, d[1] + 9)
    } else {
        (d[0], d[1] - 3)
    };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * m + 2) / 5 + d[2] - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    ((days * 24 + t[0]) * 60 + t[1]) * 60_000 + t[2] * 1000 + ms.parse::<i64>().unwrap()
}

fn elapsed(event: &Value) -> i64 {
    millis(event["detail"]["endTime"].as_str().unwrap())
        - millis(event["detail"]["startTime"].as_str().unwrap())
}

#[tokio::test(start_paused = true)]
async fn a_placement_is_fulfilled_after_the_delay_with_gamelift_s_exact_event() {
    let mut h = Harness::demo();
    sleep(Duration::from_secs(2)).await; // servers StandingBy
    h.sim
        .start_placement(&request("p-1", "alice"))
        .await
        .unwrap();
    assert_eq!(
        h.sim
            .snapshot()
            .placement(&placement_id("p-1"))
            .unwrap()
            .status,
        PlacementStatus::Pending
    );

    sleep(Duration::from_millis(499)).await;
    assert!(
        h.delivered().await.is_empty(),
        "not before the placement delay"
    );

    sleep(Duration::from_millis(1)).await;
    let delivered = h.delivered().await;
    assert_eq!(delivered.len(), 1);
    let sns = &delivered[0];

    // The SNS envelope Lambda receives.
    let record = &sns["Records"][0];
    assert_eq!(record["EventSource"], "aws:sns");
    assert_eq!(record["EventVersion"], "1.0");
    assert!(
        record["EventSubscriptionArn"]
            .as_str()
            .unwrap()
            .starts_with("arn:aws:sns:local:123456789012:gamelift-placement-events:")
    );
    let envelope = &record["Sns"];
    assert_eq!(envelope["Type"], "Notification");
    assert_eq!(
        envelope["TopicArn"],
        "arn:aws:sns:local:123456789012:gamelift-placement-events"
    );
    assert_eq!(envelope["Subject"], Value::Null);
    assert_eq!(envelope["SignatureVersion"], "1");
    assert_eq!(envelope["MessageAttributes"], json!({}));
    for field in [
        "MessageId",
        "Timestamp",
        "Signature",
        "SigningCertUrl",
        "UnsubscribeUrl",
    ] {
        assert!(envelope[field].is_string(), "{field}");
    }

    // The GameLift event in it.
    let event = message(sns);
    let snapshot = h.sim.snapshot();
    let game = &snapshot.game_sessions[0];
    let session = &snapshot.player_sessions[0];
    assert_eq!(session.player_id, "alice");
    assert!(session.player_session_id.starts_with("psess-"));
    assert!(
        game.game_session_arn
            .starts_with("arn:aws:gamelift:local::gamesession/fleet-local/")
    );
    let mut expected = json!({
        "version": "0",
        "id": event["id"],
        "detail-type": "GameLift Queue Placement Event",
        "source": "aws.gamelift",
        "account": "123456789012",
        "time": event["time"],
        "region": "local",
        "resources": ["arn:aws:gamelift:local:123456789012:gamesessionqueue/default-queue"],
        "detail": {
            "type": "PlacementFulfilled",
            "placementId": "p-1",
            "port": "7777",
            "gameSessionArn": game.game_session_arn,
            "ipAddress": "127.0.0.1",
            "dnsName": "localhost",
            "startTime": event["detail"]["startTime"],
            "endTime": event["detail"]["endTime"],
            "gameSessionRegion": "local",
            "placedPlayerSessions": [
                {"playerId": "alice", "playerSessionId": session.player_session_id}
            ]
        }
    });
    assert_eq!(event, expected);
    expected["detail"]["port"] = json!(7777);
    assert_ne!(event, expected, "the port is a string, not a number");
    assert_eq!(elapsed(&event), 500);
    assert_eq!(
        millis(envelope["Timestamp"].as_str().unwrap()),
        millis(event["detail"]["endTime"].as_str().unwrap())
    );
    // `time` has whole seconds.
    let time = event["time"].as_str().unwrap();
    assert_eq!(time.len(), "2021-03-01T15:50:52Z".len());
    assert_eq!(
        millis(time) / 1000,
        millis(event["detail"]["endTime"].as_str().unwrap()) / 1000
    );

    assert_eq!(game.status, GameSessionStatus::Active);
    assert_eq!(game.placement_id, placement_id("p-1"));
    assert_eq!(game.maximum_player_session_count, 8);
    assert_eq!(game.current_player_session_count, 1);
    assert_eq!(session.status, PlayerSessionStatus::Reserved);
    let placement = snapshot.placement(&placement_id("p-1")).unwrap();
    assert_eq!(placement.status, PlacementStatus::Fulfilled);
    assert_eq!(
        placement.game_session_arn.as_deref(),
        Some(game.game_session_arn.as_str())
    );
    assert_eq!(placement.player_ids, ["alice"]);
}

#[tokio::test(start_paused = true)]
async fn servers_go_through_their_lifecycle_and_are_replaced() {
    use ServerState::*;
    let settings = SimulatorSettings {
        fleet_servers: 2,
        game_session_duration: Duration::from_secs(10),
        ..SimulatorSettings::default()
    };
    let mut h = Harness::start(settings);
    assert_eq!(h.states(), [Initializing, Initializing]);
    sleep(Duration::from_millis(1999)).await;
    assert_eq!(h.states(), [Initializing, Initializing]);
    sleep(Duration::from_millis(1)).await;
    assert_eq!(h.states(), [StandingBy, StandingBy]);
    let first_process = h.sim.snapshot().servers[0].process_id.clone();

    h.sim
        .start_placement(&request("p-1", "alice"))
        .await
        .unwrap();
    sleep(Duration::from_millis(500)).await;
    assert_eq!(h.states(), [Active, StandingBy]);
    let snapshot = h.sim.snapshot();
    let arn = snapshot.game_sessions[0].game_session_arn.clone();
    assert_eq!(
        snapshot.servers[0].game_session_arns,
        std::slice::from_ref(&arn)
    );
    assert_eq!(snapshot.game_sessions[0].process_id, first_process);

    // The game ends: TERMINATED, its seats COMPLETED, the server Terminating.
    sleep(Duration::from_secs(10)).await;
    let snapshot = h.sim.snapshot();
    assert_eq!(snapshot.server_states(), [Terminating, StandingBy]);
    assert_eq!(
        snapshot.game_sessions[0].status,
        GameSessionStatus::Terminated
    );
    assert_eq!(
        snapshot.player_sessions[0].status,
        PlayerSessionStatus::Completed
    );
    assert!(snapshot.servers[0].game_session_arns.is_empty());

    // Replaced by a fresh process, which starts up again.
    sleep(Duration::from_millis(500)).await;
    let snapshot = h.sim.snapshot();
    assert_eq!(snapshot.server_states(), [Initializing, StandingBy]);
    assert_ne!(snapshot.servers[0].process_id, first_process);
    assert_eq!(snapshot.servers[0].sessions_hosted, 0);
    sleep(Duration::from_secs(2)).await;
    assert_eq!(h.states(), [StandingBy, StandingBy]);
    assert_eq!(h.placement_events().await.len(), 1);
}

#[tokio::test(start_paused = true)]
async fn a_placement_made_during_start_up_waits_for_a_server() {
    let mut h = Harness::demo();
    h.sim
        .start_placement(&request("p-1", "alice"))
        .await
        .unwrap();
    sleep(Duration::from_millis(1999)).await;
    assert!(h.placement_events().await.is_empty());
    sleep(Duration::from_millis(1)).await;
    let events = h.placement_events().await;
    assert_eq!(events.len(), 1);
    assert_eq!(events[0]["detail"]["type"], "PlacementFulfilled");
    assert_eq!(elapsed(&events[0]), 2000);
}

#[tokio::test(start_paused = true)]
async fn without_capacity_a_placement_times_out_after_the_queue_timeout() {
    let mut h = Harness::start(SimulatorSettings {
        fleet_servers: 0,
        ..SimulatorSettings::default()
    });
    assert!(h.states().is_empty());
    h.sim
        .start_placement(&request("p-1", "alice"))
        .await
        .unwrap();
    sleep(Duration::from_millis(59_999)).await;
    assert!(h.placement_events().await.is_empty());
    assert_eq!(
        h.sim
            .snapshot()
            .placement(&placement_id("p-1"))
            .unwrap()
            .status,
        PlacementStatus::Pending
    );
    sleep(Duration::from_millis(1)).await;
    let events = h.placement_events().await;
    assert_eq!(events.len(), 1);
    let event = &events[0];
    let detail = event["detail"].as_object().unwrap();
    let mut keys: Vec<&str> = detail.keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["endTime", "placementId", "startTime", "type"]);
    assert_eq!(event["detail"]["type"], "PlacementTimedOut");
    assert_eq!(event["detail"]["placementId"], "p-1");
    assert_eq!(event["detail-type"], "GameLift Queue Placement Event");
    assert_eq!(elapsed(event), 60_000);
    assert_eq!(
        h.sim
            .snapshot()
            .placement(&placement_id("p-1"))
            .unwrap()
            .status,
        PlacementStatus::TimedOut
    );
    // A timed-out placement cannot be stopped.
    assert!(matches!(
        h.sim.stop_placement(&placement_id("p-1")).await,
        Err(GameLiftError::InvalidRequest { .. })
    ));
}

#[tokio::test(start_paused = true)]
async fn capacity_comes_back_after_a_game_ends_and_a_new_server_starts() {
    let mut h = Harness::start(SimulatorSettings {
        fleet_servers: 1,
        game_session_duration: Duration::from_secs(20),
        queue_timeout: Duration::from_secs(600),
        ..SimulatorSettings::default()
    });
    sleep(Duration::from_secs(2)).await;
    h.sim
        .start_placement(&request("p-1", "alice"))
        .await
        .unwrap();
    sleep(Duration::from_millis(500)).await;
    assert_eq!(h.placement_events().await.len(), 1);

    // Two more wait, first come first served.
    h.sim.start_placement(&request("p-2", "bob")).await.unwrap();
    sleep(Duration::from_millis(100)).await;
    h.sim
        .start_placement(&request("p-3", "carol"))
        .await
        .unwrap();
    // The game ends 20 s after it started; shutdown 0.5 s; start-up 2 s.
    sleep(Duration::from_millis(19_900 + 500 + 1999)).await;
    assert!(h.placement_events().await.is_empty());
    sleep(Duration::from_millis(1)).await;
    let events = h.placement_events().await;
    assert_eq!(events.len(), 1);
    assert_eq!(events[0]["detail"]["placementId"], "p-2");
    assert_eq!(events[0]["detail"]["type"], "PlacementFulfilled");
    assert_eq!(elapsed(&events[0]), 22_500);
    let snapshot = h.sim.snapshot();
    assert_eq!(snapshot.server_states(), [ServerState::Active]);
    assert_eq!(
        snapshot.placement(&placement_id("p-3")).unwrap().status,
        PlacementStatus::Pending
    );
}

#[tokio::test(start_paused = true)]
async fn stopping_a_pending_placement_cancels_it_and_a_fulfilled_one_is_refused() {
    let mut h = Harness::demo();
    sleep(Duration::from_secs(2)).await;
    h.sim
        .start_placement(&request("p-1", "alice"))
        .await
        .unwrap();
    sleep(Duration::from_millis(200)).await;
    h.sim.stop_placement(&placement_id("p-1")).await.unwrap();
    let events = h.placement_events().await;
    assert_eq!(events.len(), 1);
    assert_eq!(events[0]["detail"]["type"], "PlacementCancelled");
    assert_eq!(events[0]["detail"]["placementId"], "p-1");
    assert_eq!(elapsed(&events[0]), 200);
    assert!(events[0]["detail"].get("gameSessionArn").is_none());
    // It never gets a game, and stopping it again is refused.
    sleep(Duration::from_secs(5)).await;
    assert!(h.placement_events().await.is_empty());
    assert!(h.sim.snapshot().game_sessions.is_empty());
    assert!(matches!(
        h.sim.stop_placement(&placement_id("p-1")).await,
        Err(GameLiftError::InvalidRequest { .. })
    ));

    h.sim
        .start_placement(&request("p-2", "alice"))
        .await
        .unwrap();
    sleep(Duration::from_millis(500)).await;
    assert_eq!(h.placement_events().await.len(), 1);
    match h.sim.stop_placement(&placement_id("p-2")).await {
        Err(GameLiftError::InvalidRequest { message }) => {
            assert!(message.contains("FULFILLED"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    assert!(h.placement_events().await.is_empty());
    assert_eq!(
        h.sim
            .snapshot()
            .placement(&placement_id("p-2"))
            .unwrap()
            .status,
        PlacementStatus::Fulfilled
    );

    assert!(matches!(
        h.sim.stop_placement(&placement_id("p-unknown")).await,
        Err(GameLiftError::NotFound { .. })
    ));
}

#[tokio::test(start_paused = true)]
async fn a_failed_placement_emits_placement_failed() {
    let mut h = Harness::demo();
    h.sim
        .start_placement(&request("p-1", "alice"))
        .await
        .unwrap();
    sleep(Duration::from_millis(100)).await;
    h.sim.fail_placement(&placement_id("p-1")).unwrap();
    let events = h.placement_events().await;
    assert_eq!(events.len(), 1);
    assert_eq!(events[0]["detail"]["type"], "PlacementFailed");
    assert_eq!(elapsed(&events[0]), 100);
    assert_eq!(
        h.sim
            .snapshot()
            .placement(&placement_id("p-1"))
            .unwrap()
            .status,
        PlacementStatus::Failed
    );
}

/// Fulfilled placement → the game's ARN and alice's player session id.
async fn placed_game(h: &mut Harness, max_players: u32) -> (String, String) {
    sleep(Duration::from_secs(2)).await;
    let request = PlacementRequest {
        max_players,
        ..request("p-1", "alice")
    };
    h.sim.start_placement(&request).await.unwrap();
    sleep(Duration::from_millis(500)).await;
    let events = h.placement_events().await;
    let detail = &events[0]["detail"];
    (
        detail["gameSessionArn"].as_str().unwrap().to_owned(),
        detail["placedPlayerSessions"][0]["playerSessionId"]
            .as_str()
            .unwrap()
            .to_owned(),
    )
}

#[tokio::test(start_paused = true)]
async fn a_player_session_on_an_active_game_is_a_new_seat_in_the_same_game() {
    let mut h = Harness::demo();
    let (arn, first) = placed_game(&mut h, 8).await;
    // Alice dropped: her session is COMPLETED and cannot be reused.
    h.sim.accept_player_session(&first).unwrap();
    h.sim.remove_player_session(&first).unwrap();
    match h.sim.accept_player_session(&first) {
        Err(GameLiftError::InvalidRequest { message }) => assert_eq!(
            message,
            format!("PlayerSession ({first}) has a status of COMPLETED instead of RESERVED")
        ),
        other => panic!("{other:?}"),
    }

    let session = h
        .sim
        .create_player_session(&arn, &player("alice"), Some("rejoin"))
        .await
        .unwrap();
    assert!(session.player_session_id.starts_with("psess-"));
    assert_ne!(session.player_session_id, first);
    assert_eq!(session.game_session_arn, arn);
    assert_eq!(session.ip_address, "127.0.0.1");
    assert_eq!(session.dns_name, "localhost");
    assert_eq!(session.port, 7777);
    let snapshot = h.sim.snapshot();
    assert_eq!(
        snapshot
            .player_session(&session.player_session_id)
            .unwrap()
            .status,
        PlayerSessionStatus::Reserved
    );
    assert_eq!(
        snapshot.player_session(&first).unwrap().status,
        PlayerSessionStatus::Completed
    );
    assert_eq!(snapshot.player_sessions_of(&arn).len(), 2);
    assert_eq!(
        snapshot
            .game_session(&arn)
            .unwrap()
            .current_player_session_count,
        1
    );
    // The game's id works as well as its ARN.
    let id = snapshot.game_session(&arn).unwrap().game_session_id.clone();
    let again = h
        .sim
        .create_player_session(&id, &player("bob"), None)
        .await
        .unwrap();
    assert_eq!(again.game_session_arn, arn);
}

#[tokio::test(start_paused = true)]
async fn after_the_game_ends_a_player_session_is_refused_as_session_ended() {
    let mut h = Harness::start(SimulatorSettings {
        game_session_duration: Duration::from_secs(30),
        ..SimulatorSettings::default()
    });
    let (arn, _) = placed_game(&mut h, 8).await;
    sleep(Duration::from_secs(30)).await;
    assert_eq!(
        h.sim.snapshot().game_session(&arn).unwrap().status,
        GameSessionStatus::Terminated
    );
    let result = h
        .sim
        .create_player_session(&arn, &player("alice"), None)
        .await;
    match result {
        Err(error @ GameLiftError::SessionEnded { .. }) => {
            assert_eq!(error.code(), shared::frames::ErrorCode::SessionEnded);
        }
        other => panic!("{other:?}"),
    }
    let unknown = "arn:aws:gamelift:local::gamesession/fleet-local/nope";
    let result = h
        .sim
        .create_player_session(unknown, &player("alice"), None)
        .await;
    assert!(matches!(result, Err(GameLiftError::NotFound { .. })));
    let malformed = h
        .sim
        .create_player_session("", &player("alice"), None)
        .await;
    assert!(matches!(
        malformed,
        Err(GameLiftError::InvalidRequest { .. })
    ));
}

#[tokio::test(start_paused = true)]
async fn terminating_a_game_ends_it_now() {
    let mut h = Harness::demo();
    let (arn, first) = placed_game(&mut h, 8).await;
    h.sim.terminate_game_session(&arn).unwrap();
    let snapshot = h.sim.snapshot();
    assert_eq!(
        snapshot.game_session(&arn).unwrap().status,
        GameSessionStatus::Terminated
    );
    assert_eq!(
        snapshot.player_session(&first).unwrap().status,
        PlayerSessionStatus::Completed
    );
    assert_eq!(snapshot.servers[0].state, ServerState::Terminating);
    assert!(matches!(
        h.sim
            .create_player_session(&arn, &player("alice"), None)
            .await,
        Err(GameLiftError::SessionEnded { .. })
    ));
}

#[tokio::test(start_paused = true)]
async fn a_full_game_refuses_a_player_session_until_a_seat_frees() {
    let mut h = Harness::demo();
    let (arn, _) = placed_game(&mut h, 2).await;
    let bob = h
        .sim
        .create_player_session(&arn, &player("bob"), None)
        .await
        .unwrap();
    match h
        .sim
        .create_player_session(&arn, &player("carol"), None)
        .await
    {
        Err(GameLiftError::SessionFull { message }) => assert!(message.contains("full")),
        other => panic!("{other:?}"),
    }
    // Bob leaves: his seat is free again.
    h.sim.remove_player_session(&bob.player_session_id).unwrap();
    h.sim
        .create_player_session(&arn, &player("carol"), None)
        .await
        .unwrap();
    assert_eq!(
        h.sim
            .snapshot()
            .game_session(&arn)
            .unwrap()
            .current_player_session_count,
        2
    );
}

#[tokio::test(start_paused = true)]
async fn unvalidated_reservations_time_out_after_60_seconds_and_free_their_seat() {
    let mut h = Harness::demo();
    let (arn, alice) = placed_game(&mut h, 2).await;
    sleep(Duration::from_secs(10)).await;
    let bob = h
        .sim
        .create_player_session(&arn, &player("bob"), None)
        .await
        .unwrap()
        .player_session_id;
    h.sim.accept_player_session(&bob).unwrap();
    sleep(Duration::from_secs(50)).await;
    let snapshot = h.sim.snapshot();
    assert_eq!(
        snapshot.player_session(&alice).unwrap().status,
        PlayerSessionStatus::TimedOut
    );
    assert_eq!(
        snapshot.player_session(&bob).unwrap().status,
        PlayerSessionStatus::Active
    );
    assert_eq!(
        snapshot
            .game_session(&arn)
            .unwrap()
            .current_player_session_count,
        1
    );
    // The game ends: ACTIVE → COMPLETED; TIMEDOUT stays.
    h.sim.terminate_game_session(&arn).unwrap();
    let snapshot = h.sim.snapshot();
    assert_eq!(
        snapshot.player_session(&alice).unwrap().status,
        PlayerSessionStatus::TimedOut
    );
    assert_eq!(
        snapshot.player_session(&bob).unwrap().status,
        PlayerSessionStatus::Completed
    );
}

#[tokio::test(start_paused = true)]
async fn players_placed_together_get_their_own_sessions_in_one_event() {
    let mut h = Harness::demo();
    sleep(Duration::from_secs(2)).await;
    h.sim
        .start_group_placement(GroupPlacementRequest {
            placement_id: placement_id("p-duo"),
            queue: QUEUE.into(),
            max_players: 4,
            players: vec![
                DesiredPlayer {
                    player_id: player("alice"),
                    player_data: Some("red".into()),
                },
                DesiredPlayer {
                    player_id: player("bob"),
                    player_data: None,
                },
            ],
            matchmaker_data: None,
        })
        .unwrap();
    sleep(Duration::from_millis(500)).await;
    let events = h.placement_events().await;
    assert_eq!(events.len(), 1);
    let placed = events[0]["detail"]["placedPlayerSessions"]
        .as_array()
        .unwrap();
    assert_eq!(placed.len(), 2);
    assert_eq!(placed[0]["playerId"], "alice");
    assert_eq!(placed[1]["playerId"], "bob");
    assert_ne!(placed[0]["playerSessionId"], placed[1]["playerSessionId"]);
    let arn = events[0]["detail"]["gameSessionArn"].as_str().unwrap();
    let snapshot = h.sim.snapshot();
    assert_eq!(snapshot.game_sessions.len(), 1);
    assert_eq!(snapshot.player_sessions_of(arn).len(), 2);
    assert_eq!(
        snapshot
            .game_session(arn)
            .unwrap()
            .current_player_session_count,
        2
    );
    assert_eq!(
        snapshot
            .placement(&placement_id("p-duo"))
            .unwrap()
            .player_ids,
        ["alice", "bob"]
    );
}

#[tokio::test(start_paused = true)]
async fn several_sessions_per_server_share_it_on_their_own_ports() {
    let mut h = Harness::start(SimulatorSettings {
        fleet_servers: 1,
        sessions_per_server: 2,
        game_session_duration: Duration::from_secs(30),
        ..SimulatorSettings::default()
    });
    sleep(Duration::from_secs(2)).await;
    h.sim
        .start_placement(&request("p-1", "alice"))
        .await
        .unwrap();
    h.sim.start_placement(&request("p-2", "bob")).await.unwrap();
    h.sim
        .start_placement(&request("p-3", "carol"))
        .await
        .unwrap();
    sleep(Duration::from_millis(500)).await;
    let events = h.placement_events().await;
    let ports: Vec<&str> = events
        .iter()
        .map(|event| event["detail"]["port"].as_str().unwrap())
        .collect();
    assert_eq!(ports, ["7777", "7778"]);
    let snapshot = h.sim.snapshot();
    assert_eq!(snapshot.servers[0].state, ServerState::Active);
    assert_eq!(snapshot.servers[0].game_session_arns.len(), 2);
    assert_eq!(
        snapshot.placement(&placement_id("p-3")).unwrap().status,
        PlacementStatus::Pending
    );
    // One game ends: the server keeps running the other.
    let first = snapshot.game_sessions[0].game_session_arn.clone();
    h.sim.terminate_game_session(&first).unwrap();
    assert_eq!(h.states(), [ServerState::Active]);
    // Both ended: the server is replaced; p-3 goes on the new process.
    sleep(Duration::from_secs(30)).await;
    assert_eq!(h.states(), [ServerState::Terminating]);
    sleep(Duration::from_millis(2500)).await;
    let events = h.placement_events().await;
    assert_eq!(events.len(), 1);
    assert_eq!(events[0]["detail"]["placementId"], "p-3");
    assert_eq!(events[0]["detail"]["port"], "7777");
}

#[tokio::test(start_paused = true)]
async fn invalid_placements_are_refused_as_gamelift_refuses_them() {
    let h = Harness::start(SimulatorSettings {
        queues: vec![QUEUE.into()],
        ..SimulatorSettings::default()
    });
    let invalid = |result: Result<(), GameLiftError>| {
        matches!(result, Err(GameLiftError::InvalidRequest { .. }))
    };
    // A malformed PlacementId cannot be asked for: `PlacementId` is 1–48 of [a-zA-Z0-9-].
    let too_many = PlacementRequest {
        max_players: 0,
        ..request("p-0", "alice")
    };
    assert!(invalid(h.sim.start_placement(&too_many).await));
    let big_data = PlacementRequest {
        player_data: Some("x".repeat(2049)),
        ..request("p-0", "alice")
    };
    assert!(invalid(h.sim.start_placement(&big_data).await));
    let unknown_queue = PlacementRequest {
        queue: "other".into(),
        ..request("p-0", "alice")
    };
    assert!(matches!(
        h.sim.start_placement(&unknown_queue).await,
        Err(GameLiftError::NotFound { .. })
    ));
    // A queue ARN names the queue too.
    let by_arn = PlacementRequest {
        queue: format!("arn:aws:gamelift:local:123456789012:gamesessionqueue/{QUEUE}"),
        ..request("p-1", "alice")
    };
    h.sim.start_placement(&by_arn).await.unwrap();
    assert_eq!(
        h.sim
            .snapshot()
            .placement(&placement_id("p-1"))
            .unwrap()
            .queue,
        QUEUE
    );
    // Placement ids are never reused.
    assert!(invalid(h.sim.start_placement(&request("p-1", "bob")).await));
    let twice = GroupPlacementRequest {
        placement_id: placement_id("p-2"),
        queue: QUEUE.into(),
        max_players: 4,
        players: vec![
            DesiredPlayer {
                player_id: player("alice"),
                player_data: None,
            };
            2
        ],
        matchmaker_data: None,
    };
    assert!(invalid(h.sim.start_group_placement(twice)));
    assert_eq!(h.sim.snapshot().placements.len(), 1);
}

#[tokio::test(start_paused = true)]
async fn the_task_ends_when_the_simulator_is_dropped() {
    let h = Harness::demo();
    let Harness { sim, events, task } = h;
    drop(sim);
    drop(events);
    tokio::time::timeout(Duration::from_secs(1), task)
        .await
        .expect("the task ended")
        .expect("without panicking");
}

#[tokio::test(start_paused = true)]
async fn the_port_is_usable_as_a_trait_object() {
    let mut h = Harness::demo();
    let gamelift: Arc<dyn PlacementStarter> = h.sim.clone();
    sleep(Duration::from_secs(2)).await;
    gamelift
        .start_placement(&request("p-1", "alice"))
        .await
        .unwrap();
    sleep(Duration::from_millis(500)).await;
    assert_eq!(h.placement_events().await.len(), 1);
    h.task.abort();
}
