//! GameLift Sockets' client protocol, v1 (README.md#client-protocol-v1): the frames a
//! client sends ([`requests::ClientRequest`], read by the server with
//! [`requests::ClientRequest::parse`]) and the frames the server sends
//! ([`frames::ServerFrame`]), the domain types they carry, and their JSON Schema
//! ([`schema`], committed as `protocol/schema.json`).
//!
//! It depends on serde, serde_json, schemars and four small pure-Rust crates (thiserror,
//! uuid, fastrand, serde_path_to_error), never on the AWS SDK or the Lambda runtime, so game clients and bots
//! can use it; `tests/no_aws.rs` checks that.

pub mod connection;
pub mod domain;
pub mod frames;
pub mod keep_alive;
pub mod latencies;
pub mod matchmaking;
pub mod party;
pub mod requests;
pub mod schema;

pub use frames::{ClientFrame, DisconnectReason, ErrorCode, ServerFrame};
pub use keep_alive::{KeepAlive, KeepAliveRoute};
pub use requests::ClientRequest;
