//! The bodies of the matchmaking routes and their checks: each field is read on its own,
//! a refusal names the field at fault, and unknown fields are ignored (as every route
//! does).

use serde_json::{Map, Value};

use super::ticket::TicketId;
use crate::protocol::{ErrorCode, json_kind};
use crate::websocket::RouteError;

/// At most this many attributes per player.
pub const MAX_ATTRIBUTES: usize = 32;
/// The longest attribute name (FlexMatch's own limit is larger; rule sets use short ones).
pub const MAX_ATTRIBUTE_NAME_LEN: usize = 64;
/// The longest string value, and the longest string in a list or a map key.
pub const MAX_ATTRIBUTE_STRING_LEN: usize = 100;
/// At most this many strings in a list, or entries in a map.
pub const MAX_ATTRIBUTE_ITEMS: usize = 32;
pub use crate::latencies::{MAX_LATENCY_MS, MAX_LATENCY_REGIONS, MAX_REGION_LEN, latencies};

pub use gamelift_sockets_protocol::matchmaking::{AttributeValue, Attributes};

/// A validated `startMatchmaking` body.
#[derive(Clone, Debug, PartialEq)]
pub struct StartMatchmakingBody {
    /// One of the configured matchmaking configurations.
    pub configuration: String,
    pub attributes: Attributes,
    /// Region → milliseconds, rounded, in region order.
    pub latencies: Vec<(String, u32)>,
}

impl StartMatchmakingBody {
    /// Reads the body; `configurations` are the allowed ones, the first the default.
    pub fn parse(body: &Map<String, Value>, configurations: &[String]) -> Result<Self, RouteError> {
        Ok(Self {
            configuration: configuration(body.get("configuration"), configurations)?,
            attributes: attributes(body.get("attributes"))?,
            latencies: latencies(body.get("latencies"))?,
        })
    }
}

/// A validated `acceptMatch` body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AcceptMatchBody {
    pub ticket_id: TicketId,
    pub accept: bool,
}

impl AcceptMatchBody {
    pub fn parse(body: &Map<String, Value>) -> Result<Self, RouteError> {
        let ticket_id = ticket_id(body.get("ticketId"))?
            .ok_or_else(|| RouteError::bad_request("`ticketId` is required"))?;
        let accept = match body.get("accept") {
            Some(Value::Bool(accept)) => *accept,
            None | Some(Value::Null) => {
                return Err(RouteError::bad_request(
                    "`accept` is required: true to accept the match, false to reject it",
                ));
            }
            Some(other) => {
                return Err(RouteError::bad_request(format!(
                    "`accept` must be true or false, got {}",
                    json_kind(other)
                )));
            }
        };
        Ok(Self { ticket_id, accept })
    }
}

/// A validated `stopMatchmaking` body: the ticket, or (absent) the caller's live one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StopMatchmakingBody {
    pub ticket_id: Option<TicketId>,
}

impl StopMatchmakingBody {
    pub fn parse(body: &Map<String, Value>) -> Result<Self, RouteError> {
        Ok(Self {
            ticket_id: ticket_id(body.get("ticketId"))?,
        })
    }
}

fn ticket_id(value: Option<&Value>) -> Result<Option<TicketId>, RouteError> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(raw)) => TicketId::parse(raw.as_str())
            .map(Some)
            .map_err(|e| RouteError::bad_request(format!("`ticketId` is not a ticket id: {e}"))),
        Some(other) => Err(RouteError::bad_request(format!(
            "`ticketId` must be a string, got {}",
            json_kind(other)
        ))),
    }
}

fn configuration(value: Option<&Value>, configurations: &[String]) -> Result<String, RouteError> {
    let known = || configurations.join(", ");
    match value {
        None | Some(Value::Null) => configurations.first().cloned().ok_or_else(|| {
            RouteError::new(
                ErrorCode::Unavailable,
                "matchmaking is not set up here: no matchmaking configuration is configured",
            )
        }),
        Some(Value::String(name)) if configurations.contains(name) => Ok(name.clone()),
        Some(Value::String(name)) => Err(RouteError::bad_request(format!(
            "`configuration` {name:?} is not a known matchmaking configuration; use one of: {}",
            known()
        ))),
        Some(other) => Err(RouteError::bad_request(format!(
            "`configuration` must be a string, one of: {}; got {}",
            known(),
            json_kind(other)
        ))),
    }
}

/// `attributes`: name → number | string | [strings] | {string: number}.
pub fn attributes(value: Option<&Value>) -> Result<Attributes, RouteError> {
    let entries = match value {
        None | Some(Value::Null) => return Ok(Attributes::new()),
        Some(Value::Object(entries)) => entries,
        Some(other) => {
            return Err(RouteError::bad_request(format!(
                "`attributes` must be an object of attribute name → value, got {}",
                json_kind(other)
            )));
        }
    };
    if entries.len() > MAX_ATTRIBUTES {
        return Err(RouteError::bad_request(format!(
            "`attributes` names {} attributes; the maximum is {MAX_ATTRIBUTES}",
            entries.len()
        )));
    }
    entries
        .iter()
        .map(|(name, value)| {
            let valid_name = (1..=MAX_ATTRIBUTE_NAME_LEN).contains(&name.chars().count())
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
            if !valid_name {
                return Err(RouteError::bad_request(format!(
                    "`attributes` key {name:?} is not an attribute name (1–{MAX_ATTRIBUTE_NAME_LEN} of A-Z a-z 0-9 _ -)"
                )));
            }
            Ok((name.clone(), attribute(&format!("`attributes.{name}`"), value)?))
        })
        .collect()
}

fn attribute(field: &str, value: &Value) -> Result<AttributeValue, RouteError> {
    let kinds = "a number, a string, an array of strings or an object of string → number";
    let bad = |message: String| Err(RouteError::bad_request(message));
    match value {
        Value::Number(number) => Ok(AttributeValue::Number(finite(field, number.as_f64())?)),
        Value::String(text) => Ok(AttributeValue::String(short(field, text)?)),
        Value::Array(items) => {
            if items.len() > MAX_ATTRIBUTE_ITEMS {
                return bad(format!(
                    "{field} holds {} strings; the maximum is {MAX_ATTRIBUTE_ITEMS}",
                    items.len()
                ));
            }
            items
                .iter()
                .enumerate()
                .map(|(i, item)| match item {
                    Value::String(text) => short(&format!("{field}[{i}]"), text),
                    other => Err(RouteError::bad_request(format!(
                        "{field}[{i}] must be a string, got {}",
                        json_kind(other)
                    ))),
                })
                .collect::<Result<_, _>>()
                .map(AttributeValue::StringList)
        }
        Value::Object(entries) => {
            if entries.len() > MAX_ATTRIBUTE_ITEMS {
                return bad(format!(
                    "{field} holds {} entries; the maximum is {MAX_ATTRIBUTE_ITEMS}",
                    entries.len()
                ));
            }
            entries
                .iter()
                .map(|(key, item)| {
                    let key = short(&format!("{field} key"), key)?;
                    let entry = format!("{field}.{key}");
                    match item {
                        Value::Number(number) => Ok((key, finite(&entry, number.as_f64())?)),
                        other => Err(RouteError::bad_request(format!(
                            "{entry} must be a number, got {}",
                            json_kind(other)
                        ))),
                    }
                })
                .collect::<Result<_, _>>()
                .map(AttributeValue::StringNumberMap)
        }
        other => bad(format!("{field} must be {kinds}, got {}", json_kind(other))),
    }
}

fn finite(field: &str, number: Option<f64>) -> Result<f64, RouteError> {
    number
        .filter(|n| n.is_finite())
        .ok_or_else(|| RouteError::bad_request(format!("{field} must be a finite number")))
}

fn short(field: &str, text: &str) -> Result<String, RouteError> {
    let chars = text.chars().count();
    if chars > MAX_ATTRIBUTE_STRING_LEN {
        return Err(RouteError::bad_request(format!(
            "{field} is {chars} characters; the maximum is {MAX_ATTRIBUTE_STRING_LEN}"
        )));
    }
    Ok(text.to_owned())
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use serde_json::json;

    fn body(value: Value) -> Map<String, Value> {
        let Value::Object(map) = value else {
            unreachable!("a test body is an object")
        };
        map
    }

    fn configurations() -> Vec<String> {
        vec!["ranked".to_owned(), "casual".to_owned()]
    }

    fn start(value: Value) -> Result<StartMatchmakingBody, RouteError> {
        StartMatchmakingBody::parse(&body(value), &configurations())
    }

    #[test]
    fn given_an_empty_body_then_the_default_configuration_and_no_attributes_are_used() {
        let parsed = start(json!({})).unwrap();
        assert_eq!(parsed.configuration, "ranked");
        assert!(parsed.attributes.is_empty());
        assert!(parsed.latencies.is_empty());
    }

    #[test]
    fn given_every_attribute_kind_then_each_is_kept_as_flexmatch_types_it() {
        let parsed = start(json!({
            "configuration": "casual",
            "attributes": {"skill": 23.5, "mode": "duel", "maps": ["a", "b"],
                           "roles": {"tank": 1, "healer": 0.5}},
            "latencies": {"us-east-1": 40.4, "eu-west-1": 120}
        }))
        .unwrap();
        assert_eq!(parsed.configuration, "casual");
        assert_eq!(parsed.attributes["skill"], AttributeValue::Number(23.5));
        assert_eq!(
            parsed.attributes["mode"],
            AttributeValue::String("duel".into())
        );
        assert_eq!(
            parsed.attributes["maps"],
            AttributeValue::StringList(vec!["a".into(), "b".into()])
        );
        assert_eq!(
            parsed.attributes["roles"],
            AttributeValue::StringNumberMap(BTreeMap::from([
                ("healer".into(), 0.5),
                ("tank".into(), 1.0)
            ]))
        );
        assert_eq!(
            parsed.latencies,
            vec![("eu-west-1".into(), 120), ("us-east-1".into(), 40)]
        );
        // And back to the client's JSON unchanged.
        assert_eq!(
            serde_json::to_value(&parsed.attributes).unwrap(),
            json!({"maps": ["a", "b"], "mode": "duel", "roles": {"healer": 0.5, "tank": 1.0},
                   "skill": 23.5})
        );
    }

    #[test]
    fn given_each_bad_start_body_then_bad_request_names_the_field() {
        let long = "x".repeat(101);
        let many: Map<String, Value> = (0..33).map(|i| (format!("a{i}"), json!(1))).collect();
        for (value, says) in [
            (
                json!({"configuration": "nope"}),
                "not a known matchmaking configuration; use one of: ranked, casual",
            ),
            (
                json!({"configuration": 3}),
                "`configuration` must be a string",
            ),
            (json!({"attributes": [1]}), "`attributes` must be an object"),
            (
                json!({"attributes": {"skill": true}}),
                "`attributes.skill` must be a number, a string",
            ),
            (
                json!({"attributes": {"skill": null}}),
                "`attributes.skill` must be",
            ),
            (
                json!({"attributes": {"bad name": 1}}),
                "is not an attribute name",
            ),
            (
                json!({"attributes": {"maps": ["a", 2]}}),
                "`attributes.maps`[1] must be a string",
            ),
            (
                json!({"attributes": {"roles": {"tank": "x"}}}),
                "`attributes.roles`.tank must be a number",
            ),
            (json!({"attributes": {"mode": long}}), "the maximum is 100"),
            (
                json!({"attributes": Value::Object(many)}),
                "the maximum is 32",
            ),
            (
                json!({"latencies": {"us-east-1": -1}}),
                "must be from 0 to 10000",
            ),
            (json!({"latencies": {"US": 10}}), "is not a region name"),
            (
                json!({"latencies": {"us-east-1": "fast"}}),
                "must be a number of milliseconds",
            ),
            (json!({"latencies": [10]}), "`latencies` must be an object"),
        ] {
            let error = start(value.clone()).expect_err("refused");
            assert_eq!(error.code, ErrorCode::BadRequest, "{value}");
            assert!(error.message.contains(says), "{value}: {}", error.message);
        }
    }

    #[test]
    fn given_no_configuration_set_up_then_start_is_unavailable() {
        let error = StartMatchmakingBody::parse(&body(json!({})), &[]).unwrap_err();
        assert_eq!(error.code, ErrorCode::Unavailable);
        assert!(error.message.contains("not set up"), "{}", error.message);
    }

    #[test]
    fn given_accept_bodies_then_ticket_and_answer_are_required() {
        let ok =
            AcceptMatchBody::parse(&body(json!({"ticketId": "mm-1", "accept": false}))).unwrap();
        assert_eq!(ok.ticket_id.as_str(), "mm-1");
        assert!(!ok.accept);
        for (value, says) in [
            (json!({"accept": true}), "`ticketId` is required"),
            (json!({"ticketId": "mm-1"}), "`accept` is required"),
            (
                json!({"ticketId": "mm-1", "accept": "yes"}),
                "must be true or false",
            ),
            (
                json!({"ticketId": "a b", "accept": true}),
                "not a ticket id",
            ),
            (
                json!({"ticketId": 7, "accept": true}),
                "`ticketId` must be a string",
            ),
        ] {
            let error = AcceptMatchBody::parse(&body(value.clone())).unwrap_err();
            assert!(error.message.contains(says), "{value}: {}", error.message);
        }
    }

    #[test]
    fn given_stop_bodies_then_the_ticket_is_optional() {
        assert_eq!(
            StopMatchmakingBody::parse(&body(json!({})))
                .unwrap()
                .ticket_id,
            None
        );
        assert_eq!(
            StopMatchmakingBody::parse(&body(json!({"ticketId": "mm-2"})))
                .unwrap()
                .ticket_id
                .map(|t| t.to_string()),
            Some("mm-2".into())
        );
        assert!(StopMatchmakingBody::parse(&body(json!({"ticketId": []}))).is_err());
    }
}
