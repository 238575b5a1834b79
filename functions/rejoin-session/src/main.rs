//! Lambda wiring only: the handler as `rejoin_session::wire` builds it, on AWS.

#[tokio::main]
async fn main() -> Result<(), lambda_runtime::Error> {
    aws_adapters::lambda::serve_route(rejoin_session::wire).await
}
