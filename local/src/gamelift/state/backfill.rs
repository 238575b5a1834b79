//! What match backfill (FlexMatch's StartMatchBackfill) needs of the fleet: the game
//! session a process asks to backfill, checked as GameLift checks it (the caller's own,
//! ACTIVE), and the game server told of the outcome with UpdateGameSession
//! (<https://docs.aws.amazon.com/gamelift/latest/flexmatchguide/match-backfill.html>).

use gamelift_server_protocol::model::{
    GameSession as WireGameSession, MatchmakerData, UpdateReason,
};
use gamelift_server_protocol::{Push, UpdateGameSession};

use super::model::{GameSessionStatus, State};
use super::processes::ProcessError;

impl State {
    /// The matchmaker data of `process_id`'s ACTIVE game session `game_session_arn`
    /// (`None`: a game not made by FlexMatch).
    pub(crate) fn backfill_target(
        &self,
        process_id: &str,
        game_session_arn: &str,
    ) -> Result<Option<MatchmakerData>, ProcessError> {
        let s = self.caller(process_id)?;
        let g = self.own_game(s, game_session_arn)?;
        let game = &self.game_sessions[g];
        if game.status != GameSessionStatus::Active {
            return Err(ProcessError::bad_request(format!(
                "game session {game_session_arn} is {:?}, not ACTIVE: only an ACTIVE game \
                 session can be backfilled",
                game.status
            )));
        }
        Ok(self
            .placement_index
            .get(&game.placement_id)
            .and_then(|&p| self.placements[p].matchmaker_data.clone()))
    }

    /// Records the game's new matchmaker data (if any) and sends its process
    /// UpdateGameSession with `reason`; a simulated process is sent nothing.
    pub(crate) fn update_game_session(
        &mut self,
        game_session_arn: &str,
        matchmaker_data: Option<MatchmakerData>,
        reason: UpdateReason,
        backfill_ticket_id: &str,
    ) -> Result<(), ProcessError> {
        let g = self.game(game_session_arn)?;
        let game = &self.game_sessions[g];
        let p = self.placement_index.get(&game.placement_id).copied();
        if let (Some(p), Some(data)) = (p, matchmaker_data) {
            self.placements[p].matchmaker_data = Some(data);
        }
        let game = &self.game_sessions[g];
        let placement = p.map(|p| &self.placements[p]);
        let push = Push::UpdateGameSession(UpdateGameSession {
            game_session: WireGameSession {
                game_session_id: game.arn.clone(),
                name: game.placement_id.to_string(),
                fleet_id: self.settings.fleet_id.clone(),
                maximum_player_session_count: i32::try_from(game.max_players).unwrap_or(i32::MAX),
                port: i32::from(game.port),
                ip_address: game.ip_address.clone(),
                dns_name: game.dns_name.clone(),
                game_session_data: String::new(),
                matchmaker_data: placement
                    .and_then(|p| p.matchmaker_data.as_ref())
                    .map(MatchmakerData::to_text)
                    .unwrap_or_default(),
                game_properties: Default::default(),
            },
            update_reason: reason,
            backfill_ticket_id: backfill_ticket_id.to_owned(),
        });
        let s = game.server;
        if self.servers[s].real.is_none() {
            return Ok(());
        }
        let process_id = self.servers[s].process_id.clone();
        self.push(&process_id, push)
    }
}
