//! Where the stack keeps its state: in memory by default, or DynamoDB Local (any
//! DynamoDB-compatible endpoint) with the real adapters, tables created first. Each
//! comes with the Messages table's stream ([`MessageStream`]): the in-memory store
//! reports its inserts to it; on DynamoDB it reads the table's real stream.

use std::sync::Arc;

use aws_adapters::calls::Recorder;
use aws_adapters::dynamodb::{
    client_for_endpoint, create_friends_table, create_messages_table, create_parties_table,
    create_placements_table, create_players_table, create_subscriptions_table,
};
use aws_adapters::wiring::DynamoStores;
use memory_adapters::{InMemoryMessageStore, MemoryStores};
use shared::config::Config;
use shared::ports::StoreError;
use shared::wiring::Stores;

use crate::integration::dynamodb::{DynamoDbUpdateItem, MemoryUpdateItem, UpdateItem};
use crate::settings::Settings;
use crate::stream::record::local_stream_arn;
use crate::stream::{MemoryStream, MessageStream};

/// The tables, as the handlers' wiring asks them for ports.
pub struct Storage {
    pub stores: Arc<dyn Stores>,
    /// Human-readable: "in memory" or the endpoint.
    pub description: String,
    /// The Messages table's stream, not consumed yet.
    pub stream: MessageStream,
    /// What API Gateway's DynamoDB integration (the heartbeat route) calls.
    pub update_item: Arc<dyn UpdateItem>,
}

/// Builds the stores the settings ask for, with the tables `config` names.
pub async fn open(settings: &Settings, config: &Config) -> Result<Storage, StoreError> {
    let stream = MessageStream::new(settings.stream_source(), settings.stream_mapping());
    match &settings.storage.dynamodb_endpoint {
        None => {
            let observer = MemoryStream::new(
                stream.input(),
                local_stream_arn(&settings.storage.messages_table),
            );
            let stores = MemoryStores::new(
                InMemoryMessageStore::with_observer(observer),
                settings.presence.presence_shards,
            );
            Ok(Storage {
                update_item: Arc::new(MemoryUpdateItem::new(
                    settings.storage.players_table.clone(),
                    stores.players.clone(),
                )),
                stores: Arc::new(stores),
                description: "in memory".to_owned(),
                stream,
            })
        }
        Some(endpoint) => {
            let client = client_for_endpoint(endpoint).await;
            create_players_table(&client, &settings.storage.players_table).await?;
            create_messages_table(&client, &settings.storage.messages_table).await?;
            create_subscriptions_table(&client, &settings.storage.subscriptions_table).await?;
            create_placements_table(&client, &settings.storage.placements_table).await?;
            create_parties_table(&client, &settings.storage.parties_table).await?;
            create_friends_table(&client, &settings.storage.friends_table).await?;
            Ok(Storage {
                update_item: Arc::new(DynamoDbUpdateItem::new(client.clone())),
                // The calls are recorded for nothing here: no IAM locally.
                stores: Arc::new(DynamoStores::new(client, config, Recorder::default())),
                description: format!("DynamoDB at {endpoint}"),
                stream,
            })
        }
    }
}
