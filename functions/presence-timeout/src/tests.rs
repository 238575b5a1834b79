use std::sync::atomic::AtomicI64;

use async_trait::async_trait;
use contracts::events::parse_event;
use contracts::recording_gateway::{GatewayCall, RecordingGateway};
use memory_adapters::test_wiring::TestWiring;
use memory_adapters::{
    InMemoryMessageStore, InMemoryPartyStore, InMemoryPlayerStore, InProcessEventBus,
};
use serde_json::json;
use shared::domain::{ConnectionId, PlayerId};
use shared::players::NewConnection;
use shared::ports::{ConnectionInfo, ManualClock};
use shared::presence::PresenceChange;

use shared::party::{CommitScope, Parties};

use super::*;
use contracts::ports::*;

const T0: i64 = 1_795_323_600_000;
const HEARTBEAT: i64 = 90_000;
const GRACE: i64 = 30_000;

fn p(name: &str) -> PlayerId {
    PlayerId::parse(name).unwrap()
}

fn conn(player: &str) -> ConnectionId {
    ConnectionId::parse(format!("c-{player}")).unwrap()
}

fn endpoint() -> String {
    "https://abcdef1234.execute-api.us-east-1.amazonaws.com/Development".into()
}

struct World {
    config: Arc<Config>,
    players: Arc<InMemoryPlayerStore>,
    messages: Arc<InMemoryMessageStore>,
    parties: Arc<InMemoryPartyStore>,
    gateway: Arc<RecordingGateway>,
    bus: Arc<InProcessEventBus>,
    clock: ManualClock,
    wiring: TestWiring,
}

impl World {
    fn new(shards: u32) -> Self {
        Self::with_liveness(shards, PresenceLiveness::Heartbeat)
    }

    fn with_liveness(shards: u32, liveness: PresenceLiveness) -> Self {
        let mut w = TestWiring::sharded(shards).at(T0);
        w.config.presence_liveness = liveness;
        Self {
            config: Arc::new(w.config.clone()),
            players: w.tables.players.clone(),
            messages: w.tables.messages.clone(),
            parties: w.tables.parties.clone(),
            gateway: w.gateway.clone(),
            bus: w.bus.clone(),
            clock: w.clock.clone(),
            wiring: w,
        }
    }

    fn handler(&self) -> PresenceTimeoutHandler {
        wire(&self.wiring.wiring())
    }

    /// The sweeper on `gateway`, asking it about sockets in the connection-activity
    /// mode (`wire` decides).
    fn handler_with<G: ConnectionGateway + ConnectionProbe + 'static>(
        &self,
        gateway: Arc<G>,
    ) -> PresenceTimeoutHandler {
        let mut w = self.wiring.clone();
        w.replace::<dyn ConnectionGateway>(gateway.clone())
            .replace::<dyn ConnectionProbe>(gateway);
        wire(&w.wiring())
    }

    /// `player` connects at `at` (heartbeat deadline `at + 90 s`).
    async fn connect(&self, player: &str, at: i64) {
        let player_id = p(player);
        self.players
            .connect(&NewConnection {
                sweep_shard: player_id.sweep_shard(self.config.presence_shards),
                player_id,
                connection_id: conn(player),
                endpoint: endpoint(),
                connected_at: at,
                now: at,
                heartbeat_deadline: at + HEARTBEAT,
                expire_at_secs: 0,
            })
            .await
            .unwrap();
    }

    /// Connects `count` players, `<prefix>000` on, the `i`th at `at(i)`.
    async fn connect_many(&self, prefix: &str, count: i64, at: impl Fn(i64) -> i64) {
        for i in 0..count {
            self.connect(&format!("{prefix}{i:03}"), at(i)).await;
        }
    }

    async fn disconnect(&self, player: &str, at: i64) {
        assert!(
            self.players
                .disconnect(&p(player), &conn(player), at, at + GRACE)
                .await
                .unwrap()
        );
    }

    async fn status(&self, player: &str) -> PresenceStatus {
        self.players.get(&p(player)).await.unwrap().unwrap().status
    }

    /// Players the bus was told went offline, sorted.
    fn disconnected(&self) -> Vec<String> {
        let mut players: Vec<String> = self
            .bus
            .published()
            .iter()
            .map(|e| {
                assert_eq!(e.kind, PresenceChange::Disconnected);
                e.player_id.to_string()
            })
            .collect();
        players.sort();
        players
    }
}

#[tokio::test]
async fn given_alice_online_without_a_heartbeat_when_sweeping_then_she_goes_offline_her_socket_closes_and_watchers_are_told()
 {
    let w = World::new(4);
    w.connect("alice", T0 - HEARTBEAT - 1).await;
    let summary = w.handler().sweep_once(T0).await;
    assert_eq!(
        summary,
        SweepSummary {
            swept: 1,
            zombies_closed: 1,
            still_active: 0,
            removed_from_parties: 0,
            stopped_early: false,
            failed: 0
        }
    );
    assert_eq!(w.status("alice").await, PresenceStatus::Offline);
    assert_eq!(
        w.gateway.calls(),
        vec![
            // In heartbeat mode the deadline alone decides: API Gateway is not asked.
            GatewayCall::Post {
                endpoint: endpoint(),
                connection: "c-alice".into(),
                data: r#"{"type":"disconnected","reason":"heartbeat_timeout"}"#.into(),
            },
            GatewayCall::Delete {
                endpoint: endpoint(),
                connection: "c-alice".into()
            }
        ]
    );
    assert_eq!(
        w.bus.published(),
        vec![PresenceEvent::disconnected(p("alice"), T0)]
    );
}

#[tokio::test]
async fn given_a_disconnected_player_past_grace_then_offline_and_told_with_no_socket_to_close() {
    let w = World::new(4);
    w.connect("alice", T0 - 60_000).await;
    w.disconnect("alice", T0 - GRACE - 1).await;
    let summary = w.handler().sweep_once(T0).await;
    assert_eq!((summary.swept, summary.zombies_closed), (1, 0));
    assert_eq!(w.status("alice").await, PresenceStatus::Offline);
    assert!(w.gateway.calls().is_empty());
    assert_eq!(w.disconnected(), vec!["alice"]);
}

#[tokio::test]
async fn given_players_in_grace_or_within_their_heartbeat_deadline_then_they_are_left_alone() {
    let w = World::new(4);
    w.connect("alice", T0 - HEARTBEAT).await; // deadline exactly now: not before now
    w.connect("bob", T0 - 60_000).await;
    w.disconnect("bob", T0 - GRACE + 1).await; // grace ends 1 ms from now
    let summary = w.handler().sweep_once(T0).await;
    assert_eq!(summary, SweepSummary::default());
    assert_eq!(w.status("alice").await, PresenceStatus::Online);
    assert_eq!(w.status("bob").await, PresenceStatus::Disconnected);
    assert!(w.bus.published().is_empty());
    assert_eq!(w.bus.put_events_calls(), 0, "nothing to publish is no call");
}

#[tokio::test]
async fn given_a_player_who_heartbeats_every_second_then_every_sweep_leaves_them_online() {
    let w = World::new(1);
    let mut now = T0;
    w.connect("alice", now).await;
    for _ in 0..200 {
        now += 1000;
        w.clock.set(now);
        assert_eq!(
            w.players
                .heartbeat(&p("alice"), &conn("alice"), now, now + HEARTBEAT, None)
                .await
                .unwrap(),
            shared::players::Liveness::Current
        );
        assert_eq!(w.handler().sweep_once(now).await.swept, 0);
    }
    assert_eq!(w.status("alice").await, PresenceStatus::Online);
}

/// Heartbeats `late` when the sweeper closes `zombie`'s socket: the heartbeat lands
/// after the sweeper listed `late` as expired and before it marks them offline.
struct HeartbeatDuringSweep {
    players: Arc<InMemoryPlayerStore>,
    zombie: ConnectionId,
    late: &'static str,
    at: i64,
}

#[async_trait]
impl ConnectionGateway for HeartbeatDuringSweep {
    async fn post(&self, _: &str, _: &ConnectionId, _: &[u8]) -> Result<(), GatewayError> {
        Ok(())
    }
    async fn delete(&self, _: &str, connection: &ConnectionId) -> Result<(), GatewayError> {
        if *connection == self.zombie {
            let late = p(self.late);
            let refreshed = self
                .players
                .heartbeat(&late, &conn(self.late), self.at, self.at + HEARTBEAT, None)
                .await
                .unwrap();
            assert_eq!(refreshed, shared::players::Liveness::Current);
        }
        Ok(())
    }
}

#[async_trait]
impl ConnectionProbe for HeartbeatDuringSweep {
    async fn get(&self, _: &str, _: &ConnectionId) -> Result<ConnectionInfo, GatewayError> {
        Err(GatewayError::Gone)
    }
}

#[tokio::test]
async fn given_a_heartbeat_that_lands_while_the_sweeper_acts_then_the_heartbeat_wins() {
    let w = World::new(1);
    // Both expired; alice's deadline passed first, so she is handled first.
    w.connect("alice", T0 - HEARTBEAT - 20).await;
    w.connect("bob", T0 - HEARTBEAT - 10).await;
    let gateway = Arc::new(HeartbeatDuringSweep {
        players: w.players.clone(),
        zombie: conn("alice"),
        late: "bob",
        at: T0,
    });
    let summary = w
        .handler_with(gateway)
        .with_concurrency(1)
        .sweep_once(T0)
        .await;
    assert_eq!((summary.swept, summary.failed), (1, 0));
    assert_eq!(w.status("alice").await, PresenceStatus::Offline);
    assert_eq!(w.status("bob").await, PresenceStatus::Online);
    assert_eq!(w.disconnected(), vec!["alice"]);
}

#[tokio::test]
async fn given_250_expired_players_across_4_shards_then_every_one_is_swept_and_told_once() {
    let w = World::new(4);
    w.connect_many("p", 250, |i| T0 - HEARTBEAT - 1000 + i)
        .await;
    let summary = w.handler().sweep_once(T0).await;
    assert_eq!(summary.swept, 250);
    assert_eq!(summary.zombies_closed, 250);
    let told = w.disconnected();
    assert_eq!(told.len(), 250);
    let mut distinct = told.clone();
    distinct.dedup();
    assert_eq!(distinct, told);
    assert_eq!(w.bus.put_events_calls(), 25, "ceil(250 / 10)");
    // A second sweep finds nothing left.
    assert_eq!(
        w.handler().sweep_once(T0 + 1).await,
        SweepSummary::default()
    );
}

/// Each socket close takes `step` ms of the (manual) clock; the most closes in
/// flight at once and the clock when each close starts are recorded. A zombie's
/// close follows its `mark_offline` with no clock change between (the in-memory
/// store never waits), so that is when the player's work started.
struct SlowGateway {
    clock: ManualClock,
    step: i64,
    in_flight: AtomicUsize,
    most: AtomicUsize,
    closes: AtomicI64,
    starts: std::sync::Mutex<Vec<i64>>,
}

impl SlowGateway {
    fn new(clock: ManualClock, step: i64) -> Self {
        Self {
            clock,
            step,
            in_flight: AtomicUsize::new(0),
            most: AtomicUsize::new(0),
            closes: AtomicI64::new(0),
            starts: std::sync::Mutex::new(Vec::new()),
        }
    }
}

#[async_trait]
impl ConnectionGateway for SlowGateway {
    async fn post(&self, _: &str, _: &ConnectionId, _: &[u8]) -> Result<(), GatewayError> {
        Ok(())
    }
    async fn delete(&self, _: &str, _: &ConnectionId) -> Result<(), GatewayError> {
        self.starts.lock().unwrap().push(self.clock.now_millis());
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.most.fetch_max(now, Ordering::SeqCst);
        tokio::time::sleep(Duration::from_millis(10)).await;
        self.clock.advance(self.step);
        self.closes.fetch_add(1, Ordering::SeqCst);
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
        Ok(())
    }
}

#[async_trait]
impl ConnectionProbe for SlowGateway {
    async fn get(&self, _: &str, _: &ConnectionId) -> Result<ConnectionInfo, GatewayError> {
        Err(GatewayError::Gone)
    }
}

#[tokio::test(start_paused = true)]
async fn given_many_zombies_then_at_most_the_concurrency_bound_are_handled_at_once() {
    let w = World::new(2);
    w.connect_many("z", 200, |_| T0 - HEARTBEAT - 1).await;
    let gateway = Arc::new(SlowGateway::new(w.clock.clone(), 0));
    let summary = w.handler_with(gateway.clone()).sweep_once(T0).await;
    assert_eq!(summary.swept, 200);
    assert_eq!(gateway.most.load(Ordering::SeqCst), DEFAULT_CONCURRENCY);
}

/// A scheduled invocation whose deadline is `deadline` (epoch ms).
fn scheduled(deadline: i64) -> LambdaEvent<EventBridgeEvent<Value>> {
    let mut event = parse_event(
        serde_json::from_str(include_str!(
            "../../../events/schedule-presence-timeout.json"
        ))
        .unwrap(),
    );
    event.context.deadline = deadline as u64;
    event
}

#[tokio::test(start_paused = true)]
async fn given_the_deadline_near_mid_page_when_sweeping_then_no_new_player_is_started_and_the_next_run_finishes()
 {
    let w = World::new(1);
    w.connect_many("z", 250, |i| T0 - HEARTBEAT - 1000 + i)
        .await;
    // One player at a time, each close taking 1 s of the clock; the deadline is 3 s
    // (margin) + 10.5 s away. Players start at T0, T0 + 1 s, …, T0 + 10 s: 11 of
    // them, all in the first page of 100. The 12th would start at T0 + 11 s, past
    // the margin, so it and the rest of the page are left alone.
    let gateway = Arc::new(SlowGateway::new(w.clock.clone(), 1000));
    let handler = w.handler_with(gateway.clone()).with_concurrency(1);
    let summary = handler.handle(scheduled(T0 + 13_500)).await.unwrap();
    assert_eq!(
        summary,
        SweepSummary {
            swept: 11,
            zombies_closed: 11,
            still_active: 0,
            removed_from_parties: 0,
            stopped_early: true,
            failed: 0
        }
    );
    assert_eq!(gateway.closes.load(Ordering::SeqCst), 11);
    assert_eq!(w.disconnected().len(), 11);
    // The players not reached are untouched, still in the index for the next run.
    assert_eq!(w.status("z011").await, PresenceStatus::Online);
    let left = w.players.expired(0, T0, 1000, None).await.unwrap().players;
    assert_eq!(left.len(), 239);

    let next_run = w.clock.now_millis() + 60_000;
    w.clock.set(next_run);
    let summary = w
        .handler_with(gateway)
        .handle(scheduled(next_run + 1_000_000))
        .await
        .unwrap();
    assert_eq!((summary.swept, summary.stopped_early), (239, false));
    assert_eq!(w.disconnected().len(), 250);
}

#[tokio::test(start_paused = true)]
async fn given_concurrent_work_when_the_deadline_margin_is_reached_then_nothing_starts_after_it() {
    let w = World::new(2);
    w.connect_many("z", 250, |_| T0 - HEARTBEAT - 1).await;
    // 32 at once (the default), each close 100 ms of the clock; stop at T0 + 5 s.
    let gateway = Arc::new(SlowGateway::new(w.clock.clone(), 100));
    let stop_at = T0 + 5_000;
    let summary = w
        .handler_with(gateway.clone())
        .handle(scheduled(stop_at + 3_000))
        .await
        .unwrap();
    let starts = gateway.starts.lock().unwrap().clone();
    assert!(summary.stopped_early);
    assert!(summary.swept < 250, "{summary:?}");
    assert_eq!(
        starts.len(),
        summary.swept,
        "every player started was finished"
    );
    assert!(
        starts.iter().all(|&at| at < stop_at),
        "a player was started at or after the margin: {starts:?}"
    );
    let mut left = 0;
    for shard in 0..2 {
        left += w
            .players
            .expired(shard, T0, 1000, None)
            .await
            .unwrap()
            .players
            .len();
    }
    assert_eq!(left, 250 - summary.swept, "the rest stays in the index");
}

#[tokio::test]
async fn given_connection_activity_mode_when_a_silent_zombie_is_swept_then_api_gateway_is_asked_first()
 {
    let w = World::with_liveness(4, PresenceLiveness::ConnectionActivity);
    w.connect("alice", T0 - HEARTBEAT - 1).await;
    let summary = w.handler().sweep_once(T0).await;
    assert_eq!((summary.swept, summary.zombies_closed), (1, 1));
    assert_eq!(
        w.gateway.calls().first(),
        // Was the socket active since (a `ping`)? API Gateway knows no activity.
        Some(&GatewayCall::Get {
            endpoint: endpoint(),
            connection: "c-alice".into(),
        })
    );
}

#[tokio::test]
async fn given_heartbeat_mode_when_a_socket_api_gateway_saw_active_is_past_its_deadline_then_it_is_swept()
 {
    // Given: the socket looks active to API Gateway (pushes, say), but sent no heartbeat.
    let w = World::new(4);
    w.connect("alice", T0 - HEARTBEAT - 1).await;
    w.gateway.set_last_active("c-alice", T0 - 5_000);

    // When / Then: the deadline alone decides.
    let summary = w.handler().sweep_once(T0).await;
    assert_eq!((summary.swept, summary.still_active), (1, 0));
    assert_eq!(w.status("alice").await, PresenceStatus::Offline);
}

#[tokio::test]
async fn given_alice_past_her_deadline_but_pinging_when_sweeping_then_she_stays_online_until_she_goes_silent()
 {
    // Given: connection-activity mode; no heartbeat moved her deadline, but her socket
    // sent a ping 5 s ago.
    let w = World::with_liveness(4, PresenceLiveness::ConnectionActivity);
    w.connect("alice", T0 - HEARTBEAT - 1).await;
    w.gateway.set_last_active("c-alice", T0 - 5_000);

    // When / Then: she is active, untouched, and watchers hear nothing.
    let summary = w.handler().sweep_once(T0).await;
    assert_eq!((summary.swept, summary.still_active), (0, 1));
    assert_eq!(w.status("alice").await, PresenceStatus::Online);
    assert!(w.bus.published().is_empty());

    // When her pings stop for the timeout, the next sweep takes her offline.
    let later = T0 - 5_000 + HEARTBEAT + 1;
    let summary = w.handler().sweep_once(later).await;
    assert_eq!((summary.swept, summary.still_active), (1, 0));
    assert_eq!(w.status("alice").await, PresenceStatus::Offline);
}

#[tokio::test]
async fn given_a_zombie_socket_already_gone_then_it_counts_as_closed() {
    let w = World::new(4);
    w.connect("alice", T0 - HEARTBEAT - 1).await;
    w.gateway.mark_gone("c-alice");
    let summary = w.handler().sweep_once(T0).await;
    assert_eq!((summary.swept, summary.zombies_closed), (1, 1));
}

#[tokio::test]
async fn given_a_zombie_socket_that_cannot_be_closed_then_the_player_is_still_offline_and_told() {
    let w = World::new(4);
    w.connect("alice", T0 - HEARTBEAT - 1).await;
    w.gateway.throttle_deletes("c-alice");
    let summary = w.handler().sweep_once(T0).await;
    assert_eq!(
        (summary.swept, summary.zombies_closed, summary.failed),
        (1, 0, 0)
    );
    assert_eq!(w.disconnected(), vec!["alice"]);
}

#[tokio::test]
async fn given_the_bus_down_then_players_still_go_offline_and_the_invocation_fails_for_alarms() {
    let w = World::new(4);
    w.connect("alice", T0 - HEARTBEAT - 1).await;
    w.connect("bob", T0 - HEARTBEAT - 1).await;
    w.bus.set_failing(true);
    let error = w.handler().handle(scheduled(0)).await.unwrap_err();
    assert!(error.to_string().contains("2 failures"), "{error}");
    assert_eq!(w.status("alice").await, PresenceStatus::Offline);
    assert_eq!(w.status("bob").await, PresenceStatus::Offline);
}

#[tokio::test]
async fn the_sample_schedule_event_sweeps_and_returns_the_summary() {
    let w = World::new(4);
    w.connect("alice", T0 - HEARTBEAT - 1).await;
    w.connect("bob", T0 - 60_000).await;
    w.disconnect("bob", T0 - GRACE - 1).await;
    w.connect("carol", T0).await;
    // No deadline in a hand-made context: the sweep runs to the end.
    let summary = w.handler().handle(scheduled(0)).await.unwrap();
    assert_eq!(
        serde_json::to_value(summary).unwrap(),
        json!({"swept": 2, "zombiesClosed": 1, "stillActive": 0, "removedFromParties": 0,
               "stoppedEarly": false, "failed": 0})
    );
    assert_eq!(w.disconnected(), vec!["alice", "bob"]);
    assert_eq!(w.status("carol").await, PresenceStatus::Online);
}

mod parties {
    use super::*;
    use shared::messaging::ReplayFrom;

    use shared::party::{Party, PartyId};

    const OFFLINE: i64 = 120_000;

    impl World {
        fn service(&self) -> Parties {
            self.wiring.wiring().parties(CommitScope::Any)
        }

        /// A party led by `names[0]`, everyone connected at `at`.
        async fn party_of(&self, names: &[&str], at: i64) -> Party {
            for name in names {
                self.connect(name, at).await;
            }
            self.wiring.party_of(names, 10, at).await
        }

        async fn party(&self) -> Option<Party> {
            self.parties
                .get(&PartyId::parse("party-1").unwrap())
                .await
                .unwrap()
        }

        /// The last party frame in `name`'s inbox.
        async fn last_party_frame(&self, name: &str) -> Value {
            let inbox = self
                .messages
                .read(&p(name), &ReplayFrom::EVERYTHING, T0 + 10 * OFFLINE)
                .await
                .unwrap();
            let last = inbox.messages.last().expect("a frame");
            serde_json::from_str(&last.payload).unwrap()
        }
    }

    #[tokio::test]
    async fn given_a_party_member_swept_offline_then_the_party_shows_them_offline_and_every_member_is_told()
     {
        let w = World::new(4);
        w.party_of(&["alice", "bob"], T0 - 1_000).await;
        w.disconnect("bob", T0 - GRACE - 10).await;
        let summary = w.handler().sweep_once(T0).await;
        assert_eq!(summary.swept, 1);
        assert_eq!(summary.removed_from_parties, 0);
        assert_eq!(summary.failed, 0);
        let party = w.party().await.unwrap();
        assert_eq!(party.members.len(), 2, "still a member");
        assert_eq!(party.offline_since(), Some(T0));
        for name in ["alice", "bob"] {
            let frame = w.last_party_frame(name).await;
            assert_eq!(frame["change"], "presence", "{name}");
            assert_eq!(frame["playerId"], "bob", "{name}");
            assert_eq!(
                frame["party"]["members"][1]["presence"], "offline",
                "{name}"
            );
        }
    }

    #[tokio::test]
    async fn given_a_member_offline_past_the_party_limit_when_sweeping_then_they_are_removed_and_the_others_told_left()
     {
        let w = World::new(4);
        w.party_of(&["alice", "bob", "carol"], T0 - 1_000).await;
        // alice, the leader, drops and is swept offline at T0.
        w.disconnect("alice", T0 - GRACE - 10).await;
        w.handler().sweep_once(T0).await;
        // bob and carol keep their sockets alive (a reconnect moves the deadline too).
        for name in ["bob", "carol"] {
            w.connect(name, T0 + OFFLINE - 10).await;
        }
        // Not yet: one millisecond short of PARTY_OFFLINE_SECONDS.
        let early = w.handler().sweep_once(T0 + OFFLINE - 1).await;
        assert_eq!(early.removed_from_parties, 0);
        assert_eq!(w.party().await.unwrap().members.len(), 3);

        let summary = w.handler().sweep_once(T0 + OFFLINE).await;
        assert_eq!(summary.removed_from_parties, 1);
        let party = w.party().await.unwrap();
        assert_eq!(
            party.member_ids().map(PlayerId::as_str).collect::<Vec<_>>(),
            ["bob", "carol"]
        );
        assert_eq!(
            party.leader_id,
            p("bob"),
            "the longest-standing member leads"
        );
        assert_eq!(party.offline_since(), None);
        let frame = w.last_party_frame("carol").await;
        assert_eq!(frame["change"], "left");
        assert_eq!(frame["playerId"], "alice");
        let alice = w.players.get(&p("alice")).await.unwrap().unwrap();
        assert_eq!(alice.party_id, None, "her link goes with her");
        // Nothing left for the next sweep.
        let again = w.handler().sweep_once(T0 + OFFLINE + 1).await;
        assert_eq!(again.removed_from_parties, 0);
    }

    #[tokio::test]
    async fn given_every_member_offline_past_the_limit_then_the_party_is_disbanded() {
        let w = World::new(1);
        w.party_of(&["alice", "bob"], T0 - 1_000).await;
        w.disconnect("alice", T0 - GRACE - 10).await;
        w.disconnect("bob", T0 - GRACE - 10).await;
        w.handler().sweep_once(T0).await;
        let summary = w.handler().sweep_once(T0 + OFFLINE).await;
        assert_eq!(summary.removed_from_parties, 2);
        assert_eq!(w.party().await, None);
        assert_eq!(w.last_party_frame("bob").await["change"], "disbanded");
    }

    #[tokio::test]
    async fn given_a_member_back_online_before_the_limit_when_sweeping_then_they_stay() {
        let w = World::new(4);
        w.party_of(&["alice", "bob"], T0 - 1_000).await;
        w.disconnect("bob", T0 - GRACE - 10).await;
        w.handler().sweep_once(T0).await;
        // bob resumes (what `resume` does for a party member the sweeper took offline).
        w.connect("bob", T0 + 10).await;
        w.service()
            .set_presence(
                &PartyId::parse("party-1").unwrap(),
                &p("bob"),
                shared::party::MemberPresence::Online,
            )
            .await
            .unwrap();
        let summary = w.handler().sweep_once(T0 + OFFLINE).await;
        assert_eq!(summary.removed_from_parties, 0);
        assert_eq!(w.party().await.unwrap().members.len(), 2);
    }

    #[tokio::test]
    async fn given_every_member_of_a_party_swept_in_one_run_then_each_is_offline_in_it_and_nothing_fails()
     {
        let names = ["m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9"];
        let w = World::new(4);
        w.party_of(&names, T0 - 1_000).await;
        for name in names {
            w.disconnect(name, T0 - GRACE - 10).await;
        }
        let summary = w.handler().sweep_once(T0).await;
        assert_eq!(summary.swept, 10);
        assert_eq!(
            summary.failed, 0,
            "every party change lands, one after another"
        );
        let party = w.party().await.unwrap();
        assert!(
            party
                .members
                .iter()
                .all(|m| m.presence != shared::party::MemberPresence::Online),
            "{party:?}"
        );
        assert_eq!(
            party.version,
            10 + 10,
            "10 joins (the first a creation), 10 changes"
        );
    }
}
