//! The monthly cost of a scenario, three designs side by side (docs/cost.md):
//!
//!     cargo run --release -q -p tools --bin cost -- --ccu 1000 --heartbeat-seconds 30 \
//!         --messages-per-player-minute 0.2 --placements-per-player-hour 1
//!
//! Operation counts come from `tools/data/operation-counts*.json` (measured by
//! `round_trips`), prices from `tools/data/prices-us-east-1.json`; both are compiled in,
//! and `--counts`, `--counts-before` and `--prices` read other files instead. The last
//! line is `presence ratio to seed: R`; before it, what (c)'s metrics, alarms and dashboard
//! cost (`tools::cost::observability`), by default and with `DetailedMetrics=true`.

use clap::Parser;
use tools::cost::{Line, Prices, Scenario, observability, presence_ratios, price_all, render};
use tools::counts::OperationCounts;

#[derive(Parser, Debug)]
#[command(
    about = "Monthly AWS cost of a scenario: the seed designs, this project before and after"
)]
struct Args {
    /// Concurrent players, all month.
    #[arg(long, default_value_t = 1000.0)]
    ccu: f64,
    /// Seconds between the heartbeats of the seed's clients and this project's before (c)
    /// ((c)'s clients send what resume's keepAlive says, from --heartbeat-timeout-seconds).
    #[arg(long, default_value_t = 30.0)]
    heartbeat_seconds: f64,
    /// HEARTBEAT_TIMEOUT_SECONDS, the offline-detection bound every design shares; (c)'s
    /// keepAlive interval comes from it.
    #[arg(long, default_value_t = 90.0)]
    heartbeat_timeout_seconds: f64,
    /// PRESENCE_LIVENESS of (c), whose column the table shows: heartbeat (every timer frame
    /// a heartbeat) or connection-activity (pings, and a heartbeat only with a newer cursor).
    /// The ratio to the seed is printed for both.
    #[arg(long, default_value_t = shared::config::DEFAULT_PRESENCE_LIVENESS)]
    presence_liveness: shared::config::PresenceLiveness,
    /// sendMessage frames per player per minute.
    #[arg(long, default_value_t = 0.2)]
    messages_per_player_minute: f64,
    /// Recipients per sendMessage.
    #[arg(long, default_value_t = 1.0)]
    recipients_per_message: f64,
    /// Placement requests per player per hour.
    #[arg(long, default_value_t = 1.0)]
    placements_per_player_hour: f64,
    /// Players each player watches (and is watched by, on average).
    #[arg(long, default_value_t = 5.0)]
    subscriptions_per_player: f64,
    /// Online friends each player has (each told of the player's presence changes
    /// without subscribing; 0 leaves friends out).
    #[arg(long, default_value_t = tools::cost::DEFAULT_FRIENDS_PER_PLAYER)]
    friends_per_player: f64,
    /// Minutes a session lasts.
    #[arg(long, default_value_t = 60.0)]
    session_minutes: f64,
    /// Memory of every Lambda function, MB.
    #[arg(long, default_value_t = 128.0)]
    lambda_memory: f64,
    /// Share of heartbeats that carry a requestId (and are acked), 0 to 1; pings never do.
    #[arg(long, default_value_t = 0.0)]
    acked_heartbeats: f64,
    /// Price of API Gateway's GetConnection (the sweeper's liveness question), USD per
    /// million calls (default: the prices file's, 0: no message is sent to the client).
    #[arg(long)]
    get_connection_usd_per_million: Option<f64>,
    /// Operation counts of this project now (default: the compiled-in measurement).
    #[arg(long)]
    counts: Option<std::path::PathBuf>,
    /// Operation counts of this project before the change (default: compiled in).
    #[arg(long)]
    counts_before: Option<std::path::PathBuf>,
    /// Prices file (default: the compiled-in us-east-1 prices).
    #[arg(long)]
    prices: Option<std::path::PathBuf>,
    /// EMF bytes per invocation of each function (default: the compiled-in measurement,
    /// tools/data/emf-bytes.json).
    #[arg(long)]
    emf_bytes: Option<std::path::PathBuf>,
}

fn read(path: Option<&std::path::Path>, bundled: &str) -> Result<String, String> {
    match path {
        Some(path) => std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display())),
        None => Ok(bundled.to_owned()),
    }
}

fn counts(path: Option<&std::path::Path>, bundled: &str) -> Result<OperationCounts, String> {
    serde_json::from_str(&read(path, bundled)?).map_err(|e| format!("operation counts: {e}"))
}

fn run(args: &Args) -> Result<String, String> {
    let scenario = Scenario {
        ccu: args.ccu,
        heartbeat_seconds: args.heartbeat_seconds,
        heartbeat_timeout_seconds: args.heartbeat_timeout_seconds,
        liveness: args.presence_liveness,
        messages_per_player_minute: args.messages_per_player_minute,
        recipients_per_message: args.recipients_per_message,
        placements_per_player_hour: args.placements_per_player_hour,
        subscriptions_per_player: args.subscriptions_per_player,
        friends_per_player: args.friends_per_player,
        session_minutes: args.session_minutes,
        lambda_memory_mb: args.lambda_memory,
        acked_heartbeats: args.acked_heartbeats,
        ..Scenario::default()
    };
    let mut prices = Prices::parse(&read(args.prices.as_deref(), tools::cost::prices::BUNDLED)?)?;
    if let Some(usd) = args.get_connection_usd_per_million {
        prices = prices.with_usd_per_million(Line::ApiGatewayGetConnection.price_key(), usd)?;
    }
    let before = counts(
        args.counts_before.as_deref(),
        include_str!("../../data/operation-counts-before.json"),
    )?;
    let after = counts(
        args.counts.as_deref(),
        include_str!("../../data/operation-counts.json"),
    )?;
    let priced = price_all(&scenario, &prices, &before, &after)?;
    let ratios = presence_ratios(&scenario, &prices, &before, &after)?;
    let table = render::table(&scenario, &prices, &priced, &ratios)?;
    let emf = observability::EmfBytes::parse(&read(
        args.emf_bytes.as_deref(),
        observability::BUNDLED_EMF_BYTES,
    )?)?;
    let deployed = observability::Deployed::bundled()?;
    let metrics = observability::price(&priced[2].bill, &emf, deployed, &prices, false)?;
    let detailed = observability::price(&priced[2].bill, &emf, deployed, &prices, true)?;
    Ok(render::with_observability(
        &table,
        priced[2].total(),
        &metrics,
        Some(&detailed),
    ))
}

fn main() -> std::process::ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(table) => {
            println!("{table}");
            std::process::ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("cost: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}
