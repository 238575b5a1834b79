//! The placement topic's subscription (template: the SNS topic → `on-placement-event`):
//! every SNS event the GameLift simulator publishes is handed to the real handler as an
//! asynchronous Lambda invocation would be, each in its own task (SNS does not order a
//! standard topic's deliveries), with Lambda's two retries after a function error. An
//! event that still fails is logged; deployed, it would go to the dead-letter queue.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use async_trait::async_trait;
use shared::domain::PlayerId;
use shared::ports::{GameLiftError, PlayerConnection, PlayerConnections};

use lambda_runtime::{Context, LambdaEvent};
use on_placement_event::PlacementEventHandler;
use serde_json::Value;

use crate::gamelift::{EventSink, event_sink};

/// Lambda's asynchronous invocations: the first attempt and two retries. Lambda waits
/// about a minute, then two, between them; locally a second, then two.
const RETRY_DELAYS: [Duration; 2] = [Duration::from_secs(1), Duration::from_secs(2)];

/// A sink that invokes `handler` with each SNS event, without waiting for it.
pub fn to_handler(handler: Arc<PlacementEventHandler>) -> EventSink {
    event_sink(move |sns_event: Value| {
        let handler = handler.clone();
        async move {
            tokio::spawn(deliver(handler, sns_event));
        }
    })
}

async fn deliver(handler: Arc<PlacementEventHandler>, sns_event: Value) {
    let request_id = uuid::Uuid::new_v4().to_string();
    let mut delays = RETRY_DELAYS.iter();
    loop {
        let mut context = Context::default();
        context.request_id.clone_from(&request_id);
        context.invoked_function_arn =
            "arn:aws:lambda:local:000000000000:function:on-placement-event".to_owned();
        let result = handler
            .handle(LambdaEvent::new(sns_event.clone(), context))
            .await;
        let Err(error) = result else { return };
        match delays.next() {
            Some(delay) => {
                tracing::warn!(request_id, %error, retry_in = ?delay, "on-placement-event failed; retrying as Lambda would");
                tokio::time::sleep(*delay).await;
            }
            None => {
                tracing::error!(request_id, %error, event = %sns_event, "on-placement-event failed three times; deployed, this event would go to the dead-letter queue");
                return;
            }
        }
    }
}

/// The simulator's GetPlayerConnectionDetails for `on-placement-event`, which is built
/// before the simulator (it is the target of the simulator's events): set once the
/// simulator is up, before any placement can be fulfilled.
#[derive(Default)]
pub struct LateConnections(OnceLock<Arc<dyn PlayerConnections>>);

impl LateConnections {
    pub fn set(&self, connections: Arc<dyn PlayerConnections>) {
        let _ = self.0.set(connections);
    }
}

#[async_trait]
impl PlayerConnections for LateConnections {
    async fn get_player_connection_details(
        &self,
        game_session_arn: &str,
        players: &[PlayerId],
    ) -> Result<Vec<PlayerConnection>, GameLiftError> {
        match self.0.get() {
            Some(connections) => {
                connections
                    .get_player_connection_details(game_session_arn, players)
                    .await
            }
            None => Err(GameLiftError::Unavailable(
                "the GameLift simulator is not started yet".into(),
            )),
        }
    }
}
