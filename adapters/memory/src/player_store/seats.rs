//! [`Seats`] on the in-memory players: a seat replaced only while the stored one still
//! holds (the same game, or the same player session), and a game reported over.

use async_trait::async_trait;

use super::InMemoryPlayerStore;
use shared::domain::{GameSession, PlayerId};
use shared::ports::{Seats, StoreError};

impl InMemoryPlayerStore {
    /// Stores `session` as the player's seat if they have one and `still` holds for it,
    /// as a conditional UpdateItem would; whether it did.
    fn replace_seat(
        &self,
        player: &PlayerId,
        session: &GameSession,
        still: impl FnOnce(&GameSession) -> bool,
    ) -> bool {
        let updated = self.update_game_state(player, false, |state| {
            let holds = state.game_session.as_ref().is_some_and(still);
            if holds {
                *state.game_session = Some(session.clone());
            }
            holds
        });
        updated.unwrap_or(false)
    }
}

#[async_trait]
impl Seats for InMemoryPlayerStore {
    async fn update_game_session(
        &self,
        player: &PlayerId,
        session: &GameSession,
    ) -> Result<bool, StoreError> {
        Ok(self.replace_seat(player, session, |current| {
            current.game_session_arn == session.game_session_arn
        }))
    }

    async fn refresh_seat(
        &self,
        player: &PlayerId,
        session: &GameSession,
    ) -> Result<bool, StoreError> {
        Ok(self.replace_seat(player, session, |current| {
            current.player_session_id == session.player_session_id
        }))
    }

    async fn take_seat(&self, player: &PlayerId, session: &GameSession) -> Result<(), StoreError> {
        self.update_game_state(player, true, |state| {
            *state.game_session = Some(session.clone());
            *state.ended_game_session = None;
        });
        Ok(())
    }

    async fn end_game_session(
        &self,
        player: &PlayerId,
        game_session_arn: &str,
    ) -> Result<bool, StoreError> {
        let ended = self.update_game_state(player, false, |state| {
            let same_game = state
                .game_session
                .as_ref()
                .is_some_and(|current| current.game_session_arn == game_session_arn);
            if same_game {
                *state.game_session = None;
                *state.ended_game_session = Some(game_session_arn.to_owned());
            }
            same_game
        });
        Ok(ended.unwrap_or(false))
    }
}
