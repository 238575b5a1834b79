//! Where the stack keeps its state: in memory by default, or DynamoDB Local (any
//! DynamoDB-compatible endpoint) with the real adapters, tables created first. Each
//! comes with the Messages table's stream ([`MessageStream`]): the in-memory store
//! reports its inserts to it; on DynamoDB it reads the table's real stream.

use std::sync::Arc;

use shared::adapters::dynamodb::{
    DynamoMessageStore, DynamoPlayerStore, DynamoSubscriptionStore, client_for_endpoint,
    create_messages_table, create_players_table, create_subscriptions_table,
};
use shared::adapters::memory::{
    InMemoryMessageStore, InMemoryPlayerStore, InMemorySubscriptionStore,
};
use shared::ports::{MessageStore, PlayerStore, StoreError, SubscriptionStore};

use crate::settings::Settings;
use crate::stream::record::local_stream_arn;
use crate::stream::{MemoryStream, MessageStream};

/// The presence subscriptions table (fixed locally, like the names in `Settings::config`).
pub const SUBSCRIPTIONS_TABLE: &str = "PresenceSubscriptions";

/// The stores the handlers use.
pub struct Stores {
    pub players: Arc<dyn PlayerStore>,
    pub messages: Arc<dyn MessageStore>,
    pub subscriptions: Arc<dyn SubscriptionStore>,
    /// Human-readable: "in memory" or the endpoint.
    pub description: String,
    /// The Messages table's stream, not consumed yet.
    pub stream: MessageStream,
}

/// Builds the stores the settings ask for.
pub async fn open(settings: &Settings) -> Result<Stores, StoreError> {
    let stream = MessageStream::new(settings.stream_source(), settings.stream_mapping());
    match &settings.dynamodb_endpoint {
        None => {
            let observer =
                MemoryStream::new(stream.input(), local_stream_arn(&settings.messages_table));
            Ok(Stores {
                players: Arc::new(InMemoryPlayerStore::new()),
                messages: Arc::new(InMemoryMessageStore::with_observer(observer)),
                subscriptions: Arc::new(InMemorySubscriptionStore::new()),
                description: "in memory".to_owned(),
                stream,
            })
        }
        Some(endpoint) => {
            let client = client_for_endpoint(endpoint).await;
            create_players_table(&client, &settings.players_table).await?;
            create_messages_table(&client, &settings.messages_table).await?;
            create_subscriptions_table(&client, SUBSCRIPTIONS_TABLE).await?;
            Ok(Stores {
                players: Arc::new(DynamoPlayerStore::new(
                    client.clone(),
                    settings.players_table.clone(),
                )),
                messages: Arc::new(DynamoMessageStore::new(
                    client.clone(),
                    settings.messages_table.clone(),
                )),
                subscriptions: Arc::new(DynamoSubscriptionStore::new(client, SUBSCRIPTIONS_TABLE)),
                description: format!("DynamoDB at {endpoint}"),
                stream,
            })
        }
    }
}
