//! `setActivity`: an online player sets what they are doing (rich presence,
//! `shared::activity`), which their friends and presence subscribers get in `presence`
//! frames.
//!
//! Round trips: 1 conditional UpdateItem (the per-player limit,
//! `RATE_LIMIT_ACTIVITY_PER_MINUTE`; none with it off), 1 conditional UpdateItem (the
//! activity on the player's item, only over their online connection) and 1 PutEvents
//! (`presence.activity`, which `on-presence-event` turns into a `presence` frame in each
//! friend's and subscriber's inbox). `details` over 512 bytes is refused before any of
//! them. The sweeper's write that takes the player offline removes the activity, and
//! its `presence.disconnected` frame carries none.

use std::sync::Arc;

use edge::websocket::{CallLimit, Caller, RouteError};
use shared::activity::{Activity, MAX_ACTIVITY_DETAILS_BYTES};
use shared::frames::ErrorCode;
use shared::ports::{Activities, Clock, EventBus};
use shared::presence::PresenceEvent;
use shared::telemetry::ErrorChain;
use tracing::{info, warn};

/// What `setActivity` is built from.
#[derive(Clone)]
pub struct ActivityPorts {
    pub activities: Arc<dyn Activities>,
    pub events: Arc<dyn EventBus>,
    /// Changes, against `RATE_LIMIT_ACTIVITY_PER_MINUTE`.
    pub limit: CallLimit,
    pub clock: Arc<dyn Clock>,
}

impl ActivityPorts {
    /// Stores `activity` as the caller's and tells their watchers; answers what was
    /// stored.
    pub async fn set(&self, caller: &Caller, activity: &Activity) -> Result<Activity, RouteError> {
        let player = &caller.player_id;
        if let Some(bytes) = activity.oversized_details() {
            return Err(RouteError::new(
                ErrorCode::PayloadTooLarge,
                format!(
                    "`details` is {bytes} bytes serialized; the maximum is {MAX_ACTIVITY_DETAILS_BYTES}"
                ),
            ));
        }
        let now = self.clock.now_millis();
        self.limit
            .spend(player, "your activity was not changed; retry")
            .await?;
        let stored = (!activity.is_clear()).then_some(activity);
        let set = self
            .activities
            .set_activity(player, &caller.connection_id, stored)
            .await
            .map_err(|e| RouteError::from_store(e, "your activity was not changed; retry"))?;
        if !set {
            return Err(RouteError::new(
                ErrorCode::Conflict,
                "this connection is no longer your online one; reconnect and resume",
            ));
        }
        let event = PresenceEvent::activity(player.clone(), now, stored.cloned());
        if let Err(err) = self.events.publish(std::slice::from_ref(&event)).await {
            warn!(player_id = %player, error = %ErrorChain(&err), "could not publish presence.activity");
            return Err(RouteError::new(
                ErrorCode::Unavailable,
                "your activity was stored, but your friends and subscribers were not told; retry",
            ));
        }
        info!(player_id = %player, cleared = stored.is_none(), "activity set");
        Ok(activity.clone())
    }
}

#[cfg(test)]
mod tests;
