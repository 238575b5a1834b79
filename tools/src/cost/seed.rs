//! The seed designs' bill, (a): presence on AppSync, messaging as one Lambda writing
//! each recipient's copy; what they assume (the constants) is listed in docs/cost.md.

use super::measured::Measured;
use super::ours::{inbound, ours};
use super::usage::{Bill, Feature, Line, Work};
use super::{HOURS_PER_MONTH, Scenario};

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
