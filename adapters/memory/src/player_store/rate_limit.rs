//! [`RateLimiter`] on the in-memory players: a window per player and bucket, counted
//! only for players who have an item (as the DynamoDB adapter counts on the item).

use async_trait::async_trait;

use super::InMemoryPlayerStore;
use shared::domain::{EpochMillis, PlayerId};
use shared::ports::RateLimiter;
use shared::ports::StoreError;
use shared::rate_limits;
use shared::rate_limits::{Bucket, Quota, Spent};

#[async_trait]
impl RateLimiter for InMemoryPlayerStore {
    async fn spend(
        &self,
        player: &PlayerId,
        bucket: Bucket,
        quota: Quota,
        units: u32,
        now: EpochMillis,
    ) -> Result<Spent, StoreError> {
        if quota.is_off() {
            return Ok(Spent::Allowed);
        }
        let items = self.items();
        if !items.contains_key(player) {
            return Ok(Spent::Allowed);
        }
        let mut windows = self.windows.lock().unwrap_or_else(|p| p.into_inner());
        let window = rate_limits::window_of(now);
        let counts = windows
            .entry((player.clone(), bucket))
            .or_insert((window, 0, 0));
        if counts.0 < window {
            *counts = (window, 0, 0);
        }
        Ok(match rate_limits::fits(quota, counts.1, counts.2, units) {
            Some(exceeded) => Spent::Limited {
                exceeded,
                retry_after_ms: rate_limits::retry_after(now),
            },
            None => {
                counts.1 += 1;
                counts.2 += u64::from(units);
                Spent::Allowed
            }
        })
    }
}
