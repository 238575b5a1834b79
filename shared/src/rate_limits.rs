//! Per-player rate limits, shared by every instance of a function: fixed one-minute
//! windows counted on the player's own item (docs/architecture.md#rate-limits).
//!
//! A bucket counts two things per window: calls, and units (the recipients of
//! `sendMessage`; nothing for buckets that count calls only). Spending is one conditional
//! write: it adds to the window's counts only if they stay within the limits, so a
//! refused call costs the same single write and changes nothing.

use crate::domain::{EpochMillis, PlayerId};
use crate::ports::{RateLimiter, StoreError};

/// Length of a rate-limit window.
pub const WINDOW_MS: EpochMillis = 60_000;

/// What is being limited; each has its own window on the player's item.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Bucket {
    /// `sendMessage`: messages (calls) and recipients (units).
    SendMessage,
    /// `sessionPlacementRequest`: requests.
    Placement,
    /// `inviteToParty`: invitations.
    PartyInvite,
}

impl Bucket {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::SendMessage => "sendMessage",
            Self::Placement => "placement",
            Self::PartyInvite => "partyInvite",
        }
    }
}

/// Limits per window; 0 turns a limit off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Quota {
    pub calls: u32,
    pub units: u32,
}

impl Quota {
    /// No limit at all: nothing to count, nothing written.
    pub fn is_off(self) -> bool {
        self.calls == 0 && self.units == 0
    }
}

/// Which limit a refused call would have crossed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exceeded {
    Calls { limit: u32 },
    Units { limit: u32 },
}

/// The outcome of [`RateLimiter::spend`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spent {
    /// Counted; go ahead.
    Allowed,
    /// Over a limit: nothing was counted. Try again in `retry_after_ms` (when the window
    /// ends).
    Limited {
        exceeded: Exceeded,
        retry_after_ms: EpochMillis,
    },
}

/// The start of the window `now` falls in.
pub fn window_of(now: EpochMillis) -> EpochMillis {
    now - now.rem_euclid(WINDOW_MS)
}

/// What a refused call is told to wait: until its window ends (at least 1 ms).
pub fn retry_after(now: EpochMillis) -> EpochMillis {
    (window_of(now) + WINDOW_MS - now).max(1)
}

/// Whether one more call of `units` fits in a window that has counted `calls_so_far`
/// and `units_so_far`: `None` if it does, the limit it would cross otherwise.
pub fn fits(quota: Quota, calls_so_far: u64, units_so_far: u64, units: u32) -> Option<Exceeded> {
    if quota.calls > 0 && calls_so_far + 1 > u64::from(quota.calls) {
        return Some(Exceeded::Calls { limit: quota.calls });
    }
    if quota.units > 0 && units_so_far + u64::from(units) > u64::from(quota.units) {
        return Some(Exceeded::Units { limit: quota.units });
    }
    None
}

/// Why a call was not counted.
#[derive(Debug, thiserror::Error)]
pub enum LimitError {
    /// Over a limit: nothing was counted; retry in `retry_after_ms`.
    #[error("over the limit; retry in {retry_after_ms} ms")]
    Limited {
        exceeded: Exceeded,
        retry_after_ms: EpochMillis,
    },
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Counts one call of `units` of `player`'s against `quota` in `bucket` (a quota off:
/// no write).
pub async fn spend(
    limiter: &dyn RateLimiter,
    player: &PlayerId,
    bucket: Bucket,
    quota: Quota,
    units: u32,
    now: EpochMillis,
) -> Result<(), LimitError> {
    match limiter.spend(player, bucket, quota, units, now).await? {
        Spent::Allowed => Ok(()),
        Spent::Limited {
            exceeded,
            retry_after_ms,
        } => {
            crate::metrics::rate_limited(bucket.as_str());
            Err(LimitError::Limited {
                exceeded,
                retry_after_ms,
            })
        }
    }
}

/// Counts one call against `calls_per_minute` (0: no limit, no write), as every route
/// that limits calls alone does.
pub async fn spend_call(
    limiter: &dyn RateLimiter,
    player: &PlayerId,
    bucket: Bucket,
    calls_per_minute: u32,
    now: EpochMillis,
) -> Result<(), LimitError> {
    let quota = Quota {
        calls: calls_per_minute,
        units: 0,
    };
    spend(limiter, player, bucket, quota, 0, now).await
}
