//! `acceptMatch` and `stopMatchmaking`: a player's answer to a proposed match, and the
//! end of a live ticket. Both only ask GameLift; what follows (PLACING or SEARCHING
//! again, CANCELLED) arrives as events and is pushed.
//!
//! Round trips: one GetItem (the ticket: who is on it and where it stands; for a
//! `stopMatchmaking` without `ticketId`, the player's item first) + one GameLift call.

use edge::websocket::{Request, RouteError};
use shared::acks::{AcceptMatchAck, AttributesAck, TicketAck};
use shared::errors::{ConflictDetail, NotFoundDetail};
use shared::frames::{ErrorCode, ErrorReply};
use shared::matchmaking::TicketRecord;
use shared::matchmaking::{TicketId, TicketStatus};
use shared::ports::GameLiftError;
use shared::requests::{AcceptMatchRequestBody, AttributesBody, TicketBody};
use tracing::info;

use crate::{MatchmakingHandler, gamelift_refusal, store_refusal};

impl MatchmakingHandler {
    pub(crate) async fn accept(
        &self,
        request: &Request,
        body: &AcceptMatchRequestBody,
    ) -> Result<AcceptMatchAck, RouteError> {
        let player = &request.caller.player_id;
        let ticket = self.ticket_of(&body.ticket_id, request).await?;
        if ticket.status != TicketStatus::RequiresAcceptance {
            return Err(not_awaiting(&ticket));
        }
        match self
            .ports
            .matchmaker
            .accept_match(&ticket.ticket_id, std::slice::from_ref(player), body.accept)
            .await
        {
            Ok(()) => {
                info!(player_id = %player, ticket_id = %ticket.ticket_id, accept = body.accept, "match answered");
                Ok(AcceptMatchAck {
                    ticket_id: ticket.ticket_id,
                    accept: body.accept,
                })
            }
            // The acceptance ended meanwhile (timed out, or another player rejected).
            Err(GameLiftError::InvalidRequest { message }) => Err(ErrorReply::conflict(
                format!(
                    "ticket {} no longer requires acceptance: {message}",
                    ticket.ticket_id
                ),
                ConflictDetail::ticket(ticket.ticket_id),
            )
            .into()),
            Err(refusal) => Err(gamelift_refusal("AcceptMatch", &ticket.ticket_id, &refusal)),
        }
    }

    pub(crate) async fn stop(
        &self,
        request: &Request,
        body: &TicketBody,
    ) -> Result<TicketAck, RouteError> {
        let player = &request.caller.player_id;
        let ticket_id = match &body.ticket_id {
            Some(ticket_id) => ticket_id.clone(),
            None => self
                .ports
                .player
                .get(player)
                .await
                .map_err(store_refusal)?
                .and_then(|record| record.pending)
                .and_then(|pending| pending.ticket().cloned())
                .ok_or_else(|| no_live_ticket(None))?,
        };
        let ticket = self.ticket_of(&ticket_id, request).await?;
        if ticket.status.is_final() {
            return Err(no_live_ticket(Some(ticket.ticket_id)));
        }
        if ticket.requester_id != *player {
            return Err(RouteError::new(
                ErrorCode::Forbidden,
                format!(
                    "only {} (who started ticket {}) may stop it",
                    ticket.requester_id, ticket.ticket_id
                ),
            ));
        }
        match self
            .ports
            .matchmaker
            .stop_matchmaking(&ticket.ticket_id)
            .await
        {
            Ok(()) => {
                info!(player_id = %player, ticket_id = %ticket.ticket_id, "matchmaking stopped");
                Ok(TicketAck {
                    ticket_id: ticket.ticket_id,
                })
            }
            Err(GameLiftError::NotFound { .. }) => Err(no_live_ticket(Some(ticket.ticket_id))),
            Err(refusal) => Err(gamelift_refusal(
                "StopMatchmaking",
                &ticket.ticket_id,
                &refusal,
            )),
        }
    }

    /// Stores the caller's attributes for the tickets their party's leader starts (one
    /// write; `{}` clears them).
    pub(crate) async fn set_attributes(
        &self,
        request: &Request,
        body: &AttributesBody,
    ) -> Result<AttributesAck, RouteError> {
        let player = &request.caller.player_id;
        let attributes = body.attributes.as_map();
        let stored = self
            .ports
            .profiles
            .set_matchmaking_attributes(player, attributes)
            .await
            .map_err(store_refusal)?;
        if !stored {
            return Err(RouteError::new(
                ErrorCode::NotFound,
                "you have no player record; resume first",
            ));
        }
        Ok(AttributesAck {
            attributes: body.attributes.clone(),
        })
    }

    /// The ticket, if the caller is on it (`not_found` alike when it does not exist or
    /// is someone else's: ticket ids are not secrets, but tickets are private).
    async fn ticket_of(
        &self,
        ticket_id: &TicketId,
        request: &Request,
    ) -> Result<TicketRecord, RouteError> {
        self.ports
            .tickets
            .get(ticket_id)
            .await
            .map_err(store_refusal)?
            .filter(|ticket| ticket.holds(&request.caller.player_id))
            .ok_or_else(|| {
                RouteError::new(
                    ErrorCode::NotFound,
                    format!("you have no ticket {ticket_id}"),
                )
            })
    }
}

/// `not_found`, naming the ticket that is over (if the caller named one).
fn no_live_ticket(ticket_id: Option<TicketId>) -> RouteError {
    ErrorReply::not_found(
        "you have no live matchmaking ticket",
        NotFoundDetail {
            ticket_id,
            ..NotFoundDetail::default()
        },
    )
    .into()
}

/// A `conflict`: the ticket is not awaiting an answer.
fn not_awaiting(ticket: &TicketRecord) -> RouteError {
    ErrorReply::conflict(
        format!(
            "ticket {} is {}: only a ticket that requires acceptance can be answered",
            ticket.ticket_id, ticket.status
        ),
        ConflictDetail {
            status: Some(ticket.status),
            ..ConflictDetail::ticket(ticket.ticket_id.clone())
        },
    )
    .into()
}
