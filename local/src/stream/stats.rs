//! The event source mapping's counters: what the start-up summary, the tests and the
//! load runs read to know where the stream stands.

use std::sync::atomic::{AtomicU64, Ordering};

/// Counters of the mapping, for the start-up summary, tests and load runs.
#[derive(Debug, Default)]
pub struct StreamStats {
    pub(super) received: AtomicU64,
    pub(super) completed: AtomicU64,
    pub(super) invocations: AtomicU64,
    pub(super) failed_invocations: AtomicU64,
    pub(super) dropped: AtomicU64,
}

/// A reading of [`StreamStats`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StreamStatsSnapshot {
    /// Records handed to the mapping.
    pub received: u64,
    /// Records done with: processed (delivered, or kept for replay) or skipped after
    /// the last retry.
    pub completed: u64,
    /// Handler invocations.
    pub invocations: u64,
    /// Invocations that failed in whole or in part (each one leads to a retry or a skip).
    pub failed_invocations: u64,
    /// Records skipped after the last retry.
    pub dropped: u64,
}

impl StreamStatsSnapshot {
    /// Nothing received is still waiting or in flight.
    pub fn is_idle(&self) -> bool {
        self.received == self.completed
    }
}

impl StreamStats {
    pub fn snapshot(&self) -> StreamStatsSnapshot {
        // `completed` first: a concurrent record then shows as not idle, never the reverse.
        let completed = self.completed.load(Ordering::Acquire);
        StreamStatsSnapshot {
            received: self.received.load(Ordering::Acquire),
            completed,
            invocations: self.invocations.load(Ordering::Relaxed),
            failed_invocations: self.failed_invocations.load(Ordering::Relaxed),
            dropped: self.dropped.load(Ordering::Relaxed),
        }
    }

    pub(super) fn add(counter: &AtomicU64, n: usize) {
        counter.fetch_add(n as u64, Ordering::AcqRel);
    }
}
