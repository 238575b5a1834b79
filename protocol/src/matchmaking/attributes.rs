//! A player's matchmaking attributes, as clients send them (`startMatchmaking`,
//! `setMatchmakingAttributes`) and FlexMatch reads them.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One player attribute, in the four kinds FlexMatch knows (its `AttributeValue`: `N`,
/// `S`, `SL`, `SDM`). On the wire, plain JSON: a number, a string, an array of strings or
/// an object of string → number.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum AttributeValue {
    Number(f64),
    String(String),
    StringList(Vec<String>),
    StringNumberMap(BTreeMap<String, f64>),
}

// Numbers here are finite (the parser refuses others, and JSON has no NaN), so equality
// is reflexive: records holding attributes can be `Eq`.
impl Eq for AttributeValue {}

/// A player's attributes by name, in name order.
pub type Attributes = BTreeMap<String, AttributeValue>;
