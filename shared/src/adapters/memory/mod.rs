//! In-memory adapters with the same semantics as the DynamoDB ones (checked by the
//! shared contract suites), for unit tests and the local stack.

mod message_store;
mod player_store;

pub use message_store::{InMemoryMessageStore, InsertObserver};
pub use player_store::InMemoryPlayerStore;
