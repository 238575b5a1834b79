//! The Parties table in memory, with the DynamoDB adapter's semantics: a commit checks
//! every condition and writes everything under the parties' lock, then the players',
//! then the inboxes' (in that order), so it is one step like a transaction.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use async_trait::async_trait;

use super::message_store::InMemoryMessageStore;
use super::player_store::InMemoryPlayerStore;
use shared::domain::{EpochMillis, PlayerId};
use shared::party::{
    Committed, InvitationWrite, OfflinePage, OfflineParty, PartyCommit, PartyCondition, PartyWrite,
};
use shared::party::{Invitation, Party, PartyId};
use shared::pending::{PartyReservation, Pending};
use shared::ports::{OfflineParties, PartyCommits, PartyReader, PartySlots, StoreError};

#[derive(Default)]
struct State {
    parties: HashMap<PartyId, Party>,
    invitations: HashMap<(PartyId, PlayerId), Invitation>,
}

pub struct InMemoryPartyStore {
    state: Mutex<State>,
    players: Arc<InMemoryPlayerStore>,
    messages: Arc<InMemoryMessageStore>,
    /// Partitions of the offline index (`PRESENCE_SHARDS`).
    shards: u32,
}

impl InMemoryPartyStore {
    pub fn new(
        players: Arc<InMemoryPlayerStore>,
        messages: Arc<InMemoryMessageStore>,
        shards: u32,
    ) -> Self {
        Self {
            state: Mutex::default(),
            players,
            messages,
            shards,
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // Every update replaces whole values: a poisoned lock is safe to keep using.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Every party (tests).
    pub fn all(&self) -> Vec<Party> {
        self.state().parties.values().cloned().collect()
    }
}

#[async_trait]
impl PartyReader for InMemoryPartyStore {
    async fn get(&self, party_id: &PartyId) -> Result<Option<Party>, StoreError> {
        Ok(self.state().parties.get(party_id).cloned())
    }

    async fn get_with_invitation(
        &self,
        party_id: &PartyId,
        player: &PlayerId,
    ) -> Result<(Option<Party>, Option<Invitation>), StoreError> {
        let state = self.state();
        Ok((
            state.parties.get(party_id).cloned(),
            state
                .invitations
                .get(&(party_id.clone(), player.clone()))
                .cloned(),
        ))
    }
}

#[async_trait]
impl PartyCommits for InMemoryPartyStore {
    async fn commit(&self, commit: &PartyCommit) -> Result<Committed, StoreError> {
        let mut state = self.state();
        let id = &commit.party_id;
        let current = state.parties.get(id);
        let as_expected = match commit.condition {
            PartyCondition::Absent => current.is_none(),
            PartyCondition::AtVersion(version) => current.is_some_and(|p| p.version == version),
            PartyCondition::Any => true,
        };
        if !as_expected {
            return Ok(Committed::PartyMoved);
        }
        if let Some(InvitationWrite::Take(invitee)) = &commit.invitation {
            let live = state
                .invitations
                .get(&(id.clone(), invitee.clone()))
                .is_some_and(|i| i.is_live(commit.now));
            if !live {
                return Ok(Committed::InvitationGone);
            }
        }
        let mut players = self.players.lock();
        if let Some(joiner) = &commit.join {
            match players.party_of(joiner) {
                None => return Ok(Committed::NoSuchPlayer),
                Some(Some(other)) => return Ok(Committed::InAnotherParty(Some(other))),
                Some(None) => {}
            }
        }
        if let Some(player) = &commit.must_exist
            && players.party_of(player).is_none()
        {
            return Ok(Committed::NoSuchPlayer);
        }
        match &commit.write {
            Some(PartyWrite::Save(party)) => {
                state.parties.insert(id.clone(), party.clone());
            }
            Some(PartyWrite::Delete) => {
                state.parties.remove(id);
            }
            None => {}
        }
        match &commit.invitation {
            Some(InvitationWrite::Put(invitation)) => {
                state
                    .invitations
                    .insert((id.clone(), invitation.invitee.clone()), invitation.clone());
            }
            Some(InvitationWrite::Take(invitee)) => {
                state.invitations.remove(&(id.clone(), invitee.clone()));
            }
            None => {}
        }
        // Expired invitations go, as DynamoDB's TTL would take them.
        state
            .invitations
            .retain(|_, invitation| invitation.is_live(commit.now));
        if let Some(joiner) = &commit.join {
            players.set_party(joiner, Some(id.clone()));
        }
        for leaver in &commit.leave {
            if matches!(players.party_of(leaver), Some(Some(ref party)) if party == id) {
                players.set_party(leaver, None);
            }
        }
        drop(players);
        self.messages.append_now(&commit.pushes);
        Ok(Committed::Done)
    }
}

#[async_trait]
impl PartySlots for InMemoryPartyStore {
    async fn reserve_party(
        &self,
        party: &Party,
        pending: &Pending,
    ) -> Result<PartyReservation, StoreError> {
        let state = self.state();
        let unchanged = state.parties.get(&party.party_id).is_some_and(|stored| {
            stored.version == party.version && stored.leader_id == party.leader_id
        });
        if !unchanged {
            return Ok(PartyReservation::PartyMoved);
        }
        let mut players = self.players.lock();
        for member in party.member_ids() {
            if let Some(taken) = players.pending(member) {
                return Ok(PartyReservation::Taken {
                    player: member.clone(),
                    pending: taken,
                });
            }
        }
        for member in party.member_ids() {
            players.reserve(member, pending);
        }
        Ok(PartyReservation::Reserved)
    }
}

#[async_trait]
impl OfflineParties for InMemoryPartyStore {
    async fn offline(
        &self,
        shard: u32,
        before: EpochMillis,
        limit: u32,
        after: Option<&OfflineParty>,
    ) -> Result<OfflinePage, StoreError> {
        let key = |p: &OfflineParty| (p.offline_since, p.party_id.clone());
        let mut due: Vec<OfflineParty> = self
            .state()
            .parties
            .values()
            .filter(|party| party.party_id.sweep_shard(self.shards) == shard)
            .filter_map(|party| {
                let since = party.offline_since()?;
                (since <= before).then(|| OfflineParty {
                    party_id: party.party_id.clone(),
                    offline_since: since,
                })
            })
            .filter(|p| after.is_none_or(|a| key(p) > key(a)))
            .collect();
        due.sort_by_key(key);
        let limit = limit.max(1) as usize;
        let next = (due.len() > limit).then(|| due[limit - 1].clone());
        due.truncate(limit);
        Ok(OfflinePage { parties: due, next })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MemoryStores;
    use contracts::party_store_contract::PartyStores;

    async fn stores() -> PartyStores {
        let tables = MemoryStores::new(InMemoryMessageStore::new(), PartyStores::SHARDS);
        PartyStores {
            parties: tables.parties,
            players: tables.players,
            messages: tables.messages,
        }
    }

    contracts::party_store_contract_tests!(stores);
}
