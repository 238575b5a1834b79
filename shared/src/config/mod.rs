//! Typed configuration read once at init. A bad deployment fails on cold start with
//! the list of every missing or malformed variable, not on the first request.
//!
//! Each setting is declared once, in [`settings`] (variable, template parameter, default,
//! range, meaning); [`reader`] reads them; [`Config`] is what every function gets.

use std::collections::HashMap;
use std::time::Duration;

use gamelift_sockets_protocol::keep_alive::API_GATEWAY_IDLE_TIMEOUT_SECONDS;
use gamelift_sockets_protocol::{KeepAlive, KeepAliveRoute};

/// `Display` and `FromStr` of a [`Choice`](settings::Choice) setting's value type, from
/// its `ALL` and `as_str`: shown as its word, read from its exact word (the reader
/// matches any case first), anything else refused with the words `$setting` accepts.
macro_rules! choice_words {
    ($type:ty, $setting:expr) => {
        impl std::fmt::Display for $type {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl std::str::FromStr for $type {
            type Err = String;

            fn from_str(raw: &str) -> Result<Self, Self::Err> {
                Self::ALL
                    .into_iter()
                    .find(|value| value.as_str() == raw)
                    .ok_or_else(|| format!("{raw:?} is not {}", $setting.accepts()))
            }
        }
    };
}

mod player_gateway;
pub mod reader;
pub mod settings;

pub use player_gateway::{DEFAULT_PLAYER_GATEWAY, PlayerGateway};
pub use reader::{ConfigError, EnvReader, whole_number};

/// `PRESENCE_LIVENESS`'s default, as its type.
pub const DEFAULT_PRESENCE_LIVENESS: PresenceLiveness = PresenceLiveness::Heartbeat;

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
/// `resume` tells clients to send (shared/src/players.rs).
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
    /// Every value, in the order `settings::PRESENCE_LIVENESS` lists them.
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

choice_words!(PresenceLiveness, settings::PRESENCE_LIVENESS);

/// Settings every function shares (shared/src/config/settings.rs).
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
    /// The Friends table.
    pub friends_table: String,
    /// How parties behave.
    pub parties: PartySettings,
    /// Whether the queues' fleets use player gateway: where seats' connection details
    /// come from.
    pub player_gateway: PlayerGateway,
    /// `DETAILED_METRICS`: the metrics' detailed series too (the recorder reads it where
    /// it is installed, `shared::metrics::install_for_lambda`, before any `Config`).
    pub detailed_metrics: bool,
}

/// How parties behave (shared/src/party/mod.rs).
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
        max_size: settings::PARTY_MAX_SIZE.default,
        invite_ttl: Duration::from_secs(settings::PARTY_INVITE_TTL_SECONDS.default),
        offline: Duration::from_secs(settings::PARTY_OFFLINE_SECONDS.default),
        invite_leader_only: settings::PARTY_INVITE_LEADER_ONLY.default,
    };
}

/// Per-player limits per one-minute window (shared/src/rate_limits.rs); 0 turns
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
    /// `addFriend` requests (`RATE_LIMIT_FRIEND_INVITES_PER_MINUTE`): each may write an
    /// invitation to another player's inbox.
    pub friend_invites_per_minute: u32,
    /// `setActivity` requests (`RATE_LIMIT_ACTIVITY_PER_MINUTE`): each one pushes a
    /// `presence` frame to every friend and subscriber.
    pub activity_per_minute: u32,
}

impl RateLimits {
    pub const DEFAULT: Self = Self {
        messages_per_minute: settings::RATE_LIMIT_MESSAGES_PER_MINUTE.default,
        recipients_per_minute: settings::RATE_LIMIT_RECIPIENTS_PER_MINUTE.default,
        placements_per_minute: settings::RATE_LIMIT_PLACEMENTS_PER_MINUTE.default,
        party_invites_per_minute: settings::RATE_LIMIT_PARTY_INVITES_PER_MINUTE.default,
        friend_invites_per_minute: settings::RATE_LIMIT_FRIEND_INVITES_PER_MINUTE.default,
        activity_per_minute: settings::RATE_LIMIT_ACTIVITY_PER_MINUTE.default,
    };
    /// No limit at all (load benchmarks).
    pub const OFF: Self = Self {
        messages_per_minute: 0,
        recipients_per_minute: 0,
        placements_per_minute: 0,
        party_invites_per_minute: 0,
        friend_invites_per_minute: 0,
        activity_per_minute: 0,
    };
}

impl Config {
    /// [`Config::message_ttl`] in the seconds a message's TTL adds.
    pub fn message_ttl_secs(&self) -> i64 {
        i64::try_from(self.message_ttl.as_secs()).unwrap_or(i64::MAX)
    }

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

    /// Reads every setting from `env` (the process environment, a map, or the local
    /// stack's flags), listing every problem at once.
    pub fn read(mut env: EnvReader<'_>) -> Result<Self, ConfigError> {
        use settings as s;
        let config = Self {
            game: env.text(&s::GAME),
            stage: env.text(&s::STAGE),
            players_table: env.text(&s::PLAYERS_TABLE),
            messages_table: env.text(&s::MESSAGES_TABLE),
            placements_table: env.text(&s::PLACEMENTS_TABLE),
            game_session_queues: game_session_queues(&mut env),
            max_players_per_session: env.whole(&s::MAX_PLAYERS_PER_SESSION),
            subscriptions_table: env.text(&s::SUBSCRIPTIONS_TABLE),
            presence_event_bus: env.text(&s::PRESENCE_EVENT_BUS),
            message_ttl: env.seconds(&s::MESSAGE_TTL_SECONDS),
            heartbeat_timeout: env.seconds(&s::HEARTBEAT_TIMEOUT_SECONDS),
            presence_liveness: env
                .choice(&s::PRESENCE_LIVENESS)
                .unwrap_or(DEFAULT_PRESENCE_LIVENESS),
            reconnect_grace: env.seconds(&s::RECONNECT_GRACE_SECONDS),
            presence_shards: env.whole(&s::PRESENCE_SHARDS),
            rate_limits: RateLimits {
                messages_per_minute: env.whole(&s::RATE_LIMIT_MESSAGES_PER_MINUTE),
                recipients_per_minute: env.whole(&s::RATE_LIMIT_RECIPIENTS_PER_MINUTE),
                placements_per_minute: env.whole(&s::RATE_LIMIT_PLACEMENTS_PER_MINUTE),
                party_invites_per_minute: env.whole(&s::RATE_LIMIT_PARTY_INVITES_PER_MINUTE),
                friend_invites_per_minute: env.whole(&s::RATE_LIMIT_FRIEND_INVITES_PER_MINUTE),
                activity_per_minute: env.whole(&s::RATE_LIMIT_ACTIVITY_PER_MINUTE),
            },
            parties_table: env.text(&s::PARTIES_TABLE),
            friends_table: env.text(&s::FRIENDS_TABLE),
            parties: PartySettings {
                max_size: env.whole(&s::PARTY_MAX_SIZE),
                invite_ttl: env.seconds(&s::PARTY_INVITE_TTL_SECONDS),
                offline: env.seconds(&s::PARTY_OFFLINE_SECONDS),
                invite_leader_only: env.flag(&s::PARTY_INVITE_LEADER_ONLY),
            },
            player_gateway: env
                .choice(&s::PLAYER_GATEWAY)
                .unwrap_or(DEFAULT_PLAYER_GATEWAY),
            detailed_metrics: env.flag(&s::DETAILED_METRICS),
        };
        env.finish()?;
        Ok(config)
    }

    /// Every value outside what its variable accepts, one problem each, named by the
    /// variable: what [`Config::read`] refuses, for a `Config` built in code.
    pub fn problems(&self) -> Vec<String> {
        use settings as s;
        let seconds =
            |setting: &settings::Whole<u64>, value: Duration| setting.check(value.as_secs());
        [
            s::MAX_PLAYERS_PER_SESSION.check(self.max_players_per_session),
            s::PRESENCE_SHARDS.check(self.presence_shards),
            s::RATE_LIMIT_MESSAGES_PER_MINUTE.check(self.rate_limits.messages_per_minute),
            s::RATE_LIMIT_RECIPIENTS_PER_MINUTE.check(self.rate_limits.recipients_per_minute),
            s::RATE_LIMIT_PLACEMENTS_PER_MINUTE.check(self.rate_limits.placements_per_minute),
            s::RATE_LIMIT_PARTY_INVITES_PER_MINUTE.check(self.rate_limits.party_invites_per_minute),
            s::RATE_LIMIT_FRIEND_INVITES_PER_MINUTE
                .check(self.rate_limits.friend_invites_per_minute),
            s::RATE_LIMIT_ACTIVITY_PER_MINUTE.check(self.rate_limits.activity_per_minute),
            s::PARTY_MAX_SIZE.check(self.parties.max_size),
            seconds(&s::MESSAGE_TTL_SECONDS, self.message_ttl),
            seconds(&s::HEARTBEAT_TIMEOUT_SECONDS, self.heartbeat_timeout),
            seconds(&s::RECONNECT_GRACE_SECONDS, self.reconnect_grace),
            seconds(&s::PARTY_INVITE_TTL_SECONDS, self.parties.invite_ttl),
            seconds(&s::PARTY_OFFLINE_SECONDS, self.parties.offline),
        ]
        .into_iter()
        .flatten()
        .collect()
    }

    /// The sweeper's deadline for a player last heard from at `now`: the one place the
    /// timeout is added (the heartbeat route's mapping template does the same sum, tested
    /// against this one end to end: tests/suites/presence.rs).
    pub fn heartbeat_deadline(
        &self,
        now: crate::domain::EpochMillis,
    ) -> crate::domain::EpochMillis {
        now.saturating_add(i64::try_from(self.heartbeat_timeout.as_millis()).unwrap_or(i64::MAX))
    }

    /// What `resume` tells clients to send, and how often, to keep their player online
    /// behind API Gateway (the local stack passes its own idle timeout to
    /// [`Config::keep_alive_behind`]).
    pub fn keep_alive(&self) -> KeepAlive {
        self.keep_alive_behind(Duration::from_secs(API_GATEWAY_IDLE_TIMEOUT_SECONDS))
    }

    /// What `resume` tells clients behind a gateway that closes sockets idle this long.
    pub fn keep_alive_behind(&self, idle_timeout: Duration) -> KeepAlive {
        KeepAlive::for_timeouts(
            self.presence_liveness.keep_alive_route(),
            self.heartbeat_timeout.as_secs(),
            idle_timeout.as_secs(),
        )
    }

    /// Settings for tests and the local stack: every default, nothing read from the
    /// environment.
    pub fn for_local(stage: &str) -> Self {
        use settings as s;
        let text = |setting: &settings::Text| setting.default.unwrap_or_default().to_owned();
        Self {
            game: text(&s::GAME),
            stage: stage.into(),
            players_table: text(&s::PLAYERS_TABLE),
            messages_table: text(&s::MESSAGES_TABLE),
            placements_table: text(&s::PLACEMENTS_TABLE),
            game_session_queues: queue_names(&text(&s::GAME_SESSION_QUEUES)),
            max_players_per_session: s::MAX_PLAYERS_PER_SESSION.default,
            subscriptions_table: text(&s::SUBSCRIPTIONS_TABLE),
            presence_event_bus: local_presence_event_bus(&text(&s::GAME)),
            message_ttl: Duration::from_secs(s::MESSAGE_TTL_SECONDS.default),
            heartbeat_timeout: Duration::from_secs(s::HEARTBEAT_TIMEOUT_SECONDS.default),
            presence_liveness: DEFAULT_PRESENCE_LIVENESS,
            reconnect_grace: Duration::from_secs(s::RECONNECT_GRACE_SECONDS.default),
            presence_shards: s::PRESENCE_SHARDS.default,
            rate_limits: RateLimits::DEFAULT,
            parties_table: text(&s::PARTIES_TABLE),
            friends_table: text(&s::FRIENDS_TABLE),
            parties: PartySettings::DEFAULT,
            player_gateway: DEFAULT_PLAYER_GATEWAY,
            detailed_metrics: s::DETAILED_METRICS.default,
        }
    }
}

/// The name the template gives the presence bus, which the local stack's in-process bus
/// goes by.
pub fn local_presence_event_bus(game: &str) -> String {
    format!("{game}-presence")
}

/// `GAME_SESSION_QUEUES`: comma-separated GameLift queue names (or ARNs), at least one;
/// blanks around and between commas are ignored, duplicates dropped.
fn game_session_queues(env: &mut EnvReader<'_>) -> Vec<String> {
    let raw = env.text(&settings::GAME_SESSION_QUEUES);
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

    /// Every required variable set (short values), then `overrides`.
    fn required(overrides: &[(&str, &str)]) -> HashMap<String, String> {
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
            ("FRIENDS_TABLE", "fr"),
        ]);
        map.extend(vars(overrides));
        map
    }

    /// The problems the required variables with `name` set to `value` have.
    fn problems_with(name: &str, value: &str) -> Vec<String> {
        match Config::from_map(&required(&[(name, value)])) {
            Ok(config) => panic!("{name}={value:?} read as valid: {config:?}"),
            Err(err) => err.problems,
        }
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
            ("FRIENDS_TABLE", "chess-friends"),
        ]))
        .expect("valid");
        assert_eq!(config.heartbeat_timeout, Duration::from_secs(90));
        assert_eq!(config.reconnect_grace, Duration::from_secs(30));
        assert_eq!(config.presence_shards, 4);
        assert_eq!(config.game_session_queues, vec!["chess-eu".to_string()]);
        assert_eq!(config.max_players_per_session, 8);
        assert_eq!(config.parties, PartySettings::DEFAULT);
        assert_eq!(config.parties_table, "chess-parties");
        assert_eq!(config.friends_table, "chess-friends");
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
            "FRIENDS_TABLE is not set",
            "HEARTBEAT_TIMEOUT_SECONDS=\"soon\"",
            "PRESENCE_SHARDS=0",
        ] {
            assert!(text.contains(expected), "missing {expected:?} in {text}");
        }
        assert_eq!(err.problems.len(), 11);
    }

    #[test]
    fn given_several_queues_when_read_then_in_order_without_blanks_or_duplicates() {
        let mut map = required(&[
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
        let config = Config::from_map(&required(&[])).expect("valid");
        assert_eq!(config.presence_liveness, PresenceLiveness::Heartbeat);
        assert_eq!(
            config.keep_alive(),
            KeepAlive {
                route: KeepAliveRoute::Heartbeat,
                interval_seconds: 40
            }
        );

        let map = required(&[("PRESENCE_LIVENESS", "connection-activity")]);
        let config = Config::from_map(&map).expect("valid");
        assert_eq!(config.keep_alive().route, KeepAliveRoute::Ping);

        assert_eq!(
            problems_with("PRESENCE_LIVENESS", "pings"),
            ["PRESENCE_LIVENESS=\"pings\" is not heartbeat or connection-activity"]
        );
    }

    #[test]
    fn given_player_gateway_when_read_then_disabled_by_default_and_a_wrong_value_is_a_problem() {
        // Given the required variables alone
        // Then nothing is asked of GameLift
        let config = Config::from_map(&required(&[])).expect("valid");
        assert_eq!(config.player_gateway, PlayerGateway::Disabled);

        // When a fleet requires the gateway, it is read (any case, as the other choices)
        let config = Config::from_map(&required(&[("PLAYER_GATEWAY", "Required")]));
        assert_eq!(
            config.expect("valid").player_gateway,
            PlayerGateway::Required
        );

        // And a word it does not know is a problem naming the three
        assert_eq!(
            problems_with("PLAYER_GATEWAY", "on"),
            ["PLAYER_GATEWAY=\"on\" is not disabled, enabled or required"]
        );
    }

    #[test]
    fn given_each_choice_type_then_its_words_are_its_settings_values_in_order() {
        assert_eq!(
            PresenceLiveness::ALL.map(PresenceLiveness::as_str),
            settings::PRESENCE_LIVENESS.values
        );
        assert_eq!(
            PlayerGateway::ALL.map(PlayerGateway::as_str),
            settings::PLAYER_GATEWAY.values
        );
        assert_eq!(
            "pings".parse::<PresenceLiveness>(),
            Err("\"pings\" is not heartbeat or connection-activity".to_owned())
        );
    }

    #[test]
    fn given_a_blank_variable_when_read_then_it_counts_as_missing() {
        assert_eq!(problems_with("GAME", "  "), ["GAME is not set"]);
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
