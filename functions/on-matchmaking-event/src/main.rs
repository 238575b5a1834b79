//! Lambda wiring only: the handler as `on_matchmaking_event::wire` builds it, on AWS.

use on_matchmaking_event::MatchmakingEventHandler;

#[tokio::main]
async fn main() -> Result<(), lambda_runtime::Error> {
    aws_adapters::lambda::serve(on_matchmaking_event::wire, MatchmakingEventHandler::handle).await
}
