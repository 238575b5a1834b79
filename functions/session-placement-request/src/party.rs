//! A party's placement: only its leader asks, and every member is placed in one game
//! (one StartGameSessionPlacement with a desired player session per member, each
//! member's latencies from `setPlacementLatencies`, the leader's from the request).
//!
//! Round trips after the refused solo write: one GetItem (the party), one BatchGetItem
//! (the members' latencies), one `TransactWriteItems` (the party's version and leader
//! checked, every member's `pendingPlacementId` set only if none is pending); then the
//! placement record and GameLift, as for one player. A member with a pending placement
//! fails the whole transaction: `conflict` naming them and it (one left behind by a
//! fault is cleared first, as for one player).

use shared::domain::{PlacementId, PlayerId};
use shared::party::{PartyId, PartyRefusal};
use shared::ports::{PartyPlacementBegun, PlacementPlayer};
use shared::protocol::ErrorCode;
use shared::websocket::RouteError;
use tracing::info;

use crate::{PlacementBody, SessionPlacementRequestHandler, store_refusal};

/// Reads of the party when it keeps changing (or a member's stale placement is cleared).
const ATTEMPTS: u32 = 3;

impl SessionPlacementRequestHandler {
    /// Makes the placement every member's pending one; the members besides the leader,
    /// with their latencies.
    pub(crate) async fn begin_party(
        &self,
        leader: &PlayerId,
        party_id: &PartyId,
        body: &PlacementBody,
        placement_id: &PlacementId,
    ) -> Result<Vec<PlacementPlayer>, RouteError> {
        for _ in 0..ATTEMPTS {
            let party = self
                .parties
                .get(party_id)
                .await
                .map_err(store_refusal)?
                .ok_or_else(|| refused(PartyRefusal::NotInParty))?;
            party.leader_check(leader).map_err(refused)?;
            let others: Vec<PlayerId> = party
                .member_ids()
                .filter(|member| *member != leader)
                .cloned()
                .collect();
            let records = self
                .players
                .get_many(&others)
                .await
                .map_err(store_refusal)?;
            let members = others
                .into_iter()
                .map(|player_id| PlacementPlayer {
                    latencies: records
                        .iter()
                        .find(|r| r.player_id == player_id)
                        .map(|r| r.placement_latencies.clone())
                        .unwrap_or_default(),
                    player_id,
                })
                .collect();
            match self
                .parties
                .begin_placement(&party, placement_id)
                .await
                .map_err(store_refusal)?
            {
                PartyPlacementBegun::Began => {
                    info!(party_id = %party_id, placement_id = %placement_id, members = party.members.len(), queue = body.queue, "party placement begun");
                    return Ok(members);
                }
                PartyPlacementBegun::PartyMoved => continue,
                PartyPlacementBegun::AlreadyPending {
                    player,
                    placement_id: pending,
                } => {
                    if !self.clear_if_stale(&player, &pending).await? {
                        return Err(member_conflict(&player, &pending));
                    }
                }
            }
        }
        Err(refused(PartyRefusal::Contended))
    }
}

fn refused(refusal: PartyRefusal) -> RouteError {
    RouteError::new(refusal.code(), refusal.to_string())
}

/// A `conflict` naming the member and the placement they wait for.
fn member_conflict(player: &PlayerId, pending: &PlacementId) -> RouteError {
    if let Some(ticket) = shared::matchmaking::TicketId::from_pending(pending) {
        return RouteError::new(
            ErrorCode::Conflict,
            format!("{player}'s matchmaking ticket {ticket} is live: wait for its result"),
        )
        .with_detail("ticketId", ticket.as_str())
        .with_detail("playerId", player.as_str());
    }
    RouteError::new(
        ErrorCode::Conflict,
        format!("{player}'s placement {pending} is pending: wait for its result or cancel it"),
    )
    .with_detail("placementId", pending.as_str())
    .with_detail("playerId", player.as_str())
}
