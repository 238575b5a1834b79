//! Lambda wiring only: telemetry, configuration, adapters built once, the runtime.

use std::sync::Arc;

use lambda_runtime::{Error, run, service_fn};
use matchmaking::{MatchmakingHandler, Stores};
use shared::adapters::aws;
use shared::config::Config;
use shared::matchmaking::MatchmakingSettings;
use shared::ports::SystemClock;
use shared::websocket::RouteHandler;

#[tokio::main]
async fn main() -> Result<(), Error> {
    shared::telemetry::init();
    let config = Arc::new(Config::from_env()?);
    let mut settings = MatchmakingSettings::from_env()?;
    settings.requests_per_minute = config.rate_limits.placements_per_minute;
    let sdk = aws::sdk_config().await;
    let (players, limiter) = aws::players_with_limits(&sdk, &config);
    let stores = Stores {
        players,
        limiter,
        parties: aws::party_store(&sdk, &config),
        placements: aws::placement_store(&sdk, &config),
        tickets: aws::ticket_store(&sdk, &config),
    };
    let handler = MatchmakingHandler::new(
        settings,
        stores,
        aws::matchmaker(&sdk),
        Arc::new(SystemClock),
    );
    let handler = &handler;
    run(service_fn(move |event| {
        shared::metrics::invocation(handler.handle(event))
    }))
    .await
}
