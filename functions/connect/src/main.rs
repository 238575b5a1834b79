//! Lambda wiring only: telemetry, configuration, adapters built once, the runtime.

use std::sync::Arc;

use connect::ConnectHandler;
use lambda_runtime::{Error, run, service_fn};
use shared::adapters::aws;
use shared::config::Config;
use shared::ports::SystemClock;
use shared::websocket::RouteHandler;

#[tokio::main]
async fn main() -> Result<(), Error> {
    shared::telemetry::init();
    let config = Arc::new(Config::from_env()?);
    let sdk = aws::sdk_config().await;
    let handler = ConnectHandler::new(
        config.clone(),
        aws::player_store(&sdk, &config),
        aws::connection_gateway(&sdk),
        Arc::new(SystemClock),
        aws::event_bus(&sdk, &config),
    );
    let handler = &handler;
    run(service_fn(move |event| {
        shared::metrics::invocation(handler.handle(event))
    }))
    .await
}
