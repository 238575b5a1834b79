//! FlexMatch as the matchmaking routes need it: start a ticket, answer a proposed
//! match, stop a ticket. Like placements, results do not come back through this port:
//! GameLift sends them as FlexMatch events (EventBridge, or SNS) to
//! `on-matchmaking-event`. Refusals are [`GameLiftError`]s, mapped to protocol errors
//! as every GameLift refusal is.

use async_trait::async_trait;

use crate::domain::PlayerId;
use crate::matchmaking::{Attributes, TicketId};
use crate::ports::gamelift::GameLiftError;

/// One player of a ticket: a solo player, or each member of a party (the leader first).
#[derive(Clone, Debug, PartialEq)]
pub struct MatchmakingPlayer {
    pub player_id: PlayerId,
    /// The player's own attributes; an attribute left out takes the rule set's default.
    pub attributes: Attributes,
    /// Region → milliseconds, as the player's client measured them.
    pub latencies: Vec<(String, u32)>,
}

/// A request for a match: one ticket for every player in it.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchmakingRequest {
    /// Chosen by us and recorded before GameLift is asked; never reused.
    pub ticket_id: TicketId,
    /// The matchmaking configuration's name.
    pub configuration: String,
    /// At least one; a party's players are matched together, on one team or more as
    /// the rule set decides.
    pub players: Vec<MatchmakingPlayer>,
}

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
