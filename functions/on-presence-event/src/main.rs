//! Lambda wiring only: the handler as `on_presence_event::wire` builds it, on AWS.

use on_presence_event::PresenceEventHandler;

#[tokio::main]
async fn main() -> Result<(), lambda_runtime::Error> {
    aws_adapters::lambda::serve(on_presence_event::wire, PresenceEventHandler::handle).await
}
