//! InitSDK: the upgrade's query and headers, SigV4, and failures to connect.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Test support: a panic is the test failing, with its message.

mod common;

use std::time::Duration;

use gamelift_server_sdk::testing::FakeService;
use gamelift_server_sdk::{Backoff, GameLiftError, GameLiftServer, ServerParameters};

#[tokio::test]
async fn given_token_parameters_when_init_sdk_then_the_query_is_the_official_sdks_with_rust() {
    let fake = FakeService::start().await;
    let _server = common::init(&fake).await;
    let connection = fake.next_connection().await;
    let query = connection.query;
    assert_eq!(connection.path, "/");
    assert_eq!(query.process_id, "proc-1");
    assert_eq!(query.compute_id.as_deref(), Some("host-1"));
    assert_eq!(query.fleet_id, "fleet-1");
    assert_eq!(query.authorization.as_deref(), Some("tok-1"));
    assert_eq!(query.sdk_language.as_deref(), Some("Rust"));
    assert_eq!(query.sdk_version.as_deref(), Some("5.6.0"));
    let token = query.idempotency_token.unwrap();
    assert!(uuid::Uuid::parse_str(&token).is_ok(), "{token}");
    assert!(query.amz_signature.is_none());
    assert!(
        connection
            .user_agent
            .unwrap()
            .starts_with("gamelift-server-sdk-rust/")
    );
    assert!(
        fake.no_request_within(Duration::from_millis(200)).await,
        "InitSDK sends nothing"
    );
}

#[tokio::test]
async fn given_two_init_sdks_when_connected_then_each_has_its_own_idempotency_token() {
    let fake = FakeService::start().await;
    let _a = common::init(&fake).await;
    let _b = common::init(&fake).await;
    let a = fake.next_connection().await.query.idempotency_token;
    let b = fake.next_connection().await.query.idempotency_token;
    assert_ne!(a, b);
}

#[tokio::test]
async fn given_variables_when_init_sdk_then_they_win_over_the_parameters() {
    let fake = FakeService::start().await;
    let url = fake.url();
    let mut parameters = common::parameters("ws://127.0.0.1:1");
    parameters.fleet_id = "fleet-code".into();
    let env = move |name: &str| match name {
        "GAMELIFT_SDK_WEBSOCKET_URL" => Some(url.clone()),
        "GAMELIFT_SDK_FLEET_ID" => Some("fleet-env".to_owned()),
        "GAMELIFT_SDK_AUTH_TOKEN" => Some("tok-env".to_owned()),
        _ => None,
    };
    let _server = GameLiftServer::init_sdk_with_env(parameters, env)
        .await
        .unwrap();
    let query = fake.next_connection().await.query;
    assert_eq!(query.fleet_id, "fleet-env");
    assert_eq!(query.authorization.as_deref(), Some("tok-env"));
}

#[tokio::test]
async fn given_sigv4_settings_when_init_sdk_then_the_query_is_signed() {
    let fake = FakeService::start().await;
    let mut parameters = common::parameters(&fake.url());
    parameters.auth_token.clear();
    parameters.aws_region = "us-west-2".into();
    parameters.access_key = "AKIDEXAMPLE".into();
    parameters.secret_key = "secret".into();
    parameters.session_token = "session".into();
    let _server = common::init_with(parameters).await;
    let query = fake.next_connection().await.query;
    assert!(query.is_sigv4());
    assert_eq!(query.amz_algorithm.as_deref(), Some("AWS4-HMAC-SHA256"));
    let credential = query.amz_credential.unwrap();
    assert!(
        credential.starts_with("AKIDEXAMPLE/")
            && credential.ends_with("/us-west-2/gamelift/aws4_request"),
        "{credential}"
    );
    assert_eq!(query.amz_signature.unwrap().len(), 64);
    assert_eq!(query.amz_date.unwrap().len(), 16);
    assert_eq!(query.amz_security_token.as_deref(), Some("session"));
}

#[tokio::test]
async fn given_nothing_listening_when_init_sdk_then_it_fails_with_connection_failed_after_its_retries()
 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("ws://{}", listener.local_addr().unwrap());
    drop(listener);
    let mut parameters = common::parameters(&url);
    parameters.timing.reconnect = Backoff {
        first: Duration::from_millis(10),
        max: Duration::from_millis(10),
        retries: 2,
    };
    let error = GameLiftServer::init_sdk_with_env(parameters, |_| None)
        .await
        .err()
        .unwrap();
    assert!(
        matches!(error, GameLiftError::ConnectionFailed { ref url, .. } if !url.contains('?')),
        "{error}"
    );
}

#[tokio::test]
async fn given_missing_parameters_when_init_sdk_then_it_fails_fast_naming_them() {
    let error = GameLiftServer::init_sdk_with_env(ServerParameters::default(), |_| None)
        .await
        .err()
        .unwrap();
    assert!(matches!(error, GameLiftError::Config(_)));
    assert!(
        error.to_string().contains("GAMELIFT_SDK_WEBSOCKET_URL"),
        "{error}"
    );
}
