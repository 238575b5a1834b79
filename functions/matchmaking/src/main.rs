//! Lambda wiring only: the handler as `matchmaking::wire` builds it, on AWS.

#[tokio::main]
async fn main() -> Result<(), lambda_runtime::Error> {
    aws_adapters::lambda::serve_route(matchmaking::wire).await
}
