//! At-least-once pushes handed on once, and the reconnect backoff.

use std::collections::{HashSet, VecDeque};
use std::time::Duration;

/// The last `capacity` keys seen.
pub(crate) struct RecentKeys {
    keys: HashSet<String>,
    order: VecDeque<String>,
    capacity: usize,
}

impl RecentKeys {
    pub(crate) fn new(capacity: usize) -> Self {
        Self {
            keys: HashSet::new(),
            order: VecDeque::new(),
            capacity: capacity.max(1),
        }
    }

    /// Records `key`; false if it was already among the recent ones.
    pub(crate) fn add(&mut self, key: String) -> bool {
        if self.keys.contains(&key) {
            return false;
        }
        self.keys.insert(key.clone());
        self.order.push_back(key);
        while self.order.len() > self.capacity {
            if let Some(oldest) = self.order.pop_front() {
                self.keys.remove(&oldest);
            }
        }
        true
    }
}

/// "Full jitter": a random delay from zero to `min(max, initial × 2^attempt)`.
pub(crate) fn backoff(initial: Duration, max: Duration, attempt: u32) -> Duration {
    let ceiling = initial
        .checked_mul(2u32.saturating_pow(attempt.min(30)))
        .unwrap_or(max)
        .min(max);
    let millis = u64::try_from(ceiling.as_millis()).unwrap_or(u64::MAX);
    Duration::from_millis(fastrand::u64(0..=millis))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn given_a_key_seen_within_the_window_then_it_is_refused_and_forgotten_after() {
        let mut keys = RecentKeys::new(2);
        assert!(keys.add("a".into()));
        assert!(!keys.add("a".into()));
        assert!(keys.add("b".into()));
        assert!(keys.add("c".into()));
        assert!(keys.add("a".into()), "a fell out of the window");
    }

    #[test]
    fn given_any_attempt_then_the_delay_is_within_the_capped_ceiling() {
        let (initial, max) = (Duration::from_millis(100), Duration::from_secs(2));
        for attempt in 0..40 {
            let ceiling = (initial * 2u32.saturating_pow(attempt.min(30))).min(max);
            for _ in 0..20 {
                assert!(
                    backoff(initial, max, attempt) <= ceiling,
                    "attempt {attempt}"
                );
            }
        }
    }
}
