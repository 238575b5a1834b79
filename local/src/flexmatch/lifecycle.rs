//! How a match goes: formed from the tickets searching, proposed (and accepted, or
//! fallen through), placed on the GameLift simulator's fleet, and ended with its
//! game session or its failure; each step's events emitted as it happens.

use std::collections::BTreeMap;

use serde_json::json;
use shared::domain::PlacementId;
use shared::matchmaking::TicketId;
use tokio::time::Instant;

use super::events::{EventTicket, GameSessionInfo};
use super::matcher::{self, PoolTicket};
use super::{FlexMatch, Proposal, Stage, State, Ticket};
use gamelift_server_protocol::model::{
    MatchmakerAttribute, MatchmakerData, MatchmakerPlayer, MatchmakerTeam,
};

use crate::gamelift::{DesiredPlayer, GroupPlacementRequest, PlacementStatus};

impl FlexMatch {
    pub(super) fn form_match(&self, state: &mut State, now: Instant) -> bool {
        let (searching, pool) = searching_pool(state, now);
        let Some(formed) = matcher::form(&self.settings.rule_set, &pool) else {
            return false;
        };
        let match_id = uuid::Uuid::new_v4().to_string();
        let mut members = Vec::new();
        for (team, tickets) in &formed.teams {
            for &p in tickets {
                let ticket = &mut state.tickets[searching[p]];
                ticket.stage = Stage::Proposed(match_id.clone());
                for player in &mut ticket.players {
                    player.team = Some(team.clone());
                    player.accepted = None;
                }
                members.push(ticket.id.clone());
            }
        }
        let required = self.settings.acceptance_timeout;
        state.matches.insert(
            match_id.clone(),
            Proposal {
                tickets: members.clone(),
                deadline: required.map(|timeout| now + timeout),
                placement: None,
            },
        );
        let listed: Vec<&Ticket> = state
            .tickets
            .iter()
            .filter(|t| members.contains(&t.id))
            .collect();
        let mut fields = json!({"matchId": match_id, "acceptanceRequired": required.is_some()});
        if let Some(timeout) = required {
            fields["acceptanceTimeout"] = json!(timeout.as_secs());
        }
        self.emit("PotentialMatchCreated", &listed, None, fields);
        if required.is_none() {
            self.place(state, &match_id);
        }
        true
    }

    /// Starts the match's game session placement on the fleet.
    pub(super) fn place(&self, state: &mut State, match_id: &str) {
        let Some(proposal) = state.matches.get_mut(match_id) else {
            return;
        };
        proposal.deadline = None;
        let members = proposal.tickets.clone();
        let mut players = Vec::new();
        let mut teams: Vec<MatchmakerTeam> = Vec::new();
        for ticket in state.tickets.iter_mut().filter(|t| members.contains(&t.id)) {
            ticket.stage = Stage::Placing(match_id.to_owned());
            players.extend(ticket.players.iter().map(|p| DesiredPlayer {
                player_id: p.player_id.clone(),
                player_data: None,
            }));
            for player in &ticket.players {
                let name = player.team.clone().unwrap_or_default();
                let position = match teams.iter().position(|team| team.name == name) {
                    Some(position) => position,
                    None => {
                        teams.push(MatchmakerTeam {
                            name,
                            players: Vec::new(),
                        });
                        teams.len() - 1
                    }
                };
                teams[position].players.push(MatchmakerPlayer {
                    player_id: player.player_id.as_str().to_owned(),
                    attributes: player
                        .pool
                        .attributes
                        .iter()
                        .filter_map(|(name, value)| {
                            Some((name.clone(), matchmaker_attribute(value)?))
                        })
                        .collect(),
                });
            }
        }
        // What a game server reads in CreateGameSession's MatchmakerData.
        let matchmaker_data = MatchmakerData {
            match_id: match_id.to_owned(),
            matchmaking_configuration_arn: self.configuration_arn.clone(),
            teams,
            auto_backfill_ticket_id: None,
            auto_backfill_mode: None,
        };
        let placement = PlacementId::parse(match_id)
            .map_err(|e| e.to_string())
            .and_then(|id| {
                self.gamelift
                    .start_group_placement(GroupPlacementRequest {
                        placement_id: id.clone(),
                        queue: self.settings.queue.clone(),
                        max_players: self.settings.rule_set.max_players(),
                        players,
                        matchmaker_data: Some(matchmaker_data),
                    })
                    .map(|()| id)
                    .map_err(|e| e.to_string())
            });
        match placement {
            Ok(id) => {
                if let Some(proposal) = state.matches.get_mut(match_id) {
                    proposal.placement = Some(id);
                }
            }
            Err(reason) => self.end_match(state, match_id, None, Some(reason)),
        }
    }

    /// Matches whose placement ended: MatchmakingSucceeded or MatchmakingFailed.
    pub(super) fn settle_placements(&self, state: &mut State) {
        let placing: Vec<(String, PlacementId)> = state
            .matches
            .iter()
            .filter_map(|(id, m)| Some((id.clone(), m.placement.clone()?)))
            .collect();
        if placing.is_empty() {
            return;
        }
        let snapshot = self.gamelift.snapshot();
        for (match_id, placement_id) in placing {
            let Some(view) = snapshot.placement(&placement_id) else {
                continue;
            };
            match view.status {
                PlacementStatus::Pending => {}
                PlacementStatus::Fulfilled => {
                    let session = snapshot
                        .game_sessions
                        .iter()
                        .find(|g| g.placement_id == placement_id)
                        .map(|g| GameSessionInfo {
                            game_session_arn: g.game_session_arn.clone(),
                            ip_address: g.ip_address.clone(),
                            dns_name: g.dns_name.clone(),
                            port: g.port,
                        });
                    let seats: BTreeMap<String, String> = snapshot
                        .player_sessions
                        .iter()
                        .filter(|p| {
                            session
                                .as_ref()
                                .is_some_and(|s| s.game_session_arn == p.game_session_arn)
                        })
                        .map(|p| (p.player_id.clone(), p.player_session_id.clone()))
                        .collect();
                    match session {
                        Some(session) => {
                            self.end_match(state, &match_id, Some((session, seats)), None)
                        }
                        None => {
                            self.end_match(state, &match_id, None, Some("no game session".into()))
                        }
                    }
                }
                other => {
                    let reason = format!("the game session placement ended {other:?}");
                    self.end_match(state, &match_id, None, Some(reason));
                }
            }
        }
    }

    /// The match ends: succeeded (with its game session and seats) or failed.
    pub(super) fn end_match(
        &self,
        state: &mut State,
        match_id: &str,
        succeeded: Option<(GameSessionInfo, BTreeMap<String, String>)>,
        failure: Option<String>,
    ) {
        let Some(proposal) = state.matches.remove(match_id) else {
            return;
        };
        let (ended, live): (Vec<Ticket>, Vec<Ticket>) = std::mem::take(&mut state.tickets)
            .into_iter()
            .partition(|t| proposal.tickets.contains(&t.id));
        state.tickets = live;
        match succeeded {
            Some((session, seats)) => {
                let listed = seated_tickets(ended.iter(), &seats);
                self.emit_listed(
                    "MatchmakingSucceeded",
                    &listed,
                    Some(&session),
                    json!({"matchId": match_id}),
                );
            }
            None => {
                let refs: Vec<&Ticket> = ended.iter().collect();
                self.emit(
                    "MatchmakingFailed",
                    &refs,
                    None,
                    json!({"matchId": match_id, "reason": "UNEXPECTED_ERROR",
                           "message": failure.unwrap_or_else(|| "placement failed".into())}),
                );
            }
        }
    }

    /// A proposed match falls through (rejected, acceptance timed out, or a ticket
    /// stopped): tickets whose players all accepted search again, the others are
    /// cancelled (`stopped`: that ticket is cancelled by request).
    pub(super) fn fall_through(
        &self,
        state: &mut State,
        match_id: &str,
        acceptance: &str,
        stopped: Option<&TicketId>,
    ) {
        let Some(proposal) = state.matches.remove(match_id) else {
            return;
        };
        let listed: Vec<&Ticket> = state
            .tickets
            .iter()
            .filter(|t| proposal.tickets.contains(&t.id))
            .collect();
        if stopped.is_none() {
            self.emit(
                "AcceptMatchCompleted",
                &listed,
                None,
                json!({"matchId": match_id, "acceptance": acceptance}),
            );
        }
        let (cancelled, live): (Vec<Ticket>, Vec<Ticket>) = std::mem::take(&mut state.tickets)
            .into_iter()
            .partition(|t| {
                proposal.tickets.contains(&t.id)
                    && (stopped == Some(&t.id)
                        || (stopped.is_none()
                            && !t.players.iter().all(|p| p.accepted == Some(true))))
            });
        state.tickets = live;
        for ticket in &cancelled {
            let message = if stopped.is_some() {
                "Cancelled by request."
            } else {
                "Cancelled: the proposed match was not accepted by every player in time."
            };
            self.emit(
                "MatchmakingCancelled",
                &[ticket],
                None,
                json!({"reason": "Cancelled", "message": message}),
            );
        }
        for ticket in state
            .tickets
            .iter_mut()
            .filter(|t| proposal.tickets.contains(&t.id))
        {
            ticket.stage = Stage::Searching;
            for player in &mut ticket.players {
                player.team = None;
                player.accepted = None;
            }
        }
        let back: Vec<&Ticket> = state
            .tickets
            .iter()
            .filter(|t| proposal.tickets.contains(&t.id))
            .collect();
        for ticket in back {
            self.searching(ticket);
        }
    }
}

/// A player attribute as matchmaker data types it (the rule set's number, string, list
/// of strings or map of numbers); anything else is left out.
pub(super) fn matchmaker_attribute(value: &serde_json::Value) -> Option<MatchmakerAttribute> {
    use serde_json::Value;
    match value {
        Value::Number(n) => n.as_f64().map(MatchmakerAttribute::Double),
        Value::String(s) => Some(MatchmakerAttribute::String(s.clone())),
        Value::Array(items) => items
            .iter()
            .map(|item| item.as_str().map(str::to_owned))
            .collect::<Option<Vec<_>>>()
            .map(MatchmakerAttribute::StringList),
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| Some((k.clone(), v.as_f64()?)))
            .collect::<Option<_>>()
            .map(MatchmakerAttribute::StringDoubleMap),
        _ => None,
    }
}

/// The tickets of a match that succeeded, as MatchmakingSucceeded lists them: each
/// player with their team and seat (a new match's and a backfill's alike).
pub(super) fn seated_tickets<'a>(
    tickets: impl Iterator<Item = &'a Ticket>,
    seats: &BTreeMap<String, String>,
) -> Vec<EventTicket> {
    tickets
        .map(|t| t.listed(|p| seats.get(p.player_id.as_str()).cloned(), |_| None))
        .collect()
}

/// The searching tickets (their indices) and the matcher's view of them. Backfill tickets
/// are not in it: they fill a running game instead (`backfill`).
pub(super) fn searching_pool(state: &State, now: Instant) -> (Vec<usize>, Vec<PoolTicket>) {
    let searching: Vec<usize> = (0..state.tickets.len())
        .filter(|&i| {
            state.tickets[i].stage == Stage::Searching && state.tickets[i].backfill.is_none()
        })
        .collect();
    let pool = searching
        .iter()
        .map(|&i| PoolTicket {
            players: state.tickets[i]
                .players
                .iter()
                .map(|p| p.pool.clone())
                .collect(),
            waited: now.duration_since(state.tickets[i].started).as_secs_f64(),
        })
        .collect();
    (searching, pool)
}
