//! The crate every GameLift Sockets function shares: the client protocol, domain types,
//! ports (narrow traits the handlers depend on) and their adapters, configuration and
//! telemetry.

pub mod adapters;
/// The domain types, from the protocol crate (clients share them).
pub use gamelift_sockets_protocol::domain;
/// The client protocol, from the protocol crate (clients share it).
pub use gamelift_sockets_protocol::frames as protocol;
pub mod config;
/// What `resume` tells a client's timer, from the protocol crate.
pub use gamelift_sockets_protocol::keep_alive;
/// The latencies a client reports, parsed once (`protocol/`).
pub use gamelift_sockets_protocol::latencies;
pub mod matchmaking;
/// Metrics as CloudWatch embedded metric format lines.
pub mod metrics;
pub mod party;
pub mod ports;
/// Every request a client may send, typed; routes receive theirs from [`websocket::Request`].
pub use gamelift_sockets_protocol::requests;
pub mod telemetry;
pub mod websocket;

#[cfg(any(test, feature = "test-support"))]
pub mod testing;
