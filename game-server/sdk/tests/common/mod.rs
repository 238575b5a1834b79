//! Shared set-up: an SDK connected to the fake service with test timings.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use gamelift_server_sdk::testing::FakeService;
use gamelift_server_sdk::{Backoff, GameLiftServer, ProcessParameters, ServerParameters, Timing};

pub fn parameters(url: &str) -> ServerParameters {
    ServerParameters {
        web_socket_url: url.to_owned(),
        process_id: "proc-1".into(),
        host_id: "host-1".into(),
        fleet_id: "fleet-1".into(),
        auth_token: "tok-1".into(),
        timing: fast_timing(),
        ..ServerParameters::default()
    }
}

/// Heartbeats far apart (so they do not crowd the frames a test reads), short timeouts,
/// quick reconnects.
pub fn fast_timing() -> Timing {
    Timing {
        heartbeat_interval: Duration::from_secs(600),
        heartbeat_max_jitter: Duration::ZERO,
        call_timeout: Duration::from_secs(3),
        activate_timeout: Duration::from_secs(3),
        reconnect: Backoff {
            first: Duration::from_millis(50),
            max: Duration::from_millis(200),
            retries: 3,
        },
        refresh_grace: Duration::from_millis(500),
        ..Timing::default()
    }
}

/// The SDK on `fake`, with no variables read from this machine's environment.
pub async fn init(fake: &FakeService) -> GameLiftServer {
    init_with(parameters(&fake.url())).await
}

pub async fn init_with(parameters: ServerParameters) -> GameLiftServer {
    GameLiftServer::init_sdk_with_env(parameters, |_| None)
        .await
        .unwrap()
}

/// Reports the process ready to host sessions on port 7777; it succeeds.
pub async fn report_ready(server: &GameLiftServer) {
    server
        .process_ready(ProcessParameters::new(7777))
        .await
        .unwrap();
}

/// Runs `fut`, which must finish within the fake's wait.
pub async fn within<T>(fut: impl Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(10), fut)
        .await
        .expect("in time")
}
