//! The crate every GameLift Sockets function shares: the client protocol, domain types,
//! ports (narrow traits the handlers depend on), configuration, telemetry and the
//! WebSocket kit. No AWS SDK: the adapters are `aws-adapters` and `memory-adapters`, the
//! contract suites every adapter passes `contracts`.

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
pub mod party;
pub mod ports;
/// Every request a client may send, typed; routes receive theirs from [`websocket::Request`].
pub use gamelift_sockets_protocol::requests;
pub mod telemetry;
pub mod websocket;
