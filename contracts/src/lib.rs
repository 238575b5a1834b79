//! What tests share: the contract suites every adapter of a port must pass (run on the
//! in-memory adapters in `memory-adapters`, on DynamoDB Local in `tests/`), fakes of
//! the outside services (a recording gateway, GameLift, FlexMatch), a store that is
//! always unavailable, fixtures and API Gateway-shaped events. Tests only: no function
//! links it.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Test support: a panic is the test failing, with its message.

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
