//! Lambda wiring only: the handler as `backend_api::wire` builds it, on AWS, behind
//! `lambda_http` (the HTTP API's payload 2.0 events).

use lambda_http::{Error, Request, run, service_fn};

#[tokio::main]
async fn main() -> Result<(), Error> {
    let api = backend_api::wire(&aws_adapters::lambda::wiring().await?);
    let api = &api;
    run(service_fn(move |request: Request| async move {
        Ok::<_, Error>(shared::metrics::invocation(api.handle(request)).await)
    }))
    .await
}
