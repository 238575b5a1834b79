//! Lambda wiring only: telemetry, configuration, adapters built once, the runtime.

use std::sync::Arc;

use lambda_runtime::{Error, run, service_fn};
use rejoin_session::{RefreshLimit, RejoinSessionHandler};
use shared::adapters::aws;
use shared::config::Config;
use shared::ports::SystemClock;
use shared::websocket::RouteHandler;

#[tokio::main]
async fn main() -> Result<(), Error> {
    shared::telemetry::init();
    let config = Config::from_env()?;
    let sdk = aws::sdk_config().await;
    let (players, limiter) = aws::players_with_limits(&sdk, &config);
    let handler = RejoinSessionHandler::new(
        players,
        aws::gamelift(&sdk),
        aws::seat_connector(&sdk, &config),
        RefreshLimit {
            limiter,
            per_minute: config.rate_limits.placements_per_minute,
            clock: Arc::new(SystemClock),
        },
    );
    let handler = &handler;
    run(service_fn(move |event| handler.handle(event))).await
}
