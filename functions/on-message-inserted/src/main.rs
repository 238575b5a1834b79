//! Lambda wiring only: the handler as `on_message_inserted::wire` builds it, on AWS.

use on_message_inserted::MessageInsertedHandler;

#[tokio::main]
async fn main() -> Result<(), lambda_runtime::Error> {
    aws_adapters::lambda::serve(on_message_inserted::wire, MessageInsertedHandler::handle).await
}
