//! The cost model (docs/cost.md): a month of a scenario, priced three ways.
//!
//! - (a) the seed designs: presence on AppSync with a Lambda per heartbeat, an
//!   ElastiCache node and the NAT gateway its VPC needs; messaging as one Lambda that
//!   writes each recipient's copy with its own PutItem and posts it;
//! - (b) this project before the heartbeat left Lambda (`operation-counts-before.json`);
//! - (c) this project now (`operation-counts.json`).
//!
//! Every per-operation figure of (b) and (c) is a measured count (`tools::counts`); the
//! seed designs reuse those measurements where they do the same work (a Lambda that
//! writes one item takes what this project's heartbeat Lambda took) and are otherwise
//! priced from their definition. What is assumed is listed in [`assumptions`].

pub mod designs;
pub mod measured;
pub mod observability;
pub mod ours;
pub mod prices;
pub mod render;
pub mod seed;
pub mod usage;

pub use designs::{Design, Priced, presence_ratios, price_all};
pub use prices::Prices;
pub use usage::{Bill, Feature, Line, Work};

pub use shared::config::PresenceLiveness;
use shared::keep_alive::{API_GATEWAY_IDLE_TIMEOUT_SECONDS, KeepAlive};

/// AWS prices a month as 730 hours.
pub const HOURS_PER_MONTH: f64 = 730.0;
pub const MINUTES_PER_MONTH: f64 = HOURS_PER_MONTH * 60.0;
pub const SECONDS_PER_MONTH: f64 = MINUTES_PER_MONTH * 60.0;

/// The knobs of a scenario (`cost --help`).
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// Concurrent players, all month.
    pub ccu: f64,
    /// Seconds between a client's heartbeats in the designs whose clients beat at a
    /// fixed interval: the seed's and this project's before (c).
    pub heartbeat_seconds: f64,
    /// `HEARTBEAT_TIMEOUT_SECONDS`, the offline-detection bound every design shares (with
    /// a sweep a minute): (c)'s clients are told their interval from it (`keepAlive`).
    pub heartbeat_timeout_seconds: f64,
    /// `PRESENCE_LIVENESS` of (c): what its clients' timer sends.
    pub liveness: PresenceLiveness,
    /// `sendMessage` frames per player per minute.
    pub messages_per_player_minute: f64,
    /// Recipients per `sendMessage`.
    pub recipients_per_message: f64,
    /// Placement requests per player per hour.
    pub placements_per_player_hour: f64,
    /// Players each player watches (and, on average, is watched by).
    pub subscriptions_per_player: f64,
    /// Online friends each player has: each is told of the player's presence changes
    /// without subscribing (0: the model leaves friends out).
    pub friends_per_player: f64,
    /// Minutes a session lasts, connect to disconnect.
    pub session_minutes: f64,
    /// Memory of every Lambda function, MB (the template's is 128).
    pub lambda_memory_mb: f64,
    /// The share of heartbeats that carry a `requestId` (and so get a reply).
    pub acked_heartbeats: f64,
    /// Minutes between sweeps (the schedule is one minute).
    pub sweep_minutes: f64,
}

/// Online friends per player, by default: none, so that the must-show scenario compares
/// like with like (the seed and (b) price no friends; docs/cost.md says why and what 10
/// would cost).
pub const DEFAULT_FRIENDS_PER_PLAYER: f64 = 0.0;

impl Default for Scenario {
    fn default() -> Self {
        Self {
            ccu: 1000.0,
            heartbeat_seconds: 30.0,
            heartbeat_timeout_seconds: f64::from(90_u32),
            liveness: shared::config::DEFAULT_PRESENCE_LIVENESS,
            messages_per_player_minute: 0.2,
            recipients_per_message: 1.0,
            placements_per_player_hour: 1.0,
            subscriptions_per_player: 5.0,
            friends_per_player: DEFAULT_FRIENDS_PER_PLAYER,
            session_minutes: 60.0,
            lambda_memory_mb: 128.0,
            acked_heartbeats: 0.0,
            sweep_minutes: 1.0,
        }
    }
}

impl Scenario {
    /// Checks that every knob is in range.
    pub fn validate(&self) -> Result<(), String> {
        let positive = [
            ("ccu", self.ccu),
            ("heartbeat-seconds", self.heartbeat_seconds),
            ("heartbeat-timeout-seconds", self.heartbeat_timeout_seconds),
            ("recipients-per-message", self.recipients_per_message),
            ("session-minutes", self.session_minutes),
            ("lambda-memory", self.lambda_memory_mb),
            ("sweep-minutes", self.sweep_minutes),
        ];
        for (name, value) in positive {
            if !(value.is_finite() && value > 0.0) {
                return Err(format!("--{name} must be above 0 (it is {value})"));
            }
        }
        let non_negative = [
            (
                "messages-per-player-minute",
                self.messages_per_player_minute,
            ),
            (
                "placements-per-player-hour",
                self.placements_per_player_hour,
            ),
            ("subscriptions-per-player", self.subscriptions_per_player),
            ("friends-per-player", self.friends_per_player),
        ];
        for (name, value) in non_negative {
            if !(value.is_finite() && value >= 0.0) {
                return Err(format!("--{name} must be 0 or more (it is {value})"));
            }
        }
        if !(0.0..=1.0).contains(&self.acked_heartbeats) {
            return Err(format!(
                "--acked-heartbeats is a share, 0 to 1 (it is {})",
                self.acked_heartbeats
            ));
        }
        Ok(())
    }

    pub fn player_minutes(&self) -> f64 {
        self.ccu * MINUTES_PER_MONTH
    }

    /// Heartbeats of the clients that beat every `heartbeat_seconds` (the seed's, and
    /// this project's before (c)).
    pub fn heartbeats(&self) -> f64 {
        self.player_minutes() * 60.0 / self.heartbeat_seconds
    }

    /// The interval (c)'s `resume` tells its clients (`keepAlive`): from the timeout and
    /// API Gateway's idle timeout, by the function the server itself uses.
    pub fn keep_alive_seconds(&self) -> f64 {
        let timeout = self.heartbeat_timeout_seconds.round().max(1.0) as u64;
        let keep_alive = KeepAlive::for_timeouts(
            self.liveness.keep_alive_route(),
            timeout,
            API_GATEWAY_IDLE_TIMEOUT_SECONDS,
        );
        f64::from(keep_alive.interval_seconds)
    }

    /// (c)'s timer frames: one per `keepAlive` interval per player; all heartbeats with
    /// `PRESENCE_LIVENESS=heartbeat`, heartbeats and pings with `connection-activity`
    /// ([`Self::cursor_heartbeat_share`]).
    pub fn timer_frames(&self) -> f64 {
        self.player_minutes() * 60.0 / self.keep_alive_seconds()
    }

    pub fn messages(&self) -> f64 {
        self.player_minutes() * self.messages_per_player_minute
    }

    /// Delivered messages: each message once per recipient.
    pub fn deliveries(&self) -> f64 {
        self.messages() * self.recipients_per_message
    }

    pub fn placements(&self) -> f64 {
        self.ccu * HOURS_PER_MONTH * self.placements_per_player_hour
    }

    /// Sessions started (and ended) in the month.
    pub fn sessions(&self) -> f64 {
        self.player_minutes() / self.session_minutes
    }

    /// Presence changes: each session goes online once and offline once.
    pub fn presence_changes(&self) -> f64 {
        2.0 * self.sessions()
    }

    /// Presence frames: each change told to every watcher.
    pub fn presence_frames(&self) -> f64 {
        self.presence_changes() * self.subscriptions_per_player
    }

    /// Pushed frames (inbox items: messages, presence frames, placement results) each
    /// player receives per second, on average: λ of the timer's split.
    pub fn pushed_frames_per_player_second(&self) -> f64 {
        let pushed = self.deliveries() + self.presence_frames() + self.placements();
        pushed / (self.ccu * SECONDS_PER_MONTH)
    }

    /// The share of (c)'s timer frames that are cursor heartbeats where clients ping
    /// (`connection-activity`: a heartbeat only when a pushed frame newer than the
    /// reported cursor was handled since the last tick): the chance that at least one of
    /// a Poisson stream of λ frames a second arrived in one interval, 1 − exp(−λ·interval).
    pub fn cursor_heartbeat_share(&self) -> f64 {
        1.0 - (-self.pushed_frames_per_player_second() * self.keep_alive_seconds()).exp()
    }

    /// (c)'s timer frames that are cursor heartbeats where clients ping.
    pub fn cursor_heartbeats(&self) -> f64 {
        self.timer_frames() * self.cursor_heartbeat_share()
    }

    /// (c)'s timer frames that are pings (one inbound message, nothing else) where
    /// clients ping.
    pub fn pings(&self) -> f64 {
        self.timer_frames() - self.cursor_heartbeats()
    }

    pub fn sweeps(&self) -> f64 {
        MINUTES_PER_MONTH / self.sweep_minutes
    }

    pub fn memory_gb(&self) -> f64 {
        self.lambda_memory_mb / 1024.0
    }
}

/// What the model assumes beyond the measured counts and the prices (docs/cost.md).
pub fn assumptions() -> Vec<&'static str> {
    vec![
        "A month is 730 hours; every player is connected all of it, in sessions of --session-minutes.",
        "No free tier, no savings plans, no data transfer out (the same for every design), no storage.",
        "Each delivered message, placement result and presence frame is its own on-message-inserted invocation (the stream batches more under load).",
        "Messages and presence frames go to inboxes that already hold one (the append is a query and a conditional write; an inbox's first message is a two-item transaction instead, measured apart). Every inbox item is kept at least a day (a presence frame is delivered for 60 s but kept as long), so a watcher's inbox rarely starts a new epoch.",
        "Seed presence: one AppSync mutation per heartbeat, resolved by a Lambda in the VPC that writes ElastiCache; a change is one mutation from a Lambda (through the NAT gateway, 2 KB) and one real-time update per watcher; a session subscribes once (one real-time operation) and reads its friends' presence once (one query).",
        "Seed Lambdas take as long, and log as much from their code, as this project's measured Lambda doing the same work; they keep Lambda's default logging, whose START, END and REPORT lines are measured from their format (SEED_PLATFORM_LINES); they are not traced.",
        "The seed's client keeps two sockets: AppSync for presence and the API Gateway WebSocket for the rest, which it must use at least every 9 minutes (API Gateway closes a socket idle for 10): one more frame per 9 minutes per player, with its integration (a mock, free).",
        "Seed messaging: one Lambda per message, one PutItem per recipient, one PostToConnection per recipient, the ack; same API Gateway WebSocket.",
        "Seed connections and placement are this project's before the change (the seeds only redesign presence and messaging).",
        "X-Ray, when on, samples each function by the default rule: the first request each second and 5 % of the rest.",
        "A heartbeat without a requestId gets no frame back: its integration response renders nothing, which API Gateway is assumed to send as no message (local/src/integration/mod.rs, the heartbeat route as deployed); --acked-heartbeats prices the share of heartbeats that asks for an ack.",
        "(c)'s clients send what resume's keepAlive says, every (timeout - timeout/10) / 2 seconds (40 s for the 90 s timeout): with PRESENCE_LIVENESS=heartbeat (the default) a heartbeat each time; with connection-activity a heartbeat (with its cursor) only when the client handled a pushed frame since the last tick, and a ping otherwise. Pushed frames (deliveries, presence frames, placement results) reach each player as a Poisson stream at the scenario's average rate λ, so a tick is then a heartbeat with probability 1 - exp(-λ·interval). A ping is one inbound message (and its access log line when the stage logs), nothing else. (a) and (b) beat every --heartbeat-seconds, with the same timeout: every design detects a silent player within the timeout plus one sweep.",
        "With connection-activity: API Gateway moves a socket's lastActiveAt (GetConnection) on every frame the client sends, a ping included (documented: lastActiveAt is when the connection was last active; assumed: that a MOCK route's frame counts; smoke --check-assumptions checks it on a deployment).",
        "With connection-activity: the sweeper asks GetConnection about every tracked online player on every run, as if each one's deadline had passed: an upper bound (only players with no heartbeat within the timeout are asked). GetConnection is priced by apigateway_get_connection, 0 by default (API Gateway bills messages sent and received and connection minutes; GetConnection sends no message); --get-connection-usd-per-million prices it otherwise. With heartbeat the sweeper never calls it.",
        "The sweeper's Lambda time is measured against a recording gateway that answers at once; a deployed GetConnection is a network round trip (at most 32 in flight), which adds GB-seconds this model does not see.",
        "Observability (c only): each invocation writes the EMF bytes measured for its function (tools/data/emf-bytes.json: its sample event on a fresh local stack, or its common path where the sample takes a rare one); with one stream record per invocation, on-message-inserted's is an upper bound; every custom metric of the catalogue's steady-state series of the metrics the scenario's functions emit is written every hour (custom metrics are prorated by the hour; matchmaking's are not written, the scenario has none), the default series and, priced beside them, DetailedMetrics=true's; the alarms' metrics and the dashboard as template.yaml deploys them; no free tier (3 dashboards and 10 alarm metrics a month are free).",
    ]
}

#[cfg(test)]
mod tests;
