//! The operations `round_trips` measures, in order, each set up so that it is the
//! operation a running stack sees most (a later message to an inbox that has one, a
//! sweep of players who are still heartbeating, ...). Set-up work is forgotten before
//! each measured operation (`Bench::reset`).
//!
//! `World` builds the tables, stores and handlers once; the rows are measured by area:
//! `connections`, `messaging`, `placement`, `presence` (with the sweeper) and `relations` (the friend routes).

mod connections;
mod messaging;
mod placement;
mod presence;
mod relations;

pub(crate) use placement::placement_event;

use std::sync::Arc;

use aws_adapters::dynamodb::{
    DynamoMessageStore, DynamoPlacementStore, create_subscriptions_table,
};
use connect::ConnectHandler;
use contracts::events::route_event;
use disconnect::DisconnectHandler;
use edge::websocket::RouteHandler;
use friends::FriendsHandler;
use local::integration::dynamodb::DynamoDbUpdateItem;
use local::integration::{MockIntegration, UpdateItemIntegration};
use on_message_inserted::MessageInsertedHandler;
use on_presence_event::PresenceEventHandler;
use resume::ResumeHandler;
use send_message::SendMessageHandler;
use serde_json::json;
use shared::config::Config;
use shared::domain::PlayerId;
use shared::requests::Route;
use shared::wiring::Wiring;
use subscribe_presence::SubscribePresenceHandler;

use crate::{Bench, client_event, now};

/// Tables, stores and handlers, built once.
pub struct World {
    client: aws_sdk_dynamodb::Client,
    config: Arc<Config>,
    messages: Arc<DynamoMessageStore>,
    placements: Arc<DynamoPlacementStore>,
    /// What the handlers measured here are built from (each by its function's `wire`).
    wiring: Wiring,
    connect: ConnectHandler,
    disconnect: DisconnectHandler,
    /// The heartbeat route: API Gateway's DynamoDB integration, from template.yaml.
    heartbeat: UpdateItemIntegration,
    /// The ping route: API Gateway's MOCK integration, from template.yaml.
    ping: MockIntegration,
    resume: ResumeHandler,
    send: SendMessageHandler,
    deliver: MessageInsertedHandler,
    subscribe: SubscribePresenceHandler,
    on_presence: PresenceEventHandler,
    friends: FriendsHandler,
}

type Error = lambda_runtime::Error;

fn player(name: &str) -> PlayerId {
    PlayerId::parse(name).expect("valid id")
}

impl World {
    pub async fn create(client: &aws_sdk_dynamodb::Client, bench: &Bench) -> Result<Self, Error> {
        let mut config = crate::fresh_tables(client, "main").await?;
        config.subscriptions_table = format!("rt-main-subscriptions-{}", now());
        create_subscriptions_table(client, &config.subscriptions_table).await?;
        let config = Arc::new(config);
        let messages = Arc::new(DynamoMessageStore::new(
            client.clone(),
            config.messages_table.clone(),
        ));
        let placements = Arc::new(DynamoPlacementStore::new(
            client.clone(),
            config.placements_table.clone(),
        ));
        let w = bench.wiring(client, config.clone());
        Ok(Self {
            connect: connect::wire(&w),
            disconnect: disconnect::wire(&w),
            heartbeat: UpdateItemIntegration::from_template(
                &local::template::parse(local::template::TEMPLATE_YAML)?,
                Route::Heartbeat.as_str(),
                &[
                    ("PlayersTable", config.players_table.as_str()),
                    (
                        "HeartbeatTimeoutSeconds",
                        config.heartbeat_timeout.as_secs().to_string().as_str(),
                    ),
                ],
                Arc::new(DynamoDbUpdateItem::new(client.clone())),
            )?,
            ping: MockIntegration::from_template(
                &local::template::parse(local::template::TEMPLATE_YAML)?,
                Route::Ping.as_str(),
            )?,
            resume: resume::wire(&w),
            send: send_message::wire(&w),
            deliver: on_message_inserted::wire(&w),
            subscribe: subscribe_presence::wire(&w),
            on_presence: on_presence_event::wire(&w),
            friends: friends::wire(&w),
            client: client.clone(),
            config,
            messages,
            placements,
            wiring: w,
        })
    }

    /// Connects and resumes `name` on `connection` (set-up, not measured).
    async fn live(&self, bench: &mut Bench, name: &str, connection: &str) -> Result<(), Error> {
        bench
            .route(
                self.connect
                    .handle(route_event("$connect", name, connection, now(), None)),
            )
            .await?;
        bench
            .route(
                self.resume
                    .handle(client_event(Route::Resume, name, connection, json!({}))),
            )
            .await?;
        Ok(())
    }

    pub async fn run(&self, bench: &mut Bench) -> Result<(), Error> {
        bench.reset();
        self.connections(bench).await?;
        self.messaging(bench).await?;
        self.placement(bench).await?;
        self.presence(bench).await?;
        self.friends(bench).await?;
        Ok(())
    }
}
