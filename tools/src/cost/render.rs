//! The monthly cost table `cost` prints: one row per feature and billed line, the three
//! designs side by side; its last line is the presence ratio.

use std::fmt::Write;

use super::designs::{Priced, floor_per_delivery, presence_ratio};
use super::{Feature, Line, PresenceLiveness, Prices, Scenario};

fn money(usd: f64) -> String {
    if usd == 0.0 {
        "-".to_owned()
    } else if usd < 0.01 {
        "<0.01".to_owned()
    } else {
        format!("{usd:.2}")
    }
}

/// The whole table, then the presence ratio in each `PRESENCE_LIVENESS` mode (`ratios`),
/// ending with `presence ratio to seed: R` for the table's mode.
pub fn table(
    scenario: &Scenario,
    prices: &Prices,
    priced: &[Priced; 3],
    ratios: &[(PresenceLiveness, f64)],
) -> Result<String, String> {
    let s = scenario;
    let mut out = String::new();
    let w = &mut out;
    let _ = writeln!(
        w,
        "Monthly cost, {} {}, {} (USD; month = 730 h)",
        prices.region, prices.terms, prices.taken
    );
    let _ = writeln!(
        w,
        "Scenario: {} concurrent players; a player silent for {} s goes offline (+ a sweep a minute); (a) and (b) heartbeat every {} s, (c) sends resume's keepAlive every {} s (PRESENCE_LIVENESS={}); {} of heartbeats with a requestId; {} messages per player-minute to {} recipient(s); {} placements per player-hour; {} presence subscriptions per player; {}-minute sessions; Lambda {} MB arm64",
        s.ccu,
        s.heartbeat_timeout_seconds,
        s.heartbeat_seconds,
        s.keep_alive_seconds(),
        s.liveness,
        format_share(s.acked_heartbeats),
        s.messages_per_player_minute,
        s.recipients_per_message,
        s.placements_per_player_hour,
        s.subscriptions_per_player,
        s.session_minutes,
        s.lambda_memory_mb
    );
    let _ = writeln!(
        w,
        "Per month: {:.0} heartbeats in (a) and (b), {:.0} timer frames in (c), {:.0} messages ({:.0} deliveries), {:.0} placements, {:.0} sessions, {:.0} presence frames",
        s.heartbeats(),
        s.timer_frames(),
        s.messages(),
        s.deliveries(),
        s.placements(),
        s.sessions(),
        s.presence_frames()
    );
    if priced[2].bill.pings > 0.0 {
        // (c)'s timer frames split between cursor heartbeats and pings.
        let _ = writeln!(
            w,
            "Timer frames in (c): a heartbeat with its cursor when a pushed frame came since the last tick ({:.1} %: 1 - exp(-{:.5} pushed frames per player-second x {} s)), else a ping: {:.0} cursor heartbeats, {:.0} pings",
            s.cursor_heartbeat_share() * 100.0,
            s.pushed_frames_per_player_second(),
            s.keep_alive_seconds(),
            s.cursor_heartbeats(),
            s.pings()
        );
    }
    let _ = writeln!(w);
    let header = format!(
        "{:<12} {:<40} {:>12} {:>12} {:>12}",
        "feature",
        "line",
        priced[0].design.label(),
        priced[1].design.label(),
        priced[2].design.label()
    );
    let _ = writeln!(w, "{header}");
    let _ = writeln!(w, "{}", "-".repeat(header.len()));
    for feature in Feature::ALL {
        for line in Line::ALL {
            // A line billed at 0 (GetConnection) still shows where it is done: "0.00".
            let cells: Vec<String> = priced
                .iter()
                .map(
                    |p| match (p.bill.quantity(feature, line), p.cost(feature, line)) {
                        (q, c) if q > 0.0 && c == 0.0 => "0.00".to_owned(),
                        (_, c) => money(c),
                    },
                )
                .collect();
            if cells.iter().all(|c| c == "-") {
                continue;
            }
            let _ = writeln!(
                w,
                "{:<12} {:<40} {:>12} {:>12} {:>12}",
                feature.to_string(),
                line.name(),
                cells[0],
                cells[1],
                cells[2]
            );
        }
        let _ = writeln!(
            w,
            "{:<12} {:<40} {:>12} {:>12} {:>12}",
            feature.to_string(),
            "total",
            money(priced[0].feature_total(feature)),
            money(priced[1].feature_total(feature)),
            money(priced[2].feature_total(feature))
        );
        let _ = writeln!(w);
    }
    let _ = writeln!(
        w,
        "{:<53} {:>12} {:>12} {:>12}",
        "all features",
        money(priced[0].total()),
        money(priced[1].total()),
        money(priced[2].total())
    );
    let deliveries = s.deliveries();
    if deliveries > 0.0 {
        let floor = floor_per_delivery(s, prices)?;
        let per: Vec<f64> = priced
            .iter()
            .map(|p| p.feature_total(Feature::Messaging) / deliveries)
            .collect();
        let _ = writeln!(
            w,
            "{:<53} {:>12} {:>12} {:>12}",
            "messaging per delivered message (USD per million)",
            format!("{:.2}", per[0] * 1e6),
            format!("{:.2}", per[1] * 1e6),
            format!("{:.2}", per[2] * 1e6)
        );
        let _ = writeln!(
            w,
            "{:<53} {:>12} {:>12} {:>12}",
            format!(
                "  times the floor ({:.2} per million: API Gateway in + out)",
                floor * 1e6
            ),
            format!("{:.2}x", per[0] / floor),
            format!("{:.2}x", per[1] / floor),
            format!("{:.2}x", per[2] / floor)
        );
    }
    let _ = writeln!(w);
    let modes: Vec<String> = ratios
        .iter()
        .map(|(liveness, ratio)| {
            let default = if *liveness == shared::config::DEFAULT_PRESENCE_LIVENESS {
                " (the default)"
            } else {
                ""
            };
            format!("{liveness}{default} {ratio:.2}")
        })
        .collect();
    let _ = writeln!(
        w,
        "presence ratio to seed by PRESENCE_LIVENESS: {}",
        modes.join(", ")
    );
    let _ = write!(w, "presence ratio to seed: {:.2}", presence_ratio(priced));
    Ok(out)
}

fn format_share(share: f64) -> String {
    format!("{:.0} %", share * 100.0)
}

/// `table` with (c)'s observability (its metrics, alarms and dashboard, priced by
/// [`super::observability`]) before the presence ratio lines, which stay last.
pub fn with_observability(
    table: &str,
    all_features: f64,
    observability: &super::observability::Observability,
    detailed: Option<&super::observability::Observability>,
) -> String {
    let o = observability;
    let mut block = String::new();
    let w = &mut block;
    let _ = writeln!(
        w,
        "observability of (c): {:.2} GB of EMF lines, {} custom metrics, {} alarms reading {} metrics, {} dashboard(s)",
        o.emf_gb,
        o.custom_metrics,
        o.deployed.alarms,
        o.deployed.alarm_metrics,
        o.deployed.dashboards
    );
    if let Some((function, share)) = o.largest_writer() {
        let _ = writeln!(
            w,
            "EMF lines written most by {function}: {} of the bytes",
            format_share(share)
        );
    }
    let rows = [
        ("CloudWatch Logs ingestion (EMF lines)", o.emf_usd),
        ("CloudWatch custom metrics", o.custom_metrics_usd),
        ("CloudWatch alarm metrics", o.alarms_usd),
        ("CloudWatch dashboards", o.dashboards_usd),
        ("total", o.total()),
    ];
    for (line, usd) in rows {
        // Under (c)'s column: the seed and (b) had no metrics to price.
        let _ = writeln!(w, "{:<12} {:<40} {:>38}", "metrics", line, money(usd));
    }
    let _ = writeln!(
        w,
        "{:<53} {:>38}",
        "all features and observability, (c)",
        money(all_features + o.total())
    );
    if all_features > 0.0 {
        let _ = writeln!(
            w,
            "observability over all features of (c): {:.1} %",
            o.total() / all_features * 100.0
        );
    }
    if let Some(d) = detailed.filter(|_| all_features > 0.0) {
        let _ = writeln!(
            w,
            "with DetailedMetrics=true: {:.2} GB of EMF lines ({}), {} custom metrics ({}), observability {}: {:.1} % of all features of (c)",
            d.emf_gb,
            money(d.emf_usd),
            d.custom_metrics,
            money(d.custom_metrics_usd),
            money(d.total()),
            d.total() / all_features * 100.0
        );
    }
    let _ = writeln!(w);
    match table.find("presence ratio to seed by") {
        Some(at) => format!("{}{block}{}", &table[..at], &table[at..]),
        None => format!("{table}\n{block}"),
    }
}
