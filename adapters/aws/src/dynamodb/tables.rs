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
    ProjectionType, ScalarAttributeType, StreamSpecification, StreamViewType,
    TimeToLiveSpecification, TimeToLiveStatus,
};

use super::error::store_error;
use super::friend_item::attr as friend;
use super::message_item::attr as message;
use super::party_item::attr as party;
use super::party_store::OFFLINE_INDEX;
use super::placement_item::attr as placement;
use super::player_item::attr;
use super::player_store::SWEEP_INDEX;
use super::subscription_item::attr as subscription;
use shared::ports::StoreError;

/// How long [`create`] waits for a new table to become ACTIVE (instant on
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

/// A key attribute: its name and whether it is a number (`N`) or a string (`S`).
type Key = (&'static str, Scalar);

#[derive(Clone, Copy)]
enum Scalar {
    S,
    N,
}

/// A table as the SAM template defines it: on-demand, its keys, at most one KEYS_ONLY
/// global secondary index, a `NEW_IMAGE` stream or none, TTL on an attribute or none.
#[derive(Clone, Copy)]
struct Table {
    hash: Key,
    range: Option<Key>,
    index: Option<Index>,
    stream: bool,
    ttl: Option<&'static str>,
}

/// A KEYS_ONLY global secondary index.
#[derive(Clone, Copy)]
struct Index {
    name: &'static str,
    hash: Key,
    range: Option<Key>,
}

use Scalar::{N, S};

impl Table {
    /// On its keys alone: no index, no stream, no TTL.
    const fn keyed(hash: Key, range: Option<Key>) -> Self {
        Self {
            hash,
            range,
            index: None,
            stream: false,
            ttl: None,
        }
    }

    const fn indexed(self, name: &'static str, hash: Key, range: Option<Key>) -> Self {
        Self {
            index: Some(Index { name, hash, range }),
            ..self
        }
    }

    const fn streamed(self) -> Self {
        Self {
            stream: true,
            ..self
        }
    }

    const fn expiring(self, ttl: &'static str) -> Self {
        Self {
            ttl: Some(ttl),
            ..self
        }
    }
}

const PLAYERS: Table = Table::keyed((attr::PLAYER_ID, S), None)
    .indexed(SWEEP_INDEX, (attr::SWEEP_SHARD, N), None)
    .expiring(attr::EXPIRE_AT);

/// Its stream feeds on-message-inserted.
const MESSAGES: Table = Table::keyed((message::RECIPIENT_ID, S), Some((message::SEQ, N)))
    .streamed()
    .expiring(message::EXPIRE_AT);

const SUBSCRIPTIONS: Table = Table::keyed(
    (subscription::TARGET_ID, S),
    Some((subscription::WATCHER_ID, S)),
)
.expiring(subscription::EXPIRE_AT);

const PLACEMENTS: Table =
    Table::keyed((placement::PLACEMENT_ID, S), None).expiring(placement::EXPIRE_AT);

const PARTIES: Table = Table::keyed((party::PARTY_ID, S), Some((party::SK, S)))
    .indexed(
        OFFLINE_INDEX,
        (party::SWEEP_SHARD, N),
        Some((party::OFFLINE_SINCE, N)),
    )
    .expiring(party::EXPIRE_AT);

/// No TTL: a relation lasts until a player ends it.
const FRIENDS: Table = Table::keyed((friend::PLAYER_ID, S), Some((friend::OTHER_ID, S)));

/// The public creators, one a table, each [`create`] on its [`Table`].
macro_rules! creators {
    ($($(#[$doc:meta])* $function:ident => $table:ident;)+) => {
        $(
            $(#[$doc])*
            pub async fn $function(client: &Client, name: &str) -> Result<(), StoreError> {
                create(client, name, &$table).await
            }
        )+
    };
}

creators! {
    /// Creates the Players table, as `PLAYERS` declares it (idempotent).
    create_players_table => PLAYERS;
    /// Creates the Messages table, as `MESSAGES` declares it (idempotent).
    create_messages_table => MESSAGES;
    /// Creates the PresenceSubscriptions table, as `SUBSCRIPTIONS` declares it (idempotent).
    create_subscriptions_table => SUBSCRIPTIONS;
    /// Creates the Placements table, as `PLACEMENTS` declares it (idempotent).
    create_placements_table => PLACEMENTS;
    /// Creates the Parties table, as `PARTIES` declares it (idempotent).
    create_parties_table => PARTIES;
    /// Creates the Friends table, as `FRIENDS` declares it (idempotent).
    create_friends_table => FRIENDS;
}

/// Creates `table` under `name`, waits until it is ACTIVE, and enables its TTL.
/// Idempotent: an existing table is left as it is (only TTL is enabled on it if it was
/// not).
async fn create(client: &Client, name: &str, table: &Table) -> Result<(), StoreError> {
    let index_keys = table
        .index
        .into_iter()
        .flat_map(|i| [Some(i.hash), i.range]);
    let definitions = [Some(table.hash), table.range]
        .into_iter()
        .chain(index_keys)
        .flatten()
        .map(attribute)
        .collect::<Result<Vec<_>, _>>()?;
    let request = client
        .create_table()
        .table_name(name)
        .billing_mode(BillingMode::PayPerRequest)
        .set_attribute_definitions(Some(definitions))
        .set_key_schema(Some(key_schema(table.hash, table.range)?))
        .set_global_secondary_indexes(table.index.map(global_index).transpose()?.map(|i| vec![i]))
        .set_stream_specification(table.stream.then(new_image_stream).transpose()?);
    create_active(client, name, request).await?;
    match table.ttl {
        Some(ttl_attribute) => enable_ttl(client, name, ttl_attribute).await,
        None => Ok(()),
    }
}

fn global_index(index: Index) -> Result<GlobalSecondaryIndex, StoreError> {
    GlobalSecondaryIndex::builder()
        .index_name(index.name)
        .set_key_schema(Some(key_schema(index.hash, index.range)?))
        .projection(
            Projection::builder()
                .projection_type(ProjectionType::KeysOnly)
                .build(),
        )
        .build()
        .map_err(build_error)
}

fn new_image_stream() -> Result<StreamSpecification, StoreError> {
    StreamSpecification::builder()
        .stream_enabled(true)
        .stream_view_type(StreamViewType::NewImage)
        .build()
        .map_err(build_error)
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

fn attribute((name, kind): Key) -> Result<AttributeDefinition, StoreError> {
    let kind = match kind {
        S => ScalarAttributeType::S,
        N => ScalarAttributeType::N,
    };
    AttributeDefinition::builder()
        .attribute_name(name)
        .attribute_type(kind)
        .build()
        .map_err(build_error)
}

/// The HASH key, then the RANGE key if there is one.
fn key_schema(hash: Key, range: Option<Key>) -> Result<Vec<KeySchemaElement>, StoreError> {
    [
        Some((hash, KeyType::Hash)),
        range.map(|key| (key, KeyType::Range)),
    ]
    .into_iter()
    .flatten()
    .map(|((name, _), kind)| {
        KeySchemaElement::builder()
            .attribute_name(name)
            .key_type(kind)
            .build()
            .map_err(build_error)
    })
    .collect()
}

fn build_error(err: BuildError) -> StoreError {
    StoreError::Other(Box::new(err))
}
