//! The PresenceSubscriptions table: who watches whom. Key: partition `targetId` (S),
//! sort `watcherId` (S), so `on-presence-event` finds a player's watchers with one
//! Query; `expireAt` (TTL, epoch seconds) is the watcher's connection's `connectedAt` +
//! 2 hours (API Gateway's longest connection), so a subscription never outlives the
//! connection that made it; clients subscribe again after reconnecting. TTL deletion is
//! lazy, so reads also drop expired items themselves. It holds nothing worth keeping
//! past a connection: no deletion protection, no retention on replacement. Written by
//! `subscribe-presence`, read by `on-presence-event`.

use async_trait::async_trait;

use crate::domain::{EpochMillis, PlayerId};

use super::StoreError;

/// What `subscribe-presence` writes.
#[async_trait]
pub trait Subscriptions: Send + Sync {
    /// `watcher` watches each of `targets` until `expire_at_secs` (epoch seconds). A
    /// repeated subscription replaces the earlier one (its expiry moves). Batched: 25
    /// per BatchWriteItem; `StoreError::Unavailable` if some writes still fail.
    async fn subscribe(
        &self,
        watcher: &PlayerId,
        targets: &[PlayerId],
        expire_at_secs: i64,
    ) -> Result<(), StoreError>;

    /// `watcher` stops watching each of `targets` (batched like `subscribe`); removing a
    /// subscription that does not exist is not an error.
    async fn unsubscribe(&self, watcher: &PlayerId, targets: &[PlayerId])
    -> Result<(), StoreError>;
}

/// Who watches a player: what `on-presence-event` reads.
#[async_trait]
pub trait Watchers: Send + Sync {
    /// Everyone watching `target` whose subscription has not expired at `now` (TTL
    /// deletion is lazy, so expired items are filtered out), in no particular order.
    async fn watchers(
        &self,
        target: &PlayerId,
        now: EpochMillis,
    ) -> Result<Vec<PlayerId>, StoreError>;
}
