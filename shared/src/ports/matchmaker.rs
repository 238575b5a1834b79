//! FlexMatch as the matchmaking routes need it: start a ticket, answer a proposed
//! match, stop a ticket. Like placements, results do not come back through this port:
//! GameLift sends them as FlexMatch events (EventBridge, or SNS) to
//! `on-matchmaking-event`. Refusals are [`GameLiftError`]s, mapped to protocol errors
//! as every GameLift refusal is.

use async_trait::async_trait;

use crate::domain::PlayerId;
use crate::matchmaking::TicketId;
use crate::matchmaking::tickets::MatchmakingRequest;

use super::GameLiftError;

#[async_trait]
pub trait Matchmaker: Send + Sync {
    /// StartMatchmaking.
    async fn start_matchmaking(&self, request: &MatchmakingRequest) -> Result<(), GameLiftError>;

    /// AcceptMatch for `players` of the ticket: `accept` or reject the proposed match.
    /// Valid only while the ticket requires acceptance (else `InvalidRequest`).
    async fn accept_match(
        &self,
        ticket_id: &TicketId,
        players: &[PlayerId],
        accept: bool,
    ) -> Result<(), GameLiftError>;

    /// StopMatchmaking; the CANCELLED result arrives as an event.
    async fn stop_matchmaking(&self, ticket_id: &TicketId) -> Result<(), GameLiftError>;
}
