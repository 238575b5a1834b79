//! Lambda wiring only: telemetry, configuration, adapters built once, the runtime.

use lambda_runtime::{Error, run, service_fn};
use rejoin_session::RejoinSessionHandler;
use shared::adapters::aws;
use shared::config::Config;
use shared::websocket::RouteHandler;

#[tokio::main]
async fn main() -> Result<(), Error> {
    shared::telemetry::init();
    let config = Config::from_env()?;
    let sdk = aws::sdk_config().await;
    let handler = RejoinSessionHandler::new(aws::player_store(&sdk, &config), aws::gamelift(&sdk));
    let handler = &handler;
    run(service_fn(move |event| {
        shared::metrics::invocation(handler.handle(event))
    }))
    .await
}
