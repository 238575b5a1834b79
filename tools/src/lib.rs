//! The tools' shared code: the operation counts `round_trips` measures and writes, and
//! the cost model `cost` prices them with (docs/cost.md).

pub mod cost;
pub mod counts;
