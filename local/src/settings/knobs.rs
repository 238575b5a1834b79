//! The knobs, in groups (each a heading of `--help`): each declared once, with its flag,
//! variable, default and help, and the values it accepts. The shared knobs' defaults and
//! ranges are `shared::config`'s, the simulator's are `crate::gamelift`'s.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr};
use std::ops::RangeInclusive;
use std::time::Duration;

use clap::ValueEnum;
use serde::Serialize;
use shared::config;

use super::values::{millis, seconds, whole};
use crate::gamelift;

pub const DEFAULT_PORT: u16 = 3001;
/// API Gateway's idle timeout: 10 minutes.
pub const DEFAULT_IDLE_TIMEOUT_SECONDS: u64 = 600;
/// API Gateway's maximum connection duration: 2 hours.
pub const DEFAULT_MAX_CONNECTION_SECONDS: u64 = 7200;
/// What `IDLE_TIMEOUT_SECONDS` and `MAX_CONNECTION_SECONDS` accept: up to a day.
pub const CONNECTION_SECONDS_RANGE: RangeInclusive<u64> = 1..=86_400;
/// The deployed sweeper runs every minute.
pub const DEFAULT_SWEEP_INTERVAL_SECONDS: u64 = 60;
pub const SWEEP_INTERVAL_SECONDS_RANGE: RangeInclusive<u64> = 1..=86_400;
/// Concurrent partitions of the Messages stream's consumer (like ParallelizationFactor).
pub const DEFAULT_STREAM_SHARDS: u32 = 4;
pub const STREAM_SHARDS_RANGE: RangeInclusive<u32> = 1..=64;
/// Records per `on-message-inserted` invocation at most (the mapping's BatchSize).
pub const DEFAULT_STREAM_BATCH_SIZE: u32 = 100;
pub const STREAM_BATCH_SIZE_RANGE: RangeInclusive<u32> = 1..=1000;
/// Failed retries of a stream record before its batch is skipped (MaximumRetryAttempts).
pub const DEFAULT_STREAM_MAX_RETRY_ATTEMPTS: i64 = 10;
/// -1: forever.
pub const STREAM_MAX_RETRY_ATTEMPTS_RANGE: RangeInclusive<i64> = -1..=10_000;
/// The sleep after an empty GetRecords (with --dynamodb-endpoint).
pub const DEFAULT_STREAM_POLL_INTERVAL_MS: u64 = 50;
pub const STREAM_POLL_INTERVAL_MS_RANGE: RangeInclusive<u64> = 1..=10_000;
/// The first retry of a failed stream batch waits this long; each next one twice as
/// long, up to [`STREAM_MAX_BACKOFF`].
pub const STREAM_INITIAL_BACKOFF: Duration = Duration::from_millis(100);
pub const STREAM_MAX_BACKOFF: Duration = Duration::from_secs(5);
/// An `on-message-inserted` invocation running longer fails (and is retried).
pub const STREAM_FUNCTION_TIMEOUT: Duration = Duration::from_secs(30);

/// How the `$connect` authorizer identifies players.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
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

/// The API Gateway emulator: where it listens and when it closes connections.
#[derive(Clone, Debug, PartialEq, Eq, clap::Args, Serialize)]
#[command(next_help_heading = "API Gateway")]
pub struct GatewaySettings {
    /// TCP port for both the WebSocket and the @connections API (0: any free port).
    #[arg(long, env = "PORT", default_value_t = DEFAULT_PORT, value_parser = whole(0..=u16::MAX))]
    pub port: u16,

    /// The address both ports listen on. A container reaches the host on Linux at the
    /// Docker bridge's address (`sam local invoke --add-host
    /// host.docker.internal:host-gateway`, usually 172.17.0.1): listen there, or on
    /// 0.0.0.0 (every interface, your network's too: header mode has no authentication).
    #[arg(long, env = "BIND_ADDRESS", default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST))]
    pub bind_address: IpAddr,

    /// Close a connection (1001) after this long without a data frame from the client
    /// (WebSocket pings do not count), as API Gateway does.
    #[arg(long, env = "IDLE_TIMEOUT_SECONDS", default_value_t = DEFAULT_IDLE_TIMEOUT_SECONDS,
          value_parser = seconds(CONNECTION_SECONDS_RANGE))]
    pub idle_timeout_seconds: u64,

    /// Close a connection (1001) once it has lasted this long, as API Gateway does.
    #[arg(long, env = "MAX_CONNECTION_SECONDS", default_value_t = DEFAULT_MAX_CONNECTION_SECONDS,
          value_parser = seconds(CONNECTION_SECONDS_RANGE))]
    pub max_connection_seconds: u64,

    /// Count frames sent to a client as activity too (GetConnection's lastActiveAt), not
    /// only frames from it. AWS does not document which way API Gateway goes; this
    /// emulates the reading that would keep a dead socket that receives pushes looking
    /// alive, to see what presence does then (and what smoke --check-assumptions says).
    #[arg(long, env = "LAST_ACTIVE_COUNTS_SENT_FRAMES", default_value_t = false,
          action = clap::ArgAction::Set)]
    pub last_active_counts_sent_frames: bool,

    /// TCP port for the backend API (HTTP, /v1/...) [default: PORT + 1, or
    /// any free port when PORT is 0].
    #[arg(long, env = "BACKEND_API_PORT", value_parser = whole(0..=u16::MAX))]
    pub backend_api_port: Option<u16>,

    /// A shared key the backend API then requires in the `x-api-key` header (none: no
    /// auth). Local stack only: deployed, callers sign their requests (SigV4, AWS_IAM).
    #[arg(long, env = "BACKEND_API_KEY", hide_env_values = true)]
    pub backend_api_key: Option<String>,
}

impl GatewaySettings {
    /// The backend API's port: `BACKEND_API_PORT`, else the WebSocket port + 1 (0 stays 0).
    pub fn backend_api_port(&self) -> u16 {
        self.backend_api_port.unwrap_or(match self.port {
            0 => 0,
            port => port.saturating_add(1),
        })
    }
}

/// The `$connect` authorizer (checked by the authorizer's own reader).
#[derive(Clone, Debug, PartialEq, Eq, clap::Args, Serialize)]
#[command(next_help_heading = "Authorizer")]
pub struct AuthSettings {
    /// How the $connect authorizer identifies players.
    #[arg(long, env = "AUTH_MODE", value_enum, ignore_case = true, default_value_t = AuthMode::Header)]
    pub auth_mode: AuthMode,

    /// Expected `iss` of player tokens (AUTH_MODE=jwt).
    #[arg(long, env = "JWT_ISSUER")]
    pub jwt_issuer: Option<String>,

    /// Expected `aud` of player tokens (AUTH_MODE=jwt).
    #[arg(long, env = "JWT_AUDIENCE")]
    pub jwt_audience: Option<String>,

    /// Shared secret for HS256 tokens (AUTH_MODE=jwt; or JWKS_URL). Local stack only:
    /// deployed, the secret is a SecureString in Parameter Store.
    #[arg(long, env = "JWT_HS256_SECRET", hide_env_values = true)]
    pub jwt_hs256_secret: Option<String>,

    /// JWKS URL for RS256/ES256 tokens (AUTH_MODE=jwt; or JWT_HS256_SECRET).
    #[arg(long, env = "JWKS_URL")]
    pub jwks_url: Option<String>,

    /// Clock skew tolerated on a token's exp, nbf and iat (AUTH_MODE=jwt).
    #[arg(long, env = "JWT_LEEWAY_SECONDS",
          default_value_t = authorizer::config::DEFAULT_LEEWAY.as_secs(),
          value_parser = seconds(0..=authorizer::config::MAX_LEEWAY_SECONDS))]
    pub jwt_leeway_seconds: u64,

    /// Longest token lifetime accepted, exp - iat; a token without iat is then refused
    /// (AUTH_MODE=jwt; 0: no limit).
    #[arg(long, env = "JWT_MAX_LIFETIME_SECONDS", default_value_t = 0,
          value_parser = seconds(authorizer::config::MAX_LIFETIME_SECONDS_RANGE))]
    pub jwt_max_lifetime_seconds: u64,
}

/// Presence: when a player counts as gone, and the sweeper that finds them.
#[derive(Clone, Debug, PartialEq, Eq, clap::Args, Serialize)]
#[command(next_help_heading = "Presence")]
pub struct PresenceSettings {
    /// No heartbeat for this long: the player is swept offline.
    #[arg(long, env = "HEARTBEAT_TIMEOUT_SECONDS",
          default_value_t = config::DEFAULT_HEARTBEAT_TIMEOUT_SECONDS,
          value_parser = seconds(config::HEARTBEAT_TIMEOUT_SECONDS_RANGE))]
    pub heartbeat_timeout_seconds: u64,

    /// What keeps a player online: heartbeat (only heartbeats move the deadline) or
    /// connection-activity (pings too: the sweeper asks the @connections API when the socket
    /// was last active). resume's ack tells clients which to send.
    #[arg(long, env = "PRESENCE_LIVENESS", default_value_t = config::DEFAULT_PRESENCE_LIVENESS)]
    pub presence_liveness: config::PresenceLiveness,

    /// A disconnected player may resume within this.
    #[arg(long, env = "RECONNECT_GRACE_SECONDS",
          default_value_t = config::DEFAULT_RECONNECT_GRACE_SECONDS,
          value_parser = seconds(config::RECONNECT_GRACE_SECONDS_RANGE))]
    pub reconnect_grace_seconds: u64,

    /// How often the presence sweeper runs (the deployed schedule is every minute).
    #[arg(long, env = "SWEEP_INTERVAL_SECONDS", default_value_t = DEFAULT_SWEEP_INTERVAL_SECONDS,
          value_parser = seconds(SWEEP_INTERVAL_SECONDS_RANGE))]
    pub sweep_interval_seconds: u64,

    /// Partitions of the BySweepShard index.
    #[arg(long, env = "PRESENCE_SHARDS", default_value_t = config::DEFAULT_PRESENCE_SHARDS,
          value_parser = whole(config::PRESENCE_SHARDS_RANGE))]
    pub presence_shards: u32,
}

/// Per-player rate limits (0 turns one off).
#[derive(Clone, Debug, PartialEq, Eq, clap::Args, Serialize)]
#[command(next_help_heading = "Rate limits")]
pub struct RateLimitSettings {
    /// sendMessage frames a player may send per minute.
    #[arg(long, env = "RATE_LIMIT_MESSAGES_PER_MINUTE",
          default_value_t = config::DEFAULT_RATE_LIMIT_MESSAGES_PER_MINUTE,
          value_parser = whole(config::RATE_LIMIT_RANGE))]
    pub rate_limit_messages_per_minute: u32,

    /// Recipients a player may message per minute, over all their frames.
    #[arg(long, env = "RATE_LIMIT_RECIPIENTS_PER_MINUTE",
          default_value_t = config::DEFAULT_RATE_LIMIT_RECIPIENTS_PER_MINUTE,
          value_parser = whole(config::RATE_LIMIT_RANGE))]
    pub rate_limit_recipients_per_minute: u32,

    /// sessionPlacementRequests a player may send per minute.
    #[arg(long, env = "RATE_LIMIT_PLACEMENTS_PER_MINUTE",
          default_value_t = config::DEFAULT_RATE_LIMIT_PLACEMENTS_PER_MINUTE,
          value_parser = whole(config::RATE_LIMIT_RANGE))]
    pub rate_limit_placements_per_minute: u32,

    /// inviteToParty requests a player may send per minute.
    #[arg(long, env = "RATE_LIMIT_PARTY_INVITES_PER_MINUTE",
          default_value_t = config::DEFAULT_RATE_LIMIT_PARTY_INVITES_PER_MINUTE,
          value_parser = whole(config::RATE_LIMIT_RANGE))]
    pub rate_limit_party_invites_per_minute: u32,
}

/// Parties: their size, invitations, and how long an offline member stays in one.
#[derive(Clone, Debug, PartialEq, Eq, clap::Args, Serialize)]
#[command(next_help_heading = "Parties")]
pub struct PartyKnobs {
    /// The most members a party may have (2-10; createParty may ask for fewer).
    #[arg(long, env = "PARTY_MAX_SIZE", default_value_t = config::DEFAULT_PARTY_MAX_SIZE,
          value_parser = whole(config::PARTY_MAX_SIZE_RANGE))]
    pub party_max_size: u32,

    /// How long an invitation to a party can be taken up.
    #[arg(long, env = "PARTY_INVITE_TTL_SECONDS",
          default_value_t = config::DEFAULT_PARTY_INVITE_TTL_SECONDS,
          value_parser = seconds(config::PARTY_INVITE_TTL_SECONDS_RANGE))]
    pub party_invite_ttl_seconds: u64,

    /// How long a member the sweeper took offline stays in their party.
    #[arg(long, env = "PARTY_OFFLINE_SECONDS",
          default_value_t = config::DEFAULT_PARTY_OFFLINE_SECONDS,
          value_parser = seconds(config::PARTY_OFFLINE_SECONDS_RANGE))]
    pub party_offline_seconds: u64,

    /// Only a party's leader may invite (true), or any member (false).
    #[arg(long, env = "PARTY_INVITE_LEADER_ONLY", default_value_t = false,
          action = clap::ArgAction::Set)]
    pub party_invite_leader_only: bool,
}

/// Where the state lives: memory, or DynamoDB (Local) and its tables.
#[derive(Clone, Debug, PartialEq, Eq, clap::Args, Serialize)]
#[command(next_help_heading = "Storage")]
pub struct StorageSettings {
    /// Use DynamoDB Local (or any DynamoDB-compatible endpoint) at this URL instead of
    /// memory; the tables are created first.
    #[arg(long, env = "DYNAMODB_ENDPOINT")]
    pub dynamodb_endpoint: Option<String>,

    /// Players table name (with --dynamodb-endpoint).
    #[arg(long, env = "PLAYERS_TABLE", default_value = config::DEFAULT_PLAYERS_TABLE)]
    pub players_table: String,

    /// Messages table name (with --dynamodb-endpoint).
    #[arg(long, env = "MESSAGES_TABLE", default_value = config::DEFAULT_MESSAGES_TABLE)]
    pub messages_table: String,

    /// Placements table name (with --dynamodb-endpoint).
    #[arg(long, env = "PLACEMENTS_TABLE", default_value = config::DEFAULT_PLACEMENTS_TABLE)]
    pub placements_table: String,

    /// Presence subscriptions table name (with --dynamodb-endpoint).
    #[arg(long, env = "SUBSCRIPTIONS_TABLE", default_value = config::DEFAULT_SUBSCRIPTIONS_TABLE)]
    pub subscriptions_table: String,

    /// Parties table name (with --dynamodb-endpoint).
    #[arg(long, env = "PARTIES_TABLE", default_value = config::DEFAULT_PARTIES_TABLE)]
    pub parties_table: String,

    /// Undelivered messages are kept this long.
    #[arg(long, env = "MESSAGE_TTL_SECONDS", default_value_t = config::DEFAULT_MESSAGE_TTL_SECONDS,
          value_parser = seconds(config::MESSAGE_TTL_SECONDS_RANGE))]
    pub message_ttl_seconds: u64,
}

/// What a placement asks GameLift for.
#[derive(Clone, Debug, PartialEq, Eq, clap::Args, Serialize)]
#[command(next_help_heading = "Placements")]
pub struct PlacementSettings {
    /// The GameLift queues a placement may name (comma-separated); the first is the
    /// default. The simulator knows exactly these.
    #[arg(long, env = "GAME_SESSION_QUEUES", default_value = config::DEFAULT_GAME_SESSION_QUEUES)]
    pub game_session_queues: String,

    /// GameLift MaximumPlayerSessionCount of the game sessions placements create (1-200).
    #[arg(long, env = "MAX_PLAYERS_PER_SESSION",
          default_value_t = config::DEFAULT_MAX_PLAYERS_PER_SESSION,
          value_parser = whole(config::MAX_PLAYERS_PER_SESSION_RANGE))]
    pub max_players_per_session: u32,
}

/// The Messages stream's event source mapping to `on-message-inserted`.
#[derive(Clone, Debug, PartialEq, Eq, clap::Args, Serialize)]
#[command(next_help_heading = "Messages stream")]
pub struct StreamSettings {
    /// Messages stream → on-message-inserted: concurrent partitions (1-64), records
    /// going to one by a hash of their messageId (like ParallelizationFactor); in order
    /// within a partition.
    #[arg(long, env = "STREAM_SHARDS", default_value_t = DEFAULT_STREAM_SHARDS,
          value_parser = whole(STREAM_SHARDS_RANGE))]
    pub stream_shards: u32,

    /// Messages stream → on-message-inserted: most records per invocation (1-1000; the
    /// mapping's BatchSize). A batch goes as soon as one record is there (no batching
    /// window).
    #[arg(long, env = "STREAM_BATCH_SIZE", default_value_t = DEFAULT_STREAM_BATCH_SIZE,
          value_parser = whole(STREAM_BATCH_SIZE_RANGE))]
    pub stream_batch_size: u32,

    /// Messages stream → on-message-inserted: failed retries of a record (a partial batch
    /// failure, or a function error once the batch is split down to it; backoff 100 ms
    /// doubling to 5 s) before it is logged and skipped, its message left for resume
    /// (0-10000, -1: forever; the mapping's MaximumRetryAttempts).
    #[arg(long, env = "STREAM_MAX_RETRY_ATTEMPTS", default_value_t = DEFAULT_STREAM_MAX_RETRY_ATTEMPTS,
          allow_negative_numbers = true, value_parser = whole(STREAM_MAX_RETRY_ATTEMPTS_RANGE))]
    pub stream_max_retry_attempts: i64,

    /// With --dynamodb-endpoint: the sleep after a GetRecords call on the Messages stream
    /// returned nothing (1-10000 ms); a poll that returns records is followed at once.
    #[arg(long, env = "STREAM_POLL_INTERVAL_MS", default_value_t = DEFAULT_STREAM_POLL_INTERVAL_MS,
          value_parser = millis(STREAM_POLL_INTERVAL_MS_RANGE))]
    pub stream_poll_interval_ms: u64,
}

/// The GameLift simulator's knobs (`local/src/gamelift`), as flags and the `SIM_*`
/// variables; [`super::Settings::simulator_settings`] makes them
/// [`gamelift::SimulatorSettings`].
#[derive(Clone, Debug, PartialEq, Eq, clap::Args, Serialize)]
#[command(next_help_heading = "GameLift simulator")]
pub struct SimulatorFlags {
    /// Server processes in the simulated fleet (0: no capacity: placements time out).
    #[arg(long, env = "SIM_FLEET_SERVERS", default_value_t = gamelift::DEFAULT_FLEET_SERVERS,
          value_parser = whole(gamelift::FLEET_SERVERS_RANGE))]
    pub sim_fleet_servers: u32,

    /// Game sessions one server process hosts before it is replaced (1-100).
    #[arg(long, env = "SIM_SESSIONS_PER_SERVER", default_value_t = gamelift::DEFAULT_SESSIONS_PER_SERVER,
          value_parser = whole(gamelift::SESSIONS_PER_SERVER_RANGE))]
    pub sim_sessions_per_server: u32,

    /// How long a new server process is Initializing before it can host a game.
    #[arg(long, env = "SIM_SERVER_STARTUP_MS", default_value_t = gamelift::DEFAULT_SERVER_STARTUP_MS,
          value_parser = millis(gamelift::MILLIS_RANGE))]
    pub sim_server_startup_ms: u64,

    /// How long a server whose games ended is Terminating before its replacement starts.
    #[arg(long, env = "SIM_SERVER_SHUTDOWN_MS", default_value_t = gamelift::DEFAULT_SERVER_SHUTDOWN_MS,
          value_parser = millis(gamelift::MILLIS_RANGE))]
    pub sim_server_shutdown_ms: u64,

    /// The earliest a placement is fulfilled after it was requested.
    #[arg(long, env = "SIM_PLACEMENT_DELAY_MS", default_value_t = gamelift::DEFAULT_PLACEMENT_DELAY_MS,
          value_parser = millis(gamelift::MILLIS_RANGE))]
    pub sim_placement_delay_ms: u64,

    /// The queue's timeout: a placement still PENDING this long is TIMED_OUT (1-43200).
    #[arg(long, env = "SIM_QUEUE_TIMEOUT_SECONDS", default_value_t = gamelift::DEFAULT_QUEUE_TIMEOUT_SECONDS,
          value_parser = seconds(gamelift::QUEUE_TIMEOUT_SECONDS_RANGE))]
    pub sim_queue_timeout_seconds: u64,

    /// How long a game session lasts before it is TERMINATED (1-604800).
    #[arg(long, env = "SIM_GAME_SESSION_SECONDS", default_value_t = gamelift::DEFAULT_GAME_SESSION_SECONDS,
          value_parser = seconds(gamelift::GAME_SESSION_SECONDS_RANGE))]
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
    #[arg(long, env = "SIM_SERVER_PORT_BASE", default_value_t = gamelift::DEFAULT_SERVER_PORT_BASE,
          value_parser = whole(gamelift::SERVER_PORT_BASE_RANGE))]
    pub sim_server_port_base: u16,

    /// The queue's CustomEventData, copied into every placement event.
    #[arg(long, env = "SIM_CUSTOM_EVENT_DATA")]
    pub sim_custom_event_data: Option<String>,
}
