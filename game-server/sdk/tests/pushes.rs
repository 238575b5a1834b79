//! Pushes: UpdateGameSession, TerminateProcess (with and without a callback), the
//! drop rule for a push with a RequestId, and heartbeats on a real socket.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Test support: a panic is the test failing, with its message.

mod common;

use std::time::Duration;

use gamelift_server_sdk::protocol::model::{GameSession, UpdateReason};
use gamelift_server_sdk::protocol::{Push, Request, TerminateProcess, UpdateGameSession};
use gamelift_server_sdk::testing::FakeService;
use gamelift_server_sdk::{GameLiftError, GameLiftServer, ProcessParameters};
use serde_json::json;
use tokio::sync::mpsc;

#[tokio::test]
async fn given_an_update_game_session_when_pushed_then_the_callback_gets_it() {
    let fake = FakeService::start().await;
    let server = common::init(&fake).await;
    let (tx, mut updates) = mpsc::unbounded_channel();
    let parameters = ProcessParameters::new(7777).on_update_game_session(move |update| {
        let tx = tx.clone();
        async move {
            let _ = tx.send(update);
        }
    });
    server.process_ready(parameters).await.unwrap();
    let update = UpdateGameSession {
        game_session: GameSession {
            game_session_id: "gsess-1".into(),
            ..GameSession::default()
        },
        update_reason: UpdateReason::MatchmakingDataUpdated,
        backfill_ticket_id: "ticket-1".into(),
    };
    fake.push(&Push::UpdateGameSession(update.clone()));
    assert_eq!(common::within(updates.recv()).await.unwrap(), update);
}

#[tokio::test]
async fn given_a_terminate_process_when_pushed_then_the_callback_runs_and_the_time_is_in_seconds() {
    let fake = FakeService::start().await;
    let server = common::init(&fake).await;
    assert_eq!(
        server.get_termination_time(),
        Err(GameLiftError::TerminationTimeNotSet)
    );
    let mut terminated = ready_telling_terminations(&server).await;
    fake.push(&Push::TerminateProcess(TerminateProcess {
        termination_time: 1_767_323_045_123,
    }));
    common::within(terminated.recv()).await.unwrap();
    assert_eq!(server.get_termination_time(), Ok(1_767_323_045));
}

#[tokio::test]
async fn given_no_terminate_callback_when_terminate_process_is_pushed_then_the_sdk_ends_the_process_itself()
 {
    let fake = FakeService::start().await;
    let server = common::init(&fake).await;
    common::report_ready(&server).await;
    fake.next_request().await;
    fake.push(&Push::TerminateProcess(TerminateProcess {
        termination_time: 1,
    }));
    assert_eq!(
        fake.next_request().await.request.action(),
        "TerminateServerProcess"
    );
    // Then Destroy: the process is no longer ready.
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(
        server.activate_game_session().await,
        Err(GameLiftError::ProcessNotReady)
    );
}

#[tokio::test]
async fn given_a_push_with_a_request_id_and_no_status_200_when_sent_then_it_is_dropped() {
    let fake = FakeService::start().await;
    let server = common::init(&fake).await;
    let mut terminated = ready_telling_terminations(&server).await;
    fake.send_text(
        json!({"Action": "TerminateProcess", "RequestId": "push-1", "TerminationTime": 1000})
            .to_string(),
    );
    assert!(
        tokio::time::timeout(Duration::from_millis(300), terminated.recv())
            .await
            .is_err()
    );
    fake.send_text(json!({"Action": "TerminateProcess", "RequestId": "push-2", "StatusCode": 200, "TerminationTime": 2000}).to_string());
    common::within(terminated.recv()).await.unwrap();
    assert_eq!(server.get_termination_time(), Ok(2));
}

#[tokio::test]
async fn given_a_short_interval_when_the_process_is_ready_then_heartbeats_carry_the_health_check_at_that_cadence()
 {
    let fake = FakeService::start().await;
    let mut parameters = common::parameters(&fake.url());
    parameters.timing.heartbeat_interval = Duration::from_millis(300);
    let server = common::init_with(parameters).await;
    server
        .process_ready(ProcessParameters::new(7777).on_health_check(|| async { false }))
        .await
        .unwrap();
    assert_eq!(
        fake.next_frame().await.1.request.action(),
        "ActivateServerProcess"
    );
    let mut times = Vec::new();
    for _ in 0..4 {
        let (_, frame) = fake.next_frame().await;
        assert!(
            matches!(frame.request, Request::HeartbeatServerProcess(ref h) if !h.health_status),
            "{frame:?}"
        );
        times.push(std::time::Instant::now());
    }
    for pair in times.windows(2) {
        let gap = pair[1] - pair[0];
        assert!(
            gap > Duration::from_millis(250) && gap < Duration::from_millis(1500),
            "{gap:?}"
        );
    }
    server.process_ending().await.unwrap();
    assert_eq!(
        fake.next_request().await.request.action(),
        "TerminateServerProcess"
    );
    // No heartbeat after ProcessEnding.
    let quiet = tokio::time::timeout(Duration::from_millis(700), fake.next_frame()).await;
    assert!(quiet.is_err(), "{quiet:?}");
}

#[tokio::test]
async fn given_a_callback_calling_the_sdk_before_its_future_when_a_game_session_starts_then_it_does_not_deadlock()
 {
    let fake = FakeService::start().await;
    let server = common::init(&fake).await;
    let (tx, mut seen) = mpsc::unbounded_channel();
    let handle = server.clone();
    let parameters = ProcessParameters::new(7777).on_start_game_session(move |_| {
        // Runs while the push is dispatched, before the future is spawned.
        let _ = tx.send(handle.get_game_session_id());
        async {}
    });
    server.process_ready(parameters).await.unwrap();
    fake.push(&Push::CreateGameSession(
        gamelift_server_sdk::protocol::CreateGameSession {
            game_session_id: "gsess-1".into(),
            ..Default::default()
        },
    ));
    assert_eq!(
        common::within(seen.recv()).await.unwrap().as_deref(),
        Some("gsess-1")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn given_a_create_game_session_right_behind_the_activate_answer_when_pushed_then_it_is_not_lost()
 {
    let fake = FakeService::start().await;
    let server = common::init(&fake).await;
    fake.answer(
        "ActivateServerProcess",
        gamelift_server_sdk::testing::Answer::OkThenPush(
            json!({}),
            Box::new(Push::CreateGameSession(
                gamelift_server_sdk::protocol::CreateGameSession {
                    game_session_id: "gsess-1".into(),
                    ..Default::default()
                },
            )),
        ),
    );
    let (tx, mut started) = mpsc::unbounded_channel();
    let handle = server.clone();
    let parameters = ProcessParameters::new(7777).on_start_game_session(move |_| {
        let server = handle.clone();
        let tx = tx.clone();
        async move {
            let _ = tx.send(server.activate_game_session().await);
        }
    });
    for _ in 0..50 {
        // The race is between two tasks on two threads: try it a few times.
        server.process_ready(parameters.clone()).await.unwrap();
        assert_eq!(common::within(started.recv()).await.unwrap(), Ok(()));
    }
}

/// Reports the process ready with a TerminateProcess callback; what it receives is one
/// `()` per call of that callback.
async fn ready_telling_terminations(server: &GameLiftServer) -> mpsc::UnboundedReceiver<()> {
    let (tx, terminated) = mpsc::unbounded_channel();
    let parameters = ProcessParameters::new(7777).on_process_terminate(move || {
        let tx = tx.clone();
        async move {
            let _ = tx.send(());
        }
    });
    server.process_ready(parameters).await.unwrap();
    terminated
}
