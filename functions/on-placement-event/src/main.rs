//! Lambda wiring only: the handler as `on_placement_event::wire` builds it, on AWS.

use on_placement_event::PlacementEventHandler;

#[tokio::main]
async fn main() -> Result<(), lambda_runtime::Error> {
    aws_adapters::lambda::serve(on_placement_event::wire, PlacementEventHandler::handle).await
}
