//! Test support shared by unit tests and the `tests` crate: contract suites run against
//! every adapter of a port (in memory here, DynamoDB Local in tests/), and API
//! Gateway-shaped events.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Test support: a panic is the test failing, with its message.

pub mod call_counter;
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
