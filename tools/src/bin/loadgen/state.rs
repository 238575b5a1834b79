//! What every client shares: the run's settings, counters, the send gates, and the
//! phase the run is in.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize};
use std::time::Instant;

use tokio::sync::Semaphore;
use tokio_tungstenite::Connector;

use crate::args::Args;

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Phase {
    Connect,
    Send,
    Stop,
}

/// Counters every client updates.
#[derive(Default)]
pub struct Counters {
    pub connected: AtomicUsize,
    pub failed: AtomicUsize,
    /// Connections closed by the server or by an error after they were established.
    pub dropped: AtomicUsize,
    pub sent: AtomicU64,
    pub acked: AtomicU64,
    /// Sum of `queued` over the sendMessage acks: the deliveries expected.
    pub expected: AtomicU64,
    pub send_errors: AtomicU64,
    pub received: AtomicU64,
    pub duplicates: AtomicU64,
    pub foreign: AtomicU64,
    pub other_frames: AtomicU64,
    pub writers_done: AtomicUsize,
    /// Nanoseconds since `epoch`.
    pub first_send: AtomicU64,
    pub last_send: AtomicU64,
    pub last_ack: AtomicU64,
    pub last_receive: AtomicU64,
}

pub struct Shared {
    pub args: Args,
    pub prefix: String,
    pub epoch: Instant,
    pub counters: Counters,
    /// The connected clients (their indices), fixed when the send phase starts.
    pub connected: OnceLock<Vec<u32>>,
    pub in_flight: Semaphore,
    /// The next send slot (for --rate pacing).
    pub next_slot: AtomicU64,
    pub next_connect_slot: AtomicU64,
    pub connect_gate: Semaphore,
    pub tls: Option<Connector>,
    pub first_error: std::sync::Mutex<Option<String>>,
    /// Which clients are connected, resumed and still open, by index.
    pub ready: Vec<AtomicBool>,
    /// When the send phase started: --rate slots count from here.
    pub send_epoch: OnceLock<Instant>,
}

impl Shared {
    pub fn now_nanos(&self) -> u64 {
        self.epoch.elapsed().as_nanos() as u64
    }

    pub fn player(&self, i: usize) -> String {
        format!("{}{i}", self.prefix)
    }

    pub fn note_error(&self, error: String) {
        if let Ok(mut first) = self.first_error.lock()
            && first.is_none()
        {
            *first = Some(error);
        }
    }
}

/// What each client hands back at the end.
#[derive(Default)]
pub struct ClientResult {
    pub latencies_ns: Vec<u64>,
    pub ack_latencies_ns: Vec<u64>,
}
