//! The crate every GameLift Sockets function shares: the client protocol, domain types,
//! ports (narrow traits the handlers depend on) and their adapters, configuration and
//! telemetry.

pub mod adapters;
pub mod config;
pub mod domain;
pub mod matchmaking;
pub mod party;
pub mod ports;
pub mod protocol;
pub mod telemetry;
pub mod websocket;

#[cfg(any(test, feature = "test-support"))]
pub mod testing;
