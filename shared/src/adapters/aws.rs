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

pub fn connection_gateway(sdk: &SdkConfig) -> Arc<dyn ConnectionGateway> {
    Arc::new(ApiGatewayManagementGateway::new(sdk.clone()))
}
