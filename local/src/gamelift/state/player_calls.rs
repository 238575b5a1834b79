//! A real process's calls on its player sessions: AcceptPlayerSession,
//! RemovePlayerSession, UpdatePlayerSessionCreationPolicy and DescribePlayerSessions,
//! each checked as GameLift checks it and refused with a reason.

use gamelift_server_protocol::model::{
    PlayerSession, PlayerSessionCreationPolicy, PlayerSessionStatus as WireStatus,
};
use gamelift_server_protocol::{DescribePlayerSessions, DescribePlayerSessionsResult};
use tokio::time::Instant;

use super::model::{PlayerSessionStatus, State};
use super::processes::ProcessError;

/// DescribePlayerSessions' page size when `Limit` is not given, and its most (the Go
/// SDK caps a result at 1,024).
const MAX_DESCRIBE_LIMIT: usize = 1024;

impl State {
    /// AcceptPlayerSession: RESERVED → ACTIVE, for a player session of this game.
    pub(crate) fn accept_for(
        &mut self,
        process_id: &str,
        game_session_id: &str,
        player_session_id: &str,
    ) -> Result<(), ProcessError> {
        let p = self.seat_of(process_id, game_session_id, player_session_id)?;
        let session = &mut self.player_sessions[p];
        if session.status != PlayerSessionStatus::Reserved {
            return Err(ProcessError::bad_request(format!(
                "player session {player_session_id} is {}, not RESERVED: only a reserved seat \
                 can be accepted",
                session.status.as_str()
            )));
        }
        session.status = PlayerSessionStatus::Active;
        Ok(())
    }

    /// RemovePlayerSession: COMPLETED, and the seat reopens.
    pub(crate) fn remove_for(
        &mut self,
        now: Instant,
        process_id: &str,
        game_session_id: &str,
        player_session_id: &str,
    ) -> Result<(), ProcessError> {
        self.seat_of(process_id, game_session_id, player_session_id)?;
        Ok(self.remove_player_session(now, player_session_id)?)
    }

    /// The player session, checked to be of this process's game session.
    fn seat_of(
        &self,
        process_id: &str,
        game_session_id: &str,
        player_session_id: &str,
    ) -> Result<usize, ProcessError> {
        let s = self.caller(process_id)?;
        let g = self.own_game(s, game_session_id)?;
        let p = self.player_session(player_session_id)?;
        if self.player_sessions[p].game_session != g {
            let other = &self.game_sessions[self.player_sessions[p].game_session].arn;
            return Err(ProcessError::bad_request(format!(
                "player session {player_session_id} is another game session's ({other})"
            )));
        }
        Ok(p)
    }

    /// UpdatePlayerSessionCreationPolicy: DENY_ALL refuses new player sessions.
    pub(crate) fn update_creation_policy(
        &mut self,
        process_id: &str,
        game_session_id: &str,
        policy: PlayerSessionCreationPolicy,
    ) -> Result<(), ProcessError> {
        let s = self.caller(process_id)?;
        let g = self.own_game(s, game_session_id)?;
        self.game_sessions[g].creation_policy = policy;
        Ok(())
    }

    /// DescribePlayerSessions: by exactly one of GameSessionId, PlayerId and
    /// PlayerSessionId, optionally by status, a page of `Limit` at a time (`NextToken`
    /// is where the next page starts).
    pub(crate) fn describe_player_sessions(
        &self,
        process_id: &str,
        request: &DescribePlayerSessions,
    ) -> Result<DescribePlayerSessionsResult, ProcessError> {
        self.caller(process_id)?;
        let given = [
            request.game_session_id.is_some(),
            request.player_id.is_some(),
            request.player_session_id.is_some(),
        ];
        if given.iter().filter(|&&g| g).count() != 1 {
            return Err(ProcessError::bad_request(
                "DescribePlayerSessions takes exactly one of GameSessionId, PlayerId and \
                 PlayerSessionId",
            ));
        }
        let limit = match request.limit {
            None => MAX_DESCRIBE_LIMIT,
            Some(limit) if (1..=MAX_DESCRIBE_LIMIT as i64).contains(&limit) => limit as usize,
            Some(limit) => {
                return Err(ProcessError::bad_request(format!(
                    "Limit {limit} is not 1-{MAX_DESCRIBE_LIMIT}"
                )));
            }
        };
        let start = match request.next_token.as_deref() {
            None | Some("") => 0,
            Some(token) => token.parse::<usize>().map_err(|_| {
                ProcessError::bad_request(format!("NextToken {token:?} is not one this stack gave"))
            })?,
        };
        let candidates: Vec<usize> = if let Some(game) = &request.game_session_id {
            let g = self.game(game)?;
            self.game_sessions[g].player_sessions.clone()
        } else if let Some(id) = &request.player_session_id {
            self.player_session_index
                .get(id)
                .copied()
                .into_iter()
                .collect()
        } else {
            let player = request.player_id.as_deref().unwrap_or_default();
            (0..self.player_sessions.len())
                .filter(|&p| self.player_sessions[p].player_id == player)
                .collect()
        };
        let wanted = request.player_session_status_filter;
        let matching: Vec<usize> = candidates
            .into_iter()
            .filter(|&p| wanted.is_none_or(|w| wire_status(self.player_sessions[p].status) == w))
            .collect();
        let page: Vec<PlayerSession> = matching
            .iter()
            .skip(start)
            .take(limit)
            .map(|&p| self.wire_player_session(p))
            .collect();
        let next = start + page.len();
        Ok(DescribePlayerSessionsResult {
            next_token: (next < matching.len()).then(|| next.to_string()),
            player_sessions: page,
        })
    }

    fn wire_player_session(&self, p: usize) -> PlayerSession {
        let session = &self.player_sessions[p];
        let game = &self.game_sessions[session.game_session];
        PlayerSession {
            player_id: session.player_id.clone(),
            player_session_id: session.id.clone(),
            game_session_id: game.arn.clone(),
            fleet_id: self.settings.fleet_id.clone(),
            player_data: session.player_data.clone().unwrap_or_default(),
            ip_address: game.ip_address.clone(),
            port: i32::from(game.port),
            creation_time: session.creation_millis,
            termination_time: session.termination_millis.unwrap_or(0),
            dns_name: game.dns_name.clone(),
            status: Some(wire_status(session.status)),
        }
    }
}

fn wire_status(status: PlayerSessionStatus) -> WireStatus {
    match status {
        PlayerSessionStatus::Reserved => WireStatus::Reserved,
        PlayerSessionStatus::Active => WireStatus::Active,
        PlayerSessionStatus::Completed => WireStatus::Completed,
        PlayerSessionStatus::TimedOut => WireStatus::TimedOut,
    }
}
