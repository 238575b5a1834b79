//! Every metric the functions emit: name, unit, dimensions, who emits it and what it
//! tells. One table, read by the emitters ([`super`]), the EMF test of each function,
//! the template's dashboard and alarm test (no widget on a metric nobody emits), the
//! local console and the cost model (custom metrics are billed per name and dimension
//! values: docs/operations.md).
//!
//! Each metric has up to two dimension sets: the default one, always written (what the
//! alarms and the dashboard need), and a detailed one (per route, queue or bucket),
//! written besides only with `DETAILED_METRICS=true` (the `DetailedMetrics` parameter):
//! each detailed series is one more custom metric billed every hour.

/// How a metric's values are recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Summed per flush: one number per document (`Sum` is the statistic to read).
    Counter,
    /// Every value kept (up to 100 per document): percentiles are meaningful.
    Histogram,
    /// A level, one value each time it is read (written as a value, like a histogram's;
    /// `Maximum` or `Average` is the statistic to read).
    Gauge,
}

/// One dimension set of a metric, and how many series it makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Series {
    /// Its keys (empty: the metric alone).
    pub dimensions: &'static [&'static str],
    /// The dimension value combinations a stack in steady use keeps emitting, each a
    /// custom metric (docs/operations.md says how each is counted).
    pub count: u32,
}

/// One metric of the namespace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Metric {
    pub name: &'static str,
    /// A CloudWatch unit (`Count`, `Milliseconds`).
    pub unit: &'static str,
    pub kind: Kind,
    /// Written whatever `DETAILED_METRICS` says; `None`: only with it.
    pub default: Option<Series>,
    /// Written besides the default with `DETAILED_METRICS=true`.
    pub detailed: Option<Series>,
    /// The binaries that emit it (as the template names them).
    pub emitted_by: &'static [&'static str],
    pub meaning: &'static str,
}

impl Metric {
    /// The dimension sets it may be written with: the default's, then the detailed one's.
    pub fn dimension_sets(&self) -> impl Iterator<Item = &'static [&'static str]> {
        (self.default.iter())
            .chain(self.detailed.iter())
            .map(|series| series.dimensions)
    }

    /// Its steady-state series, with or without `DETAILED_METRICS`.
    pub fn series(&self, detailed: bool) -> u32 {
        let detail = self.detailed.filter(|_| detailed);
        (self.default.iter().chain(detail.iter()))
            .map(|series| series.count)
            .sum()
    }
}

/// A default or detailed dimension set of `count` series.
const fn by(dimensions: &'static [&'static str], count: u32) -> Option<Series> {
    Some(Series { dimensions, count })
}

/// The metric alone: one series.
const ALONE: Option<Series> = by(&[], 1);

/// The routes that answer through `edge::websocket::Request` (every client route with a
/// function), `$default`, `$connect`, and the backend API.
const ROUTE_FUNCTIONS: &[&str] = &[
    "resume",
    "send-message",
    "session-placement-request",
    "cancel-placement",
    "rejoin-session",
    "subscribe-presence",
    "party",
    "friends",
    "matchmaking",
    "default",
    "connect",
    "backend-api",
];

pub const REQUESTS: Metric = Metric {
    name: "Requests",
    unit: "Count",
    kind: Kind::Counter,
    default: None,
    // 24 client routes with a function, $default, $connect, the backend API.
    detailed: by(&["Route"], 27),
    emitted_by: ROUTE_FUNCTIONS,
    meaning: "requests answered, acked or refused, per route (`$connect`: connections \
              accepted or refused; `backendApi`: the backend API's requests)",
};

pub const REFUSALS: Metric = Metric {
    name: "Refusals",
    unit: "Count",
    kind: Kind::Counter,
    // The client's codes a stack in use sees (bad_request, not_found, conflict,
    // forbidden, rate_limited); the server's only in an incident.
    default: by(&["Code"], 5),
    // Only the pairs that occur are metrics; a stack in use sees a few per route.
    detailed: by(&["Route", "Code"], 30),
    emitted_by: ROUTE_FUNCTIONS,
    meaning: "requests refused, per route and error code (`unavailable` and `internal` \
              are the server's; the rest the client's)",
};

pub const RATE_LIMITED: Metric = Metric {
    name: "RateLimited",
    unit: "Count",
    kind: Kind::Counter,
    default: None,
    // The buckets: sendMessage, placement (matchmaking's too), partyInvite, friendInvite,
    // activity.
    detailed: by(&["Limit"], 5),
    emitted_by: &[
        "send-message",
        "session-placement-request",
        "party",
        "matchmaking",
        "friends",
        "subscribe-presence",
    ],
    meaning: "calls refused by a per-player rate limit, per bucket",
};

pub const DELIVERIES: Metric = Metric {
    name: "Deliveries",
    unit: "Count",
    kind: Kind::Counter,
    // posted, offline, gone, failed.
    default: by(&["Outcome"], 4),
    detailed: None,
    emitted_by: &["on-message-inserted"],
    meaning: "pushed frames by outcome: `posted` to the live socket, `offline` (no live \
              socket: resume replays it), `gone` (410: the socket closed), `failed` (an \
              error; retried or left for resume)",
};

pub const DELIVERY_LAG: Metric = Metric {
    name: "DeliveryLag",
    unit: "Milliseconds",
    kind: Kind::Histogram,
    default: ALONE,
    detailed: None,
    emitted_by: &["on-message-inserted"],
    meaning: "a posted frame's time from its insert into the inbox to its post",
};

pub const STREAM_BATCH_SIZE: Metric = Metric {
    name: "StreamBatchSize",
    unit: "Count",
    kind: Kind::Histogram,
    default: ALONE,
    detailed: None,
    emitted_by: &["on-message-inserted"],
    meaning: "records per Messages stream batch (near 100: the consumer is behind)",
};

pub const STREAM_FAILURES: Metric = Metric {
    name: "StreamFailures",
    unit: "Count",
    kind: Kind::Counter,
    default: ALONE,
    detailed: None,
    emitted_by: &["on-message-inserted"],
    meaning: "stream records handed back to Lambda to retry (batch item failures; a \
              failed batch counts all its records)",
};

pub const PLACEMENTS: Metric = Metric {
    name: "Placements",
    unit: "Count",
    kind: Kind::Counter,
    // FULFILLED, CANCELLED, TIMED_OUT, FAILED.
    default: by(&["Status"], 4),
    // The same on the stack's one queue.
    detailed: by(&["Queue", "Status"], 4),
    emitted_by: &["on-placement-event"],
    meaning: "placements settled, per queue and final status",
};

pub const PLACEMENT_TIME: Metric = Metric {
    name: "PlacementTime",
    unit: "Milliseconds",
    kind: Kind::Histogram,
    default: ALONE,
    detailed: by(&["Queue", "Status"], 4),
    emitted_by: &["on-placement-event"],
    meaning: "a placement's time from its request to its result",
};

pub const MATCHMAKING_TICKETS: Metric = Metric {
    name: "MatchmakingTickets",
    unit: "Count",
    kind: Kind::Counter,
    // COMPLETED, CANCELLED, TIMED_OUT, FAILED.
    default: by(&["Status"], 4),
    detailed: None,
    emitted_by: &["on-matchmaking-event"],
    meaning: "matchmaking tickets ended, per final status",
};

pub const MATCHMAKING_TIME: Metric = Metric {
    name: "MatchmakingTime",
    unit: "Milliseconds",
    kind: Kind::Histogram,
    default: ALONE,
    detailed: by(&["Status"], 4),
    emitted_by: &["on-matchmaking-event"],
    meaning: "a ticket's time from its request to its end",
};

pub const IGNORED_EVENTS: Metric = Metric {
    name: "IgnoredEvents",
    unit: "Count",
    kind: Kind::Counter,
    // `duplicate`: SNS and EventBridge deliver at least once. The others only when
    // something else shares the topic or the configuration (`foreign` with FlexMatch).
    default: by(&["Reason"], 1),
    detailed: None,
    emitted_by: &["on-placement-event", "on-matchmaking-event"],
    meaning: "placement and matchmaking events that changed nothing, per reason (`unknown`, \
              `foreign`, `duplicate`, `out_of_order`, `malformed`: `super::Ignored`)",
};

pub const PLAYERS_ONLINE: Metric = Metric {
    name: "PlayersOnline",
    unit: "Count",
    kind: Kind::Gauge,
    default: ALONE,
    detailed: None,
    emitted_by: &["presence-timeout"],
    meaning: "players online (connected, not in grace), counted by the sweeper from the \
              scan it makes anyway; written by a sweep that read every shard",
};

pub const SWEEP_EXAMINED: Metric = Metric {
    name: "SweepExamined",
    unit: "Count",
    kind: Kind::Counter,
    default: None,
    detailed: ALONE,
    emitted_by: &["presence-timeout"],
    meaning: "tracked players (online or in grace) a sweep read",
};

pub const SWEEP_SWEPT: Metric = Metric {
    name: "SweepSwept",
    unit: "Count",
    kind: Kind::Counter,
    default: None,
    detailed: ALONE,
    emitted_by: &["presence-timeout"],
    meaning: "players a sweep marked offline",
};

pub const SWEEP_DURATION: Metric = Metric {
    name: "SweepDuration",
    unit: "Milliseconds",
    kind: Kind::Histogram,
    default: ALONE,
    detailed: None,
    emitted_by: &["presence-timeout"],
    meaning: "a sweep's run time; one value per run, so its sample count is the runs",
};

pub const SWEEP_FAILURES: Metric = Metric {
    name: "SweepFailures",
    unit: "Count",
    kind: Kind::Counter,
    default: ALONE,
    detailed: None,
    emitted_by: &["presence-timeout"],
    meaning: "pages, players or events a sweep failed on (store or bus faults)",
};

pub const PRESENCE_FANOUT: Metric = Metric {
    name: "PresenceFanout",
    unit: "Count",
    kind: Kind::Counter,
    default: None,
    detailed: ALONE,
    emitted_by: &["on-presence-event"],
    meaning: "presence frames appended to watchers' inboxes",
};

pub const AUTHORIZER_DENIALS: Metric = Metric {
    name: "AuthorizerDenials",
    unit: "Count",
    kind: Kind::Counter,
    // missing_credentials, invalid_credentials, keys_unavailable.
    default: by(&["Reason"], 3),
    detailed: None,
    emitted_by: &["authorizer"],
    meaning: "connections the authorizer denied, per reason",
};

/// Every function of template.yaml, by its binary name (`Metadata: BuildProperties:
/// Binary`), with the route keys of the WebSocket routes among them: every one emits
/// [`COLD_STARTS`].
pub const FUNCTIONS: [&str; 19] = [
    "authorizer",
    "connect",
    "disconnect",
    "default",
    "resume",
    "send-message",
    "on-message-inserted",
    "session-placement-request",
    "cancel-placement",
    "rejoin-session",
    "on-placement-event",
    "presence-timeout",
    "subscribe-presence",
    "on-presence-event",
    "party",
    "friends",
    "matchmaking",
    "on-matchmaking-event",
    "backend-api",
];

pub const COLD_STARTS: Metric = Metric {
    name: "ColdStarts",
    unit: "Count",
    kind: Kind::Counter,
    default: ALONE,
    detailed: None,
    emitted_by: &FUNCTIONS,
    meaning: "first invocations of an execution environment (which function: the log \
              group of the line)",
};

/// Every metric, in the order docs/operations.md lists them.
pub const CATALOGUE: &[Metric] = &[
    REQUESTS,
    REFUSALS,
    RATE_LIMITED,
    DELIVERIES,
    DELIVERY_LAG,
    STREAM_BATCH_SIZE,
    STREAM_FAILURES,
    PLACEMENTS,
    PLACEMENT_TIME,
    MATCHMAKING_TICKETS,
    MATCHMAKING_TIME,
    IGNORED_EVENTS,
    PLAYERS_ONLINE,
    SWEEP_EXAMINED,
    SWEEP_SWEPT,
    SWEEP_DURATION,
    SWEEP_FAILURES,
    PRESENCE_FANOUT,
    AUTHORIZER_DENIALS,
    COLD_STARTS,
];

/// The metric named `name`.
pub fn metric(name: &str) -> Option<&'static Metric> {
    CATALOGUE.iter().find(|metric| metric.name == name)
}

/// Custom metrics a stack in steady use keeps, with or without `DETAILED_METRICS`: the
/// sum of every metric's series.
pub fn custom_metrics(detailed: bool) -> u32 {
    CATALOGUE.iter().map(|metric| metric.series(detailed)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn given_the_catalogue_then_names_are_unique_and_dimensions_few() {
        let mut names: Vec<&str> = CATALOGUE.iter().map(|m| m.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), CATALOGUE.len());
        for metric in CATALOGUE {
            assert!(metric.dimension_sets().next().is_some(), "{}", metric.name);
            assert!(
                metric.dimension_sets().all(|set| set.len() <= 2),
                "{}",
                metric.name
            );
            assert!(
                metric
                    .dimension_sets()
                    .collect::<Vec<_>>()
                    .windows(2)
                    .all(|w| w[0] != w[1])
            );
            assert!(!metric.emitted_by.is_empty(), "{}", metric.name);
            assert!(metric.series(true) >= 1, "{}", metric.name);
        }
        assert_eq!(metric("DeliveryLag"), Some(&DELIVERY_LAG));
        assert_eq!(custom_metrics(false), 30);
        assert_eq!(custom_metrics(true), 107);
    }
}
