//! Typed configuration read once at init. A bad deployment fails on cold start with
//! the list of every missing or malformed variable, not on the first request.

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;
use std::time::Duration;

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
    pub fn seconds_or(
        &mut self,
        name: &str,
        default: u64,
        range: std::ops::RangeInclusive<u64>,
    ) -> Duration {
        let expected = format!(
            "a whole number of seconds from {} to {}",
            range.start(),
            range.end()
        );
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
    /// A disconnected player may resume within this.
    pub reconnect_grace: Duration,
    /// Partitions of the `BySweepAt` index.
    pub presence_shards: u32,
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
        let config = Self {
            game: env.required("GAME"),
            stage: env.required("STAGE"),
            players_table: env.required("PLAYERS_TABLE"),
            messages_table: env.required("MESSAGES_TABLE"),
            placements_table: env.required("PLACEMENTS_TABLE"),
            game_session_queues: game_session_queues(&mut env),
            max_players_per_session: env.parsed_or(
                "MAX_PLAYERS_PER_SESSION",
                8,
                "a whole number from 1 to 200",
            ),
            subscriptions_table: env.required("SUBSCRIPTIONS_TABLE"),
            presence_event_bus: env.required("PRESENCE_EVENT_BUS"),
            message_ttl: env.seconds_or("MESSAGE_TTL_SECONDS", 86_400, 60..=1_209_600),
            heartbeat_timeout: env.seconds_or("HEARTBEAT_TIMEOUT_SECONDS", 90, 1..=7200),
            reconnect_grace: env.seconds_or("RECONNECT_GRACE_SECONDS", 30, 0..=3600),
            presence_shards: env.parsed_or("PRESENCE_SHARDS", 4, "a whole number from 1 to 64"),
        };
        if !(1..=200).contains(&config.max_players_per_session) {
            env.problem(format!(
                "MAX_PLAYERS_PER_SESSION={} is not a whole number from 1 to 200",
                config.max_players_per_session
            ));
        }
        if !(1..=64).contains(&config.presence_shards) {
            env.problem(format!(
                "PRESENCE_SHARDS={} is not a whole number from 1 to 64",
                config.presence_shards
            ));
        }
        env.finish()?;
        Ok(config)
    }

    /// Settings for tests and the local stack: nothing read from the environment.
    pub fn for_local(stage: &str) -> Self {
        Self {
            game: "gamelift-sockets".into(),
            stage: stage.into(),
            players_table: "Players".into(),
            messages_table: "Messages".into(),
            placements_table: "Placements".into(),
            game_session_queues: vec!["default-queue".into()],
            max_players_per_session: 8,
            subscriptions_table: "PresenceSubscriptions".into(),
            presence_event_bus: "gamelift-sockets-presence".into(),
            message_ttl: Duration::from_secs(86_400),
            heartbeat_timeout: Duration::from_secs(90),
            reconnect_grace: Duration::from_secs(30),
            presence_shards: 4,
        }
    }
}

/// `GAME_SESSION_QUEUES`: comma-separated GameLift queue names (or ARNs), at least one;
/// blanks around and between commas are ignored, duplicates dropped.
fn game_session_queues(env: &mut EnvReader<'_>) -> Vec<String> {
    let raw = env.required("GAME_SESSION_QUEUES");
    let mut queues: Vec<String> = Vec::new();
    for queue in raw.split(',').map(str::trim).filter(|q| !q.is_empty()) {
        if !queues.iter().any(|q| q == queue) {
            queues.push(queue.to_owned());
        }
    }
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
        ]))
        .expect("valid");
        assert_eq!(config.heartbeat_timeout, Duration::from_secs(90));
        assert_eq!(config.reconnect_grace, Duration::from_secs(30));
        assert_eq!(config.presence_shards, 4);
        assert_eq!(config.game_session_queues, vec!["chess-eu".to_string()]);
        assert_eq!(config.max_players_per_session, 8);
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
            "HEARTBEAT_TIMEOUT_SECONDS=\"soon\"",
            "PRESENCE_SHARDS=0",
        ] {
            assert!(text.contains(expected), "missing {expected:?} in {text}");
        }
        assert_eq!(err.problems.len(), 9);
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
        ]))
        .unwrap_err();
        assert_eq!(err.problems, vec!["GAME is not set".to_string()]);
    }
}
