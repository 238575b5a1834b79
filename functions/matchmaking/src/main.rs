//! Lambda wiring only: telemetry, configuration, adapters built once, the runtime.

use std::sync::Arc;

use lambda_runtime::{Error, run, service_fn};
use matchmaking::MatchmakingHandler;
use shared::adapters::aws;
use shared::config::Config;
use shared::matchmaking::MatchmakingSettings;
use shared::ports::SystemClock;
use shared::websocket::RouteHandler;

#[tokio::main]
async fn main() -> Result<(), Error> {
    shared::telemetry::init();
    let config = Arc::new(Config::from_env()?);
    let settings = MatchmakingSettings::from_env()?;
    let sdk = aws::sdk_config().await;
    let handler = MatchmakingHandler::new(
        settings,
        aws::player_store(&sdk, &config),
        aws::party_store(&sdk, &config),
        aws::placement_store(&sdk, &config),
        aws::ticket_store(&sdk, &config),
        aws::matchmaker(&sdk),
        Arc::new(SystemClock),
    );
    let handler = &handler;
    run(service_fn(move |event| handler.handle(event))).await
}
