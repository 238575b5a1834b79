//! The tools' shared code: the operation counts `round_trips` measures and writes, the
//! cost model `cost` prices them with (docs/cost.md), and the Lambda Runtime API
//! `coldstart` (and the `sam local invoke` test) runs function binaries under, and the
//! `wss://` connector of `loadgen` and `smoke`.

pub mod cost;
pub mod counts;
pub mod runtime_api;
pub mod wss;

/// The checks of the smoke tool (`smoke`), in the order it runs them and its table lists
/// them.
pub const SMOKE_CHECKS: [&str; 8] = [
    "connect and resume",
    "heartbeat",
    "presence",
    "message online",
    "message offline",
    "placement",
    "takeover",
    "bad frames",
];
