//! What every Lambda function's `main` does before its handler runs: telemetry, the
//! configuration read once (every problem at once), the SDK configuration, the wiring;
//! then the handler, built once by the function's `wire`, serves every invocation.

use std::future::Future;
use std::sync::Arc;

use edge::websocket::{RouteEvent, RouteHandler, RouteResult};
use lambda_runtime::{Error, LambdaEvent, run, service_fn};
use serde::Serialize;
use serde::de::DeserializeOwned;
use shared::config::Config;
use shared::matchmaking::MatchmakingSettings;
use shared::ports::SystemClock;
use shared::wiring::Wiring;

/// The function's wiring on AWS, from the Lambda environment.
pub async fn wiring() -> Result<Wiring, Error> {
    shared::telemetry::init();
    let config = Arc::new(Config::from_env()?);
    let matchmaking = MatchmakingSettings::from_env()?;
    let sdk = crate::aws::sdk_config().await;
    let (wiring, _) = crate::wiring::on_aws(&sdk, config, matchmaking, Arc::new(SystemClock));
    Ok(wiring)
}

/// Serves every invocation with `handle` on the handler `wire` builds (kept for the
/// process: it lives as long as the execution environment), each one's metrics flushed
/// after it.
pub async fn serve<H, E, O, F>(
    wire: fn(&Wiring) -> H,
    handle: fn(&'static H, LambdaEvent<E>) -> F,
) -> Result<(), Error>
where
    H: Sync + 'static,
    E: DeserializeOwned + Send + 'static,
    O: Serialize,
    F: Future<Output = Result<O, Error>> + Send,
{
    let handler: &'static H = Box::leak(Box::new(wire(&wiring().await?)));
    // Each invocation's metrics are flushed as EMF lines when it ends (a cold start is
    // counted once): shared::metrics::invocation.
    run(service_fn(move |event| {
        shared::metrics::invocation(handle(handler, event))
    }))
    .await
}

/// [`serve`] for a WebSocket route's handler.
pub async fn serve_route<H: RouteHandler + 'static>(wire: fn(&Wiring) -> H) -> Result<(), Error> {
    fn route<H: RouteHandler>(
        handler: &'static H,
        event: RouteEvent,
    ) -> impl Future<Output = RouteResult> + Send {
        handler.handle(event)
    }
    serve(wire, route::<H>).await
}
