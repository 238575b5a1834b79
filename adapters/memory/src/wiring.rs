//! The tables' ports in memory, as a function's `wire` asks for them
//! ([`shared::wiring::Stores`]): one store per table, shared by every port and every
//! function of the process (the local stack's and the tests' in-memory storage).
//! Nothing here enforces IAM: the commit scope and ticket pushes an AWS adapter is
//! built for are the role's, which only the AWS adapters check.

use std::sync::Arc;

use shared::matchmaking::TicketPushes;
use shared::party::CommitScope;
use shared::ports::{
    Activities, Blocks, Connections, DeliveryHandover, FriendCommits, FriendReader, InboxReader,
    MessageStore, OfflineParties, PartyCommits, PartyReader, PartySlots, PendingSlots,
    PlacementOutcomes, PlacementReader, PlacementRecorder, PlayerLookup, PlayerReader,
    PresenceSweep, Profiles, RateLimiter, Seats, Subscriptions, TicketChanges, TicketReader,
    TicketRecorder, Watchers,
};
use shared::wiring::Stores;

use crate::{
    InMemoryDeliveryHandover, InMemoryFriendStore, InMemoryMessageStore, InMemoryPartyStore,
    InMemoryPlacementOutcomes, InMemoryPlacementStore, InMemoryPlayerStore,
    InMemorySubscriptionStore, InMemoryTicketStore,
};

/// Every table in memory.
#[derive(Clone)]
pub struct MemoryStores {
    pub players: Arc<InMemoryPlayerStore>,
    pub messages: Arc<InMemoryMessageStore>,
    pub placements: Arc<InMemoryPlacementStore>,
    pub tickets: Arc<InMemoryTicketStore>,
    pub parties: Arc<InMemoryPartyStore>,
    pub subscriptions: Arc<InMemorySubscriptionStore>,
    pub friends: Arc<InMemoryFriendStore>,
    pub handover: Arc<InMemoryDeliveryHandover>,
    pub outcomes: Arc<InMemoryPlacementOutcomes>,
}

impl MemoryStores {
    /// Empty tables; `messages` is the Messages table (its observer, if any, sees every
    /// insert) and `shards` partitions the parties' offline index.
    pub fn new(messages: InMemoryMessageStore, shards: u32) -> Self {
        let players = Arc::new(InMemoryPlayerStore::new());
        let messages = Arc::new(messages);
        let placements = Arc::new(InMemoryPlacementStore::new());
        Self {
            tickets: Arc::new(InMemoryTicketStore::new(players.clone(), messages.clone())),
            parties: Arc::new(InMemoryPartyStore::new(
                players.clone(),
                messages.clone(),
                shards,
            )),
            subscriptions: Arc::new(InMemorySubscriptionStore::new()),
            friends: Arc::new(InMemoryFriendStore::new(messages.clone())),
            handover: Arc::new(InMemoryDeliveryHandover::new(
                players.clone(),
                messages.clone(),
            )),
            outcomes: Arc::new(InMemoryPlacementOutcomes::new(
                placements.clone(),
                players.clone(),
                messages.clone(),
            )),
            players,
            messages,
            placements,
        }
    }
}

impl Stores for MemoryStores {
    fn player_reader(&self) -> Arc<dyn PlayerReader> {
        self.players.clone()
    }
    fn player_lookup(&self) -> Arc<dyn PlayerLookup> {
        self.players.clone()
    }
    fn connections(&self) -> Arc<dyn Connections> {
        self.players.clone()
    }
    fn presence_sweep(&self) -> Arc<dyn PresenceSweep> {
        self.players.clone()
    }
    fn pending_slots(&self) -> Arc<dyn PendingSlots> {
        self.players.clone()
    }
    fn seats(&self) -> Arc<dyn Seats> {
        self.players.clone()
    }
    fn profiles(&self) -> Arc<dyn Profiles> {
        self.players.clone()
    }
    fn activities(&self) -> Arc<dyn Activities> {
        self.players.clone()
    }
    fn rate_limiter(&self) -> Arc<dyn RateLimiter> {
        self.players.clone()
    }
    fn message_store(&self) -> Arc<dyn MessageStore> {
        self.messages.clone()
    }
    fn inbox_reader(&self) -> Arc<dyn InboxReader> {
        self.messages.clone()
    }
    fn delivery_handover(&self) -> Arc<dyn DeliveryHandover> {
        self.handover.clone()
    }
    fn placement_reader(&self) -> Arc<dyn PlacementReader> {
        self.placements.clone()
    }
    fn placement_recorder(&self) -> Arc<dyn PlacementRecorder> {
        self.placements.clone()
    }
    fn placement_outcomes(&self) -> Arc<dyn PlacementOutcomes> {
        self.outcomes.clone()
    }
    fn ticket_reader(&self) -> Arc<dyn TicketReader> {
        self.tickets.clone()
    }
    fn ticket_recorder(&self) -> Arc<dyn TicketRecorder> {
        self.tickets.clone()
    }
    fn ticket_changes(&self, _pushes: TicketPushes) -> Arc<dyn TicketChanges> {
        self.tickets.clone()
    }
    fn party_reader(&self) -> Arc<dyn PartyReader> {
        self.parties.clone()
    }
    fn party_commits(&self, _scope: CommitScope) -> Arc<dyn PartyCommits> {
        self.parties.clone()
    }
    fn party_slots(&self) -> Arc<dyn PartySlots> {
        self.parties.clone()
    }
    fn offline_parties(&self) -> Arc<dyn OfflineParties> {
        self.parties.clone()
    }
    fn subscriptions(&self) -> Arc<dyn Subscriptions> {
        self.subscriptions.clone()
    }
    fn watchers(&self) -> Arc<dyn Watchers> {
        self.subscriptions.clone()
    }
    fn friend_reader(&self) -> Arc<dyn FriendReader> {
        self.friends.clone()
    }
    fn friend_commits(&self) -> Arc<dyn FriendCommits> {
        self.friends.clone()
    }
    fn blocks(&self) -> Arc<dyn Blocks> {
        self.friends.clone()
    }
}
