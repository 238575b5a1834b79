//! The tools' shared code: the operation counts `round_trips` measures and writes, the
//! cost model `cost` prices them with (docs/cost.md), and the Lambda Runtime API
//! `coldstart` (and the `sam local invoke` test) runs function binaries under.

pub mod cost;
pub mod counts;
pub mod runtime_api;
