//! Ports: the narrow traits handlers depend on. Each has a production adapter (AWS SDK)
//! and an in-memory/local one in `crate::adapters`.

pub mod clock;
pub mod connection_gateway;
pub mod gamelift;
pub mod message_store;
pub mod player_store;

pub use clock::{Clock, ManualClock, SystemClock};
pub use gamelift::{GameLift, GameLiftError, PlacementRequest, PlayerSession};
pub use connection_gateway::{ConnectionGateway, ConnectionInfo, GatewayError};
pub use message_store::{MessageKind, MessagePage, MessageStore, StoredMessage};
pub use player_store::{
    ConnectOutcome, ExpiredPage, ExpiredPlayer, NewConnection, PlayerRecord, PlayerStore,
    StoreError,
};
