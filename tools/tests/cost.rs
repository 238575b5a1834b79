//! The cost command as docs/cost.md runs it: at 1,000 players, observability (the
//! default metrics, alarms and dashboard) is at most a tenth of the bill, and the
//! DetailedMetrics shape is priced beside it.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Test support: a panic is the test failing, with its message.

use std::process::Command;

/// The number before ` %` on the line that starts with `prefix`.
fn share(output: &str, prefix: &str) -> f64 {
    let line = output
        .lines()
        .find(|line| line.starts_with(prefix))
        .unwrap_or_else(|| panic!("no line {prefix:?} in:\n{output}"));
    let before = line.rsplit_once(" %").unwrap().0;
    before.rsplit_once(' ').unwrap().1.parse().unwrap()
}

#[test]
fn given_1000_players_when_the_cost_command_runs_then_observability_is_at_most_a_tenth_by_default()
{
    let out = Command::new(env!("CARGO_BIN_EXE_cost"))
        .args([
            "--ccu",
            "1000",
            "--heartbeat-timeout-seconds",
            "90",
            "--messages-per-player-minute",
            "0.2",
            "--placements-per-player-hour",
            "1",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let output = String::from_utf8(out.stdout).unwrap();
    let default = share(&output, "observability over all features of (c):");
    assert!(default <= 10.0, "{default} %:\n{output}");
    let detailed = share(&output, "with DetailedMetrics=true:");
    assert!(detailed > default, "{detailed} % against {default} %");
}
