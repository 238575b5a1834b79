//! Typed configuration read once at init. A bad deployment fails on cold start with
//! the list of every missing or malformed variable, not on the first request.

use std::collections::HashMap;
use std::fmt;
use std::ops::RangeInclusive;
use std::str::FromStr;
use std::time::Duration;

use gamelift_sockets_protocol::{KeepAlive, KeepAliveRoute};

// Defaults and accepted values of the shared knobs: what a function assumes when a
// variable is unset, and the local stack's own defaults (its `--help` shows them).

pub const DEFAULT_GAME: &str = "gamelift-sockets";
/// The template's default stage.
pub const DEFAULT_STAGE: &str = "Development";
/// Table names of the local stack and the tests (a deployed stack's come from the template).
pub const DEFAULT_PLAYERS_TABLE: &str = "Players";
pub const DEFAULT_MESSAGES_TABLE: &str = "Messages";
pub const DEFAULT_PLACEMENTS_TABLE: &str = "Placements";
pub const DEFAULT_SUBSCRIPTIONS_TABLE: &str = "PresenceSubscriptions";
pub const DEFAULT_PARTIES_TABLE: &str = "Parties";
/// The local stack's one queue (a deployed stack names its own: no default there).
pub const DEFAULT_GAME_SESSION_QUEUES: &str = "default-queue";
pub const DEFAULT_MAX_PLAYERS_PER_SESSION: u32 = 8;
/// GameLift's `MaximumPlayerSessionCount` allows at most 200.
pub const MAX_PLAYERS_PER_SESSION_RANGE: RangeInclusive<u32> = 1..=200;
pub const DEFAULT_MESSAGE_TTL_SECONDS: u64 = 86_400;
/// From a minute to two weeks.
pub const MESSAGE_TTL_SECONDS_RANGE: RangeInclusive<u64> = 60..=1_209_600;
pub const DEFAULT_HEARTBEAT_TIMEOUT_SECONDS: u64 = 90;
/// Up to API Gateway's maximum connection duration (2 hours).
pub const HEARTBEAT_TIMEOUT_SECONDS_RANGE: RangeInclusive<u64> = 1..=7_200;
/// What keeps a player online (`PRESENCE_LIVENESS`): heartbeats only, by default.
pub const DEFAULT_PRESENCE_LIVENESS: PresenceLiveness = PresenceLiveness::Heartbeat;
pub const DEFAULT_RECONNECT_GRACE_SECONDS: u64 = 30;
pub const RECONNECT_GRACE_SECONDS_RANGE: RangeInclusive<u64> = 0..=3_600;
pub const DEFAULT_PRESENCE_SHARDS: u32 = 4;
pub const PRESENCE_SHARDS_RANGE: RangeInclusive<u32> = 1..=64;
/// Per-player limits per minute (0 turns one off).
pub const DEFAULT_RATE_LIMIT_MESSAGES_PER_MINUTE: u32 = 120;
pub const DEFAULT_RATE_LIMIT_RECIPIENTS_PER_MINUTE: u32 = 600;
pub const DEFAULT_RATE_LIMIT_PLACEMENTS_PER_MINUTE: u32 = 10;
pub const DEFAULT_RATE_LIMIT_PARTY_INVITES_PER_MINUTE: u32 = 30;
pub const RATE_LIMIT_RANGE: RangeInclusive<u32> = 0..=1_000_000;
/// Parties: the largest a party may be, at most 10 so that a party fits one FlexMatch
/// ticket (and a party's change, one transaction).
pub const DEFAULT_PARTY_MAX_SIZE: u32 = 8;
pub const PARTY_MAX_SIZE_RANGE: RangeInclusive<u32> =
    gamelift_sockets_protocol::party::MIN_PARTY_SIZE
        ..=gamelift_sockets_protocol::party::MAX_PARTY_SIZE;
pub const DEFAULT_PARTY_INVITE_TTL_SECONDS: u64 = 300;
pub const PARTY_INVITE_TTL_SECONDS_RANGE: RangeInclusive<u64> = 10..=86_400;
pub const DEFAULT_PARTY_OFFLINE_SECONDS: u64 = 120;
pub const PARTY_OFFLINE_SECONDS_RANGE: RangeInclusive<u64> = 0..=86_400;

/// What a numeric knob accepts, as every problem says it: "a whole number from 1 to 64",
/// or with a unit, "a whole number of seconds from 1 to 7200".
pub fn whole_number<T: fmt::Display>(range: &RangeInclusive<T>, unit: Option<&str>) -> String {
    match unit {
        Some(unit) => format!(
            "a whole number of {unit} from {} to {}",
            range.start(),
            range.end()
        ),
        None => format!("a whole number from {} to {}", range.start(), range.end()),
    }
}

/// `GAME_SESSION_QUEUES`: comma-separated names (or ARNs), in order; blanks around and
/// between commas are ignored, duplicates dropped.
pub fn queue_names(raw: &str) -> Vec<String> {
    let mut queues: Vec<String> = Vec::new();
    for queue in raw.split(',').map(str::trim).filter(|q| !q.is_empty()) {
        if !queues.iter().any(|q| q == queue) {
            queues.push(queue.to_owned());
        }
    }
    queues
}

/// What the sweeper counts as a player's sign of life (`PRESENCE_LIVENESS`), and so what
/// `resume` tells clients to send (docs/architecture.md#presence-liveness).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PresenceLiveness {
    /// `heartbeat`: only a heartbeat moves a player's deadline, and the sweeper trusts the
    /// deadline alone. What AWS documents is all it rests on.
    Heartbeat,
    /// `connection-activity`: clients `ping` when they have no new cursor to report, and
    /// before sweeping an online player the sweeper asks API Gateway when the socket was
    /// last active (GetConnection's `lastActiveAt`). Cheaper, but it rests on how
    /// `lastActiveAt` moves, which AWS does not document: check it on your deployment
    /// first (`smoke --check-assumptions`).
    ConnectionActivity,
}

impl PresenceLiveness {
    /// Every value, in the order the documentation lists them.
    pub const ALL: [Self; 2] = [Self::Heartbeat, Self::ConnectionActivity];

    /// The value of `PRESENCE_LIVENESS`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Heartbeat => "heartbeat",
            Self::ConnectionActivity => "connection-activity",
        }
    }

    /// The frame clients send when they have nothing new to report.
    pub fn keep_alive_route(self) -> KeepAliveRoute {
        match self {
            Self::Heartbeat => KeepAliveRoute::Heartbeat,
            Self::ConnectionActivity => KeepAliveRoute::Ping,
        }
    }
}

impl fmt::Display for PresenceLiveness {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for PresenceLiveness {
    type Err = String;

    fn from_str(raw: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|liveness| liveness.as_str() == raw)
            .ok_or_else(|| format!("{raw:?} is not heartbeat or connection-activity"))
    }
}

/// Every problem found while reading the environment, reported together.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct ConfigError {
    pub problems: Vec<String>,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid configuration: {}", self.problems.join("; "))
    }
}

/// Reads variables from a source (the process environment, or a map in tests) and
/// collects problems instead of stopping at the first one.
type Lookup<'a> = Box<dyn Fn(&str) -> Option<String> + 'a>;

pub struct EnvReader<'a> {
    lookup: Lookup<'a>,
    problems: Vec<String>,
}

impl<'a> EnvReader<'a> {
    pub fn from_process() -> Self {
        Self::new(|name| std::env::var(name).ok())
    }

    pub fn from_map(vars: &'a HashMap<String, String>) -> Self {
        Self::new(move |name| vars.get(name).cloned())
    }

    pub fn new(lookup: impl Fn(&str) -> Option<String> + 'a) -> Self {
        Self {
            lookup: Box::new(lookup),
            problems: Vec::new(),
        }
    }

    /// The raw value, with surrounding whitespace removed; empty counts as unset.
    pub fn optional(&mut self, name: &str) -> Option<String> {
        (self.lookup)(name)
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty())
    }

    pub fn required(&mut self, name: &str) -> String {
        self.optional(name).unwrap_or_else(|| {
            self.problems.push(format!("{name} is not set"));
            String::new()
        })
    }

    /// A parsed value, or `default` when unset. A value that does not parse is a problem.
    pub fn parsed_or<T: FromStr>(&mut self, name: &str, default: T, expected: &str) -> T {
        match self.optional(name) {
            None => default,
            Some(raw) => raw.parse().unwrap_or_else(|_| {
                self.problems
                    .push(format!("{name}={raw:?} is not {expected}"));
                default
            }),
        }
    }

    /// A whole number of seconds within `range`.
    pub fn seconds_or(&mut self, name: &str, default: u64, range: RangeInclusive<u64>) -> Duration {
        let expected = whole_number(&range, Some("seconds"));
        let secs = self.parsed_or(name, default, &expected);
        if !range.contains(&secs) {
            self.problems
                .push(format!("{name}={secs} is not {expected}"));
        }
        Duration::from_secs(secs)
    }

    pub fn problem(&mut self, message: impl Into<String>) {
        self.problems.push(message.into());
    }

    pub fn finish(self) -> Result<(), ConfigError> {
        if self.problems.is_empty() {
            Ok(())
        } else {
            Err(ConfigError {
                problems: self.problems,
            })
        }
    }
}

/// Settings every function shares (docs/architecture.md#configuration-surface).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    pub game: String,
    pub stage: String,
    pub players_table: String,
    pub messages_table: String,
    /// The Placements table.
    pub placements_table: String,
    /// GameLift queues a placement may name; the first is the default (at least one).
    pub game_session_queues: Vec<String>,
    /// `MaximumPlayerSessionCount` of the game sessions placements create (1–200).
    pub max_players_per_session: u32,
    /// The PresenceSubscriptions table.
    pub subscriptions_table: String,
    /// The custom EventBridge bus presence events go to (name or ARN).
    pub presence_event_bus: String,
    /// Undelivered messages are kept this long.
    pub message_ttl: Duration,
    /// No heartbeat for this long: the sweeper marks the player offline.
    pub heartbeat_timeout: Duration,
    /// What counts as a sign of life besides a heartbeat.
    pub presence_liveness: PresenceLiveness,
    /// A disconnected player may resume within this.
    pub reconnect_grace: Duration,
    /// Partitions of the `BySweepShard` index.
    pub presence_shards: u32,
    /// Per-player rate limits.
    pub rate_limits: RateLimits,
    /// The Parties table.
    pub parties_table: String,
    /// How parties behave.
    pub parties: PartySettings,
}

/// How parties behave (docs/architecture.md#playing-in-parties).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartySettings {
    /// The most members a party may have (`PARTY_MAX_SIZE`, 2–10); `createParty` may ask
    /// for fewer.
    pub max_size: u32,
    /// An invitation can be taken up this long (`PARTY_INVITE_TTL_SECONDS`).
    pub invite_ttl: Duration,
    /// An offline member stays a member this long after the sweeper took them offline
    /// (`PARTY_OFFLINE_SECONDS`).
    pub offline: Duration,
    /// Only the leader may invite (`PARTY_INVITE_LEADER_ONLY`); otherwise any member may.
    pub invite_leader_only: bool,
}

impl PartySettings {
    pub const DEFAULT: Self = Self {
        max_size: DEFAULT_PARTY_MAX_SIZE,
        invite_ttl: Duration::from_secs(DEFAULT_PARTY_INVITE_TTL_SECONDS),
        offline: Duration::from_secs(DEFAULT_PARTY_OFFLINE_SECONDS),
        invite_leader_only: false,
    };
}

/// Per-player limits per one-minute window (docs/architecture.md#rate-limits); 0 turns
/// one off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimits {
    /// `sendMessage` frames (`RATE_LIMIT_MESSAGES_PER_MINUTE`).
    pub messages_per_minute: u32,
    /// Recipients over those frames (`RATE_LIMIT_RECIPIENTS_PER_MINUTE`).
    pub recipients_per_minute: u32,
    /// `sessionPlacementRequest`s (`RATE_LIMIT_PLACEMENTS_PER_MINUTE`).
    pub placements_per_minute: u32,
    /// `inviteToParty` requests (`RATE_LIMIT_PARTY_INVITES_PER_MINUTE`): invitations are
    /// the one party route that writes to other players' inboxes.
    pub party_invites_per_minute: u32,
}

impl RateLimits {
    pub const DEFAULT: Self = Self {
        messages_per_minute: DEFAULT_RATE_LIMIT_MESSAGES_PER_MINUTE,
        recipients_per_minute: DEFAULT_RATE_LIMIT_RECIPIENTS_PER_MINUTE,
        placements_per_minute: DEFAULT_RATE_LIMIT_PLACEMENTS_PER_MINUTE,
        party_invites_per_minute: DEFAULT_RATE_LIMIT_PARTY_INVITES_PER_MINUTE,
    };
    /// No limit at all (load benchmarks).
    pub const OFF: Self = Self {
        messages_per_minute: 0,
        recipients_per_minute: 0,
        placements_per_minute: 0,
        party_invites_per_minute: 0,
    };
}

impl Config {
    /// Reads the process environment. On failure every problem is also logged (the
    /// error a Lambda `main` returns reaches the logs only as a debug dump, outside the
    /// JSON log stream).
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::read(EnvReader::from_process()).inspect_err(|error| {
            for problem in &error.problems {
                tracing::error!(problem = %problem, "invalid configuration");
            }
        })
    }

    pub fn from_map(vars: &HashMap<String, String>) -> Result<Self, ConfigError> {
        Self::read(EnvReader::from_map(vars))
    }

    fn read(mut env: EnvReader<'_>) -> Result<Self, ConfigError> {
        let seconds = |env: &mut EnvReader<'_>, name, default, range| {
            let expected = whole_number(range, Some("seconds"));
            Duration::from_secs(env.parsed_or(name, default, &expected))
        };
        let config = Self {
            game: env.required("GAME"),
            stage: env.required("STAGE"),
            players_table: env.required("PLAYERS_TABLE"),
            messages_table: env.required("MESSAGES_TABLE"),
            placements_table: env.required("PLACEMENTS_TABLE"),
            game_session_queues: game_session_queues(&mut env),
            max_players_per_session: env.parsed_or(
                "MAX_PLAYERS_PER_SESSION",
                DEFAULT_MAX_PLAYERS_PER_SESSION,
                &whole_number(&MAX_PLAYERS_PER_SESSION_RANGE, None),
            ),
            subscriptions_table: env.required("SUBSCRIPTIONS_TABLE"),
            presence_event_bus: env.required("PRESENCE_EVENT_BUS"),
            message_ttl: seconds(
                &mut env,
                "MESSAGE_TTL_SECONDS",
                DEFAULT_MESSAGE_TTL_SECONDS,
                &MESSAGE_TTL_SECONDS_RANGE,
            ),
            heartbeat_timeout: seconds(
                &mut env,
                "HEARTBEAT_TIMEOUT_SECONDS",
                DEFAULT_HEARTBEAT_TIMEOUT_SECONDS,
                &HEARTBEAT_TIMEOUT_SECONDS_RANGE,
            ),
            presence_liveness: env.parsed_or(
                "PRESENCE_LIVENESS",
                DEFAULT_PRESENCE_LIVENESS,
                "heartbeat or connection-activity",
            ),
            reconnect_grace: seconds(
                &mut env,
                "RECONNECT_GRACE_SECONDS",
                DEFAULT_RECONNECT_GRACE_SECONDS,
                &RECONNECT_GRACE_SECONDS_RANGE,
            ),
            presence_shards: env.parsed_or(
                "PRESENCE_SHARDS",
                DEFAULT_PRESENCE_SHARDS,
                &whole_number(&PRESENCE_SHARDS_RANGE, None),
            ),
            rate_limits: RateLimits {
                messages_per_minute: env.parsed_or(
                    "RATE_LIMIT_MESSAGES_PER_MINUTE",
                    DEFAULT_RATE_LIMIT_MESSAGES_PER_MINUTE,
                    &whole_number(&RATE_LIMIT_RANGE, None),
                ),
                recipients_per_minute: env.parsed_or(
                    "RATE_LIMIT_RECIPIENTS_PER_MINUTE",
                    DEFAULT_RATE_LIMIT_RECIPIENTS_PER_MINUTE,
                    &whole_number(&RATE_LIMIT_RANGE, None),
                ),
                placements_per_minute: env.parsed_or(
                    "RATE_LIMIT_PLACEMENTS_PER_MINUTE",
                    DEFAULT_RATE_LIMIT_PLACEMENTS_PER_MINUTE,
                    &whole_number(&RATE_LIMIT_RANGE, None),
                ),
                party_invites_per_minute: env.parsed_or(
                    "RATE_LIMIT_PARTY_INVITES_PER_MINUTE",
                    DEFAULT_RATE_LIMIT_PARTY_INVITES_PER_MINUTE,
                    &whole_number(&RATE_LIMIT_RANGE, None),
                ),
            },
            parties_table: env.required("PARTIES_TABLE"),
            parties: PartySettings {
                max_size: env.parsed_or(
                    "PARTY_MAX_SIZE",
                    DEFAULT_PARTY_MAX_SIZE,
                    &whole_number(&PARTY_MAX_SIZE_RANGE, None),
                ),
                invite_ttl: seconds(
                    &mut env,
                    "PARTY_INVITE_TTL_SECONDS",
                    DEFAULT_PARTY_INVITE_TTL_SECONDS,
                    &PARTY_INVITE_TTL_SECONDS_RANGE,
                ),
                offline: seconds(
                    &mut env,
                    "PARTY_OFFLINE_SECONDS",
                    DEFAULT_PARTY_OFFLINE_SECONDS,
                    &PARTY_OFFLINE_SECONDS_RANGE,
                ),
                invite_leader_only: env.parsed_or(
                    "PARTY_INVITE_LEADER_ONLY",
                    false,
                    "true or false",
                ),
            },
        };
        for problem in config.problems() {
            env.problem(problem);
        }
        env.finish()?;
        Ok(config)
    }

    /// Every value outside what its variable accepts, one problem each, named by the
    /// variable (`from_env` reports these too; a `Config` built in code is checked here).
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        for (name, value, range) in [
            (
                "MAX_PLAYERS_PER_SESSION",
                self.max_players_per_session,
                MAX_PLAYERS_PER_SESSION_RANGE,
            ),
            (
                "PRESENCE_SHARDS",
                self.presence_shards,
                PRESENCE_SHARDS_RANGE,
            ),
            (
                "RATE_LIMIT_MESSAGES_PER_MINUTE",
                self.rate_limits.messages_per_minute,
                RATE_LIMIT_RANGE,
            ),
            (
                "RATE_LIMIT_RECIPIENTS_PER_MINUTE",
                self.rate_limits.recipients_per_minute,
                RATE_LIMIT_RANGE,
            ),
            (
                "RATE_LIMIT_PLACEMENTS_PER_MINUTE",
                self.rate_limits.placements_per_minute,
                RATE_LIMIT_RANGE,
            ),
            (
                "RATE_LIMIT_PARTY_INVITES_PER_MINUTE",
                self.rate_limits.party_invites_per_minute,
                RATE_LIMIT_RANGE,
            ),
            (
                "PARTY_MAX_SIZE",
                self.parties.max_size,
                PARTY_MAX_SIZE_RANGE,
            ),
        ] {
            if !range.contains(&value) {
                problems.push(format!(
                    "{name}={value} is not {}",
                    whole_number(&range, None)
                ));
            }
        }
        for (name, value, range) in [
            (
                "MESSAGE_TTL_SECONDS",
                self.message_ttl,
                MESSAGE_TTL_SECONDS_RANGE,
            ),
            (
                "HEARTBEAT_TIMEOUT_SECONDS",
                self.heartbeat_timeout,
                HEARTBEAT_TIMEOUT_SECONDS_RANGE,
            ),
            (
                "RECONNECT_GRACE_SECONDS",
                self.reconnect_grace,
                RECONNECT_GRACE_SECONDS_RANGE,
            ),
            (
                "PARTY_INVITE_TTL_SECONDS",
                self.parties.invite_ttl,
                PARTY_INVITE_TTL_SECONDS_RANGE,
            ),
            (
                "PARTY_OFFLINE_SECONDS",
                self.parties.offline,
                PARTY_OFFLINE_SECONDS_RANGE,
            ),
        ] {
            let secs = value.as_secs();
            if !range.contains(&secs) {
                problems.push(format!(
                    "{name}={secs} is not {}",
                    whole_number(&range, Some("seconds"))
                ));
            }
        }
        problems
    }

    /// What `resume` tells clients to send, and how often, to keep their player online
    /// behind API Gateway (the local stack passes its own idle timeout to
    /// [`Config::keep_alive_behind`]).
    pub fn keep_alive(&self) -> KeepAlive {
        self.keep_alive_behind(Duration::from_secs(
            gamelift_sockets_protocol::keep_alive::API_GATEWAY_IDLE_TIMEOUT_SECONDS,
        ))
    }

    /// What `resume` tells clients behind a gateway that closes sockets idle this long.
    pub fn keep_alive_behind(&self, idle_timeout: Duration) -> KeepAlive {
        KeepAlive::for_timeouts(
            self.presence_liveness.keep_alive_route(),
            self.heartbeat_timeout.as_secs(),
            idle_timeout.as_secs(),
        )
    }

    /// Settings for tests and the local stack: nothing read from the environment.
    pub fn for_local(stage: &str) -> Self {
        Self {
            game: DEFAULT_GAME.into(),
            stage: stage.into(),
            players_table: DEFAULT_PLAYERS_TABLE.into(),
            messages_table: DEFAULT_MESSAGES_TABLE.into(),
            placements_table: DEFAULT_PLACEMENTS_TABLE.into(),
            game_session_queues: queue_names(DEFAULT_GAME_SESSION_QUEUES),
            max_players_per_session: DEFAULT_MAX_PLAYERS_PER_SESSION,
            subscriptions_table: DEFAULT_SUBSCRIPTIONS_TABLE.into(),
            presence_event_bus: format!("{DEFAULT_GAME}-presence"),
            message_ttl: Duration::from_secs(DEFAULT_MESSAGE_TTL_SECONDS),
            heartbeat_timeout: Duration::from_secs(DEFAULT_HEARTBEAT_TIMEOUT_SECONDS),
            presence_liveness: DEFAULT_PRESENCE_LIVENESS,
            reconnect_grace: Duration::from_secs(DEFAULT_RECONNECT_GRACE_SECONDS),
            presence_shards: DEFAULT_PRESENCE_SHARDS,
            rate_limits: RateLimits::DEFAULT,
            parties_table: DEFAULT_PARTIES_TABLE.into(),
            parties: PartySettings::DEFAULT,
        }
    }
}

/// `GAME_SESSION_QUEUES`: comma-separated GameLift queue names (or ARNs), at least one;
/// blanks around and between commas are ignored, duplicates dropped.
fn game_session_queues(env: &mut EnvReader<'_>) -> Vec<String> {
    let raw = env.required("GAME_SESSION_QUEUES");
    let queues = queue_names(&raw);
    if queues.is_empty() && !raw.is_empty() {
        env.problem(format!(
            "GAME_SESSION_QUEUES={raw:?} names no queue; give comma-separated queue names"
        ));
    }
    queues
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn given_the_required_variables_when_read_then_defaults_fill_the_rest() {
        let config = Config::from_map(&vars(&[
            ("GAME", "chess"),
            ("STAGE", "Development"),
            ("PLAYERS_TABLE", "chess-players"),
            ("MESSAGES_TABLE", "chess-messages"),
            ("PLACEMENTS_TABLE", "chess-placements"),
            ("GAME_SESSION_QUEUES", "chess-eu"),
            ("SUBSCRIPTIONS_TABLE", "chess-subscriptions"),
            ("PRESENCE_EVENT_BUS", "chess-presence"),
            ("PARTIES_TABLE", "chess-parties"),
        ]))
        .expect("valid");
        assert_eq!(config.heartbeat_timeout, Duration::from_secs(90));
        assert_eq!(config.reconnect_grace, Duration::from_secs(30));
        assert_eq!(config.presence_shards, 4);
        assert_eq!(config.game_session_queues, vec!["chess-eu".to_string()]);
        assert_eq!(config.max_players_per_session, 8);
        assert_eq!(config.parties, PartySettings::DEFAULT);
        assert_eq!(config.parties_table, "chess-parties");
    }

    #[test]
    fn given_several_problems_when_read_then_every_one_is_listed() {
        let err = Config::from_map(&vars(&[
            ("STAGE", "Development"),
            ("HEARTBEAT_TIMEOUT_SECONDS", "soon"),
            ("PRESENCE_SHARDS", "0"),
        ]))
        .unwrap_err();
        let text = err.to_string();
        for expected in [
            "GAME is not set",
            "PLAYERS_TABLE is not set",
            "MESSAGES_TABLE is not set",
            "SUBSCRIPTIONS_TABLE is not set",
            "PRESENCE_EVENT_BUS is not set",
            "PLACEMENTS_TABLE is not set",
            "GAME_SESSION_QUEUES is not set",
            "PARTIES_TABLE is not set",
            "HEARTBEAT_TIMEOUT_SECONDS=\"soon\"",
            "PRESENCE_SHARDS=0",
        ] {
            assert!(text.contains(expected), "missing {expected:?} in {text}");
        }
        assert_eq!(err.problems.len(), 10);
    }

    #[test]
    fn given_several_queues_when_read_then_in_order_without_blanks_or_duplicates() {
        let mut map = vars(&[
            ("GAME", "chess"),
            ("STAGE", "Development"),
            ("PLAYERS_TABLE", "p"),
            ("MESSAGES_TABLE", "m"),
            ("SUBSCRIPTIONS_TABLE", "s"),
            ("PRESENCE_EVENT_BUS", "b"),
            ("PLACEMENTS_TABLE", "pl"),
            ("PARTIES_TABLE", "pa"),
            ("GAME_SESSION_QUEUES", " eu-queue, ,us-queue,eu-queue "),
            ("MAX_PLAYERS_PER_SESSION", "200"),
        ]);
        let config = Config::from_map(&map).expect("valid");
        assert_eq!(config.game_session_queues, vec!["eu-queue", "us-queue"]);
        assert_eq!(config.max_players_per_session, 200);

        map.insert("GAME_SESSION_QUEUES".into(), ",,".into());
        map.insert("MAX_PLAYERS_PER_SESSION".into(), "201".into());
        let err = Config::from_map(&map).unwrap_err();
        assert_eq!(err.problems.len(), 2, "{err}");
        let text = err.to_string();
        assert!(text.contains("MAX_PLAYERS_PER_SESSION=201"), "{text}");
        assert!(
            text.contains("GAME_SESSION_QUEUES=\",,\" names no queue"),
            "{text}"
        );

        map.insert("GAME_SESSION_QUEUES".into(), "q".into());
        map.insert("MAX_PLAYERS_PER_SESSION".into(), "0".into());
        assert!(Config::from_map(&map).is_err());
    }

    #[test]
    fn given_presence_liveness_when_read_then_heartbeat_by_default_and_a_wrong_value_is_a_problem()
    {
        let mut map = vars(&[
            ("GAME", "chess"),
            ("STAGE", "Development"),
            ("PLAYERS_TABLE", "p"),
            ("MESSAGES_TABLE", "m"),
            ("PLACEMENTS_TABLE", "pl"),
            ("GAME_SESSION_QUEUES", "q"),
            ("SUBSCRIPTIONS_TABLE", "s"),
            ("PRESENCE_EVENT_BUS", "b"),
            ("PARTIES_TABLE", "pa"),
        ]);
        let config = Config::from_map(&map).expect("valid");
        assert_eq!(config.presence_liveness, PresenceLiveness::Heartbeat);
        assert_eq!(
            config.keep_alive(),
            KeepAlive {
                route: KeepAliveRoute::Heartbeat,
                interval_seconds: 40
            }
        );

        map.insert("PRESENCE_LIVENESS".into(), "connection-activity".into());
        let config = Config::from_map(&map).expect("valid");
        assert_eq!(config.keep_alive().route, KeepAliveRoute::Ping);

        map.insert("PRESENCE_LIVENESS".into(), "pings".into());
        let err = Config::from_map(&map).unwrap_err();
        assert_eq!(
            err.problems,
            vec!["PRESENCE_LIVENESS=\"pings\" is not heartbeat or connection-activity".to_string()]
        );
    }

    #[test]
    fn given_a_blank_variable_when_read_then_it_counts_as_missing() {
        let err = Config::from_map(&vars(&[
            ("GAME", "  "),
            ("STAGE", "Development"),
            ("PLAYERS_TABLE", "p"),
            ("MESSAGES_TABLE", "m"),
            ("PLACEMENTS_TABLE", "pl"),
            ("GAME_SESSION_QUEUES", "q"),
            ("SUBSCRIPTIONS_TABLE", "s"),
            ("PRESENCE_EVENT_BUS", "b"),
            ("PARTIES_TABLE", "pa"),
        ]))
        .unwrap_err();
        assert_eq!(err.problems, vec!["GAME is not set".to_string()]);
    }

    #[test]
    fn given_a_config_built_in_code_then_problems_names_each_value_out_of_range() {
        assert_eq!(
            Config::for_local("Development").problems(),
            Vec::<String>::new()
        );
        let config = Config {
            max_players_per_session: 0,
            presence_shards: 65,
            message_ttl: Duration::from_secs(59),
            heartbeat_timeout: Duration::from_secs(7_201),
            reconnect_grace: Duration::from_secs(3_601),
            parties: PartySettings {
                max_size: 11,
                offline: Duration::from_secs(86_401),
                ..PartySettings::DEFAULT
            },
            ..Config::for_local("Development")
        };
        assert_eq!(
            config.problems(),
            [
                "MAX_PLAYERS_PER_SESSION=0 is not a whole number from 1 to 200",
                "PRESENCE_SHARDS=65 is not a whole number from 1 to 64",
                "PARTY_MAX_SIZE=11 is not a whole number from 2 to 10",
                "MESSAGE_TTL_SECONDS=59 is not a whole number of seconds from 60 to 1209600",
                "HEARTBEAT_TIMEOUT_SECONDS=7201 is not a whole number of seconds from 1 to 7200",
                "RECONNECT_GRACE_SECONDS=3601 is not a whole number of seconds from 0 to 3600",
                "PARTY_OFFLINE_SECONDS=86401 is not a whole number of seconds from 0 to 86400",
            ]
        );
    }
}
