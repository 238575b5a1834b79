//! The fields of a server frame the tool looks at, borrowed from the text.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

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
    #[serde(default, borrow)]
    pub message: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub code: Option<Cow<'a, str>>,
}

/// What a `message` frame's body carries when this tool sent it: the send time (ns on
/// the run's clock), the sender's sequence number and the sender's index.
#[derive(Deserialize)]
pub struct Probe {
    pub t: u64,
    pub seq: u64,
    pub from: u64,
}

impl Frame<'_> {
    /// The probe of a message this run sent; `None` for a body of any other shape (a
    /// message from outside the run). Read from the borrowed text: no `Value` per frame.
    pub fn probe(&self) -> Option<Probe> {
        serde_json::from_str(self.message?.get()).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(text: &str) -> Frame<'_> {
        serde_json::from_str(text).expect("a server frame")
    }

    #[test]
    fn given_a_message_this_run_sent_when_read_then_its_probe_is_there() {
        let text = r#"{"type":"message","message":{"seq":4,"t":17,"from":2,"pad":"x"},"seq":9}"#;

        let probe = frame(text).probe().expect("a probe");

        assert_eq!((probe.t, probe.seq, probe.from), (17, 4, 2));
    }

    #[test]
    fn given_a_message_of_another_shape_when_read_then_the_frame_parses_without_a_probe() {
        for body in [
            r#""hello""#,
            r#"{"t":"soon"}"#,
            r#"{"seq":1}"#,
            "[1,2]",
            "null",
        ] {
            let text = format!(r#"{{"type":"message","message":{body}}}"#);

            let parsed = frame(&text);

            assert_eq!(parsed.kind, "message");
            assert!(parsed.probe().is_none(), "{body}");
        }
    }
}
