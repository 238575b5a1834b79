//! The knobs, in groups (each a heading of `--help`): each declared once, with its flag,
//! variable, default and help, and the values it accepts. The shared knobs' defaults and
//! ranges are `shared::config`'s, the simulator's are `crate::gamelift`'s.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr};
use std::ops::RangeInclusive;
use std::time::Duration;

use clap::ValueEnum;
use serde::Serialize;
use shared::config::{self, settings};

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
    /// `settings::AUTH_MODE`.
    #[arg(long, env = settings::AUTH_MODE.variable, help = settings::AUTH_MODE.meaning, value_enum, ignore_case = true, default_value_t = AuthMode::Header)]
    pub auth_mode: AuthMode,

    /// `settings::JWT_ISSUER`.
    #[arg(long, env = settings::JWT_ISSUER.variable, help = settings::JWT_ISSUER.meaning)]
    pub jwt_issuer: Option<String>,

    /// `settings::JWT_AUDIENCE`.
    #[arg(long, env = settings::JWT_AUDIENCE.variable, help = settings::JWT_AUDIENCE.meaning)]
    pub jwt_audience: Option<String>,

    /// Shared secret for HS256 tokens (AUTH_MODE=jwt; or JWKS_URL). Local stack only:
    /// deployed, the secret is a SecureString in Parameter Store.
    #[arg(long, env = "JWT_HS256_SECRET", hide_env_values = true)]
    pub jwt_hs256_secret: Option<String>,

    /// `settings::JWKS_URL`.
    #[arg(long, env = settings::JWKS_URL.variable, help = settings::JWKS_URL.meaning)]
    pub jwks_url: Option<String>,

    /// `settings::JWT_LEEWAY_SECONDS`.
    #[arg(long, env = settings::JWT_LEEWAY_SECONDS.variable, help = settings::JWT_LEEWAY_SECONDS.meaning,
          default_value_t = settings::JWT_LEEWAY_SECONDS.default,
          value_parser = seconds(settings::JWT_LEEWAY_SECONDS.range))]
    pub jwt_leeway_seconds: u64,

    /// `settings::JWT_MAX_LIFETIME_SECONDS`.
    #[arg(long, env = settings::JWT_MAX_LIFETIME_SECONDS.variable, help = settings::JWT_MAX_LIFETIME_SECONDS.meaning, default_value_t = settings::JWT_MAX_LIFETIME_SECONDS.default,
          value_parser = seconds(settings::JWT_MAX_LIFETIME_SECONDS.range))]
    pub jwt_max_lifetime_seconds: u64,
}

/// Presence: when a player counts as gone, and the sweeper that finds them.
#[derive(Clone, Debug, PartialEq, Eq, clap::Args, Serialize)]
#[command(next_help_heading = "Presence")]
pub struct PresenceSettings {
    /// `settings::HEARTBEAT_TIMEOUT_SECONDS`.
    #[arg(long, env = settings::HEARTBEAT_TIMEOUT_SECONDS.variable, help = settings::HEARTBEAT_TIMEOUT_SECONDS.meaning,
          default_value_t = settings::HEARTBEAT_TIMEOUT_SECONDS.default,
          value_parser = seconds(settings::HEARTBEAT_TIMEOUT_SECONDS.range))]
    pub heartbeat_timeout_seconds: u64,

    /// `settings::PRESENCE_LIVENESS`.
    #[arg(long, env = settings::PRESENCE_LIVENESS.variable, help = settings::PRESENCE_LIVENESS.meaning, default_value_t = config::DEFAULT_PRESENCE_LIVENESS)]
    pub presence_liveness: config::PresenceLiveness,

    /// `settings::RECONNECT_GRACE_SECONDS`.
    #[arg(long, env = settings::RECONNECT_GRACE_SECONDS.variable, help = settings::RECONNECT_GRACE_SECONDS.meaning,
          default_value_t = settings::RECONNECT_GRACE_SECONDS.default,
          value_parser = seconds(settings::RECONNECT_GRACE_SECONDS.range))]
    pub reconnect_grace_seconds: u64,

    /// How often the presence sweeper runs (the deployed schedule is every minute).
    #[arg(long, env = "SWEEP_INTERVAL_SECONDS", default_value_t = DEFAULT_SWEEP_INTERVAL_SECONDS,
          value_parser = seconds(SWEEP_INTERVAL_SECONDS_RANGE))]
    pub sweep_interval_seconds: u64,

    /// `settings::PRESENCE_SHARDS`.
    #[arg(long, env = settings::PRESENCE_SHARDS.variable, help = settings::PRESENCE_SHARDS.meaning, default_value_t = settings::PRESENCE_SHARDS.default,
          value_parser = whole(settings::PRESENCE_SHARDS.range))]
    pub presence_shards: u32,
}

/// Per-player rate limits (0 turns one off).
#[derive(Clone, Debug, PartialEq, Eq, clap::Args, Serialize)]
#[command(next_help_heading = "Rate limits")]
pub struct RateLimitSettings {
    /// `settings::RATE_LIMIT_MESSAGES_PER_MINUTE`.
    #[arg(long, env = settings::RATE_LIMIT_MESSAGES_PER_MINUTE.variable, help = settings::RATE_LIMIT_MESSAGES_PER_MINUTE.meaning,
          default_value_t = settings::RATE_LIMIT_MESSAGES_PER_MINUTE.default,
          value_parser = whole(settings::RATE_LIMIT_MESSAGES_PER_MINUTE.range))]
    pub rate_limit_messages_per_minute: u32,

    /// `settings::RATE_LIMIT_RECIPIENTS_PER_MINUTE`.
    #[arg(long, env = settings::RATE_LIMIT_RECIPIENTS_PER_MINUTE.variable, help = settings::RATE_LIMIT_RECIPIENTS_PER_MINUTE.meaning,
          default_value_t = settings::RATE_LIMIT_RECIPIENTS_PER_MINUTE.default,
          value_parser = whole(settings::RATE_LIMIT_RECIPIENTS_PER_MINUTE.range))]
    pub rate_limit_recipients_per_minute: u32,

    /// `settings::RATE_LIMIT_PLACEMENTS_PER_MINUTE`.
    #[arg(long, env = settings::RATE_LIMIT_PLACEMENTS_PER_MINUTE.variable, help = settings::RATE_LIMIT_PLACEMENTS_PER_MINUTE.meaning,
          default_value_t = settings::RATE_LIMIT_PLACEMENTS_PER_MINUTE.default,
          value_parser = whole(settings::RATE_LIMIT_PLACEMENTS_PER_MINUTE.range))]
    pub rate_limit_placements_per_minute: u32,

    /// `settings::RATE_LIMIT_PARTY_INVITES_PER_MINUTE`.
    #[arg(long, env = settings::RATE_LIMIT_PARTY_INVITES_PER_MINUTE.variable, help = settings::RATE_LIMIT_PARTY_INVITES_PER_MINUTE.meaning,
          default_value_t = settings::RATE_LIMIT_PARTY_INVITES_PER_MINUTE.default,
          value_parser = whole(settings::RATE_LIMIT_PARTY_INVITES_PER_MINUTE.range))]
    pub rate_limit_party_invites_per_minute: u32,

    /// `settings::RATE_LIMIT_FRIEND_INVITES_PER_MINUTE`.
    #[arg(long, env = settings::RATE_LIMIT_FRIEND_INVITES_PER_MINUTE.variable, help = settings::RATE_LIMIT_FRIEND_INVITES_PER_MINUTE.meaning,
          default_value_t = settings::RATE_LIMIT_FRIEND_INVITES_PER_MINUTE.default,
          value_parser = whole(settings::RATE_LIMIT_FRIEND_INVITES_PER_MINUTE.range))]
    pub rate_limit_friend_invites_per_minute: u32,

    /// `settings::RATE_LIMIT_ACTIVITY_PER_MINUTE`.
    #[arg(long, env = settings::RATE_LIMIT_ACTIVITY_PER_MINUTE.variable, help = settings::RATE_LIMIT_ACTIVITY_PER_MINUTE.meaning,
          default_value_t = settings::RATE_LIMIT_ACTIVITY_PER_MINUTE.default,
          value_parser = whole(settings::RATE_LIMIT_ACTIVITY_PER_MINUTE.range))]
    pub rate_limit_activity_per_minute: u32,
}

impl RateLimitSettings {
    /// Each limit under the variable the functions read it from.
    pub(super) fn variables(&self) -> [(&'static str, String); 6] {
        [
            (
                &settings::RATE_LIMIT_MESSAGES_PER_MINUTE,
                self.rate_limit_messages_per_minute,
            ),
            (
                &settings::RATE_LIMIT_RECIPIENTS_PER_MINUTE,
                self.rate_limit_recipients_per_minute,
            ),
            (
                &settings::RATE_LIMIT_PLACEMENTS_PER_MINUTE,
                self.rate_limit_placements_per_minute,
            ),
            (
                &settings::RATE_LIMIT_PARTY_INVITES_PER_MINUTE,
                self.rate_limit_party_invites_per_minute,
            ),
            (
                &settings::RATE_LIMIT_FRIEND_INVITES_PER_MINUTE,
                self.rate_limit_friend_invites_per_minute,
            ),
            (
                &settings::RATE_LIMIT_ACTIVITY_PER_MINUTE,
                self.rate_limit_activity_per_minute,
            ),
        ]
        .map(|(setting, value)| (setting.variable, value.to_string()))
    }
}

/// Parties: their size, invitations, and how long an offline member stays in one.
#[derive(Clone, Debug, PartialEq, Eq, clap::Args, Serialize)]
#[command(next_help_heading = "Parties")]
pub struct PartyKnobs {
    /// `settings::PARTY_MAX_SIZE`.
    #[arg(long, env = settings::PARTY_MAX_SIZE.variable, help = settings::PARTY_MAX_SIZE.meaning, default_value_t = settings::PARTY_MAX_SIZE.default,
          value_parser = whole(settings::PARTY_MAX_SIZE.range))]
    pub party_max_size: u32,

    /// `settings::PARTY_INVITE_TTL_SECONDS`.
    #[arg(long, env = settings::PARTY_INVITE_TTL_SECONDS.variable, help = settings::PARTY_INVITE_TTL_SECONDS.meaning,
          default_value_t = settings::PARTY_INVITE_TTL_SECONDS.default,
          value_parser = seconds(settings::PARTY_INVITE_TTL_SECONDS.range))]
    pub party_invite_ttl_seconds: u64,

    /// `settings::PARTY_OFFLINE_SECONDS`.
    #[arg(long, env = settings::PARTY_OFFLINE_SECONDS.variable, help = settings::PARTY_OFFLINE_SECONDS.meaning,
          default_value_t = settings::PARTY_OFFLINE_SECONDS.default,
          value_parser = seconds(settings::PARTY_OFFLINE_SECONDS.range))]
    pub party_offline_seconds: u64,

    /// `settings::PARTY_INVITE_LEADER_ONLY`.
    #[arg(long, env = settings::PARTY_INVITE_LEADER_ONLY.variable, help = settings::PARTY_INVITE_LEADER_ONLY.meaning, default_value_t = settings::PARTY_INVITE_LEADER_ONLY.default,
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

    /// `settings::PLAYERS_TABLE`.
    #[arg(long, env = settings::PLAYERS_TABLE.variable, help = settings::PLAYERS_TABLE.meaning, default_value = settings::PLAYERS_TABLE.default.unwrap_or_default())]
    pub players_table: String,

    /// `settings::MESSAGES_TABLE`.
    #[arg(long, env = settings::MESSAGES_TABLE.variable, help = settings::MESSAGES_TABLE.meaning, default_value = settings::MESSAGES_TABLE.default.unwrap_or_default())]
    pub messages_table: String,

    /// `settings::PLACEMENTS_TABLE`.
    #[arg(long, env = settings::PLACEMENTS_TABLE.variable, help = settings::PLACEMENTS_TABLE.meaning, default_value = settings::PLACEMENTS_TABLE.default.unwrap_or_default())]
    pub placements_table: String,

    /// `settings::SUBSCRIPTIONS_TABLE`.
    #[arg(long, env = settings::SUBSCRIPTIONS_TABLE.variable, help = settings::SUBSCRIPTIONS_TABLE.meaning, default_value = settings::SUBSCRIPTIONS_TABLE.default.unwrap_or_default())]
    pub subscriptions_table: String,

    /// `settings::PARTIES_TABLE`.
    #[arg(long, env = settings::PARTIES_TABLE.variable, help = settings::PARTIES_TABLE.meaning, default_value = settings::PARTIES_TABLE.default.unwrap_or_default())]
    pub parties_table: String,

    /// `settings::FRIENDS_TABLE`.
    #[arg(long, env = settings::FRIENDS_TABLE.variable, help = settings::FRIENDS_TABLE.meaning, default_value = settings::FRIENDS_TABLE.default.unwrap_or_default())]
    pub friends_table: String,

    /// `settings::MESSAGE_TTL_SECONDS`.
    #[arg(long, env = settings::MESSAGE_TTL_SECONDS.variable, help = settings::MESSAGE_TTL_SECONDS.meaning, default_value_t = settings::MESSAGE_TTL_SECONDS.default,
          value_parser = seconds(settings::MESSAGE_TTL_SECONDS.range))]
    pub message_ttl_seconds: u64,
}

/// What a placement asks GameLift for.
#[derive(Clone, Debug, PartialEq, Eq, clap::Args, Serialize)]
#[command(next_help_heading = "Placements")]
pub struct PlacementSettings {
    /// `settings::GAME_SESSION_QUEUES`.
    #[arg(long, env = settings::GAME_SESSION_QUEUES.variable, help = settings::GAME_SESSION_QUEUES.meaning, default_value = settings::GAME_SESSION_QUEUES.default.unwrap_or_default())]
    pub game_session_queues: String,

    /// `settings::MAX_PLAYERS_PER_SESSION`.
    #[arg(long, env = settings::MAX_PLAYERS_PER_SESSION.variable, help = settings::MAX_PLAYERS_PER_SESSION.meaning,
          default_value_t = settings::MAX_PLAYERS_PER_SESSION.default,
          value_parser = whole(settings::MAX_PLAYERS_PER_SESSION.range))]
    pub max_players_per_session: u32,

    /// `settings::PLAYER_GATEWAY`; the simulated fleet's mode too, unless
    /// `SIM_PLAYER_GATEWAY` says otherwise.
    #[arg(long, env = settings::PLAYER_GATEWAY.variable, help = settings::PLAYER_GATEWAY.meaning, default_value_t = config::DEFAULT_PLAYER_GATEWAY)]
    pub player_gateway: config::PlayerGateway,
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

    /// The simulated fleet's PlayerGatewayMode: disabled (GetPlayerConnectionDetails
    /// answers the game server's address), enabled or required (relays on 127.0.0.2 and
    /// 127.0.0.3 and a token per player) [default: PLAYER_GATEWAY's, so one knob makes a
    /// consistent stack; set both apart to try a backend that misjudges its fleet].
    #[arg(long, env = "SIM_PLAYER_GATEWAY")]
    pub sim_player_gateway: Option<config::PlayerGateway>,

    /// How long a simulated player gateway token lasts before the client must refresh
    /// (1-86400; a few seconds let tests see one expire).
    #[arg(long, env = "SIM_PLAYER_GATEWAY_TOKEN_SECONDS", default_value_t = gamelift::DEFAULT_PLAYER_GATEWAY_TOKEN_SECONDS,
          value_parser = seconds(gamelift::PLAYER_GATEWAY_TOKEN_SECONDS_RANGE))]
    pub sim_player_gateway_token_seconds: u64,
}
