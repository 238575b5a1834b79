//! A storage backend that is down: every call of every store port fails with
//! [`StoreError::Unavailable`] ("connection refused"), as DynamoDB does when it cannot be
//! reached. Handlers' tests use it to check the failure contract: a typed `unavailable`
//! frame, never a Lambda error.

use async_trait::async_trait;

use crate::domain::{ConnectionId, EpochMillis, GameSession, PlacementId, PlayerId, Seq};
use crate::party::{Invitation, Party, PartyId};
use crate::ports::message_store::{
    DeliveryHandover, Handover, HandoverOutcome, InboxRead, MessageStore, NewMessage, ReplayFrom,
};
use crate::ports::party_store::{
    Committed, OfflinePage, OfflineParty, PartyCommit, PartyPlacementBegun, PartyStore,
};
use crate::ports::placement_store::{
    PlacementOutcomes, PlacementRecord, PlacementStore, Settlement,
};
use crate::ports::player_store::{
    ConnectOutcome, ExpiredPage, Liveness, NewConnection, PlacementBegun, PlayerRecord,
    PlayerStore, StoreError,
};
use crate::ports::rate_limit::{Bucket, Quota, RateLimiter, Spent};
use crate::ports::subscription_store::SubscriptionStore;

/// Every store, unreachable.
#[derive(Clone, Copy, Debug, Default)]
pub struct Unavailable;

fn down<T>() -> Result<T, StoreError> {
    Err(StoreError::Unavailable(Box::new(std::io::Error::new(
        std::io::ErrorKind::ConnectionRefused,
        "connection refused",
    ))))
}

#[async_trait]
impl PlayerStore for Unavailable {
    async fn connect(&self, _: &NewConnection) -> Result<ConnectOutcome, StoreError> {
        down()
    }
    async fn disconnect(
        &self,
        _: &PlayerId,
        _: &ConnectionId,
        _: EpochMillis,
        _: EpochMillis,
    ) -> Result<bool, StoreError> {
        down()
    }
    async fn heartbeat(
        &self,
        _: &PlayerId,
        _: &ConnectionId,
        _: EpochMillis,
        _: EpochMillis,
        _: Option<Seq>,
    ) -> Result<Liveness, StoreError> {
        down()
    }
    async fn get(&self, _: &PlayerId) -> Result<Option<PlayerRecord>, StoreError> {
        down()
    }
    async fn get_many(&self, _: &[PlayerId]) -> Result<Vec<PlayerRecord>, StoreError> {
        down()
    }
    async fn expired(
        &self,
        _: u32,
        _: EpochMillis,
        _: u32,
        _: Option<&PlayerId>,
    ) -> Result<ExpiredPage, StoreError> {
        down()
    }
    async fn mark_offline(
        &self,
        _: &PlayerId,
        _: EpochMillis,
    ) -> Result<Option<PlayerRecord>, StoreError> {
        down()
    }
    async fn begin_placement(
        &self,
        _: &PlayerId,
        _: &PlacementId,
    ) -> Result<PlacementBegun, StoreError> {
        down()
    }
    async fn abandon_placement(&self, _: &PlayerId, _: &PlacementId) -> Result<(), StoreError> {
        down()
    }
    async fn update_game_session(&self, _: &PlayerId, _: &GameSession) -> Result<bool, StoreError> {
        down()
    }
    async fn refresh_seat(&self, _: &PlayerId, _: &GameSession) -> Result<bool, StoreError> {
        down()
    }
    async fn end_game_session(&self, _: &PlayerId, _: &str) -> Result<bool, StoreError> {
        down()
    }
    async fn set_placement_latencies(
        &self,
        _: &PlayerId,
        _: &[(String, u32)],
    ) -> Result<bool, StoreError> {
        down()
    }
    async fn set_matchmaking_attributes(
        &self,
        _: &PlayerId,
        _: &crate::matchmaking::Attributes,
    ) -> Result<bool, StoreError> {
        down()
    }
}

#[async_trait]
impl PartyStore for Unavailable {
    async fn get(&self, _: &PartyId) -> Result<Option<Party>, StoreError> {
        down()
    }
    async fn get_with_invitation(
        &self,
        _: &PartyId,
        _: &PlayerId,
    ) -> Result<(Option<Party>, Option<Invitation>), StoreError> {
        down()
    }
    async fn commit(&self, _: &PartyCommit) -> Result<Committed, StoreError> {
        down()
    }
    async fn begin_placement(
        &self,
        _: &Party,
        _: &PlacementId,
    ) -> Result<PartyPlacementBegun, StoreError> {
        down()
    }
    async fn offline(
        &self,
        _: u32,
        _: EpochMillis,
        _: u32,
        _: Option<&OfflineParty>,
    ) -> Result<OfflinePage, StoreError> {
        down()
    }
}

#[async_trait]
impl MessageStore for Unavailable {
    async fn append(&self, _: &[NewMessage]) -> Result<usize, StoreError> {
        down()
    }
    async fn read(
        &self,
        _: &PlayerId,
        _: &ReplayFrom,
        _: EpochMillis,
    ) -> Result<InboxRead, StoreError> {
        down()
    }
}

#[async_trait]
impl RateLimiter for Unavailable {
    async fn spend(
        &self,
        _: &PlayerId,
        _: Bucket,
        _: Quota,
        _: u32,
        _: EpochMillis,
    ) -> Result<Spent, StoreError> {
        down()
    }
}

#[async_trait]
impl DeliveryHandover for Unavailable {
    async fn go_live(&self, _: &Handover) -> Result<HandoverOutcome, StoreError> {
        down()
    }
}

#[async_trait]
impl PlacementStore for Unavailable {
    async fn create(&self, _: &PlacementRecord) -> Result<(), StoreError> {
        down()
    }
    async fn get(&self, _: &PlacementId) -> Result<Option<PlacementRecord>, StoreError> {
        down()
    }
    async fn mark_failed(&self, _: &PlacementId, _: EpochMillis) -> Result<bool, StoreError> {
        down()
    }
}

#[async_trait]
impl PlacementOutcomes for Unavailable {
    async fn settle(&self, _: &Settlement) -> Result<bool, StoreError> {
        down()
    }
}

#[async_trait]
impl SubscriptionStore for Unavailable {
    async fn subscribe(&self, _: &PlayerId, _: &[PlayerId], _: i64) -> Result<(), StoreError> {
        down()
    }
    async fn unsubscribe(&self, _: &PlayerId, _: &[PlayerId]) -> Result<(), StoreError> {
        down()
    }
    async fn watchers(&self, _: &PlayerId, _: EpochMillis) -> Result<Vec<PlayerId>, StoreError> {
        down()
    }
}
