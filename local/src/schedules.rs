//! The presence bus rule and schedule of the local stack (template: the rule on the
//! presence bus → `on-presence-event`, and `presence-timeout`'s one-minute schedule).

use std::sync::Arc;
use std::time::Duration;

use crate::routes::{Dependencies, Routes};

/// The presence bus rule and schedule: every presence event goes to `on-presence-event`,
/// and `presence-timeout` sweeps every `interval_seconds`. Both tasks end when the stack's
/// wiring is dropped.
pub(crate) fn spawn_presence(
    deps: &Dependencies,
    mut events: tokio::sync::mpsc::UnboundedReceiver<shared::presence::PresenceEvent>,
    interval_seconds: u64,
    hub: Arc<crate::console::Hub>,
) {
    let notifier = Routes::wire_presence_events(deps);
    tokio::spawn(async move {
        while let Some(event) = events.recv().await {
            crate::console::taps::tap_presence(&hub, &event);
            if let Err(error) = notifier.notify(&event).await {
                tracing::warn!(%error, player_id = %event.player_id, "presence event not delivered");
            }
        }
    });
    let sweeper = Routes::wire_presence_timeout(deps);
    let services = Arc::downgrade(&deps.services);
    let clock = deps.clock.clone();
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(Duration::from_secs(interval_seconds.max(1)));
        ticks.tick().await;
        loop {
            ticks.tick().await;
            // Stop once the stack is gone (its wiring dropped: the sweeper holds only
            // the ports it was built with).
            if services.strong_count() == 0 {
                return;
            }
            let summary = sweeper.sweep_once(clock.now_millis()).await;
            if summary.swept > 0 {
                tracing::info!(
                    swept = summary.swept,
                    zombies = summary.zombies_closed,
                    "presence sweep"
                );
            }
        }
    });
}
