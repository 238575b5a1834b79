//! The heartbeat timer (Go `server/server_state.go` `startHealthCheck`,
//! `heartbeatServerProcess`, `getNextHealthCheckIntervalSeconds`): a
//! HeartbeatServerProcess right after ProcessReady, then one every interval shortened
//! or lengthened by a random jitter; each asks `on_health_check`, which has the health
//! check timeout to answer before the beat says unhealthy. Each beat runs in its own
//! task so a slow health check does not stretch the cadence.

use std::time::Duration;

use tokio::task::{JoinHandle, JoinSet};

use crate::config::Timing;
use crate::process::{BoxFuture, Callback};

/// Sends one heartbeat with the health status.
pub(crate) type Send = std::sync::Arc<dyn Fn(bool) -> BoxFuture<()> + std::marker::Send + Sync>;

/// Starts the timer; abort the handle to stop it (and any beat in flight).
pub(crate) fn spawn(
    timing: Timing,
    health: Option<Callback<(), bool>>,
    send: Send,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut beats = JoinSet::new();
        loop {
            let health = health.clone();
            let send = send.clone();
            let timeout = timing.health_check_timeout;
            beats.spawn(async move { send(health_status(health, timeout).await).await });
            while beats.try_join_next().is_some() {}
            tokio::time::sleep(next_interval(&timing)).await;
        }
    })
}

/// The callback's answer, false if it takes longer than `timeout`; healthy without one.
async fn health_status(health: Option<Callback<(), bool>>, timeout: Duration) -> bool {
    match health {
        Some(health) => tokio::time::timeout(timeout, health(()))
            .await
            .unwrap_or_else(|_| {
                tracing::warn!(
                    ?timeout,
                    "on_health_check did not answer in time: reporting unhealthy"
                );
                false
            }),
        None => true,
    }
}

/// `interval − jitter`, jitter uniform in `[−max_jitter, max_jitter)` (Go's formula), at
/// least a millisecond.
pub(crate) fn next_interval(timing: &Timing) -> Duration {
    let interval = i128::try_from(timing.heartbeat_interval.as_millis()).unwrap_or(i128::MAX);
    let max_jitter = i64::try_from(timing.heartbeat_max_jitter.as_millis()).unwrap_or(i64::MAX);
    let jitter = if max_jitter > 0 {
        i128::from(fastrand::i64(-max_jitter..max_jitter))
    } else {
        0
    };
    let millis = u64::try_from((interval - jitter).max(1)).unwrap_or(u64::MAX);
    Duration::from_millis(millis)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use tokio::sync::mpsc;
    use tokio::time::Instant;

    use super::*;

    fn timing(interval: u64, jitter: u64, health_timeout: u64) -> Timing {
        Timing {
            heartbeat_interval: Duration::from_secs(interval),
            heartbeat_max_jitter: Duration::from_secs(jitter),
            health_check_timeout: Duration::from_secs(health_timeout),
            ..Timing::default()
        }
    }

    fn recorder() -> (Send, mpsc::UnboundedReceiver<(Instant, bool)>) {
        let (tx, rx) = mpsc::unbounded_channel();
        let send: Send = Arc::new(move |healthy| {
            let _ = tx.send((Instant::now(), healthy));
            Box::pin(async {})
        });
        (send, rx)
    }

    #[test]
    fn given_the_default_timing_when_intervals_are_drawn_then_each_is_60s_give_or_take_10s() {
        let timing = Timing::default();
        for _ in 0..1000 {
            let interval = next_interval(&timing);
            assert!(
                interval > Duration::from_secs(50) && interval <= Duration::from_secs(70),
                "{interval:?}"
            );
        }
    }

    #[tokio::test(start_paused = true)]
    async fn given_process_ready_when_the_timer_runs_then_a_beat_goes_at_once_and_then_every_interval()
     {
        let (send, mut beats) = recorder();
        let start = Instant::now();
        let timer = spawn(timing(60, 10, 50), None, send);
        let mut previous = None;
        for n in 0..5 {
            let (at, healthy) = beats.recv().await.unwrap();
            assert!(healthy);
            match previous {
                None => assert_eq!(at, start, "the first beat is immediate"),
                Some(previous) => {
                    let gap = at - previous;
                    assert!(
                        gap > Duration::from_secs(50) && gap <= Duration::from_secs(70),
                        "beat {n}: {gap:?}"
                    );
                }
            }
            previous = Some(at);
        }
        timer.abort();
    }

    #[tokio::test(start_paused = true)]
    async fn given_a_health_check_slower_than_its_timeout_when_a_beat_goes_then_it_says_unhealthy()
    {
        let (send, mut beats) = recorder();
        let slow: Callback<(), bool> = Arc::new(|()| {
            Box::pin(async {
                tokio::time::sleep(Duration::from_secs(120)).await;
                true
            })
        });
        let start = Instant::now();
        let timer = spawn(timing(60, 0, 50), Some(slow), send);
        let (at, healthy) = beats.recv().await.unwrap();
        assert!(!healthy);
        assert_eq!(at - start, Duration::from_secs(50));
        timer.abort();
    }

    #[tokio::test(start_paused = true)]
    async fn given_a_health_check_saying_unhealthy_when_a_beat_goes_then_it_carries_false() {
        let (send, mut beats) = recorder();
        let sick: Callback<(), bool> = Arc::new(|()| Box::pin(async { false }));
        let timer = spawn(timing(60, 0, 50), Some(sick), send);
        assert!(!beats.recv().await.unwrap().1);
        timer.abort();
    }
}
