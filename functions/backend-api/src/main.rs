//! Lambda wiring only: telemetry, configuration, adapters built once, the runtime.

use std::sync::Arc;

use backend_api::BackendApi;
use lambda_http::{Error, Request, run, service_fn};
use shared::adapters::aws;
use shared::config::Config;
use shared::ports::SystemClock;

#[tokio::main]
async fn main() -> Result<(), Error> {
    shared::telemetry::init();
    let config = Arc::new(Config::from_env()?);
    let sdk = aws::sdk_config().await;
    let api = BackendApi::new(
        config.clone(),
        aws::player_store(&sdk, &config),
        aws::message_store(&sdk, &config),
        aws::party_store(&sdk, &config),
        Arc::new(SystemClock),
    );
    let api = &api;
    run(service_fn(move |request: Request| async move {
        Ok::<_, Error>(shared::metrics::invocation(api.handle(request)).await)
    }))
    .await
}
