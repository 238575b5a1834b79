//! What tests share: the contract suites every adapter of a port must pass (run on the
//! in-memory adapters in `memory-adapters`, on DynamoDB Local in `tests/`), fakes of
//! the outside services (a recording gateway, GameLift, FlexMatch), a store that is
//! always unavailable, fixtures and API Gateway-shaped events. Tests only: no function
//! links it.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Test support: a panic is the test failing, with its message.

pub mod events;
pub mod fake_gamelift;
pub mod fake_matchmaker;
pub mod fixtures;
pub mod message_store_contract;
pub mod party_store_contract;
pub mod placement_store_contract;
pub mod player_store_contract;
pub mod rate_limiter_contract;
pub mod recording_gateway;
pub mod subscription_store_contract;
pub mod ticket_store_contract;
pub mod unavailable;

use shared::ports::{
    Connections, InboxReader, MessageStore, OfflineParties, PartyCommits, PartyReader, PartySlots,
    PendingSlots, PlacementReader, PlacementRecorder, PlayerLookup, PlayerReader, PresenceSweep,
    Profiles, RateLimiter, Seats, Subscriptions, TicketChanges, TicketReader, TicketRecorder,
    Watchers,
};

/// Every port one adapter of the Players table offers but the heartbeat (a deployed
/// heartbeat is API Gateway's own UpdateItem, its contract run on the mapping template):
/// what a contract scenario exercises together.
pub trait PlayersTable:
    PlayerReader
    + PlayerLookup
    + Connections
    + PresenceSweep
    + PendingSlots
    + Seats
    + Profiles
    + RateLimiter
{
}

impl<T> PlayersTable for T where
    T: PlayerReader
        + PlayerLookup
        + Connections
        + PresenceSweep
        + PendingSlots
        + Seats
        + Profiles
        + RateLimiter
        + ?Sized
{
}

/// Every port of the Parties table.
pub trait PartiesTable: PartyReader + PartyCommits + PartySlots + OfflineParties {}

impl<T> PartiesTable for T where T: PartyReader + PartyCommits + PartySlots + OfflineParties + ?Sized
{}

/// Every port of the Placements table's placements.
pub trait PlacementsTable: PlacementReader + PlacementRecorder {}

impl<T> PlacementsTable for T where T: PlacementReader + PlacementRecorder + ?Sized {}

/// Every port of the Placements table's tickets.
pub trait TicketsTable: TicketReader + TicketRecorder + TicketChanges {}

impl<T> TicketsTable for T where T: TicketReader + TicketRecorder + TicketChanges + ?Sized {}

/// Every port of the Messages table's inboxes (the hand-over aside).
pub trait Inboxes: MessageStore + InboxReader {}

impl<T> Inboxes for T where T: MessageStore + InboxReader + ?Sized {}

/// Every port of the PresenceSubscriptions table.
pub trait SubscriptionsTable: Subscriptions + Watchers {}

impl<T> SubscriptionsTable for T where T: Subscriptions + Watchers + ?Sized {}

/// Every port trait, for tests that call adapters directly: `use contracts::ports::*;`.
pub mod ports {
    pub use shared::ports::{
        Clock, ConnectionGateway, ConnectionProbe, Connections, DeliveryHandover, EventBus,
        Heartbeats, InboxReader, Matchmaker, MessageStore, OfflineParties, PartyCommits,
        PartyReader, PartySlots, PendingSlots, PlacementOutcomes, PlacementReader,
        PlacementRecorder, PlacementStarter, PlacementStopper, PlayerLookup, PlayerReader,
        PlayerSessions, PresenceSweep, Profiles, RateLimiter, Seats, Subscriptions, TicketChanges,
        TicketReader, TicketRecorder, Watchers,
    };
}
