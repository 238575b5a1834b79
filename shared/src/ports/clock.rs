//! Time as a port, so lifecycles (grace periods, heartbeat timeouts, TTLs) are tested
//! with a clock the test controls.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::domain::EpochMillis;

pub trait Clock: Send + Sync {
    fn now_millis(&self) -> EpochMillis;
}

#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_millis(&self) -> EpochMillis {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as EpochMillis)
    }
}

/// A clock that moves only when told to.
#[derive(Clone, Debug, Default)]
pub struct ManualClock(Arc<AtomicI64>);

impl ManualClock {
    pub fn at(millis: EpochMillis) -> Self {
        Self(Arc::new(AtomicI64::new(millis)))
    }

    pub fn set(&self, millis: EpochMillis) {
        self.0.store(millis, Ordering::SeqCst);
    }

    pub fn advance(&self, millis: EpochMillis) {
        self.0.fetch_add(millis, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now_millis(&self) -> EpochMillis {
        self.0.load(Ordering::SeqCst)
    }
}
