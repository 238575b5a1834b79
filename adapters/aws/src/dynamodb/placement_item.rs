//! The Placements item (docs/architecture.md#placements) and its mapping to
//! [`PlacementRecord`].

use std::collections::{BTreeMap, HashMap};

use aws_sdk_dynamodb::types::AttributeValue;

use shared::domain::{EpochMillis, PlacementId, PlacementStatus, PlayerId};
use shared::placement::{PlacedGameSession, PlacementRecord};
use shared::ports::StoreError;

pub(crate) type Item = HashMap<String, AttributeValue>;

/// Attribute names of the Placements table.
pub(crate) mod attr {
    pub const PLACEMENT_ID: &str = "placementId";
    pub const REQUESTER_ID: &str = "requesterId";
    /// A list of player ids.
    pub const PLAYER_IDS: &str = "playerIds";
    pub const QUEUE: &str = "queue";
    pub const STATUS: &str = "status";
    pub const CREATED_AT: &str = "createdAt";
    pub const UPDATED_AT: &str = "updatedAt";
    pub const GAME_SESSION_ARN: &str = "gameSessionArn";
    pub const IP_ADDRESS: &str = "ipAddress";
    pub const DNS_NAME: &str = "dnsName";
    pub const PORT: &str = "port";
    pub const REGION: &str = "region";
    /// A map: player id → player session id.
    pub const PLAYER_SESSIONS: &str = "playerSessions";
    /// How many chunks of a settlement of more than one transaction's worth of players
    /// are written (see `placement_store`); absent until settled.
    pub const SETTLED_CHUNKS: &str = "settledChunks";
    pub const EXPIRE_AT: &str = "expireAt";
}

pub(crate) fn s(value: impl Into<String>) -> AttributeValue {
    AttributeValue::S(value.into())
}

pub(crate) fn n(value: impl ToString) -> AttributeValue {
    AttributeValue::N(value.to_string())
}

/// The table key of a placement.
pub(crate) fn key(placement_id: &PlacementId) -> Item {
    HashMap::from([(attr::PLACEMENT_ID.to_owned(), s(placement_id.as_str()))])
}

/// The attributes of a placement's game session, for an item or an update.
pub(crate) fn game_session_attributes(
    session: &PlacedGameSession,
) -> [(&'static str, AttributeValue); 5] {
    [
        (attr::GAME_SESSION_ARN, s(&session.game_session_arn)),
        (attr::IP_ADDRESS, s(&session.ip_address)),
        (attr::DNS_NAME, s(&session.dns_name)),
        (attr::PORT, n(session.port)),
        (attr::REGION, s(&session.region)),
    ]
}

/// `playerSessions` as a map attribute.
pub(crate) fn player_sessions_value(sessions: &BTreeMap<PlayerId, String>) -> AttributeValue {
    AttributeValue::M(
        sessions
            .iter()
            .map(|(player, session)| (player.to_string(), s(session)))
            .collect(),
    )
}

/// The whole item of a placement.
pub(crate) fn placement_to_item(placement: &PlacementRecord) -> Item {
    let mut item = HashMap::from([
        (
            attr::PLACEMENT_ID.to_owned(),
            s(placement.placement_id.as_str()),
        ),
        (
            attr::REQUESTER_ID.to_owned(),
            s(placement.requester_id.as_str()),
        ),
        (
            attr::PLAYER_IDS.to_owned(),
            AttributeValue::L(placement.player_ids.iter().map(|p| s(p.as_str())).collect()),
        ),
        (attr::QUEUE.to_owned(), s(&placement.queue)),
        (attr::STATUS.to_owned(), s(placement.status.as_str())),
        (attr::CREATED_AT.to_owned(), n(placement.created_at)),
        (attr::UPDATED_AT.to_owned(), n(placement.updated_at)),
        (attr::EXPIRE_AT.to_owned(), n(placement.expire_at_secs)),
    ]);
    if let Some(session) = &placement.game_session {
        item.extend(
            game_session_attributes(session)
                .into_iter()
                .map(|(name, value)| (name.to_owned(), value)),
        );
    }
    if !placement.player_sessions.is_empty() {
        item.insert(
            attr::PLAYER_SESSIONS.to_owned(),
            player_sessions_value(&placement.player_sessions),
        );
    }
    item
}

/// Reads one item; every mistake is a [`StoreError::Corrupt`] naming the item and the
/// attribute.
pub(crate) struct Reader<'a> {
    item: &'a Item,
    key: String,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(item: &'a Item) -> Self {
        let key = match item.get(attr::PLACEMENT_ID) {
            Some(AttributeValue::S(id)) => format!("{}={id}", attr::PLACEMENT_ID),
            _ => format!("{}=<missing>", attr::PLACEMENT_ID),
        };
        Self { item, key }
    }

    pub(crate) fn corrupt(&self, reason: impl Into<String>) -> StoreError {
        StoreError::Corrupt {
            key: self.key.clone(),
            reason: reason.into(),
        }
    }

    pub(crate) fn opt_s(&self, name: &str) -> Result<Option<&'a str>, StoreError> {
        match self.item.get(name) {
            None | Some(AttributeValue::Null(true)) => Ok(None),
            Some(AttributeValue::S(value)) => Ok(Some(value)),
            Some(other) => Err(self.corrupt(format!("{name} is {other:?}, not a string"))),
        }
    }

    pub(crate) fn req_s(&self, name: &str) -> Result<&'a str, StoreError> {
        self.opt_s(name)?
            .ok_or_else(|| self.corrupt(format!("{name} is missing")))
    }

    pub(crate) fn opt_n<T: std::str::FromStr>(&self, name: &str) -> Result<Option<T>, StoreError> {
        match self.item.get(name) {
            None | Some(AttributeValue::Null(true)) => Ok(None),
            Some(AttributeValue::N(raw)) => raw
                .parse()
                .map(Some)
                .map_err(|_| self.corrupt(format!("{name} is {raw:?}, out of range"))),
            Some(other) => Err(self.corrupt(format!("{name} is {other:?}, not a number"))),
        }
    }

    pub(crate) fn req_n<T: std::str::FromStr>(&self, name: &str) -> Result<T, StoreError> {
        self.opt_n(name)?
            .ok_or_else(|| self.corrupt(format!("{name} is missing")))
    }

    pub(crate) fn player(&self, name: &str, raw: &str) -> Result<PlayerId, StoreError> {
        PlayerId::parse(raw).map_err(|e| self.corrupt(format!("{name}: {e}")))
    }

    fn placement_id(&self) -> Result<PlacementId, StoreError> {
        let name = attr::PLACEMENT_ID;
        PlacementId::parse(self.req_s(name)?).map_err(|e| self.corrupt(format!("{name}: {e}")))
    }

    pub(crate) fn player_ids(&self) -> Result<Vec<PlayerId>, StoreError> {
        let name = attr::PLAYER_IDS;
        match self.item.get(name) {
            Some(AttributeValue::L(values)) => values
                .iter()
                .map(|value| match value {
                    AttributeValue::S(raw) => self.player(name, raw),
                    other => Err(self.corrupt(format!("{name} holds {other:?}, not a string"))),
                })
                .collect(),
            Some(AttributeValue::Ss(values)) => {
                values.iter().map(|raw| self.player(name, raw)).collect()
            }
            None => Err(self.corrupt(format!("{name} is missing"))),
            Some(other) => Err(self.corrupt(format!("{name} is {other:?}, not a list"))),
        }
    }

    pub(crate) fn player_sessions(&self) -> Result<BTreeMap<PlayerId, String>, StoreError> {
        let name = attr::PLAYER_SESSIONS;
        match self.item.get(name) {
            None | Some(AttributeValue::Null(true)) => Ok(BTreeMap::new()),
            Some(AttributeValue::M(map)) => map
                .iter()
                .map(|(player, session)| match session {
                    AttributeValue::S(session) => Ok((self.player(name, player)?, session.clone())),
                    other => {
                        Err(self.corrupt(format!("{name}.{player} is {other:?}, not a string")))
                    }
                })
                .collect(),
            Some(other) => Err(self.corrupt(format!("{name} is {other:?}, not a map"))),
        }
    }

    pub(crate) fn game_session(&self) -> Result<Option<PlacedGameSession>, StoreError> {
        let Some(arn) = self.opt_s(attr::GAME_SESSION_ARN)? else {
            return Ok(None);
        };
        Ok(Some(PlacedGameSession {
            game_session_arn: arn.to_owned(),
            ip_address: self.req_s(attr::IP_ADDRESS)?.to_owned(),
            dns_name: self.req_s(attr::DNS_NAME)?.to_owned(),
            port: self.req_n(attr::PORT)?,
            region: self.req_s(attr::REGION)?.to_owned(),
        }))
    }
}

/// Maps a Placements item to the record it holds.
pub(crate) fn placement_from_item(item: &Item) -> Result<PlacementRecord, StoreError> {
    let r = Reader::new(item);
    let status = r.req_s(attr::STATUS)?;
    let status = PlacementStatus::parse(status).ok_or_else(|| {
        r.corrupt(format!(
            "{} is {status:?}, not a placement status",
            attr::STATUS
        ))
    })?;
    Ok(PlacementRecord {
        placement_id: r.placement_id()?,
        requester_id: r.player(attr::REQUESTER_ID, r.req_s(attr::REQUESTER_ID)?)?,
        player_ids: r.player_ids()?,
        queue: r.req_s(attr::QUEUE)?.to_owned(),
        status,
        created_at: r.req_n::<EpochMillis>(attr::CREATED_AT)?,
        updated_at: r.req_n::<EpochMillis>(attr::UPDATED_AT)?,
        game_session: r.game_session()?,
        player_sessions: r.player_sessions()?,
        expire_at_secs: r.req_n(attr::EXPIRE_AT)?,
    })
}

/// `status` and `settledChunks` of a (possibly partial) item: what a cancelled
/// settlement transaction found.
pub(crate) fn settlement_progress(item: &Item) -> (Option<PlacementStatus>, u64) {
    let status = match item.get(attr::STATUS) {
        Some(AttributeValue::S(raw)) => PlacementStatus::parse(raw),
        _ => None,
    };
    let chunks = match item.get(attr::SETTLED_CHUNKS) {
        Some(AttributeValue::N(raw)) => raw.parse().unwrap_or(0),
        _ => 0,
    };
    (status, chunks)
}

#[cfg(test)]
mod tests {
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
    fn items_round_trip_pending_and_fulfilled() {
        let pending =
            PlacementRecord::pending(placement_id("p-1"), player("alice"), "eu-queue", 1_000);
        assert_eq!(
            placement_from_item(&placement_to_item(&pending)).unwrap(),
            pending
        );
        assert_eq!(
            placement_from_item(&placement_to_item(&fulfilled())).unwrap(),
            fulfilled()
        );
    }

    #[test]
    fn the_item_has_the_designed_attributes() {
        let item = placement_to_item(&fulfilled());
        let mut names: Vec<_> = item.keys().map(String::as_str).collect();
        names.sort_unstable();
        assert_eq!(
            names,
            vec![
                "createdAt",
                "dnsName",
                "expireAt",
                "gameSessionArn",
                "ipAddress",
                "placementId",
                "playerIds",
                "playerSessions",
                "port",
                "queue",
                "region",
                "requesterId",
                "status",
                "updatedAt"
            ]
        );
        assert_eq!(item["port"], n(7777));
        assert_eq!(item["status"], s("FULFILLED"));
    }

    #[test]
    fn a_corrupt_item_names_its_key_and_the_attribute() {
        for (name, value) in [
            (attr::STATUS, s("DONE")),
            (attr::PLAYER_IDS, AttributeValue::L(vec![s("a b")])),
            (attr::PORT, n(70_000)),
            (attr::CREATED_AT, s("yesterday")),
        ] {
            let mut item = placement_to_item(&fulfilled());
            item.insert(name.into(), value);
            match placement_from_item(&item) {
                Err(StoreError::Corrupt { key, reason }) => {
                    assert_eq!(key, "placementId=p-1");
                    assert!(reason.contains(name), "{reason}");
                }
                other => panic!("{name}: {other:?}"),
            }
        }
    }

    #[test]
    fn a_stored_placement_id_that_is_not_one_is_corrupt_naming_the_key_and_the_attribute() {
        let mut item = placement_to_item(&fulfilled());
        item.insert(attr::PLACEMENT_ID.into(), s("p/1"));
        match placement_from_item(&item) {
            Err(StoreError::Corrupt { key, reason }) => {
                assert_eq!(key, "placementId=p/1");
                assert_eq!(
                    reason,
                    "placementId: placement id contains '/' at position 1; allowed are A-Z a-z 0-9 -"
                );
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn settlement_progress_reads_status_and_chunks() {
        let mut item = placement_to_item(&fulfilled());
        assert_eq!(
            settlement_progress(&item),
            (Some(PlacementStatus::Fulfilled), 0)
        );
        item.insert(attr::SETTLED_CHUNKS.into(), n(2));
        assert_eq!(
            settlement_progress(&item),
            (Some(PlacementStatus::Fulfilled), 2)
        );
        assert_eq!(settlement_progress(&Item::new()), (None, 0));
    }
}
