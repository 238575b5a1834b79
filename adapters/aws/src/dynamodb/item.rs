//! What the derived items share. Each table's item is one `#[derive(Serialize,
//! Deserialize)]` struct next to its adapter, so that an attribute's name and DynamoDB
//! type are written once, on a field: serde_dynamo writes it, and reads it back into
//! the struct. Where the struct holds the domain type whole (serde's remote derive, the
//! ids validating themselves as they deserialize) there is nothing more to convert;
//! otherwise a `TryFrom` parses the struct into the domain type. A stored item that does
//! not read is [`StoreError::Corrupt`], naming the table, the key and the attribute.

use std::collections::HashMap;
use std::convert::Infallible;
use std::fmt::Display;

use aws_sdk_dynamodb::types::AttributeValue;
use serde::Serialize;
use serde::de::DeserializeOwned;

use shared::ports::StoreError;

/// An item as the SDK reads and writes it.
pub(crate) type Item = HashMap<String, AttributeValue>;

/// A table's item struct: what an error about one of its items names.
pub(crate) trait Stored: Serialize + DeserializeOwned {
    const TABLE: &'static str;
    /// The key attributes, partition key first.
    const KEY: &'static [&'static str];
}

/// An attribute that does not read as what the domain needs.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{attribute}: {reason}")]
pub struct Malformed {
    /// The attribute's path (`members.bob.presence`); empty for a missing attribute,
    /// which the reason names.
    pub attribute: String,
    pub reason: String,
}

/// An item struct that holds its domain type whole converts without failing.
impl From<Infallible> for Malformed {
    fn from(never: Infallible) -> Self {
        match never {}
    }
}

impl Malformed {
    pub(crate) fn new(attribute: impl Into<String>, reason: impl Display) -> Self {
        Self {
            attribute: attribute.into(),
            reason: reason.to_string(),
        }
    }
}

/// Parses one attribute's raw value into a domain type.
pub(crate) fn parse<T, E: Display>(attribute: &str, parsed: Result<T, E>) -> Result<T, Malformed> {
    parsed.map_err(|e| Malformed::new(attribute, e))
}

/// The item a struct writes.
pub(crate) fn to_item<T: Serialize>(value: &T) -> Result<Item, StoreError> {
    serde_dynamo::to_item(value).map_err(|e| StoreError::Other(Box::new(e)))
}

/// One attribute's value (a map inside an item, an update's `:value`).
pub(crate) fn to_value<T: Serialize>(value: &T) -> Result<AttributeValue, StoreError> {
    serde_dynamo::to_attribute_value(value).map_err(|e| StoreError::Other(Box::new(e)))
}

/// A Query's `Limit` for a page of `limit` items (at least 1; DynamoDB takes an i32).
pub(crate) fn query_limit(limit: u32) -> i32 {
    i32::try_from(limit.max(1)).unwrap_or(i32::MAX)
}

/// A string value of an update or a condition.
pub(crate) fn s(value: impl Into<String>) -> AttributeValue {
    AttributeValue::S(value.into())
}

/// A number value of an update or a condition.
pub(crate) fn n(value: impl ToString) -> AttributeValue {
    AttributeValue::N(value.to_string())
}

/// Reads attributes (an SDK item, or a stream image) into `T`, naming the attribute
/// that does not read.
pub(crate) fn decode<T: DeserializeOwned>(
    item: impl Into<serde_dynamo::Item>,
) -> Result<T, Malformed> {
    let item: serde_dynamo::Item = item.into();
    let input = serde_dynamo::AttributeValue::M(item.into());
    serde_path_to_error::deserialize(serde_dynamo::Deserializer::from_attribute_value(input))
        .map_err(|e| {
            let path = e.path().to_string();
            let attribute = if path == "." { String::new() } else { path };
            Malformed::new(attribute, e.into_inner())
        })
}

/// Reads a stored item into the domain type its struct converts to.
pub(crate) fn read<S: Stored, D>(item: Item) -> Result<D, StoreError>
where
    D: TryFrom<S>,
    Malformed: From<D::Error>,
{
    let key = key_text::<S>(&item);
    decode::<S>(item)
        .and_then(|stored| Ok(D::try_from(stored)?))
        .map_err(|e| corrupt::<S>(key, &e))
}

/// `e`, found in the item at `key` (see [`key_text`]), as the store reports it.
pub(crate) fn corrupt<S: Stored>(key: String, e: &Malformed) -> StoreError {
    let reason = match e.attribute.as_str() {
        "" => format!("{} item: {}", S::TABLE, e.reason),
        _ => format!("{} item: {e}", S::TABLE),
    };
    StoreError::Corrupt { key, reason }
}

/// The key of an item as errors quote it: `recipientId=bob seq=5`.
pub(crate) fn key_text<S: Stored>(item: &Item) -> String {
    let part = |name: &&str| match item.get(*name) {
        Some(AttributeValue::S(value) | AttributeValue::N(value)) => format!("{name}={value}"),
        _ => format!("{name}=<missing>"),
    };
    S::KEY.iter().map(part).collect::<Vec<_>>().join(" ")
}

/// Old items, as deployed tables hold them, in DynamoDB JSON: the tests that hold each
/// struct to the attributes the hand-written mapping wrote before it.
#[cfg(test)]
pub(crate) mod wire {
    use super::Item;

    pub(crate) fn to_json(item: &Item) -> serde_json::Value {
        serde_json::to_value(serde_dynamo::Item::from(item.clone())).unwrap()
    }

    pub(crate) fn from_json(value: serde_json::Value) -> Item {
        serde_json::from_value::<serde_dynamo::Item>(value)
            .unwrap()
            .into()
    }
}
