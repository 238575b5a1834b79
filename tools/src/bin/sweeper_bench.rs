//! The presence sweeper against DynamoDB (Local, or any endpoint): writes N online
//! players whose heartbeat deadline has passed (zombies), runs one sweep of the real
//! `presence-timeout` handler, and prints the time, players swept, players per second
//! and the round trips it took.
//!
//!     cargo run --release -p tools --bin sweeper_bench -- \
//!         --dynamodb-endpoint http://127.0.0.1:8000 --players 10000
//!
//! DynamoDB calls are counted by an SDK interceptor (every HTTP attempt, retries
//! included). The socket closes go to a counting no-op gateway, and the events to the
//! in-process bus, which counts the PutEvents calls EventBridge would take (10 entries
//! per call, as the EventBridge adapter batches them).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use aws_adapters::call_counter::CallCounter;
use aws_adapters::dynamodb::{
    DynamoPartyStore, DynamoPlayerStore, client_for_endpoint, create_messages_table,
    create_parties_table, create_players_table,
};
use clap::Parser;
use futures_util::StreamExt;
use futures_util::stream;
use memory_adapters::test_wiring::TestWiring;
use shared::config::Config;
use shared::domain::{ConnectionId, PlayerId};
use shared::players::NewConnection;
use shared::ports::{
    Clock, ConnectionGateway, Connections, GatewayError, OfflineParties, PartyCommits, PartyReader,
    PresenceSweep, SystemClock,
};

#[derive(Parser, Debug)]
#[command(about = "Benchmarks one presence sweep against DynamoDB")]
struct Args {
    /// DynamoDB (Local) endpoint.
    #[arg(long, env = "DYNAMODB_ENDPOINT")]
    dynamodb_endpoint: String,
    /// Expired players to write and sweep.
    #[arg(long, default_value_t = 10_000)]
    players: usize,
    /// Partitions of the BySweepShard index (PRESENCE_SHARDS).
    #[arg(long, default_value_t = 4)]
    shards: u32,
    /// Players the sweeper marks offline at once.
    #[arg(long, default_value_t = presence_timeout::DEFAULT_CONCURRENCY)]
    concurrency: usize,
    /// Connects in flight while writing the players.
    #[arg(long, default_value_t = 64)]
    setup_concurrency: usize,
}

/// Closes nothing; counts the DeleteConnection calls a real gateway would make.
#[derive(Default)]
struct CountingGateway {
    deletes: AtomicUsize,
}

#[async_trait]
impl ConnectionGateway for CountingGateway {
    async fn post(&self, _: &str, _: &ConnectionId, _: &[u8]) -> Result<(), GatewayError> {
        Ok(())
    }

    async fn delete(&self, _: &str, _: &ConnectionId) -> Result<(), GatewayError> {
        self.deletes.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let args = Args::parse();
    let client = client_for_endpoint(&args.dynamodb_endpoint).await;
    let table = format!("sweeper-bench-{}", SystemClock.now_millis());
    create_players_table(&client, &table).await?;
    // The parties' side of the sweep (one Query per shard here: no party) is on a client
    // of its own, not counted: the bench measures the players' side.
    let parties_table = format!("{table}-parties");
    let messages_table = format!("{table}-messages");
    create_parties_table(&client, &parties_table).await?;
    create_messages_table(&client, &messages_table).await?;

    // Setup: N players online since 10 minutes ago, so their 90 s deadline has passed.
    let setup = DynamoPlayerStore::new(client.clone(), table.clone());
    let now = SystemClock.now_millis();
    let connected_at = now - 600_000;
    let started = Instant::now();
    let results: Vec<Result<(), shared::ports::StoreError>> = stream::iter(0..args.players)
        .map(|i| {
            let setup = &setup;
            let shards = args.shards;
            async move {
                let player_id = PlayerId::parse(format!("bench-{i:06}"))
                    .map_err(|e| shared::ports::StoreError::Other(Box::new(e)))?;
                let connection_id = ConnectionId::parse(format!("conn-{i:06}"))
                    .map_err(|e| shared::ports::StoreError::Other(Box::new(e)))?;
                setup
                    .connect(&NewConnection {
                        sweep_shard: player_id.sweep_shard(shards),
                        player_id,
                        connection_id,
                        endpoint: "https://bench.execute-api.us-east-1.amazonaws.com/Bench".into(),
                        connected_at: connected_at + i as i64,
                        now: connected_at + i as i64,
                        heartbeat_deadline: connected_at + i as i64 + 90_000,
                        expire_at_secs: now / 1000 + 86_400,
                    })
                    .await
                    .map(|_| ())
            }
        })
        .buffer_unordered(args.setup_concurrency.max(1))
        .collect()
        .await;
    results.into_iter().collect::<Result<Vec<()>, _>>()?;
    let setup_time = started.elapsed();

    // The sweep, every DynamoDB call counted.
    let counter = CallCounter::new();
    let counted = counter.counting(&client);
    let gateway = Arc::new(CountingGateway::default());
    let parties = Arc::new(DynamoPartyStore::new(
        client.clone(),
        parties_table.clone(),
        table.clone(),
        messages_table.clone(),
        args.shards,
    ));
    // The sweeper as its `wire` builds it, on the bench's tables and counting gateway.
    // Heartbeat liveness (the default): it never asks API Gateway.
    let mut world = TestWiring::new().at(SystemClock.now_millis());
    world.config = Config::for_local("Bench");
    world.config.presence_shards = args.shards;
    world
        .replace::<dyn PresenceSweep>(Arc::new(DynamoPlayerStore::new(counted, table.clone())))
        .replace::<dyn PartyReader>(parties.clone())
        .replace::<dyn PartyCommits>(parties.clone())
        .replace::<dyn OfflineParties>(parties)
        .replace::<dyn ConnectionGateway>(gateway.clone());
    let bus = world.bus.clone();
    let sweeper = presence_timeout::wire(&world.wiring()).with_concurrency(args.concurrency);
    let started = Instant::now();
    let summary = sweeper.sweep_once(SystemClock.now_millis()).await;
    let sweep_time = started.elapsed();
    let calls = counter.take();

    // Nothing is left for a second sweep.
    let again = sweeper.sweep_once(SystemClock.now_millis()).await;
    for name in [&table, &parties_table, &messages_table] {
        let _ = client.delete_table().table_name(name).send().await;
    }

    let dynamodb_calls: u64 = calls.values().sum();
    let put_events = bus.put_events_calls() as u64;
    let deletes = gateway.deletes.load(Ordering::Relaxed) as u64;
    let round_trips = dynamodb_calls + put_events + deletes;
    let per_second = summary.swept as f64 / sweep_time.as_secs_f64().max(f64::EPSILON);
    println!("sweeper benchmark against {}", args.dynamodb_endpoint);
    println!(
        "players: {}  shards: {}  concurrency: {}  page size: {}",
        args.players,
        args.shards,
        args.concurrency,
        presence_timeout::PAGE_SIZE
    );
    println!(
        "setup (connects, {} in flight): {}",
        args.setup_concurrency,
        secs(setup_time)
    );
    println!("sweep time: {}", secs(sweep_time));
    println!(
        "swept: {}  zombies closed: {}  failed: {}  stopped early: {}",
        summary.swept, summary.zombies_closed, summary.failed, summary.stopped_early
    );
    println!("players/s: {per_second:.0}");
    let per_operation: Vec<String> = calls.iter().map(|(op, n)| format!("{n} {op}")).collect();
    println!(
        "round trips: {round_trips} = {} (DynamoDB) + {put_events} PutEvents + {deletes} DeleteConnection",
        per_operation.join(" + ")
    );
    println!(
        "round trips per player: {:.3}",
        round_trips as f64 / summary.swept.max(1) as f64
    );
    println!("second sweep: swept {}", again.swept);
    if summary.swept != args.players || again.swept != 0 || summary.failed != 0 {
        return Err(format!(
            "expected {} swept and nothing left; got {summary:?}, then {again:?}",
            args.players
        )
        .into());
    }
    Ok(())
}

fn secs(duration: Duration) -> String {
    format!("{:.3} s", duration.as_secs_f64())
}
