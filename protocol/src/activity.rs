//! A player's activity (rich presence): what they are doing, in the game's words, and
//! a small JSON object for the game's own use. One model: `setActivity`'s body and ack,
//! the activity `presence` frames carry, the presence bus's detail and the backend
//! API's player reads are all [`Activity`]. Friends and presence subscribers see it;
//! it is cleared when the player goes offline.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

pub use crate::requests::{ActivityText, MAX_ACTIVITY_CHARS};

/// The most `details` may take, serialized. A size JSON Schema cannot state: over it,
/// `setActivity` is `payload_too_large` (as an oversized `sendMessage` is), not
/// malformed.
pub const MAX_ACTIVITY_DETAILS_BYTES: usize = 512;

/// What a player is doing (`setActivity`'s body, and its ack: what was stored).
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Activity {
    /// At most 64 characters (`"in lobby"`, `"ranked, map Dust, 3–1"`); `""` with no
    /// `details` clears the activity.
    pub activity: ActivityText,
    /// A JSON object for the game's own use (a map, a score), at most 512 bytes
    /// serialized.
    pub details: Option<Map<String, Value>>,
}

impl Activity {
    /// True for the empty activity, which clears the player's.
    pub fn is_clear(&self) -> bool {
        self.activity.as_str().is_empty() && self.details.is_none()
    }

    /// How many bytes `details` takes serialized, when that is over
    /// [`MAX_ACTIVITY_DETAILS_BYTES`].
    pub fn oversized_details(&self) -> Option<usize> {
        let bytes = self.details.as_ref().map(details_bytes)?;
        (bytes > MAX_ACTIVITY_DETAILS_BYTES).then_some(bytes)
    }

    /// `details` as JSON text (what the Players item stores).
    pub fn details_json(&self) -> Option<String> {
        self.details
            .as_ref()
            .map(|d| Value::Object(d.clone()).to_string())
    }
}

fn details_bytes(details: &Map<String, Value>) -> usize {
    Value::Object(details.clone()).to_string().len()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::requests::body::read_body;

    fn read(body: Value) -> Result<Activity, String> {
        let Value::Object(body) = body else {
            unreachable!("a test body is an object")
        };
        read_body(body)
    }

    #[test]
    fn given_an_activity_with_details_then_it_reads_and_writes_back_the_same() {
        let body = json!({"activity": "ranked, map Dust, 3–1", "details": {"map": "dust", "score": [3, 1]}});
        let activity = read(body.clone()).unwrap();
        assert_eq!(serde_json::to_value(&activity).unwrap(), body);
        assert!(!activity.is_clear());
        assert_eq!(activity.oversized_details(), None);
    }

    #[test]
    fn given_an_empty_activity_without_details_then_it_clears() {
        assert!(read(json!({"activity": ""})).unwrap().is_clear());
        assert!(
            read(json!({"activity": "", "details": null}))
                .unwrap()
                .is_clear()
        );
        assert!(
            !read(json!({"activity": "", "details": {}}))
                .unwrap()
                .is_clear()
        );
    }

    #[test]
    fn given_a_bad_activity_then_the_refusal_names_the_field() {
        for (body, says) in [
            (json!({}), "`activity` is required"),
            (
                json!({"activity": "x".repeat(MAX_ACTIVITY_CHARS + 1)}),
                "`activity` is 65 characters; the maximum is 64",
            ),
            (
                json!({"activity": 7}),
                "`activity` must be a string, got a number",
            ),
            (
                json!({"activity": "a", "details": "map"}),
                "`details` must be an object, got a string",
            ),
        ] {
            assert_eq!(read(body.clone()).unwrap_err(), says, "{body}");
        }
    }

    #[test]
    fn given_details_over_512_bytes_serialized_then_their_size_is_told() {
        // {"k":"…"} is 8 bytes around the string.
        let fits = read(json!({"activity": "a", "details": {"k": "x".repeat(504)}})).unwrap();
        assert_eq!(fits.oversized_details(), None);
        let over = read(json!({"activity": "a", "details": {"k": "x".repeat(505)}})).unwrap();
        assert_eq!(over.oversized_details(), Some(513));
    }
}
