//! A storage backend that is down: every call of every store port fails with
//! [`StoreError::Unavailable`] ("connection refused"), as DynamoDB does when it cannot be
//! reached. Handlers' tests use it to check the failure contract: a typed `unavailable`
//! frame, never a Lambda error.

use async_trait::async_trait;

use shared::domain::{ConnectionId, EpochMillis, GameSession, PlacementId, PlayerId, Seq};
use shared::friends::{FriendCommit, FriendCommitted, Relation, RelationPage, RelationQuery};
use shared::matchmaking::{TicketChange, TicketId, TicketRecord};
use shared::messaging::{Handover, HandoverOutcome, InboxRead, NewMessage, ReplayFrom};
use shared::party::{Committed, OfflinePage, OfflineParty, PartyCommit};
use shared::party::{Invitation, Party, PartyId};
use shared::pending::{PartyReservation, Pending, Reservation};
use shared::placement::{PlacementRecord, Settlement};
use shared::players::{ConnectOutcome, ExpiredPage, Liveness, NewConnection, PlayerRecord};
use shared::ports::{
    Activities, Blocks, CheckedPair, CheckedRecipients, Connections, DeliveryHandover,
    FriendCommits, FriendReader, Heartbeats, InboxReader, MessageStore, OfflineParties,
    PartyCommits, PartyReader, PartySlots, PendingSlots, PlacementOutcomes, PlacementReader,
    PlacementRecorder, PlayerLookup, PlayerReader, PresenceSweep, Profiles, RateLimiter,
    RecipientCheck, Seats, StoreError, Subscriptions, TicketChanges, TicketReader, TicketRecorder,
    Watchers,
};
use shared::rate_limits::{Bucket, Quota, Spent};

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
impl PlayerReader for Unavailable {
    async fn get(&self, _: &PlayerId) -> Result<Option<PlayerRecord>, StoreError> {
        down()
    }
}

#[async_trait]
impl PlayerLookup for Unavailable {
    async fn get_many(&self, _: &[PlayerId]) -> Result<Vec<PlayerRecord>, StoreError> {
        down()
    }
}

#[async_trait]
impl Connections for Unavailable {
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
}

#[async_trait]
impl FriendReader for Unavailable {
    async fn relation(&self, _: &PlayerId, _: &PlayerId) -> Result<Option<Relation>, StoreError> {
        down()
    }

    async fn pair(
        &self,
        _: &PlayerId,
        _: &PlayerId,
    ) -> Result<(Option<Relation>, Option<Relation>), StoreError> {
        down()
    }

    async fn page(&self, _: RelationQuery<'_>) -> Result<RelationPage, StoreError> {
        down()
    }

    async fn friends(&self, _: &PlayerId) -> Result<Vec<PlayerId>, StoreError> {
        down()
    }
}

#[async_trait]
impl Blocks for Unavailable {
    async fn blockers(&self, _: &PlayerId, _: &[PlayerId]) -> Result<Vec<PlayerId>, StoreError> {
        down()
    }
}

#[async_trait]
impl RecipientCheck for Unavailable {
    async fn check(&self, _: &PlayerId, _: &[PlayerId]) -> Result<CheckedRecipients, StoreError> {
        down()
    }

    async fn check_pair(
        &self,
        _: &[PlayerId],
        _: &PlayerId,
        _: &PlayerId,
    ) -> Result<CheckedPair, StoreError> {
        down()
    }
}

#[async_trait]
impl FriendCommits for Unavailable {
    async fn commit(&self, _: &FriendCommit) -> Result<FriendCommitted, StoreError> {
        down()
    }
}

#[async_trait]
impl Heartbeats for Unavailable {
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
}

#[async_trait]
impl PresenceSweep for Unavailable {
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
}

#[async_trait]
impl PendingSlots for Unavailable {
    async fn reserve(&self, _: &PlayerId, _: &Pending) -> Result<Reservation, StoreError> {
        down()
    }

    async fn release(&self, _: &PlayerId, _: &Pending) -> Result<(), StoreError> {
        down()
    }
}

#[async_trait]
impl Seats for Unavailable {
    async fn update_game_session(&self, _: &PlayerId, _: &GameSession) -> Result<bool, StoreError> {
        down()
    }
    async fn refresh_seat(&self, _: &PlayerId, _: &GameSession) -> Result<bool, StoreError> {
        down()
    }

    async fn take_seat(&self, _: &PlayerId, _: &GameSession) -> Result<(), StoreError> {
        down()
    }

    async fn end_game_session(&self, _: &PlayerId, _: &str) -> Result<bool, StoreError> {
        down()
    }
}

#[async_trait]
impl Activities for Unavailable {
    async fn set_activity(
        &self,
        _: &PlayerId,
        _: &ConnectionId,
        _: Option<&shared::activity::Activity>,
    ) -> Result<bool, StoreError> {
        down()
    }
}

#[async_trait]
impl Profiles for Unavailable {
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
        _: &shared::matchmaking::Attributes,
    ) -> Result<bool, StoreError> {
        down()
    }
}

#[async_trait]
impl PartyReader for Unavailable {
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
}

#[async_trait]
impl PartyCommits for Unavailable {
    async fn commit(&self, _: &PartyCommit) -> Result<Committed, StoreError> {
        down()
    }
}

#[async_trait]
impl PartySlots for Unavailable {
    async fn reserve_party(&self, _: &Party, _: &Pending) -> Result<PartyReservation, StoreError> {
        down()
    }
}

#[async_trait]
impl OfflineParties for Unavailable {
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
}

#[async_trait]
impl InboxReader for Unavailable {
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
impl PlacementReader for Unavailable {
    async fn get(&self, _: &PlacementId) -> Result<Option<PlacementRecord>, StoreError> {
        down()
    }
}

#[async_trait]
impl PlacementRecorder for Unavailable {
    async fn create(&self, _: &PlacementRecord) -> Result<(), StoreError> {
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
impl Subscriptions for Unavailable {
    async fn subscribe(&self, _: &PlayerId, _: &[PlayerId], _: i64) -> Result<(), StoreError> {
        down()
    }

    async fn unsubscribe(&self, _: &PlayerId, _: &[PlayerId]) -> Result<(), StoreError> {
        down()
    }
}

#[async_trait]
impl Watchers for Unavailable {
    async fn watchers(&self, _: &PlayerId, _: EpochMillis) -> Result<Vec<PlayerId>, StoreError> {
        down()
    }
}

#[async_trait]
impl TicketReader for Unavailable {
    async fn get(&self, _: &TicketId) -> Result<Option<TicketRecord>, StoreError> {
        down()
    }
}

#[async_trait]
impl TicketRecorder for Unavailable {
    async fn create(&self, _: &TicketRecord) -> Result<(), StoreError> {
        down()
    }
}

#[async_trait]
impl TicketChanges for Unavailable {
    async fn advance(&self, _: &TicketChange) -> Result<bool, StoreError> {
        down()
    }
}
