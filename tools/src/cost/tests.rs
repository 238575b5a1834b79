use std::collections::BTreeMap;

use super::designs::{floor_per_delivery, presence_ratio};
use super::measured::Measured;
use super::ours::ours;
use super::*;
use crate::counts::{Operation, OperationCounts};

fn approx(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

macro_rules! assert_approx {
    ($a:expr, $b:expr) => {
        assert!(
            approx($a, $b),
            "{} = {} but expected {}",
            stringify!($a),
            $a,
            $b
        )
    };
}

fn op(invocations: u32, ms: f64) -> Operation {
    Operation {
        label: "op".into(),
        lambda_invocations: invocations,
        lambda_ms: ms,
        ..Operation::default()
    }
}

/// Every operation the model reads, each one invocation of 1 ms and nothing else, but
/// `changes` applied.
fn counts(changes: impl FnOnce(&mut BTreeMap<String, Operation>)) -> OperationCounts {
    let ids = [
        "authorizer",
        "connect_new_session",
        "resume_nothing_pending",
        "disconnect",
        "heartbeat",
        "heartbeat_with_cursor",
        "sweep_empty",
        "sweep_100_online",
        "sweep_100_grace_over",
        "presence_event_no_watchers",
        "presence_event_10_watchers",
        "deliver_1",
        "subscribe_presence_10",
        "send_message_1",
        "send_message_25",
        "send_message_100",
        "session_placement_request",
        "placement_fulfilled_1",
    ];
    let mut operations: BTreeMap<String, Operation> =
        ids.iter().map(|id| (id.to_string(), op(1, 1.0))).collect();
    operations.insert("access_log_line".into(), op(0, 0.0));
    changes(&mut operations);
    let mut counts = OperationCounts {
        operations,
        ..OperationCounts::default()
    };
    counts.measured.lambda_tracing = "PassThrough".into();
    counts
}

/// Every price 1 USD per unit.
fn unit_prices() -> Prices {
    let prices: BTreeMap<String, serde_json::Value> = Line::ALL
        .iter()
        .map(|line| {
            (
                line.price_key().to_owned(),
                serde_json::json!({"usd": 1.0, "per": 1.0, "unit": "u",
                                   "source": "https://example.com", "confirmed": "aws-page"}),
            )
        })
        .collect();
    let text = serde_json::json!({"region": "r", "currency": "USD", "terms": "t",
                                  "taken": "d", "prices": prices});
    Prices::parse(&text.to_string()).unwrap()
}

#[test]
fn a_scenario_counts_a_730_hour_month() {
    let s = Scenario::default();
    assert_approx!(s.player_minutes(), 1000.0 * 43_800.0);
    assert_approx!(s.heartbeats(), 87_600_000.0);
    assert_approx!(s.messages(), 8_760_000.0);
    assert_approx!(s.deliveries(), 8_760_000.0);
    assert_approx!(s.placements(), 730_000.0);
    assert_approx!(s.sessions(), 730_000.0);
    assert_approx!(s.presence_changes(), 1_460_000.0);
    assert_approx!(s.presence_frames(), 7_300_000.0);
    assert_approx!(s.sweeps(), 43_800.0);
    assert_approx!(s.memory_gb(), 0.125);
}

#[test]
fn a_scenario_out_of_range_is_refused_naming_the_knob() {
    let mut s = Scenario {
        heartbeat_seconds: 0.0,
        ..Scenario::default()
    };
    assert!(s.validate().unwrap_err().contains("--heartbeat-seconds"));
    s.heartbeat_seconds = 30.0;
    s.acked_heartbeats = 1.5;
    assert!(s.validate().unwrap_err().contains("--acked-heartbeats"));
    s.acked_heartbeats = 0.0;
    s.messages_per_player_minute = -1.0;
    assert!(
        s.validate()
            .unwrap_err()
            .contains("--messages-per-player-minute")
    );
}

#[test]
fn an_operation_bills_rounded_milliseconds_refused_writes_and_every_outbound_frame() {
    let mut measured = op(2, 2.3);
    measured.write_units = 1.0;
    measured.index_write_units = 2.0;
    measured.failed_conditions = 1;
    measured.replies = 1;
    measured
        .management_calls
        .insert("PostToConnection".into(), 3);
    measured
        .management_calls
        .insert("DeleteConnection".into(), 1);
    let work = Work::of(&measured);
    // 1.15 ms per invocation, billed 2 ms each.
    assert_approx!(work.lambda_ms, 4.0);
    assert_approx!(work.write_units, 4.0);
    assert_approx!(work.outbound_messages, 4.0);
    assert_approx!(Work::of(&op(0, 0.0)).lambda_ms, 0.0);
    assert_approx!(Work::of(&op(1, 0.2)).lambda_ms, 1.0);
}

#[test]
fn a_difference_of_work_never_goes_below_zero_and_scales() {
    let a = Work {
        read_units: 3.0,
        write_units: 1.0,
        ..Work::default()
    };
    let b = Work {
        read_units: 1.0,
        write_units: 2.0,
        ..Work::default()
    };
    let d = a.minus(&b).times(0.5);
    assert_approx!(d.read_units, 1.0);
    assert_approx!(d.write_units, 0.0);
    assert_approx!(a.plus(&b).read_units, 4.0);
}

#[test]
fn x_ray_keeps_one_trace_a_second_and_five_percent_of_the_rest_per_function() {
    let mut bill = Bill::default();
    let work = Work {
        lambda_invocations: 1.0,
        ..Work::default()
    };
    // 10 invocations a second for 100 s, 70 % for presence and 30 % for messaging.
    bill.add_work(Feature::Presence, "f", &work, 700.0, 0.125);
    bill.add_work(Feature::Messaging, "f", &work, 300.0, 0.125);
    // 2 a second of another function.
    bill.add_work(Feature::Presence, "g", &work, 200.0, 0.125);
    bill.add_xray_default_sampling(100.0);
    let f = 100.0 * (1.0 + 0.05 * 9.0);
    let g = 100.0 * (1.0 + 0.05 * 1.0);
    assert_approx!(
        bill.quantity(Feature::Presence, Line::XRayTraces),
        0.7 * f + g
    );
    assert_approx!(bill.quantity(Feature::Messaging, Line::XRayTraces), 0.3 * f);
}

#[test]
fn send_message_grows_linearly_with_recipients_between_the_measured_sizes() {
    let counts = counts(|ops| {
        ops.get_mut("send_message_1").unwrap().write_units = 2.0;
        ops.get_mut("send_message_25").unwrap().write_units = 26.0;
        ops.get_mut("send_message_100").unwrap().write_units = 101.0;
    });
    let measured = Measured::new(&counts);
    assert_approx!(measured.send_message(13.0).unwrap().write_units, 14.0);
    assert_approx!(measured.send_message(50.0).unwrap().write_units, 51.0);
    assert_approx!(measured.send_message(50.0).unwrap().lambda_invocations, 1.0);
}

#[test]
fn a_missing_operation_row_is_named_with_how_to_regenerate_the_counts() {
    let mut counts = counts(|_| {});
    counts.operations.remove("heartbeat");
    let error = ours(&Scenario::default(), &Measured::new(&counts)).unwrap_err();
    assert!(
        error.contains("\"heartbeat\"") && error.contains("round_trips"),
        "{error}"
    );
}

#[test]
fn heartbeats_cost_their_frame_their_write_and_a_reply_only_when_acked() {
    // One player heartbeating every minute: 43,800 heartbeats a month.
    let scenario = Scenario {
        ccu: 1.0,
        heartbeat_seconds: 60.0,
        messages_per_player_minute: 0.0,
        placements_per_player_hour: 0.0,
        subscriptions_per_player: 0.0,
        acked_heartbeats: 0.25,
        ..Scenario::default()
    };
    let counts = counts(|ops| {
        for id in ["heartbeat", "heartbeat_with_cursor"] {
            let heartbeat = ops.get_mut(id).unwrap();
            heartbeat.lambda_invocations = 0;
            heartbeat.write_units = 1.0;
        }
        ops.get_mut("heartbeat_with_cursor").unwrap().replies = 1;
        ops.get_mut("access_log_line").unwrap().log_bytes = 200;
    });
    let bill = ours(&scenario, &Measured::new(&counts)).unwrap();
    let n = 43_800.0;
    // The frame in, a quarter of them acked; the 4 sessions' other frames (resume,
    // subscribe) and replies come on top.
    let sessions = scenario.sessions();
    assert_approx!(
        bill.quantity(Feature::Presence, Line::ApiGatewayMessages),
        n * 1.25 + sessions
    );
    assert_approx!(
        bill.quantity(Feature::Presence, Line::DynamoDbWrites),
        n * 1.0
    );
    // No heartbeat invocation: only the sweeper's, the fan-out's and the subscribe's.
    let other_invocations = scenario.sweeps() * (1.0) + sessions * 3.0;
    assert_approx!(
        bill.quantity(Feature::Presence, Line::LambdaRequests),
        other_invocations
    );
    // 200 bytes of access log per frame.
    assert_approx!(
        bill.quantity(Feature::Presence, Line::CloudWatchLogsGb),
        (n + sessions) * 200.0 / 1e9
    );
    assert_approx!(bill.quantity(Feature::Presence, Line::XRayTraces), 0.0);
}

#[test]
fn the_priced_table_ends_with_the_presence_ratio_and_the_floor_is_api_gateway_in_and_out() {
    let counts = counts(|ops| {
        ops.get_mut("heartbeat").unwrap().write_units = 1.0;
    });
    let prices = unit_prices();
    let scenario = Scenario {
        recipients_per_message: 4.0,
        ..Scenario::default()
    };
    let priced = price_all(&scenario, &prices, &counts, &counts).unwrap();
    assert_approx!(floor_per_delivery(&scenario, &prices).unwrap(), 1.25);
    let ratio = presence_ratio(&priced);
    assert_approx!(
        ratio,
        priced[2].feature_total(Feature::Presence) / priced[0].feature_total(Feature::Presence)
    );
    let ratios = presence_ratios(&scenario, &prices, &counts, &counts).unwrap();
    let table = render::table(&scenario, &prices, &priced, &ratios).unwrap();
    let last = table.lines().last().unwrap();
    assert_eq!(last, format!("presence ratio to seed: {ratio:.2}"));
    let by_mode = table.lines().rev().nth(1).unwrap();
    assert!(
        by_mode
            .starts_with("presence ratio to seed by PRESENCE_LIVENESS: heartbeat (the default) ")
            && by_mode.contains(", connection-activity "),
        "{by_mode}"
    );
    // Every price is 1 a unit: a line's cost is its quantity.
    assert_approx!(
        priced[1].cost(Feature::Presence, Line::DynamoDbWrites),
        priced[1]
            .bill
            .quantity(Feature::Presence, Line::DynamoDbWrites)
    );
    assert_approx!(
        priced[0].cost(Feature::Presence, Line::ElastiCacheNodeHours),
        HOURS_PER_MONTH
    );
}

#[test]
fn the_bundled_counts_have_every_row_the_model_reads() {
    let before: OperationCounts =
        serde_json::from_str(include_str!("../../data/operation-counts-before.json")).unwrap();
    let after: OperationCounts =
        serde_json::from_str(include_str!("../../data/operation-counts.json")).unwrap();
    let prices = Prices::parse(prices::BUNDLED).unwrap();
    for ccu in [1_000.0, 10_000.0, 100_000.0] {
        let scenario = Scenario {
            ccu,
            ..Scenario::default()
        };
        let priced = price_all(&scenario, &prices, &before, &after).unwrap();
        let ratio = presence_ratio(&priced);
        assert!(ratio.is_finite() && ratio > 0.0, "{ratio}");
    }
}

/// `counts` of a tree with the `ping` route: a ping row (nothing but its frame) and a
/// sweep of 100 pinging players past their deadline (reads and 100 GetConnection calls).
fn counts_with_ping(changes: impl FnOnce(&mut BTreeMap<String, Operation>)) -> OperationCounts {
    counts(|ops| {
        ops.insert("ping".into(), op(0, 0.0));
        let mut pinging = op(1, 1.0);
        pinging.read_units = 50.0;
        pinging.management_calls.insert("GetConnection".into(), 100);
        ops.insert("sweep_100_pinging".into(), pinging);
        changes(ops);
    })
}

#[test]
fn given_the_default_timeout_then_c_sends_the_servers_keep_alive_interval_and_a_and_b_their_own() {
    let s = Scenario::default();
    assert_approx!(s.keep_alive_seconds(), 40.0);
    // 1,000 players, a frame every 40 s: 65.7 million; (a) and (b) every 30 s: 87.6 million.
    assert_approx!(s.timer_frames(), 65_700_000.0);
    assert_approx!(s.heartbeats(), 87_600_000.0);
    let longer = Scenario {
        heartbeat_timeout_seconds: 7_200.0,
        ..Scenario::default()
    };
    assert_approx!(longer.keep_alive_seconds(), 540.0);
}

#[test]
fn given_heartbeat_mode_then_every_timer_frame_of_c_is_a_heartbeat_and_the_sweeper_asks_nothing() {
    let counts = counts_with_ping(|ops| {
        ops.get_mut("heartbeat").unwrap().write_units = 1.0;
    });
    let scenario = Scenario::default();
    assert_eq!(scenario.liveness, PresenceLiveness::Heartbeat);
    let bill = ours(&scenario, &Measured::new(&counts)).unwrap();
    assert_approx!(bill.pings, 0.0);
    assert_approx!(
        bill.quantity(Feature::Presence, Line::DynamoDbWrites),
        scenario.timer_frames()
    );
    assert_approx!(
        bill.quantity(Feature::Presence, Line::ApiGatewayGetConnection),
        0.0
    );
}

#[test]
fn timer_frames_split_by_the_chance_a_pushed_frame_came_in_one_interval() {
    // Given the must-show scenario in connection-activity mode: per player-second 0.2/60
    // messages delivered, 2 × 5 presence frames an hour, 1 placement result an hour.
    let s = Scenario {
        liveness: PresenceLiveness::ConnectionActivity,
        ..Scenario::default()
    };
    let lambda = 0.2 / 60.0 + 10.0 / 3600.0 + 1.0 / 3600.0;
    assert_approx!(s.pushed_frames_per_player_second(), lambda);
    let share = 1.0 - (-lambda * 40.0).exp();
    assert_approx!(s.cursor_heartbeat_share(), share);
    assert_approx!(s.cursor_heartbeats(), 65_700_000.0 * share);
    assert_approx!(s.cursor_heartbeats() + s.pings(), s.timer_frames());
    // More recipients per message push more frames to each player: more heartbeats.
    let busier = Scenario {
        recipients_per_message: 4.0,
        ..s.clone()
    };
    assert!(busier.cursor_heartbeat_share() > share);
    // Nothing pushed: every timer frame is a ping.
    let quiet = Scenario {
        messages_per_player_minute: 0.0,
        placements_per_player_hour: 0.0,
        subscriptions_per_player: 0.0,
        ..s.clone()
    };
    assert_approx!(quiet.cursor_heartbeat_share(), 0.0);
    assert_approx!(quiet.pings(), quiet.timer_frames());
}

#[test]
fn where_the_tree_pings_a_ping_is_one_inbound_message_and_only_cursor_heartbeats_write() {
    // Given one player told a frame a minute (a 2-minute-and-a-bit timeout), a quarter
    // of heartbeats acked, and a tree with the ping route in connection-activity mode.
    let scenario = Scenario {
        ccu: 1.0,
        heartbeat_timeout_seconds: 133.0,
        liveness: PresenceLiveness::ConnectionActivity,
        messages_per_player_minute: 0.5,
        placements_per_player_hour: 0.0,
        subscriptions_per_player: 0.0,
        acked_heartbeats: 0.25,
        ..Scenario::default()
    };
    let counts = counts_with_ping(|ops| {
        for id in ["heartbeat", "heartbeat_with_cursor"] {
            let heartbeat = ops.get_mut(id).unwrap();
            heartbeat.lambda_invocations = 0;
            heartbeat.write_units = 1.0;
        }
        ops.get_mut("heartbeat_with_cursor").unwrap().replies = 1;
    });
    // When it is priced.
    assert_approx!(scenario.keep_alive_seconds(), 60.0);
    let bill = ours(&scenario, &Measured::new(&counts)).unwrap();
    // Then the 43,800 timer frames are cursor heartbeats with 1 − exp(−0.5/60 × 60) of
    // them, pings otherwise; only heartbeats write, and a quarter of them are acked.
    let frames = 43_800.0;
    let share = 1.0 - (-0.5f64).exp();
    let (heartbeats, pings) = (frames * share, frames * (1.0 - share));
    assert_approx!(bill.pings, pings);
    let sessions = scenario.sessions();
    assert_approx!(
        bill.quantity(Feature::Presence, Line::ApiGatewayMessages),
        pings + heartbeats * 1.25 + sessions
    );
    assert_approx!(
        bill.quantity(Feature::Presence, Line::DynamoDbWrites),
        heartbeats
    );
    // And the sweeper asks about every tracked player each run: one GetConnection and
    // the pinging sweep's reads per player (beyond the empty sweep's 0).
    let sweeps = scenario.sweeps();
    assert_approx!(
        bill.quantity(Feature::Presence, Line::ApiGatewayGetConnection),
        sweeps
    );
    assert_approx!(
        bill.quantity(Feature::Presence, Line::DynamoDbReads),
        sweeps * 0.5
    );
    // No ping runs a function: the sweeper's and the sessions' invocations only.
    assert_approx!(
        bill.quantity(Feature::Presence, Line::LambdaRequests),
        sweeps + sessions * 3.0
    );
}

#[test]
fn get_connection_costs_nothing_by_default_and_its_price_when_given_one() {
    let counts = counts_with_ping(|_| {});
    let prices = Prices::parse(prices::BUNDLED).unwrap();
    let scenario = Scenario {
        liveness: PresenceLiveness::ConnectionActivity,
        ..Scenario::default()
    };
    let free = price_all(&scenario, &prices, &counts, &counts).unwrap();
    let calls = free[2]
        .bill
        .quantity(Feature::Presence, Line::ApiGatewayGetConnection);
    assert_approx!(calls, scenario.sweeps() * scenario.ccu);
    assert_approx!(
        free[2].cost(Feature::Presence, Line::ApiGatewayGetConnection),
        0.0
    );
    let billed = prices
        .clone()
        .with_usd_per_million(Line::ApiGatewayGetConnection.price_key(), 1.0)
        .unwrap();
    let priced = price_all(&scenario, &billed, &counts, &counts).unwrap();
    assert_approx!(
        priced[2].cost(Feature::Presence, Line::ApiGatewayGetConnection),
        calls / 1e6
    );
    assert_approx!(
        priced[2].feature_total(Feature::Presence) - free[2].feature_total(Feature::Presence),
        calls / 1e6
    );
    // The table shows the line at 0.00 where it is done, and says how the frames split.
    let ratios = presence_ratios(&scenario, &prices, &counts, &counts).unwrap();
    let table = render::table(&scenario, &prices, &free, &ratios).unwrap();
    let line = table.lines().find(|l| l.contains("GetConnection")).unwrap();
    assert!(line.trim_end().ends_with("0.00"), "{line}");
    assert!(table.contains("cursor heartbeats"), "{table}");
}

#[test]
fn a_tree_without_ping_prices_every_timer_frame_as_a_heartbeat() {
    // The before tree: no ping row, so the sweep is of heartbeating players.
    let counts = counts(|ops| {
        ops.get_mut("heartbeat").unwrap().write_units = 1.0;
    });
    let scenario = Scenario::default();
    let bill = ours(&scenario, &Measured::new(&counts)).unwrap();
    assert_approx!(bill.pings, 0.0);
    assert_approx!(
        bill.quantity(Feature::Presence, Line::DynamoDbWrites),
        scenario.heartbeats()
    );
    assert_approx!(
        bill.quantity(Feature::Presence, Line::ApiGatewayGetConnection),
        0.0
    );
}

#[test]
fn the_must_show_scenario_meets_its_presence_target_with_the_bundled_counts() {
    let before: OperationCounts =
        serde_json::from_str(include_str!("../../data/operation-counts-before.json")).unwrap();
    let after: OperationCounts =
        serde_json::from_str(include_str!("../../data/operation-counts.json")).unwrap();
    assert!(!Measured::new(&before).pings());
    assert!(Measured::new(&after).pings());
    let prices = Prices::parse(prices::BUNDLED).unwrap();
    // In both modes, the default one included.
    for (liveness, ratio) in
        presence_ratios(&Scenario::default(), &prices, &before, &after).unwrap()
    {
        assert!(ratio <= 0.35, "{liveness}: {ratio}");
    }
}

#[test]
fn given_the_template_then_observability_counts_its_alarm_metrics_and_dashboard_and_prices_each_line()
 {
    use super::observability::{Deployed, EmfBytes, price};
    let deployed = Deployed::bundled().unwrap();
    assert_eq!(deployed.dashboards, 1);
    assert!(deployed.alarms >= 13, "{deployed:?}");
    // A metric math alarm reads each of its MetricStat queries; a plain one, one metric.
    let small = serde_json::json!({"Resources": {
        "A": {"Type": "AWS::CloudWatch::Alarm", "Properties": {"MetricName": "X"}},
        "B": {"Type": "AWS::CloudWatch::Alarm", "Properties": {"Metrics": [
            {"Id": "a", "MetricStat": {}}, {"Id": "b", "MetricStat": {}}, {"Id": "e", "Expression": "a+b"}]}},
        "D": {"Type": "AWS::CloudWatch::Dashboard"}}});
    assert_eq!(
        Deployed::of(&small),
        Deployed {
            alarm_metrics: 3,
            alarms: 2,
            dashboards: 1
        }
    );
    let prices = Prices::parse(prices::BUNDLED).unwrap();
    let mut bill = Bill::default();
    bill.invocations
        .insert(("send-message", Feature::Messaging), 4e6);
    bill.invocations
        .insert(("heartbeat", Feature::Presence), 1e9);
    let emf = EmfBytes::parse(
        r#"{"measured": "test", "functions": {"send-message": 250}, "detailed": {"send-message": 500}}"#,
    )
    .unwrap();
    let priced = price(&bill, &emf, Deployed::of(&small), &prices, false).unwrap();
    assert!(
        (priced.emf_gb - 1.0).abs() < 1e-9,
        "4e6 x 250 bytes, heartbeats write none"
    );
    assert!((priced.emf_usd - 0.50).abs() < 1e-9);
    // The series of the metrics send-message emits (and every function's ColdStarts).
    use shared::metrics::catalogue::{COLD_STARTS, RATE_LIMITED, REFUSALS, REQUESTS};
    let metrics = REFUSALS.series(false) + COLD_STARTS.series(false);
    assert_eq!(priced.custom_metrics, metrics);
    assert!((priced.custom_metrics_usd - f64::from(metrics) * 0.30).abs() < 1e-9);
    assert!((priced.alarms_usd - 0.30).abs() < 1e-9);
    assert!((priced.dashboards_usd - 3.0).abs() < 1e-9);
    assert!((priced.total() - (0.5 + f64::from(metrics) * 0.3 + 0.3 + 3.0)).abs() < 1e-9);
    // With DetailedMetrics: its detailed bytes, and the detailed series besides.
    let detailed = price(&bill, &emf, Deployed::of(&small), &prices, true).unwrap();
    assert!((detailed.emf_gb - 2.0).abs() < 1e-9);
    assert_eq!(
        detailed.custom_metrics,
        REQUESTS.series(true) + REFUSALS.series(true) + RATE_LIMITED.series(true) + 1
    );
}

#[test]
fn given_the_bundled_model_then_the_default_metrics_are_fewer_than_the_detailed_and_skip_what_nothing_invokes()
 {
    let before: OperationCounts =
        serde_json::from_str(include_str!("../../data/operation-counts-before.json")).unwrap();
    let after: OperationCounts =
        serde_json::from_str(include_str!("../../data/operation-counts.json")).unwrap();
    let prices = Prices::parse(prices::BUNDLED).unwrap();
    let priced = price_all(&Scenario::default(), &prices, &before, &after).unwrap();
    let bill = &priced[2].bill;
    let default = observability::custom_metrics(bill, false);
    let detailed = observability::custom_metrics(bill, true);
    // The scenario runs no matchmaking: its metrics are never written.
    use shared::metrics::catalogue::{MATCHMAKING_TICKETS, MATCHMAKING_TIME, custom_metrics};
    let matchmaking = MATCHMAKING_TICKETS.series(false) + MATCHMAKING_TIME.series(false);
    assert_eq!(default, custom_metrics(false) - matchmaking);
    assert!(detailed > default + 50, "{default} {detailed}");
}

#[test]
fn given_the_bundled_emf_bytes_then_every_function_the_model_invokes_is_measured() {
    let emf = observability::EmfBytes::parse(observability::BUNDLED_EMF_BYTES).unwrap();
    for function in [
        "authorizer",
        "connect",
        "disconnect",
        "resume",
        "send-message",
        "on-message-inserted",
        "session-placement-request",
        "on-placement-event",
        "presence-timeout",
        "on-presence-event",
        "subscribe-presence",
    ] {
        assert!(emf.functions.contains_key(function), "{function}");
    }
}

#[test]
fn given_priced_observability_when_rendered_then_it_comes_before_the_presence_ratio_lines_with_its_share()
 {
    use super::observability::{Deployed, Observability};
    let table = "all features  10.00\n\npresence ratio to seed by PRESENCE_LIVENESS: heartbeat (the default) 0.29\npresence ratio to seed: 0.29\n";
    let observability = Observability {
        emf_gb: 2.0,
        emf_gb_by_function: BTreeMap::from([
            ("on-message-inserted".to_owned(), 1.5),
            ("send-message".to_owned(), 0.5),
        ]),
        emf_usd: 1.0,
        detailed: false,
        custom_metrics: 10,
        custom_metrics_usd: 3.0,
        deployed: Deployed {
            alarm_metrics: 2,
            alarms: 1,
            dashboards: 1,
        },
        alarms_usd: 0.2,
        dashboards_usd: 0.8,
    };
    assert_eq!(
        observability.largest_writer(),
        Some(("on-message-inserted", 0.75))
    );
    let rendered = render::with_observability(table, 10.0, &observability, None);
    let lines: Vec<&str> = rendered.lines().collect();
    assert_eq!(
        lines.last().copied(),
        Some("presence ratio to seed: 0.29"),
        "{rendered}"
    );
    let header = lines
        .iter()
        .position(|line| line.starts_with("observability of (c): 2.00 GB of EMF lines, 10 custom metrics, 1 alarms reading 2 metrics, 1 dashboard(s)"))
        .expect(&rendered);
    let by_mode = lines
        .iter()
        .position(|line| line.starts_with("presence ratio to seed by"))
        .unwrap();
    assert!(header < by_mode, "{rendered}");
    assert!(rendered.contains("EMF lines written most by on-message-inserted: 75 % of the bytes"));
    let total = lines
        .iter()
        .find(|line| line.starts_with("metrics      total"))
        .unwrap();
    assert!(total.ends_with(" 5.00"), "{total}");
    assert!(rendered.contains("observability over all features of (c): 50.0 %"));
    assert!(lines.iter().any(
        |line| line.starts_with("all features and observability, (c)") && line.ends_with(" 15.00")
    ));
}

#[test]
fn given_docs_cost_md_then_its_observability_table_is_what_the_model_prices() {
    use super::observability::{BUNDLED_EMF_BYTES, Deployed, EmfBytes, price};
    let docs = include_str!("../../../docs/cost.md");
    let section = docs.split_once("\n## Observability\n").unwrap().1;
    let section = section.split_once("\n## ").map_or(section, |(it, _)| it);
    let before: OperationCounts =
        serde_json::from_str(include_str!("../../data/operation-counts-before.json")).unwrap();
    let after: OperationCounts =
        serde_json::from_str(include_str!("../../data/operation-counts.json")).unwrap();
    let prices = Prices::parse(prices::BUNDLED).unwrap();
    let emf = EmfBytes::parse(BUNDLED_EMF_BYTES).unwrap();
    let deployed = Deployed::bundled().unwrap();
    for (ccu, label) in [(1e3, "1,000"), (1e4, "10,000"), (1e5, "100,000")] {
        let scenario = Scenario {
            ccu,
            ..Scenario::default()
        };
        let priced = price_all(&scenario, &prices, &before, &after).unwrap();
        for detailed in [false, true] {
            let o = price(&priced[2].bill, &emf, deployed, &prices, detailed).unwrap();
            let (function, share) = o.largest_writer().unwrap();
            assert_eq!(function, "on-message-inserted");
            let label = if detailed {
                format!("{label}, `DetailedMetrics=true`")
            } else {
                label.to_owned()
            };
            let row = section
                .lines()
                .find(|line| line.starts_with(&format!("| {label} | ")))
                .unwrap_or_else(|| panic!("docs/cost.md has no observability row for {label}"));
            let cells: Vec<&str> = row.trim_matches('|').split('|').map(str::trim).collect();
            let gb = format!("{:.2}", o.emf_gb);
            let gb = match gb.split_once('.') {
                // The table groups thousands, as its CCU column does.
                Some((whole, fraction)) if whole.len() > 3 => {
                    format!(
                        "{},{}.{fraction}",
                        &whole[..whole.len() - 3],
                        &whole[whole.len() - 3..]
                    )
                }
                _ => gb,
            };
            let all_features = priced[2].total();
            let expected = [
                label.clone(),
                format!("{gb} GB: {:.2}", o.emf_usd),
                format!("{:.0} %", share * 100.0),
                format!("{:.2}", o.custom_metrics_usd),
                format!("{:.2}", o.alarms_usd),
                format!("{:.2}", o.dashboards_usd),
                format!("**{:.2}**", o.total()),
                format!("{all_features:.2}"),
                format!("{:.1} %", o.total() / all_features * 100.0),
            ];
            assert_eq!(cells, expected, "docs/cost.md's row for {label} CCU");
        }
    }
}

#[test]
fn given_friends_then_each_presence_change_costs_the_measured_per_friend_share_and_a_delivery_each()
{
    // One player, no watchers; the fan-out to 200 friends measured at 201 read units
    // and 200 write units over the event alone (nothing).
    let scenario = Scenario {
        ccu: 1.0,
        messages_per_player_minute: 0.0,
        placements_per_player_hour: 0.0,
        subscriptions_per_player: 0.0,
        friends_per_player: 20.0,
        ..Scenario::default()
    };
    let with = |friends: bool| {
        counts(|ops| {
            if friends {
                let mut fan_out = op(1, 1.0);
                fan_out.read_units = 201.0;
                fan_out.write_units = 200.0;
                ops.insert("presence_event_200_friends".into(), fan_out);
            }
        })
    };
    let (counted, before) = (with(true), with(false));
    let bill = ours(&scenario, &Measured::new(&counted)).unwrap();
    let without = ours(&scenario, &Measured::new(&before)).unwrap();
    let changes = scenario.presence_changes();
    // Per friend: 201/200 read units and one write unit, for each change.
    assert_approx!(
        bill.quantity(Feature::Presence, Line::DynamoDbReads)
            - without.quantity(Feature::Presence, Line::DynamoDbReads),
        changes * 20.0 * 201.0 / 200.0
    );
    assert_approx!(
        bill.quantity(Feature::Presence, Line::DynamoDbWrites)
            - without.quantity(Feature::Presence, Line::DynamoDbWrites),
        changes * 20.0
    );
    // And one delivery (an on-message-inserted invocation) per friend and change.
    assert_approx!(
        bill.quantity(Feature::Presence, Line::LambdaRequests)
            - without.quantity(Feature::Presence, Line::LambdaRequests),
        changes * 20.0
    );
}
