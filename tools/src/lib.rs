//! The tools' shared code: the operation counts `round_trips` measures and writes, the
//! cost model `cost` prices them with (docs/cost.md), the Lambda Runtime API
//! `coldstart` (and the `sam local invoke` test) runs function binaries under, the
//! `wss://` connector of `loadgen` and `smoke`, and the client frames they and
//! `round_trips` write by hand (`frames`).

pub mod cost;
pub mod counts;
pub mod frames;
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
