//! Lambda wiring only: telemetry, configuration, the HS256 secret from Parameter Store
//! (when one is named), the handler built once, the runtime.

use authorizer::secret::{self, SsmSecrets};
use authorizer::{AuthConfig, AuthMode, Authorizer};
use lambda_runtime::{Error, run, service_fn};

#[tokio::main]
async fn main() -> Result<(), Error> {
    shared::telemetry::init();
    let config = AuthConfig::from_env()
        .inspect_err(|error| tracing::error!(%error, "invalid configuration"))?;
    tracing::info!(auth_mode = config.mode().as_str(), "authorizer starting");
    if config.mode() == AuthMode::Header {
        tracing::warn!(
            "AUTH_MODE=header with ALLOW_UNAUTHENTICATED=true: clients name themselves; for \
             development only"
        );
    }
    // Read once, during init (which has a CPU boost), and kept for the process. Only a
    // stack with JWT_HS256_SECRET_PARAMETER builds an AWS client at all.
    let config = match config.secret_parameter() {
        None => config,
        Some(parameter) => {
            let parameter = parameter.to_owned();
            // The same client configuration (region, credentials, timeouts, trust roots)
            // as every other function's AWS clients.
            let ssm = SsmSecrets::new(aws_sdk_ssm::Client::new(
                &shared::adapters::aws::sdk_config().await,
            ));
            let config = secret::resolve(config, &ssm)
                .await
                .inspect_err(|error| tracing::error!(%parameter, "{error}"))?;
            tracing::info!(%parameter, "HS256 secret read from Parameter Store");
            config
        }
    };
    let handler = Authorizer::from_config(config)
        .inspect_err(|error| tracing::error!(%error, "cannot build the JWKS client"))?;
    // Fetch the JWKS during init (which has a CPU boost), not on the first request.
    handler.warm_up().await;
    let handler = &handler;
    run(service_fn(move |event| handler.handle(event))).await
}
