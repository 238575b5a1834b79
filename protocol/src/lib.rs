//! GameLift Sockets' client protocol, v1 (README.md#client-protocol-v1): the frames a
//! client sends ([`requests::ClientRequest`], read by the server with
//! [`requests::ClientRequest::parse`]) and the frames the server sends
//! ([`frames::ServerFrame`]: each route's ack, [`acks`], and the error reply typed per
//! code, [`errors::ErrorReply`]), the domain types they carry, and their JSON Schema
//! ([`schema`], committed as `protocol/schema.json`).
//!
//! It depends on serde, serde_json, schemars and five small pure-Rust crates (thiserror,
//! uuid, fastrand, serde_path_to_error, serde_with's macros), never on the AWS SDK or the Lambda runtime, so game clients and bots
//! can use it; `tests/suites/layers.rs` checks that.
//!
//! Every rule the server applies to a request's body (ranges, lengths, patterns, counts:
//! [`latencies`], `matchmaking/attributes.rs`, `requests/fields.rs`, the domain ids) is
//! in these types' `Deserialize` and in their schema, so the two cannot say different
//! things. What the schema cannot state is not `bad_request`: a queue or matchmaking
//! configuration the stack does not have is `not_found`, a `maxSize` above the stack's
//! `PARTY_MAX_SIZE` `forbidden`, a `message` over 32 KiB `payload_too_large`. A pushed
//! `ServerFrame` variant takes `#[schemars(transform = pushed)]`, which adds its required
//! `seq`. The end-to-end suites validate every frame the server sends against the
//! committed schema (`tests/support/schema.rs`), and `tests/suites/client_frames.rs`
//! sends frames made from the schema's `ClientFrame`, 30 per route each way from a fixed
//! seed: none the schema allows is refused as malformed, none it refuses is acked. The
//! clients build on it: the TypeScript and C# types are generated from the schema (each
//! with a test that fails while the generated file is stale), the Rust client uses the
//! crate.

/// `JsonSchema` for a type whose rules the derive cannot state, named as the type:
/// `hand_schema!(Type, |generator| schema)`, where `schema` may ask `generator` for the
/// schemas of the types it holds.
macro_rules! hand_schema {
    ($type:ident, |$generator:pat_param| $schema:expr) => {
        impl schemars::JsonSchema for $type {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($type).into()
            }

            fn json_schema($generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
                $schema
            }
        }
    };
}

pub mod acks;
pub mod activity;
pub mod backend_api;
mod bounded;
pub mod connection;
pub mod domain;
pub mod errors;
#[cfg(any(test, feature = "test-support"))]
pub mod fixtures;
pub mod frames;
pub mod friends;
pub mod keep_alive;
pub mod latencies;
pub mod matchmaking;
pub mod party;
pub mod requests;
pub mod schema;

pub use acks::RouteAck;
pub use errors::{ErrorCode, ErrorReply};
pub use frames::{DisconnectReason, ServerFrame, UntypedRequest};
pub use keep_alive::{KeepAlive, KeepAliveRoute};
pub use requests::{ClientRequest, Route};
