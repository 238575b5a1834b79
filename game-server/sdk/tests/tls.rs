//! wss:// with a self-signed certificate, trusted through `ca_certificate_file`.
//!
//! fixtures/localhost.pem is a self-signed leaf for localhost and 127.0.0.1 (valid until
//! 2126), made with: `openssl ecparam -name prime256v1 -genkey`, `openssl req -new
//! -subj /CN=localhost`, `openssl x509 -req -signkey … -days 36500 -extfile` with
//! basicConstraints CA:FALSE, serverAuth and the two subjectAltNames.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Test support: a panic is the test failing, with its message.

mod common;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use gamelift_server_sdk::testing::FakeService;
use gamelift_server_sdk::{Backoff, GameLiftError, GameLiftServer};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

async fn tls_fake() -> FakeService {
    let certificates = CertificateDer::pem_file_iter(fixture("localhost.pem"))
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    let key = PrivateKeyDer::from_pem_file(fixture("localhost.key")).unwrap();
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(certificates, key)
        .unwrap();
    FakeService::start_tls(tokio_rustls::TlsAcceptor::from(Arc::new(config))).await
}

#[tokio::test]
async fn given_a_self_signed_wss_endpoint_and_its_certificate_when_init_sdk_then_calls_work() {
    let fake = tls_fake().await;
    assert!(fake.url().starts_with("wss://"));
    let mut parameters = common::parameters(&fake.url());
    parameters.ca_certificate_file = Some(fixture("localhost.pem"));
    let server = common::init_with(parameters).await;
    common::report_ready(&server).await;
    assert_eq!(
        fake.next_request().await.request.action(),
        "ActivateServerProcess"
    );
}

#[tokio::test]
async fn given_a_self_signed_wss_endpoint_without_its_certificate_when_init_sdk_then_the_connection_fails()
 {
    let fake = tls_fake().await;
    let mut parameters = common::parameters(&fake.url());
    parameters.timing.reconnect = Backoff {
        first: Duration::from_millis(10),
        max: Duration::from_millis(10),
        retries: 0,
    };
    let error = GameLiftServer::init_sdk_with_env(parameters, |_| None)
        .await
        .err()
        .unwrap();
    let GameLiftError::ConnectionFailed { reason, .. } = error else {
        panic!("{error}")
    };
    assert!(reason.to_lowercase().contains("certificate"), "{reason}");
}

#[tokio::test]
async fn given_a_ca_file_that_is_not_pem_when_init_sdk_then_it_fails_fast_naming_the_file() {
    let mut parameters = common::parameters("wss://localhost:1");
    parameters.ca_certificate_file = Some(fixture("missing.pem"));
    let error = GameLiftServer::init_sdk_with_env(parameters, |_| None)
        .await
        .err()
        .unwrap();
    assert!(
        matches!(error, GameLiftError::Config(ref text) if text.contains("missing.pem")),
        "{error}"
    );
}
