//! The Friends items (shared/src/ports/friends.rs), derived: one side of a relation, and
//! a player's count of friends.

use serde::{Deserialize, Serialize};

use super::item::{self, Item, Malformed, Stored, parse};
use shared::domain::{EpochMillis, PlayerId};
use shared::friends::{FriendState, Relation};
use shared::ports::StoreError;

/// `otherId` of a player's count item: `#` is no player id's character, and sorts before
/// every one of them, so a player's relations are the ids above it.
pub(crate) const COUNT_ID: &str = "#count";

/// One side of a relation: `playerId`'s view of `otherId`.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RelationItem {
    /// Partition key.
    player_id: String,
    /// Sort key.
    other_id: String,
    state: FriendState,
    since: EpochMillis,
}

impl Stored for RelationItem {
    const TABLE: &'static str = "Friends";
    const KEY: &'static [&'static str] = &[attr::PLAYER_ID, attr::OTHER_ID];
}

/// Either item's key.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct KeyItem<'a> {
    player_id: &'a str,
    other_id: &'a str,
}

/// Attribute names the adapter's expressions and the table's key schema use: the
/// structs' field names (a test holds them equal).
pub(crate) mod attr {
    pub const PLAYER_ID: &str = "playerId";
    pub const OTHER_ID: &str = "otherId";
    pub const STATE: &str = "state";
    /// The count item's number of friends.
    pub const FRIENDS: &str = "friends";
}

impl TryFrom<RelationItem> for Relation {
    type Error = Malformed;

    fn try_from(item: RelationItem) -> Result<Self, Malformed> {
        Ok(Relation {
            player: parse(attr::PLAYER_ID, PlayerId::parse(&item.player_id))?,
            other: parse(attr::OTHER_ID, PlayerId::parse(&item.other_id))?,
            state: item.state,
            since: item.since,
        })
    }
}

/// The key of `player`'s side of their relation with `other`.
pub(crate) fn key(player: &PlayerId, other: &PlayerId) -> Result<Item, StoreError> {
    item::to_item(&KeyItem {
        player_id: player.as_str(),
        other_id: other.as_str(),
    })
}

/// The key of `player`'s count item.
pub(crate) fn count_key(player: &PlayerId) -> Result<Item, StoreError> {
    item::to_item(&KeyItem {
        player_id: player.as_str(),
        other_id: COUNT_ID,
    })
}

/// The item of `player`'s side: `state` since `since`.
pub(crate) fn relation_item(
    player: &PlayerId,
    other: &PlayerId,
    state: FriendState,
    since: EpochMillis,
) -> Result<Item, StoreError> {
    item::to_item(&RelationItem {
        player_id: player.to_string(),
        other_id: other.to_string(),
        state,
        since,
    })
}

/// A stored side read back.
pub(crate) fn relation_from_item(stored: Item) -> Result<Relation, StoreError> {
    item::read::<RelationItem, Relation>(stored)
}

/// The other player of a relation a Query projected on `otherId` returned.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct OtherItem {
    other_id: String,
}

pub(crate) fn other_from_item(player: &PlayerId, stored: &Item) -> Result<PlayerId, StoreError> {
    let key = format!("{}={player}", attr::PLAYER_ID);
    item::decode::<OtherItem>(stored.clone())
        .and_then(|item| parse(attr::OTHER_ID, PlayerId::parse(&item.other_id)))
        .map_err(|e| item::corrupt::<RelationItem>(key, &e))
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
    fn given_a_side_when_written_then_it_has_the_designed_attributes_and_reads_back() {
        let written = relation_item(&p("alice"), &p("bob"), FriendState::Invited, 7).unwrap();
        assert_eq!(
            wire::to_json(&written),
            json!({"playerId": {"S": "alice"}, "otherId": {"S": "bob"},
                   "state": {"S": "invited"}, "since": {"N": "7"}})
        );
        for name in [attr::PLAYER_ID, attr::OTHER_ID, attr::STATE] {
            assert!(written.contains_key(name), "{name}");
        }
        assert_eq!(
            relation_from_item(written).unwrap(),
            Relation {
                player: p("alice"),
                other: p("bob"),
                state: FriendState::Invited,
                since: 7,
            }
        );
        assert_eq!(
            wire::to_json(&count_key(&p("alice")).unwrap()),
            json!({"playerId": {"S": "alice"}, "otherId": {"S": "#count"}})
        );
    }

    #[test]
    fn given_a_corrupt_side_when_read_then_the_error_names_the_key_and_attribute() {
        let mut stored = relation_item(&p("alice"), &p("bob"), FriendState::Friends, 7).unwrap();
        stored.insert("state".into(), AttributeValue::S("enemies".into()));
        match relation_from_item(stored) {
            Err(StoreError::Corrupt { key, reason }) => {
                assert_eq!(key, "playerId=alice otherId=bob");
                assert!(reason.starts_with("Friends item: state: "), "{reason}");
            }
            other => panic!("{other:?}"),
        }
    }
}
