//! Every knob of the local stack: an environment variable (the same names the Lambda
//! functions read; docs/architecture.md#configuration-surface) or a flag, documented by
//! `--help` with its default.

use std::collections::HashMap;
use std::fmt;
use std::time::Duration;

use clap::{Parser, ValueEnum};
use shared::config::{Config, ConfigError, EnvReader};

use crate::gamelift::{self, SimulatorSettings};
use crate::stream::{FeederConfig, PollerConfig, StreamSource};

pub const DEFAULT_GAME: &str = "gamelift-sockets";
/// The template's default stage.
pub const DEFAULT_STAGE: &str = "Development";
pub const DEFAULT_PORT: u16 = 3001;
pub const DEFAULT_JWT_LEEWAY_SECONDS: u64 = 30;
pub const DEFAULT_HEARTBEAT_TIMEOUT_SECONDS: u64 = 90;
pub const DEFAULT_RECONNECT_GRACE_SECONDS: u64 = 30;
pub const DEFAULT_PRESENCE_SHARDS: u32 = 4;
/// API Gateway's idle timeout: 10 minutes.
pub const DEFAULT_IDLE_TIMEOUT_SECONDS: u64 = 600;
/// API Gateway's maximum connection duration: 2 hours.
pub const DEFAULT_MAX_CONNECTION_SECONDS: u64 = 7200;
pub const DEFAULT_PLAYERS_TABLE: &str = "Players";
pub const DEFAULT_MESSAGES_TABLE: &str = "Messages";
pub const DEFAULT_PLACEMENTS_TABLE: &str = "Placements";
pub const DEFAULT_SUBSCRIPTIONS_TABLE: &str = "PresenceSubscriptions";
/// The simulated GameLift has one queue unless told otherwise.
pub const DEFAULT_GAME_SESSION_QUEUES: &str = "default-queue";
pub const DEFAULT_MAX_PLAYERS_PER_SESSION: u32 = 8;
pub const DEFAULT_MESSAGE_TTL_SECONDS: u64 = 86_400;
/// Concurrent partitions of the Messages stream's consumer (like ParallelizationFactor).
pub const DEFAULT_STREAM_SHARDS: u32 = 4;
/// Records per `on-message-inserted` invocation at most (the mapping's BatchSize).
pub const DEFAULT_STREAM_BATCH_SIZE: u32 = 100;
/// Failed retries of a stream record before its batch is skipped (MaximumRetryAttempts).
pub const DEFAULT_STREAM_MAX_RETRY_ATTEMPTS: i64 = 10;
/// The sleep after an empty GetRecords (with --dynamodb-endpoint).
pub const DEFAULT_STREAM_POLL_INTERVAL_MS: u64 = 50;
/// The first retry of a failed stream batch waits this long; each next one twice as
/// long, up to [`STREAM_MAX_BACKOFF`].
pub const STREAM_INITIAL_BACKOFF: Duration = Duration::from_millis(100);
pub const STREAM_MAX_BACKOFF: Duration = Duration::from_secs(5);
/// An `on-message-inserted` invocation running longer fails (and is retried).
pub const STREAM_FUNCTION_TIMEOUT: Duration = Duration::from_secs(30);

/// How the `$connect` authorizer identifies players.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum AuthMode {
    /// `?playerId=<id>` or header `X-Player-Id` (development only).
    Header,
    /// A JWT in `?token=` or `Authorization: Bearer`; the player id is its `sub`.
    Jwt,
}

impl AuthMode {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Header => "header",
            Self::Jwt => "jwt",
        }
    }
}

impl fmt::Display for AuthMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The local stack's settings. `Settings::default()` gives the demo defaults without
/// reading the environment; `Settings::parse()` (clap) reads flags and environment.
#[derive(Clone, Debug, PartialEq, Eq, Parser)]
#[command(
    name = "local",
    version,
    about = "GameLift Sockets local stack: the API Gateway WebSocket API, its @connections \
             management API and the real route handlers, in one process.",
    after_help = "Logs: RUST_LOG sets the level and filters (default: info), e.g. \
                  RUST_LOG=warn or RUST_LOG=info,on_message_inserted=debug.\n\
                  Try it: websocat \"ws://127.0.0.1:3001/Development?playerId=alice\" \
                  then send {\"route\":\"resume\"}"
)]
pub struct Settings {
    /// Game name (naming, logs, event source).
    #[arg(long, env = "GAME", default_value = DEFAULT_GAME)]
    pub game: String,

    /// Stage: the first path segment of the WebSocket URL and the management endpoint.
    #[arg(long, env = "STAGE", default_value = DEFAULT_STAGE)]
    pub stage: String,

    /// TCP port on 127.0.0.1 for both the WebSocket and the @connections API (0: any free port).
    #[arg(long, env = "PORT", default_value_t = DEFAULT_PORT)]
    pub port: u16,

    /// How the $connect authorizer identifies players.
    #[arg(long, env = "AUTH_MODE", value_enum, ignore_case = true, default_value_t = AuthMode::Header)]
    pub auth_mode: AuthMode,

    /// Expected `iss` of player tokens (AUTH_MODE=jwt).
    #[arg(long, env = "JWT_ISSUER")]
    pub jwt_issuer: Option<String>,

    /// Expected `aud` of player tokens (AUTH_MODE=jwt).
    #[arg(long, env = "JWT_AUDIENCE")]
    pub jwt_audience: Option<String>,

    /// Shared secret for HS256 tokens (AUTH_MODE=jwt; or JWKS_URL).
    #[arg(long, env = "JWT_HS256_SECRET", hide_env_values = true)]
    pub jwt_hs256_secret: Option<String>,

    /// JWKS URL for RS256/ES256 tokens (AUTH_MODE=jwt; or JWT_HS256_SECRET).
    #[arg(long, env = "JWKS_URL")]
    pub jwks_url: Option<String>,

    /// Clock skew tolerated on a token's exp and nbf (AUTH_MODE=jwt).
    #[arg(long, env = "JWT_LEEWAY_SECONDS", default_value_t = DEFAULT_JWT_LEEWAY_SECONDS)]
    pub jwt_leeway_seconds: u64,

    /// No heartbeat for this long: the player is swept offline.
    #[arg(long, env = "HEARTBEAT_TIMEOUT_SECONDS", default_value_t = DEFAULT_HEARTBEAT_TIMEOUT_SECONDS)]
    pub heartbeat_timeout_seconds: u64,

    /// A disconnected player may resume within this.
    #[arg(long, env = "RECONNECT_GRACE_SECONDS", default_value_t = DEFAULT_RECONNECT_GRACE_SECONDS)]
    pub reconnect_grace_seconds: u64,

    /// How often the presence sweeper runs (the deployed schedule is every minute).
    #[arg(long, env = "SWEEP_INTERVAL_SECONDS", default_value_t = 60)]
    pub sweep_interval_seconds: u64,

    /// Partitions of the BySweepAt index.
    #[arg(long, env = "PRESENCE_SHARDS", default_value_t = DEFAULT_PRESENCE_SHARDS)]
    pub presence_shards: u32,

    /// Close a connection (1001) after this long without a data frame from the client
    /// (WebSocket pings do not count), as API Gateway does.
    #[arg(long, env = "IDLE_TIMEOUT_SECONDS", default_value_t = DEFAULT_IDLE_TIMEOUT_SECONDS)]
    pub idle_timeout_seconds: u64,

    /// Close a connection (1001) once it has lasted this long, as API Gateway does.
    #[arg(long, env = "MAX_CONNECTION_SECONDS", default_value_t = DEFAULT_MAX_CONNECTION_SECONDS)]
    pub max_connection_seconds: u64,

    /// Use DynamoDB Local (or any DynamoDB-compatible endpoint) at this URL instead of
    /// memory; the tables are created first.
    #[arg(long, env = "DYNAMODB_ENDPOINT")]
    pub dynamodb_endpoint: Option<String>,

    /// Players table name (with --dynamodb-endpoint).
    #[arg(long, env = "PLAYERS_TABLE", default_value = DEFAULT_PLAYERS_TABLE)]
    pub players_table: String,

    /// Messages table name (with --dynamodb-endpoint).
    #[arg(long, env = "MESSAGES_TABLE", default_value = DEFAULT_MESSAGES_TABLE)]
    pub messages_table: String,

    /// Placements table name (with --dynamodb-endpoint).
    #[arg(long, env = "PLACEMENTS_TABLE", default_value = DEFAULT_PLACEMENTS_TABLE)]
    pub placements_table: String,

    /// Presence subscriptions table name (with --dynamodb-endpoint).
    #[arg(long, env = "SUBSCRIPTIONS_TABLE", default_value = DEFAULT_SUBSCRIPTIONS_TABLE)]
    pub subscriptions_table: String,

    /// The GameLift queues a placement may name (comma-separated); the first is the
    /// default. The simulator knows exactly these.
    #[arg(long, env = "GAME_SESSION_QUEUES", default_value = DEFAULT_GAME_SESSION_QUEUES)]
    pub game_session_queues: String,

    /// GameLift MaximumPlayerSessionCount of the game sessions placements create (1-200).
    #[arg(long, env = "MAX_PLAYERS_PER_SESSION", default_value_t = DEFAULT_MAX_PLAYERS_PER_SESSION)]
    pub max_players_per_session: u32,

    /// Undelivered messages are kept this long.
    #[arg(long, env = "MESSAGE_TTL_SECONDS", default_value_t = DEFAULT_MESSAGE_TTL_SECONDS)]
    pub message_ttl_seconds: u64,

    /// Messages stream → on-message-inserted: concurrent partitions (1-64), records
    /// going to one by a hash of their messageId (like ParallelizationFactor); in order
    /// within a partition.
    #[arg(long, env = "STREAM_SHARDS", default_value_t = DEFAULT_STREAM_SHARDS)]
    pub stream_shards: u32,

    /// Messages stream → on-message-inserted: most records per invocation (1-1000; the
    /// mapping's BatchSize). A batch goes as soon as one record is there (no batching
    /// window).
    #[arg(long, env = "STREAM_BATCH_SIZE", default_value_t = DEFAULT_STREAM_BATCH_SIZE)]
    pub stream_batch_size: u32,

    /// Messages stream → on-message-inserted: failed retries of a record (a partial batch
    /// failure, or a function error once the batch is split down to it; backoff 100 ms
    /// doubling to 5 s) before it is logged and skipped, its message left for resume
    /// (0-10000, -1: forever; the mapping's MaximumRetryAttempts).
    #[arg(long, env = "STREAM_MAX_RETRY_ATTEMPTS", default_value_t = DEFAULT_STREAM_MAX_RETRY_ATTEMPTS, allow_negative_numbers = true)]
    pub stream_max_retry_attempts: i64,

    /// With --dynamodb-endpoint: the sleep after a GetRecords call on the Messages stream
    /// returned nothing (1-10000 ms); a poll that returns records is followed at once.
    #[arg(long, env = "STREAM_POLL_INTERVAL_MS", default_value_t = DEFAULT_STREAM_POLL_INTERVAL_MS)]
    pub stream_poll_interval_ms: u64,

    #[command(flatten)]
    pub simulator: SimulatorFlags,
}

/// The GameLift simulator's knobs (`local/src/gamelift`), as flags and the `SIM_*`
/// variables. Checked and turned into [`SimulatorSettings`] by the simulator's own reader.
#[derive(Clone, Debug, PartialEq, Eq, clap::Args)]
#[command(next_help_heading = "GameLift simulator")]
pub struct SimulatorFlags {
    /// Server processes in the simulated fleet (0: no capacity: placements time out).
    #[arg(long, env = "SIM_FLEET_SERVERS", default_value_t = gamelift::DEFAULT_FLEET_SERVERS)]
    pub sim_fleet_servers: u32,

    /// Game sessions one server process hosts before it is replaced (1-100).
    #[arg(long, env = "SIM_SESSIONS_PER_SERVER", default_value_t = gamelift::DEFAULT_SESSIONS_PER_SERVER)]
    pub sim_sessions_per_server: u32,

    /// How long a new server process is Initializing before it can host a game.
    #[arg(long, env = "SIM_SERVER_STARTUP_MS", default_value_t = gamelift::DEFAULT_SERVER_STARTUP_MS)]
    pub sim_server_startup_ms: u64,

    /// How long a server whose games ended is Terminating before its replacement starts.
    #[arg(long, env = "SIM_SERVER_SHUTDOWN_MS", default_value_t = gamelift::DEFAULT_SERVER_SHUTDOWN_MS)]
    pub sim_server_shutdown_ms: u64,

    /// The earliest a placement is fulfilled after it was requested.
    #[arg(long, env = "SIM_PLACEMENT_DELAY_MS", default_value_t = gamelift::DEFAULT_PLACEMENT_DELAY_MS)]
    pub sim_placement_delay_ms: u64,

    /// The queue's timeout: a placement still PENDING this long is TIMED_OUT (1-43200).
    #[arg(long, env = "SIM_QUEUE_TIMEOUT_SECONDS", default_value_t = gamelift::DEFAULT_QUEUE_TIMEOUT_SECONDS)]
    pub sim_queue_timeout_seconds: u64,

    /// How long a game session lasts before it is TERMINATED (1-604800).
    #[arg(long, env = "SIM_GAME_SESSION_SECONDS", default_value_t = gamelift::DEFAULT_GAME_SESSION_SECONDS)]
    pub sim_game_session_seconds: u64,

    /// The region in ARNs and events (`gameSessionRegion`).
    #[arg(long, env = "SIM_REGION", default_value = gamelift::DEFAULT_REGION)]
    pub sim_region: String,

    /// The AWS account id in ARNs and events (12 digits).
    #[arg(long, env = "SIM_ACCOUNT_ID", default_value = gamelift::DEFAULT_ACCOUNT_ID)]
    pub sim_account_id: String,

    /// The fleet id in game session ARNs.
    #[arg(long, env = "SIM_FLEET_ID", default_value = gamelift::DEFAULT_FLEET_ID)]
    pub sim_fleet_id: String,

    /// The `ipAddress` of every game session.
    #[arg(long, env = "SIM_SERVER_IP", default_value = gamelift::DEFAULT_SERVER_IP)]
    pub sim_server_ip: String,

    /// The `dnsName` of every game session.
    #[arg(long, env = "SIM_SERVER_DNS", default_value = gamelift::DEFAULT_SERVER_DNS)]
    pub sim_server_dns: String,

    /// The first game session port; each server's sessions take the next ones.
    #[arg(long, env = "SIM_SERVER_PORT_BASE", default_value_t = gamelift::DEFAULT_SERVER_PORT_BASE)]
    pub sim_server_port_base: u16,

    /// The queue's CustomEventData, copied into every placement event.
    #[arg(long, env = "SIM_CUSTOM_EVENT_DATA")]
    pub sim_custom_event_data: Option<String>,
}

impl Default for SimulatorFlags {
    fn default() -> Self {
        let defaults = SimulatorSettings::default();
        Self {
            sim_fleet_servers: defaults.fleet_servers,
            sim_sessions_per_server: defaults.sessions_per_server,
            sim_server_startup_ms: gamelift::DEFAULT_SERVER_STARTUP_MS,
            sim_server_shutdown_ms: gamelift::DEFAULT_SERVER_SHUTDOWN_MS,
            sim_placement_delay_ms: gamelift::DEFAULT_PLACEMENT_DELAY_MS,
            sim_queue_timeout_seconds: gamelift::DEFAULT_QUEUE_TIMEOUT_SECONDS,
            sim_game_session_seconds: gamelift::DEFAULT_GAME_SESSION_SECONDS,
            sim_region: defaults.region,
            sim_account_id: defaults.account_id,
            sim_fleet_id: defaults.fleet_id,
            sim_server_ip: defaults.server_ip,
            sim_server_dns: defaults.server_dns,
            sim_server_port_base: defaults.server_port_base,
            sim_custom_event_data: defaults.custom_event_data,
        }
    }
}

impl SimulatorFlags {
    /// `NAME → value` of every knob, as the simulator's reader takes them.
    fn variables(&self) -> HashMap<String, String> {
        let mut vars: HashMap<String, String> = [
            ("SIM_FLEET_SERVERS", self.sim_fleet_servers.to_string()),
            (
                "SIM_SESSIONS_PER_SERVER",
                self.sim_sessions_per_server.to_string(),
            ),
            (
                "SIM_SERVER_STARTUP_MS",
                self.sim_server_startup_ms.to_string(),
            ),
            (
                "SIM_SERVER_SHUTDOWN_MS",
                self.sim_server_shutdown_ms.to_string(),
            ),
            (
                "SIM_PLACEMENT_DELAY_MS",
                self.sim_placement_delay_ms.to_string(),
            ),
            (
                "SIM_QUEUE_TIMEOUT_SECONDS",
                self.sim_queue_timeout_seconds.to_string(),
            ),
            (
                "SIM_GAME_SESSION_SECONDS",
                self.sim_game_session_seconds.to_string(),
            ),
            ("SIM_REGION", self.sim_region.clone()),
            ("SIM_ACCOUNT_ID", self.sim_account_id.clone()),
            ("SIM_FLEET_ID", self.sim_fleet_id.clone()),
            ("SIM_SERVER_IP", self.sim_server_ip.clone()),
            ("SIM_SERVER_DNS", self.sim_server_dns.clone()),
            (
                "SIM_SERVER_PORT_BASE",
                self.sim_server_port_base.to_string(),
            ),
        ]
        .into_iter()
        .map(|(name, value)| (name.to_owned(), value))
        .collect();
        if let Some(data) = &self.sim_custom_event_data {
            vars.insert("SIM_CUSTOM_EVENT_DATA".into(), data.clone());
        }
        vars
    }
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            game: DEFAULT_GAME.into(),
            stage: DEFAULT_STAGE.into(),
            port: DEFAULT_PORT,
            auth_mode: AuthMode::Header,
            jwt_issuer: None,
            jwt_audience: None,
            jwt_hs256_secret: None,
            jwks_url: None,
            jwt_leeway_seconds: DEFAULT_JWT_LEEWAY_SECONDS,
            heartbeat_timeout_seconds: DEFAULT_HEARTBEAT_TIMEOUT_SECONDS,
            reconnect_grace_seconds: DEFAULT_RECONNECT_GRACE_SECONDS,
            sweep_interval_seconds: 60,
            presence_shards: DEFAULT_PRESENCE_SHARDS,
            idle_timeout_seconds: DEFAULT_IDLE_TIMEOUT_SECONDS,
            max_connection_seconds: DEFAULT_MAX_CONNECTION_SECONDS,
            dynamodb_endpoint: None,
            players_table: DEFAULT_PLAYERS_TABLE.into(),
            messages_table: DEFAULT_MESSAGES_TABLE.into(),
            placements_table: DEFAULT_PLACEMENTS_TABLE.into(),
            subscriptions_table: DEFAULT_SUBSCRIPTIONS_TABLE.into(),
            game_session_queues: DEFAULT_GAME_SESSION_QUEUES.into(),
            max_players_per_session: DEFAULT_MAX_PLAYERS_PER_SESSION,
            message_ttl_seconds: DEFAULT_MESSAGE_TTL_SECONDS,
            stream_shards: DEFAULT_STREAM_SHARDS,
            stream_batch_size: DEFAULT_STREAM_BATCH_SIZE,
            stream_max_retry_attempts: DEFAULT_STREAM_MAX_RETRY_ATTEMPTS,
            stream_poll_interval_ms: DEFAULT_STREAM_POLL_INTERVAL_MS,
            simulator: SimulatorFlags::default(),
        }
    }
}

/// Every problem found in the settings, reported together.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct SettingsError {
    pub problems: Vec<String>,
}

impl fmt::Display for SettingsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid settings: {}", self.problems.join("; "))
    }
}

impl Settings {
    /// Checks every knob, listing every problem (not just the first).
    pub fn validate(&self) -> Result<(), SettingsError> {
        let mut problems = Vec::new();
        if !valid_stage(&self.stage) {
            problems.push(format!(
                "STAGE={:?} is not 1-128 characters of A-Z a-z 0-9 _ -",
                self.stage
            ));
        }
        // The functions' own reader checks the shared knobs (same names, same ranges).
        if let Err(error) = self.config() {
            problems.extend(error.problems);
        }
        for (name, value) in [
            ("IDLE_TIMEOUT_SECONDS", self.idle_timeout_seconds),
            ("MAX_CONNECTION_SECONDS", self.max_connection_seconds),
        ] {
            if !(1..=86_400).contains(&value) {
                problems.push(format!(
                    "{name}={value} is not a whole number of seconds from 1 to 86400"
                ));
            }
        }
        if let Some(endpoint) = &self.dynamodb_endpoint {
            if !(endpoint.starts_with("http://") || endpoint.starts_with("https://")) {
                problems.push(format!(
                    "DYNAMODB_ENDPOINT={endpoint:?} is not an http:// or https:// URL"
                ));
            }
        }
        for (name, value) in [
            ("PLAYERS_TABLE", &self.players_table),
            ("MESSAGES_TABLE", &self.messages_table),
            ("PLACEMENTS_TABLE", &self.placements_table),
            ("SUBSCRIPTIONS_TABLE", &self.subscriptions_table),
        ] {
            if !valid_table_name(value) {
                problems.push(format!(
                    "{name}={value:?} is not 3-255 characters of A-Z a-z 0-9 _ - ."
                ));
            }
        }
        for (name, value, range) in [
            ("STREAM_SHARDS", i64::from(self.stream_shards), 1..=64),
            (
                "STREAM_BATCH_SIZE",
                i64::from(self.stream_batch_size),
                1..=1000,
            ),
            (
                "STREAM_MAX_RETRY_ATTEMPTS",
                self.stream_max_retry_attempts,
                -1..=10_000,
            ),
            (
                "STREAM_POLL_INTERVAL_MS",
                i64::try_from(self.stream_poll_interval_ms).unwrap_or(i64::MAX),
                1..=10_000,
            ),
        ] {
            if !range.contains(&value) {
                problems.push(format!(
                    "{name}={value} is not a whole number from {} to {}",
                    range.start(),
                    range.end()
                ));
            }
        }
        // The authorizer's own checks (JWT issuer, audience, key source, secret length).
        if let Err(error) = self.auth_config() {
            problems.extend(error.problems);
        }
        if let Err(error) = self.simulator_settings() {
            problems.extend(error.problems);
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(SettingsError { problems })
        }
    }

    /// The authorizer's configuration, read by the authorizer's own reader from these
    /// settings (so the same checks apply as in Lambda).
    pub fn auth_config(&self) -> Result<authorizer::AuthConfig, ConfigError> {
        let lookup = |name: &str| -> Option<String> {
            match name {
                "AUTH_MODE" => Some(self.auth_mode.as_str().to_owned()),
                "STAGE" => Some(self.stage.clone()),
                "JWT_ISSUER" => self.jwt_issuer.clone(),
                "JWT_AUDIENCE" => self.jwt_audience.clone(),
                "JWT_HS256_SECRET" => self.jwt_hs256_secret.clone(),
                "JWKS_URL" => self.jwks_url.clone(),
                "JWT_LEEWAY_SECONDS" => Some(self.jwt_leeway_seconds.to_string()),
                _ => None,
            }
        };
        authorizer::AuthConfig::from_reader(EnvReader::new(lookup), authorizer::AuthMode::Header)
    }

    /// The `Config` the route handlers get, read by `shared::config`'s own
    /// reader from these settings (so the same checks apply as in Lambda).
    pub fn config(&self) -> Result<Config, ConfigError> {
        let vars: HashMap<String, String> = [
            ("GAME", self.game.clone()),
            ("STAGE", self.stage.clone()),
            ("PLAYERS_TABLE", self.players_table.clone()),
            ("MESSAGES_TABLE", self.messages_table.clone()),
            ("MESSAGE_TTL_SECONDS", self.message_ttl_seconds.to_string()),
            (
                "HEARTBEAT_TIMEOUT_SECONDS",
                self.heartbeat_timeout_seconds.to_string(),
            ),
            (
                "RECONNECT_GRACE_SECONDS",
                self.reconnect_grace_seconds.to_string(),
            ),
            ("PRESENCE_SHARDS", self.presence_shards.to_string()),
            ("PLACEMENTS_TABLE", self.placements_table.clone()),
            ("SUBSCRIPTIONS_TABLE", self.subscriptions_table.clone()),
            // The in-process bus has no name of its own; this is the template's.
            ("PRESENCE_EVENT_BUS", format!("{}-presence", self.game)),
            ("GAME_SESSION_QUEUES", self.game_session_queues.clone()),
            (
                "MAX_PLAYERS_PER_SESSION",
                self.max_players_per_session.to_string(),
            ),
        ]
        .into_iter()
        .map(|(name, value)| (name.to_owned(), value))
        .collect();
        Config::from_map(&vars)
    }

    /// The GameLift simulator's settings, read by its own reader (every problem listed);
    /// its queues are `GAME_SESSION_QUEUES`, the ones the handlers accept.
    pub fn simulator_settings(&self) -> Result<SimulatorSettings, ConfigError> {
        let mut vars = self.simulator.variables();
        vars.insert(
            "GAME_SESSION_QUEUES".into(),
            self.game_session_queues.clone(),
        );
        SimulatorSettings::from_map(&vars)
    }

    pub fn idle_timeout(&self) -> Duration {
        Duration::from_secs(self.idle_timeout_seconds)
    }

    pub fn max_connection_duration(&self) -> Duration {
        Duration::from_secs(self.max_connection_seconds)
    }

    /// The event source mapping of the Messages stream (both stream modes).
    pub fn stream_mapping(&self) -> FeederConfig {
        FeederConfig {
            partitions: self.stream_shards.max(1) as usize,
            batch_size: self.stream_batch_size.max(1) as usize,
            max_retry_attempts: u32::try_from(self.stream_max_retry_attempts).ok(),
            initial_backoff: STREAM_INITIAL_BACKOFF,
            max_backoff: STREAM_MAX_BACKOFF,
            function_timeout: STREAM_FUNCTION_TIMEOUT,
        }
    }

    /// Where the Messages stream comes from: the in-memory store, or the table's
    /// stream at `--dynamodb-endpoint`.
    pub fn stream_source(&self) -> StreamSource {
        match &self.dynamodb_endpoint {
            None => StreamSource::Memory,
            Some(endpoint) => StreamSource::DynamoDb(PollerConfig {
                endpoint: endpoint.clone(),
                table: self.messages_table.clone(),
                poll_interval: Duration::from_millis(self.stream_poll_interval_ms.max(1)),
                limit: i32::try_from(self.stream_batch_size.clamp(1, 1000)).unwrap_or(100),
            }),
        }
    }

    /// The active settings, one `NAME=value` line each, secrets redacted.
    pub fn summary(&self) -> Vec<String> {
        fn opt(value: &Option<String>) -> String {
            value.clone().unwrap_or_else(|| "(unset)".to_owned())
        }
        let secret = if self.jwt_hs256_secret.is_some() {
            "(set, redacted)".to_owned()
        } else {
            "(unset)".to_owned()
        };
        let storage = match &self.dynamodb_endpoint {
            Some(url) => url.clone(),
            None => "(unset: in memory)".to_owned(),
        };
        let mut lines = vec![
            format!("GAME={}", self.game),
            format!("STAGE={}", self.stage),
            format!("PORT={}", self.port),
            format!("AUTH_MODE={}", self.auth_mode),
            format!("JWT_ISSUER={}", opt(&self.jwt_issuer)),
            format!("JWT_AUDIENCE={}", opt(&self.jwt_audience)),
            format!("JWT_HS256_SECRET={secret}"),
            format!("JWKS_URL={}", opt(&self.jwks_url)),
            format!("JWT_LEEWAY_SECONDS={}", self.jwt_leeway_seconds),
            format!(
                "HEARTBEAT_TIMEOUT_SECONDS={}",
                self.heartbeat_timeout_seconds
            ),
            format!("RECONNECT_GRACE_SECONDS={}", self.reconnect_grace_seconds),
            format!("PRESENCE_SHARDS={}", self.presence_shards),
            format!("IDLE_TIMEOUT_SECONDS={}", self.idle_timeout_seconds),
            format!("MAX_CONNECTION_SECONDS={}", self.max_connection_seconds),
            format!("DYNAMODB_ENDPOINT={storage}"),
            format!("PLAYERS_TABLE={}", self.players_table),
            format!("MESSAGES_TABLE={}", self.messages_table),
            format!("PLACEMENTS_TABLE={}", self.placements_table),
            format!("SUBSCRIPTIONS_TABLE={}", self.subscriptions_table),
            format!("GAME_SESSION_QUEUES={}", self.game_session_queues),
            format!("MAX_PLAYERS_PER_SESSION={}", self.max_players_per_session),
            format!("MESSAGE_TTL_SECONDS={}", self.message_ttl_seconds),
            format!("STREAM_SHARDS={}", self.stream_shards),
            format!("STREAM_BATCH_SIZE={}", self.stream_batch_size),
            format!(
                "STREAM_MAX_RETRY_ATTEMPTS={}",
                self.stream_max_retry_attempts
            ),
            format!("STREAM_POLL_INTERVAL_MS={}", self.stream_poll_interval_ms),
        ];
        match self.simulator_settings() {
            // GAME_SESSION_QUEUES is listed above already.
            Ok(simulator) => lines.extend(
                simulator
                    .summary()
                    .into_iter()
                    .filter(|line| !line.starts_with("GAME_SESSION_QUEUES=")),
            ),
            Err(error) => lines.push(format!("SIM_*: invalid ({})", error.problems.join("; "))),
        }
        lines
    }
}

fn valid_stage(stage: &str) -> bool {
    (1..=128).contains(&stage.len())
        && stage
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

fn valid_table_name(name: &str) -> bool {
    (3..=255).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// Every variable the local stack reads (flags aside).
    const EVERY_VARIABLE: &[&str] = &[
        "GAME",
        "STAGE",
        "PORT",
        "AUTH_MODE",
        "JWT_ISSUER",
        "JWT_AUDIENCE",
        "JWT_HS256_SECRET",
        "JWKS_URL",
        "JWT_LEEWAY_SECONDS",
        "HEARTBEAT_TIMEOUT_SECONDS",
        "RECONNECT_GRACE_SECONDS",
        "PRESENCE_SHARDS",
        "IDLE_TIMEOUT_SECONDS",
        "MAX_CONNECTION_SECONDS",
        "DYNAMODB_ENDPOINT",
        "PLAYERS_TABLE",
        "MESSAGES_TABLE",
        "PLACEMENTS_TABLE",
        "SUBSCRIPTIONS_TABLE",
        "GAME_SESSION_QUEUES",
        "MAX_PLAYERS_PER_SESSION",
        "MESSAGE_TTL_SECONDS",
        "STREAM_SHARDS",
        "STREAM_BATCH_SIZE",
        "STREAM_MAX_RETRY_ATTEMPTS",
        "STREAM_POLL_INTERVAL_MS",
        "SIM_FLEET_SERVERS",
        "SIM_SESSIONS_PER_SERVER",
        "SIM_SERVER_STARTUP_MS",
        "SIM_SERVER_SHUTDOWN_MS",
        "SIM_PLACEMENT_DELAY_MS",
        "SIM_QUEUE_TIMEOUT_SECONDS",
        "SIM_GAME_SESSION_SECONDS",
        "SIM_REGION",
        "SIM_ACCOUNT_ID",
        "SIM_FLEET_ID",
        "SIM_SERVER_IP",
        "SIM_SERVER_DNS",
        "SIM_SERVER_PORT_BASE",
        "SIM_CUSTOM_EVENT_DATA",
        "SWEEP_INTERVAL_SECONDS",
    ];

    #[test]
    fn given_no_flags_when_parsed_then_the_defaults_equal_settings_default() {
        // Only flags (no environment) are given: `try_parse_from` still reads the
        // environment, so compare only when none of the variables is set.
        let names = EVERY_VARIABLE;
        if names.iter().any(|n| std::env::var_os(n).is_some()) {
            return;
        }
        let parsed = Settings::try_parse_from(["local"]).unwrap();
        assert_eq!(parsed, Settings::default());
    }

    #[test]
    fn given_flags_when_parsed_then_they_set_the_knobs() {
        let parsed = Settings::try_parse_from([
            "local",
            "--port",
            "0",
            "--stage",
            "Test",
            "--idle-timeout-seconds",
            "5",
            "--auth-mode",
            "jwt",
            "--dynamodb-endpoint",
            "http://127.0.0.1:8000",
        ])
        .unwrap();
        assert_eq!(parsed.port, 0);
        assert_eq!(parsed.stage, "Test");
        assert_eq!(parsed.idle_timeout_seconds, 5);
        assert_eq!(parsed.auth_mode, AuthMode::Jwt);
        assert_eq!(
            parsed.dynamodb_endpoint.as_deref(),
            Some("http://127.0.0.1:8000")
        );
    }

    #[test]
    fn help_documents_every_knob_with_its_environment_variable() {
        let help = Settings::command().render_long_help().to_string();
        for name in EVERY_VARIABLE {
            assert!(
                help.contains(&format!("env: {name}")),
                "{name} missing: {help}"
            );
        }
        assert!(help.contains("default: 3001"), "{help}");
        assert!(help.contains("RUST_LOG"), "{help}");
    }

    #[test]
    fn given_several_problems_when_validated_then_every_one_is_listed() {
        let settings = Settings {
            stage: "dev/x".into(),
            idle_timeout_seconds: 0,
            presence_shards: 0,
            dynamodb_endpoint: Some("localhost:8000".into()),
            auth_mode: AuthMode::Jwt,
            ..Settings::default()
        };
        let err = settings.validate().unwrap_err();
        assert_eq!(err.problems.len(), 7, "{err}");
        let text = err.to_string();
        for expected in [
            "STAGE",
            "IDLE_TIMEOUT_SECONDS=0",
            "PRESENCE_SHARDS=0",
            "DYNAMODB_ENDPOINT",
            "JWKS_URL or JWT_HS256_SECRET",
            "JWT_ISSUER is not set",
            "JWT_AUDIENCE is not set",
        ] {
            assert!(text.contains(expected), "missing {expected:?} in {text}");
        }
        assert!(Settings::default().validate().is_ok());
    }

    #[test]
    fn given_stream_knobs_when_parsed_and_validated_then_they_shape_the_mapping() {
        let parsed = Settings::try_parse_from([
            "local",
            "--stream-shards",
            "8",
            "--stream-batch-size",
            "50",
            "--stream-max-retry-attempts",
            "-1",
            "--stream-poll-interval-ms",
            "20",
        ])
        .unwrap();
        assert!(parsed.validate().is_ok());
        let mapping = parsed.stream_mapping();
        assert_eq!(mapping.partitions, 8);
        assert_eq!(mapping.batch_size, 50);
        assert_eq!(mapping.max_retry_attempts, None, "-1: forever");
        assert_eq!(
            Settings::default().stream_mapping().max_retry_attempts,
            Some(10)
        );
        // (Parsing also reads the environment: DYNAMODB_ENDPOINT may be set.)
        let parsed = Settings {
            dynamodb_endpoint: None,
            ..parsed
        };
        assert!(matches!(parsed.stream_source(), StreamSource::Memory));
        let dynamo = Settings {
            dynamodb_endpoint: Some("http://127.0.0.1:8000".into()),
            ..parsed
        };
        match dynamo.stream_source() {
            StreamSource::DynamoDb(config) => {
                assert_eq!(config.table, "Messages");
                assert_eq!(config.limit, 50);
                assert_eq!(config.poll_interval, Duration::from_millis(20));
            }
            other => panic!("{other:?}"),
        }

        let bad = Settings {
            stream_shards: 0,
            stream_batch_size: 1001,
            stream_max_retry_attempts: -2,
            stream_poll_interval_ms: 0,
            ..Settings::default()
        };
        let text = bad.validate().unwrap_err().to_string();
        for expected in [
            "STREAM_SHARDS=0 is not a whole number from 1 to 64",
            "STREAM_BATCH_SIZE=1001",
            "STREAM_MAX_RETRY_ATTEMPTS=-2",
            "STREAM_POLL_INTERVAL_MS=0",
        ] {
            assert!(text.contains(expected), "missing {expected:?} in {text}");
        }
    }

    #[test]
    fn summary_redacts_the_secret() {
        let settings = Settings {
            jwt_hs256_secret: Some("hunter2".into()),
            ..Settings::default()
        };
        let summary = settings.summary().join("\n");
        assert!(!summary.contains("hunter2"));
        assert!(summary.contains("JWT_HS256_SECRET=(set, redacted)"));
        assert!(summary.contains("STAGE=Development"));
    }
}
