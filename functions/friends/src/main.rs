//! Lambda wiring only: the handler as `friends::wire` builds it, on AWS.

#[tokio::main]
async fn main() -> Result<(), lambda_runtime::Error> {
    aws_adapters::lambda::serve_route(friends::wire).await
}
