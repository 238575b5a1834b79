//! The wait before a retry of what a batch call left undone (DynamoDB's unprocessed
//! items and keys, EventBridge's failed entries): bounded, jittered exponential backoff.

use std::time::Duration;

/// The wait before retry `retry` (1-based): `base × 2^(retry-1)` (the doubling stops at
/// 2^16), jittered uniformly into its upper half so that concurrent callers spread out
/// but never retry at once.
pub(crate) fn jittered(base: Duration, retry: u32) -> Duration {
    let full = base.saturating_mul(1 << retry.saturating_sub(1).min(16));
    let full_micros = u64::try_from(full.as_micros()).unwrap_or(u64::MAX);
    Duration::from_micros(fastrand::u64(full_micros / 2..=full_micros))
}
