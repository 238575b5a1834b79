//! The fields of a server frame the tool looks at, borrowed from the text.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize)]
pub struct Frame<'a> {
    #[serde(rename = "type", borrow)]
    pub kind: Cow<'a, str>,
    #[serde(default, borrow)]
    pub route: Option<Cow<'a, str>>,
    #[serde(default, rename = "requestId", borrow)]
    pub request_id: Option<Cow<'a, str>>,
    #[serde(default)]
    pub queued: Option<u64>,
    #[serde(default)]
    pub message: Option<Value>,
    #[serde(default, borrow)]
    pub code: Option<Cow<'a, str>>,
}
