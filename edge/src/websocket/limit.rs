//! A per-player limit on one kind of call, counted before the route does anything.

use std::sync::Arc;

use shared::domain::PlayerId;
use shared::ports::{Clock, RateLimiter};
use shared::rate_limits::{self, Bucket};
use shared::wiring::Wiring;

use super::RouteError;

/// A per-player limit on one kind of call (a `RATE_LIMIT_*_PER_MINUTE` setting), counted
/// on the player's item: what a handler holds, built in its `wire`.
#[derive(Clone)]
pub struct CallLimit {
    limiter: Arc<dyn RateLimiter>,
    clock: Arc<dyn Clock>,
    bucket: Bucket,
    /// Calls a minute (0: off, nothing written).
    per_minute: u32,
    /// What the calls are, as a refusal names the limit ("party invitations").
    calls: &'static str,
}

impl CallLimit {
    /// `per_minute` calls of `calls` in `bucket`, counted by the wiring's rate limiter.
    pub fn new(w: &Wiring, bucket: Bucket, per_minute: u32, calls: &'static str) -> Self {
        Self {
            limiter: w.stores.rate_limiter(),
            clock: w.clock.clone(),
            bucket,
            per_minute,
            calls,
        }
    }

    /// Counts one call of `player`'s (one write on their item; none with the limit off).
    /// Over the limit, `rate_limited` naming it ("5 party invitations a minute"); a store
    /// failure, `unavailable` saying `consequence`.
    pub async fn spend(&self, player: &PlayerId, consequence: &str) -> Result<(), RouteError> {
        let now = self.clock.now_millis();
        rate_limits::spend_call(
            self.limiter.as_ref(),
            player,
            self.bucket,
            self.per_minute,
            now,
        )
        .await
        .map_err(|e| {
            RouteError::from_limit(
                e,
                |_| format!("{} {} a minute", self.per_minute, self.calls),
                consequence,
            )
        })
    }
}
