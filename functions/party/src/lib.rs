//! The party routes (shared/src/party/mod.rs): `createParty`, `inviteToParty`,
//! `joinParty`, `declinePartyInvite`, `leaveParty`, `kickFromParty` and
//! `promotePartyLeader`, one function for all seven; `requestContext.routeKey` says
//! which.
//!
//! Every change to a party is ONE `TransactWriteItems`: the party written only if its
//! version is still the one the change was computed from, the players' party links, and
//! one `party` message per member (so pushes reach members live from the Messages stream,
//! or on `resume`, like every other push). Two members acting at once: the second's
//! transaction fails on the version, and the change is computed again from the party as
//! it is now (up to `CHANGE_ATTEMPTS` times, then `conflict`).
//!
//! Round trips (N members after the change, M before; a member's inbox head is one
//! Query, read at once for all):
//!
//! | route | DynamoDB |
//! |---|---|
//! | `createParty` | 1 Query + 1 transaction (party, creator's link, 1 message) |
//! | `inviteToParty` | 1 rate-limit write ‖ 1 GetItem (the caller's party) ‖ 1 BatchGetItem (Friends: did the invitee block the inviter?), 1 GetItem (the party), 1 Query, 1 transaction (party checked, invitation, invitee checked, 1 message) |
//!
//! An invitation to a player who blocked the inviter is acked as any other and neither
//! stored nor pushed: the inviter cannot tell (shared/src/friends.rs).
//! | `joinParty` | 1 TransactGetItems (party + invitation), N Queries, 1 transaction (party, invitation used, joiner's link, N messages) |
//! | `declinePartyInvite` | 1 TransactGetItems, 1 Query, 1 transaction (invitation, 1 message to the inviter) |
//! | `leaveParty`, `kickFromParty` | 1 GetItem (the caller's party), 1 GetItem (the party), M Queries, 1 transaction (party, leaver's link, M messages) |
//! | `promotePartyLeader` | 1 GetItem, 1 GetItem, N Queries, 1 transaction (party, N messages) |

use std::sync::Arc;

use async_trait::async_trait;
use edge::websocket::{CallLimit, Reply, Request, Route, RouteError, Serves};
use shared::acks::RouteAck;
use shared::config::Config;
use shared::party::{CommitScope, Parties, PartyError};
use shared::ports::{Blocks, PlayerReader};
use shared::rate_limits::Bucket;
use shared::requests::{ClientRequest, Route as ClientRoute};

mod ops;

pub const CREATE: &str = ClientRoute::CreateParty.as_str();
pub const INVITE: &str = ClientRoute::InviteToParty.as_str();
pub const JOIN: &str = ClientRoute::JoinParty.as_str();
pub const DECLINE: &str = ClientRoute::DeclinePartyInvite.as_str();
pub const LEAVE: &str = ClientRoute::LeaveParty.as_str();
pub const KICK: &str = ClientRoute::KickFromParty.as_str();
pub const PROMOTE: &str = ClientRoute::PromotePartyLeader.as_str();

shared::wired! {
    /// The party routes as every deployment builds them: any party change
    /// ([`CommitScope::Any`]).
    pub fn wire(w) -> pub struct PartyHandler {
        config: Arc<Config> = w.config.clone(),
        players: Arc<dyn PlayerReader> = w.stores.player_reader(),
        /// Invitations, against `RATE_LIMIT_PARTY_INVITES_PER_MINUTE`.
        invites: CallLimit = CallLimit::new(
            w,
            Bucket::PartyInvite,
            w.config.rate_limits.party_invites_per_minute,
            "party invitations",
        ),
        blocks: Arc<dyn Blocks> = w.stores.blocks(),
        parties: Parties = w.parties(CommitScope::Any),
    }
}

/// A party refusal as the client sees it; a store failure as `unavailable` (or
/// `internal`), saying what did not happen.
fn refusal(error: PartyError, consequence: &str) -> RouteError {
    match error {
        PartyError::Refused(refusal) => refusal.into(),
        PartyError::Store(err) => RouteError::from_store(err, consequence),
    }
}

#[async_trait]
impl Route for PartyHandler {
    const SERVES: Serves = Serves {
        function: "party",
        routes: &[
            ClientRoute::CreateParty,
            ClientRoute::InviteToParty,
            ClientRoute::JoinParty,
            ClientRoute::DeclinePartyInvite,
            ClientRoute::LeaveParty,
            ClientRoute::KickFromParty,
            ClientRoute::PromotePartyLeader,
        ],
    };

    async fn answer(&self, request: &Request) -> Result<Reply, RouteError> {
        let ack = match &request.frame {
            ClientRequest::CreateParty { body, .. } => {
                RouteAck::CreateParty(self.create(request, body).await?)
            }
            ClientRequest::InviteToParty { body, .. } => {
                RouteAck::InviteToParty(self.invite(request, body).await?)
            }
            ClientRequest::JoinParty { body, .. } => {
                RouteAck::JoinParty(self.join(request, body).await?)
            }
            ClientRequest::DeclinePartyInvite { body, .. } => {
                RouteAck::DeclinePartyInvite(self.decline(request, body).await?)
            }
            ClientRequest::LeaveParty { .. } => RouteAck::LeaveParty(self.leave(request).await?),
            ClientRequest::KickFromParty { body, .. } => {
                RouteAck::KickFromParty(self.kick(request, body).await?)
            }
            ClientRequest::PromotePartyLeader { body, .. } => {
                RouteAck::PromotePartyLeader(self.promote(request, body).await?)
            }
            _ => return Ok(Reply::WrongRoute),
        };
        Ok(Reply::Ack(ack))
    }
}

#[cfg(test)]
mod tests;
