//! This project's bill, (b) or (c), from one tree's measured counts.

use super::measured::Measured;
use super::usage::{Bill, Feature, Line, Work};
use super::{PresenceLiveness, SECONDS_PER_MONTH, Scenario};

/// An inbound frame: the message, and its line in the access log.
pub fn inbound(access_log: &Work) -> Work {
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
    // Each online friend told of each change, without subscribing: the per-friend share
    // of the fan-out (their Players items read 100 at a time, one append each) and the
    // frame's delivery. A tree before friends has none.
    if s.friends_per_player > 0.0 && measured.has_friends() {
        let per_friend = measured.per_friend()?;
        bill.add_work(
            Feature::Presence,
            "on-presence-event",
            &per_friend.times(s.friends_per_player),
            s.presence_changes(),
            gb,
        );
        bill.add_work(
            Feature::Presence,
            "on-message-inserted",
            &deliver,
            s.presence_changes() * s.friends_per_player,
            gb,
        );
    }
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
