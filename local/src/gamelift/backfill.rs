//! Match backfill as GameLift routes it: a game server's StartMatchBackfill and
//! StopMatchBackfill go to the FlexMatch simulator attached here, which seats the new
//! players and tells the game server through the calls below.

use std::sync::{Arc, PoisonError, Weak};

use gamelift_server_protocol::model::{MatchmakerData, UpdateReason};
use shared::domain::PlayerId;
use shared::placement::PlayerSession;
use shared::ports::GameLiftError;

use super::Simulator;
use super::state::ProcessError;
use crate::flexmatch::FlexMatch;

impl Simulator {
    /// Backfill requests go to `flexmatch` from now on.
    pub fn attach_flexmatch(&self, flexmatch: Weak<FlexMatch>) {
        *self
            .flexmatch
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(flexmatch);
    }

    /// The FlexMatch simulator, if matchmaking is configured.
    pub fn flexmatch(&self) -> Option<Arc<FlexMatch>> {
        self.flexmatch
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .and_then(Weak::upgrade)
    }

    /// The matchmaker data of `process_id`'s ACTIVE game session, refused otherwise.
    pub fn backfill_target(
        &self,
        process_id: &str,
        game_session_arn: &str,
    ) -> Result<Option<MatchmakerData>, ProcessError> {
        self.with_state(|state, _| state.backfill_target(process_id, game_session_arn))
    }

    /// A seat for a backfilled player: CreatePlayerSession on the running game.
    pub fn seat_backfilled(
        &self,
        game_session_arn: &str,
        player_id: &PlayerId,
    ) -> Result<PlayerSession, GameLiftError> {
        self.with_state(|state, now| {
            state.create_player_session(now, game_session_arn, player_id, None)
        })
    }

    /// UpdateGameSession to the game's process (with new matchmaker data, if given).
    pub fn update_game_session(
        &self,
        game_session_arn: &str,
        matchmaker_data: Option<MatchmakerData>,
        reason: UpdateReason,
        backfill_ticket_id: &str,
    ) -> Result<(), ProcessError> {
        self.with_state(|state, _| {
            state.update_game_session(
                game_session_arn,
                matchmaker_data,
                reason,
                backfill_ticket_id,
            )
        })
    }
}
