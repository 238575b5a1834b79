//! Lambda wiring only: the handler as `presence_timeout::wire` builds it, on AWS.

use presence_timeout::PresenceTimeoutHandler;

#[tokio::main]
async fn main() -> Result<(), lambda_runtime::Error> {
    aws_adapters::lambda::serve(presence_timeout::wire, PresenceTimeoutHandler::handle).await
}
