//! The ports on AWS, as a function's `wire` asks for them: [`DynamoStores`] (also the
//! local stack's and the tools' on DynamoDB Local) and [`AwsServices`]. Each port built
//! records the calls its adapter can make ([`Recorder`]): what the function's role must
//! grant, no more (tests/suites/template_drift/calls_grants.rs).

use std::sync::Arc;

use aws_config::SdkConfig;
use aws_sdk_dynamodb::Client;
use shared::config::Config;
use shared::matchmaking::{MatchmakingSettings, TicketPushes};
use shared::party::CommitScope;
use shared::ports::{
    Activities, Blocks, Clock, ConnectionGateway, ConnectionProbe, Connections, DeliveryHandover,
    EventBus, FriendCommits, FriendReader, InboxReader, Matchmaker, MessageStore, OfflineParties,
    PartyCommits, PartyReader, PartySlots, PendingSlots, PlacementOutcomes, PlacementReader,
    PlacementRecorder, PlacementStarter, PlacementStopper, PlayerConnections, PlayerLookup,
    PlayerReader, PlayerSessions, PresenceSweep, Profiles, RateLimiter, RecipientCheck, Seats,
    Subscriptions, TicketChanges, TicketReader, TicketRecorder, Watchers,
};
use shared::presence::presence_source;
use shared::wiring::{Services, Stores, Wiring};

use crate::apigateway::ApiGatewayManagementGateway;
use crate::aws::MANAGEMENT_ENDPOINT_VARIABLE;
use crate::calls::Recorder;
use crate::dynamodb::{
    DynamoDeliveryHandover, DynamoFriendStore, DynamoMessageStore, DynamoPartyStore,
    DynamoPlacementOutcomes, DynamoPlacementStore, DynamoPlayerStore, DynamoRecipientCheck,
    DynamoSubscriptionStore, DynamoTicketStore,
};
use crate::eventbridge::EventBridgeBus;
use crate::gamelift::SdkGameLift;

/// The tables' ports on DynamoDB, by the names the configuration gives.
#[derive(Clone, Debug)]
pub struct DynamoStores {
    client: Client,
    players: String,
    messages: String,
    placements: String,
    parties: String,
    subscriptions: String,
    friends: String,
    /// Partitions of the parties' offline index (`PRESENCE_SHARDS`).
    shards: u32,
    recorder: Recorder,
}

impl DynamoStores {
    pub fn new(client: Client, config: &Config, recorder: Recorder) -> Self {
        Self {
            client,
            players: config.players_table.clone(),
            messages: config.messages_table.clone(),
            placements: config.placements_table.clone(),
            parties: config.parties_table.clone(),
            subscriptions: config.subscriptions_table.clone(),
            friends: config.friends_table.clone(),
            shards: config.presence_shards,
            recorder,
        }
    }

    fn players(&self) -> Arc<DynamoPlayerStore> {
        Arc::new(DynamoPlayerStore::new(self.client.clone(), &self.players))
    }

    fn messages(&self) -> Arc<DynamoMessageStore> {
        Arc::new(DynamoMessageStore::new(self.client.clone(), &self.messages))
    }

    fn placements(&self) -> Arc<DynamoPlacementStore> {
        Arc::new(DynamoPlacementStore::new(
            self.client.clone(),
            &self.placements,
        ))
    }

    fn tickets(&self, pushes: TicketPushes) -> Arc<DynamoTicketStore> {
        Arc::new(
            DynamoTicketStore::new(
                self.client.clone(),
                &self.placements,
                &self.players,
                &self.messages,
            )
            .pushing(pushes),
        )
    }

    fn parties(&self, scope: CommitScope) -> Arc<DynamoPartyStore> {
        Arc::new(
            DynamoPartyStore::new(
                self.client.clone(),
                &self.parties,
                &self.players,
                &self.messages,
                self.shards,
            )
            .scoped(scope),
        )
    }

    fn friend_store(&self) -> Arc<DynamoFriendStore> {
        Arc::new(DynamoFriendStore::new(
            self.client.clone(),
            &self.friends,
            &self.messages,
        ))
    }

    fn subscription_store(&self) -> Arc<DynamoSubscriptionStore> {
        Arc::new(DynamoSubscriptionStore::new(
            self.client.clone(),
            &self.subscriptions,
        ))
    }
}

impl Stores for DynamoStores {
    fn player_reader(&self) -> Arc<dyn PlayerReader> {
        self.recorder
            .port::<dyn PlayerReader, DynamoPlayerStore>(self.players())
    }

    fn player_lookup(&self) -> Arc<dyn PlayerLookup> {
        self.recorder
            .port::<dyn PlayerLookup, DynamoPlayerStore>(self.players())
    }

    fn connections(&self) -> Arc<dyn Connections> {
        self.recorder
            .port::<dyn Connections, DynamoPlayerStore>(self.players())
    }

    fn presence_sweep(&self) -> Arc<dyn PresenceSweep> {
        self.recorder
            .port::<dyn PresenceSweep, DynamoPlayerStore>(self.players())
    }

    fn pending_slots(&self) -> Arc<dyn PendingSlots> {
        self.recorder
            .port::<dyn PendingSlots, DynamoPlayerStore>(self.players())
    }

    fn seats(&self) -> Arc<dyn Seats> {
        self.recorder
            .port::<dyn Seats, DynamoPlayerStore>(self.players())
    }

    fn profiles(&self) -> Arc<dyn Profiles> {
        self.recorder
            .port::<dyn Profiles, DynamoPlayerStore>(self.players())
    }

    fn activities(&self) -> Arc<dyn Activities> {
        self.recorder
            .port::<dyn Activities, DynamoPlayerStore>(self.players())
    }

    fn rate_limiter(&self) -> Arc<dyn RateLimiter> {
        self.recorder
            .port::<dyn RateLimiter, DynamoPlayerStore>(self.players())
    }

    fn message_store(&self) -> Arc<dyn MessageStore> {
        self.recorder
            .port::<dyn MessageStore, DynamoMessageStore>(self.messages())
    }

    fn inbox_reader(&self) -> Arc<dyn InboxReader> {
        self.recorder
            .port::<dyn InboxReader, DynamoMessageStore>(self.messages())
    }

    fn delivery_handover(&self) -> Arc<dyn DeliveryHandover> {
        self.recorder
            .port::<dyn DeliveryHandover, DynamoDeliveryHandover>(Arc::new(
                DynamoDeliveryHandover::new(self.client.clone(), &self.players, &self.messages),
            ))
    }

    fn placement_reader(&self) -> Arc<dyn PlacementReader> {
        self.recorder
            .port::<dyn PlacementReader, DynamoPlacementStore>(self.placements())
    }

    fn placement_recorder(&self) -> Arc<dyn PlacementRecorder> {
        self.recorder
            .port::<dyn PlacementRecorder, DynamoPlacementStore>(self.placements())
    }

    fn placement_outcomes(&self) -> Arc<dyn PlacementOutcomes> {
        self.recorder
            .port::<dyn PlacementOutcomes, DynamoPlacementOutcomes>(Arc::new(
                DynamoPlacementOutcomes::new(
                    self.client.clone(),
                    &self.placements,
                    &self.players,
                    &self.messages,
                ),
            ))
    }

    fn ticket_reader(&self) -> Arc<dyn TicketReader> {
        self.recorder
            .port::<dyn TicketReader, DynamoTicketStore>(self.tickets(TicketPushes::Never))
    }

    fn ticket_recorder(&self) -> Arc<dyn TicketRecorder> {
        self.recorder
            .port::<dyn TicketRecorder, DynamoTicketStore>(self.tickets(TicketPushes::Never))
    }

    fn ticket_changes(&self, pushes: TicketPushes) -> Arc<dyn TicketChanges> {
        self.recorder
            .port::<dyn TicketChanges, DynamoTicketStore>(self.tickets(pushes))
    }

    fn party_reader(&self) -> Arc<dyn PartyReader> {
        self.recorder
            .port::<dyn PartyReader, DynamoPartyStore>(self.parties(CommitScope::Presence))
    }

    fn party_commits(&self, scope: CommitScope) -> Arc<dyn PartyCommits> {
        self.recorder
            .port::<dyn PartyCommits, DynamoPartyStore>(self.parties(scope))
    }

    fn party_slots(&self) -> Arc<dyn PartySlots> {
        self.recorder
            .port::<dyn PartySlots, DynamoPartyStore>(self.parties(CommitScope::Presence))
    }

    fn offline_parties(&self) -> Arc<dyn OfflineParties> {
        self.recorder
            .port::<dyn OfflineParties, DynamoPartyStore>(self.parties(CommitScope::Presence))
    }

    fn subscriptions(&self) -> Arc<dyn Subscriptions> {
        self.recorder
            .port::<dyn Subscriptions, DynamoSubscriptionStore>(self.subscription_store())
    }

    fn watchers(&self) -> Arc<dyn Watchers> {
        self.recorder
            .port::<dyn Watchers, DynamoSubscriptionStore>(self.subscription_store())
    }

    fn friend_reader(&self) -> Arc<dyn FriendReader> {
        self.recorder
            .port::<dyn FriendReader, DynamoFriendStore>(self.friend_store())
    }

    fn friend_commits(&self) -> Arc<dyn FriendCommits> {
        self.recorder
            .port::<dyn FriendCommits, DynamoFriendStore>(self.friend_store())
    }

    fn blocks(&self) -> Arc<dyn Blocks> {
        self.recorder
            .port::<dyn Blocks, DynamoFriendStore>(self.friend_store())
    }

    fn recipient_check(&self) -> Arc<dyn RecipientCheck> {
        self.recorder
            .port::<dyn RecipientCheck, DynamoRecipientCheck>(Arc::new(DynamoRecipientCheck::new(
                self.client.clone(),
                &self.players,
                &self.friends,
            )))
    }
}

/// The outside services' ports on AWS: the management API of the caller's WebSocket
/// API, the presence bus, GameLift.
#[derive(Clone, Debug)]
pub struct AwsServices {
    sdk: SdkConfig,
    /// `PRESENCE_EVENT_BUS`, and the `Source` of its events (`<GAME>.presence`).
    bus: String,
    source: String,
    /// `GAME_SESSION_QUEUES`.
    queues: Vec<String>,
    /// Where every `@connections` call goes instead of each connection's endpoint
    /// ([`MANAGEMENT_ENDPOINT_VARIABLE`]; only `sam local invoke` sets it).
    management_endpoint: Option<String>,
    recorder: Recorder,
}

impl AwsServices {
    pub fn new(sdk: &SdkConfig, config: &Config, recorder: Recorder) -> Self {
        Self {
            sdk: sdk.clone(),
            bus: config.presence_event_bus.clone(),
            source: presence_source(&config.game),
            queues: config.game_session_queues.clone(),
            management_endpoint: management_endpoint(),
            recorder,
        }
    }

    fn gateway(&self) -> Arc<ApiGatewayManagementGateway> {
        Arc::new(
            ApiGatewayManagementGateway::new(self.sdk.clone())
                .with_endpoint_override(self.management_endpoint.clone()),
        )
    }

    fn gamelift(&self) -> Arc<SdkGameLift> {
        Arc::new(SdkGameLift::from_sdk_config(&self.sdk).placing_on(self.queues.clone()))
    }
}

impl Services for AwsServices {
    fn connection_gateway(&self) -> Arc<dyn ConnectionGateway> {
        self.recorder
            .port::<dyn ConnectionGateway, ApiGatewayManagementGateway>(self.gateway())
    }

    fn connection_probe(&self) -> Arc<dyn ConnectionProbe> {
        self.recorder
            .port::<dyn ConnectionProbe, ApiGatewayManagementGateway>(self.gateway())
    }

    fn event_bus(&self) -> Arc<dyn EventBus> {
        self.recorder
            .port::<dyn EventBus, EventBridgeBus>(Arc::new(EventBridgeBus::new(
                aws_sdk_eventbridge::Client::new(&self.sdk),
                self.bus.clone(),
                self.source.clone(),
            )))
    }

    fn placement_starter(&self) -> Arc<dyn PlacementStarter> {
        self.recorder
            .port::<dyn PlacementStarter, SdkGameLift>(self.gamelift())
    }

    fn placement_stopper(&self) -> Arc<dyn PlacementStopper> {
        self.recorder
            .port::<dyn PlacementStopper, SdkGameLift>(self.gamelift())
    }

    fn player_sessions(&self) -> Arc<dyn PlayerSessions> {
        self.recorder
            .port::<dyn PlayerSessions, SdkGameLift>(self.gamelift())
    }

    fn player_connections(&self) -> Arc<dyn PlayerConnections> {
        self.recorder
            .port::<dyn PlayerConnections, SdkGameLift>(self.gamelift())
    }

    fn matchmaker(&self) -> Arc<dyn Matchmaker> {
        self.recorder
            .port::<dyn Matchmaker, SdkGameLift>(self.gamelift())
    }
}

/// [`MANAGEMENT_ENDPOINT_VARIABLE`]'s value, when set (said once, at start-up).
fn management_endpoint() -> Option<String> {
    let endpoint = std::env::var(MANAGEMENT_ENDPOINT_VARIABLE)
        .ok()
        .filter(|e| !e.trim().is_empty());
    if let Some(endpoint) = &endpoint {
        tracing::info!(
            endpoint,
            "{MANAGEMENT_ENDPOINT_VARIABLE} is set: every @connections call goes there"
        );
    }
    endpoint
}

/// A function's wiring on AWS from `sdk` and its configuration, with the recorder of
/// every call the ports it builds can make.
pub fn on_aws(
    sdk: &SdkConfig,
    config: Arc<Config>,
    matchmaking: MatchmakingSettings,
    clock: Arc<dyn Clock>,
) -> (Wiring, Recorder) {
    let recorder = Recorder::default();
    let wiring = Wiring {
        keep_alive: config.keep_alive(),
        stores: Arc::new(DynamoStores::new(
            Client::new(sdk),
            &config,
            recorder.clone(),
        )),
        services: Arc::new(AwsServices::new(sdk, &config, recorder.clone())),
        config,
        clock,
        matchmaking,
    };
    (wiring, recorder)
}
