//! Reserving a player's pending-request slot, or every member's for a party's leader:
//! the one policy both `sessionPlacementRequest` and `startMatchmaking` follow.
//!
//! A solo player's slot is one conditional write; its refusal names what is pending, or
//! the party the player is in (then only the leader may ask, and the party is read and
//! every member reserved in one transaction, on the party's version). A request that
//! is pending blocks a new one while it is still going; one left behind by a fault (its
//! record already ended, or never recorded although it was asked for long ago) is
//! cleared and the reservation tried again. Whether a matchmaking ticket can be judged
//! at all depends on the service's wiring: the placement route has no ticket reader, so a
//! ticket in the slot always blocks it (the next `startMatchmaking` clears one a fault
//! left behind).

use std::sync::Arc;

use tracing::{error, warn};

use crate::domain::{EpochMillis, PlayerId};
use crate::party::{PartyId, PartyRefusal};
use crate::ports::{
    Clock, PartyReader, PartySlots, PendingSlots, PlacementReader, StoreError, TicketReader,
};
use crate::telemetry::ErrorChain;

use super::{PartyReservation, Pending, Reservation};

/// Tries when the party, or a stale pending request, keeps moving.
pub const ATTEMPTS: u32 = 3;

/// A pending request with no record this long after it was asked for was abandoned by
/// a request that died between its writes (API Gateway gives a route 29 s).
pub const UNRECORDED_STALE_AFTER_MS: EpochMillis = 60_000;

/// Why a reservation did not happen; nothing was reserved.
#[derive(Debug, thiserror::Error)]
pub enum PendingError {
    /// `player` (the caller, or a member of their party) waits for `pending`, which is
    /// still going; `in_party`: found by the party's reservation (a party's conflict
    /// names the member, the leader included).
    #[error("{player} waits for {pending}")]
    Taken {
        player: PlayerId,
        pending: Pending,
        in_party: bool,
    },
    /// Not the party's leader, no such party, or the party kept changing.
    #[error("{0}")]
    Party(PartyRefusal),
    /// The party is larger than one request may hold.
    #[error("a request holds at most {max} players")]
    TooManyPlayers { max: usize },
    /// The caller's own slot kept changing under the reservation.
    #[error("the pending request kept changing")]
    KeptChanging,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The slot's reservations over the stores they need.
#[derive(Clone)]
pub struct PendingRequests {
    slots: Arc<dyn PendingSlots>,
    party_slots: Arc<dyn PartySlots>,
    parties: Arc<dyn PartyReader>,
    placements: Arc<dyn PlacementReader>,
    /// `None`: a ticket in the slot is never judged stale here.
    tickets: Option<Arc<dyn TicketReader>>,
    clock: Arc<dyn Clock>,
}

impl PendingRequests {
    pub fn new(
        slots: Arc<dyn PendingSlots>,
        party_slots: Arc<dyn PartySlots>,
        parties: Arc<dyn PartyReader>,
        placements: Arc<dyn PlacementReader>,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self {
            slots,
            party_slots,
            parties,
            placements,
            tickets: None,
            clock,
        }
    }

    /// Judges tickets in the slot too (read to tell one still going from one a fault
    /// left behind).
    pub fn judging_tickets(mut self, tickets: Arc<dyn TicketReader>) -> Self {
        self.tickets = Some(tickets);
        self
    }

    /// Makes `pending` the caller's pending request, or (for a party's leader) every
    /// member's, a party holding at most `max_players` (`None`: no bound). The other
    /// members reserved (empty for a player on their own).
    pub async fn reserve(
        &self,
        caller: &PlayerId,
        pending: &Pending,
        max_players: Option<usize>,
    ) -> Result<Vec<PlayerId>, PendingError> {
        for _ in 0..ATTEMPTS {
            match self.slots.reserve(caller, pending).await? {
                Reservation::Reserved => return Ok(Vec::new()),
                Reservation::InParty(party) => {
                    return self
                        .reserve_party(caller, &party, pending, max_players)
                        .await;
                }
                Reservation::Taken(other) => {
                    if !self.clear_if_stale(caller, &other).await? {
                        return Err(PendingError::Taken {
                            player: caller.clone(),
                            pending: other,
                            in_party: false,
                        });
                    }
                }
            }
        }
        Err(PendingError::KeptChanging)
    }

    async fn reserve_party(
        &self,
        leader: &PlayerId,
        party_id: &PartyId,
        pending: &Pending,
        max_players: Option<usize>,
    ) -> Result<Vec<PlayerId>, PendingError> {
        for _ in 0..ATTEMPTS {
            let party = self
                .parties
                .get(party_id)
                .await?
                .ok_or(PendingError::Party(PartyRefusal::NotInParty))?;
            // Only the leader asks for the party: a member's request is `forbidden`.
            party.leader_check(leader).map_err(PendingError::Party)?;
            let others: Vec<PlayerId> = party
                .member_ids()
                .filter(|member| *member != leader)
                .cloned()
                .collect();
            if let Some(max) = max_players.filter(|max| others.len() + 1 > *max) {
                return Err(PendingError::TooManyPlayers { max });
            }
            match self.party_slots.reserve_party(&party, pending).await? {
                PartyReservation::Reserved => return Ok(others),
                PartyReservation::PartyMoved => continue,
                PartyReservation::Taken {
                    player,
                    pending: other,
                } => {
                    if !self.clear_if_stale(&player, &other).await? {
                        return Err(PendingError::Taken {
                            player,
                            pending: other,
                            in_party: true,
                        });
                    }
                }
            }
        }
        Err(PendingError::Party(PartyRefusal::Contended))
    }

    /// Frees every player of a request that never got going (each only if it is still
    /// theirs). Best effort: a failure is logged, and the player's next request clears
    /// the slot once it is stale.
    pub async fn release(&self, players: &[PlayerId], pending: &Pending) {
        for player in players {
            if let Err(err) = self.slots.release(player, pending).await {
                error!(player_id = %player, pending = %pending, error = %ErrorChain(&err), "could not free the player's pending request; their next request clears it once stale");
            }
        }
    }

    /// Whether `pending`, `player`'s pending request, was left behind by a fault (and
    /// is now cleared): its record already ended, or it was never recorded although it
    /// was asked for long ago. A record still going is a request in flight: its event
    /// settles it. Costs one read, on the conflict path only; a store that cannot be
    /// read reports the conflict rather than fail the request.
    async fn clear_if_stale(
        &self,
        player: &PlayerId,
        pending: &Pending,
    ) -> Result<bool, StoreError> {
        let now = self.clock.now_millis();
        let old = || {
            pending
                .requested_at()
                .is_some_and(|at| now - at > UNRECORDED_STALE_AFTER_MS)
        };
        let read = match pending {
            Pending::Ticket(ticket) => match &self.tickets {
                None => return Ok(false),
                Some(tickets) => tickets
                    .get(ticket)
                    .await
                    .map(|record| record.map(|r| r.status.is_final())),
            },
            Pending::Placement(placement) => self
                .placements
                .get(placement)
                .await
                .map(|record| record.map(|r| r.status.is_final())),
        };
        let stale = match read {
            Ok(Some(ended)) => ended,
            Ok(None) => old(),
            Err(StoreError::Unavailable(source)) => {
                warn!(player_id = %player, pending = %pending, error = %ErrorChain(source.as_ref()), "cannot check the pending request; reporting the conflict");
                return Ok(false);
            }
            Err(fault) => return Err(fault),
        };
        if !stale {
            return Ok(false);
        }
        match self.slots.release(player, pending).await {
            Ok(()) => {
                warn!(player_id = %player, pending = %pending, "cleared a pending request left behind by a fault");
                Ok(true)
            }
            Err(err) => {
                warn!(player_id = %player, pending = %pending, error = %ErrorChain(&err), "could not clear a stale pending request");
                Ok(false)
            }
        }
    }
}
