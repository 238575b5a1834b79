//! Lambda wiring only: telemetry, configuration, the handler built once, the runtime.

use authorizer::{AuthConfig, AuthMode, Authorizer};
use lambda_runtime::{Error, run, service_fn};

#[tokio::main]
async fn main() -> Result<(), Error> {
    shared::telemetry::init();
    let config = AuthConfig::from_env()
        .inspect_err(|error| tracing::error!(%error, "invalid configuration"))?;
    tracing::info!(auth_mode = config.mode().as_str(), "authorizer starting");
    if config.mode() == AuthMode::Header {
        tracing::warn!("AUTH_MODE=header: clients name themselves; for development only");
    }
    let handler = Authorizer::from_config(config)
        .inspect_err(|error| tracing::error!(%error, "cannot build the JWKS client"))?;
    // Fetch the JWKS during init (which has a CPU boost), not on the first request.
    handler.warm_up().await;
    let handler = &handler;
    run(service_fn(move |event| handler.handle(event))).await
}
