//! The PresenceSubscriptions table (docs/architecture.md#presencesubscriptions): PK
//! `targetId`, SK `watcherId`, `expireAt` (TTL, epoch seconds). Written by
//! `subscribe-presence`, read by `on-presence-event` to find who watches a player whose
//! presence changed.

use async_trait::async_trait;

use crate::domain::{EpochMillis, PlayerId};
use crate::ports::player_store::StoreError;

/// How long a subscription lasts, counted from the watcher's `connectedAt`: API
/// Gateway's maximum connection duration (2 hours), so a subscription never outlives
/// the connection that made it; clients subscribe again after reconnecting.
pub const SUBSCRIPTION_TTL_SECONDS: i64 = 2 * 3600;

#[async_trait]
pub trait SubscriptionStore: Send + Sync {
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

    /// Everyone watching `target` whose subscription has not expired at `now` (TTL
    /// deletion is lazy, so expired items are filtered out), in no particular order.
    async fn watchers(
        &self,
        target: &PlayerId,
        now: EpochMillis,
    ) -> Result<Vec<PlayerId>, StoreError>;
}
