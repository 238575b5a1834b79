//! Reconnects (same query, no new ActivateServerProcess), in-flight requests across a
//! drop, a normal close, and RefreshConnection.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Test support: a panic is the test failing, with its message.

mod common;

use std::time::Duration;

use gamelift_server_sdk::GameLiftError;
use gamelift_server_sdk::protocol::{Push, RefreshConnection};
use gamelift_server_sdk::testing::{Answer, FakeService};

#[tokio::test]
async fn given_a_dropped_socket_when_the_sdk_reconnects_then_the_query_is_the_same_and_the_process_is_not_activated_again()
 {
    let fake = FakeService::start().await;
    let mut parameters = common::parameters(&fake.url());
    parameters.timing.heartbeat_interval = Duration::from_millis(200);
    let server = common::init_with(parameters).await;
    let first = fake.next_connection().await;
    common::report_ready(&server).await;
    assert_eq!(
        fake.next_frame().await.1.request.action(),
        "ActivateServerProcess"
    );
    fake.drop_connection();
    let second = fake.next_connection().await;
    assert_eq!(second.id, 1);
    assert_eq!(second.query, first.query, "same pID, same IdempotencyToken");
    // Heartbeats go on, on the new socket, and nothing activates again.
    loop {
        let (socket, frame) = fake.next_frame().await;
        assert_ne!(frame.request.action(), "ActivateServerProcess");
        if socket == 1 {
            assert_eq!(frame.request.action(), "HeartbeatServerProcess");
            break;
        }
    }
    server.get_compute_certificate().await.unwrap();
}

#[tokio::test]
async fn given_a_request_in_flight_when_the_socket_drops_then_it_fails_as_connection_lost_and_the_next_call_works()
 {
    let fake = FakeService::start().await;
    let server = common::init(&fake).await;
    common::report_ready(&server).await;
    fake.next_request().await;
    fake.answer("GetComputeCertificate", Answer::Silent);
    let call = tokio::spawn({
        let server = server.clone();
        async move { server.get_compute_certificate().await }
    });
    fake.next_request().await;
    fake.drop_connection();
    let error = common::within(call).await.unwrap().unwrap_err();
    assert_eq!(
        error,
        GameLiftError::ConnectionLost {
            action: "GetComputeCertificate"
        }
    );
    fake.answer(
        "GetComputeCertificate",
        Answer::Ok(serde_json::json!({"CertificatePath": "p", "ComputeName": "c"})),
    );
    assert_eq!(
        server.get_compute_certificate().await.unwrap().compute_name,
        "c"
    );
}

#[tokio::test]
async fn given_a_normal_close_when_the_next_call_is_made_then_the_sdk_reconnects_for_it() {
    let fake = FakeService::start().await;
    let server = common::init(&fake).await;
    let first = fake.next_connection().await;
    common::report_ready(&server).await;
    fake.next_request().await;
    fake.close_connection();
    tokio::time::sleep(Duration::from_millis(200)).await;
    server.get_compute_certificate().await.unwrap();
    let second = fake.next_connection().await;
    assert_eq!(second.query, first.query);
    assert_eq!(
        fake.next_request().await.request.action(),
        "GetComputeCertificate"
    );
}

#[tokio::test]
async fn given_a_refresh_connection_when_pushed_then_the_sdk_moves_to_the_new_endpoint_with_a_new_token()
 {
    let fake = FakeService::start().await;
    let server = common::init(&fake).await;
    let first = fake.next_connection().await;
    common::report_ready(&server).await;
    fake.next_request().await;
    fake.push(&Push::RefreshConnection(RefreshConnection {
        refresh_connection_endpoint: format!("{}/refreshed", fake.url()),
        auth_token: "tok-2".into(),
    }));
    let second = fake.next_connection().await;
    assert_eq!(second.path, "/refreshed");
    assert_eq!(second.query.authorization.as_deref(), Some("tok-2"));
    assert_eq!(second.query.process_id, first.query.process_id);
    assert_ne!(
        second.query.idempotency_token,
        first.query.idempotency_token
    );
    server.get_compute_certificate().await.unwrap();
    loop {
        let (socket, frame) = fake.next_frame().await;
        if frame.request.action() == "GetComputeCertificate" {
            assert_eq!(socket, second.id, "calls go to the new socket");
            break;
        }
    }
    // A later drop reconnects to the refreshed endpoint, with its query.
    fake.drop_connection();
    let third = fake.next_connection().await;
    assert_eq!(third.path, "/refreshed");
    assert_eq!(third.query, second.query);
}

#[tokio::test]
async fn given_two_calls_timing_out_in_a_row_when_the_second_fails_then_the_sdk_reconnects() {
    let fake = FakeService::start().await;
    let mut parameters = common::parameters(&fake.url());
    parameters.timing.call_timeout = Duration::from_millis(200);
    let server = common::init_with(parameters).await;
    let first = fake.next_connection().await;
    common::report_ready(&server).await;
    fake.answer("GetComputeCertificate", Answer::Silent);
    for _ in 0..2 {
        let error = server.get_compute_certificate().await.unwrap_err();
        assert!(matches!(error, GameLiftError::Timeout { .. }), "{error}");
    }
    let second = fake.next_connection().await;
    assert_eq!(second.query, first.query);
}
