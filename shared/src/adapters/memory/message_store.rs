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
    async fn put_all(&self, messages: &[StoredMessage]) -> Result<(), StoreError> {
        let mut inserted = Vec::new();
        {
            let mut items = self.items();
            for message in messages {
                let previous = items.insert(message.message_id.clone(), message.clone());
                if previous.as_ref() != Some(message) {
                    inserted.push(message);
                }
            }
        }
        if let Some(observer) = &self.observer {
            inserted.into_iter().for_each(|m| observer.inserted(m));
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

    #[tokio::test]
    async fn in_memory_message_store_passes_the_contract_suite() {
        crate::testing::message_store_contract::run_all(|| async { InMemoryMessageStore::new() })
            .await;
    }
}
