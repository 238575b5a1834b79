//! The simulator's knobs (README: "The GameLift simulator"): their defaults and accepted values, and the
//! checks of a whole set. The local stack reads them (`SIM_*` variables or flags, see
//! `local::settings`). The defaults suit a demo: two servers up within 2 s, a placement
//! fulfilled half a second after it is asked for, ten-minute games.

use std::ops::RangeInclusive;
use std::time::Duration;

use shared::config::{PlayerGateway, whole_number};

pub const DEFAULT_FLEET_SERVERS: u32 = 2;
pub const FLEET_SERVERS_RANGE: RangeInclusive<u32> = 0..=1_000;
pub const DEFAULT_SESSIONS_PER_SERVER: u32 = 1;
pub const SESSIONS_PER_SERVER_RANGE: RangeInclusive<u32> = 1..=100;
pub const DEFAULT_SERVER_STARTUP_MS: u64 = 2_000;
pub const DEFAULT_SERVER_SHUTDOWN_MS: u64 = 500;
pub const DEFAULT_PLACEMENT_DELAY_MS: u64 = 500;
/// What the `SIM_*_MS` knobs accept: up to an hour.
pub const MILLIS_RANGE: RangeInclusive<u64> = 0..=3_600_000;
/// GameLift's own default queue timeout is 600 s; a player waiting on a laptop should
/// hear "timed out" within a minute.
pub const DEFAULT_QUEUE_TIMEOUT_SECONDS: u64 = 60;
/// GameLift accepts a queue timeout of up to 12 hours.
pub const QUEUE_TIMEOUT_SECONDS_RANGE: RangeInclusive<u64> = 1..=43_200;
pub const DEFAULT_GAME_SESSION_SECONDS: u64 = 600;
/// Up to a week.
pub const GAME_SESSION_SECONDS_RANGE: RangeInclusive<u64> = 1..=604_800;
/// GameLift's (fixed) time a RESERVED player session waits for the game server to
/// validate it before it becomes TIMEDOUT.
pub const PLAYER_SESSION_RESERVATION_SECONDS: u64 = 60;
pub const DEFAULT_REGION: &str = "local";
pub const DEFAULT_ACCOUNT_ID: &str = "123456789012";
pub const DEFAULT_FLEET_ID: &str = "fleet-local";
pub const DEFAULT_SERVER_IP: &str = "127.0.0.1";
pub const DEFAULT_SERVER_DNS: &str = "localhost";
pub const DEFAULT_SERVER_PORT_BASE: u16 = 7777;
pub const SERVER_PORT_BASE_RANGE: RangeInclusive<u16> = 1..=65_535;
/// GameLift's limit on a queue's CustomEventData.
pub const MAX_CUSTOM_EVENT_DATA_CHARS: usize = 256;
pub const DEFAULT_TOPIC_NAME: &str = "gamelift-placement-events";
/// How long a simulated player gateway token lasts. GameLift's last "at least 3
/// minutes" (ddos-protection-integrate.html); a few seconds let tests see one expire.
pub const DEFAULT_PLAYER_GATEWAY_TOKEN_SECONDS: u64 = 600;
pub const PLAYER_GATEWAY_TOKEN_SECONDS_RANGE: RangeInclusive<u64> = 1..=86_400;
/// How long a real process has to call ActivateGameSession (GameLift's
/// RuntimeConfiguration.GameSessionActivationTimeoutSeconds, 1-600; the API reference
/// states no default). 30 s: half the local queue's timeout, so a placement on a game
/// server that never activates is retried once before it is TIMED_OUT, yet long enough
/// for a game server to load its level on a laptop.
pub const DEFAULT_GAME_SESSION_ACTIVATION_SECONDS: u64 = 30;
pub const GAME_SESSION_ACTIVATION_SECONDS_RANGE: RangeInclusive<u64> = 1..=600;
/// The SDKs send a heartbeat every 60 s (± 10 s of jitter); three missed make a process
/// unhealthy. Tests set it in milliseconds.
pub const DEFAULT_HEARTBEAT_INTERVAL_MS: u64 = 60_000;
pub const HEARTBEAT_INTERVAL_MS_RANGE: RangeInclusive<u64> = 10..=3_600_000;
/// Heartbeats missed (or reported unhealthy) in a row that make a process unhealthy.
pub const UNHEALTHY_AFTER_HEARTBEATS: u32 = 3;
/// After TerminateProcess GameLift waits five minutes for ProcessEnding
/// (gamelift-sdk-interactions.html, "Responding to a shutdown request").
pub const DEFAULT_TERMINATION_GRACE_SECONDS: u64 = 300;
pub const TERMINATION_GRACE_SECONDS_RANGE: RangeInclusive<u64> = 1..=3_600;
/// How long a real process whose socket dropped keeps its games: the Go SDK keeps
/// reconnecting for about three minutes, so five cover its retries.
pub const DEFAULT_RECONNECT_WINDOW_SECONDS: u64 = 300;
pub const RECONNECT_WINDOW_SECONDS_RANGE: RangeInclusive<u64> = 1..=86_400;

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
    /// `SIM_PLAYER_GATEWAY`: the fleet's PlayerGatewayMode: `Disabled` answers
    /// GetPlayerConnectionDetails with the game server's address; `Enabled` and
    /// `Required` with relays on 127.0.0.2 and 127.0.0.3 and a token.
    pub player_gateway: PlayerGateway,
    /// `SIM_PLAYER_GATEWAY_TOKEN_SECONDS`: a token expires this long after it was given.
    pub player_gateway_token: Duration,
    /// `SIM_GAME_SESSION_ACTIVATION_SECONDS`: a real process's game session not activated
    /// within this is TERMINATED and its placement tried again.
    pub game_session_activation: Duration,
    /// `SIM_HEARTBEAT_INTERVAL_MS`: a real process missing three of these is unhealthy.
    pub heartbeat_interval: Duration,
    /// `SIM_TERMINATION_GRACE_SECONDS`: after TerminateProcess, how long a real process
    /// has to call ProcessEnding before it is taken out.
    pub termination_grace: Duration,
    /// `SIM_RECONNECT_WINDOW_SECONDS`: how long a real process whose socket dropped keeps
    /// its games.
    pub reconnect_window: Duration,
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
            player_gateway: PlayerGateway::Disabled,
            player_gateway_token: Duration::from_secs(DEFAULT_PLAYER_GATEWAY_TOKEN_SECONDS),
            game_session_activation: Duration::from_secs(DEFAULT_GAME_SESSION_ACTIVATION_SECONDS),
            heartbeat_interval: Duration::from_millis(DEFAULT_HEARTBEAT_INTERVAL_MS),
            termination_grace: Duration::from_secs(DEFAULT_TERMINATION_GRACE_SECONDS),
            reconnect_window: Duration::from_secs(DEFAULT_RECONNECT_WINDOW_SECONDS),
        }
    }
}

impl SimulatorSettings {
    /// Every value outside what its variable accepts, and combinations that cannot work,
    /// one problem each, named by the variable.
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        for (name, value, range) in [
            ("SIM_FLEET_SERVERS", self.fleet_servers, FLEET_SERVERS_RANGE),
            (
                "SIM_SESSIONS_PER_SERVER",
                self.sessions_per_server,
                SESSIONS_PER_SERVER_RANGE,
            ),
        ] {
            if !range.contains(&value) {
                problems.push(format!(
                    "{name}={value} is not {}",
                    whole_number(&range, None)
                ));
            }
        }
        for (name, value) in [
            ("SIM_SERVER_STARTUP_MS", self.server_startup),
            ("SIM_SERVER_SHUTDOWN_MS", self.server_shutdown),
            ("SIM_PLACEMENT_DELAY_MS", self.placement_delay),
        ] {
            let millis = u64::try_from(value.as_millis()).unwrap_or(u64::MAX);
            if !MILLIS_RANGE.contains(&millis) {
                problems.push(format!(
                    "{name}={millis} is not {}",
                    whole_number(&MILLIS_RANGE, Some("milliseconds"))
                ));
            }
        }
        for (name, value, range) in [
            (
                "SIM_QUEUE_TIMEOUT_SECONDS",
                self.queue_timeout,
                QUEUE_TIMEOUT_SECONDS_RANGE,
            ),
            (
                "SIM_GAME_SESSION_SECONDS",
                self.game_session_duration,
                GAME_SESSION_SECONDS_RANGE,
            ),
            (
                "SIM_PLAYER_GATEWAY_TOKEN_SECONDS",
                self.player_gateway_token,
                PLAYER_GATEWAY_TOKEN_SECONDS_RANGE,
            ),
            (
                "SIM_GAME_SESSION_ACTIVATION_SECONDS",
                self.game_session_activation,
                GAME_SESSION_ACTIVATION_SECONDS_RANGE,
            ),
            (
                "SIM_TERMINATION_GRACE_SECONDS",
                self.termination_grace,
                TERMINATION_GRACE_SECONDS_RANGE,
            ),
            (
                "SIM_RECONNECT_WINDOW_SECONDS",
                self.reconnect_window,
                RECONNECT_WINDOW_SECONDS_RANGE,
            ),
        ] {
            if !range.contains(&value.as_secs()) {
                problems.push(format!(
                    "{name}={} is not {}",
                    value.as_secs(),
                    whole_number(&range, Some("seconds"))
                ));
            }
        }
        let heartbeat = u64::try_from(self.heartbeat_interval.as_millis()).unwrap_or(u64::MAX);
        if !HEARTBEAT_INTERVAL_MS_RANGE.contains(&heartbeat) {
            problems.push(format!(
                "SIM_HEARTBEAT_INTERVAL_MS={heartbeat} is not {}",
                whole_number(&HEARTBEAT_INTERVAL_MS_RANGE, Some("milliseconds"))
            ));
        }
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
        if let Some(data) = &self.custom_event_data
            && data.chars().count() > MAX_CUSTOM_EVENT_DATA_CHARS
        {
            problems.push(format!(
                "SIM_CUSTOM_EVENT_DATA is longer than {MAX_CUSTOM_EVENT_DATA_CHARS} characters"
            ));
        }
        problems
    }

    /// One line for the start-up banner: the fleet, the queue, the games.
    pub fn summary(&self) -> String {
        let queues = if self.queues.is_empty() {
            "any".to_owned()
        } else {
            self.queues.join(", ")
        };
        let gateway = match self.player_gateway {
            PlayerGateway::Disabled => String::new(),
            mode => format!(
                "; player gateway {mode} (tokens last {} s)",
                self.player_gateway_token.as_secs()
            ),
        };
        format!(
            "{} server{} ({} game{} each, ready {} ms after start-up); placements fulfilled \
             after {} ms or TIMED_OUT after {} s; games last {} s; queues: {queues}{gateway}",
            self.fleet_servers,
            if self.fleet_servers == 1 { "" } else { "s" },
            self.sessions_per_server,
            if self.sessions_per_server == 1 {
                ""
            } else {
                "s"
            },
            self.server_startup.as_millis(),
            self.placement_delay.as_millis(),
            self.queue_timeout.as_secs(),
            self.game_session_duration.as_secs(),
        )
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

    #[test]
    fn the_defaults_have_no_problem() {
        assert_eq!(
            SimulatorSettings::default().problems(),
            Vec::<String>::new()
        );
    }

    #[test]
    fn every_problem_is_listed() {
        let settings = SimulatorSettings {
            fleet_servers: 1_001,
            sessions_per_server: 101,
            server_startup: Duration::from_millis(3_600_001),
            queue_timeout: Duration::ZERO,
            game_session_duration: Duration::from_secs(604_801),
            player_gateway_token: Duration::ZERO,
            account_id: "abc".into(),
            region: "eu_west".into(),
            server_port_base: 65_535,
            custom_event_data: Some("x".repeat(257)),
            ..SimulatorSettings::default()
        };
        let all = settings.problems().join("\n");
        for expected in [
            "SIM_FLEET_SERVERS=1001 is not a whole number from 0 to 1000",
            "SIM_SESSIONS_PER_SERVER=101 is not a whole number from 1 to 100",
            "SIM_SERVER_STARTUP_MS=3600001 is not a whole number of milliseconds from 0 to 3600000",
            "SIM_QUEUE_TIMEOUT_SECONDS=0 is not a whole number of seconds from 1 to 43200",
            "SIM_GAME_SESSION_SECONDS=604801",
            "SIM_ACCOUNT_ID=\"abc\" is not 12 digits",
            "SIM_REGION=\"eu_west\"",
            "SIM_SERVER_PORT_BASE=65535 leaves no room",
            "SIM_CUSTOM_EVENT_DATA is longer than 256 characters",
            "SIM_PLAYER_GATEWAY_TOKEN_SECONDS=0 is not a whole number of seconds from 1 to 86400",
        ] {
            assert!(all.contains(expected), "{expected} missing from {all}");
        }
        assert_eq!(settings.problems().len(), 10, "{all}");
    }

    #[test]
    fn the_summary_says_fleet_queue_and_games_in_one_line() {
        let summary = SimulatorSettings {
            queues: vec!["default-queue".into()],
            ..SimulatorSettings::default()
        }
        .summary();
        assert_eq!(
            summary,
            "2 servers (1 game each, ready 2000 ms after start-up); placements fulfilled after \
             500 ms or TIMED_OUT after 60 s; games last 600 s; queues: default-queue"
        );
        let arns = SimulatorSettings::default();
        assert_eq!(
            arns.queue_arn("main"),
            "arn:aws:gamelift:local:123456789012:gamesessionqueue/main"
        );
    }
}
