//! Every knob of the local stack: an environment variable (the same names the Lambda
//! functions read) or a flag, documented by `--help` with its default.
//!
//! Each knob is declared once, in [`knobs`]: its flag, its variable, its default (the
//! shared ones from [`shared::config`], the simulator's from [`crate::gamelift`]), its
//! help and the values it accepts. [`Settings`] gathers the groups; [`Settings::read`] reads the command line and the environment, listing every bad
//! value by the name it was given as; [`Settings::validate`] checks a whole set (also one
//! built in code) with the functions' own checks.

pub mod game_servers;
pub mod knobs;
pub mod matchmaking;
mod read;
mod values;

#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::fmt;
use std::ops::RangeInclusive;
use std::time::Duration;

use clap::{CommandFactory, FromArgMatches, Parser};
use serde::Serialize;
use shared::config::{self, Config, ConfigError, EnvReader, queue_names};

use crate::gamelift::SimulatorSettings;
use crate::stream::{FeederConfig, PollerConfig, StreamSource};

pub use game_servers::GameServerFlags;
pub use knobs::*;
pub use matchmaking::MatchmakingFlags;
pub use read::{Origin, Origins, ReadError};

/// The local stack's settings. `Settings::default()` gives the demo defaults without
/// reading the environment; [`Settings::read`] reads flags and environment.
#[derive(Clone, Debug, PartialEq, Eq, Parser, Serialize)]
#[command(
    name = "local",
    version,
    about = "GameLift Sockets local stack: the API Gateway WebSocket API, its @connections \
             management API and the real route handlers, in one process.",
    after_help = "Logs: RUST_LOG sets the level and filters (default: info; debug also lists \
                  every setting), e.g. RUST_LOG=warn or RUST_LOG=info,on_message_inserted=debug.\n\
                  Try it: websocat \"ws://127.0.0.1:3001/Development?playerId=alice\" \
                  then send {\"route\":\"resume\"}\n\
                  One function, once, like `sam local invoke` (no Docker): \
                  local invoke <function> <event.json> [these flags]"
)]
pub struct Settings {
    /// `config::settings::GAME`.
    #[arg(long, env = config::settings::GAME.variable, help = config::settings::GAME.meaning, default_value = config::settings::GAME.default.unwrap_or_default())]
    pub game: String,

    /// `config::settings::STAGE`.
    #[arg(long, env = config::settings::STAGE.variable, help = config::settings::STAGE.meaning, default_value = config::settings::STAGE.default.unwrap_or_default())]
    pub stage: String,

    /// `config::settings::DETAILED_METRICS`: the console's metrics per route, queue and
    /// bucket too, as a stack deployed with `DetailedMetrics=true` writes them.
    #[arg(long, env = config::settings::DETAILED_METRICS.variable, help = config::settings::DETAILED_METRICS.meaning,
          default_value_t = config::settings::DETAILED_METRICS.default, action = clap::ArgAction::Set)]
    pub detailed_metrics: bool,

    #[command(flatten)]
    #[serde(flatten)]
    pub gateway: GatewaySettings,

    #[command(flatten)]
    #[serde(flatten)]
    pub auth: AuthSettings,

    #[command(flatten)]
    #[serde(flatten)]
    pub presence: PresenceSettings,

    #[command(flatten)]
    #[serde(flatten)]
    pub rate_limits: RateLimitSettings,

    #[command(flatten)]
    #[serde(flatten)]
    pub storage: StorageSettings,

    #[command(flatten)]
    #[serde(flatten)]
    pub placement: PlacementSettings,

    #[command(flatten)]
    #[serde(flatten)]
    pub parties: PartyKnobs,

    #[command(flatten)]
    #[serde(flatten)]
    pub stream: StreamSettings,

    #[command(flatten)]
    #[serde(flatten)]
    pub simulator: SimulatorFlags,

    #[command(flatten)]
    #[serde(flatten)]
    pub matchmaking: MatchmakingFlags,

    #[command(flatten)]
    #[serde(flatten)]
    pub game_servers: GameServerFlags,

    /// Where each value came from (flag or variable; neither: its default), so that a
    /// problem names it as the user wrote it.
    #[arg(skip)]
    #[serde(skip)]
    pub origins: Origins,
}

impl Default for Settings {
    /// Every knob's declared default; nothing read from the environment.
    fn default() -> Self {
        let command = Self::command().mut_args(|arg| arg.env(None));
        let matches = command
            .try_get_matches_from(["local"])
            .unwrap_or_else(|error| panic!("the declared defaults do not parse: {error}"));
        Self::from_arg_matches(&matches)
            .unwrap_or_else(|error| panic!("the declared defaults do not parse: {error}"))
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
    /// Checks the whole set, listing every problem (not just the first), each naming the
    /// knob as it was given (see [`Origins`]). The shared knobs are checked by
    /// `shared::config`, the authorizer's by the authorizer, the simulator's by the
    /// simulator: the same checks as in Lambda.
    pub fn validate(&self) -> Result<(), SettingsError> {
        let mut problems = Vec::new();
        if !valid_stage(&self.stage) {
            problems.push(format!(
                "STAGE={:?} is not 1-128 characters of A-Z a-z 0-9 _ -",
                self.stage
            ));
        }
        if let Err(error) = self.config() {
            problems.extend(error.problems);
        }
        let (gateway, stream) = (&self.gateway, &self.stream);
        problems.extend(
            [
                out_of_range(
                    "IDLE_TIMEOUT_SECONDS",
                    gateway.idle_timeout_seconds,
                    &CONNECTION_SECONDS_RANGE,
                    Some("seconds"),
                ),
                out_of_range(
                    "MAX_CONNECTION_SECONDS",
                    gateway.max_connection_seconds,
                    &CONNECTION_SECONDS_RANGE,
                    Some("seconds"),
                ),
                out_of_range(
                    "SWEEP_INTERVAL_SECONDS",
                    self.presence.sweep_interval_seconds,
                    &SWEEP_INTERVAL_SECONDS_RANGE,
                    Some("seconds"),
                ),
                out_of_range(
                    "STREAM_SHARDS",
                    stream.stream_shards,
                    &STREAM_SHARDS_RANGE,
                    None,
                ),
                out_of_range(
                    "STREAM_BATCH_SIZE",
                    stream.stream_batch_size,
                    &STREAM_BATCH_SIZE_RANGE,
                    None,
                ),
                out_of_range(
                    "STREAM_MAX_RETRY_ATTEMPTS",
                    stream.stream_max_retry_attempts,
                    &STREAM_MAX_RETRY_ATTEMPTS_RANGE,
                    None,
                ),
                out_of_range(
                    "STREAM_POLL_INTERVAL_MS",
                    stream.stream_poll_interval_ms,
                    &STREAM_POLL_INTERVAL_MS_RANGE,
                    Some("milliseconds"),
                ),
            ]
            .into_iter()
            .flatten(),
        );
        let backend_port = gateway.backend_api_port();
        if backend_port != 0 && backend_port == gateway.port {
            problems.push(format!(
                "BACKEND_API_PORT={backend_port} is PORT's: the backend API needs a port of its own"
            ));
        }
        problems.extend(self.port_problems());
        if let Some(endpoint) = &self.storage.dynamodb_endpoint
            && !(endpoint.starts_with("http://") || endpoint.starts_with("https://"))
        {
            problems.push(format!(
                "DYNAMODB_ENDPOINT={endpoint:?} is not an http:// or https:// URL"
            ));
        }
        for (name, value) in self.tables() {
            if !valid_table_name(value) {
                problems.push(format!(
                    "{name}={value:?} is not 3-255 characters of A-Z a-z 0-9 _ - ."
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
        // The rule set file read and checked: a rule type the simulator cannot honour
        // stops start-up, named.
        if let Err(error) = self.flexmatch_settings() {
            problems.extend(error.problems);
        }
        if problems.is_empty() {
            Ok(())
        } else {
            let problems = problems
                .iter()
                .map(|p| self.origins.as_written(p))
                .collect();
            Err(SettingsError { problems })
        }
    }

    fn tables(&self) -> [(&'static str, &String); 6] {
        let storage = &self.storage;
        [
            ("PLAYERS_TABLE", &storage.players_table),
            ("MESSAGES_TABLE", &storage.messages_table),
            ("PLACEMENTS_TABLE", &storage.placements_table),
            ("SUBSCRIPTIONS_TABLE", &storage.subscriptions_table),
            ("PARTIES_TABLE", &storage.parties_table),
            ("FRIENDS_TABLE", &storage.friends_table),
        ]
    }

    /// The authorizer's configuration, read by the authorizer's own reader from these
    /// settings (so the same checks apply as in Lambda), as the local stack runs it:
    /// header mode by default, and the HS256 secret in-process (`JWT_HS256_SECRET`).
    pub fn auth_config(&self) -> Result<authorizer::AuthConfig, ConfigError> {
        let auth = &self.auth;
        let lookup = |name: &str| -> Option<String> {
            match name {
                "AUTH_MODE" => Some(auth.auth_mode.as_str().to_owned()),
                // Header mode is the local stack's purpose, so it opts in itself (a
                // deployed stack says AllowUnauthenticated=true); STAGE=Production still
                // refuses it.
                "ALLOW_UNAUTHENTICATED" => Some("true".to_owned()),
                "STAGE" => Some(self.stage.clone()),
                "JWT_ISSUER" => auth.jwt_issuer.clone(),
                "JWT_AUDIENCE" => auth.jwt_audience.clone(),
                "JWT_HS256_SECRET" => auth.jwt_hs256_secret.clone(),
                "JWKS_URL" => auth.jwks_url.clone(),
                "JWT_LEEWAY_SECONDS" => Some(auth.jwt_leeway_seconds.to_string()),
                "JWT_MAX_LIFETIME_SECONDS" => Some(auth.jwt_max_lifetime_seconds.to_string()),
                _ => None,
            }
        };
        authorizer::AuthConfig::from_reader(EnvReader::new(lookup), authorizer::Runtime::LocalStack)
    }

    /// The `Config` the route handlers get: this stack's values, under the variables the
    /// functions read, through the functions' own reader (`Config::read`): the same
    /// defaults, checks and problems as a deployed function's.
    pub fn config(&self) -> Result<Config, ConfigError> {
        let variables = self.shared_variables();
        Config::read(EnvReader::new(|name| variables.get(name).cloned()))
    }

    /// The shared settings' variables, as this stack's flags and environment set them.
    fn shared_variables(&self) -> HashMap<&'static str, String> {
        use config::settings as s;
        let (storage, presence) = (&self.storage, &self.presence);
        let parties = &self.parties;
        let mut variables = HashMap::from([
            (s::GAME.variable, self.game.clone()),
            (s::STAGE.variable, self.stage.clone()),
            (s::PLAYERS_TABLE.variable, storage.players_table.clone()),
            (s::MESSAGES_TABLE.variable, storage.messages_table.clone()),
            (
                s::PLACEMENTS_TABLE.variable,
                storage.placements_table.clone(),
            ),
            (
                s::SUBSCRIPTIONS_TABLE.variable,
                storage.subscriptions_table.clone(),
            ),
            (s::PARTIES_TABLE.variable, storage.parties_table.clone()),
            (s::FRIENDS_TABLE.variable, storage.friends_table.clone()),
            // The in-process bus has no name of its own; this is the template's.
            (
                s::PRESENCE_EVENT_BUS.variable,
                config::local_presence_event_bus(&self.game),
            ),
            (
                s::GAME_SESSION_QUEUES.variable,
                self.placement.game_session_queues.clone(),
            ),
            (
                s::MAX_PLAYERS_PER_SESSION.variable,
                self.placement.max_players_per_session.to_string(),
            ),
            (
                s::MESSAGE_TTL_SECONDS.variable,
                storage.message_ttl_seconds.to_string(),
            ),
            (
                s::HEARTBEAT_TIMEOUT_SECONDS.variable,
                presence.heartbeat_timeout_seconds.to_string(),
            ),
            (
                s::PRESENCE_LIVENESS.variable,
                presence.presence_liveness.to_string(),
            ),
            (
                s::RECONNECT_GRACE_SECONDS.variable,
                presence.reconnect_grace_seconds.to_string(),
            ),
            (
                s::PRESENCE_SHARDS.variable,
                presence.presence_shards.to_string(),
            ),
            (
                s::PARTY_MAX_SIZE.variable,
                parties.party_max_size.to_string(),
            ),
            (
                s::PARTY_INVITE_TTL_SECONDS.variable,
                parties.party_invite_ttl_seconds.to_string(),
            ),
            (
                s::PARTY_OFFLINE_SECONDS.variable,
                parties.party_offline_seconds.to_string(),
            ),
            (
                s::PARTY_INVITE_LEADER_ONLY.variable,
                parties.party_invite_leader_only.to_string(),
            ),
            (
                s::PLAYER_GATEWAY.variable,
                self.placement.player_gateway.to_string(),
            ),
            (
                s::DETAILED_METRICS.variable,
                self.detailed_metrics.to_string(),
            ),
        ]);
        variables.extend(self.rate_limits.variables());
        variables
    }

    /// The GameLift simulator's settings, checked by the simulator; its queues are
    /// `GAME_SESSION_QUEUES`, the ones the handlers accept.
    pub fn simulator_settings(&self) -> Result<SimulatorSettings, ConfigError> {
        let sim = &self.simulator;
        let settings = SimulatorSettings {
            fleet_servers: sim.sim_fleet_servers,
            sessions_per_server: sim.sim_sessions_per_server,
            server_startup: Duration::from_millis(sim.sim_server_startup_ms),
            server_shutdown: Duration::from_millis(sim.sim_server_shutdown_ms),
            placement_delay: Duration::from_millis(sim.sim_placement_delay_ms),
            queue_timeout: Duration::from_secs(sim.sim_queue_timeout_seconds),
            game_session_duration: Duration::from_secs(sim.sim_game_session_seconds),
            region: sim.sim_region.clone(),
            account_id: sim.sim_account_id.clone(),
            fleet_id: sim.sim_fleet_id.clone(),
            server_ip: sim.sim_server_ip.clone(),
            server_dns: sim.sim_server_dns.clone(),
            server_port_base: sim.sim_server_port_base,
            queues: queue_names(&self.placement.game_session_queues),
            custom_event_data: sim.sim_custom_event_data.clone(),
            // The fleet is as the backend says it is, unless told otherwise.
            player_gateway: sim
                .sim_player_gateway
                .unwrap_or(self.placement.player_gateway),
            player_gateway_token: Duration::from_secs(sim.sim_player_gateway_token_seconds),
            game_session_activation: Duration::from_secs(
                self.game_servers.sim_game_session_activation_seconds,
            ),
            heartbeat_interval: Duration::from_millis(self.game_servers.sim_heartbeat_interval_ms),
            termination_grace: Duration::from_secs(self.game_servers.sim_termination_grace_seconds),
            reconnect_window: Duration::from_secs(self.game_servers.sim_reconnect_window_seconds),
            ..SimulatorSettings::default()
        };
        let problems = settings.problems();
        if problems.is_empty() {
            Ok(settings)
        } else {
            Err(ConfigError { problems })
        }
    }

    pub fn idle_timeout(&self) -> Duration {
        Duration::from_secs(self.gateway.idle_timeout_seconds)
    }

    pub fn max_connection_duration(&self) -> Duration {
        Duration::from_secs(self.gateway.max_connection_seconds)
    }

    /// The event source mapping of the Messages stream (both stream modes).
    pub fn stream_mapping(&self) -> FeederConfig {
        let stream = &self.stream;
        FeederConfig {
            partitions: stream.stream_shards.max(1) as usize,
            batch_size: stream.stream_batch_size.max(1) as usize,
            max_retry_attempts: u32::try_from(stream.stream_max_retry_attempts).ok(),
            initial_backoff: STREAM_INITIAL_BACKOFF,
            max_backoff: STREAM_MAX_BACKOFF,
            function_timeout: STREAM_FUNCTION_TIMEOUT,
        }
    }

    /// Where the Messages stream comes from: the in-memory store, or the table's
    /// stream at `--dynamodb-endpoint`.
    pub fn stream_source(&self) -> StreamSource {
        match &self.storage.dynamodb_endpoint {
            None => StreamSource::Memory,
            Some(endpoint) => StreamSource::DynamoDb(PollerConfig {
                endpoint: endpoint.clone(),
                table: self.storage.messages_table.clone(),
                poll_interval: Duration::from_millis(self.stream.stream_poll_interval_ms.max(1)),
                limit: i32::try_from(self.stream.stream_batch_size.clamp(1, 1000)).unwrap_or(100),
            }),
        }
    }
}

/// "NAME=value is not a whole number from a to b", if it is not.
fn out_of_range<T: PartialOrd + fmt::Display>(
    name: &str,
    value: T,
    range: &RangeInclusive<T>,
    unit: Option<&str>,
) -> Option<String> {
    (!range.contains(&value)).then(|| {
        format!(
            "{name}={value} is not {}",
            config::whole_number(range, unit)
        )
    })
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
