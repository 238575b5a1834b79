//! The domain crate every GameLift Sockets function shares, from the inside out:
//!
//! - the domain: the protocol crate's types ([`domain`], [`frames`], [`requests`]),
//!   the records and rules of each concern ([`players`], [`pending`], [`messaging`],
//!   [`placement`], [`matchmaking`], [`party`], [`presence`], [`rate_limits`]) and the
//!   services that hold logic more than one function needs ([`pending::PendingRequests`],
//!   [`party::Parties`], [`messaging::recipients`]);
//! - the ports ([`ports`]): narrow traits over the outside things, per concern, and the
//!   [`wiring`] that builds them; [`config`], [`telemetry`] and [`metrics`].
//!
//! No AWS SDK and no Lambda crate (`tests/suites/layers.rs` holds it so): the edge where
//! Lambda's events are opened into these types is the `edge` crate, the adapters are
//! `aws-adapters` and `memory-adapters`, the contract suites every adapter passes
//! `contracts`.

/// The domain types, from the protocol crate (clients share them).
pub use gamelift_sockets_protocol::acks;
/// A player's activity (rich presence), from the protocol crate.
pub use gamelift_sockets_protocol::activity;
pub use gamelift_sockets_protocol::domain;
/// The client protocol, from the protocol crate (clients share it).
pub use gamelift_sockets_protocol::frames;
pub mod config;
pub mod friends;
/// The `error` reply's codes and, per code, its fields, from the protocol crate.
pub use gamelift_sockets_protocol::errors;
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
/// Every request a client may send, typed; routes receive theirs from `edge::websocket::Request`.
pub use gamelift_sockets_protocol::requests;
pub mod telemetry;
pub mod wiring;
