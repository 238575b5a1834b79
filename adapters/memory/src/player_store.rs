use std::collections::HashMap;
use std::sync::Mutex;

use async_trait::async_trait;

use shared::activity::Activity;
use shared::domain::{ConnectionId, EpochMillis, GameSession, PlayerId, PresenceStatus, Seq};
use shared::party::PartyId;
use shared::pending::{Pending, Reservation};
use shared::players::{
    ConnectOutcome, ExpiredPage, ExpiredPlayer, Liveness, NewConnection, PlayerRecord,
};
use shared::ports::{
    Activities, Connections, Heartbeats, PendingSlots, PlayerLookup, PlayerReader, PresenceSweep,
    Profiles, StoreError,
};
use shared::rate_limits::Bucket;

/// A rate-limit window: its start, and the calls and units counted in it.
type Window = (EpochMillis, u64, u64);

#[derive(Clone, Debug)]
struct Item {
    record: PlayerRecord,
    sweep_shard: Option<u32>,
}

/// Game state written for a player who has never connected (DynamoDB creates an item
/// holding only that; `get` does not see it, the first `$connect` keeps it).
#[derive(Clone, Debug, Default)]
struct GameState {
    pending: Option<Pending>,
    last_request: Option<Pending>,
    game_session: Option<GameSession>,
    ended_game_session: Option<String>,
}

/// The game state of a record or of a game-state-only item, to update either alike.
struct GameStateMut<'a> {
    pending: &'a mut Option<Pending>,
    last_request: &'a mut Option<Pending>,
    game_session: &'a mut Option<GameSession>,
    ended_game_session: &'a mut Option<String>,
}

impl<'a> GameStateMut<'a> {
    fn of_record(record: &'a mut PlayerRecord) -> Self {
        Self {
            pending: &mut record.pending,
            last_request: &mut record.last_request,
            game_session: &mut record.game_session,
            ended_game_session: &mut record.ended_game_session,
        }
    }

    fn of_game_only(state: &'a mut GameState) -> Self {
        Self {
            pending: &mut state.pending,
            last_request: &mut state.last_request,
            game_session: &mut state.game_session,
            ended_game_session: &mut state.ended_game_session,
        }
    }
}

/// The Players table in a `Mutex<HashMap>`: each method is one atomic step, like one
/// conditional DynamoDB write.
#[derive(Default)]
pub struct InMemoryPlayerStore {
    items: Mutex<HashMap<PlayerId, Item>>,
    /// Locked after `items` when both are needed.
    game_only: Mutex<HashMap<PlayerId, GameState>>,
    /// Rate-limit windows (on the player's item in DynamoDB). Locked after `items`.
    windows: Mutex<HashMap<(PlayerId, Bucket), Window>>,
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

    /// `read` of each of `players` that has a record, once however often named.
    fn each_existing<T>(&self, players: &[PlayerId], read: impl Fn(&Item) -> T) -> Vec<T> {
        let items = self.items();
        let mut seen = std::collections::HashSet::new();
        players
            .iter()
            .filter(|p| seen.insert(*p))
            .filter_map(|p| items.get(p).map(&read))
            .collect()
    }

    /// Applies `update` to the player's game state: on their record, or on a
    /// game-state-only item (created if missing when `create` is set).
    fn update_game_state<T>(
        &self,
        player: &PlayerId,
        create: bool,
        update: impl FnOnce(GameStateMut<'_>) -> T,
    ) -> Option<T> {
        let mut items = self.items();
        if let Some(item) = items.get_mut(player) {
            return Some(update(GameStateMut::of_record(&mut item.record)));
        }
        let mut game_only = self.game_only.lock().unwrap_or_else(|p| p.into_inner());
        if create {
            let state = game_only.entry(player.clone()).or_default();
            return Some(update(GameStateMut::of_game_only(state)));
        }
        game_only
            .get_mut(player)
            .map(|state| update(GameStateMut::of_game_only(state)))
    }

    /// A request's settlement on one player, as one step: `pendingPlacementId` cleared
    /// if it is `pending`, and `gameSession` set when given. Creates the game state
    /// of a player who has no item, as DynamoDB's UpdateItem does.
    pub(crate) fn settle_placement(
        &self,
        player: &PlayerId,
        pending: &Pending,
        seat: Option<GameSession>,
    ) {
        self.update_game_state(player, true, |state| {
            if state.pending.as_ref() == Some(pending) {
                *state.pending = None;
            }
            if let Some(seat) = seat {
                *state.game_session = Some(seat);
            }
        });
    }

    /// The players' items, locked: a party's commit checks and writes several players'
    /// links as one step (lock order: parties, then players, then inboxes).
    pub(crate) fn lock(&self) -> LockedPlayers<'_> {
        LockedPlayers(self.items())
    }

    /// The hand-over's write on the player (see `DeliveryHandover`): `connection` becomes
    /// live from `live_from`, only if it is still the player's online connection.
    pub(crate) fn set_live(
        &self,
        player: &PlayerId,
        connection: &ConnectionId,
        live_from: Seq,
        acked: Option<Seq>,
    ) -> bool {
        self.update_online(player, connection, |item| {
            item.record.live_connection_id = Some(connection.clone());
            item.record.live_from = Some(live_from);
            if acked.is_some() {
                item.record.acked_seq = acked;
            }
        })
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
impl PlayerReader for InMemoryPlayerStore {
    async fn get(&self, player: &PlayerId) -> Result<Option<PlayerRecord>, StoreError> {
        Ok(self.items().get(player).map(|item| item.record.clone()))
    }
}

#[async_trait]
impl PlayerLookup for InMemoryPlayerStore {
    async fn get_many(&self, players: &[PlayerId]) -> Result<Vec<PlayerRecord>, StoreError> {
        Ok(self.each_existing(players, |item| item.record.clone()))
    }

    // A message's recipient check asks only who exists: cloning each whole record
    // was a twentieth of the local stack's time per message under load.
    async fn known(&self, players: &[PlayerId]) -> Result<Vec<PlayerId>, StoreError> {
        Ok(self.each_existing(players, |item| item.record.player_id.clone()))
    }
}

#[async_trait]
impl Connections for InMemoryPlayerStore {
    async fn connect(&self, new: &NewConnection) -> Result<ConnectOutcome, StoreError> {
        let mut items = self.items();
        let previous = items.get(&new.player_id).map(|item| &item.record);
        if previous.is_some_and(|p| p.connected_at > new.connected_at) {
            return Ok(ConnectOutcome::Superseded);
        }
        let outcome = ConnectOutcome::decide(previous, new);
        // `$connect` writes connection fields only: game state stays.
        let game = match previous {
            Some(p) => GameState {
                pending: p.pending.clone(),
                last_request: p.last_request.clone(),
                game_session: p.game_session.clone(),
                ended_game_session: p.ended_game_session.clone(),
            },
            None => self
                .game_only
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(&new.player_id)
                .unwrap_or_default(),
        };
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
            previous_connection_id: previous.map(|p| p.connection_id.clone()),
            previous_endpoint: previous.map(|p| p.endpoint.clone()),
            previous_last_seen: previous.map(|p| p.last_seen),
            // Delivery state stays with the player: the new connection is not live
            // until its own hand-over.
            live_connection_id: previous.and_then(|p| p.live_connection_id.clone()),
            live_from: previous.and_then(|p| p.live_from),
            acked_seq: previous.and_then(|p| p.acked_seq),
            pending: game.pending,
            last_request: game.last_request,
            game_session: game.game_session,
            ended_game_session: game.ended_game_session,
            // Party links and latencies are not connection state either.
            party_id: previous.and_then(|p| p.party_id.clone()),
            placement_latencies: previous
                .map(|p| p.placement_latencies.clone())
                .unwrap_or_default(),
            matchmaking_attributes: previous
                .map(|p| p.matchmaking_attributes.clone())
                .unwrap_or_default(),
            // Only going offline clears it (the sweeper's write).
            activity: previous.and_then(|p| p.activity.clone()),
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
}

#[async_trait]
impl Heartbeats for InMemoryPlayerStore {
    async fn heartbeat(
        &self,
        player: &PlayerId,
        connection: &ConnectionId,
        now: EpochMillis,
        deadline: EpochMillis,
        cursor: Option<Seq>,
    ) -> Result<Liveness, StoreError> {
        let mut items = self.items();
        let item = items.get_mut(player);
        let liveness = Liveness::of(item.as_ref().map(|i| &i.record), connection);
        if let (Liveness::Current, Some(item)) = (liveness, item) {
            item.record.last_seen = now;
            item.record.sweep_at = Some(deadline);
            if cursor.is_some() {
                item.record.acked_seq = cursor;
            }
        }
        Ok(liveness)
    }
}

#[async_trait]
impl PresenceSweep for InMemoryPlayerStore {
    async fn expired(
        &self,
        shard: u32,
        now: EpochMillis,
        limit: u32,
        after: Option<&PlayerId>,
    ) -> Result<ExpiredPage, StoreError> {
        let items = self.items();
        let mut tracked: Vec<&PlayerRecord> = items
            .values()
            .filter(|item| item.sweep_shard == Some(shard))
            .map(|item| &item.record)
            .filter(|record| after.is_none_or(|a| record.player_id > *a))
            .collect();
        tracked.sort_by(|a, b| a.player_id.cmp(&b.player_id));
        let limit = limit.max(1) as usize;
        let next = (tracked.len() > limit).then(|| tracked[limit - 1].player_id.clone());
        tracked.truncate(limit);
        let online = tracked.iter().filter(|r| r.online_connection().is_some());
        let (examined, online) = (tracked.len(), online.count());
        let players = tracked
            .into_iter()
            .filter_map(|record| {
                let sweep_at = record.sweep_at?;
                (sweep_at < now).then(|| ExpiredPlayer {
                    player_id: record.player_id.clone(),
                    sweep_at,
                    online_connection: record.online_connection(),
                })
            })
            .collect();
        Ok(ExpiredPage {
            players,
            next,
            examined,
            online,
        })
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
        item.record.activity = None;
        item.sweep_shard = None;
        Ok(Some(before))
    }
}

#[async_trait]
impl Activities for InMemoryPlayerStore {
    async fn set_activity(
        &self,
        player: &PlayerId,
        connection: &ConnectionId,
        activity: Option<&Activity>,
    ) -> Result<bool, StoreError> {
        Ok(self.update_online(player, connection, |item| {
            item.record.activity = activity.cloned();
        }))
    }
}

#[async_trait]
impl PendingSlots for InMemoryPlayerStore {
    async fn reserve(
        &self,
        player: &PlayerId,
        pending: &Pending,
    ) -> Result<Reservation, StoreError> {
        if let Some(party) = self
            .items()
            .get(player)
            .and_then(|item| item.record.party_id.clone())
        {
            return Ok(Reservation::InParty(party));
        }
        let reserved = self.update_game_state(player, true, |state| {
            if let Some(taken) = state.pending.as_ref() {
                return Reservation::Taken(taken.clone());
            }
            *state.pending = Some(pending.clone());
            *state.last_request = Some(pending.clone());
            Reservation::Reserved
        });
        Ok(reserved.unwrap_or(Reservation::Reserved))
    }

    async fn release(&self, player: &PlayerId, pending: &Pending) -> Result<(), StoreError> {
        self.update_game_state(player, false, |state| {
            if state.pending.as_ref() == Some(pending) {
                *state.pending = None;
            }
        });
        Ok(())
    }
}

#[async_trait]
impl Profiles for InMemoryPlayerStore {
    async fn set_placement_latencies(
        &self,
        player: &PlayerId,
        latencies: &[(String, u32)],
    ) -> Result<bool, StoreError> {
        let mut items = self.items();
        let Some(item) = items.get_mut(player) else {
            return Ok(false);
        };
        let mut latencies = latencies.to_vec();
        latencies.sort();
        item.record.placement_latencies = latencies;
        Ok(true)
    }

    async fn set_matchmaking_attributes(
        &self,
        player: &PlayerId,
        attributes: &shared::matchmaking::Attributes,
    ) -> Result<bool, StoreError> {
        let mut items = self.items();
        let Some(item) = items.get_mut(player) else {
            return Ok(false);
        };
        item.record.matchmaking_attributes = attributes.clone();
        Ok(true)
    }
}

/// The players' items under their lock, for a party's commit.
pub(crate) struct LockedPlayers<'a>(std::sync::MutexGuard<'a, HashMap<PlayerId, Item>>);

impl LockedPlayers<'_> {
    /// `None`: no item; else the party the player is in, if any.
    pub(crate) fn party_of(&self, player: &PlayerId) -> Option<Option<PartyId>> {
        self.0.get(player).map(|item| item.record.party_id.clone())
    }

    /// Sets (or clears) the player's party link, if they have an item.
    pub(crate) fn set_party(&mut self, player: &PlayerId, party: Option<PartyId>) {
        if let Some(item) = self.0.get_mut(player) {
            item.record.party_id = party;
        }
    }

    /// The pending request of a player with an item.
    pub(crate) fn pending(&self, player: &PlayerId) -> Option<Pending> {
        self.0
            .get(player)
            .and_then(|item| item.record.pending.clone())
    }

    /// Makes `pending` the player's pending and last request (an item is expected:
    /// party members have connected).
    pub(crate) fn reserve(&mut self, player: &PlayerId, pending: &Pending) {
        if let Some(item) = self.0.get_mut(player) {
            item.record.pending = Some(pending.clone());
            item.record.last_request = Some(pending.clone());
        }
    }
}

mod rate_limit;
mod seats;

#[cfg(test)]
mod tests {
    use super::*;

    async fn store() -> InMemoryPlayerStore {
        InMemoryPlayerStore::new()
    }

    async fn with_heartbeats() -> contracts::player_store_contract::HeartbeatStores {
        let store = std::sync::Arc::new(InMemoryPlayerStore::new());
        contracts::player_store_contract::HeartbeatStores {
            players: store.clone(),
            heartbeats: store,
        }
    }

    contracts::player_store_contract_tests!(store);
    contracts::heartbeat_contract_tests!(with_heartbeats);
    contracts::rate_limiter_contract_tests!(store);
}
