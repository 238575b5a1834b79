//! `on-matchmaking-event`: FlexMatch events → each ticket's status moved and one
//! `matchmaking` message per player of the ticket, which the Messages stream delivers.
//!
//! Input: an EventBridge event (`source: aws.gamelift`, `detail-type: GameLift
//! Matchmaking Event`), or the SNS event of a configuration's notification topic (each
//! record's `Message` is the same event as JSON text). The payload is taken raw and its
//! shape detected, so one malformed event is logged and skipped instead of failing (and
//! endlessly retrying) the whole invocation.
//!
//! Per MatchmakingSucceeded event, with `PLAYER_GATEWAY` enabled or required: ONE
//! GetPlayerConnectionDetails for every player of the match (one game session; one
//! call per 25 players), before its tickets are moved, so that each seat carries where
//! its player connects (`shared::seats`).
//!
//! Per ticket of an event, round trips: one GetItem (the ticket: its players, and where
//! it stands) + ONE `TransactWriteItems` (the ticket, conditional on being as read; each
//! player's message; when it ends, each player's pending request cleared and seat set).
//! What the event does to the ticket is decided between the two by
//! [`TicketStatus::may_follow`]: a duplicate, late or out-of-order event writes and
//! pushes nothing (counted by `IgnoredEvents`, with an unknown ticket's or a malformed
//! event's), and a racing one loses the condition and is decided again on a fresh read.
//!
//! Failures: a malformed event is logged and skipped (`Ok`); a transient store failure
//! returns `Err`, so the invocation is retried (every change is idempotent); a corrupt
//! ticket item is logged and skipped (a retry cannot repair it).

use std::collections::HashMap;
use std::sync::Arc;

use edge::gamelift_events::{self, Handled};
use lambda_runtime::LambdaEvent;
use serde_json::Value;
use shared::config::Config;
use shared::domain::{EpochMillis, GameSession, MessageId, PlayerId};
use shared::frames::ServerFrame;
use shared::matchmaking::TicketPushes;
use shared::matchmaking::{MatchedSeat, MatchmakingDetail, TicketStatus};
use shared::matchmaking::{TicketChange, TicketPlayerChange, TicketRecord};
use shared::messaging::{MessageKind, NewMessage, SYSTEM_SENDER};
use shared::metrics::Ignored;
use shared::ports::{Clock, StoreError, TicketChanges, TicketReader};
use shared::seats::SeatConnector;
use shared::telemetry::ErrorChain;
use shared::wiring::{Stores, Wiring};
use tracing::{error, info, warn};

mod event;

pub use event::{
    Acceptance, EventPlayer, EventTicket, MalformedMatchmakingEvent, MatchmakingEvent,
    MatchmakingEventKind, read_payload,
};

/// Reads of a ticket that kept changing under one event before it gives up (and the
/// invocation is retried).
const ATTEMPTS: u32 = 3;

/// `on-matchmaking-event` as every deployment builds it: its changes push a frame to
/// each of the ticket's players.
pub fn wire(w: &Wiring) -> MatchmakingEventHandler {
    gamelift_events::wire(w, seated)
}

/// The handler on `stores`, its seats' connection details from `seats`
/// ([`gamelift_events::Seated`]).
pub fn seated(
    config: Arc<Config>,
    stores: &dyn Stores,
    clock: Arc<dyn Clock>,
    seats: SeatConnector,
) -> MatchmakingEventHandler {
    MatchmakingEventHandler {
        config,
        tickets: stores.ticket_reader(),
        changes: stores.ticket_changes(TicketPushes::ToPlayers),
        clock,
        seats,
    }
}

pub struct MatchmakingEventHandler {
    config: Arc<Config>,
    tickets: Arc<dyn TicketReader>,
    changes: Arc<dyn TicketChanges>,
    clock: Arc<dyn Clock>,
    seats: SeatConnector,
}

/// The seats of a MatchmakingSucceeded event's players, with their connection details.
type Seats = HashMap<PlayerId, GameSession>;

/// What one event did to one ticket.
#[derive(Debug, PartialEq, Eq)]
enum Applied {
    Moved(TicketStatus),
    /// An event that moves no ticket by itself (an acceptance, say): nothing to do.
    Nothing,
    /// An event the ticket's state makes moot: why (the `IgnoredEvents` metric).
    Ignored(Ignored),
}

impl MatchmakingEventHandler {
    /// Applies every event of the invocation. `Err` only when some ticket could not be
    /// changed for a reason a retry may fix (after trying all the others).
    pub async fn handle(&self, event: LambdaEvent<Value>) -> Result<(), lambda_runtime::Error> {
        self.apply_all(&event.payload).await.finish()
    }

    /// What [`Self::handle`] does, but the ignored events' metric.
    pub async fn apply_all(&self, payload: &Value) -> Handled {
        let mut handled = Handled::default();
        for (index, parsed) in read_payload(payload).into_iter().enumerate() {
            let event = match parsed {
                Ok(event) => event,
                Err(malformed) => {
                    warn!(record = index, error = %ErrorChain(&malformed), "skipping a malformed matchmaking event");
                    handled.ignored.push(Ignored::Malformed);
                    continue;
                }
            };
            let seats = self.seats_of(&event).await;
            for ticket in &event.tickets {
                let ticket_id = &ticket.ticket_id;
                match self.apply(&event, ticket, &seats).await {
                    Ok(Applied::Moved(status)) => {
                        if status.is_final() {
                            let ms = ticket_id.requested_at().map(|at| event.at - at);
                            shared::metrics::ticket(status.as_str(), ms);
                        }
                        info!(event_id = event.id, ticket_id = %ticket_id, status = %status, "ticket moved");
                    }
                    Ok(Applied::Nothing) => {
                        info!(event_id = event.id, ticket_id = %ticket_id, "the event moves no ticket by itself");
                    }
                    Ok(Applied::Ignored(why)) => {
                        info!(event_id = event.id, ticket_id = %ticket_id, why = why.as_str(), "matchmaking event ignored for this ticket");
                        handled.ignored.push(why);
                    }
                    Err(StoreError::Corrupt { key, reason }) => {
                        error!(ticket_id = %ticket_id, key, reason, "skipping an event of a corrupt ticket");
                    }
                    Err(err) => {
                        warn!(ticket_id = %ticket_id, error = %ErrorChain(&err), "ticket not changed; the invocation will be retried");
                        handled.retry.get_or_insert(err);
                    }
                }
            }
        }
        handled
    }

    /// A MatchmakingSucceeded event's seats, every player of the match asked of GameLift
    /// in one call (the match is one game session); none for other events.
    async fn seats_of(&self, event: &MatchmakingEvent) -> Seats {
        let MatchmakingEventKind::Succeeded { game_session } = &event.kind else {
            return Seats::new();
        };
        let seats = event
            .players()
            .filter_map(|p| {
                let session = p.player_session_id.clone()?;
                Some((p.player_id.clone(), game_session.seat(session)))
            })
            .collect();
        self.seats
            .connect(&game_session.game_session_arn, seats)
            .await
            .into_iter()
            .collect()
    }

    async fn apply(
        &self,
        event: &MatchmakingEvent,
        ticket: &EventTicket,
        seats: &Seats,
    ) -> Result<Applied, StoreError> {
        let Some(to) = event.status() else {
            return Ok(Applied::Nothing);
        };
        for _ in 0..ATTEMPTS {
            let Some(record) = self.tickets.get(&ticket.ticket_id).await? else {
                return Ok(Applied::Ignored(Ignored::Unknown));
            };
            let follows = to.may_follow(
                record.status,
                record.status_at,
                record.match_id.as_deref(),
                event.at,
                event.match_id.as_deref(),
            );
            if !follows {
                // The same status again, or a late or out-of-order one.
                return Ok(Applied::Ignored(if record.status == to {
                    Ignored::Duplicate
                } else {
                    Ignored::OutOfOrder
                }));
            }
            let change = self.change(event, &record, to, seats);
            if self.changes.advance(&change).await? {
                return Ok(Applied::Moved(to));
            }
            // Another event moved the ticket since it was read: decide again.
        }
        Err(StoreError::Unavailable(
            format!(
                "ticket {} kept changing over {ATTEMPTS} attempts",
                ticket.ticket_id
            )
            .into(),
        ))
    }

    /// The change `event` makes to `record`: its status and match, and every player's
    /// message (PLACING pushes nothing: it follows an acceptance the players just gave,
    /// or comes just before COMPLETED).
    fn change(
        &self,
        event: &MatchmakingEvent,
        record: &TicketRecord,
        to: TicketStatus,
        seats: &Seats,
    ) -> TicketChange {
        let now = self.clock.now_millis();
        let game_session = match &event.kind {
            MatchmakingEventKind::Succeeded { game_session } => Some(game_session.clone()),
            _ => None,
        };
        let match_id = match to {
            // Back to searching: the proposed match is gone.
            TicketStatus::Searching => None,
            _ => event.match_id.clone().or_else(|| record.match_id.clone()),
        };
        let players_of_event: Vec<&EventPlayer> = event.players().collect();
        let players = record
            .player_ids
            .iter()
            .map(|player_id| {
                let own = players_of_event.iter().find(|p| p.player_id == *player_id);
                let seat = seats.get(player_id).cloned();
                if to == TicketStatus::Completed && seat.is_none() {
                    warn!(ticket_id = %record.ticket_id, player_id = %player_id, "the succeeded event gives this player no player session");
                }
                let detail = detail(event, to, player_id, own.copied(), seat.clone(), &match_id);
                let message = (to != TicketStatus::Placing)
                    .then(|| self.message(record, to, event.at, player_id, detail, now));
                TicketPlayerChange {
                    player_id: player_id.clone(),
                    seat,
                    message,
                }
            })
            .collect::<Vec<_>>();
        let player_sessions = players
            .iter()
            .filter_map(|p| {
                Some((
                    p.player_id.clone(),
                    p.seat.as_ref()?.player_session_id.clone(),
                ))
            })
            .collect();
        TicketChange {
            ticket_id: record.ticket_id.clone(),
            from: record.status,
            from_at: record.status_at,
            to,
            to_at: event.at,
            match_id,
            game_session,
            player_sessions,
            players,
            now,
        }
    }

    fn message(
        &self,
        record: &TicketRecord,
        status: TicketStatus,
        at: EpochMillis,
        player_id: &PlayerId,
        detail: MatchmakingDetail,
        now: EpochMillis,
    ) -> NewMessage {
        let payload = ServerFrame::Matchmaking {
            ticket_id: record.ticket_id.clone(),
            status,
            detail: Box::new(detail),
        }
        .to_json();
        // The same event again makes the same id (the event's time is part of it);
        // SEARCHING again after a rejected match does not.
        let message_id = MessageId::deterministic(&[
            "matchmaking",
            record.ticket_id.as_str(),
            status.as_str(),
            &at.to_string(),
            player_id.as_str(),
        ]);
        NewMessage::new(
            MessageKind::Matchmaking,
            message_id,
            player_id.clone(),
            SYSTEM_SENDER,
            payload,
            now,
            self.config.message_ttl_secs(),
        )
    }
}

/// What `player_id`'s frame carries for `status`.
fn detail(
    event: &MatchmakingEvent,
    status: TicketStatus,
    player_id: &PlayerId,
    own: Option<&EventPlayer>,
    seat: Option<GameSession>,
    match_id: &Option<String>,
) -> MatchmakingDetail {
    match (status, &event.kind) {
        (
            TicketStatus::RequiresAcceptance,
            MatchmakingEventKind::PotentialMatchCreated {
                acceptance_timeout, ..
            },
        ) => MatchmakingDetail {
            acceptance_timeout: *acceptance_timeout,
            players: event
                .players()
                .map(|p| p.player_id.clone())
                .filter(|p| p != player_id)
                .collect(),
            ..MatchmakingDetail::default()
        },
        (TicketStatus::Completed, _) => MatchmakingDetail {
            game_session: seat.map(|seat| MatchedSeat {
                seat,
                match_id: match_id.clone().unwrap_or_default(),
                team: own.and_then(|p| p.team.clone()),
            }),
            ..MatchmakingDetail::default()
        },
        (_, MatchmakingEventKind::Ended { reason, .. }) => MatchmakingDetail {
            reason: reason.clone(),
            ..MatchmakingDetail::default()
        },
        _ => MatchmakingDetail::default(),
    }
}

#[cfg(test)]
mod tests;
