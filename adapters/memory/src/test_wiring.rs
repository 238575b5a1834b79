//! Handler tests' wiring (feature `test-support`): every table in memory
//! ([`MemoryStores`]), the outside services faked (`contracts`' recording gateway,
//! GameLift and matchmaker, an in-process bus), a manual clock. A test builds its
//! function's handler with the function's own `wire`, as Lambda and the local stack do:
//! `crate::wire(&world.wiring())`. A test that needs one port to fail (or to answer as
//! it scripts) replaces just that port ([`TestWiring::replace`]); the rest stay wired.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Test support: a panic is the test failing, with its message.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::Arc;

use contracts::fake_gamelift::FakeGameLift;
use contracts::fake_matchmaker::FakeMatchmaker;
use contracts::fixtures::{T0, player};
use contracts::recording_gateway::RecordingGateway;
use shared::config::Config;
use shared::matchmaking::{MatchmakingSettings, TicketPushes};
use shared::party::{
    CommitScope, Committed, Invitation, InvitationWrite, Party, PartyCommit, PartyCondition,
    PartyId,
};
use shared::ports::{
    Activities, Blocks, ConnectionGateway, ConnectionProbe, Connections, DeliveryHandover,
    EventBus, FriendCommits, FriendReader, InboxReader, ManualClock, Matchmaker, MessageStore,
    OfflineParties, PartyCommits, PartyReader, PartySlots, PendingSlots, PlacementOutcomes,
    PlacementReader, PlacementRecorder, PlacementStarter, PlacementStopper, PlayerConnections,
    PlayerLookup, PlayerReader, PlayerSessions, PresenceSweep, Profiles, RateLimiter, Seats,
    Subscriptions, TicketChanges, TicketReader, TicketRecorder, Watchers,
};
use shared::wiring::{Services, Stores, Wiring};

use crate::{InMemoryMessageStore, InProcessEventBus, MemoryStores};

/// One test's world: tables, fakes, clock and configuration, and the ports a test
/// replaced. Change `config` or `matchmaking` before [`Self::wiring`].
#[derive(Clone)]
pub struct TestWiring {
    pub config: Config,
    pub matchmaking: MatchmakingSettings,
    pub clock: ManualClock,
    pub tables: MemoryStores,
    pub gateway: Arc<RecordingGateway>,
    pub gamelift: Arc<FakeGameLift>,
    pub matchmaker: Arc<FakeMatchmaker>,
    pub bus: Arc<InProcessEventBus>,
    replaced: Replaced,
}

impl Default for TestWiring {
    fn default() -> Self {
        Self::new()
    }
}

impl TestWiring {
    /// Empty tables, the local stack's configuration (stage `Development`), the clock at
    /// [`T0`], matchmaking off.
    pub fn new() -> Self {
        Self::with_messages(InMemoryMessageStore::new())
    }

    /// As [`Self::new`], the Messages table `messages` (one with an observer, say).
    pub fn with_messages(messages: InMemoryMessageStore) -> Self {
        Self::build(Config::for_local("Development"), messages)
    }

    /// As [`Self::new`], the presence index (and the parties' offline index, as on the
    /// local stack) in `shards` shards.
    pub fn sharded(shards: u32) -> Self {
        let mut config = Config::for_local("Development");
        config.presence_shards = shards;
        Self::build(config, InMemoryMessageStore::new())
    }

    fn build(config: Config, messages: InMemoryMessageStore) -> Self {
        Self {
            tables: MemoryStores::new(messages, config.presence_shards),
            config,
            matchmaking: MatchmakingSettings::default(),
            clock: ManualClock::at(T0),
            gateway: Arc::new(RecordingGateway::new()),
            gamelift: Arc::new(FakeGameLift::new()),
            matchmaker: Arc::new(FakeMatchmaker::new()),
            bus: Arc::new(InProcessEventBus::new()),
            replaced: Replaced::default(),
        }
    }

    /// The same world with the clock at `millis`.
    pub fn at(self, millis: i64) -> Self {
        self.clock.set(millis);
        self
    }

    /// From now on every wiring hands `port` out where a function asks for a `P`
    /// (`dyn MessageStore`, say): a store that is down, a scripted fake.
    pub fn replace<P: ?Sized + Send + Sync + 'static>(&mut self, port: Arc<P>) -> &mut Self {
        self.replaced.0.insert(TypeId::of::<P>(), Arc::new(port));
        self
    }

    /// What a function's `wire` takes.
    pub fn wiring(&self) -> Wiring {
        let config = Arc::new(self.config.clone());
        Wiring {
            keep_alive: config.keep_alive(),
            stores: Arc::new(TestStores {
                tables: self.tables.clone(),
                replaced: self.replaced.clone(),
            }),
            services: Arc::new(TestServices {
                gateway: self.gateway.clone(),
                gamelift: self.gamelift.clone(),
                matchmaker: self.matchmaker.clone(),
                bus: self.bus.clone(),
                replaced: self.replaced.clone(),
            }),
            config,
            clock: Arc::new(self.clock.clone()),
            matchmaking: self.matchmaking.clone(),
        }
    }
}

impl TestWiring {
    /// Party `party-1` of `members` (at most `max_size`), led by `members[0]`, formed at
    /// `at` as the party routes form one: created, then each other member invited and
    /// joined. The party as stored.
    pub async fn party_of(&self, members: &[&str], max_size: u32, at: i64) -> Party {
        let service = self.wiring().parties(CommitScope::Any);
        let store = &self.tables.parties;
        let id = PartyId::parse("party-1").expect("a party id");
        let created = Party::create(id, &player(members[0]), max_size, at);
        let commit = service.commit_of(&created, at);
        assert_eq!(store.commit(&commit).await.unwrap(), Committed::Done);
        let mut state = created.after;
        for name in &members[1..] {
            let invitation = Invitation {
                party_id: state.party_id.clone(),
                invitee: player(name),
                from: player(members[0]),
                expires_at: at + 60_000,
            };
            let mut invite = PartyCommit::on(
                state.party_id.clone(),
                PartyCondition::AtVersion(state.version),
                at,
            );
            invite.invitation = Some(InvitationWrite::Put(invitation.clone()));
            store.commit(&invite).await.unwrap();
            let joined = state.join(&player(name), Some(&invitation), at).unwrap();
            let commit = service.commit_of(&joined, at);
            assert_eq!(store.commit(&commit).await.unwrap(), Committed::Done);
            state = joined.after;
        }
        state
    }
}

/// The replaced ports, by the port's type (`dyn MessageStore`), each an `Arc<P>`.
#[derive(Clone, Default)]
struct Replaced(HashMap<TypeId, Arc<dyn Any + Send + Sync>>);

impl Replaced {
    /// The replacement of a `P`, or the one `wired` builds.
    fn or<P: ?Sized + 'static>(&self, wired: impl FnOnce() -> Arc<P>) -> Arc<P> {
        self.0
            .get(&TypeId::of::<P>())
            .and_then(|port| port.downcast_ref::<Arc<P>>())
            .cloned()
            .unwrap_or_else(wired)
    }
}

struct TestStores {
    tables: MemoryStores,
    replaced: Replaced,
}

impl Stores for TestStores {
    fn player_reader(&self) -> Arc<dyn PlayerReader> {
        self.replaced.or(|| self.tables.player_reader())
    }
    fn player_lookup(&self) -> Arc<dyn PlayerLookup> {
        self.replaced.or(|| self.tables.player_lookup())
    }
    fn connections(&self) -> Arc<dyn Connections> {
        self.replaced.or(|| self.tables.connections())
    }
    fn presence_sweep(&self) -> Arc<dyn PresenceSweep> {
        self.replaced.or(|| self.tables.presence_sweep())
    }
    fn pending_slots(&self) -> Arc<dyn PendingSlots> {
        self.replaced.or(|| self.tables.pending_slots())
    }
    fn seats(&self) -> Arc<dyn Seats> {
        self.replaced.or(|| self.tables.seats())
    }
    fn profiles(&self) -> Arc<dyn Profiles> {
        self.replaced.or(|| self.tables.profiles())
    }
    fn activities(&self) -> Arc<dyn Activities> {
        self.replaced.or(|| self.tables.activities())
    }
    fn rate_limiter(&self) -> Arc<dyn RateLimiter> {
        self.replaced.or(|| self.tables.rate_limiter())
    }
    fn message_store(&self) -> Arc<dyn MessageStore> {
        self.replaced.or(|| self.tables.message_store())
    }
    fn inbox_reader(&self) -> Arc<dyn InboxReader> {
        self.replaced.or(|| self.tables.inbox_reader())
    }
    fn delivery_handover(&self) -> Arc<dyn DeliveryHandover> {
        self.replaced.or(|| self.tables.delivery_handover())
    }
    fn placement_reader(&self) -> Arc<dyn PlacementReader> {
        self.replaced.or(|| self.tables.placement_reader())
    }
    fn placement_recorder(&self) -> Arc<dyn PlacementRecorder> {
        self.replaced.or(|| self.tables.placement_recorder())
    }
    fn placement_outcomes(&self) -> Arc<dyn PlacementOutcomes> {
        self.replaced.or(|| self.tables.placement_outcomes())
    }
    fn ticket_reader(&self) -> Arc<dyn TicketReader> {
        self.replaced.or(|| self.tables.ticket_reader())
    }
    fn ticket_recorder(&self) -> Arc<dyn TicketRecorder> {
        self.replaced.or(|| self.tables.ticket_recorder())
    }
    fn ticket_changes(&self, pushes: TicketPushes) -> Arc<dyn TicketChanges> {
        self.replaced.or(|| self.tables.ticket_changes(pushes))
    }
    fn party_reader(&self) -> Arc<dyn PartyReader> {
        self.replaced.or(|| self.tables.party_reader())
    }
    fn party_commits(&self, scope: CommitScope) -> Arc<dyn PartyCommits> {
        self.replaced.or(|| self.tables.party_commits(scope))
    }
    fn party_slots(&self) -> Arc<dyn PartySlots> {
        self.replaced.or(|| self.tables.party_slots())
    }
    fn offline_parties(&self) -> Arc<dyn OfflineParties> {
        self.replaced.or(|| self.tables.offline_parties())
    }
    fn subscriptions(&self) -> Arc<dyn Subscriptions> {
        self.replaced.or(|| self.tables.subscriptions())
    }
    fn watchers(&self) -> Arc<dyn Watchers> {
        self.replaced.or(|| self.tables.watchers())
    }
    fn friend_reader(&self) -> Arc<dyn FriendReader> {
        self.replaced.or(|| self.tables.friend_reader())
    }
    fn friend_commits(&self) -> Arc<dyn FriendCommits> {
        self.replaced.or(|| self.tables.friend_commits())
    }
    fn blocks(&self) -> Arc<dyn Blocks> {
        self.replaced.or(|| self.tables.blocks())
    }
}

struct TestServices {
    gateway: Arc<RecordingGateway>,
    gamelift: Arc<FakeGameLift>,
    matchmaker: Arc<FakeMatchmaker>,
    bus: Arc<InProcessEventBus>,
    replaced: Replaced,
}

impl Services for TestServices {
    fn connection_gateway(&self) -> Arc<dyn ConnectionGateway> {
        self.replaced
            .or::<dyn ConnectionGateway>(|| self.gateway.clone())
    }
    fn connection_probe(&self) -> Arc<dyn ConnectionProbe> {
        self.replaced
            .or::<dyn ConnectionProbe>(|| self.gateway.clone())
    }
    fn event_bus(&self) -> Arc<dyn EventBus> {
        self.replaced.or::<dyn EventBus>(|| self.bus.clone())
    }
    fn placement_starter(&self) -> Arc<dyn PlacementStarter> {
        self.replaced
            .or::<dyn PlacementStarter>(|| self.gamelift.clone())
    }
    fn placement_stopper(&self) -> Arc<dyn PlacementStopper> {
        self.replaced
            .or::<dyn PlacementStopper>(|| self.gamelift.clone())
    }
    fn player_sessions(&self) -> Arc<dyn PlayerSessions> {
        self.replaced
            .or::<dyn PlayerSessions>(|| self.gamelift.clone())
    }
    fn player_connections(&self) -> Arc<dyn PlayerConnections> {
        self.replaced
            .or::<dyn PlayerConnections>(|| self.gamelift.clone())
    }
    fn matchmaker(&self) -> Arc<dyn Matchmaker> {
        self.replaced
            .or::<dyn Matchmaker>(|| self.matchmaker.clone())
    }
}

#[cfg(test)]
mod tests {
    use contracts::unavailable::Unavailable;

    use super::*;

    #[test]
    fn given_a_replaced_port_when_wiring_then_functions_get_it_and_the_rest_stay_wired() {
        let mut w = TestWiring::new();
        let gateway = Arc::new(RecordingGateway::new());
        w.replace::<dyn ConnectionGateway>(gateway.clone())
            .replace::<dyn MessageStore>(Arc::new(Unavailable));
        let wiring = w.wiring();
        let handed: Arc<dyn ConnectionGateway> = gateway;
        assert!(Arc::ptr_eq(&wiring.services.connection_gateway(), &handed));
        let probe: Arc<dyn ConnectionProbe> = w.gateway.clone();
        assert!(Arc::ptr_eq(&wiring.services.connection_probe(), &probe));
        let reader: Arc<dyn InboxReader> = w.tables.messages.clone();
        assert!(Arc::ptr_eq(&wiring.stores.inbox_reader(), &reader));
        assert!(!Arc::ptr_eq(
            &wiring.stores.message_store(),
            &(w.tables.messages.clone() as Arc<dyn MessageStore>)
        ));
    }
}
