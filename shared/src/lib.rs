//! The crate every GameLift Sockets function shares, from the inside out:
//!
//! - the domain: the protocol crate's types ([`domain`], [`protocol`], [`requests`]),
//!   the records and rules of each concern ([`players`], [`pending`], [`messaging`],
//!   [`placement`], [`matchmaking`], [`party`], [`presence`], [`rate_limits`]) and the
//!   services that hold logic more than one function needs ([`pending::PendingRequests`],
//!   [`party::Parties`], [`messaging::recipients`]);
//! - the ports ([`ports`]): narrow traits over the outside things, per concern;
//! - the edge ([`websocket`]): a route event opened into a typed request, the reply, and
//!   the domain's errors mapped to protocol errors; [`config`] and [`telemetry`].
//!
//! No AWS SDK: the adapters are `aws-adapters` and `memory-adapters`, the contract
//! suites every adapter passes `contracts`.

/// The domain types, from the protocol crate (clients share them).
pub use gamelift_sockets_protocol::acks;
pub use gamelift_sockets_protocol::domain;
/// The client protocol, from the protocol crate (clients share it).
pub use gamelift_sockets_protocol::frames as protocol;
pub mod config;
/// What `resume` tells a client's timer, from the protocol crate.
pub use gamelift_sockets_protocol::keep_alive;
/// The latencies a client reports, parsed once (`protocol/`).
pub use gamelift_sockets_protocol::latencies;
pub mod matchmaking;
pub mod messaging;
/// Metrics as CloudWatch embedded metric format lines.
pub mod metrics;
pub mod party;
pub mod pending;
pub mod placement;
pub mod players;
pub mod ports;
pub mod presence;
pub mod rate_limits;
pub mod seats;
/// Every request a client may send, typed; routes receive theirs from [`websocket::Request`].
pub use gamelift_sockets_protocol::requests;
pub mod telemetry;
pub mod websocket;
pub mod wiring;
