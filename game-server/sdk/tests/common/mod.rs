//! Shared set-up: an SDK connected to the fake service with test timings.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use gamelift_server_sdk::testing::FakeService;
use gamelift_server_sdk::{GameLiftServer, ProcessParameters, ServerParameters};

pub use gamelift_server_sdk::testing::parameters;

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
