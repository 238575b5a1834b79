//! The three designs of one scenario, as bills, then priced.

use std::collections::BTreeMap;

use super::usage::{Bill, Feature, Line, Work};
use super::{HOURS_PER_MONTH, PresenceLiveness, Prices, SECONDS_PER_MONTH, Scenario};
use crate::counts::{Operation, OperationCounts};

/// Bytes one presence change's publishing call moves through the seed's NAT gateway
/// (request, response and TLS records; an assumption, docs/cost.md).
pub const SEED_NAT_BYTES_PER_CALL: f64 = 2_000.0;

/// Lambda's default platform lines for one invocation (text format, system log level
/// INFO), with a request id and figures of the usual length: what a seed Lambda logs
/// besides its own lines.
pub const SEED_PLATFORM_LINES: [&str; 3] = [
    "START RequestId: 8f5e2a34-1c7b-4d0e-9a61-3b2c5d7e8f90 Version: $LATEST\n",
    "END RequestId: 8f5e2a34-1c7b-4d0e-9a61-3b2c5d7e8f90\n",
    "REPORT RequestId: 8f5e2a34-1c7b-4d0e-9a61-3b2c5d7e8f90\tDuration: 2.31 ms\tBilled Duration: 3 ms\tMemory Size: 128 MB\tMax Memory Used: 31 MB\t\n",
];

/// Minutes between the frames the seed's client sends only to keep its API Gateway
/// socket open (API Gateway closes a socket idle for 10 minutes).
pub const SEED_KEEPALIVE_MINUTES: f64 = 9.0;

/// The columns of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Design {
    Seed,
    Before,
    After,
}

impl Design {
    pub fn label(self) -> &'static str {
        match self {
            Design::Seed => "(a) seed",
            Design::Before => "(b) before",
            Design::After => "(c) after",
        }
    }
}

/// One design's month, in dollars per feature and line.
#[derive(Clone, Debug)]
pub struct Priced {
    pub design: Design,
    pub bill: Bill,
    pub costs: BTreeMap<(Feature, Line), f64>,
}

impl Priced {
    pub fn cost(&self, feature: Feature, line: Line) -> f64 {
        self.costs
            .get(&(feature, line))
            .copied()
            .unwrap_or_default()
    }

    pub fn feature_total(&self, feature: Feature) -> f64 {
        self.costs
            .iter()
            .filter(|((f, _), _)| *f == feature)
            .map(|(_, cost)| cost)
            .sum()
    }

    pub fn total(&self) -> f64 {
        self.costs.values().sum()
    }
}

/// The measured operations of one tree, looked up by id.
pub struct Measured<'a> {
    counts: &'a OperationCounts,
}

impl<'a> Measured<'a> {
    pub fn new(counts: &'a OperationCounts) -> Self {
        Self { counts }
    }

    /// The operation `id`; an error names the file's missing row.
    pub fn op(&self, id: &str) -> Result<&'a Operation, String> {
        self.counts.operations.get(id).ok_or_else(|| {
            format!(
                "the operation counts have no row {id:?} (regenerate them: {})",
                crate::counts::REGENERATE
            )
        })
    }

    /// Whether the tree has the `ping` route (a measured `ping` row): its clients send
    /// a heartbeat only with a newer cursor, and ping otherwise.
    pub fn pings(&self) -> bool {
        self.counts.operations.contains_key("ping")
    }

    pub fn work(&self, id: &str) -> Result<Work, String> {
        self.op(id).map(Work::of)
    }

    /// What `id_many` (`n` of something) does beyond `id_base`, per one of them.
    pub fn per_each(&self, id_many: &str, id_base: &str, n: f64) -> Result<Work, String> {
        Ok(self
            .work(id_many)?
            .minus(&self.work(id_base)?)
            .times(1.0 / n))
    }

    /// `sendMessage` to `recipients`, between the measured 1, 25 and 100 (later messages):
    /// one invocation, and the rest growing linearly with the recipients.
    pub fn send_message(&self, recipients: f64) -> Result<Work, String> {
        let one = self.work("send_message_1")?;
        let (base, from, slope) = if recipients <= 25.0 {
            (
                one.clone(),
                1.0,
                self.per_each("send_message_25", "send_message_1", 24.0)?,
            )
        } else {
            (
                self.work("send_message_25")?,
                25.0,
                self.per_each("send_message_100", "send_message_25", 75.0)?,
            )
        };
        let mut work = base.plus(&slope.times(recipients - from));
        work.lambda_invocations = one.lambda_invocations;
        Ok(work)
    }

    /// One line of the stage's access log, or nothing when the tree's stage writes none
    /// by default (`AccessLogs`).
    pub fn access_log_line(&self) -> Result<Work, String> {
        let line = self.work("access_log_line")?;
        Ok(if self.counts.measured.access_logs == "Disabled" {
            Work::default()
        } else {
            line
        })
    }

    /// Whether the tree's functions trace with X-Ray (`Tracing: Active`).
    pub fn traced(&self) -> bool {
        self.counts.measured.lambda_tracing == "Active"
    }
}

/// An inbound frame: the message, and its line in the access log.
fn inbound(access_log: &Work) -> Work {
    Work {
        inbound_messages: 1.0,
        ..access_log.clone()
    }
}

/// This project, from one tree's measured counts.
pub fn ours(scenario: &Scenario, measured: &Measured<'_>) -> Result<Bill, String> {
    let s = scenario;
    let gb = s.memory_gb();
    let log = measured.access_log_line()?;
    let frame = inbound(&log);
    let mut bill = Bill::default();

    // Presence: the timer's frames (heartbeats, a share of them with a requestId, acked;
    // where the tree has `ping`, only those with a newer cursor, the rest pings), the
    // sweeper over every tracked player each run, each session's end swept offline
    // after its grace, each change fanned out to the watchers and delivered, each
    // session's subscribe.
    let heartbeat = measured
        .work("heartbeat")?
        .times(1.0 - s.acked_heartbeats)
        .plus(
            &measured
                .work("heartbeat_with_cursor")?
                .times(s.acked_heartbeats),
        )
        .plus(&frame);
    // A tree with the `ping` route is (c): its clients follow `keepAlive`, and the
    // sweeper asks GetConnection only in connection-activity mode.
    let (heartbeats, tracked) = match (measured.pings(), s.liveness) {
        (false, _) => (s.heartbeats(), "sweep_100_online"),
        (true, PresenceLiveness::Heartbeat) => (s.timer_frames(), "sweep_100_online"),
        (true, PresenceLiveness::ConnectionActivity) => {
            let ping = measured.work("ping")?.plus(&frame);
            bill.add_work(Feature::Presence, "ping", &ping, s.pings(), gb);
            bill.pings = s.pings();
            (s.cursor_heartbeats(), "sweep_100_pinging")
        }
    };
    bill.add_work(Feature::Presence, "heartbeat", &heartbeat, heartbeats, gb);
    let sweep = measured.work("sweep_empty")?;
    // Where clients ping, every tracked player is taken as past its deadline and asked
    // about (GetConnection) each run: an upper bound (docs/cost.md).
    let per_tracked = measured.per_each(tracked, "sweep_empty", 100.0)?;
    bill.add_work(
        Feature::Presence,
        "presence-timeout",
        &sweep,
        s.sweeps(),
        gb,
    );
    bill.add_work(
        Feature::Presence,
        "presence-timeout",
        &per_tracked,
        s.sweeps() * s.ccu,
        gb,
    );
    let per_ended = measured.per_each("sweep_100_grace_over", "sweep_100_online", 100.0)?;
    bill.add_work(
        Feature::Presence,
        "presence-timeout",
        &per_ended,
        s.sessions(),
        gb,
    );
    // The session's online event, published by $connect.
    let online_event = Work {
        events: measured.op("connect_new_session")?.events_published as f64,
        ..Work::default()
    };
    bill.add_work(
        Feature::Presence,
        "connect",
        &online_event,
        s.sessions(),
        gb,
    );
    let fan_out = measured.work("presence_event_no_watchers")?;
    let per_watcher = measured.per_each(
        "presence_event_10_watchers",
        "presence_event_no_watchers",
        10.0,
    )?;
    bill.add_work(
        Feature::Presence,
        "on-presence-event",
        &fan_out.plus(&per_watcher.times(s.subscriptions_per_player)),
        s.presence_changes(),
        gb,
    );
    let deliver = measured.work("deliver_1")?;
    bill.add_work(
        Feature::Presence,
        "on-message-inserted",
        &deliver,
        s.presence_frames(),
        gb,
    );
    let subscribe = measured.work("subscribe_presence_10")?;
    let subscribe = Work {
        lambda_invocations: subscribe.lambda_invocations,
        lambda_ms: subscribe.lambda_ms,
        outbound_messages: subscribe.outbound_messages,
        log_bytes: subscribe.log_bytes,
        ..subscribe.times(s.subscriptions_per_player / 10.0)
    }
    .plus(&frame);
    bill.add_work(
        Feature::Presence,
        "subscribe-presence",
        &subscribe,
        s.sessions(),
        gb,
    );

    // Messaging: the frame, sendMessage, one delivery per recipient.
    let send = measured
        .send_message(s.recipients_per_message)?
        .plus(&frame);
    bill.add_work(Feature::Messaging, "send-message", &send, s.messages(), gb);
    bill.add_work(
        Feature::Messaging,
        "on-message-inserted",
        &deliver,
        s.deliveries(),
        gb,
    );

    // Placement: the request, GameLift's event through SNS, the result's delivery.
    let request = measured.work("session_placement_request")?.plus(&frame);
    bill.add_work(
        Feature::Placement,
        "session-placement-request",
        &request,
        s.placements(),
        gb,
    );
    let event = Work {
        sns_publishes: 1.0,
        ..measured.work("placement_fulfilled_1")?
    };
    bill.add_work(
        Feature::Placement,
        "on-placement-event",
        &event,
        s.placements(),
        gb,
    );
    bill.add_work(
        Feature::Placement,
        "on-message-inserted",
        &deliver,
        s.placements(),
        gb,
    );

    connections(&mut bill, s, measured, &log)?;
    if measured.traced() {
        bill.add_xray_default_sampling(SECONDS_PER_MONTH);
    }
    Ok(bill)
}

/// Connection minutes, and each session's authorizer, `$connect`, `resume` and
/// `$disconnect` (the online event `$connect` publishes is presence's).
fn connections(
    bill: &mut Bill,
    s: &Scenario,
    measured: &Measured<'_>,
    log: &Work,
) -> Result<(), String> {
    let gb = s.memory_gb();
    bill.add(
        Feature::Connections,
        Line::ApiGatewayConnectionMinutes,
        s.player_minutes(),
    );
    bill.add_work(
        Feature::Connections,
        "authorizer",
        &measured.work("authorizer")?,
        s.sessions(),
        gb,
    );
    let connect = Work {
        events: 0.0,
        ..measured.work("connect_new_session")?
    }
    .plus(log);
    bill.add_work(Feature::Connections, "connect", &connect, s.sessions(), gb);
    let resume = measured.work("resume_nothing_pending")?.plus(&inbound(log));
    bill.add_work(Feature::Connections, "resume", &resume, s.sessions(), gb);
    let disconnect = measured.work("disconnect")?.plus(log);
    bill.add_work(
        Feature::Connections,
        "disconnect",
        &disconnect,
        s.sessions(),
        gb,
    );
    Ok(())
}

/// The seed designs: presence on AppSync + a Lambda per heartbeat + ElastiCache + NAT,
/// messaging as one Lambda doing one write per recipient. Their Lambdas take what this
/// project's (before) Lambdas doing the same work took; connections and placement are
/// this project's before.
pub fn seed(scenario: &Scenario, before: &Measured<'_>) -> Result<Bill, String> {
    let s = scenario;
    let gb = s.memory_gb();
    let mut bill = Bill::default();

    // Presence.
    let platform_bytes: f64 = SEED_PLATFORM_LINES.iter().map(|l| l.len() as f64).sum();
    let lambda = |work: Work| Work {
        lambda_invocations: work.lambda_invocations,
        lambda_ms: work.lambda_ms,
        log_bytes: work.log_bytes + platform_bytes * work.lambda_invocations,
        ..Work::default()
    };
    let heartbeat = Work {
        appsync_operations: 1.0,
        ..lambda(before.work("heartbeat")?)
    };
    bill.add_work(
        Feature::Presence,
        "heartbeat",
        &heartbeat,
        s.heartbeats(),
        gb,
    );
    bill.add(
        Feature::Presence,
        Line::AppSyncConnectionMinutes,
        s.player_minutes(),
    );
    let keepalive = inbound(&before.access_log_line()?);
    bill.add_work(
        Feature::Presence,
        "mock",
        &keepalive,
        s.player_minutes() / SEED_KEEPALIVE_MINUTES,
        gb,
    );
    bill.add(
        Feature::Presence,
        Line::ElastiCacheNodeHours,
        HOURS_PER_MONTH,
    );
    bill.add(Feature::Presence, Line::NatGatewayHours, HOURS_PER_MONTH);
    bill.add_work(
        Feature::Presence,
        "sweeper",
        &lambda(before.work("sweep_empty")?),
        s.sweeps(),
        gb,
    );
    let change = Work {
        appsync_operations: 1.0,
        nat_bytes: SEED_NAT_BYTES_PER_CALL,
        ..Work::default()
    };
    bill.add_work(
        Feature::Presence,
        "publisher",
        &change,
        s.presence_changes(),
        gb,
    );
    let frame = Work {
        appsync_realtime_updates: 1.0,
        ..Work::default()
    };
    bill.add_work(
        Feature::Presence,
        "appsync",
        &frame,
        s.presence_frames(),
        gb,
    );
    let subscribe = Work {
        appsync_operations: 1.0,
        appsync_realtime_updates: 1.0,
        ..Work::default()
    };
    bill.add_work(Feature::Presence, "appsync", &subscribe, s.sessions(), gb);

    // Messaging: the frame, its ack, one Lambda with one PutItem and one post per
    // recipient (no inbox, no stream).
    let log = before.access_log_line()?;
    let send = Work {
        inbound_messages: 1.0,
        outbound_messages: 1.0 + s.recipients_per_message,
        write_units: s.recipients_per_message,
        ..lambda(before.send_message(s.recipients_per_message)?)
    }
    .plus(&log);
    bill.add_work(Feature::Messaging, "send-message", &send, s.messages(), gb);

    // Placement and connections: as this project before.
    let ours_before = ours(s, before)?;
    for ((feature, line), quantity) in &ours_before.quantities {
        if matches!(feature, Feature::Placement | Feature::Connections) {
            bill.add(*feature, *line, *quantity);
        }
    }
    Ok(bill)
}

/// Prices a bill.
pub fn price(design: Design, bill: Bill, prices: &Prices) -> Result<Priced, String> {
    let mut costs = BTreeMap::new();
    for ((feature, line), quantity) in &bill.quantities {
        costs.insert(
            (*feature, *line),
            quantity * prices.unit_price(line.price_key())?,
        );
    }
    Ok(Priced {
        design,
        bill,
        costs,
    })
}

/// The three designs of `scenario`, priced.
pub fn price_all(
    scenario: &Scenario,
    prices: &Prices,
    before: &OperationCounts,
    after: &OperationCounts,
) -> Result<[Priced; 3], String> {
    scenario.validate()?;
    let before = Measured::new(before);
    let after = Measured::new(after);
    Ok([
        price(Design::Seed, seed(scenario, &before)?, prices)?,
        price(Design::Before, ours(scenario, &before)?, prices)?,
        price(Design::After, ours(scenario, &after)?, prices)?,
    ])
}

/// This project's presence cost over the seed's, for the same offline-detection bound
/// (both sweep every minute with the same timeout).
pub fn presence_ratio(priced: &[Priced; 3]) -> f64 {
    priced[2].feature_total(Feature::Presence) / priced[0].feature_total(Feature::Presence)
}

/// The presence ratio of `scenario` in each `PRESENCE_LIVENESS` mode of (c).
pub fn presence_ratios(
    scenario: &Scenario,
    prices: &Prices,
    before: &OperationCounts,
    after: &OperationCounts,
) -> Result<Vec<(PresenceLiveness, f64)>, String> {
    PresenceLiveness::ALL
        .into_iter()
        .map(|liveness| {
            let scenario = Scenario {
                liveness,
                ..scenario.clone()
            };
            let priced = price_all(&scenario, prices, before, after)?;
            Ok((liveness, presence_ratio(&priced)))
        })
        .collect()
}

/// The least a delivered message can cost: API Gateway's inbound message (shared by the
/// recipients) and one outbound message.
pub fn floor_per_delivery(scenario: &Scenario, prices: &Prices) -> Result<f64, String> {
    let message = prices.unit_price(Line::ApiGatewayMessages.price_key())?;
    Ok(message * (1.0 / scenario.recipients_per_message + 1.0))
}
