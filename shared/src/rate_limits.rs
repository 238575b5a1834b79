//! Per-player rate limits, shared by every instance of a function: fixed one-minute
//! windows counted on the player's own item.
//!
//! One valid account must not be able to make the backend write without bound: a
//! `sendMessage` frame stores up to 100 messages of up to 32 KiB each, kept for the
//! message TTL. API Gateway's stage throttle is shared by all players, so each player
//! also has limits of their own:
//!
//! | limit | setting (template parameter) | default | counted by |
//! |---|---|---|---|
//! | `sendMessage` frames per minute | `RATE_LIMIT_MESSAGES_PER_MINUTE` (`RateLimitMessagesPerMinute`) | 120 | `send-message` |
//! | recipients per minute, over those frames | `RATE_LIMIT_RECIPIENTS_PER_MINUTE` (`RateLimitRecipientsPerMinute`) | 600 | `send-message` |
//! | `sessionPlacementRequest`s, `startMatchmaking`s and `refreshConnectionDetails` per minute, together | `RATE_LIMIT_PLACEMENTS_PER_MINUTE` (`RateLimitPlacementsPerMinute`) | 10 | `session-placement-request`, `matchmaking`, `rejoin-session` |
//! | `inviteToParty`s per minute | `RATE_LIMIT_PARTY_INVITES_PER_MINUTE` (`RateLimitPartyInvitesPerMinute`) | 30 | `party` |
//! | `addFriend`s per minute | `RATE_LIMIT_FRIEND_INVITES_PER_MINUTE` (`RateLimitFriendInvitesPerMinute`) | 30 | `friends` |
//! | `setActivity`s per minute | `RATE_LIMIT_ACTIVITY_PER_MINUTE` (`RateLimitActivityPerMinute`) | 30 | `subscribe-presence` |
//!
//! 0 turns a limit off (the load benchmarks do). Over a limit the route answers
//! `rate_limited` with `retryAfterMs` (when the current minute ends) and does nothing
//! else; a frame with more recipients than a whole minute allows is a `bad_request`.
//!
//! A bucket counts two things per window: calls, and units (the recipients of
//! `sendMessage`; nothing for buckets that count calls only), on the player's Players
//! item as `<bucket>Window`, `<bucket>Calls`, `<bucket>Units`, so every Lambda instance
//! sees the same counts with no extra table; none is a key or projected into
//! `BySweepShard`, so counting writes the item only, no index. Windows are aligned to
//! the clock's minutes.
//!
//! Spending is one conditional write (UpdateItem, none per recipient): it adds one call
//! and its units only if the window is the current one and the sums stay within the
//! limits, so a refused call costs the same single write and changes nothing. DynamoDB
//! returns the old item with the failure, which says whether the limit was reached or
//! the window is an old one; an old window is restarted by a second UpdateItem, once per
//! player and minute. A fixed window lets a player spend up to twice a limit across a
//! minute boundary; that bound is what matters for cost, and it needs no read.

use crate::domain::{EpochMillis, PlayerId};
use crate::ports::{RateLimiter, StoreError};
use crate::requests::Route;

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
    /// `addFriend`: friend invitations.
    FriendInvite,
    /// `setActivity`: each pushes a `presence` frame to every friend and subscriber.
    Activity,
}

impl Bucket {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::SendMessage => Route::SendMessage.as_str(),
            Self::Placement => "placement",
            Self::PartyInvite => "partyInvite",
            Self::FriendInvite => "friendInvite",
            Self::Activity => "activity",
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
