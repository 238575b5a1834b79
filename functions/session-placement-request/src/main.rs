//! Lambda wiring only: the handler as `session_placement_request::wire` builds it, on AWS.

#[tokio::main]
async fn main() -> Result<(), lambda_runtime::Error> {
    aws_adapters::lambda::serve_route(session_placement_request::wire).await
}
