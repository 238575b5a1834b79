//! The Placements item (shared/src/ports/placements.rs), derived straight onto
//! [`PlacementRecord`]; the game session attributes a matchmaking ticket's item
//! (`ticket_item.rs`) and the settlements' updates share with it.

use std::collections::BTreeMap;

use aws_sdk_dynamodb::types::AttributeValue;
use serde::{Deserialize, Serialize};

use super::item::{self, Item, Malformed, Stored};
use shared::domain::{EpochMillis, PlacementId, PlacementStatus, PlayerId};
use shared::placement::{PlacedGameSession, PlacementRecord};
use shared::ports::StoreError;

/// A placement's item: serde's remote derive for [`PlacementRecord`], so the record is
/// written and read with no mapping by hand; an id or a status that does not parse is
/// an error naming its attribute (the domain types validate as they deserialize).
#[derive(Serialize, Deserialize)]
#[serde(remote = "PlacementRecord", rename_all = "camelCase")]
struct PlacementItem {
    /// Partition key.
    placement_id: PlacementId,
    requester_id: PlayerId,
    /// A list (L) of player ids; a string set (SS) is read too.
    player_ids: Vec<PlayerId>,
    queue: String,
    status: PlacementStatus,
    /// Epoch milliseconds.
    created_at: EpochMillis,
    updated_at: EpochMillis,
    /// Once FULFILLED.
    #[serde(flatten, with = "game_session")]
    game_session: Option<PlacedGameSession>,
    /// Once FULFILLED: player id → player session id.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    player_sessions: BTreeMap<PlayerId, String>,
    /// Epoch seconds (TTL).
    #[serde(rename = "expireAt")]
    expire_at_secs: i64,
    // `settledChunks` (N): how many chunks of a settlement of more than one
    // transaction's worth of players are written, set by the settlement's updates.
}

/// A whole placement item.
#[derive(Serialize, Deserialize)]
#[serde(transparent)]
struct Placement(#[serde(with = "PlacementItem")] PlacementRecord);

impl Stored for Placement {
    const TABLE: &'static str = "Placements";
    const KEY: &'static [&'static str] = &[attr::PLACEMENT_ID];
}

impl From<Placement> for PlacementRecord {
    fn from(placement: Placement) -> Self {
        placement.0
    }
}

/// A placed game session as top-level attributes of a placement's or a ticket's item:
/// all five or none.
#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct GameSessionAttributes {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    game_session_arn: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    ip_address: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    dns_name: Option<String>,
    /// Read wide, so that an out-of-range port is named (a flattened field's error
    /// carries no attribute name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    port: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    region: Option<String>,
}

impl From<Option<&PlacedGameSession>> for GameSessionAttributes {
    fn from(session: Option<&PlacedGameSession>) -> Self {
        let Some(session) = session else {
            return Self::default();
        };
        Self {
            game_session_arn: Some(session.game_session_arn.clone()),
            ip_address: Some(session.ip_address.clone()),
            dns_name: Some(session.dns_name.clone()),
            port: Some(session.port.into()),
            region: Some(session.region.clone()),
        }
    }
}

impl TryFrom<GameSessionAttributes> for Option<PlacedGameSession> {
    type Error = Malformed;

    fn try_from(attributes: GameSessionAttributes) -> Result<Self, Malformed> {
        let Some(game_session_arn) = attributes.game_session_arn else {
            return Ok(None);
        };
        let required = |name: &str, value: Option<String>| {
            value.ok_or_else(|| Malformed::new(name, "missing beside gameSessionArn"))
        };
        let port = attributes
            .port
            .ok_or_else(|| Malformed::new("port", "missing beside gameSessionArn"))?;
        Ok(Some(PlacedGameSession {
            game_session_arn,
            ip_address: required("ipAddress", attributes.ip_address)?,
            dns_name: required("dnsName", attributes.dns_name)?,
            port: item::parse("port", u16::try_from(port))?,
            region: required("region", attributes.region)?,
        }))
    }
}

/// `#[serde(with)]` for a game session flattened into an item (a placement's, a
/// ticket's), through [`GameSessionAttributes`]. The error names the attribute in its
/// text (`port: ...`).
pub(crate) mod game_session {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::{GameSessionAttributes, PlacedGameSession};

    pub(crate) fn serialize<S: Serializer>(
        session: &Option<PlacedGameSession>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        GameSessionAttributes::from(session.as_ref()).serialize(serializer)
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<PlacedGameSession>, D::Error> {
        GameSessionAttributes::deserialize(deserializer)?
            .try_into()
            .map_err(serde::de::Error::custom)
    }
}

/// Attribute names the adapters' expressions and the table's key schema use: the
/// struct's field names (a test holds them equal).
pub(crate) mod attr {
    pub const PLACEMENT_ID: &str = "placementId";
    pub const STATUS: &str = "status";
    pub const UPDATED_AT: &str = "updatedAt";
    pub const PLAYER_SESSIONS: &str = "playerSessions";
    pub const EXPIRE_AT: &str = "expireAt";
}

/// The table key of a placement (or of a ticket: its id in `placementId`).
pub(crate) fn key(id: &str) -> Item {
    Item::from([(
        attr::PLACEMENT_ID.to_owned(),
        AttributeValue::S(id.to_owned()),
    )])
}

/// The attributes of a placement's game session, for an update's `SET`.
pub(crate) fn game_session_attributes(session: &PlacedGameSession) -> Result<Item, StoreError> {
    item::to_item(&GameSessionAttributes::from(Some(session)))
}

/// `playerSessions` (player id → player session id), for an update.
pub(crate) fn player_sessions_value(
    sessions: &BTreeMap<PlayerId, String>,
) -> Result<AttributeValue, StoreError> {
    item::to_value(sessions)
}

/// The whole item of a placement.
pub(crate) fn placement_to_item(placement: &PlacementRecord) -> Result<Item, StoreError> {
    item::to_item(&Placement(placement.clone()))
}

/// Maps a Placements item to the record it holds.
pub(crate) fn placement_from_item(stored: &Item) -> Result<PlacementRecord, StoreError> {
    item::read::<Placement, _>(stored.clone())
}

/// What a cancelled settlement transaction found of a (possibly partial) item.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SettlementProgress {
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    settled_chunks: Option<u64>,
}

/// `status` and `settledChunks` of a (possibly partial) item: what a cancelled
/// settlement transaction found.
pub(crate) fn settlement_progress(stored: &Item) -> (Option<PlacementStatus>, u64) {
    match item::decode::<SettlementProgress>(stored.clone()) {
        Ok(progress) => (
            progress.status.as_deref().and_then(PlacementStatus::parse),
            progress.settled_chunks.unwrap_or(0),
        ),
        Err(_) => (None, 0),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::item::wire;
    use super::*;
    use contracts::fixtures::placement_id;

    fn player(name: &str) -> PlayerId {
        PlayerId::parse(name).unwrap()
    }

    fn fulfilled() -> PlacementRecord {
        let mut placement =
            PlacementRecord::pending(placement_id("p-1"), player("alice"), "eu-queue", 1_000);
        placement.player_ids.push(player("bob"));
        placement.status = PlacementStatus::Fulfilled;
        placement.updated_at = 2_000;
        placement.game_session = Some(PlacedGameSession {
            game_session_arn: "arn:gs".into(),
            ip_address: "10.0.0.1".into(),
            dns_name: "host.example".into(),
            port: 7777,
            region: "eu-west-1".into(),
        });
        placement.player_sessions = BTreeMap::from([
            (player("alice"), "psess-a".into()),
            (player("bob"), "psess-b".into()),
        ]);
        placement
    }

    #[test]
    fn given_placements_when_written_then_they_have_the_attributes_the_hand_written_mapping_wrote()
    {
        // Captured from the hand-written mapping this struct replaced.
        let old = json!({
            "placementId": {"S": "p-1"}, "requesterId": {"S": "alice"},
            "playerIds": {"L": [{"S": "alice"}, {"S": "bob"}]}, "queue": {"S": "eu-queue"},
            "status": {"S": "FULFILLED"}, "createdAt": {"N": "1000"}, "updatedAt": {"N": "2000"},
            "gameSessionArn": {"S": "arn:gs"}, "ipAddress": {"S": "10.0.0.1"},
            "dnsName": {"S": "host.example"}, "port": {"N": "7777"}, "region": {"S": "eu-west-1"},
            "playerSessions": {"M": {"alice": {"S": "psess-a"}, "bob": {"S": "psess-b"}}},
            "expireAt": {"N": "604801"}
        });
        assert_eq!(
            wire::to_json(&placement_to_item(&fulfilled()).unwrap()),
            old
        );
        assert_eq!(
            placement_from_item(&wire::from_json(old)).unwrap(),
            fulfilled()
        );
        let old_pending = json!({
            "placementId": {"S": "p-2"}, "requesterId": {"S": "alice"},
            "playerIds": {"L": [{"S": "alice"}]}, "queue": {"S": "eu-queue"},
            "status": {"S": "PENDING"}, "createdAt": {"N": "1000"}, "updatedAt": {"N": "1000"},
            "expireAt": {"N": "604801"}
        });
        let pending =
            PlacementRecord::pending(placement_id("p-2"), player("alice"), "eu-queue", 1_000);
        assert_eq!(
            wire::to_json(&placement_to_item(&pending).unwrap()),
            old_pending
        );
        assert_eq!(
            placement_from_item(&wire::from_json(old_pending)).unwrap(),
            pending
        );
    }

    #[test]
    fn given_the_names_updates_use_then_they_are_the_items_attributes() {
        let item = placement_to_item(&fulfilled()).unwrap();
        for name in [
            attr::PLACEMENT_ID,
            attr::STATUS,
            attr::UPDATED_AT,
            attr::PLAYER_SESSIONS,
            attr::EXPIRE_AT,
        ] {
            assert!(item.contains_key(name), "{name}");
        }
        let session = game_session_attributes(fulfilled().game_session.as_ref().unwrap()).unwrap();
        assert!(session.keys().all(|name| item[name] == session[name]));
        assert_eq!(
            player_sessions_value(&fulfilled().player_sessions).unwrap(),
            item[attr::PLAYER_SESSIONS]
        );
        assert_eq!(key("p-1")[attr::PLACEMENT_ID], item[attr::PLACEMENT_ID]);
    }

    #[test]
    fn given_a_corrupt_item_when_read_then_the_error_names_its_table_key_and_attribute() {
        // The error names the attribute, down to the list element.
        for (name, value, named) in [
            ("status", AttributeValue::S("DONE".into()), "status"),
            (
                "playerIds",
                AttributeValue::L(vec![AttributeValue::S("a b".into())]),
                "playerIds[0]",
            ),
            ("port", AttributeValue::N("70000".into()), "port"),
            (
                "createdAt",
                AttributeValue::S("yesterday".into()),
                "createdAt",
            ),
            (
                "placementId",
                AttributeValue::S("p/1".into()),
                "placementId",
            ),
        ] {
            let mut item = placement_to_item(&fulfilled()).unwrap();
            item.insert(name.into(), value);
            match placement_from_item(&item) {
                Err(StoreError::Corrupt { key, reason }) => {
                    assert!(key.starts_with("placementId=p"), "{key}");
                    assert!(
                        reason.starts_with(&format!("Placements item: {named}: ")),
                        "{reason}"
                    );
                }
                other => panic!("{name}: {other:?}"),
            }
        }
        let mut item = placement_to_item(&fulfilled()).unwrap();
        item.remove("dnsName");
        assert!(matches!(
            placement_from_item(&item),
            Err(StoreError::Corrupt { .. })
        ));
    }

    #[test]
    fn given_a_partial_item_when_a_settlement_reads_its_progress_then_status_and_chunks_read() {
        let mut item = placement_to_item(&fulfilled()).unwrap();
        assert_eq!(
            settlement_progress(&item),
            (Some(PlacementStatus::Fulfilled), 0)
        );
        item.insert("settledChunks".into(), AttributeValue::N("2".into()));
        assert_eq!(
            settlement_progress(&item),
            (Some(PlacementStatus::Fulfilled), 2)
        );
        assert_eq!(settlement_progress(&Item::new()), (None, 0));
    }
}
