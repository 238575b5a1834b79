//! Real processes (game servers on the server SDK 5 WebSocket) in the simulated fleet,
//! on paused time: the calls are the ones `local::gamelift_sdk` makes, the pushes are
//! read from the process's outbox.

use gamelift_server_protocol::model::{
    MatchmakerAttribute, MatchmakerPlayer, MatchmakerTeam, PlayerSessionCreationPolicy,
    PlayerSessionStatus as Wire,
};
use gamelift_server_protocol::{DescribePlayerSessions, Push};
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

use super::*;

const PID: &str = "proc-1";

/// Only real processes, with short timers.
fn real_only() -> SimulatorSettings {
    SimulatorSettings {
        fleet_servers: 0,
        game_session_activation: Duration::from_secs(10),
        queue_timeout: Duration::from_secs(25),
        heartbeat_interval: Duration::from_secs(60),
        termination_grace: Duration::from_secs(300),
        reconnect_window: Duration::from_secs(30),
        ..SimulatorSettings::default()
    }
}

fn socket(id: u64) -> (Socket, UnboundedReceiver<Push>) {
    let (outbox, pushes) = unbounded_channel();
    (Socket { id, outbox }, pushes)
}

fn registration(port: u16) -> ProcessRegistration {
    ProcessRegistration {
        process_id: PID.into(),
        compute_id: "host-1".into(),
        sdk_language: "Go".into(),
        sdk_version: "5.6.0".into(),
        port,
        log_paths: vec!["/tmp/server.log".into()],
    }
}

/// A process PID activated on port 7000, and its pushes.
fn joined(h: &Harness) -> UnboundedReceiver<Push> {
    let (socket, pushes) = socket(1);
    h.sim.activate_process(registration(7000), socket).unwrap();
    pushes
}

fn group(id: &str, players: &[&str]) -> GroupPlacementRequest {
    GroupPlacementRequest {
        placement_id: placement_id(id),
        queue: QUEUE.into(),
        max_players: 4,
        players: players
            .iter()
            .map(|p| DesiredPlayer {
                player_id: player(p),
                player_data: Some(format!("data-{p}")),
            })
            .collect(),
        matchmaker_data: None,
    }
}

fn created(
    h: &Harness,
    pushes: &mut UnboundedReceiver<Push>,
) -> gamelift_server_protocol::CreateGameSession {
    // Brings the simulator up to now (the driver may not have run yet).
    h.sim.snapshot();
    match pushes.try_recv() {
        Ok(Push::CreateGameSession(create)) => create,
        other => panic!("expected CreateGameSession, got {other:?}"),
    }
}

fn placement_status(h: &Harness) -> PlacementStatus {
    h.sim.snapshot().placements[0].status
}

#[tokio::test(start_paused = true)]
async fn given_a_real_process_when_placed_on_then_the_placement_is_pending_until_it_activates_the_game()
 {
    let mut h = Harness::start(real_only());
    let mut pushes = joined(&h);
    h.sim
        .start_group_placement(group("p-1", &["alice", "bob"]))
        .unwrap();
    sleep(Duration::from_millis(500)).await;
    h.delivered().await;
    let create = created(&h, &mut pushes);
    assert_eq!(create.port, 7000);
    assert_eq!(create.maximum_player_session_count, 4);
    assert_eq!(create.ip_address, "127.0.0.1");
    assert_eq!(create.dns_name, "localhost");
    assert_eq!(create.game_session_name, "p-1");
    assert!(
        create
            .game_session_id
            .starts_with("arn:aws:gamelift:local::gamesession/fleet-local/")
    );
    let snapshot = h.sim.snapshot();
    assert_eq!(
        snapshot.game_sessions[0].status,
        GameSessionStatus::Activating
    );
    assert_eq!(placement_status(&h), PlacementStatus::Pending);
    assert!(
        snapshot.player_sessions.is_empty(),
        "no seats before it is ACTIVE"
    );
    assert!(h.placement_events().await.is_empty());
    // Players cannot join a game that is not ACTIVE yet.
    let early = h
        .sim
        .create_player_session(&create.game_session_id, &player("carol"), None)
        .await;
    assert!(
        matches!(early, Err(GameLiftError::InvalidRequest { .. })),
        "{early:?}"
    );

    h.sim
        .activate_game_session(PID, &create.game_session_id)
        .unwrap();
    let events = h.placement_events().await;
    assert_eq!(events.len(), 1);
    assert_eq!(events[0]["detail"]["type"], "PlacementFulfilled");
    assert_eq!(events[0]["detail"]["port"], "7000");
    let snapshot = h.sim.snapshot();
    assert_eq!(snapshot.game_sessions[0].status, GameSessionStatus::Active);
    assert_eq!(placement_status(&h), PlacementStatus::Fulfilled);
    let seats = snapshot.player_sessions_of(&create.game_session_id);
    assert_eq!(seats.len(), 2);
    assert!(
        seats
            .iter()
            .all(|s| s.status == PlayerSessionStatus::Reserved)
    );
    let again = h.sim.activate_game_session(PID, &create.game_session_id);
    assert!(again.unwrap_err().message.contains("already ACTIVE"));
}

#[tokio::test(start_paused = true)]
async fn given_a_process_that_never_activates_when_the_activation_timeout_passes_then_the_placement_retries_until_timed_out()
 {
    let mut h = Harness::start(real_only());
    let mut pushes = joined(&h);
    h.sim
        .start_group_placement(group("p-1", &["alice"]))
        .unwrap();
    sleep(Duration::from_millis(500)).await;
    let first = created(&h, &mut pushes);
    // 10 s later: TERMINATED, and the placement (still PENDING) goes again.
    sleep(Duration::from_secs(10)).await;
    h.delivered().await;
    let second = created(&h, &mut pushes);
    assert_ne!(first.game_session_id, second.game_session_id);
    let snapshot = h.sim.snapshot();
    assert_eq!(
        snapshot.game_sessions[0].status,
        GameSessionStatus::Terminated
    );
    assert_eq!(
        snapshot.game_sessions[1].status,
        GameSessionStatus::Activating
    );
    assert_eq!(placement_status(&h), PlacementStatus::Pending);
    let late = h.sim.activate_game_session(PID, &first.game_session_id);
    assert!(late.unwrap_err().message.contains("TERMINATED"));
    // The queue's 25 s run out while the second one is ACTIVATING.
    sleep(Duration::from_secs(15)).await;
    let events = h.placement_events().await;
    assert_eq!(events.len(), 1);
    assert_eq!(events[0]["detail"]["type"], "PlacementTimedOut");
    assert!(
        h.sim
            .snapshot()
            .game_sessions
            .iter()
            .all(|g| g.status == GameSessionStatus::Terminated)
    );
}

/// An ACTIVE game of PID with alice and bob; its ARN.
async fn active_game(h: &mut Harness, pushes: &mut UnboundedReceiver<Push>) -> String {
    h.sim
        .start_group_placement(group("p-1", &["alice", "bob"]))
        .unwrap();
    sleep(Duration::from_millis(500)).await;
    let arn = created(h, pushes).game_session_id;
    h.sim.activate_game_session(PID, &arn).unwrap();
    h.delivered().await;
    arn
}

fn seat(h: &Harness, arn: &str, player_id: &str) -> String {
    h.sim
        .snapshot()
        .player_sessions_of(arn)
        .iter()
        .rev()
        .find(|s| s.player_id == player_id)
        .map(|s| s.player_session_id.clone())
        .unwrap()
}

#[tokio::test(start_paused = true)]
async fn given_an_active_game_when_players_are_accepted_and_removed_then_seats_follow_and_refusals_say_why()
 {
    let mut h = Harness::start(real_only());
    let mut pushes = joined(&h);
    let arn = active_game(&mut h, &mut pushes).await;
    let alice = seat(&h, &arn, "alice");
    h.sim.accept_player_session_of(PID, &arn, &alice).unwrap();
    let twice = h
        .sim
        .accept_player_session_of(PID, &arn, &alice)
        .unwrap_err();
    assert!(twice.message.contains("ACTIVE, not RESERVED"), "{twice}");
    let unknown = h
        .sim
        .accept_player_session_of(PID, &arn, "psess-forged")
        .unwrap_err();
    assert_eq!(unknown.kind, gamelift_server_protocol::ErrorKind::NotFound);

    // Another game's seat is refused.
    let (other, _other_pushes) = socket(2);
    h.sim
        .activate_process(
            ProcessRegistration {
                process_id: "proc-2".into(),
                ..registration(7001)
            },
            other,
        )
        .unwrap();
    let foreign = h
        .sim
        .accept_player_session_of("proc-2", &arn, &alice)
        .unwrap_err();
    assert!(foreign.message.contains("another process"), "{foreign}");

    // Removed: COMPLETED, the seat reopens, and a rejoin takes it again.
    h.sim.remove_player_session_of(PID, &arn, &alice).unwrap();
    let completed = h
        .sim
        .accept_player_session_of(PID, &arn, &alice)
        .unwrap_err();
    assert!(completed.message.contains("COMPLETED"), "{completed}");
    let rejoined = h
        .sim
        .create_player_session(&arn, &player("alice"), None)
        .await
        .unwrap();
    assert_ne!(rejoined.player_session_id, alice);
    assert_eq!(rejoined.port, 7000);

    // Bob's reservation times out after 60 s: TIMEDOUT cannot be accepted.
    let bob = seat(&h, &arn, "bob");
    sleep(Duration::from_secs(61)).await;
    let timed_out = h.sim.accept_player_session_of(PID, &arn, &bob).unwrap_err();
    assert!(timed_out.message.contains("TIMEDOUT"), "{timed_out}");
}

#[tokio::test(start_paused = true)]
async fn given_deny_all_when_a_player_rejoins_then_gamelift_refuses_as_not_accepting() {
    let mut h = Harness::start(real_only());
    let mut pushes = joined(&h);
    let arn = active_game(&mut h, &mut pushes).await;
    h.sim
        .update_player_session_creation_policy(PID, &arn, PlayerSessionCreationPolicy::DenyAll)
        .unwrap();
    let refused = h
        .sim
        .create_player_session(&arn, &player("carol"), None)
        .await;
    match refused {
        Err(GameLiftError::SessionEnded { message }) => {
            assert!(
                message.contains("not accepting new player sessions"),
                "{message}"
            );
        }
        other => panic!("{other:?}"),
    }
    h.sim
        .update_player_session_creation_policy(PID, &arn, PlayerSessionCreationPolicy::AcceptAll)
        .unwrap();
    assert!(
        h.sim
            .create_player_session(&arn, &player("carol"), None)
            .await
            .is_ok()
    );
}

#[tokio::test(start_paused = true)]
async fn given_player_sessions_when_described_then_filters_limit_and_next_token_page_them() {
    let mut h = Harness::start(real_only());
    let mut pushes = joined(&h);
    let arn = active_game(&mut h, &mut pushes).await;
    let alice = seat(&h, &arn, "alice");
    h.sim.accept_player_session_of(PID, &arn, &alice).unwrap();
    let by_game = |limit, next_token| DescribePlayerSessions {
        game_session_id: Some(arn.clone()),
        limit,
        next_token,
        ..DescribePlayerSessions::default()
    };
    let first = h
        .sim
        .describe_player_sessions(PID, &by_game(Some(1), None))
        .unwrap();
    assert_eq!(first.player_sessions.len(), 1);
    assert_eq!(first.player_sessions[0].player_id, "alice");
    assert_eq!(first.player_sessions[0].player_data, "data-alice");
    assert_eq!(first.player_sessions[0].port, 7000);
    assert_eq!(first.player_sessions[0].status, Some(Wire::Active));
    let second = h
        .sim
        .describe_player_sessions(PID, &by_game(Some(1), first.next_token.clone()))
        .unwrap();
    assert_eq!(second.player_sessions[0].player_id, "bob");
    assert_eq!(second.next_token, None);
    let reserved = h
        .sim
        .describe_player_sessions(
            PID,
            &DescribePlayerSessions {
                player_session_status_filter: Some(Wire::Reserved),
                ..by_game(None, None)
            },
        )
        .unwrap();
    assert_eq!(reserved.player_sessions.len(), 1);
    let by_player = h
        .sim
        .describe_player_sessions(
            PID,
            &DescribePlayerSessions {
                player_id: Some("alice".into()),
                ..DescribePlayerSessions::default()
            },
        )
        .unwrap();
    assert_eq!(by_player.player_sessions[0].player_session_id, alice);
    for bad in [
        DescribePlayerSessions::default(),
        DescribePlayerSessions {
            player_id: Some("alice".into()),
            ..by_game(None, None)
        },
        by_game(Some(0), None),
        by_game(None, Some("nonsense".into())),
    ] {
        let refused = h.sim.describe_player_sessions(PID, &bad).unwrap_err();
        assert_eq!(
            refused.kind,
            gamelift_server_protocol::ErrorKind::BadRequest,
            "{bad:?}"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn given_process_ending_then_its_games_end_and_a_rejoin_is_session_ended() {
    let mut h = Harness::start(real_only());
    let mut pushes = joined(&h);
    let arn = active_game(&mut h, &mut pushes).await;
    let alice = seat(&h, &arn, "alice");
    h.sim.accept_player_session_of(PID, &arn, &alice).unwrap();
    // Real games outlast SIM_GAME_SESSION_SECONDS (600 s), while they beat.
    for _ in 0..11 {
        sleep(Duration::from_secs(55)).await;
        h.sim.heartbeat(PID, true).unwrap();
    }
    assert_eq!(
        h.sim.snapshot().game_sessions[0].status,
        GameSessionStatus::Active
    );
    h.sim.process_ending(PID).unwrap();
    let snapshot = h.sim.snapshot();
    assert_eq!(
        snapshot.game_sessions[0].status,
        GameSessionStatus::Terminated
    );
    let alice = snapshot
        .player_sessions
        .iter()
        .find(|s| s.player_id == "alice")
        .unwrap();
    assert_eq!(alice.status, PlayerSessionStatus::Completed);
    assert_eq!(
        snapshot.process(PID).unwrap().state,
        ServerState::Terminated
    );
    let rejoin = h
        .sim
        .create_player_session(&arn, &player("alice"), None)
        .await;
    assert!(
        matches!(rejoin, Err(GameLiftError::SessionEnded { .. })),
        "{rejoin:?}"
    );
    let after = h.sim.heartbeat(PID, true).unwrap_err();
    assert!(after.message.contains("taken out"), "{after}");
}

#[tokio::test(start_paused = true)]
async fn given_a_call_before_process_ready_then_it_is_refused_naming_process_ready() {
    let h = Harness::start(real_only());
    let refused = h.sim.heartbeat("nobody", true).unwrap_err();
    assert!(refused.message.contains("ProcessReady"), "{refused}");
    let (socket, _pushes) = socket(1);
    let zero = h.sim.activate_process(registration(0), socket).unwrap_err();
    assert!(zero.message.contains("Port 0"), "{zero}");
}

#[tokio::test(start_paused = true)]
async fn given_three_missed_heartbeats_then_terminate_process_and_it_is_taken_out_after_the_grace()
{
    let start = crate::time::now_millis();
    let h = Harness::start(real_only());
    let mut pushes = joined(&h);
    sleep(Duration::from_secs(179)).await;
    assert!(pushes.try_recv().is_err());
    sleep(Duration::from_secs(1)).await;
    h.sim.snapshot();
    match pushes.try_recv() {
        Ok(Push::TerminateProcess(terminate)) => {
            // Simulated time: 180 s in, plus the 300 s grace.
            let expected = start + 480_000;
            assert!(
                (terminate.termination_time - expected).abs() < 5_000,
                "{terminate:?}"
            );
        }
        other => panic!("expected TerminateProcess, got {other:?}"),
    }
    let process = h.sim.snapshot().process(PID).cloned().unwrap();
    assert!(!process.healthy && process.termination_sent);
    sleep(Duration::from_secs(300)).await;
    let process = h.sim.snapshot().process(PID).cloned().unwrap();
    assert_eq!(process.state, ServerState::Terminated);
    assert!(process.ended.unwrap().contains("ProcessEnding"));
}

#[tokio::test(start_paused = true)]
async fn given_three_unhealthy_reports_then_terminate_process_is_sent() {
    let h = Harness::start(real_only());
    let mut pushes = joined(&h);
    h.sim.heartbeat(PID, false).unwrap();
    h.sim.heartbeat(PID, false).unwrap();
    assert!(pushes.try_recv().is_err());
    h.sim.heartbeat(PID, false).unwrap();
    assert!(matches!(pushes.try_recv(), Ok(Push::TerminateProcess(_))));
}

#[tokio::test(start_paused = true)]
async fn given_a_dropped_socket_when_it_reconnects_in_time_then_the_game_goes_on_else_it_ends() {
    let mut h = Harness::start(real_only());
    let mut pushes = joined(&h);
    let arn = active_game(&mut h, &mut pushes).await;
    h.sim.detach_socket(PID, 1);
    sleep(Duration::from_secs(20)).await;
    let (socket2, mut pushes2) = socket(2);
    assert!(h.sim.attach_socket(PID, socket2));
    // The first socket closing late does not detach the second.
    h.sim.detach_socket(PID, 1);
    sleep(Duration::from_secs(60)).await;
    assert_eq!(
        h.sim.snapshot().game_sessions[0].status,
        GameSessionStatus::Active
    );
    h.sim.terminate_process(PID).unwrap();
    assert!(matches!(pushes2.try_recv(), Ok(Push::TerminateProcess(_))));

    h.sim.detach_socket(PID, 2);
    sleep(Duration::from_secs(30)).await;
    let snapshot = h.sim.snapshot();
    assert_eq!(
        snapshot.game_sessions[0].status,
        GameSessionStatus::Terminated
    );
    assert!(
        snapshot
            .process(PID)
            .unwrap()
            .ended
            .clone()
            .unwrap()
            .contains("reconnect")
    );
    let rejoin = h
        .sim
        .create_player_session(&arn, &player("alice"), None)
        .await;
    assert!(matches!(rejoin, Err(GameLiftError::SessionEnded { .. })));
}

#[tokio::test(start_paused = true)]
async fn given_simulated_and_real_processes_then_the_real_one_is_placed_on_first() {
    let mut h = Harness::demo();
    sleep(Duration::from_secs(2)).await;
    let mut pushes = joined(&h);
    h.sim
        .start_group_placement(group("p-1", &["alice"]))
        .unwrap();
    h.sim.start_group_placement(group("p-2", &["bob"])).unwrap();
    sleep(Duration::from_millis(500)).await;
    created(&h, &mut pushes);
    let events = h.placement_events().await;
    assert_eq!(
        events.len(),
        1,
        "the simulated one fulfils the second at once"
    );
    let snapshot = h.sim.snapshot();
    assert_eq!(snapshot.processes.len(), 1);
    assert_eq!(snapshot.servers.iter().filter(|s| s.real).count(), 1);
    assert_eq!(snapshot.servers.len(), 3);
}

#[tokio::test(start_paused = true)]
async fn given_matchmaker_data_when_placed_on_a_real_process_then_create_game_session_carries_it() {
    let h = Harness::start(real_only());
    let mut pushes = joined(&h);
    let data = gamelift_server_protocol::model::MatchmakerData {
        match_id: "m-1".into(),
        matchmaking_configuration_arn:
            "arn:aws:gamelift:local:123456789012:matchmakingconfiguration/default".into(),
        teams: vec![MatchmakerTeam {
            name: "red".into(),
            players: vec![MatchmakerPlayer {
                player_id: "alice".into(),
                attributes: [("skill".to_owned(), MatchmakerAttribute::Double(10.0))].into(),
            }],
        }],
        auto_backfill_ticket_id: None,
        auto_backfill_mode: None,
    };
    h.sim
        .start_group_placement(GroupPlacementRequest {
            matchmaker_data: Some(data.clone()),
            ..group("p-1", &["alice"])
        })
        .unwrap();
    sleep(Duration::from_millis(500)).await;
    let create = created(&h, &mut pushes);
    assert_eq!(
        gamelift_server_protocol::model::MatchmakerData::parse(&create.matchmaker_data).unwrap(),
        Some(data)
    );
}

#[tokio::test(start_paused = true)]
async fn given_a_process_that_ends_while_its_game_is_activating_then_the_placement_goes_to_another()
{
    let h = Harness::start(real_only());
    let mut first = joined(&h);
    h.sim
        .start_group_placement(group("p-1", &["alice"]))
        .unwrap();
    sleep(Duration::from_millis(500)).await;
    created(&h, &mut first);
    h.sim.process_ending(PID).unwrap();
    let (socket, mut second) = socket(2);
    h.sim
        .activate_process(
            ProcessRegistration {
                process_id: "proc-2".into(),
                ..registration(7001)
            },
            socket,
        )
        .unwrap();
    let create = created(&h, &mut second);
    assert_eq!(create.port, 7001);
    h.sim
        .activate_game_session("proc-2", &create.game_session_id)
        .unwrap();
    assert_eq!(placement_status(&h), PlacementStatus::Fulfilled);
}
