//! Production wiring for Lambda `main.rs` files: one SDK configuration per process and
//! the AWS adapters built from it, once, during init.

use std::sync::Arc;
use std::time::Duration;

use aws_config::timeout::TimeoutConfig;
use aws_config::{BehaviorVersion, SdkConfig};

use crate::adapters::apigateway::ApiGatewayManagementGateway;
use crate::adapters::dynamodb::{DynamoMessageStore, DynamoPlayerStore};
use crate::config::Config;
use crate::ports::{ConnectionGateway, MessageStore, PlayerStore};

/// The SDK configuration from the Lambda environment (region, credentials), with
/// timeouts well inside a function's own: a hung call becomes a retryable error instead
/// of a timed-out invocation.
pub async fn sdk_config() -> SdkConfig {
    let timeouts = TimeoutConfig::builder()
        .connect_timeout(Duration::from_secs(2))
        .operation_attempt_timeout(Duration::from_secs(3))
        .operation_timeout(Duration::from_secs(8))
        .build();
    aws_config::defaults(BehaviorVersion::latest())
        .timeout_config(timeouts)
        .load()
        .await
}

pub fn player_store(sdk: &SdkConfig, config: &Config) -> Arc<dyn PlayerStore> {
    Arc::new(DynamoPlayerStore::new(
        aws_sdk_dynamodb::Client::new(sdk),
        config.players_table.clone(),
    ))
}

pub fn message_store(sdk: &SdkConfig, config: &Config) -> Arc<dyn MessageStore> {
    Arc::new(DynamoMessageStore::new(
        aws_sdk_dynamodb::Client::new(sdk),
        config.messages_table.clone(),
    ))
}

/// `resume`'s hand-over: one TransactWriteItems across Players and Messages.
pub fn delivery_handover(
    sdk: &SdkConfig,
    config: &Config,
) -> Arc<dyn crate::ports::DeliveryHandover> {
    Arc::new(crate::adapters::dynamodb::DynamoDeliveryHandover::new(
        aws_sdk_dynamodb::Client::new(sdk),
        config.players_table.clone(),
        config.messages_table.clone(),
    ))
}

pub fn placement_store(sdk: &SdkConfig, config: &Config) -> Arc<dyn crate::ports::PlacementStore> {
    Arc::new(crate::adapters::dynamodb::DynamoPlacementStore::new(
        aws_sdk_dynamodb::Client::new(sdk),
        config.placements_table.clone(),
    ))
}

/// Placement settlements: one TransactWriteItems across Placements, Players and Messages.
pub fn placement_outcomes(
    sdk: &SdkConfig,
    config: &Config,
) -> Arc<dyn crate::ports::PlacementOutcomes> {
    Arc::new(crate::adapters::dynamodb::DynamoPlacementOutcomes::new(
        aws_sdk_dynamodb::Client::new(sdk),
        config.placements_table.clone(),
        config.players_table.clone(),
        config.messages_table.clone(),
    ))
}

pub fn connection_gateway(sdk: &SdkConfig) -> Arc<dyn ConnectionGateway> {
    Arc::new(ApiGatewayManagementGateway::new(sdk.clone()))
}

pub fn gamelift(sdk: &SdkConfig) -> Arc<dyn crate::ports::GameLift> {
    Arc::new(crate::adapters::gamelift::SdkGameLift::from_sdk_config(sdk))
}

/// Presence events to the custom bus `PRESENCE_EVENT_BUS`, `Source` = `<GAME>.presence`.
pub fn event_bus(sdk: &SdkConfig, config: &Config) -> Arc<dyn crate::ports::EventBus> {
    Arc::new(crate::adapters::eventbridge::EventBridgeBus::new(
        aws_sdk_eventbridge::Client::new(sdk),
        config.presence_event_bus.clone(),
        crate::ports::event_bus::presence_source(&config.game),
    ))
}

pub fn subscription_store(
    sdk: &SdkConfig,
    config: &Config,
) -> Arc<dyn crate::ports::SubscriptionStore> {
    Arc::new(crate::adapters::dynamodb::DynamoSubscriptionStore::new(
        aws_sdk_dynamodb::Client::new(sdk),
        config.subscriptions_table.clone(),
    ))
}
