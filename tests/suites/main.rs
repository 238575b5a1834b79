//! Every integration suite, in one test binary (see tests/Cargo.toml for why).
//!
//! End to end over real WebSockets against the local stack started in-process on a
//! random port: `activity`, `backend_api`, `connection_lifecycle`, `delivery_faults`,
//! `friends`, `friends_paging`, `join_friend_game`, `management_api`, `messaging`,
//! `parties`, `placement`, `player_gateway`, `presence`, `rate_limits`, and `rust_client`,
//! `rust_client_friends`, `rust_client_gateway` and `rust_client_routes` (the Rust client
//! crate, clients/rust).
//! Adapters against DynamoDB Local, the `*_dynamodb` suites: they need `DYNAMODB_ENDPOINT`
//! (`scripts/test.sh` starts DynamoDB Local and sets it).
//!
//! `game_server_go`: a game server in Go (game-server/go-conformance, built with `go build`)
//! as its own process against the stack's GameLift server SDK 5 endpoint.
//!
//! `layers`: each layer's dependencies (`cargo tree`): the protocol and domain crates
//! link no AWS SDK and no Lambda crate.
//!
//! `asyncapi` checks protocol/asyncapi.yaml against protocol/schema.json; `client_frames`,
//! that what the server accepts is what protocol/schema.json says (frames made from it).
//! `template_drift` compares template.yaml with the code (its table checks need DynamoDB Local);
//! `settings_docs`, the documentation's settings tables and `local --help` with the settings table.
//!
//! Run one suite with `cargo test -p tests --test suites messaging::`.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Test support: a panic is the test failing, with its message.

mod activity;
mod asyncapi;
mod backend_api;
mod client_frames;
mod connection_lifecycle;
mod delivery_faults;
mod friend_store_dynamodb;
mod friends;
mod friends_paging;
mod game_server_go;
mod join_friend_game;
mod layers;
mod management_api;
mod matchmaking;
mod message_store_dynamodb;
mod messaging;
mod parties;
mod party_store_dynamodb;
mod placement;
mod placement_store_dynamodb;
mod player_gateway;
mod player_store_dynamodb;
mod presence;
mod rate_limits;
mod rust_client;
mod rust_client_friends;
mod rust_client_gateway;
mod rust_client_routes;
mod settings_docs;
mod subscription_store_dynamodb;
mod sweeper_dynamodb;
mod template_drift;
mod ticket_store_dynamodb;
