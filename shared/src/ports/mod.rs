//! Ports: the narrow traits handlers depend on. Each has a production adapter (AWS SDK)
//! and an in-memory/local one in `crate::adapters`.

pub mod clock;
pub mod connection_gateway;
pub mod event_bus;
pub mod gamelift;
pub mod matchmaker;
pub mod message_store;
pub mod party_store;
pub mod placement_store;
pub mod player_store;
pub mod rate_limit;
pub mod subscription_store;
pub mod ticket_store;

pub use clock::{Clock, ManualClock, SystemClock};
pub use connection_gateway::{ConnectionGateway, ConnectionInfo, GatewayError};
pub use event_bus::{EventBus, EventBusError, PresenceChange, PresenceEvent};
pub use gamelift::{
    GameLift, GameLiftError, PlacementPlayer, PlacementRequest, PlayerConnection,
    PlayerConnections, PlayerSession,
};
pub use matchmaker::{Matchmaker, MatchmakingPlayer, MatchmakingRequest};
pub use message_store::{
    DeliveryHandover, Handover, HandoverOutcome, InboxRead, MessageKind, MessageStore, NewMessage,
    ReplayFrom, StoredMessage,
};
pub use party_store::{
    Committed, InvitationWrite, OfflinePage, OfflineParty, PartyCommit, PartyCondition,
    PartyPlacementBegun, PartyStore, PartyWrite,
};
pub use placement_store::{
    PLACEMENT_RETENTION_SECONDS, PlacedGameSession, PlacementOutcomes, PlacementRecord,
    PlacementStore, SeatConnection, SettledPlayer, Settlement,
};
pub use player_store::{
    ConnectOutcome, ExpiredPage, ExpiredPlayer, Liveness, NewConnection, OnlineConnection,
    PlacementBegun, PlayerRecord, PlayerStore, StoreError,
};
pub use rate_limit::{Bucket, Exceeded, Quota, RateLimiter, Spent};
pub use subscription_store::{SUBSCRIPTION_TTL_SECONDS, SubscriptionStore};
pub use ticket_store::{
    MAX_TICKET_PLAYERS, TICKET_RETENTION_SECONDS, TicketChange, TicketPlayerChange, TicketRecord,
    TicketStore,
};
