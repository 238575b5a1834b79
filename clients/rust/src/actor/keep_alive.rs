//! The timer's pace: what the last `resume` ack's `keepAlive` says, or the config's.

use std::time::Duration;

use gamelift_sockets_protocol::KeepAlive;
use serde_json::{Map, Value};
use tokio::time::{Instant, Interval, MissedTickBehavior, interval_at};

use super::Actor;

/// A timer that ticks every `period`, its first tick one period from now.
pub(super) fn timer(period: Duration) -> Interval {
    let mut timer = interval_at(Instant::now() + period, period);
    timer.set_missed_tick_behavior(MissedTickBehavior::Delay);
    timer
}

impl Actor {
    /// Follows the ack's `keepAlive` (a stack older than it sends none: the config's
    /// interval then); the timer restarts only when its interval changes.
    pub(super) fn follow_keep_alive(&mut self, ack: &Map<String, Value>) {
        self.keep_alive = ack
            .get("keepAlive")
            .and_then(|value| serde_json::from_value::<KeepAlive>(value.clone()).ok())
            .filter(|keep_alive| keep_alive.interval_seconds > 0);
        let period = self.keep_alive.map_or(self.config.heartbeat_interval, |k| {
            Duration::from_secs(u64::from(k.interval_seconds))
        });
        if period != self.heartbeat.period() {
            self.heartbeat = timer(period);
        }
    }
}
