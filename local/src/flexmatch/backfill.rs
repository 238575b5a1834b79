//! Match backfill (<https://docs.aws.amazon.com/gamelift/latest/flexmatchguide/match-backfill.html>):
//! a game server's StartMatchBackfill makes a backfill ticket carrying the game's
//! current players, seated in their teams; the matcher fills the teams' open slots with
//! searching tickets under the same rules ([`matcher::backfill`]). The new players get a
//! player session in the running game and their tickets go COMPLETED exactly as after a
//! normal match (PotentialMatchCreated, then MatchmakingSucceeded with the game and
//! their player session); the game server is sent UpdateGameSession
//! `MATCHMAKING_DATA_UPDATED` with every player in its MatchmakerData. A backfill
//! searching past the request timeout ends `BACKFILL_TIMED_OUT`; StopMatchBackfill,
//! `BACKFILL_CANCELLED`.

use std::collections::BTreeMap;

use gamelift_server_protocol::model::{
    AttributeValue as WireAttribute, MatchmakerData, MatchmakerPlayer, MatchmakerTeam, UpdateReason,
};
use gamelift_server_protocol::{StartMatchBackfill, StopMatchBackfill};
use serde_json::json;
use shared::domain::PlayerId;
use shared::matchmaking::{AttributeValue, Attributes, TicketId};
use tokio::time::Instant;

use super::events::GameSessionInfo;
use super::lifecycle::{matchmaker_attribute, searching_pool, seated_tickets};
use super::matcher::{self, PoolPlayer};
use super::{FlexMatch, Stage, State, Ticket, TicketPlayer};
use crate::gamelift::ProcessError;

/// What a backfill ticket fills.
#[derive(Clone, Debug)]
pub(super) struct BackfillOf {
    pub(super) game_session_arn: String,
    /// The match's id (the game's matchmaker data), kept in the new data.
    pub(super) match_id: String,
}

impl FlexMatch {
    /// StartMatchBackfill from `process_id`: the backfill ticket's id.
    pub fn start_backfill(
        &self,
        process_id: &str,
        request: StartMatchBackfill,
    ) -> Result<String, ProcessError> {
        self.check_configuration(&request.matchmaking_configuration_arn)?;
        let data = self
            .gamelift
            .backfill_target(process_id, &request.game_session_arn)?;
        if request.players.is_empty() {
            return Err(ProcessError::bad_request(
                "StartMatchBackfill needs Players: the game session's current players",
            ));
        }
        let teams: Vec<&str> = self
            .settings
            .rule_set
            .teams
            .iter()
            .map(|t| t.name.as_str())
            .collect();
        let mut players = Vec::new();
        for player in &request.players {
            let player_id = PlayerId::parse(player.player_id.as_str()).map_err(|e| {
                ProcessError::bad_request(format!("PlayerId {:?}: {e}", player.player_id))
            })?;
            if !teams.contains(&player.team.as_str()) {
                return Err(ProcessError::bad_request(format!(
                    "player {player_id}: Team {:?} is not a team of rule set {} ({})",
                    player.team,
                    self.settings.rule_set.name,
                    teams.join(", ")
                )));
            }
            let given: Attributes = player
                .player_attributes
                .iter()
                .filter_map(|(name, value)| Some((name.clone(), attribute(value)?)))
                .collect();
            players.push(TicketPlayer {
                pool: PoolPlayer {
                    attributes: self.attributes(&player_id, &given)?,
                    latencies: player
                        .latency_in_ms
                        .iter()
                        .map(|(region, ms)| (region.clone(), u32::try_from(*ms).unwrap_or(0)))
                        .collect(),
                },
                player_id,
                team: Some(player.team.clone()),
                accepted: None,
            });
        }
        let raw_id = if request.ticket_id.is_empty() {
            uuid::Uuid::new_v4().to_string()
        } else {
            request.ticket_id.clone()
        };
        let id = TicketId::parse(raw_id.as_str())
            .map_err(|e| ProcessError::bad_request(format!("TicketId {raw_id:?}: {e}")))?;
        let mut state = self.lock();
        if state.tickets.iter().any(|t| t.id == id) {
            return Err(ProcessError::bad_request(format!(
                "ticket {id} already exists"
            )));
        }
        let backfill = BackfillOf {
            game_session_arn: request.game_session_arn,
            // A game FlexMatch did not make gets a match id of its own.
            match_id: data
                .map(|d| d.match_id)
                .unwrap_or_else(|| uuid::Uuid::new_v4().to_string()),
        };
        let ticket = Ticket::searching(id, players, Some(backfill));
        self.searching(&ticket);
        state.tickets.push(ticket);
        Ok(raw_id)
    }

    /// StopMatchBackfill from `process_id`: a searching backfill ticket of its game is
    /// cancelled, and the game server told `BACKFILL_CANCELLED`.
    pub fn stop_backfill(
        &self,
        process_id: &str,
        request: &StopMatchBackfill,
    ) -> Result<(), ProcessError> {
        self.check_configuration(&request.matchmaking_configuration_arn)?;
        self.gamelift
            .backfill_target(process_id, &request.game_session_arn)?;
        let mut state = self.lock();
        let index = state
            .tickets
            .iter()
            .position(|t| {
                t.id.as_str() == request.ticket_id
                    && t.backfill
                        .as_ref()
                        .is_some_and(|b| b.game_session_arn == request.game_session_arn)
            })
            .ok_or_else(|| {
                ProcessError::not_found(format!(
                    "no live backfill ticket {:?} for game session {}",
                    request.ticket_id, request.game_session_arn
                ))
            })?;
        if state.tickets[index].stage != Stage::Searching {
            return Err(ProcessError::bad_request(format!(
                "backfill ticket {} is no longer searching",
                request.ticket_id
            )));
        }
        let ticket = state.tickets.remove(index);
        drop(state);
        self.emit(
            "MatchmakingCancelled",
            &[&ticket],
            None,
            json!({"reason": "Cancelled", "message": "Cancelled by request."}),
        );
        self.tell_game(&ticket, None, UpdateReason::BackfillCancelled);
        Ok(())
    }

    fn check_configuration(&self, given: &str) -> Result<(), ProcessError> {
        // GameLift takes the configuration's name or ARN.
        if given == self.configuration_arn || given == self.settings.configuration {
            return Ok(());
        }
        Err(ProcessError::not_found(format!(
            "matchmaking configuration {given:?} not found: the local stack runs {}",
            self.configuration_arn
        )))
    }

    /// UpdateGameSession to the backfilled game's server; a game that went away has
    /// no one to tell.
    pub(super) fn tell_game(
        &self,
        ticket: &Ticket,
        data: Option<MatchmakerData>,
        reason: UpdateReason,
    ) {
        let Some(backfill) = &ticket.backfill else {
            return;
        };
        if let Err(error) = self.gamelift.update_game_session(
            &backfill.game_session_arn,
            data,
            reason,
            ticket.id.as_str(),
        ) {
            tracing::warn!(%error, ticket_id = %ticket.id, "UpdateGameSession not sent");
        }
    }

    /// Each searching backfill ticket, oldest first, filled from the searching tickets.
    pub(super) fn fill_backfills(&self, state: &mut State, now: Instant) {
        let backfills: Vec<TicketId> = state
            .tickets
            .iter()
            .filter(|t| t.backfill.is_some() && t.stage == Stage::Searching)
            .map(|t| t.id.clone())
            .collect();
        for id in backfills {
            self.fill(state, now, &id);
        }
    }

    fn fill(&self, state: &mut State, now: Instant, id: &TicketId) {
        let Some(b) = state.tickets.iter().position(|t| t.id == *id) else {
            return;
        };
        let (searching, pool) = searching_pool(state, now);
        let mut seated: Vec<(String, Vec<PoolPlayer>)> = Vec::new();
        for player in &state.tickets[b].players {
            let team = player.team.clone().unwrap_or_default();
            match seated.iter_mut().find(|(name, _)| *name == team) {
                Some((_, players)) => players.push(player.pool.clone()),
                None => seated.push((team, vec![player.pool.clone()])),
            }
        }
        let waited = now.duration_since(state.tickets[b].started).as_secs_f64();
        let Some(teams) = matcher::backfill(&self.settings.rule_set, &seated, &pool, waited) else {
            return;
        };
        let mut joined: Vec<TicketId> = Vec::new();
        for (team, tickets) in &teams {
            for &p in tickets {
                let ticket = &mut state.tickets[searching[p]];
                for player in &mut ticket.players {
                    player.team = Some(team.clone());
                }
                joined.push(ticket.id.clone());
            }
        }
        let (ended, live): (Vec<Ticket>, Vec<Ticket>) = std::mem::take(&mut state.tickets)
            .into_iter()
            .partition(|t| t.id == *id || joined.contains(&t.id));
        state.tickets = live;
        let Some(backfill_ticket) = ended.iter().find(|t| t.id == *id) else {
            return;
        };
        let Some(of) = backfill_ticket.backfill.clone() else {
            return;
        };
        let new: Vec<&Ticket> = ended.iter().filter(|t| t.id != *id).collect();
        self.seat_match(backfill_ticket, &of, &new);
    }

    /// The new players seated in the running game and told (PotentialMatchCreated,
    /// MatchmakingSucceeded), and the game server sent the new matchmaker data.
    fn seat_match(&self, backfill_ticket: &Ticket, of: &BackfillOf, new: &[&Ticket]) {
        let mut listed: Vec<&Ticket> = vec![backfill_ticket];
        listed.extend(new.iter().copied());
        self.emit(
            "PotentialMatchCreated",
            &listed,
            None,
            json!({"matchId": of.match_id, "acceptanceRequired": false}),
        );
        let mut seats: BTreeMap<String, String> = BTreeMap::new();
        let mut session: Option<GameSessionInfo> = None;
        for player in new.iter().flat_map(|t| &t.players) {
            match self
                .gamelift
                .seat_backfilled(&of.game_session_arn, &player.player_id)
            {
                Ok(seat) => {
                    session.get_or_insert(GameSessionInfo {
                        game_session_arn: seat.game_session_arn.clone(),
                        ip_address: seat.ip_address.clone(),
                        dns_name: seat.dns_name.clone(),
                        port: seat.port,
                    });
                    seats.insert(player.player_id.to_string(), seat.player_session_id);
                }
                Err(error) => {
                    tracing::warn!(%error, player_id = %player.player_id, "backfilled player not seated");
                }
            }
        }
        let Some(session) = session else {
            let refs: Vec<&Ticket> = listed.clone();
            self.emit(
                "MatchmakingFailed",
                &refs,
                None,
                json!({"matchId": of.match_id, "reason": "UNEXPECTED_ERROR",
                       "message": "the game session took none of the new players"}),
            );
            self.tell_game(backfill_ticket, None, UpdateReason::BackfillFailed);
            return;
        };
        let tickets = seated_tickets(listed.iter().copied(), &seats);
        self.emit_listed(
            "MatchmakingSucceeded",
            &tickets,
            Some(&session),
            json!({"matchId": of.match_id}),
        );
        let mut teams: Vec<MatchmakerTeam> = self
            .settings
            .rule_set
            .teams
            .iter()
            .map(|t| MatchmakerTeam {
                name: t.name.clone(),
                players: Vec::new(),
            })
            .collect();
        for player in listed.iter().flat_map(|t| &t.players) {
            let name = player.team.clone().unwrap_or_default();
            if let Some(team) = teams.iter_mut().find(|t| t.name == name) {
                team.players.push(MatchmakerPlayer {
                    player_id: player.player_id.to_string(),
                    attributes: player
                        .pool
                        .attributes
                        .iter()
                        .filter_map(|(k, v)| Some((k.clone(), matchmaker_attribute(v)?)))
                        .collect(),
                });
            }
        }
        let data = MatchmakerData {
            match_id: of.match_id.clone(),
            matchmaking_configuration_arn: self.configuration_arn.clone(),
            teams,
            auto_backfill_ticket_id: None,
            auto_backfill_mode: None,
        };
        self.tell_game(
            backfill_ticket,
            Some(data),
            UpdateReason::MatchmakingDataUpdated,
        );
    }
}

/// A StartMatchBackfill attribute as a ticket's (`NONE`: left out).
fn attribute(value: &WireAttribute) -> Option<AttributeValue> {
    match value {
        WireAttribute::None => None,
        WireAttribute::String { s } => Some(AttributeValue::String(s.clone())),
        WireAttribute::Double { n } => Some(AttributeValue::Number(*n)),
        WireAttribute::StringList { sl } => Some(AttributeValue::StringList(sl.clone())),
        WireAttribute::StringDoubleMap { sdm } => {
            Some(AttributeValue::StringNumberMap(sdm.clone()))
        }
    }
}
