//! Lambda wiring only: telemetry and the runtime (this route needs no AWS clients).

use default::DefaultHandler;
use edge::websocket::RouteHandler;
use lambda_runtime::{Error, run, service_fn};

#[tokio::main]
async fn main() -> Result<(), Error> {
    shared::telemetry::init();
    let handler = DefaultHandler::new();
    let handler = &handler;
    run(service_fn(move |event| {
        shared::metrics::invocation(handler.handle(event))
    }))
    .await
}
