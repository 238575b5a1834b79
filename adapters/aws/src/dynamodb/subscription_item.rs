//! The PresenceSubscriptions item (shared/src/ports/subscriptions.rs), derived:
//! `watcherId` watches `targetId` until `expireAt`.

use serde::{Deserialize, Serialize};

use super::item::{self, Item, Stored};
use shared::domain::PlayerId;
use shared::ports::StoreError;

/// A subscription; the key alone (no `expireAt`) is what a delete names.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct SubscriptionItem {
    /// Partition key: the player watched.
    target_id: PlayerId,
    /// Sort key: the player watching.
    watcher_id: PlayerId,
    /// Epoch seconds (TTL).
    #[serde(rename = "expireAt", default, skip_serializing_if = "Option::is_none")]
    expire_at_secs: Option<i64>,
}

impl Stored for SubscriptionItem {
    const TABLE: &'static str = "PresenceSubscriptions";
    const KEY: &'static [&'static str] = &[attr::TARGET_ID, attr::WATCHER_ID];
}

/// Attribute names the adapter's expressions and the table's key schema use: the
/// struct's field names (a test holds them equal).
pub(crate) mod attr {
    pub const TARGET_ID: &str = "targetId";
    pub const WATCHER_ID: &str = "watcherId";
    pub const EXPIRE_AT: &str = "expireAt";
}

/// A watcher read back from a Query projected on `watcherId`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WatcherItem {
    watcher_id: PlayerId,
}

fn subscription(
    target: &PlayerId,
    watcher: &PlayerId,
    expire_at_secs: Option<i64>,
) -> Result<Item, StoreError> {
    item::to_item(&SubscriptionItem {
        target_id: target.clone(),
        watcher_id: watcher.clone(),
        expire_at_secs,
    })
}

/// The table key of `watcher` watching `target`.
pub(crate) fn key(target: &PlayerId, watcher: &PlayerId) -> Result<Item, StoreError> {
    subscription(target, watcher, None)
}

/// The whole item.
pub(crate) fn item(
    target: &PlayerId,
    watcher: &PlayerId,
    expire_at_secs: i64,
) -> Result<Item, StoreError> {
    subscription(target, watcher, Some(expire_at_secs))
}

/// The watcher of an item a Query on `target` returned.
pub(crate) fn watcher_from_item(target: &PlayerId, stored: &Item) -> Result<PlayerId, StoreError> {
    let key = format!("{}={target}", attr::TARGET_ID);
    item::decode::<WatcherItem>(stored.clone())
        .map(|item| item.watcher_id)
        .map_err(|e| item::corrupt::<SubscriptionItem>(key, &e))
}

#[cfg(test)]
mod tests {
    use aws_sdk_dynamodb::types::AttributeValue;
    use serde_json::json;

    use super::super::item::wire;
    use super::*;

    fn p(name: &str) -> PlayerId {
        PlayerId::parse(name).unwrap()
    }

    #[test]
    fn given_a_subscription_when_written_then_it_has_the_attributes_the_hand_written_mapping_wrote()
    {
        // Captured from the hand-written mapping this struct replaced.
        let old = json!({
            "targetId": {"S": "alice"}, "watcherId": {"S": "bob"},
            "expireAt": {"N": "1795330800"}
        });
        let written = item(&p("alice"), &p("bob"), 1_795_330_800).unwrap();
        assert_eq!(wire::to_json(&written), old);
        let stored = wire::from_json(old);
        assert_eq!(watcher_from_item(&p("alice"), &stored).unwrap(), p("bob"));
        assert_eq!(
            wire::to_json(&key(&p("alice"), &p("bob")).unwrap()),
            json!({"targetId": {"S": "alice"}, "watcherId": {"S": "bob"}})
        );
        for name in [attr::TARGET_ID, attr::WATCHER_ID, attr::EXPIRE_AT] {
            assert!(written.contains_key(name), "{name}");
        }
    }

    #[test]
    fn given_a_corrupt_watcher_when_read_then_the_error_names_the_target_and_what_is_wrong() {
        for (value, says) in [
            (None, "missing field `watcherId`"),
            (Some(AttributeValue::N("1".into())), "watcherId: "),
            (Some(AttributeValue::S("b b".into())), "position 1"),
        ] {
            let mut item = key(&p("alice"), &p("bob")).unwrap();
            match value {
                Some(value) => item.insert("watcherId".into(), value),
                None => item.remove("watcherId"),
            };
            match watcher_from_item(&p("alice"), &item) {
                Err(StoreError::Corrupt { key, reason }) => {
                    assert_eq!(key, "targetId=alice");
                    assert!(
                        reason.starts_with("PresenceSubscriptions item: "),
                        "{reason}"
                    );
                    assert!(reason.contains(says), "{reason}");
                }
                other => panic!("{other:?}"),
            }
        }
    }
}
