//! The PresenceSubscriptions item (docs/architecture.md#presencesubscriptions): PK
//! `targetId`, SK `watcherId`, `expireAt` (TTL, epoch seconds).

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;

use shared::domain::PlayerId;
use shared::ports::StoreError;

pub(crate) type Item = HashMap<String, AttributeValue>;

/// Attribute names of the PresenceSubscriptions table.
pub(crate) mod attr {
    pub const TARGET_ID: &str = "targetId";
    pub const WATCHER_ID: &str = "watcherId";
    pub const EXPIRE_AT: &str = "expireAt";
}

/// The table key of `watcher` watching `target`.
pub(crate) fn key(target: &PlayerId, watcher: &PlayerId) -> Item {
    HashMap::from([
        (attr::TARGET_ID.to_owned(), s(target.as_str())),
        (attr::WATCHER_ID.to_owned(), s(watcher.as_str())),
    ])
}

/// The whole item.
pub(crate) fn item(target: &PlayerId, watcher: &PlayerId, expire_at_secs: i64) -> Item {
    let mut item = key(target, watcher);
    item.insert(
        attr::EXPIRE_AT.to_owned(),
        AttributeValue::N(expire_at_secs.to_string()),
    );
    item
}

/// The watcher of an item a Query on `target` returned.
pub(crate) fn watcher_from_item(target: &PlayerId, item: &Item) -> Result<PlayerId, StoreError> {
    let corrupt = |reason: String| StoreError::Corrupt {
        key: format!("{}={target}", attr::TARGET_ID),
        reason,
    };
    match item.get(attr::WATCHER_ID) {
        Some(AttributeValue::S(raw)) => PlayerId::parse(raw.as_str())
            .map_err(|e| corrupt(format!("{} {raw:?}: {e}", attr::WATCHER_ID))),
        Some(other) => Err(corrupt(format!(
            "{} is {other:?}, not a string",
            attr::WATCHER_ID
        ))),
        None => Err(corrupt(format!("{} is missing", attr::WATCHER_ID))),
    }
}

fn s(value: &str) -> AttributeValue {
    AttributeValue::S(value.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(name: &str) -> PlayerId {
        PlayerId::parse(name).unwrap()
    }

    #[test]
    fn the_item_has_exactly_the_designed_attributes_and_types() {
        let item = item(&p("alice"), &p("bob"), 1_795_330_800);
        assert_eq!(
            item,
            HashMap::from([
                ("targetId".to_owned(), s("alice")),
                ("watcherId".to_owned(), s("bob")),
                (
                    "expireAt".to_owned(),
                    AttributeValue::N("1795330800".into())
                ),
            ])
        );
        assert_eq!(watcher_from_item(&p("alice"), &item).unwrap(), p("bob"));
    }

    #[test]
    fn a_corrupt_watcher_names_the_target_and_what_is_wrong() {
        for (value, says) in [
            (None, "watcherId is missing"),
            (Some(AttributeValue::N("1".into())), "not a string"),
            (Some(s("b b")), "position 1"),
        ] {
            let mut item = key(&p("alice"), &p("bob"));
            match value {
                Some(value) => item.insert("watcherId".into(), value),
                None => item.remove("watcherId"),
            };
            match watcher_from_item(&p("alice"), &item) {
                Err(StoreError::Corrupt { key, reason }) => {
                    assert_eq!(key, "targetId=alice");
                    assert!(reason.contains(says), "{reason}");
                }
                other => panic!("{other:?}"),
            }
        }
    }
}
