//! DynamoDB adapters of the store ports (DESIGN §4), and the table set-up the local
//! stack and the tests use with DynamoDB Local.

mod batch;
mod error;
pub mod message_item;
mod message_store;
mod player_item;
mod player_store;
mod tables;

pub use message_store::{DynamoMessageStore, RECIPIENT_INDEX};
pub use player_store::{DynamoPlayerStore, SWEEP_INDEX};
pub use tables::create_messages_table;
pub use tables::{client_for_endpoint, create_players_table};
