//! Spending a player's rate limits (`crate::rate_limits`): one conditional write on
//! their own item.

use async_trait::async_trait;

use crate::domain::{EpochMillis, PlayerId};
use crate::rate_limits::{Bucket, Quota, Spent};

use super::StoreError;

#[async_trait]
pub trait RateLimiter: Send + Sync {
    /// Counts one call of `units` for `player` in `bucket` if it fits `quota` in the
    /// current window. With `quota` off, allows without any I/O. A player with no item
    /// (never connected) is allowed and nothing is written.
    async fn spend(
        &self,
        player: &PlayerId,
        bucket: Bucket,
        quota: Quota,
        units: u32,
        now: EpochMillis,
    ) -> Result<Spent, StoreError>;
}
