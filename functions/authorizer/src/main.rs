//! Lambda wiring only: telemetry, configuration, the HS256 secret from Parameter Store
//! (when one is named), the handler built once, the runtime.
//!
//! A start-up failure is logged once, as one line saying what is wrong, and the process
//! exits with status 1 (returning the error from `main` would print it a second time,
//! as a debug dump outside the JSON log stream).

use std::process::ExitCode;

use authorizer::secret::{self, SsmSecrets};
use authorizer::{AuthConfig, AuthMode, Authorizer};
use lambda_runtime::{run, service_fn};

#[tokio::main]
async fn main() -> ExitCode {
    shared::telemetry::init();
    let config = match AuthConfig::from_env() {
        Ok(config) => config,
        Err(error) => {
            tracing::error!(%error, "invalid configuration");
            return ExitCode::FAILURE;
        }
    };
    tracing::info!(auth_mode = config.mode().as_str(), "authorizer starting");
    if config.mode() == AuthMode::Header {
        tracing::warn!(
            "AUTH_MODE=header with ALLOW_UNAUTHENTICATED=true: clients name themselves; for \
             development only"
        );
    }
    // Read once, during init (which has a CPU boost), and kept for the process. Only a
    // stack with JWT_HS256_SECRET_PARAMETER builds an AWS client at all.
    let config = match config.secret_parameter().map(str::to_owned) {
        None => config,
        Some(parameter) => {
            // The same client configuration (region, credentials, timeouts, trust roots)
            // as every other function's AWS clients.
            let sdk = aws_adapters::aws::sdk_config().await;
            let ssm = SsmSecrets::new(aws_sdk_ssm::Client::new(&sdk));
            match secret::resolve(config, &ssm).await {
                Ok(config) => {
                    tracing::info!(%parameter, "HS256 secret read from Parameter Store");
                    config
                }
                Err(error) => {
                    tracing::error!(%parameter, "{error}");
                    return ExitCode::FAILURE;
                }
            }
        }
    };
    let handler = match Authorizer::from_config(config) {
        Ok(handler) => handler,
        Err(error) => {
            tracing::error!(%error, "cannot build the JWKS client");
            return ExitCode::FAILURE;
        }
    };
    // Fetch the JWKS during init (which has a CPU boost), not on the first request.
    handler.warm_up().await;
    let handler = &handler;
    match run(service_fn(move |event| {
        shared::metrics::invocation(handler.handle(event))
    }))
    .await
    {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            tracing::error!(%error, "the Lambda runtime stopped");
            ExitCode::FAILURE
        }
    }
}
