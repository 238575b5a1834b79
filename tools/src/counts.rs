//! What one operation costs in calls, as measured by `round_trips` against DynamoDB
//! Local and written to `tools/data/operation-counts.json`; what `cost` reads.
//!
//! Every figure is a count the benchmark observed while running the real handlers: no
//! figure here is typed in by hand. Regenerate the file with the command in
//! [`REGENERATE`] (BENCHMARKS.md, "DynamoDB round trips per operation").

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The command that rewrites `tools/data/operation-counts.json`.
pub const REGENERATE: &str = "scripts/dynamodb-local.sh 8000 & \
     cargo run --release -p tools --bin round_trips -- http://127.0.0.1:8000 \
     --write tools/data/operation-counts.json";

/// The file `round_trips --write` produces.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct OperationCounts {
    /// How the file was made.
    pub measured: Measured,
    /// Operation id → what it cost. Ids are stable: `cost` refers to them.
    pub operations: BTreeMap<String, Operation>,
}

/// Provenance of a measurement.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    /// The command that produced the file.
    pub command: String,
    /// UTC date of the run (YYYY-MM-DD).
    pub date: String,
    /// `git describe --always --dirty` of the tree that ran.
    pub tree: String,
    /// The DynamoDB endpoint's kind (DynamoDB Local, as `scripts/dynamodb-local.sh` runs it).
    pub dynamodb: String,
    /// The log filter the handlers ran under (the deployed default: `info`).
    pub log_level: String,
    /// The functions' X-Ray tracing as template.yaml deploys it by default (`Active` or
    /// `PassThrough`).
    pub lambda_tracing: String,
    /// Whether the stage writes access logs as template.yaml deploys it by default
    /// (`Enabled` or `Disabled`; files from before the setting existed had them on).
    #[serde(default = "access_logs_enabled")]
    pub access_logs: String,
    /// What the counts mean, for a reader of the file.
    pub notes: Vec<String>,
}

/// One operation: everything it did, from the client's frame (or the event) to the end
/// of the last invocation it caused that the benchmark ran.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Operation {
    /// What the row is, as BENCHMARKS.md's table names it.
    pub label: String,
    /// Lambda invocations (handlers run).
    pub lambda_invocations: u32,
    /// Wall time of those invocations here, against DynamoDB Local (ms, summed).
    pub lambda_ms: f64,
    /// DynamoDB calls per API operation (HTTP attempts, retries included).
    pub dynamodb_calls: BTreeMap<String, u64>,
    /// Read request units DynamoDB reported (ReturnConsumedCapacity).
    pub read_units: f64,
    /// Write request units on tables DynamoDB reported.
    pub write_units: f64,
    /// Write request units on global secondary indexes DynamoDB reported.
    pub index_write_units: f64,
    /// Writes refused by their condition (billed as writes; DynamoDB reports no units).
    pub failed_conditions: u64,
    /// `@connections` calls (PostToConnection, DeleteConnection, GetConnection).
    pub management_calls: BTreeMap<String, u64>,
    /// GameLift calls.
    pub gamelift_calls: BTreeMap<String, u64>,
    /// Presence events handed to the bus (EventBridge entries).
    pub events_published: u64,
    /// Frames sent back to the caller as the route's reply (the two-way route's response).
    pub replies: u64,
    /// Bytes the handlers logged at the default level, as Lambda writes them (JSON lines).
    pub log_bytes: u64,
    /// Lines (log events) in those bytes.
    pub log_lines: u64,
}

impl Operation {
    /// All `@connections` posts (each is an outbound message).
    pub fn posts(&self) -> u64 {
        self.management_calls
            .get("PostToConnection")
            .copied()
            .unwrap_or_default()
    }

    /// Every DynamoDB call.
    pub fn dynamodb_total(&self) -> u64 {
        self.dynamodb_calls.values().sum()
    }
}

fn access_logs_enabled() -> String {
    "Enabled".to_owned()
}
