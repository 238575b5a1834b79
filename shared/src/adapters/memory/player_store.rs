use std::collections::HashMap;
use std::sync::Mutex;

use async_trait::async_trait;

use crate::domain::{ConnectionId, EpochMillis, MessageId, PlayerId, PresenceStatus};
use crate::ports::player_store::{
    ConnectOutcome, ExpiredPage, ExpiredPlayer, NewConnection, PlayerRecord, PlayerStore,
    StoreError,
};

#[derive(Clone, Debug)]
struct Item {
    record: PlayerRecord,
    sweep_shard: Option<u32>,
}

/// The Players table in a `Mutex<HashMap>`: each method is one atomic step, like one
/// conditional DynamoDB write.
#[derive(Default)]
pub struct InMemoryPlayerStore {
    items: Mutex<HashMap<PlayerId, Item>>,
}

impl InMemoryPlayerStore {
    pub fn new() -> Self {
        Self::default()
    }

    fn items(&self) -> std::sync::MutexGuard<'_, HashMap<PlayerId, Item>> {
        // A panic while holding the lock cannot leave an item half-written (each update
        // replaces whole values), so a poisoned lock is safe to keep using.
        self.items.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Updates the item only if it holds `connection` online.
    fn update_online(
        &self,
        player: &PlayerId,
        connection: &ConnectionId,
        update: impl FnOnce(&mut Item),
    ) -> bool {
        let mut items = self.items();
        match items.get_mut(player) {
            Some(item)
                if item.record.connection_id == *connection
                    && item.record.status == PresenceStatus::Online =>
            {
                update(item);
                true
            }
            _ => false,
        }
    }
}

#[async_trait]
impl PlayerStore for InMemoryPlayerStore {
    async fn connect(&self, new: &NewConnection) -> Result<ConnectOutcome, StoreError> {
        let mut items = self.items();
        let previous = items.get(&new.player_id).map(|item| &item.record);
        if previous.is_some_and(|p| p.connected_at > new.connected_at) {
            return Ok(ConnectOutcome::Superseded);
        }
        let outcome = ConnectOutcome::decide(previous, new);
        let redelivery = previous.map(|p| p.redelivery.clone()).unwrap_or_default();
        let record = PlayerRecord {
            player_id: new.player_id.clone(),
            connection_id: new.connection_id.clone(),
            endpoint: new.endpoint.clone(),
            connected_at: new.connected_at,
            last_seen: new.now,
            status: PresenceStatus::Online,
            sweep_at: Some(new.heartbeat_deadline),
            previous_status: previous.map(|p| p.status),
            previous_sweep_at: previous.and_then(|p| p.sweep_at),
            redelivery,
        };
        items.insert(
            new.player_id.clone(),
            Item {
                record,
                sweep_shard: Some(new.sweep_shard),
            },
        );
        Ok(outcome)
    }

    async fn disconnect(
        &self,
        player: &PlayerId,
        connection: &ConnectionId,
        now: EpochMillis,
        grace_until: EpochMillis,
    ) -> Result<bool, StoreError> {
        Ok(self.update_online(player, connection, |item| {
            item.record.status = PresenceStatus::Disconnected;
            item.record.last_seen = now;
            item.record.sweep_at = Some(grace_until);
        }))
    }

    async fn heartbeat(
        &self,
        player: &PlayerId,
        connection: &ConnectionId,
        now: EpochMillis,
        deadline: EpochMillis,
    ) -> Result<bool, StoreError> {
        Ok(self.update_online(player, connection, |item| {
            item.record.last_seen = now;
            item.record.sweep_at = Some(deadline);
        }))
    }

    async fn get(&self, player: &PlayerId) -> Result<Option<PlayerRecord>, StoreError> {
        Ok(self.items().get(player).map(|item| item.record.clone()))
    }

    async fn get_many(&self, players: &[PlayerId]) -> Result<Vec<PlayerRecord>, StoreError> {
        let items = self.items();
        let mut seen = std::collections::HashSet::new();
        Ok(players
            .iter()
            .filter(|p| seen.insert(*p))
            .filter_map(|p| items.get(p).map(|item| item.record.clone()))
            .collect())
    }

    async fn mark_redelivery(
        &self,
        player: &PlayerId,
        checkpoint: &MessageId,
        delivered: &[MessageId],
    ) -> Result<(), StoreError> {
        if let Some(item) = self.items().get_mut(player) {
            item.record
                .redelivery
                .insert(checkpoint.clone(), delivered.to_vec());
        }
        Ok(())
    }

    async fn clear_redelivery(
        &self,
        player: &PlayerId,
        checkpoint: &MessageId,
    ) -> Result<(), StoreError> {
        if let Some(item) = self.items().get_mut(player) {
            item.record.redelivery.remove(checkpoint);
        }
        Ok(())
    }

    async fn expired(
        &self,
        shard: u32,
        now: EpochMillis,
        limit: u32,
        after: Option<&ExpiredPlayer>,
    ) -> Result<ExpiredPage, StoreError> {
        let key = |p: &ExpiredPlayer| (p.sweep_at, p.player_id.clone());
        let mut due: Vec<ExpiredPlayer> = self
            .items()
            .values()
            .filter(|item| item.sweep_shard == Some(shard))
            .filter_map(|item| {
                let sweep_at = item.record.sweep_at?;
                (sweep_at < now).then(|| ExpiredPlayer {
                    player_id: item.record.player_id.clone(),
                    sweep_at,
                })
            })
            .filter(|p| after.is_none_or(|a| key(p) > key(a)))
            .collect();
        due.sort_by_key(key);
        let limit = limit.max(1) as usize;
        let next = (due.len() > limit).then(|| due[limit - 1].clone());
        due.truncate(limit);
        Ok(ExpiredPage { players: due, next })
    }

    async fn mark_offline(
        &self,
        player: &PlayerId,
        now: EpochMillis,
    ) -> Result<Option<PlayerRecord>, StoreError> {
        let mut items = self.items();
        let Some(item) = items.get_mut(player) else {
            return Ok(None);
        };
        let still_due = item.record.sweep_at.is_some_and(|at| at < now);
        if !still_due {
            return Ok(None);
        }
        let before = item.record.clone();
        item.record.status = PresenceStatus::Offline;
        item.record.sweep_at = None;
        item.sweep_shard = None;
        Ok(Some(before))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn in_memory_player_store_passes_the_contract_suite() {
        crate::testing::player_store_contract::run_all(|| async { InMemoryPlayerStore::new() })
            .await;
    }
}
