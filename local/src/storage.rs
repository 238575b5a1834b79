//! Where the stack keeps its state: in memory by default, or DynamoDB Local (any
//! DynamoDB-compatible endpoint) with the real adapters, tables created first. Each
//! comes with the Messages table's stream ([`MessageStream`]): the in-memory store
//! reports its inserts to it; on DynamoDB it reads the table's real stream.

use std::sync::Arc;

use aws_adapters::dynamodb::{
    DynamoDeliveryHandover, DynamoMessageStore, DynamoPartyStore, DynamoPlacementOutcomes,
    DynamoPlacementStore, DynamoPlayerStore, DynamoSubscriptionStore, DynamoTicketStore,
    client_for_endpoint, create_messages_table, create_parties_table, create_placements_table,
    create_players_table, create_subscriptions_table,
};
use memory_adapters::{
    InMemoryDeliveryHandover, InMemoryMessageStore, InMemoryPartyStore, InMemoryPlacementOutcomes,
    InMemoryPlacementStore, InMemoryPlayerStore, InMemorySubscriptionStore, InMemoryTicketStore,
};
use shared::ports::{
    DeliveryHandover, MessageStore, PartyStore, PlacementOutcomes, PlacementStore, PlayerStore,
    RateLimiter, StoreError, SubscriptionStore, TicketStore,
};

use crate::integration::dynamodb::{DynamoDbUpdateItem, MemoryUpdateItem, UpdateItem};
use crate::settings::Settings;
use crate::stream::record::local_stream_arn;
use crate::stream::{MemoryStream, MessageStream};

/// The stores the handlers use.
pub struct Stores {
    pub players: Arc<dyn PlayerStore>,
    /// Per-player rate limits, counted on the players' items.
    pub rate_limiter: Arc<dyn RateLimiter>,
    pub messages: Arc<dyn MessageStore>,
    /// `resume`'s hand-over across the Players and Messages tables.
    pub handover: Arc<dyn DeliveryHandover>,
    pub subscriptions: Arc<dyn SubscriptionStore>,
    pub placements: Arc<dyn PlacementStore>,
    /// Settles placement outcomes across the Placements, Players and Messages tables.
    pub placement_outcomes: Arc<dyn PlacementOutcomes>,
    /// Parties, whose changes also write Players and Messages.
    pub parties: Arc<dyn PartyStore>,
    /// Matchmaking tickets (in the Placements table), whose changes also write Players
    /// and Messages.
    pub tickets: Arc<dyn TicketStore>,
    /// Human-readable: "in memory" or the endpoint.
    pub description: String,
    /// The Messages table's stream, not consumed yet.
    pub stream: MessageStream,
    /// What API Gateway's DynamoDB integration (the heartbeat route) calls.
    pub update_item: Arc<dyn UpdateItem>,
}

/// Builds the stores the settings ask for.
pub async fn open(settings: &Settings) -> Result<Stores, StoreError> {
    let stream = MessageStream::new(settings.stream_source(), settings.stream_mapping());
    match &settings.storage.dynamodb_endpoint {
        None => {
            let observer = MemoryStream::new(
                stream.input(),
                local_stream_arn(&settings.storage.messages_table),
            );
            let players = Arc::new(InMemoryPlayerStore::new());
            let messages = Arc::new(InMemoryMessageStore::with_observer(observer));
            let placements = Arc::new(InMemoryPlacementStore::new());
            Ok(Stores {
                tickets: Arc::new(InMemoryTicketStore::new(players.clone(), messages.clone())),
                parties: Arc::new(InMemoryPartyStore::new(
                    players.clone(),
                    messages.clone(),
                    settings.presence.presence_shards,
                )),
                placement_outcomes: Arc::new(InMemoryPlacementOutcomes::new(
                    placements.clone(),
                    players.clone(),
                    messages.clone(),
                )),
                handover: Arc::new(InMemoryDeliveryHandover::new(
                    players.clone(),
                    messages.clone(),
                )),
                rate_limiter: players.clone(),
                update_item: Arc::new(MemoryUpdateItem::new(
                    settings.storage.players_table.clone(),
                    players.clone(),
                )),
                players,
                messages,
                placements,
                subscriptions: Arc::new(InMemorySubscriptionStore::new()),
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
            let players = Arc::new(DynamoPlayerStore::new(
                client.clone(),
                settings.storage.players_table.clone(),
            ));
            Ok(Stores {
                tickets: Arc::new(DynamoTicketStore::new(
                    client.clone(),
                    settings.storage.placements_table.clone(),
                    settings.storage.players_table.clone(),
                    settings.storage.messages_table.clone(),
                )),
                parties: Arc::new(DynamoPartyStore::new(
                    client.clone(),
                    settings.storage.parties_table.clone(),
                    settings.storage.players_table.clone(),
                    settings.storage.messages_table.clone(),
                    settings.presence.presence_shards,
                )),
                rate_limiter: players.clone(),
                update_item: Arc::new(DynamoDbUpdateItem::new(client.clone())),
                players,
                messages: Arc::new(DynamoMessageStore::new(
                    client.clone(),
                    settings.storage.messages_table.clone(),
                )),
                handover: Arc::new(DynamoDeliveryHandover::new(
                    client.clone(),
                    settings.storage.players_table.clone(),
                    settings.storage.messages_table.clone(),
                )),
                subscriptions: Arc::new(DynamoSubscriptionStore::new(
                    client.clone(),
                    settings.storage.subscriptions_table.clone(),
                )),
                placements: Arc::new(DynamoPlacementStore::new(
                    client.clone(),
                    settings.storage.placements_table.clone(),
                )),
                placement_outcomes: Arc::new(DynamoPlacementOutcomes::new(
                    client,
                    settings.storage.placements_table.clone(),
                    settings.storage.players_table.clone(),
                    settings.storage.messages_table.clone(),
                )),
                description: format!("DynamoDB at {endpoint}"),
                stream,
            })
        }
    }
}
