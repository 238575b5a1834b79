use std::collections::BTreeMap;
use std::sync::Mutex;

use async_trait::async_trait;

use crate::domain::{MessageId, PlayerId};
use crate::ports::message_store::{MessagePage, MessageStore, StoredMessage};
use crate::ports::player_store::StoreError;

/// Observes every write, as a DynamoDB stream does; the local stack feeds the real
/// `on-message-inserted` handler from it.
pub trait InsertObserver: Send + Sync {
    fn inserted(&self, message: &StoredMessage);
}

/// The Messages table in memory, ordered by id like the `ByRecipient` index.
#[derive(Default)]
pub struct InMemoryMessageStore {
    items: Mutex<BTreeMap<MessageId, StoredMessage>>,
    observer: Option<Box<dyn InsertObserver>>,
}

impl InMemoryMessageStore {
    pub fn new() -> Self {
        Self::default()
    }

    /// A store that reports each new item (not overwrites of an existing one, like a
    /// stream's INSERT records) to `observer`.
    pub fn with_observer(observer: impl InsertObserver + 'static) -> Self {
        Self {
            items: Mutex::default(),
            observer: Some(Box::new(observer)),
        }
    }

    fn items(&self) -> std::sync::MutexGuard<'_, BTreeMap<MessageId, StoredMessage>> {
        self.items.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Every stored message (tests).
    pub fn all(&self) -> Vec<StoredMessage> {
        self.items().values().cloned().collect()
    }
}

#[async_trait]
impl MessageStore for InMemoryMessageStore {
    /// Like the DynamoDB adapter: a put overwrites, and a message id given twice is
    /// stored as its last occurrence. Only a new key is reported to the observer: a
    /// stream records an overwrite (even of a changed item) as MODIFY, never INSERT.
    async fn put_all(&self, messages: &[StoredMessage]) -> Result<(), StoreError> {
        let inserted: Vec<StoredMessage> = {
            let mut items = self.items();
            let mut new_ids = Vec::new();
            for message in messages {
                let previous = items.insert(message.message_id.clone(), message.clone());
                if previous.is_none() {
                    new_ids.push(&message.message_id);
                }
            }
            // What the stream shows for a new key is its final image.
            new_ids
                .into_iter()
                .filter_map(|id| items.get(id).cloned())
                .collect()
        };
        if let Some(observer) = &self.observer {
            inserted.iter().for_each(|m| observer.inserted(m));
        }
        Ok(())
    }

    async fn pending(
        &self,
        recipient: &PlayerId,
        after: Option<&MessageId>,
        limit: u32,
    ) -> Result<MessagePage, StoreError> {
        let limit = limit.max(1) as usize;
        let mut messages: Vec<StoredMessage> = self
            .items()
            .values()
            .filter(|m| m.recipient_id == *recipient)
            .filter(|m| after.is_none_or(|a| m.message_id > *a))
            .take(limit + 1)
            .cloned()
            .collect();
        let next = (messages.len() > limit).then(|| messages[limit - 1].message_id.clone());
        messages.truncate(limit);
        Ok(MessagePage { messages, next })
    }

    async fn delete_all(&self, ids: &[MessageId]) -> Result<(), StoreError> {
        let mut items = self.items();
        ids.iter().for_each(|id| {
            items.remove(id);
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::sync::Arc;

    use crate::ports::message_store::MessageKind;

    #[tokio::test]
    async fn in_memory_message_store_passes_the_contract_suite() {
        crate::testing::message_store_contract::run_all(|| async { InMemoryMessageStore::new() })
            .await;
    }

    /// The ids and payloads the observer was told about.
    #[derive(Clone, Default)]
    struct Inserts(Arc<Mutex<Vec<(String, String)>>>);

    impl InsertObserver for Inserts {
        fn inserted(&self, message: &StoredMessage) {
            self.0
                .lock()
                .unwrap()
                .push((message.message_id.to_string(), message.payload.clone()));
        }
    }

    fn message(id: &str, payload: &str, created_at: i64) -> StoredMessage {
        StoredMessage {
            message_id: MessageId::deterministic(&[id]),
            recipient_id: PlayerId::parse("bob").unwrap(),
            sender_id: "system".into(),
            kind: MessageKind::Presence,
            payload: payload.into(),
            created_at,
            expire_at_secs: 4_102_444_800,
        }
    }

    #[tokio::test]
    async fn given_an_existing_message_when_it_is_written_again_identical_or_changed_then_the_observer_sees_one_insert()
     {
        let inserts = Inserts::default();
        let store = InMemoryMessageStore::with_observer(inserts.clone());
        store.put_all(&[message("m1", "a", 1)]).await.unwrap();
        // A retry writes the same item, or the same key with a later createdAt: both are
        // overwrites (MODIFY on a stream), so nothing is delivered twice.
        store.put_all(&[message("m1", "a", 1)]).await.unwrap();
        store.put_all(&[message("m1", "a", 2)]).await.unwrap();
        assert_eq!(*inserts.0.lock().unwrap(), vec![("m1".into(), "a".into())]);
        assert_eq!(store.all(), vec![message("m1", "a", 2)]);
    }

    #[tokio::test]
    async fn given_one_id_twice_in_a_batch_then_one_insert_carrying_the_last_occurrence() {
        let inserts = Inserts::default();
        let store = InMemoryMessageStore::with_observer(inserts.clone());
        store
            .put_all(&[message("m1", "first", 1), message("m1", "last", 1)])
            .await
            .unwrap();
        assert_eq!(
            *inserts.0.lock().unwrap(),
            vec![("m1".into(), "last".into())]
        );
    }
}
