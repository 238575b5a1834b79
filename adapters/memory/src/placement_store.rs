use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;

use super::message_store::InMemoryMessageStore;
use super::player_store::InMemoryPlayerStore;
use shared::domain::{EpochMillis, PlacementId, PlacementStatus};
use shared::messaging::NewMessage;
use shared::pending::Pending;
use shared::placement::{PlacementRecord, Settlement};
use shared::ports::MessageStore;
use shared::ports::StoreError;
use shared::ports::{PlacementOutcomes, PlacementReader, PlacementRecorder};

/// The Placements table in a `Mutex<HashMap>`: each method is one atomic step, like one
/// conditional DynamoDB write.
#[derive(Default)]
pub struct InMemoryPlacementStore {
    items: Mutex<HashMap<PlacementId, PlacementRecord>>,
}

impl InMemoryPlacementStore {
    pub fn new() -> Self {
        Self::default()
    }

    fn items(&self) -> std::sync::MutexGuard<'_, HashMap<PlacementId, PlacementRecord>> {
        // Every update replaces whole values: a poisoned lock is safe to keep using.
        self.items.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Every stored placement (tests).
    pub fn all(&self) -> Vec<PlacementRecord> {
        self.items().values().cloned().collect()
    }
}

#[async_trait]
impl PlacementReader for InMemoryPlacementStore {
    async fn get(&self, placement_id: &PlacementId) -> Result<Option<PlacementRecord>, StoreError> {
        Ok(self.items().get(placement_id).cloned())
    }
}

#[async_trait]
impl PlacementRecorder for InMemoryPlacementStore {
    async fn create(&self, placement: &PlacementRecord) -> Result<(), StoreError> {
        crate::insert_new(
            &mut self.items(),
            "placement",
            &placement.placement_id,
            placement,
        )
    }

    async fn mark_failed(
        &self,
        placement_id: &PlacementId,
        at: EpochMillis,
    ) -> Result<bool, StoreError> {
        let mut items = self.items();
        match items.get_mut(placement_id) {
            Some(placement) if placement.status == PlacementStatus::Pending => {
                placement.status = PlacementStatus::Failed;
                placement.updated_at = at;
                Ok(true)
            }
            _ => Ok(false),
        }
    }
}

/// Settlements over the in-memory stores, with the DynamoDB adapter's semantics: the
/// placement's status check and every player's update happen under the placements
/// lock (nothing else can settle the placement meanwhile); the messages are then
/// appended through [`InMemoryMessageStore`]'s `MessageStore::append`, so its observer (the local
/// stack's stream feeder) sees them like stream INSERTs.
pub struct InMemoryPlacementOutcomes {
    placements: Arc<InMemoryPlacementStore>,
    players: Arc<InMemoryPlayerStore>,
    messages: Arc<InMemoryMessageStore>,
}

impl InMemoryPlacementOutcomes {
    pub fn new(
        placements: Arc<InMemoryPlacementStore>,
        players: Arc<InMemoryPlayerStore>,
        messages: Arc<InMemoryMessageStore>,
    ) -> Self {
        Self {
            placements,
            players,
            messages,
        }
    }
}

#[async_trait]
impl PlacementOutcomes for InMemoryPlacementOutcomes {
    async fn settle(&self, settlement: &Settlement) -> Result<bool, StoreError> {
        let messages: Vec<NewMessage> = {
            let mut items = self.placements.items();
            let Some(placement) = items.get_mut(&settlement.placement_id) else {
                return Ok(false);
            };
            if placement.status != PlacementStatus::Pending {
                return Ok(false);
            }
            placement.status = settlement.status;
            placement.updated_at = settlement.at;
            if let Some(session) = &settlement.game_session {
                placement.game_session = Some(session.clone());
                placement.player_sessions = settlement
                    .players
                    .iter()
                    .filter_map(|p| Some((p.player_id.clone(), p.player_session_id.clone()?)))
                    .collect();
            }
            for player in &settlement.players {
                self.players.settle_placement(
                    &player.player_id,
                    &Pending::Placement(settlement.placement_id.clone()),
                    settlement.seat_of(player),
                );
            }
            settlement
                .players
                .iter()
                .map(|p| p.message.clone())
                .collect()
        };
        self.messages.append(&messages).await?;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MemoryStores;
    use contracts::placement_store_contract::PlacementStores;

    async fn stores() -> PlacementStores {
        let tables = MemoryStores::new(InMemoryMessageStore::new(), 1);
        PlacementStores {
            placements: tables.placements,
            outcomes: tables.outcomes,
            players: tables.players,
            messages: tables.messages,
        }
    }

    contracts::placement_store_contract_tests!(stores);
}
