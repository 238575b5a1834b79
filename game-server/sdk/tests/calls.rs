//! Every call: the frame sent, the result read, the service's refusals mapped, the
//! client-side guards (nothing sent) and the timeouts.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Test support: a panic is the test failing, with its message.

mod common;

use std::collections::BTreeMap;
use std::time::Duration;

use gamelift_server_sdk::protocol::model::{AttributeValue, GameSession};
use gamelift_server_sdk::protocol::{CreateGameSession, Push, Request};
use gamelift_server_sdk::testing::{Answer, FakeService};
use gamelift_server_sdk::{
    DescribePlayerSessions, ErrorKind, GameLiftError, GameLiftServer, GetFleetRoleCredentials,
    Player, PlayerSessionCreationPolicy, PlayerSessionStatus, ProcessParameters,
    StartMatchBackfill, StopMatchBackfill,
};
use serde_json::json;
use tokio::sync::mpsc;

const GAME_SESSION: &str = "arn:aws:gamelift:us-west-2::gamesession/fleet-1/gsess-1";

/// A ready process with a game session: ActivateServerProcess answered and a
/// CreateGameSession pushed and seen by the callback.
async fn ready_with_game_session(fake: &FakeService) -> (GameLiftServer, GameSession) {
    let server = common::init(fake).await;
    let (tx, mut sessions) = mpsc::unbounded_channel();
    let parameters = ProcessParameters::new(7777).on_start_game_session(move |session| {
        let tx = tx.clone();
        async move {
            let _ = tx.send(session);
        }
    });
    server.process_ready(parameters).await.unwrap();
    assert_eq!(
        fake.next_request().await.request.action(),
        "ActivateServerProcess"
    );
    fake.push(&Push::CreateGameSession(CreateGameSession {
        game_session_id: GAME_SESSION.into(),
        game_session_name: "n".into(),
        maximum_player_session_count: 4,
        port: 7777,
        ip_address: "127.0.0.1".into(),
        ..CreateGameSession::default()
    }));
    let session = common::within(sessions.recv()).await.unwrap();
    (server, session)
}

#[tokio::test]
async fn given_process_ready_when_called_then_activate_server_process_carries_port_and_log_paths_and_a_heartbeat_follows()
 {
    let fake = FakeService::start().await;
    let server = common::init(&fake).await;
    server
        .process_ready(ProcessParameters::new(7777).log_paths(["/logs/server.log"]))
        .await
        .unwrap();
    let (_, activate) = fake.next_frame().await;
    let Request::ActivateServerProcess(body) = activate.request else {
        panic!("{activate:?}")
    };
    assert_eq!(body.port, 7777);
    assert_eq!(body.log_paths, Some(vec!["/logs/server.log".to_owned()]));
    assert_eq!(body.sdk_language.as_deref(), Some("Rust"));
    assert_eq!(body.sdk_version.as_deref(), Some("5.6.0"));
    let (_, beat) = fake.next_frame().await;
    assert!(
        matches!(beat.request, Request::HeartbeatServerProcess(ref h) if h.health_status),
        "{beat:?}"
    );
}

#[tokio::test]
async fn given_a_create_game_session_when_pushed_then_the_callback_gets_it_with_the_fleet_and_calls_use_its_id()
 {
    let fake = FakeService::start().await;
    let (server, session) = ready_with_game_session(&fake).await;
    assert_eq!(session.game_session_id, GAME_SESSION);
    assert_eq!(session.fleet_id, "fleet-1");
    assert_eq!(session.maximum_player_session_count, 4);
    assert_eq!(server.get_game_session_id().as_deref(), Some(GAME_SESSION));

    server.activate_game_session().await.unwrap();
    let frame = fake.next_request().await;
    assert!(
        matches!(frame.request, Request::ActivateGameSession(ref a) if a.game_session_id == GAME_SESSION)
    );

    server.accept_player_session("psess-1").await.unwrap();
    let frame = fake.next_request().await;
    assert!(matches!(frame.request, Request::AcceptPlayerSession(ref a)
        if a.game_session_id == GAME_SESSION && a.player_session_id == "psess-1"));

    server.remove_player_session("psess-1").await.unwrap();
    let frame = fake.next_request().await;
    assert!(
        matches!(frame.request, Request::RemovePlayerSession(ref a) if a.player_session_id == "psess-1")
    );

    server
        .update_player_session_creation_policy(PlayerSessionCreationPolicy::DenyAll)
        .await
        .unwrap();
    let frame = fake.next_request().await;
    assert!(
        matches!(frame.request, Request::UpdatePlayerSessionCreationPolicy(ref u)
        if u.player_session_policy == PlayerSessionCreationPolicy::DenyAll)
    );
}

#[tokio::test]
async fn given_describe_player_sessions_with_filters_when_answered_then_the_sessions_are_typed() {
    let fake = FakeService::start().await;
    let (server, _) = ready_with_game_session(&fake).await;
    fake.answer(
        "DescribePlayerSessions",
        Answer::Ok(json!({
            "NextToken": "page-2",
            "PlayerSessions": [{"PlayerId": "alice", "PlayerSessionId": "psess-1",
                "GameSessionId": GAME_SESSION, "Status": "ACTIVE", "Port": 7777}]
        })),
    );
    let result = server
        .describe_player_sessions(DescribePlayerSessions {
            game_session_id: Some(GAME_SESSION.into()),
            player_session_status_filter: Some(PlayerSessionStatus::Active),
            limit: Some(10),
            next_token: Some("page-1".into()),
            ..DescribePlayerSessions::default()
        })
        .await
        .unwrap();
    assert_eq!(result.next_token.as_deref(), Some("page-2"));
    assert_eq!(result.player_sessions[0].player_id, "alice");
    assert_eq!(
        result.player_sessions[0].status,
        Some(PlayerSessionStatus::Active)
    );
    let frame = fake.next_request().await;
    let Request::DescribePlayerSessions(sent) = frame.request else {
        panic!()
    };
    assert_eq!(sent.limit, Some(10));
    assert_eq!(sent.next_token.as_deref(), Some("page-1"));
    assert_eq!(
        sent.player_session_status_filter,
        Some(PlayerSessionStatus::Active)
    );
}

#[tokio::test]
async fn given_backfill_calls_when_answered_then_the_ticket_comes_back_and_stop_is_sent() {
    let fake = FakeService::start().await;
    let (server, _) = ready_with_game_session(&fake).await;
    let config = "arn:aws:gamelift:us-west-2:123456789012:matchmakingconfiguration/default";
    let started = server
        .start_match_backfill(StartMatchBackfill {
            game_session_arn: GAME_SESSION.into(),
            matchmaking_configuration_arn: config.into(),
            ticket_id: String::new(),
            players: vec![Player {
                player_id: "alice".into(),
                team: "red".into(),
                player_attributes: BTreeMap::from([(
                    "skill".into(),
                    AttributeValue::Double { n: 10.0 },
                )]),
                latency_in_ms: BTreeMap::new(),
            }],
        })
        .await
        .unwrap();
    assert_eq!(started.ticket_id, "ticket-1");
    let Request::StartMatchBackfill(sent) = fake.next_request().await.request else {
        panic!()
    };
    assert_eq!(sent.players[0].team, "red");
    server
        .stop_match_backfill(StopMatchBackfill {
            game_session_arn: GAME_SESSION.into(),
            matchmaking_configuration_arn: config.into(),
            ticket_id: "ticket-1".into(),
        })
        .await
        .unwrap();
    assert_eq!(
        fake.next_request().await.request.action(),
        "StopMatchBackfill"
    );
}

#[tokio::test]
async fn given_certificate_and_role_calls_when_answered_then_results_are_read_and_credentials_cached()
 {
    let fake = FakeService::start().await;
    let (server, _) = ready_with_game_session(&fake).await;
    let certificate = server.get_compute_certificate().await.unwrap();
    assert_eq!(certificate.certificate_path, "/local/cert.pem");
    assert_eq!(
        fake.next_request().await.request.action(),
        "GetComputeCertificate"
    );

    let request = GetFleetRoleCredentials {
        role_arn: "arn:aws:iam::123456789012:role/game".into(),
        role_session_name: None,
    };
    let credentials = server
        .get_fleet_role_credentials(request.clone())
        .await
        .unwrap();
    assert_eq!(credentials.access_key_id, "ASIAFAKE");
    let Request::GetFleetRoleCredentials(sent) = fake.next_request().await.request else {
        panic!()
    };
    assert_eq!(sent.role_session_name.as_deref(), Some("fleet-1-host-1"));
    let again = server.get_fleet_role_credentials(request).await.unwrap();
    assert_eq!(again, credentials);
    assert!(
        fake.no_request_within(Duration::from_millis(200)).await,
        "served from the cache"
    );
}

#[tokio::test]
async fn given_no_fleet_role_when_credentials_are_asked_then_it_is_a_bad_request() {
    let fake = FakeService::start().await;
    let (server, _) = ready_with_game_session(&fake).await;
    fake.answer("GetFleetRoleCredentials", Answer::Ok(json!({})));
    let error = server
        .get_fleet_role_credentials(GetFleetRoleCredentials {
            role_arn: "arn:aws:iam::123456789012:role/game".into(),
            role_session_name: None,
        })
        .await
        .unwrap_err();
    assert_eq!(error.kind(), Some(ErrorKind::BadRequest));
}

#[tokio::test]
async fn given_service_refusals_when_calls_are_answered_then_status_and_message_are_mapped() {
    let fake = FakeService::start().await;
    let (server, _) = ready_with_game_session(&fake).await;
    for (kind, status) in [
        (ErrorKind::BadRequest, 400),
        (ErrorKind::Unauthorized, 401),
        (ErrorKind::Forbidden, 403),
        (ErrorKind::NotFound, 404),
        (ErrorKind::Conflict, 409),
        (ErrorKind::TooManyRequests, 429),
        (ErrorKind::InternalService, 500),
    ] {
        fake.answer(
            "AcceptPlayerSession",
            Answer::Error(kind, "player session not RESERVED".into()),
        );
        let error = server.accept_player_session("psess-1").await.unwrap_err();
        assert_eq!(
            error,
            GameLiftError::Service {
                action: "AcceptPlayerSession",
                kind,
                status,
                message: "player session not RESERVED".into(),
            }
        );
    }
}

#[tokio::test]
async fn given_an_answer_without_status_code_when_read_then_it_is_an_internal_service_error() {
    let fake = FakeService::start().await;
    let (server, _) = ready_with_game_session(&fake).await;
    fake.answer("ActivateGameSession", Answer::Frame(json!({})));
    let error = server.activate_game_session().await.unwrap_err();
    assert!(
        matches!(
            error,
            GameLiftError::Service {
                kind: ErrorKind::InternalService,
                status: 0,
                ..
            }
        ),
        "{error}"
    );
}

#[tokio::test]
async fn given_a_200_whose_fields_do_not_fit_when_read_then_it_is_a_bad_response() {
    let fake = FakeService::start().await;
    let (server, _) = ready_with_game_session(&fake).await;
    fake.answer(
        "GetComputeCertificate",
        Answer::Ok(json!({"CertificatePath": 5})),
    );
    let error = server.get_compute_certificate().await.unwrap_err();
    assert!(
        matches!(
            error,
            GameLiftError::BadResponse {
                action: "GetComputeCertificate",
                ..
            }
        ),
        "{error}"
    );
}

#[tokio::test]
async fn given_no_process_ready_when_calls_are_made_then_process_not_ready_and_nothing_is_sent() {
    let fake = FakeService::start().await;
    let server = common::init(&fake).await;
    assert_eq!(
        server.activate_game_session().await,
        Err(GameLiftError::ProcessNotReady)
    );
    assert_eq!(
        server.accept_player_session("psess-1").await,
        Err(GameLiftError::ProcessNotReady)
    );
    assert_eq!(
        server.remove_player_session("psess-1").await,
        Err(GameLiftError::ProcessNotReady)
    );
    assert_eq!(
        server.get_compute_certificate().await.unwrap_err(),
        GameLiftError::ProcessNotReady
    );
    let describe = DescribePlayerSessions {
        player_id: Some("alice".into()),
        ..Default::default()
    };
    assert_eq!(
        server.describe_player_sessions(describe).await.unwrap_err(),
        GameLiftError::ProcessNotReady
    );
    assert!(fake.no_request_within(Duration::from_millis(200)).await);
}

#[tokio::test]
async fn given_no_game_session_when_game_session_calls_are_made_then_game_session_id_not_set_and_nothing_is_sent()
 {
    let fake = FakeService::start().await;
    let server = common::init(&fake).await;
    common::report_ready(&server).await;
    fake.next_request().await;
    assert_eq!(
        server.activate_game_session().await,
        Err(GameLiftError::GameSessionIdNotSet)
    );
    assert_eq!(
        server.accept_player_session("psess-1").await,
        Err(GameLiftError::GameSessionIdNotSet)
    );
    assert_eq!(
        server.remove_player_session("psess-1").await,
        Err(GameLiftError::GameSessionIdNotSet)
    );
    assert_eq!(
        server
            .update_player_session_creation_policy(PlayerSessionCreationPolicy::AcceptAll)
            .await,
        Err(GameLiftError::GameSessionIdNotSet)
    );
    assert!(fake.no_request_within(Duration::from_millis(200)).await);
}

#[tokio::test]
async fn given_bad_arguments_when_calls_are_made_then_they_are_refused_before_sending() {
    let fake = FakeService::start().await;
    let (server, _) = ready_with_game_session(&fake).await;
    assert!(matches!(
        server.accept_player_session("bad id!").await,
        Err(GameLiftError::Validation(_))
    ));
    let two_ids = DescribePlayerSessions {
        player_id: Some("alice".into()),
        player_session_id: Some("psess-1".into()),
        ..Default::default()
    };
    assert!(matches!(
        server.describe_player_sessions(two_ids).await,
        Err(GameLiftError::Validation(_))
    ));
    assert!(fake.no_request_within(Duration::from_millis(200)).await);
}

#[tokio::test]
async fn given_a_create_game_session_before_process_ready_when_pushed_then_it_is_ignored() {
    let fake = FakeService::start().await;
    let server = common::init(&fake).await;
    fake.next_connection().await;
    fake.push(&Push::CreateGameSession(CreateGameSession {
        game_session_id: GAME_SESSION.into(),
        ..CreateGameSession::default()
    }));
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(server.get_game_session_id(), None);
}

#[tokio::test]
async fn given_a_silent_service_when_a_call_waits_then_it_times_out_with_its_action() {
    let fake = FakeService::start().await;
    let (server, _) = ready_with_game_session(&fake).await;
    fake.answer("AcceptPlayerSession", Answer::Silent);
    let started = std::time::Instant::now();
    let error = server.accept_player_session("psess-1").await.unwrap_err();
    assert_eq!(
        error,
        GameLiftError::Timeout {
            action: "AcceptPlayerSession",
            timeout: Duration::from_secs(3)
        }
    );
    assert!(started.elapsed() >= Duration::from_secs(3));
}

#[tokio::test]
async fn given_a_silent_service_when_process_ready_waits_then_it_times_out_after_the_activate_timeout()
 {
    let fake = FakeService::start().await;
    let mut parameters = common::parameters(&fake.url());
    parameters.timing.activate_timeout = Duration::from_millis(300);
    let server = common::init_with(parameters).await;
    fake.answer("ActivateServerProcess", Answer::Silent);
    let error = server
        .process_ready(ProcessParameters::new(7777))
        .await
        .unwrap_err();
    assert_eq!(
        error,
        GameLiftError::Timeout {
            action: "ActivateServerProcess",
            timeout: Duration::from_millis(300)
        }
    );
    assert_eq!(
        server.activate_game_session().await,
        Err(GameLiftError::ProcessNotReady)
    );
}

#[tokio::test]
async fn given_process_ending_when_answered_then_terminate_server_process_was_sent_and_the_process_is_no_longer_ready()
 {
    let fake = FakeService::start().await;
    let (server, _) = ready_with_game_session(&fake).await;
    server.process_ending().await.unwrap();
    assert_eq!(
        fake.next_request().await.request.action(),
        "TerminateServerProcess"
    );
    assert_eq!(
        server.activate_game_session().await,
        Err(GameLiftError::ProcessNotReady)
    );
    server.destroy().await.unwrap();
    assert_eq!(
        fake.next_close().await,
        (0, Some(1000)),
        "a normal close frame"
    );
    assert_eq!(
        server.get_compute_certificate().await.unwrap_err(),
        GameLiftError::ProcessNotReady
    );
}
