//! Lambda wiring only: telemetry, configuration, adapters built once, the runtime.

use std::sync::Arc;

use lambda_runtime::{Error, run, service_fn};
use shared::adapters::aws;
use shared::config::Config;
use shared::ports::SystemClock;
use shared::websocket::RouteHandler;
use subscribe_presence::SubscribePresenceHandler;

#[tokio::main]
async fn main() -> Result<(), Error> {
    shared::telemetry::init();
    let config = Arc::new(Config::from_env()?);
    let sdk = aws::sdk_config().await;
    let handler = SubscribePresenceHandler::new(
        aws::player_store(&sdk, &config),
        aws::subscription_store(&sdk, &config),
        Arc::new(SystemClock),
    );
    let handler = &handler;
    run(service_fn(move |event| {
        shared::metrics::invocation(handler.handle(event))
    }))
    .await
}
