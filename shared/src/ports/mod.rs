//! Ports: the narrow traits handlers depend on, one per concern of an outside thing, so
//! that each function depends only on what it uses (and its role grants only what its
//! adapters call: tests/suites/template_drift/calls_grants.rs). Each has an AWS adapter
//! (`aws-adapters`) and an in-memory one (`memory-adapters`), held to the same answers by
//! the contract suites (`contracts`). What they read and write are the domain's records
//! (`crate::players`, `crate::messaging`, `crate::placement`, ...), not theirs.

pub mod clock;
pub mod connections;
mod error;
pub mod events;
pub mod friends;
pub mod gamelift;
pub mod matchmaker;
pub mod messages;
pub mod parties;
pub mod placements;
pub mod players;
pub mod rate_limit;
pub mod subscriptions;
pub mod tickets;

pub use clock::{Clock, ManualClock, SystemClock};
pub use connections::{ConnectionGateway, ConnectionInfo, ConnectionProbe, GatewayError};
pub use error::StoreError;
pub use events::{EventBus, EventBusError};
pub use friends::{
    Blocks, CheckedPair, CheckedRecipients, FriendCommits, FriendReader, RecipientCheck,
    SeparateReads,
};
pub use gamelift::{
    GameLiftError, PlacementStarter, PlacementStopper, PlayerConnection, PlayerConnections,
    PlayerSessions,
};
pub use matchmaker::Matchmaker;
pub use messages::{DeliveryHandover, InboxReader, MessageStore};
pub use parties::{OfflineParties, PartyCommits, PartyReader, PartySlots};
pub use placements::{PlacementOutcomes, PlacementReader, PlacementRecorder};
pub use players::{
    Activities, Connections, Heartbeats, PendingSlots, PlayerLookup, PlayerReader, PresenceSweep,
    Profiles, Seats,
};
pub use rate_limit::RateLimiter;
pub use subscriptions::{Subscriptions, Watchers};
pub use tickets::{TicketChanges, TicketReader, TicketRecorder};
