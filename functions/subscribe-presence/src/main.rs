//! Lambda wiring only: the handler as `subscribe_presence::wire` builds it, on AWS.

#[tokio::main]
async fn main() -> Result<(), lambda_runtime::Error> {
    aws_adapters::lambda::serve_route(subscribe_presence::wire).await
}
