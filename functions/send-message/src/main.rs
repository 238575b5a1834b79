//! Lambda wiring only: telemetry, configuration, adapters built once, the runtime.

use std::sync::Arc;

use lambda_runtime::{Error, run, service_fn};
use send_message::SendMessageHandler;
use shared::adapters::aws;
use shared::config::Config;
use shared::ports::SystemClock;
use shared::websocket::RouteHandler;

#[tokio::main]
async fn main() -> Result<(), Error> {
    shared::telemetry::init();
    let config = Arc::new(Config::from_env()?);
    let sdk = aws::sdk_config().await;
    let (players, limiter) = aws::players_with_limits(&sdk, &config);
    let handler = SendMessageHandler::new(
        config.clone(),
        aws::message_store(&sdk, &config),
        players,
        limiter,
        aws::party_store(&sdk, &config),
        Arc::new(SystemClock),
    );
    let handler = &handler;
    run(service_fn(move |event| {
        shared::metrics::invocation(handler.handle(event))
    }))
    .await
}
