//! The presence sweeper (`presence-timeout`) on the DynamoDB Players table, against
//! DynamoDB Local (`scripts/test.sh` starts it and sets `DYNAMODB_ENDPOINT`): the
//! `BySweepShard` index, the conditional `mark_offline` racing a heartbeat, and the round
//! trips a sweep costs.

use std::sync::Arc;

use async_trait::async_trait;
use aws_adapters::call_counter::CallCounter;
use aws_adapters::dynamodb::{DynamoPartyStore, DynamoPlayerStore};
use contracts::ports::*;
use contracts::recording_gateway::{GatewayCall, RecordingGateway};
use memory_adapters::InProcessEventBus;
use memory_adapters::test_wiring::TestWiring;
use presence_timeout::{PresenceTimeoutHandler, SweepSummary};
use shared::config::{Config, PresenceLiveness};
use shared::domain::{ConnectionId, PlayerId, PresenceStatus};
use shared::players::NewConnection;
use shared::ports::{
    ConnectionGateway, ConnectionInfo, ConnectionProbe, GatewayError, OfflineParties, PartyCommits,
    PartyReader, PresenceSweep,
};
use shared::presence::PresenceChange;
use tests::dynamodb::{Table, dynamodb_local};

const T0: i64 = 1_795_323_600_000;
const HEARTBEAT: i64 = 90_000;
const GRACE: i64 = 30_000;
const ENDPOINT: &str = "https://abcdef1234.execute-api.us-east-1.amazonaws.com/Development";

fn p(name: &str) -> PlayerId {
    PlayerId::parse(name).unwrap()
}

fn conn(player: &str) -> ConnectionId {
    ConnectionId::parse(format!("c-{player}")).unwrap()
}

struct World {
    config: Arc<Config>,
    players: Arc<DynamoPlayerStore>,
    /// The heartbeat route, on the counted client.
    heartbeats: Arc<tests::heartbeats::TemplateHeartbeats>,
    /// On a client of its own: the counts here are the players' side of a sweep.
    parties: Arc<DynamoPartyStore>,
    counter: CallCounter,
    bus: Arc<InProcessEventBus>,
}

impl World {
    /// A fresh Players table; every call the sweeper makes is counted.
    async fn new(shards: u32) -> Self {
        Self::with_liveness(shards, PresenceLiveness::Heartbeat).await
    }

    async fn with_liveness(shards: u32, liveness: PresenceLiveness) -> Self {
        let client = dynamodb_local().await;
        let table = Table::Players.fresh(&client).await;
        let counter = CallCounter::new();
        let counted = counter.counting(&client);
        let mut config = Config::for_local("Development");
        config.presence_shards = shards;
        config.presence_liveness = liveness;
        let parties = Arc::new(DynamoPartyStore::new(
            client.clone(),
            Table::Parties.fresh(&client).await,
            table.clone(),
            Table::Messages.fresh(&client).await,
            shards,
        ));
        Self {
            config: Arc::new(config),
            parties,
            players: Arc::new(DynamoPlayerStore::new(counted.clone(), table.clone())),
            heartbeats: Arc::new(tests::heartbeats::TemplateHeartbeats::new(counted, table)),
            counter,
            bus: Arc::new(InProcessEventBus::new()),
        }
    }

    /// The sweeper as `presence_timeout::wire` builds it (it asks API Gateway about a
    /// socket only in connection-activity mode), on this world's tables and `gateway`.
    fn sweeper<G: ConnectionGateway + ConnectionProbe + 'static>(
        &self,
        gateway: Arc<G>,
    ) -> PresenceTimeoutHandler {
        let mut world = TestWiring::new().at(T0);
        world.config = Config::clone(&self.config);
        world.bus = self.bus.clone();
        world
            .replace::<dyn PresenceSweep>(self.players.clone())
            .replace::<dyn PartyReader>(self.parties.clone())
            .replace::<dyn PartyCommits>(self.parties.clone())
            .replace::<dyn OfflineParties>(self.parties.clone())
            .replace::<dyn ConnectionGateway>(gateway.clone())
            .replace::<dyn ConnectionProbe>(gateway);
        presence_timeout::wire(&world.wiring())
    }

    async fn connect(&self, player: &str, at: i64) {
        let player_id = p(player);
        self.players
            .connect(&NewConnection {
                sweep_shard: player_id.sweep_shard(self.config.presence_shards),
                player_id,
                connection_id: conn(player),
                endpoint: ENDPOINT.into(),
                connected_at: at,
                now: at,
                heartbeat_deadline: at + HEARTBEAT,
                expire_at_secs: at / 1000 + 86_400,
            })
            .await
            .unwrap();
    }

    async fn status(&self, player: &str) -> PresenceStatus {
        self.players.get(&p(player)).await.unwrap().unwrap().status
    }

    fn disconnected(&self) -> Vec<String> {
        let mut players: Vec<String> = self
            .bus
            .published()
            .iter()
            .map(|e| {
                assert_eq!(e.kind, PresenceChange::Disconnected);
                assert_eq!(e.at, T0);
                e.player_id.to_string()
            })
            .collect();
        players.sort();
        players
    }
}

#[tokio::test]
async fn given_zombies_players_past_grace_and_live_players_when_sweeping_then_only_the_expired_go_offline()
 {
    let w = World::new(4).await;
    w.connect("zombie", T0 - HEARTBEAT - 1).await;
    w.connect("gone", T0 - 60_000).await;
    assert!(
        w.players
            .disconnect(&p("gone"), &conn("gone"), T0 - GRACE - 5, T0 - 5)
            .await
            .unwrap()
    );
    w.connect("resting", T0 - 60_000).await;
    assert!(
        w.players
            .disconnect(&p("resting"), &conn("resting"), T0 - 10, T0 - 10 + GRACE)
            .await
            .unwrap()
    );
    w.connect("alive", T0 - 1000).await;
    w.counter.take();

    let gateway = Arc::new(RecordingGateway::new());
    let summary = w.sweeper(gateway.clone()).sweep_once(T0).await;
    let calls = w.counter.take();
    assert_eq!(
        summary,
        SweepSummary {
            swept: 2,
            zombies_closed: 1,
            still_active: 0,
            removed_from_parties: 0,
            stopped_early: false,
            failed: 0
        }
    );
    assert_eq!(w.status("zombie").await, PresenceStatus::Offline);
    assert_eq!(w.status("gone").await, PresenceStatus::Offline);
    assert_eq!(w.status("resting").await, PresenceStatus::Disconnected);
    assert_eq!(w.status("alive").await, PresenceStatus::Online);
    assert_eq!(
        gateway.calls(),
        vec![
            GatewayCall::Post {
                endpoint: ENDPOINT.into(),
                connection: "c-zombie".into(),
                data: r#"{"type":"disconnected","reason":"heartbeat_timeout"}"#.into(),
            },
            GatewayCall::Delete {
                endpoint: ENDPOINT.into(),
                connection: "c-zombie".into()
            }
        ]
    );
    assert_eq!(w.disconnected(), vec!["gone", "zombie"]);
    // One Query per shard (nothing pages), one BatchGetItem per shard that tracks
    // someone (their sweepAt), one UpdateItem per expired player.
    let tracked_shards: std::collections::BTreeSet<u32> = ["zombie", "gone", "resting", "alive"]
        .iter()
        .map(|name| p(name).sweep_shard(4))
        .collect();
    assert_eq!(calls.get("Query"), Some(&4), "{calls:?}");
    assert_eq!(
        calls.get("BatchGetItem"),
        Some(&(tracked_shards.len() as u64)),
        "{calls:?}"
    );
    assert_eq!(calls.get("UpdateItem"), Some(&2), "{calls:?}");
    assert_eq!(calls.len(), 3, "{calls:?}");
    // Offline players left the sparse index: the next sweep finds nothing.
    assert_eq!(
        w.sweeper(gateway).sweep_once(T0 + 1).await,
        SweepSummary::default()
    );
}

#[tokio::test]
async fn given_players_past_their_deadline_whose_sockets_ping_when_sweeping_then_they_stay_online_and_nothing_is_written()
 {
    // Given: both missed the heartbeat deadline in DynamoDB; `pinger`'s socket was
    // active 10 s ago (it sends `ping`, which writes nothing), `silent`'s not for longer
    // than the timeout, and `unknown`'s GetConnection fails (connection-activity mode).
    let w = World::with_liveness(1, PresenceLiveness::ConnectionActivity).await;
    for name in ["pinger", "silent", "unknown"] {
        w.connect(name, T0 - HEARTBEAT - 1).await;
    }
    w.counter.take();
    let gateway = Arc::new(RecordingGateway::new());
    gateway.set_last_active("c-pinger", T0 - 10_000);
    gateway.set_last_active("c-silent", T0 - HEARTBEAT - 1);
    gateway.throttle("c-unknown");

    // When
    let summary = w.sweeper(gateway.clone()).sweep_once(T0).await;

    // Then: the pinger stays online, untouched; the silent one is swept; the one API
    // Gateway could not answer about is left for the next sweep (a failure, not a sweep).
    let calls = w.counter.take();
    assert_eq!(
        (summary.swept, summary.still_active, summary.failed),
        (1, 1, 1),
        "{summary:?}"
    );
    assert_eq!(w.status("pinger").await, PresenceStatus::Online);
    assert_eq!(w.status("silent").await, PresenceStatus::Offline);
    assert_eq!(w.status("unknown").await, PresenceStatus::Online);
    assert_eq!(
        calls.get("UpdateItem"),
        Some(&1),
        "only the silent one: {calls:?}"
    );
    let asked = gateway
        .calls()
        .iter()
        .filter(|c| matches!(c, GatewayCall::Get { .. }))
        .count();
    assert_eq!(
        asked, 3,
        "one GetConnection per online player past its deadline"
    );
    assert_eq!(w.disconnected(), vec!["silent"]);
}

/// Heartbeats `late` when the sweeper closes `zombie`'s socket: after the sweeper
/// listed `late` as expired, before its conditional write on `late`.
struct HeartbeatDuringSweep {
    heartbeats: Arc<tests::heartbeats::TemplateHeartbeats>,
    zombie: ConnectionId,
    late: &'static str,
}

#[async_trait]
impl ConnectionGateway for HeartbeatDuringSweep {
    async fn post(&self, _: &str, _: &ConnectionId, _: &[u8]) -> Result<(), GatewayError> {
        Ok(())
    }
    async fn delete(&self, _: &str, connection: &ConnectionId) -> Result<(), GatewayError> {
        if *connection == self.zombie {
            let refreshed = self
                .heartbeats
                .heartbeat(&p(self.late), &conn(self.late), T0, T0 + HEARTBEAT, None)
                .await
                .unwrap();
            assert_eq!(
                refreshed,
                shared::players::Liveness::Current,
                "the heartbeat lands"
            );
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
    let w = World::new(1).await;
    // Both expired; alice's deadline passed first, so the sweeper reaches her first.
    w.connect("alice", T0 - HEARTBEAT - 20).await;
    w.connect("bob", T0 - HEARTBEAT - 10).await;
    let gateway = Arc::new(HeartbeatDuringSweep {
        heartbeats: w.heartbeats.clone(),
        zombie: conn("alice"),
        late: "bob",
    });
    let summary = w.sweeper(gateway).with_concurrency(1).sweep_once(T0).await;
    assert_eq!((summary.swept, summary.failed), (1, 0));
    assert_eq!(w.status("alice").await, PresenceStatus::Offline);
    assert_eq!(w.status("bob").await, PresenceStatus::Online);
    assert_eq!(w.disconnected(), vec!["alice"]);
}

#[tokio::test]
async fn given_250_expired_players_in_one_shard_then_3_pages_and_one_write_each() {
    let w = World::new(1).await;
    for i in 0..250 {
        w.connect(&format!("p{i:03}"), T0 - HEARTBEAT - 1000 + i)
            .await;
    }
    w.counter.take();
    let summary = w
        .sweeper(Arc::new(RecordingGateway::new()))
        .sweep_once(T0)
        .await;
    assert_eq!((summary.swept, summary.zombies_closed), (250, 250));
    assert_eq!(w.disconnected().len(), 250);
    let calls = w.counter.take();
    assert_eq!(calls.get("Query"), Some(&3), "{calls:?}");
    assert_eq!(calls.get("UpdateItem"), Some(&250), "{calls:?}");
    assert_eq!(w.bus.put_events_calls(), 25, "ceil(250 / 10)");
}
