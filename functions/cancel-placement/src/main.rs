//! Lambda wiring only: the handler as `cancel_placement::wire` builds it, on AWS.

#[tokio::main]
async fn main() -> Result<(), lambda_runtime::Error> {
    aws_adapters::lambda::serve_route(cancel_placement::wire).await
}
