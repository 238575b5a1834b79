//! Runtime faults: knobs a developer turns while the stack runs (from the console) to
//! see how clients cope with a fleet that fails or is slow, without restarting. What is
//! broken ([`Faults`]) is part of the model, which these knobs change.

use std::time::Duration;

use shared::domain::PlacementId;
use shared::ports::GameLiftError;
use tokio::time::Instant;

use super::model::{Faults, State};
use crate::gamelift::settings::MILLIS_RANGE;

impl State {
    pub(crate) fn faults(&self) -> &Faults {
        &self.faults
    }

    pub(crate) fn set_faults(&mut self, faults: Faults) {
        tracing::info!(?faults, "simulator faults set");
        self.faults = faults;
    }

    /// `SIM_PLACEMENT_DELAY_MS` from now on (placements already PENDING keep theirs).
    pub(crate) fn set_placement_delay(&mut self, delay: Duration) -> Result<(), GameLiftError> {
        let millis = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX);
        if !MILLIS_RANGE.contains(&millis) {
            return Err(GameLiftError::InvalidRequest {
                message: format!(
                    "a placement delay of {millis} ms is not from {} to {} ms",
                    MILLIS_RANGE.start(),
                    MILLIS_RANGE.end()
                ),
            });
        }
        self.settings.placement_delay = delay;
        Ok(())
    }

    /// Holds a PENDING placement back `by` longer (it still times out on time).
    pub(crate) fn delay_placement(
        &mut self,
        now: Instant,
        placement_id: &PlacementId,
        by: Duration,
    ) -> Result<(), GameLiftError> {
        let millis = u64::try_from(by.as_millis()).unwrap_or(u64::MAX);
        if !MILLIS_RANGE.contains(&millis) {
            return Err(GameLiftError::InvalidRequest {
                message: format!(
                    "a delay of {millis} ms is not from 0 to {} ms",
                    MILLIS_RANGE.end()
                ),
            });
        }
        let p = self.pending_placement(placement_id)?;
        let placement = &mut self.placements[p];
        placement.ready_at = placement.ready_at.max(now) + by;
        Ok(())
    }
}
