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

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::fmt::Display;
use std::hash::Hash;

use shared::ports::StoreError;

/// Stores `record` under `id` unless the id is taken: `kind` ids are never reused, and a
/// second create is refused, as DynamoDB's conditional put refuses it.
fn insert_new<K: Eq + Hash + Clone + Display, V: Clone>(
    items: &mut HashMap<K, V>,
    kind: &str,
    id: &K,
    record: &V,
) -> Result<(), StoreError> {
    match items.entry(id.clone()) {
        Entry::Occupied(_) => Err(StoreError::Other(
            format!("{kind} {id} already exists: {kind} ids are never reused").into(),
        )),
        Entry::Vacant(slot) => {
            slot.insert(record.clone());
            Ok(())
        }
    }
}
