//! The simulator's runtime knobs (what the console turns): fail every placement, change
//! how long placements take, slow one down.

use std::time::Duration;

use shared::domain::PlacementId;
use shared::ports::GameLiftError;

use super::{Faults, Simulator};

impl Simulator {
    /// What is broken on purpose right now.
    pub fn faults(&self) -> Faults {
        self.lock().faults().clone()
    }

    /// Turns faults on or off, from now on.
    pub fn set_faults(&self, faults: Faults) {
        self.with_state(|state, _| state.set_faults(faults));
    }

    /// How long new placements stay PENDING at least (`SIM_PLACEMENT_DELAY_MS`, changed
    /// while running); refused outside 0 ms to an hour.
    pub fn set_placement_delay(&self, delay: Duration) -> Result<(), GameLiftError> {
        self.with_state(|state, _| state.set_placement_delay(delay))
    }

    /// Holds a PENDING placement back `by` longer; NotFound or InvalidRequest (not
    /// PENDING) as StopGameSessionPlacement answers.
    pub fn delay_placement(
        &self,
        placement_id: &PlacementId,
        by: Duration,
    ) -> Result<(), GameLiftError> {
        self.with_state(|state, now| state.delay_placement(now, placement_id, by))
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use shared::domain::{PlacementId, PlayerId};
    use shared::ports::GameLiftError;

    use crate::gamelift::{
        DesiredPlayer, Faults, GroupPlacementRequest, PlacementStatus, Simulator,
        SimulatorSettings, channel_sink,
    };

    fn request(id: &str) -> GroupPlacementRequest {
        GroupPlacementRequest {
            placement_id: PlacementId::parse(id).unwrap(),
            queue: "q".into(),
            max_players: 2,
            players: vec![DesiredPlayer {
                player_id: PlayerId::parse("alice").unwrap(),
                player_data: None,
            }],
            matchmaker_data: None,
        }
    }

    fn fast() -> SimulatorSettings {
        SimulatorSettings {
            server_startup: Duration::ZERO,
            placement_delay: Duration::from_millis(100),
            ..SimulatorSettings::default()
        }
    }

    fn status(simulator: &Simulator, id: &str) -> PlacementStatus {
        let snapshot = simulator.snapshot();
        snapshot
            .placement(&PlacementId::parse(id).unwrap())
            .unwrap()
            .status
    }

    #[tokio::test(start_paused = true)]
    async fn with_fail_placements_on_a_placement_fails_where_it_would_have_been_placed() {
        // Given a fleet told to fail placements
        let (sink, mut events) = channel_sink();
        let (simulator, task) = Simulator::start(fast(), sink);
        simulator.set_faults(Faults {
            fail_placements: true,
            ..Faults::default()
        });

        // When a placement comes due
        simulator.start_group_placement(request("p-1")).unwrap();
        tokio::time::sleep(Duration::from_millis(200)).await;

        // Then it is FAILED, with GameLift's PlacementFailed event, and no game started
        assert_eq!(status(&simulator, "p-1"), PlacementStatus::Failed);
        let event = events.recv().await.unwrap();
        assert!(event.to_string().contains("PlacementFailed"), "{event}");
        assert!(simulator.snapshot().game_sessions.is_empty());

        // And once the fault is off, the next one is fulfilled
        simulator.set_faults(Faults::default());
        simulator.start_group_placement(request("p-2")).unwrap();
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert_eq!(status(&simulator, "p-2"), PlacementStatus::Fulfilled);
        task.abort();
    }

    #[tokio::test(start_paused = true)]
    async fn a_slowed_placement_waits_longer_and_a_new_delay_applies_to_new_placements() {
        let (sink, _events) = channel_sink();
        let (simulator, task) = Simulator::start(fast(), sink);
        simulator.start_group_placement(request("p-1")).unwrap();
        let id = PlacementId::parse("p-1").unwrap();

        // When it is held back a second
        simulator
            .delay_placement(&id, Duration::from_secs(1))
            .unwrap();
        tokio::time::sleep(Duration::from_millis(500)).await;

        // Then it is still PENDING after its normal delay, and FULFILLED after the extra
        assert_eq!(status(&simulator, "p-1"), PlacementStatus::Pending);
        tokio::time::sleep(Duration::from_millis(700)).await;
        assert_eq!(status(&simulator, "p-1"), PlacementStatus::Fulfilled);

        // And a placement no longer PENDING cannot be slowed
        assert!(matches!(
            simulator.delay_placement(&id, Duration::from_secs(1)),
            Err(GameLiftError::InvalidRequest { .. })
        ));
        assert!(matches!(
            simulator.delay_placement(&PlacementId::parse("nope").unwrap(), Duration::ZERO),
            Err(GameLiftError::NotFound { .. })
        ));

        // And the placement delay knob changes what new placements wait
        simulator
            .set_placement_delay(Duration::from_secs(2))
            .unwrap();
        assert_eq!(simulator.settings().placement_delay, Duration::from_secs(2));
        assert!(
            simulator
                .set_placement_delay(Duration::from_secs(3_601))
                .is_err()
        );
        task.abort();
    }
}
