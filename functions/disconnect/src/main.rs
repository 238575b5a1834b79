//! Lambda wiring only: the handler as `disconnect::wire` builds it, on AWS.

#[tokio::main]
async fn main() -> Result<(), lambda_runtime::Error> {
    aws_adapters::lambda::serve_route(disconnect::wire).await
}
