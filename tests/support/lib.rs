#![allow(clippy::unwrap_used, clippy::expect_used)] // Test support: a panic is the test failing, with its message.
pub mod dynamodb;
pub mod heartbeats;
pub mod http;
pub mod player;
pub mod schema;
pub mod stack;
