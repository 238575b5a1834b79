//! A player's matchmaking attributes, as clients send them (`startMatchmaking`,
//! `setMatchmakingAttributes`) and FlexMatch reads them: at most 32, each named by 1–64
//! of `A-Z a-z 0-9 _ -`, each a number, a string, a list of strings or a map of string →
//! number (strings of at most 100 characters, at most 32 items). Parsed once, here; the
//! schema says the same (`PlayerAttributes`, `AttributeValue`).

use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;

use schemars::json_schema;
use serde::de::{Error as _, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};

use crate::bounded::{Bound, BoundedMap, BoundedSeq, CheckedNumber};

/// At most this many attributes per player.
pub const MAX_ATTRIBUTES: usize = 32;
/// The longest attribute name (FlexMatch's own limit is larger; rule sets use short ones).
pub const MAX_ATTRIBUTE_NAME_LEN: usize = 64;
/// The longest string value, and the longest string in a list or a map key.
pub const MAX_ATTRIBUTE_STRING_LEN: usize = 100;
/// At most this many strings in a list, or entries in a map.
pub const MAX_ATTRIBUTE_ITEMS: usize = 32;

/// One player attribute, in the four kinds FlexMatch knows (its `AttributeValue`: `N`,
/// `S`, `SL`, `SDM`). On the wire, plain JSON: a number, a string, an array of strings or
/// an object of string → number.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum AttributeValue {
    Number(f64),
    String(String),
    StringList(Vec<String>),
    StringNumberMap(BTreeMap<String, f64>),
}

// Numbers here are finite (JSON has no NaN or infinity), so equality is reflexive:
// records holding attributes can be `Eq`.
impl Eq for AttributeValue {}

/// A player's attributes by name, in name order.
pub type Attributes = BTreeMap<String, AttributeValue>;

/// A player's attributes as a request gives them: at most [`MAX_ATTRIBUTES`], each named
/// by 1–64 of `A-Z a-z 0-9 _ -`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct PlayerAttributes(Attributes);

impl PlayerAttributes {
    /// `attributes` checked as the server checks them, the error naming the one at fault.
    pub fn new(attributes: Attributes) -> Result<Self, String> {
        let value = serde_json::to_value(&attributes).map_err(|e| e.to_string())?;
        let body = serde_json::Map::from_iter([("attributes".to_owned(), value)]);
        crate::requests::body::read_body::<crate::requests::AttributesBody>(body)
            .map(|body| body.attributes)
    }

    pub fn as_map(&self) -> &Attributes {
        &self.0
    }

    pub fn into_inner(self) -> Attributes {
        self.0
    }
}

fn is_attribute_name(name: &str) -> bool {
    (1..=MAX_ATTRIBUTE_NAME_LEN).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// A string of at most [`MAX_ATTRIBUTE_STRING_LEN`] characters, or why it is refused.
fn short(text: String) -> Result<String, String> {
    let chars = text.chars().count();
    if chars > MAX_ATTRIBUTE_STRING_LEN {
        return Err(format!(
            "is {chars} characters; the maximum is {MAX_ATTRIBUTE_STRING_LEN}"
        ));
    }
    Ok(text)
}

/// A list value's strings: at most [`MAX_ATTRIBUTE_ITEMS`].
const LIST: Bound = Bound {
    expecting: "an array of strings",
    max: MAX_ATTRIBUTE_ITEMS,
    too_many: |count| format!("holds {count} strings; the maximum is {MAX_ATTRIBUTE_ITEMS}"),
};

/// A string in a list.
struct ShortString(String);

impl<'de> Deserialize<'de> for ShortString {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        short(String::deserialize(deserializer)?)
            .map(Self)
            .map_err(D::Error::custom)
    }
}

/// A map value's entries: at most [`MAX_ATTRIBUTE_ITEMS`].
const MAP: Bound = Bound {
    expecting: "an object of string → number",
    max: MAX_ATTRIBUTE_ITEMS,
    too_many: |count| format!("holds {count} entries; the maximum is {MAX_ATTRIBUTE_ITEMS}"),
};

/// A number in a map.
struct Number(f64);

impl<'de> Deserialize<'de> for Number {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_f64(CheckedNumber {
            expecting: "a number",
            check: |n| Ok(Number(n)),
        })
    }
}

impl<'de> Deserialize<'de> for AttributeValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ValueVisitor;

        impl<'de> Visitor<'de> for ValueVisitor {
            type Value = AttributeValue;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(
                    "a number, a string, an array of strings or an object of string → number",
                )
            }

            fn visit_f64<E: serde::de::Error>(self, n: f64) -> Result<AttributeValue, E> {
                Ok(AttributeValue::Number(n))
            }

            fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<AttributeValue, E> {
                Ok(AttributeValue::Number(n as f64))
            }

            fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<AttributeValue, E> {
                Ok(AttributeValue::Number(n as f64))
            }

            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<AttributeValue, E> {
                short(text.to_owned())
                    .map(AttributeValue::String)
                    .map_err(E::custom)
            }

            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<AttributeValue, A::Error> {
                let strings = BoundedSeq {
                    bound: LIST,
                    item: PhantomData::<ShortString>,
                };
                let items = strings.visit_seq(seq)?;
                Ok(AttributeValue::StringList(
                    items.into_iter().map(|ShortString(item)| item).collect(),
                ))
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<AttributeValue, A::Error> {
                let numbers = BoundedMap {
                    bound: MAP,
                    key: |key| short(key).map_err(|e| format!("key {e}")),
                    value: PhantomData::<Number>,
                };
                let entries = numbers.visit_map(map)?;
                Ok(AttributeValue::StringNumberMap(
                    entries
                        .into_iter()
                        .map(|(key, Number(n))| (key, n))
                        .collect(),
                ))
            }
        }

        deserializer.deserialize_any(ValueVisitor)
    }
}

impl<'de> Deserialize<'de> for PlayerAttributes {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer
            .deserialize_map(BoundedMap {
                bound: Bound {
                    expecting: "an object of attribute name → value",
                    max: MAX_ATTRIBUTES,
                    too_many: |count| format!("names {count} attributes; the maximum is {MAX_ATTRIBUTES}"),
                },
                key: |name| {
                    if is_attribute_name(&name) {
                        Ok(name)
                    } else {
                        Err(format!(
                            "key {name:?} is not an attribute name (1–{MAX_ATTRIBUTE_NAME_LEN} of A-Z a-z 0-9 _ -)"
                        ))
                    }
                },
                value: PhantomData::<AttributeValue>,
            })
            .map(PlayerAttributes)
    }
}

hand_schema!(AttributeValue, |_| {
    let string = json_schema!({"type": "string", "maxLength": MAX_ATTRIBUTE_STRING_LEN});
    json_schema!({
        "description": "One player attribute, in the four kinds FlexMatch knows (its `AttributeValue`: `N`,\n`S`, `SL`, `SDM`). On the wire, plain JSON: a number, a string, an array of strings or\nan object of string → number; strings (and map keys) of at most 100 characters, at most\n32 strings or entries.",
        "anyOf": [
            {"type": "number"},
            string,
            {"type": "array", "items": string, "maxItems": MAX_ATTRIBUTE_ITEMS},
            {
                "type": "object",
                "maxProperties": MAX_ATTRIBUTE_ITEMS,
                "propertyNames": {"maxLength": MAX_ATTRIBUTE_STRING_LEN},
                "additionalProperties": {"type": "number"}
            }
        ]
    })
});

hand_schema!(PlayerAttributes, |generator| json_schema!({
    "description": "A player's attributes by name: at most 32, each named by 1–64 of `A-Z a-z 0-9 _ -`.",
    "type": "object",
    "maxProperties": MAX_ATTRIBUTES,
    "propertyNames": {
        "type": "string",
        "minLength": 1,
        "maxLength": MAX_ATTRIBUTE_NAME_LEN,
        "pattern": "^[A-Za-z0-9_-]+$"
    },
    "additionalProperties": generator.subschema_for::<AttributeValue>()
}));

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    fn read(value: Value) -> Result<PlayerAttributes, String> {
        let body = serde_json::Map::from_iter([("attributes".to_owned(), value)]);
        crate::requests::body::read_body::<crate::requests::AttributesBody>(body)
            .map(|body| body.attributes)
    }

    #[test]
    fn given_every_attribute_kind_then_each_is_kept_as_flexmatch_types_it_and_written_back_unchanged()
     {
        let given = json!({"skill": 23.5, "mode": "duel", "maps": ["a", "b"],
                           "roles": {"tank": 1.0, "healer": 0.5}});
        let attributes = read(given.clone()).unwrap();
        let map = attributes.as_map();
        assert_eq!(map["skill"], AttributeValue::Number(23.5));
        assert_eq!(map["mode"], AttributeValue::String("duel".into()));
        assert_eq!(
            map["maps"],
            AttributeValue::StringList(vec!["a".into(), "b".into()])
        );
        assert_eq!(
            map["roles"],
            AttributeValue::StringNumberMap(BTreeMap::from([
                ("healer".into(), 0.5),
                ("tank".into(), 1.0)
            ]))
        );
        assert_eq!(serde_json::to_value(&attributes).unwrap(), given);
    }

    #[test]
    fn given_each_bad_attribute_then_the_refusal_names_it_by_its_path() {
        let long = "x".repeat(101);
        let many: serde_json::Map<String, Value> =
            (0..33).map(|i| (format!("a{i}"), json!(1))).collect();
        let items: Vec<String> = (0..33).map(|i| format!("m{i}")).collect();
        for (value, says) in [
            (
                json!([1]),
                "`attributes` must be an object of attribute name → value, got an array",
            ),
            (
                json!({"skill": true}),
                "`attributes.skill` must be a number, a string, an array of strings or an object of string → number, got a boolean",
            ),
            (
                json!({"skill": null}),
                "`attributes.skill` must be a number, a string",
            ),
            (
                json!({"bad name": 1}),
                "`attributes` key \"bad name\" is not an attribute name (1–64 of A-Z a-z 0-9 _ -)",
            ),
            (
                json!({"maps": ["a", 2]}),
                "`attributes.maps[1]` must be a string, got a number",
            ),
            (
                json!({"roles": {"tank": "x"}}),
                "`attributes.roles.tank` must be a number, got a string",
            ),
            (
                json!({"mode": long}),
                "`attributes.mode` is 101 characters; the maximum is 100",
            ),
            (
                json!({"maps": [long]}),
                "`attributes.maps[0]` is 101 characters",
            ),
            (
                json!({"roles": {long.clone(): 1}}),
                "`attributes.roles` key is 101 characters",
            ),
            (
                json!({"maps": items}),
                "`attributes.maps` holds 33 strings; the maximum is 32",
            ),
            (
                Value::Object(many),
                "`attributes` names 33 attributes; the maximum is 32",
            ),
        ] {
            let error = read(value.clone()).unwrap_err();
            assert!(error.starts_with(says), "{value}: {error}");
        }
    }

    #[test]
    fn given_attributes_built_in_rust_then_new_checks_them_as_the_server_does() {
        let ok = Attributes::from([("skill".to_owned(), AttributeValue::Number(1.0))]);
        assert_eq!(PlayerAttributes::new(ok.clone()).unwrap().into_inner(), ok);
        let bad = Attributes::from([("a b".to_owned(), AttributeValue::Number(1.0))]);
        assert!(
            PlayerAttributes::new(bad)
                .unwrap_err()
                .contains("is not an attribute name")
        );
    }
}
