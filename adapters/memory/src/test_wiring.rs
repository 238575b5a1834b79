//! Handler tests' wiring (feature `test-support`): every table in memory
//! ([`MemoryStores`]), the outside services faked (`contracts`' recording gateway,
//! GameLift and matchmaker, an in-process bus), a manual clock. A test builds its
//! function's handler with the function's own `wire`, as Lambda and the local stack do:
//! `crate::wire(&world.wiring())`. A test that needs one port to fail (or to answer as
//! it scripts) replaces just that port ([`TestWiring::replace`]); the rest stay wired.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::Arc;

use contracts::fake_gamelift::FakeGameLift;
use contracts::fake_matchmaker::FakeMatchmaker;
use contracts::fixtures::T0;
use contracts::recording_gateway::RecordingGateway;
use shared::config::Config;
use shared::matchmaking::{MatchmakingSettings, TicketPushes};
use shared::party::CommitScope;
use shared::ports::{
    ConnectionGateway, ConnectionProbe, Connections, DeliveryHandover, EventBus, InboxReader,
    ManualClock, Matchmaker, MessageStore, OfflineParties, PartyCommits, PartyReader, PartySlots,
    PendingSlots, PlacementOutcomes, PlacementReader, PlacementRecorder, PlacementStarter,
    PlacementStopper, PlayerConnections, PlayerLookup, PlayerReader, PlayerSessions, PresenceSweep,
    Profiles, RateLimiter, Seats, Subscriptions, TicketChanges, TicketReader, TicketRecorder,
    Watchers,
};
use shared::wiring::{Services, Stores, Wiring};

use crate::{InMemoryMessageStore, InProcessEventBus, MemoryStores};

/// The Parties table's shards in tests (as the local stack's default).
const SHARDS: u32 = 4;

/// One test's world: tables, fakes, clock and configuration, and the ports a test
/// replaced. Change `config` or `matchmaking` before [`Self::wiring`].
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
        Self {
            config: Config::for_local("Development"),
            matchmaking: MatchmakingSettings::default(),
            clock: ManualClock::at(T0),
            tables: MemoryStores::new(messages, SHARDS),
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
    fn rate_limiter(&self) -> Arc<dyn RateLimiter> {
        self.replaced.or(|| self.tables.rate_limiter())
    }
    fn inboxes(&self) -> Arc<dyn MessageStore> {
        self.replaced.or(|| self.tables.inboxes())
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
        self.replaced.or(|| self.gateway.clone())
    }
    fn connection_probe(&self) -> Arc<dyn ConnectionProbe> {
        self.replaced.or(|| self.gateway.clone())
    }
    fn event_bus(&self) -> Arc<dyn EventBus> {
        self.replaced.or(|| self.bus.clone())
    }
    fn placement_starter(&self) -> Arc<dyn PlacementStarter> {
        self.replaced.or(|| self.gamelift.clone())
    }
    fn placement_stopper(&self) -> Arc<dyn PlacementStopper> {
        self.replaced.or(|| self.gamelift.clone())
    }
    fn player_sessions(&self) -> Arc<dyn PlayerSessions> {
        self.replaced.or(|| self.gamelift.clone())
    }
    fn player_connections(&self) -> Arc<dyn PlayerConnections> {
        self.replaced.or(|| self.gamelift.clone())
    }
    fn matchmaker(&self) -> Arc<dyn Matchmaker> {
        self.replaced.or(|| self.matchmaker.clone())
    }
}
