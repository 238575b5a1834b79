//! Creating the tables the way the SAM template defines them, for DynamoDB Local (the
//! local stack's `--dynamodb-endpoint`, and the tests). The deployed stack's tables come
//! from the template, never from here.

use std::time::Duration;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::client::Waiters;
use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};
use aws_sdk_dynamodb::error::{BuildError, ProvideErrorMetadata};
use aws_sdk_dynamodb::operation::create_table::builders::CreateTableFluentBuilder;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType, Projection,
    ProjectionType, ScalarAttributeType, TimeToLiveSpecification, TimeToLiveStatus,
};

use super::error::store_error;
use super::player_item::attr;
use super::player_store::SWEEP_INDEX;
use shared::ports::StoreError;

/// How long [`create_players_table`] waits for a new table to become ACTIVE (instant on
/// DynamoDB Local; tens of seconds on DynamoDB).
const TABLE_ACTIVE_TIMEOUT: Duration = Duration::from_secs(300);

/// A client for DynamoDB Local (or any DynamoDB-compatible endpoint): static fake
/// credentials, region us-east-1, and nothing read from the environment.
///
/// DynamoDB Local keeps a separate set of tables per access key and region unless it
/// runs with `-sharedDb`; every client made here uses the same ones (`local`, us-east-1).
pub async fn client_for_endpoint(endpoint: &str) -> Client {
    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::from_static("us-east-1"))
        .credentials_provider(Credentials::new(
            "local",
            "local",
            None,
            None,
            "dynamodb-local",
        ))
        .endpoint_url(endpoint)
        .build();
    Client::from_conf(config)
}

/// Creates the Players table as the SAM template defines it (on-demand, PK `playerId`,
/// KEYS_ONLY GSI `BySweepShard` on `sweepShard`, TTL on `expireAt`), waits
/// until it is ACTIVE, and enables TTL. Idempotent: an existing table is left as it is
/// (only TTL is enabled on it if it was not).
pub async fn create_players_table(client: &Client, name: &str) -> Result<(), StoreError> {
    let table = client
        .create_table()
        .table_name(name)
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(attribute(attr::PLAYER_ID, ScalarAttributeType::S)?)
        .attribute_definitions(attribute(attr::SWEEP_SHARD, ScalarAttributeType::N)?)
        .key_schema(key_element(attr::PLAYER_ID, KeyType::Hash)?)
        .global_secondary_indexes(
            GlobalSecondaryIndex::builder()
                .index_name(SWEEP_INDEX)
                .key_schema(key_element(attr::SWEEP_SHARD, KeyType::Hash)?)
                .projection(
                    Projection::builder()
                        .projection_type(ProjectionType::KeysOnly)
                        .build(),
                )
                .build()
                .map_err(build_error)?,
        );
    create_active_with_ttl(client, name, table, attr::EXPIRE_AT).await
}

/// Creates the Messages table as the SAM template defines it (on-demand, PK
/// `recipientId`, SK `seq` (N), no index, stream `NEW_IMAGE`, TTL on `expireAt`), waits
/// until it is ACTIVE, and enables TTL. Idempotent: an existing table is left as it is
/// (only TTL is enabled on it if it was not).
pub async fn create_messages_table(client: &Client, name: &str) -> Result<(), StoreError> {
    use super::message_item::attr as message;
    use aws_sdk_dynamodb::types::{StreamSpecification, StreamViewType};

    let table = client
        .create_table()
        .table_name(name)
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(attribute(message::RECIPIENT_ID, ScalarAttributeType::S)?)
        .attribute_definitions(attribute(message::SEQ, ScalarAttributeType::N)?)
        .key_schema(key_element(message::RECIPIENT_ID, KeyType::Hash)?)
        .key_schema(key_element(message::SEQ, KeyType::Range)?)
        .stream_specification(
            StreamSpecification::builder()
                .stream_enabled(true)
                .stream_view_type(StreamViewType::NewImage)
                .build()
                .map_err(build_error)?,
        );
    create_active_with_ttl(client, name, table, message::EXPIRE_AT).await
}

/// Creates the PresenceSubscriptions table as the SAM template defines it (on-demand,
/// PK `targetId`, SK `watcherId`, TTL on `expireAt`), waits until it is ACTIVE, and
/// enables TTL. Idempotent: an existing table is left as it is (only TTL is enabled on
/// it if it was not).
pub async fn create_subscriptions_table(client: &Client, name: &str) -> Result<(), StoreError> {
    use super::subscription_item::attr as subscription;

    let table = client
        .create_table()
        .table_name(name)
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(attribute(subscription::TARGET_ID, ScalarAttributeType::S)?)
        .attribute_definitions(attribute(subscription::WATCHER_ID, ScalarAttributeType::S)?)
        .key_schema(key_element(subscription::TARGET_ID, KeyType::Hash)?)
        .key_schema(key_element(subscription::WATCHER_ID, KeyType::Range)?);
    create_active_with_ttl(client, name, table, subscription::EXPIRE_AT).await
}

/// Creates the Placements table as the SAM template defines it (on-demand, PK
/// `placementId`, TTL on `expireAt`), waits until it is ACTIVE, and enables TTL.
/// Idempotent: an existing table is left as it is (only TTL is enabled on it if it was
/// not).
pub async fn create_placements_table(client: &Client, name: &str) -> Result<(), StoreError> {
    use super::placement_item::attr as placement;

    let table = client
        .create_table()
        .table_name(name)
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(attribute(placement::PLACEMENT_ID, ScalarAttributeType::S)?)
        .key_schema(key_element(placement::PLACEMENT_ID, KeyType::Hash)?);
    create_active_with_ttl(client, name, table, placement::EXPIRE_AT).await
}

/// Creates the Parties table as the SAM template defines it (on-demand, PK `partyId`,
/// SK `sk`, KEYS_ONLY GSI `ByOfflineSince` on `sweepShard` + `offlineSince`, TTL on
/// `expireAt`), waits until it is ACTIVE, and enables TTL. Idempotent: an existing table
/// is left as it is (only TTL is enabled on it if it was not).
pub async fn create_parties_table(client: &Client, name: &str) -> Result<(), StoreError> {
    use super::party_item::attr as party;
    use super::party_store::OFFLINE_INDEX;

    let table = client
        .create_table()
        .table_name(name)
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(attribute(party::PARTY_ID, ScalarAttributeType::S)?)
        .attribute_definitions(attribute(party::SK, ScalarAttributeType::S)?)
        .attribute_definitions(attribute(party::SWEEP_SHARD, ScalarAttributeType::N)?)
        .attribute_definitions(attribute(party::OFFLINE_SINCE, ScalarAttributeType::N)?)
        .key_schema(key_element(party::PARTY_ID, KeyType::Hash)?)
        .key_schema(key_element(party::SK, KeyType::Range)?)
        .global_secondary_indexes(
            GlobalSecondaryIndex::builder()
                .index_name(OFFLINE_INDEX)
                .key_schema(key_element(party::SWEEP_SHARD, KeyType::Hash)?)
                .key_schema(key_element(party::OFFLINE_SINCE, KeyType::Range)?)
                .projection(
                    Projection::builder()
                        .projection_type(ProjectionType::KeysOnly)
                        .build(),
                )
                .build()
                .map_err(build_error)?,
        );
    create_active_with_ttl(client, name, table, party::EXPIRE_AT).await
}

/// Creates the Friends table as the SAM template defines it (on-demand, PK `playerId`,
/// SK `otherId`, no index, no TTL: a relation lasts until a player ends it), and waits
/// until it is ACTIVE. Idempotent: an existing table is left as it is.
pub async fn create_friends_table(client: &Client, name: &str) -> Result<(), StoreError> {
    use super::friend_item::attr as friend;

    let table = client
        .create_table()
        .table_name(name)
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(attribute(friend::PLAYER_ID, ScalarAttributeType::S)?)
        .attribute_definitions(attribute(friend::OTHER_ID, ScalarAttributeType::S)?)
        .key_schema(key_element(friend::PLAYER_ID, KeyType::Hash)?)
        .key_schema(key_element(friend::OTHER_ID, KeyType::Range)?);
    create_active(client, name, table).await
}

/// Sends a CreateTable (an existing table is fine), waits until the table is ACTIVE and
/// turns TTL on for `ttl_attribute`.
async fn create_active_with_ttl(
    client: &Client,
    name: &str,
    table: CreateTableFluentBuilder,
    ttl_attribute: &str,
) -> Result<(), StoreError> {
    create_active(client, name, table).await?;
    enable_ttl(client, name, ttl_attribute).await
}

/// Sends a CreateTable (an existing table is fine) and waits until the table is ACTIVE.
async fn create_active(
    client: &Client,
    name: &str,
    table: CreateTableFluentBuilder,
) -> Result<(), StoreError> {
    match table.send().await {
        Ok(_) => {}
        Err(err) if err.code() == Some("ResourceInUseException") => {}
        Err(err) => return Err(store_error(err)),
    }
    client
        .wait_until_table_exists()
        .table_name(name)
        .wait(TABLE_ACTIVE_TIMEOUT)
        .await
        .map_err(|e| StoreError::Unavailable(Box::new(e)))?;
    Ok(())
}

/// Turns on TTL unless it already is; a DynamoDB-compatible endpoint that does not
/// implement TTL is not an error (items just stay).
async fn enable_ttl(client: &Client, table: &str, attribute: &str) -> Result<(), StoreError> {
    match client
        .describe_time_to_live()
        .table_name(table)
        .send()
        .await
    {
        Ok(output) => {
            let ttl = output.time_to_live_description();
            let on = matches!(
                ttl.and_then(|d| d.time_to_live_status()),
                Some(TimeToLiveStatus::Enabled | TimeToLiveStatus::Enabling)
            );
            if on && ttl.and_then(|d| d.attribute_name()) == Some(attribute) {
                return Ok(());
            }
        }
        Err(err) if unsupported(err.code(), err.message()) => return Ok(()),
        Err(err) => return Err(store_error(err)),
    }
    let spec = TimeToLiveSpecification::builder()
        .enabled(true)
        .attribute_name(attribute)
        .build()
        .map_err(build_error)?;
    match client
        .update_time_to_live()
        .table_name(table)
        .time_to_live_specification(spec)
        .send()
        .await
    {
        Ok(_) => Ok(()),
        Err(err) if unsupported(err.code(), err.message()) => Ok(()),
        Err(err) => Err(store_error(err)),
    }
}

fn unsupported(code: Option<&str>, message: Option<&str>) -> bool {
    let message = message.unwrap_or_default().to_ascii_lowercase();
    matches!(
        code,
        Some("UnknownOperationException" | "UnsupportedOperationException")
    ) || message.contains("not supported")
        || message.contains("unsupported")
}

fn attribute(name: &str, kind: ScalarAttributeType) -> Result<AttributeDefinition, StoreError> {
    AttributeDefinition::builder()
        .attribute_name(name)
        .attribute_type(kind)
        .build()
        .map_err(build_error)
}

fn key_element(name: &str, kind: KeyType) -> Result<KeySchemaElement, StoreError> {
    KeySchemaElement::builder()
        .attribute_name(name)
        .key_type(kind)
        .build()
        .map_err(build_error)
}

fn build_error(err: BuildError) -> StoreError {
    StoreError::Other(Box::new(err))
}
