//! DynamoDB Local for the store tests: the endpoint `scripts/test.sh` exports, and a
//! fresh, uniquely named table per test (or per contract scenario).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use aws_adapters::dynamodb::{
    client_for_endpoint, create_friends_table, create_messages_table, create_parties_table,
    create_placements_table, create_players_table, create_subscriptions_table,
};
use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{
    BillingMode, KeySchemaElement, KeyType, TableDescription, TableStatus, TimeToLiveStatus,
};
use shared::ports::StoreError;

/// Set by `scripts/test.sh` to the DynamoDB Local it started.
pub const ENDPOINT_VARIABLE: &str = "DYNAMODB_ENDPOINT";

/// `$DYNAMODB_ENDPOINT`, if set: tests that need DynamoDB Local but should not fail
/// without it (the end-to-end variants) print that they were skipped.
pub fn endpoint() -> Option<String> {
    std::env::var(ENDPOINT_VARIABLE)
        .ok()
        .map(|endpoint| endpoint.trim().to_owned())
        .filter(|endpoint| !endpoint.is_empty())
}

/// `$DYNAMODB_ENDPOINT`, or `None` after saying on stderr that the test is skipped: the
/// end-to-end variants on DynamoDB Local pass without it.
pub fn endpoint_or_skip() -> Option<String> {
    let endpoint = endpoint();
    if endpoint.is_none() {
        eprintln!("{ENDPOINT_VARIABLE} is not set: skipped (scripts/test.sh sets it)");
    }
    endpoint
}

/// Puts the local stack's storage on the DynamoDB Local at `endpoint`, each of its tables
/// fresh (a name no other test uses; the stack creates them).
pub fn use_fresh_tables(storage: &mut local::settings::StorageSettings, endpoint: String) {
    storage.dynamodb_endpoint = Some(endpoint);
    storage.players_table = unique_table_name("e2e-players");
    storage.messages_table = unique_table_name("e2e-messages");
    storage.placements_table = unique_table_name("e2e-placements");
    storage.subscriptions_table = unique_table_name("e2e-subscriptions");
    storage.parties_table = unique_table_name("e2e-parties");
    storage.friends_table = unique_table_name("e2e-friends");
}

/// A client for the DynamoDB Local at `$DYNAMODB_ENDPOINT`.
///
/// # Panics
/// When `DYNAMODB_ENDPOINT` is not set: these tests need DynamoDB Local running.
pub async fn dynamodb_local() -> Client {
    let endpoint = std::env::var(ENDPOINT_VARIABLE)
        .ok()
        .filter(|endpoint| !endpoint.trim().is_empty())
        .unwrap_or_else(|| {
            panic!(
                "DynamoDB Local is not running: run scripts/test.sh, or start it with \
                 scripts/dynamodb-local.sh and export {ENDPOINT_VARIABLE}=http://127.0.0.1:8000"
            )
        });
    client_for_endpoint(endpoint.trim()).await
}

/// The template's tables, each created as the adapters create it for DynamoDB Local
/// (`aws_adapters::dynamodb::create_*_table`, which say their shape).
#[derive(Clone, Copy, Debug)]
pub enum Table {
    Players,
    Messages,
    Subscriptions,
    Placements,
    Parties,
    Friends,
}

impl Table {
    pub const ALL: [Self; 6] = [
        Self::Players,
        Self::Messages,
        Self::Placements,
        Self::Subscriptions,
        Self::Parties,
        Self::Friends,
    ];

    /// Creates the table under `name` (creating an existing one is not an error).
    pub async fn create(self, client: &Client, name: &str) -> Result<(), StoreError> {
        match self {
            Self::Players => create_players_table(client, name).await,
            Self::Messages => create_messages_table(client, name).await,
            Self::Subscriptions => create_subscriptions_table(client, name).await,
            Self::Placements => create_placements_table(client, name).await,
            Self::Parties => create_parties_table(client, name).await,
            Self::Friends => create_friends_table(client, name).await,
        }
    }

    /// Creates the table under a name no other test uses, and returns the name.
    ///
    /// # Panics
    /// When DynamoDB Local refuses or cannot be reached.
    pub async fn fresh(self, client: &Client) -> String {
        let name = unique_table_name(&format!("{self:?}").to_lowercase());
        created(self.create(client, &name).await, name)
    }

    /// A fresh table created a second time (creating an existing table is not an error:
    /// the local stack creates its tables at every start), described and checked as
    /// every table of the template is (`describe_template_table`; the Friends table,
    /// which has no TTL, as `describe_on_demand_table`), for the table's own checks.
    ///
    /// # Panics
    /// When creating again fails, a check fails or DynamoDB Local cannot be reached.
    pub async fn created_twice(self) -> TableDescription {
        let client = dynamodb_local().await;
        let table = self.fresh(&client).await;
        self.create(&client, &table)
            .await
            .expect("creating an existing table is not an error");
        match self {
            Self::Friends => describe_on_demand_table(&client, &table).await,
            _ => describe_template_table(&client, &table).await,
        }
    }
}

/// `name`, once `creating` it succeeded.
fn created<T, E: std::error::Error + 'static>(creating: Result<T, E>, name: String) -> String {
    if let Err(err) = creating {
        panic!(
            "creating table {name} on DynamoDB Local failed: {}",
            error_chain(&err)
        );
    }
    name
}

/// Describes `table` and checks what every table of the template has: ACTIVE,
/// on-demand billing, TTL on `expireAt`. Returns the description for the table's own
/// checks (keys, indexes, stream).
///
/// # Panics
/// When a check fails or DynamoDB Local cannot be reached.
pub async fn describe_template_table(client: &Client, table: &str) -> TableDescription {
    let description = describe_on_demand_table(client, table).await;
    let ttl = client
        .describe_time_to_live()
        .table_name(table)
        .send()
        .await
        .unwrap_or_else(|e| panic!("describing {table}'s TTL: {}", error_chain(&e)));
    let ttl = ttl
        .time_to_live_description()
        .unwrap_or_else(|| panic!("{table} has no TTL description"));
    assert_eq!(ttl.attribute_name(), Some("expireAt"));
    assert_eq!(ttl.time_to_live_status(), Some(&TimeToLiveStatus::Enabled));
    description
}

/// The description of `table`, checked ACTIVE and on-demand as every table of the
/// template is (the Friends table, which has no TTL, is checked with this alone).
///
/// # Panics
/// When a check fails or DynamoDB Local cannot be reached.
pub async fn describe_on_demand_table(client: &Client, table: &str) -> TableDescription {
    let description = client
        .describe_table()
        .table_name(table)
        .send()
        .await
        .unwrap_or_else(|e| panic!("describing {table}: {}", error_chain(&e)))
        .table
        .unwrap_or_else(|| panic!("{table} has no description"));
    assert_eq!(description.table_status(), Some(&TableStatus::Active));
    assert_eq!(
        description
            .billing_mode_summary()
            .and_then(|b| b.billing_mode()),
        Some(&BillingMode::PayPerRequest)
    );
    description
}

/// A key schema as `(attribute, key type)` pairs, to compare with the template's.
pub fn key_pairs(schema: &[KeySchemaElement]) -> Vec<(&str, KeyType)> {
    schema
        .iter()
        .map(|k| (k.attribute_name(), k.key_type().clone()))
        .collect()
}

/// `<prefix>-<nanos>-<counter>`: unique within the process and, by the clock, across
/// processes sharing one DynamoDB Local.
pub fn unique_table_name(prefix: &str) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!("{prefix}-{nanos}-{n}")
}

/// An error and its sources on one line (SDK errors say little at the top level).
pub fn error_chain(err: &(dyn std::error::Error + 'static)) -> String {
    shared::telemetry::ErrorChain(err).to_string()
}

/// Round trips per operation, as a [`CallCounter`](aws_adapters::call_counter::CallCounter)
/// counts them: `calls(&[("GetItem", 1)])`.
pub fn calls(pairs: &[(&str, u64)]) -> std::collections::BTreeMap<String, u64> {
    pairs.iter().map(|(op, n)| ((*op).to_owned(), *n)).collect()
}

/// A client for DynamoDB Local that counts its round trips per operation.
pub async fn counted_client() -> (Client, aws_adapters::call_counter::CallCounter) {
    let counter = aws_adapters::call_counter::CallCounter::new();
    (counter.counting(&dynamodb_local().await), counter)
}
