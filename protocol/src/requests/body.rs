//! How the server reads a request: [`ClientRequest::from_frame`] deserializes the frame's
//! body into its route's type (the same types that generate `$defs.ClientFrame`), and a
//! body that does not fit is refused with a message naming the field by its path
//! (`latencies.us-east-1`) and saying what it must be.

use std::borrow::Cow;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::{ClientRequest, Route};
use crate::frames::{
    ErrorCode, FrameRejection, MAX_REQUEST_ID_LEN, MAX_WEBSOCKET_MESSAGE_BYTES, UntypedRequest,
};

/// A route's body read into its type `B`, or what is wrong with it, naming the field.
pub fn read_body<B: DeserializeOwned>(body: Map<String, Value>) -> Result<B, String> {
    serde_path_to_error::deserialize(Value::Object(body)).map_err(|error| {
        let path = error.path().to_string();
        let path = if path == "." { String::new() } else { path };
        describe(&path, &error.into_inner().to_string())
    })
}

/// `Option<T>`, absent or null, read as `T::default()`: a body the server reads as `{}`
/// when a frame has none or `null`.
pub fn or_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Option::<T>::deserialize(deserializer).map(Option::unwrap_or_default)
}

impl ClientRequest {
    /// The typed request of a frame [`UntypedRequest::parse`] read: its body deserialized
    /// into its route's type (unknown fields ignored, a missing or `null` body read as
    /// `{}`). A body that does not fit is a `bad_request` naming the field; a route with
    /// no request type, `unknown_route`. Either carries the frame's `route` and
    /// `requestId` for the error reply.
    pub fn from_frame(frame: UntypedRequest) -> Result<Self, FrameRejection> {
        let UntypedRequest {
            route,
            request_id,
            body,
        } = frame;
        let refuse = |code, message| FrameRejection {
            route: Some(route.clone()),
            request_id: request_id.clone(),
            code,
            message,
        };
        let Some(typed) = Route::parse(&route) else {
            let message = format!("unknown route {route:?}");
            return Err(refuse(ErrorCode::UnknownRoute, message));
        };
        Self::read(typed, request_id.clone(), body)
            .map_err(|message| refuse(ErrorCode::BadRequest, message))
    }

    /// A frame's text read as a typed request: what [`UntypedRequest::parse`] then
    /// [`Self::from_frame`] read, and their refusal where they refuse.
    pub fn parse(text: &str) -> Result<Self, FrameRejection> {
        match Self::read_well_formed(text) {
            Some(request) => Ok(request),
            None => UntypedRequest::parse(text).and_then(Self::from_frame),
        }
    }

    /// A well-formed frame read straight into its route's type, without first building a
    /// `serde_json::Value` of it (most of a frame's reading under load); `None` for any
    /// frame it does not take, which [`Self::parse`] then reads the slow way, saying what
    /// is wrong. It takes no frame the slow way refuses, and reads each as it does (a test
    /// holds the two equal).
    fn read_well_formed(text: &str) -> Option<Self> {
        if text.len() > MAX_WEBSOCKET_MESSAGE_BYTES {
            return None;
        }
        let envelope: Envelope<'_> = serde_json::from_str(text).ok()?;
        let route = Route::parse(&envelope.route)?;
        let request_id = match envelope.request_id {
            Some(id) if id.chars().count() > MAX_REQUEST_ID_LEN => return None,
            id => id.map(Cow::into_owned),
        };
        let body = envelope.body.map_or("{}", RawValue::get);
        if !body.starts_with('{') {
            return None;
        }
        Self::read_text(route, request_id, body)
    }
}

/// A frame's members as [`UntypedRequest::parse`] reads them, borrowed from its text, the
/// body left unread (absent or `null`: none).
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow)]
    route: Cow<'a, str>,
    #[serde(default, borrow, rename = "requestId")]
    request_id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    body: Option<&'a RawValue>,
}

/// serde's message about the field at `path` (empty: the body itself) as a client reads
/// it: "`path` must be …, got …", "`path` is required", or "`path` " and the domain
/// type's own words ("is -5; it must be from 0 to 10000 milliseconds"). At the body
/// itself a type's words are whole sentences naming their fields already.
pub fn describe(path: &str, message: &str) -> String {
    let field = |name: &str| {
        if path.is_empty() {
            name.to_owned()
        } else {
            format!("{path}.{name}")
        }
    };
    if let Some(name) = message
        .strip_prefix("missing field `")
        .and_then(|rest| rest.strip_suffix('`'))
    {
        return format!("`{}` is required", field(name));
    }
    let mismatch = message
        .strip_prefix("invalid type: ")
        .or_else(|| message.strip_prefix("invalid value: "));
    if let Some((got, expected)) = mismatch.and_then(|rest| rest.rsplit_once(", expected ")) {
        return format!(
            "`{path}` must be {}, got {}",
            expected_kind(expected),
            json_kind_of(got)
        );
    }
    if path.is_empty() {
        message.to_owned()
    } else {
        format!("`{path}` {message}")
    }
}

/// serde's name of what a type expects, in the protocol's words.
fn expected_kind(expected: &str) -> &str {
    match expected {
        "a sequence" => "an array",
        "a map" | "a JSON object" => "an object",
        "a boolean" => "true or false",
        "u8" | "u16" | "u32" | "u64" | "usize" | "i8" | "i16" | "i32" | "i64" | "isize" => {
            "a whole number"
        }
        "f32" | "f64" => "a number",
        other if other.starts_with("struct ") => "an object",
        other => other,
    }
}

/// serde's `Unexpected` as the JSON kind a client sent.
fn json_kind_of(got: &str) -> &str {
    match got {
        "unit value" => "null",
        "sequence" => "an array",
        "map" => "an object",
        other if other.starts_with("integer ") || other.starts_with("floating point ") => {
            "a number"
        }
        other if other.starts_with("string ") => "a string",
        other if other.starts_with("boolean ") => "a boolean",
        other => other,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use serde_json::json;

    use super::*;

    /// The smallest body `route` accepts (so a test can build every variant).
    pub(crate) fn smallest_body(route: &str) -> Value {
        match route {
            "sendMessage" => json!({"playerIds": ["bob"], "message": 1}),
            "subscribePresence" | "unsubscribePresence" => json!({"playerIds": ["bob"]}),
            "setPlacementLatencies" => json!({"latencies": {}}),
            "inviteToParty" | "kickFromParty" | "promotePartyLeader" | "addFriend"
            | "removeFriend" | "blockPlayer" | "unblockPlayer" | "joinFriendGame" => {
                json!({"playerId": "bob"})
            }
            "joinParty" | "declinePartyInvite" => json!({"partyId": "p1"}),
            "acceptMatch" => json!({"ticketId": "t1", "accept": true}),
            "setMatchmakingAttributes" => json!({"attributes": {}}),
            "setActivity" => json!({"activity": ""}),
            _ => json!({}),
        }
    }

    fn frame(route: &str, body: Value) -> UntypedRequest {
        let Value::Object(body) = body else {
            unreachable!("a test body is an object")
        };
        UntypedRequest {
            route: route.to_owned(),
            request_id: Some("r1".to_owned()),
            body,
        }
    }

    fn refusal(route: &str, body: Value) -> FrameRejection {
        ClientRequest::from_frame(frame(route, body)).expect_err("refused")
    }

    #[test]
    fn given_a_bad_field_deep_in_a_body_then_the_refusal_names_its_path_and_keeps_the_frame() {
        let refused = refusal(
            "sessionPlacementRequest",
            json!({"latencies": {"us-east-1": -5}}),
        );
        assert_eq!(refused.code, ErrorCode::BadRequest);
        assert_eq!(refused.route.as_deref(), Some("sessionPlacementRequest"));
        assert_eq!(refused.request_id.as_deref(), Some("r1"));
        assert_eq!(
            refused.message,
            "`latencies.us-east-1` is -5; it must be from 0 to 10000 milliseconds"
        );
    }

    #[test]
    fn given_serdes_own_errors_then_they_read_as_the_field_must_be_or_is_required() {
        for (route, body, says) in [
            ("joinParty", json!({}), "`partyId` is required"),
            (
                "joinParty",
                json!({"partyId": 7}),
                "`partyId` must be a string, got a number",
            ),
            (
                "acceptMatch",
                json!({"ticketId": "t-1", "accept": "yes"}),
                "`accept` must be true or false, got a string",
            ),
            (
                "acceptMatch",
                json!({"ticketId": "t-1", "accept": null}),
                "`accept` must be true or false, got null",
            ),
            (
                "subscribePresence",
                json!({"playerIds": ["bob", 7]}),
                "`playerIds[1]` must be a string, got a number",
            ),
        ] {
            assert_eq!(refusal(route, body).message, says);
        }
    }

    #[test]
    fn given_every_route_with_its_smallest_body_then_it_reads_as_that_route() {
        for route in Route::ALL.iter().map(|route| route.as_str()) {
            let body = smallest_body(route);
            let request = ClientRequest::from_frame(frame(route, body.clone()))
                .unwrap_or_else(|e| panic!("{route}: {}", e.message));
            assert_eq!(request.route().as_str(), route);
            // The same frame read by the derived Deserialize is the same request.
            let derived: ClientRequest =
                serde_json::from_value(json!({"route": route, "requestId": "r1", "body": body}))
                    .unwrap();
            assert_eq!(derived, request, "{route}");
        }
    }

    /// What the slow way (the frame read as a `Value`, then typed) reads.
    fn read_slowly(text: &str) -> Result<ClientRequest, FrameRejection> {
        UntypedRequest::parse(text).and_then(ClientRequest::from_frame)
    }

    #[test]
    fn given_well_formed_frames_of_every_route_when_read_then_the_fast_way_takes_them_as_the_slow_way_does()
     {
        for route in Route::ALL.iter().map(|route| route.as_str()) {
            let body = smallest_body(route);
            for frame in [
                json!({"route": route, "requestId": "r1", "body": body}),
                json!({"body": body, "route": route, "extra": [1, {"a": null}]}),
                json!({"route": route, "requestId": null, "body": body}),
                json!({"route": route, "requestId": "é".repeat(MAX_REQUEST_ID_LEN), "body": body}),
            ] {
                let text = frame.to_string();
                let fast = ClientRequest::read_well_formed(&text);
                assert_eq!(fast.as_ref(), Some(&read_slowly(&text).unwrap()), "{text}");
            }
        }
        // A body a route can go without, absent or null, as the slow way reads it.
        for text in [
            r#"{"route":"resume","requestId":"r1"}"#,
            r#"{"route":"resume","body":null}"#,
            r#"{"route":"ping","requestId":"r1","body":{"a":1}}"#,
        ] {
            let fast = ClientRequest::read_well_formed(text);
            assert_eq!(fast.as_ref(), Some(&read_slowly(text).unwrap()), "{text}");
        }
    }

    #[test]
    fn given_bad_frames_when_read_then_the_fast_way_leaves_them_to_the_slow_way_and_its_reason() {
        let long_id = "r".repeat(MAX_REQUEST_ID_LEN + 1);
        for text in [
            "not json".to_owned(),
            "[1]".to_owned(),
            r#"{"route":"","body":{}}"#.to_owned(),
            r#"{"route":7}"#.to_owned(),
            r#"{"route":"dance"}"#.to_owned(),
            r#"{"route":"heartbeat","requestId":7}"#.to_owned(),
            format!(r#"{{"route":"heartbeat","requestId":"{long_id}"}}"#),
            r#"{"route":"heartbeat","body":[1]}"#.to_owned(),
            r#"{"route":"ping","body":"x"}"#.to_owned(),
            r#"{"route":"joinParty","body":{"partyId":7}}"#.to_owned(),
            r#"{"route":"joinParty","body":{}}"#.to_owned(),
            r#"{"route":"resume","route":"resume"}"#.to_owned(),
            format!(
                r#"{{"route":"resume","body":{{"pad":"{}"}}}}"#,
                "x".repeat(MAX_WEBSOCKET_MESSAGE_BYTES)
            ),
        ] {
            assert_eq!(ClientRequest::read_well_formed(&text), None, "{text}");
            assert_eq!(ClientRequest::parse(&text), read_slowly(&text), "{text}");
        }
    }

    #[test]
    fn given_a_route_with_no_request_type_then_unknown_route() {
        let refused = refusal("dance", json!({}));
        assert_eq!(refused.code, ErrorCode::UnknownRoute);
        assert_eq!(refused.route.as_deref(), Some("dance"));
    }

    #[test]
    fn given_a_body_level_sentence_then_it_is_kept_whole() {
        assert_eq!(
            describe("", "give `playerIds` or `partyId`, not both"),
            "give `playerIds` or `partyId`, not both"
        );
        assert_eq!(
            describe("latencies", "names 21 regions; the maximum is 20"),
            "`latencies` names 21 regions; the maximum is 20"
        );
        assert_eq!(
            describe("latencies", "missing field `x`"),
            "`latencies.x` is required"
        );
    }
}
