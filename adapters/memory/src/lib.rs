//! In-memory adapters with the same semantics as the DynamoDB ones (checked by the
//! shared contract suites), for unit tests and the local stack.

mod event_bus;
mod friend_store;
mod message_store;
mod party_store;
mod placement_store;
mod player_store;
mod subscription_store;
#[cfg(feature = "test-support")]
pub mod test_wiring;
mod ticket_store;
mod wiring;

pub use event_bus::{InProcessEventBus, PresenceSubscriber};
pub use friend_store::InMemoryFriendStore;
pub use message_store::{InMemoryDeliveryHandover, InMemoryMessageStore, InsertObserver};
pub use party_store::InMemoryPartyStore;
pub use placement_store::{InMemoryPlacementOutcomes, InMemoryPlacementStore};
pub use player_store::InMemoryPlayerStore;
pub use subscription_store::InMemorySubscriptionStore;
pub use ticket_store::InMemoryTicketStore;
pub use wiring::MemoryStores;
