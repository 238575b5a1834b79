//! Lambda wiring only: the handler as `send_message::wire` builds it, on AWS.

#[tokio::main]
async fn main() -> Result<(), lambda_runtime::Error> {
    aws_adapters::lambda::serve_route(send_message::wire).await
}
