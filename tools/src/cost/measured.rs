//! One tree's measured operations (`tools::counts`), looked up by id, and the figures
//! the bills derive from them (per recipient, per watcher, ...).

use super::usage::Work;
use crate::counts::{Operation, OperationCounts};

/// The `round_trips` row of a presence event told to [`FRIENDS_IN_FAN_OUT`] online
/// friends (nobody subscribed).
pub const FRIENDS_FAN_OUT: &str = "presence_event_200_friends";
/// How many friends that row's player has, all online.
pub const FRIENDS_IN_FAN_OUT: f64 = 200.0;

/// The measured operations of one tree, looked up by id.
pub struct Measured<'a> {
    counts: &'a OperationCounts,
}

impl<'a> Measured<'a> {
    pub fn new(counts: &'a OperationCounts) -> Self {
        Self { counts }
    }

    /// The operation `id`; an error names the file's missing row.
    pub fn op(&self, id: &str) -> Result<&'a Operation, String> {
        self.counts.operations.get(id).ok_or_else(|| {
            format!(
                "the operation counts have no row {id:?} (regenerate them: {})",
                crate::counts::REGENERATE
            )
        })
    }

    /// Whether the tree has the `ping` route (a measured `ping` row): its clients send
    /// a heartbeat only with a newer cursor, and ping otherwise.
    pub fn pings(&self) -> bool {
        self.counts.operations.contains_key("ping")
    }

    /// Whether the tree has friends (a measured presence fan-out to friends): a tree
    /// before them tells nobody but watchers.
    pub fn has_friends(&self) -> bool {
        self.counts.operations.contains_key(FRIENDS_FAN_OUT)
    }

    /// What telling one more online friend of a presence change adds, from the measured
    /// fan-out to [`FRIENDS_IN_FAN_OUT`] friends.
    pub fn per_friend(&self) -> Result<Work, String> {
        self.per_each(
            FRIENDS_FAN_OUT,
            "presence_event_no_watchers",
            FRIENDS_IN_FAN_OUT,
        )
    }

    pub fn work(&self, id: &str) -> Result<Work, String> {
        self.op(id).map(Work::of)
    }

    /// What `id_many` (`n` of something) does beyond `id_base`, per one of them.
    pub fn per_each(&self, id_many: &str, id_base: &str, n: f64) -> Result<Work, String> {
        Ok(self
            .work(id_many)?
            .minus(&self.work(id_base)?)
            .times(1.0 / n))
    }

    /// `sendMessage` to `recipients`, between the measured 1, 25 and 100 (later messages):
    /// one invocation, and the rest growing linearly with the recipients.
    pub fn send_message(&self, recipients: f64) -> Result<Work, String> {
        let one = self.work("send_message_1")?;
        let (base, from, slope) = if recipients <= 25.0 {
            (
                one.clone(),
                1.0,
                self.per_each("send_message_25", "send_message_1", 24.0)?,
            )
        } else {
            (
                self.work("send_message_25")?,
                25.0,
                self.per_each("send_message_100", "send_message_25", 75.0)?,
            )
        };
        let mut work = base.plus(&slope.times(recipients - from));
        work.lambda_invocations = one.lambda_invocations;
        Ok(work)
    }

    /// One line of the stage's access log, or nothing when the tree's stage writes none
    /// by default (`AccessLogs`).
    pub fn access_log_line(&self) -> Result<Work, String> {
        let line = self.work("access_log_line")?;
        Ok(if self.counts.measured.access_logs == "Disabled" {
            Work::default()
        } else {
            line
        })
    }

    /// Whether the tree's functions trace with X-Ray (`Tracing: Active`).
    pub fn traced(&self) -> bool {
        self.counts.measured.lambda_tracing == "Active"
    }
}
