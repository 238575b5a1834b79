//! The simulator's knobs (README.md#the-gamelift-simulator-local-stack): environment
//! variables the local stack also exposes as flags. The defaults suit a demo: two
//! servers up within 2 s, a placement fulfilled half a second after it is asked for,
//! ten-minute games.

use std::collections::HashMap;
use std::time::Duration;

use shared::config::{ConfigError, EnvReader};

pub const DEFAULT_FLEET_SERVERS: u32 = 2;
pub const DEFAULT_SESSIONS_PER_SERVER: u32 = 1;
pub const DEFAULT_SERVER_STARTUP_MS: u64 = 2_000;
pub const DEFAULT_SERVER_SHUTDOWN_MS: u64 = 500;
pub const DEFAULT_PLACEMENT_DELAY_MS: u64 = 500;
/// GameLift's own default queue timeout is 600 s; a player waiting on a laptop should
/// hear "timed out" within a minute.
pub const DEFAULT_QUEUE_TIMEOUT_SECONDS: u64 = 60;
pub const DEFAULT_GAME_SESSION_SECONDS: u64 = 600;
/// GameLift's (fixed) time a RESERVED player session waits for the game server to
/// validate it before it becomes TIMEDOUT.
pub const PLAYER_SESSION_RESERVATION_SECONDS: u64 = 60;
pub const DEFAULT_REGION: &str = "local";
pub const DEFAULT_ACCOUNT_ID: &str = "123456789012";
pub const DEFAULT_FLEET_ID: &str = "fleet-local";
pub const DEFAULT_SERVER_IP: &str = "127.0.0.1";
pub const DEFAULT_SERVER_DNS: &str = "localhost";
pub const DEFAULT_SERVER_PORT_BASE: u16 = 7777;
pub const DEFAULT_TOPIC_NAME: &str = "gamelift-placement-events";

/// How the simulated fleet, queue and SNS topic behave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimulatorSettings {
    /// `SIM_FLEET_SERVERS`: server processes in the fleet (0: no capacity at all).
    pub fleet_servers: u32,
    /// `SIM_SESSIONS_PER_SERVER`: game sessions a server process hosts before it is
    /// replaced.
    pub sessions_per_server: u32,
    /// `SIM_SERVER_STARTUP_MS`: how long a new server process is Initializing.
    pub server_startup: Duration,
    /// `SIM_SERVER_SHUTDOWN_MS`: how long a server is Terminating before its
    /// replacement starts.
    pub server_shutdown: Duration,
    /// `SIM_PLACEMENT_DELAY_MS`: the earliest a placement is fulfilled after it starts.
    pub placement_delay: Duration,
    /// `SIM_QUEUE_TIMEOUT_SECONDS`: a placement still PENDING this long after it started
    /// times out.
    pub queue_timeout: Duration,
    /// `SIM_GAME_SESSION_SECONDS`: how long a game lasts.
    pub game_session_duration: Duration,
    /// RESERVED player sessions not validated within this become TIMEDOUT (GameLift: 60 s).
    pub player_session_reservation: Duration,
    /// `SIM_REGION`: the region in ARNs and events.
    pub region: String,
    /// `SIM_ACCOUNT_ID`: the account in ARNs and events.
    pub account_id: String,
    /// `SIM_FLEET_ID`: the fleet in game session ARNs.
    pub fleet_id: String,
    /// `SIM_SERVER_IP`: the `ipAddress` of every game session.
    pub server_ip: String,
    /// `SIM_SERVER_DNS`: the `dnsName` of every game session.
    pub server_dns: String,
    /// `SIM_SERVER_PORT_BASE`: server `i`'s game session `k` listens on
    /// `base + i * sessions_per_server + k`.
    pub server_port_base: u16,
    /// `GAME_SESSION_QUEUES` (comma-separated): the queues that exist; empty accepts
    /// any queue name.
    pub queues: Vec<String>,
    /// `SIM_CUSTOM_EVENT_DATA`: the queue's CustomEventData, copied into every event.
    pub custom_event_data: Option<String>,
    /// The SNS topic (name) the queue notifies.
    pub topic_name: String,
}

impl Default for SimulatorSettings {
    fn default() -> Self {
        Self {
            fleet_servers: DEFAULT_FLEET_SERVERS,
            sessions_per_server: DEFAULT_SESSIONS_PER_SERVER,
            server_startup: Duration::from_millis(DEFAULT_SERVER_STARTUP_MS),
            server_shutdown: Duration::from_millis(DEFAULT_SERVER_SHUTDOWN_MS),
            placement_delay: Duration::from_millis(DEFAULT_PLACEMENT_DELAY_MS),
            queue_timeout: Duration::from_secs(DEFAULT_QUEUE_TIMEOUT_SECONDS),
            game_session_duration: Duration::from_secs(DEFAULT_GAME_SESSION_SECONDS),
            player_session_reservation: Duration::from_secs(PLAYER_SESSION_RESERVATION_SECONDS),
            region: DEFAULT_REGION.into(),
            account_id: DEFAULT_ACCOUNT_ID.into(),
            fleet_id: DEFAULT_FLEET_ID.into(),
            server_ip: DEFAULT_SERVER_IP.into(),
            server_dns: DEFAULT_SERVER_DNS.into(),
            server_port_base: DEFAULT_SERVER_PORT_BASE,
            queues: Vec::new(),
            custom_event_data: None,
            topic_name: DEFAULT_TOPIC_NAME.into(),
        }
    }
}

impl SimulatorSettings {
    /// From the process environment; every problem is listed.
    pub fn from_env() -> Result<Self, ConfigError> {
        let mut env = EnvReader::from_process();
        let settings = Self::read(&mut env);
        env.finish().map(|()| settings)
    }

    pub fn from_map(vars: &HashMap<String, String>) -> Result<Self, ConfigError> {
        let mut env = EnvReader::from_map(vars);
        let settings = Self::read(&mut env);
        env.finish().map(|()| settings)
    }

    /// Reads every knob from `env`, recording problems there (so a caller can read its
    /// own variables from the same reader and report everything at once).
    pub fn read(env: &mut EnvReader<'_>) -> Self {
        let defaults = Self::default();
        let millis = |env: &mut EnvReader<'_>, name: &str, default: u64| {
            let expected = "a whole number of milliseconds from 0 to 3600000";
            let value: u64 = env.parsed_or(name, default, expected);
            if value > 3_600_000 {
                env.problem(format!("{name}={value} is not {expected}"));
            }
            Duration::from_millis(value)
        };
        let count = |env: &mut EnvReader<'_>, name: &str, default: u32, min: u32, max: u32| {
            let expected = format!("a whole number from {min} to {max}");
            let value: u32 = env.parsed_or(name, default, &expected);
            if !(min..=max).contains(&value) {
                env.problem(format!("{name}={value} is not {expected}"));
            }
            value
        };
        let text = |env: &mut EnvReader<'_>, name: &str, default: &str| {
            env.optional(name).unwrap_or_else(|| default.to_owned())
        };
        let settings = Self {
            fleet_servers: count(env, "SIM_FLEET_SERVERS", DEFAULT_FLEET_SERVERS, 0, 1_000),
            sessions_per_server: count(
                env,
                "SIM_SESSIONS_PER_SERVER",
                DEFAULT_SESSIONS_PER_SERVER,
                1,
                100,
            ),
            server_startup: millis(env, "SIM_SERVER_STARTUP_MS", DEFAULT_SERVER_STARTUP_MS),
            server_shutdown: millis(env, "SIM_SERVER_SHUTDOWN_MS", DEFAULT_SERVER_SHUTDOWN_MS),
            placement_delay: millis(env, "SIM_PLACEMENT_DELAY_MS", DEFAULT_PLACEMENT_DELAY_MS),
            queue_timeout: env.seconds_or(
                "SIM_QUEUE_TIMEOUT_SECONDS",
                DEFAULT_QUEUE_TIMEOUT_SECONDS,
                1..=43_200,
            ),
            game_session_duration: env.seconds_or(
                "SIM_GAME_SESSION_SECONDS",
                DEFAULT_GAME_SESSION_SECONDS,
                1..=604_800,
            ),
            player_session_reservation: defaults.player_session_reservation,
            region: text(env, "SIM_REGION", DEFAULT_REGION),
            account_id: text(env, "SIM_ACCOUNT_ID", DEFAULT_ACCOUNT_ID),
            fleet_id: text(env, "SIM_FLEET_ID", DEFAULT_FLEET_ID),
            server_ip: text(env, "SIM_SERVER_IP", DEFAULT_SERVER_IP),
            server_dns: text(env, "SIM_SERVER_DNS", DEFAULT_SERVER_DNS),
            server_port_base: env.parsed_or(
                "SIM_SERVER_PORT_BASE",
                DEFAULT_SERVER_PORT_BASE,
                "a port number from 1 to 65535",
            ),
            queues: env
                .optional("GAME_SESSION_QUEUES")
                .map(|raw| {
                    raw.split(',')
                        .map(str::trim)
                        .filter(|q| !q.is_empty())
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default(),
            custom_event_data: env.optional("SIM_CUSTOM_EVENT_DATA"),
            topic_name: defaults.topic_name,
        };
        for problem in settings.problems() {
            env.problem(problem);
        }
        settings
    }

    /// Problems the individual variables cannot show (combinations, formats).
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        let ports = u64::from(self.fleet_servers) * u64::from(self.sessions_per_server);
        if self.server_port_base == 0
            || u64::from(self.server_port_base) + ports.saturating_sub(1) > u64::from(u16::MAX)
        {
            problems.push(format!(
                "SIM_SERVER_PORT_BASE={} leaves no room for {ports} game session ports \
                 (SIM_FLEET_SERVERS x SIM_SESSIONS_PER_SERVER) below 65536",
                self.server_port_base
            ));
        }
        for (name, value) in [
            ("SIM_REGION", &self.region),
            ("SIM_FLEET_ID", &self.fleet_id),
        ] {
            if value.is_empty() || !value.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
                problems.push(format!("{name}={value:?} is not A-Z a-z 0-9 -"));
            }
        }
        if self.account_id.len() != 12 || !self.account_id.chars().all(|c| c.is_ascii_digit()) {
            problems.push(format!(
                "SIM_ACCOUNT_ID={:?} is not 12 digits",
                self.account_id
            ));
        }
        if let Some(data) = &self.custom_event_data {
            if data.chars().count() > 256 {
                problems.push("SIM_CUSTOM_EVENT_DATA is longer than 256 characters".into());
            }
        }
        problems
    }

    /// The active settings, one `NAME=value` line each (for the start-up banner).
    pub fn summary(&self) -> Vec<String> {
        let queues = if self.queues.is_empty() {
            "(unset: any queue name)".to_owned()
        } else {
            self.queues.join(",")
        };
        vec![
            format!("SIM_FLEET_SERVERS={}", self.fleet_servers),
            format!("SIM_SESSIONS_PER_SERVER={}", self.sessions_per_server),
            format!("SIM_SERVER_STARTUP_MS={}", self.server_startup.as_millis()),
            format!(
                "SIM_SERVER_SHUTDOWN_MS={}",
                self.server_shutdown.as_millis()
            ),
            format!(
                "SIM_PLACEMENT_DELAY_MS={}",
                self.placement_delay.as_millis()
            ),
            format!("SIM_QUEUE_TIMEOUT_SECONDS={}", self.queue_timeout.as_secs()),
            format!(
                "SIM_GAME_SESSION_SECONDS={}",
                self.game_session_duration.as_secs()
            ),
            format!("SIM_REGION={}", self.region),
            format!("SIM_ACCOUNT_ID={}", self.account_id),
            format!("SIM_FLEET_ID={}", self.fleet_id),
            format!("SIM_SERVER_IP={}", self.server_ip),
            format!("SIM_SERVER_DNS={}", self.server_dns),
            format!("SIM_SERVER_PORT_BASE={}", self.server_port_base),
            format!("GAME_SESSION_QUEUES={queues}"),
            format!(
                "SIM_CUSTOM_EVENT_DATA={}",
                self.custom_event_data.as_deref().unwrap_or("(unset)")
            ),
        ]
    }

    /// `arn:aws:gamelift:{region}:{account}:gamesessionqueue/{queue}`.
    pub fn queue_arn(&self, queue: &str) -> String {
        format!(
            "arn:aws:gamelift:{}:{}:gamesessionqueue/{queue}",
            self.region, self.account_id
        )
    }

    /// `arn:aws:sns:{region}:{account}:{topic}`.
    pub fn topic_arn(&self) -> String {
        format!(
            "arn:aws:sns:{}:{}:{}",
            self.region, self.account_id, self.topic_name
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn unset_variables_give_the_defaults() {
        assert_eq!(
            SimulatorSettings::from_map(&HashMap::new()).unwrap(),
            SimulatorSettings::default()
        );
    }

    #[test]
    fn every_knob_is_read() {
        let settings = SimulatorSettings::from_map(&vars(&[
            ("SIM_FLEET_SERVERS", "0"),
            ("SIM_SESSIONS_PER_SERVER", "3"),
            ("SIM_SERVER_STARTUP_MS", "10"),
            ("SIM_SERVER_SHUTDOWN_MS", "0"),
            ("SIM_PLACEMENT_DELAY_MS", "20"),
            ("SIM_QUEUE_TIMEOUT_SECONDS", "5"),
            ("SIM_GAME_SESSION_SECONDS", "30"),
            ("SIM_REGION", "eu-west-1"),
            ("SIM_ACCOUNT_ID", "000000000000"),
            ("SIM_FLEET_ID", "fleet-abc"),
            ("SIM_SERVER_IP", "10.0.0.1"),
            ("SIM_SERVER_DNS", "game.local"),
            ("SIM_SERVER_PORT_BASE", "9000"),
            ("GAME_SESSION_QUEUES", "main, backup"),
            ("SIM_CUSTOM_EVENT_DATA", "local"),
        ]))
        .unwrap();
        assert_eq!(settings.fleet_servers, 0);
        assert_eq!(settings.sessions_per_server, 3);
        assert_eq!(settings.server_startup, Duration::from_millis(10));
        assert_eq!(settings.server_shutdown, Duration::ZERO);
        assert_eq!(settings.placement_delay, Duration::from_millis(20));
        assert_eq!(settings.queue_timeout, Duration::from_secs(5));
        assert_eq!(settings.game_session_duration, Duration::from_secs(30));
        assert_eq!(settings.region, "eu-west-1");
        assert_eq!(settings.account_id, "000000000000");
        assert_eq!(settings.fleet_id, "fleet-abc");
        assert_eq!(settings.server_ip, "10.0.0.1");
        assert_eq!(settings.server_dns, "game.local");
        assert_eq!(settings.server_port_base, 9000);
        assert_eq!(settings.queues, ["main", "backup"]);
        assert_eq!(settings.custom_event_data.as_deref(), Some("local"));
        assert_eq!(
            settings.queue_arn("main"),
            "arn:aws:gamelift:eu-west-1:000000000000:gamesessionqueue/main"
        );
    }

    #[test]
    fn every_problem_is_listed() {
        let err = SimulatorSettings::from_map(&vars(&[
            ("SIM_FLEET_SERVERS", "many"),
            ("SIM_SESSIONS_PER_SERVER", "101"),
            ("SIM_SERVER_STARTUP_MS", "-1"),
            ("SIM_QUEUE_TIMEOUT_SECONDS", "0"),
            ("SIM_ACCOUNT_ID", "abc"),
            ("SIM_SERVER_PORT_BASE", "65535"),
        ]))
        .unwrap_err();
        let all = err.problems.join("\n");
        for name in [
            "SIM_FLEET_SERVERS",
            "SIM_SESSIONS_PER_SERVER",
            "SIM_SERVER_STARTUP_MS",
            "SIM_QUEUE_TIMEOUT_SECONDS",
            "SIM_ACCOUNT_ID",
            "SIM_SERVER_PORT_BASE",
        ] {
            assert!(all.contains(name), "{name} missing from {all}");
        }
    }

    #[test]
    fn the_summary_names_every_variable() {
        let summary = SimulatorSettings::default().summary().join("\n");
        assert!(summary.contains("SIM_QUEUE_TIMEOUT_SECONDS=60"));
        assert!(summary.contains("SIM_FLEET_SERVERS=2"));
    }
}
