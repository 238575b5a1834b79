//! The simulator behind the [`Matchmaker`] port (StartMatchmaking, AcceptMatch,
//! StopMatchmaking, answered as GameLift answers them), the port without a rule set, and
//! the EventBridge rule that hands the events to `on-matchmaking-event`.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Map, Value, json};
use shared::domain::PlayerId;
use shared::matchmaking::MatchmakingRequest;
use shared::matchmaking::{AttributeValue, TicketId};
use shared::ports::{GameLiftError, Matchmaker};

use super::matcher::PoolPlayer;
use super::rule_set::AttributeType;
use super::{FlexMatch, Stage, State, Ticket, TicketPlayer};
use crate::gamelift::EventSink;

impl FlexMatch {
    /// The player's attributes with the rule set's defaults, each checked against the
    /// type the rule set declares.
    pub(super) fn attributes(
        &self,
        player: &PlayerId,
        given: &shared::matchmaking::Attributes,
    ) -> Result<Map<String, Value>, GameLiftError> {
        let mut attributes = Map::new();
        for declared in &self.settings.rule_set.attributes {
            let value = match given.get(&declared.name) {
                Some(value) => {
                    let fits = matches!(
                        (&declared.kind, value),
                        (AttributeType::Number, AttributeValue::Number(_))
                            | (AttributeType::String, AttributeValue::String(_))
                            | (AttributeType::StringList, AttributeValue::StringList(_))
                            | (
                                AttributeType::StringNumberMap,
                                AttributeValue::StringNumberMap(_)
                            )
                    );
                    if !fits {
                        return Err(GameLiftError::InvalidRequest {
                            message: format!(
                                "player {player}: attribute {} must be of type {:?} as the rule set declares",
                                declared.name, declared.kind
                            ),
                        });
                    }
                    serde_json::to_value(value).unwrap_or(Value::Null)
                }
                None => match &declared.default {
                    Some(default) => default.clone(),
                    None => continue,
                },
            };
            attributes.insert(declared.name.clone(), value);
        }
        Ok(attributes)
    }

    pub(super) fn position(state: &State, ticket_id: &TicketId) -> Result<usize, GameLiftError> {
        state
            .tickets
            .iter()
            .position(|t| t.id == *ticket_id)
            .ok_or_else(|| GameLiftError::NotFound {
                message: format!("no live matchmaking ticket {ticket_id}"),
            })
    }
}

#[async_trait]
impl Matchmaker for FlexMatch {
    async fn start_matchmaking(&self, request: &MatchmakingRequest) -> Result<(), GameLiftError> {
        if request.configuration != self.settings.configuration {
            return Err(GameLiftError::NotFound {
                message: format!(
                    "matchmaking configuration {} not found (this simulator runs {})",
                    request.configuration, self.settings.configuration
                ),
            });
        }
        let players = request
            .players
            .iter()
            .map(|p| {
                Ok(TicketPlayer {
                    player_id: p.player_id.clone(),
                    pool: PoolPlayer {
                        attributes: self.attributes(&p.player_id, &p.attributes)?,
                        latencies: p.latencies.iter().cloned().collect(),
                    },
                    team: None,
                    accepted: None,
                })
            })
            .collect::<Result<Vec<_>, GameLiftError>>()?;
        let mut state = self.lock();
        if state.tickets.iter().any(|t| t.id == request.ticket_id) {
            return Err(GameLiftError::InvalidRequest {
                message: format!("ticket {} already exists", request.ticket_id),
            });
        }
        let ticket = Ticket::searching(request.ticket_id.clone(), players, None);
        self.searching(&ticket);
        state.tickets.push(ticket);
        Ok(())
    }

    async fn accept_match(
        &self,
        ticket_id: &TicketId,
        players: &[PlayerId],
        accept: bool,
    ) -> Result<(), GameLiftError> {
        let mut state = self.lock();
        let index = Self::position(&state, ticket_id)?;
        let Stage::Proposed(match_id) = state.tickets[index].stage.clone() else {
            return Err(GameLiftError::InvalidRequest {
                message: format!("ticket {ticket_id} is not in status REQUIRES_ACCEPTANCE"),
            });
        };
        if state
            .matches
            .get(&match_id)
            .is_none_or(|m| m.deadline.is_none())
        {
            return Err(GameLiftError::InvalidRequest {
                message: format!("ticket {ticket_id} is not in status REQUIRES_ACCEPTANCE"),
            });
        }
        for player in players {
            let Some(on_ticket) = state.tickets[index]
                .players
                .iter_mut()
                .find(|p| p.player_id == *player)
            else {
                return Err(GameLiftError::InvalidRequest {
                    message: format!("player {player} is not on ticket {ticket_id}"),
                });
            };
            on_ticket.accepted = Some(accept);
        }
        let members = state
            .matches
            .get(&match_id)
            .map(|m| m.tickets.clone())
            .unwrap_or_default();
        let listed: Vec<&Ticket> = state
            .tickets
            .iter()
            .filter(|t| members.contains(&t.id))
            .collect();
        self.emit("AcceptMatch", &listed, None, json!({"matchId": match_id}));
        let all_accepted = listed
            .iter()
            .all(|t| t.players.iter().all(|p| p.accepted == Some(true)));
        if !accept {
            self.fall_through(&mut state, &match_id, "Rejected", None);
        } else if all_accepted {
            self.emit(
                "AcceptMatchCompleted",
                &listed,
                None,
                json!({"matchId": match_id, "acceptance": "Accepted"}),
            );
            self.place(&mut state, &match_id);
        }
        Ok(())
    }

    async fn stop_matchmaking(&self, ticket_id: &TicketId) -> Result<(), GameLiftError> {
        let mut state = self.lock();
        let index = Self::position(&state, ticket_id)?;
        match state.tickets[index].stage.clone() {
            Stage::Searching => {
                let ticket = state.tickets.remove(index);
                self.emit(
                    "MatchmakingCancelled",
                    &[&ticket],
                    None,
                    json!({"reason": "Cancelled", "message": "Cancelled by request."}),
                );
                Ok(())
            }
            Stage::Proposed(match_id) => {
                self.fall_through(&mut state, &match_id, "Rejected", Some(ticket_id));
                Ok(())
            }
            Stage::Placing(_) => Err(GameLiftError::InvalidRequest {
                message: format!("ticket {ticket_id} is PLACING and can no longer be stopped"),
            }),
        }
    }
}

/// No rule set given: no matchmaking. The routes say so before they would ask; a call
/// that reaches here anyway is refused the same way.
pub struct NoMatchmaking;

impl NoMatchmaking {
    pub(super) fn refuse() -> GameLiftError {
        GameLiftError::Unavailable(
            "no FlexMatch rule set was given (--matchmaking-rule-set / MATCHMAKING_RULE_SET)"
                .into(),
        )
    }
}

#[async_trait]
impl Matchmaker for NoMatchmaking {
    async fn start_matchmaking(&self, _: &MatchmakingRequest) -> Result<(), GameLiftError> {
        Err(Self::refuse())
    }

    async fn accept_match(
        &self,
        _: &TicketId,
        _: &[PlayerId],
        _: bool,
    ) -> Result<(), GameLiftError> {
        Err(Self::refuse())
    }

    async fn stop_matchmaking(&self, _: &TicketId) -> Result<(), GameLiftError> {
        Err(Self::refuse())
    }
}

/// The configuration's EventBridge rule → `on-matchmaking-event`: each event handed to
/// the real handler as an asynchronous Lambda invocation, in the order emitted, with
/// Lambda's two retries after a function error.
pub fn to_handler(handler: Arc<on_matchmaking_event::MatchmakingEventHandler>) -> EventSink {
    crate::gamelift::event_sink(move |event: Value| {
        let handler = handler.clone();
        async move {
            for attempt in 0..3u64 {
                let mut context = lambda_runtime::Context::default();
                context.invoked_function_arn =
                    "arn:aws:lambda:local:000000000000:function:on-matchmaking-event".to_owned();
                match handler
                    .handle(lambda_runtime::LambdaEvent::new(event.clone(), context))
                    .await
                {
                    Ok(()) => return,
                    Err(error) => {
                        tracing::warn!(%error, attempt, "on-matchmaking-event failed; retrying as Lambda would");
                        tokio::time::sleep(Duration::from_secs(attempt + 1)).await;
                    }
                }
            }
            tracing::error!(event = %event, "on-matchmaking-event failed three times; deployed, this event would go to the dead-letter queue");
        }
    })
}
