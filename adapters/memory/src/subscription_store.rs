use std::collections::BTreeMap;
use std::sync::Mutex;

use async_trait::async_trait;

use shared::domain::{EpochMillis, PlayerId};
use shared::ports::StoreError;
use shared::ports::{Subscriptions, Watchers};

/// The PresenceSubscriptions table in memory: (target, watcher) → `expireAt` (epoch
/// seconds). Expired subscriptions stay until overwritten, like items DynamoDB's TTL has
/// not deleted yet, and are filtered out on read the same way.
#[derive(Default)]
pub struct InMemorySubscriptionStore {
    items: Mutex<BTreeMap<(PlayerId, PlayerId), i64>>,
}

impl InMemorySubscriptionStore {
    pub fn new() -> Self {
        Self::default()
    }

    fn items(&self) -> std::sync::MutexGuard<'_, BTreeMap<(PlayerId, PlayerId), i64>> {
        // Each update replaces whole values: a poisoned lock holds no half-written state.
        self.items.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Every stored subscription as (target, watcher, expireAt), expired ones included
    /// (tests).
    pub fn all(&self) -> Vec<(PlayerId, PlayerId, i64)> {
        self.items()
            .iter()
            .map(|((target, watcher), expire_at)| (target.clone(), watcher.clone(), *expire_at))
            .collect()
    }
}

#[async_trait]
impl Subscriptions for InMemorySubscriptionStore {
    async fn subscribe(
        &self,
        watcher: &PlayerId,
        targets: &[PlayerId],
        expire_at_secs: i64,
    ) -> Result<(), StoreError> {
        let mut items = self.items();
        for target in targets {
            items.insert((target.clone(), watcher.clone()), expire_at_secs);
        }
        Ok(())
    }

    async fn unsubscribe(
        &self,
        watcher: &PlayerId,
        targets: &[PlayerId],
    ) -> Result<(), StoreError> {
        let mut items = self.items();
        for target in targets {
            items.remove(&(target.clone(), watcher.clone()));
        }
        Ok(())
    }
}

#[async_trait]
impl Watchers for InMemorySubscriptionStore {
    async fn watchers(
        &self,
        target: &PlayerId,
        now: EpochMillis,
    ) -> Result<Vec<PlayerId>, StoreError> {
        let now_secs = now.div_euclid(1000);
        Ok(self
            .items()
            .iter()
            .filter(|((t, _), expire_at)| t == target && **expire_at > now_secs)
            .map(|((_, watcher), _)| watcher.clone())
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn store() -> InMemorySubscriptionStore {
        InMemorySubscriptionStore::new()
    }

    contracts::subscription_store_contract_tests!(store);
}
