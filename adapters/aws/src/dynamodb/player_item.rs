//! The Players item (docs/architecture.md#players) and its mapping to [`PlayerRecord`]:
//! attribute names, the values written for the optional "previous" fields, and parsing
//! of what DynamoDB returns (GetItem, ALL_OLD images, `BySweepShard` keys).

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;

use shared::domain::{ConnectionId, EpochMillis, GameSession, PlayerId, PresenceStatus, Seq};
use shared::party::PartyId;
use shared::pending::Pending;
use shared::players::{OnlineConnection, PlayerRecord};
use shared::ports::StoreError;

pub(crate) type Item = HashMap<String, AttributeValue>;

/// Attribute names of the Players table.
pub(crate) mod attr {
    pub const PLAYER_ID: &str = "playerId";
    pub const CONNECTION_ID: &str = "connectionId";
    pub const ENDPOINT: &str = "endpoint";
    pub const CONNECTED_AT: &str = "connectedAt";
    pub const LAST_SEEN: &str = "lastSeen";
    pub const STATUS: &str = "status";
    pub const SWEEP_SHARD: &str = "sweepShard";
    pub const SWEEP_AT: &str = "sweepAt";
    pub const PREVIOUS_STATUS: &str = "previousStatus";
    pub const PREVIOUS_SWEEP_AT: &str = "previousSweepAt";
    pub const PREVIOUS_CONNECTION_ID: &str = "previousConnectionId";
    pub const PREVIOUS_ENDPOINT: &str = "previousEndpoint";
    pub const PREVIOUS_LAST_SEEN: &str = "previousLastSeen";
    /// Written by `resume`'s hand-over: the connection posted to live, and the inbox
    /// head its replay reached.
    pub const LIVE_CONNECTION_ID: &str = "liveConnectionId";
    pub const LIVE_FROM: &str = "liveFrom";
    /// The last cursor the client reported (or a cursor-less replay reached).
    pub const ACKED_SEQ: &str = "ackedSeq";
    pub const EXPIRE_AT: &str = "expireAt";
    /// The pending placement: a string set holding at most one id, so that a settlement
    /// can clear it only if it is still that placement with a condition-free
    /// `DELETE pendingPlacementId :ids` (a condition on a player item would cancel a
    /// whole settlement transaction). A plain string is read too.
    pub const PENDING_PLACEMENT_ID: &str = "pendingPlacementId";
    pub const LAST_PLACEMENT_ID: &str = "lastPlacementId";
    /// A map: `gameSessionArn`, `ipAddress`, `dnsName`, `port` (N), `region`,
    /// `playerSessionId`, and where the player connects: `connection` (JSON text, as the
    /// protocol writes it) or `connectionUnavailable` (BOOL, only when true).
    pub const GAME_SESSION: &str = "gameSession";
    /// Attributes of the `gameSession` map.
    pub const GAME_SESSION_ARN: &str = "gameSessionArn";
    pub const IP_ADDRESS: &str = "ipAddress";
    pub const DNS_NAME: &str = "dnsName";
    pub const PORT: &str = "port";
    pub const REGION: &str = "region";
    pub const PLAYER_SESSION_ID: &str = "playerSessionId";
    pub const CONNECTION: &str = "connection";
    pub const CONNECTION_UNAVAILABLE: &str = "connectionUnavailable";
    /// The ARN of the game the backend API reported over for this player (its
    /// `gameSession` was removed by the same write).
    pub const ENDED_GAME_SESSION_ARN: &str = "endedGameSessionArn";
    /// The party the player is in (written only inside a party's transactions).
    pub const PARTY_ID: &str = "partyId";
    /// A map: region → milliseconds (N), from `setPlacementLatencies`.
    pub const PLACEMENT_LATENCIES: &str = "placementLatencies";
    /// JSON text: the attributes as the client sent them (FlexMatch's four kinds).
    pub const MATCHMAKING_ATTRIBUTES: &str = "matchmakingAttributes";
}

/// `previousStatus` when the `$connect` write found no earlier status.
pub(crate) const NO_PREVIOUS_STATUS: &str = "none";
/// `previousConnectionId` / `previousEndpoint` when the `$connect` write found none.
pub(crate) const NO_PREVIOUS_STRING: &str = NO_PREVIOUS_STATUS;
/// `previousSweepAt` / `previousLastSeen` when the `$connect` write found none.
pub(crate) const NO_PREVIOUS_SWEEP_AT: EpochMillis = 0;

pub(crate) fn s(value: impl Into<String>) -> AttributeValue {
    AttributeValue::S(value.into())
}

pub(crate) fn n(value: impl ToString) -> AttributeValue {
    AttributeValue::N(value.to_string())
}

/// The `pendingPlacementId` value of a pending request (see [`attr::PENDING_PLACEMENT_ID`]).
pub(crate) fn pending_value(pending: &Pending) -> AttributeValue {
    AttributeValue::Ss(vec![pending.stored().to_owned()])
}

/// The pending request in an item (a one-element string set, or a string), e.g. the
/// old image a failed condition returned; a value that is not one request's id is
/// [`StoreError::Corrupt`].
pub(crate) fn pending_of(item: &Item) -> Result<Option<Pending>, StoreError> {
    Reader::new(item).pending()
}

/// The party id in an item (e.g. the old image a failed condition returned).
pub(crate) fn party_of(item: &Item) -> Result<Option<PartyId>, StoreError> {
    Reader::new(item).party_id()
}

/// The `placementLatencies` map of a player's item.
pub(crate) fn attributes_value(attributes: &shared::matchmaking::Attributes) -> AttributeValue {
    // Plain numbers, strings, lists and maps: always serializable.
    AttributeValue::S(serde_json::to_string(attributes).unwrap_or_else(|_| "{}".to_owned()))
}

pub(crate) fn latencies_value(latencies: &[(String, u32)]) -> AttributeValue {
    AttributeValue::M(
        latencies
            .iter()
            .map(|(region, millis)| (region.clone(), n(millis)))
            .collect(),
    )
}

/// The `gameSession` map of a player's item.
pub(crate) fn game_session_value(session: &GameSession) -> AttributeValue {
    let mut map = HashMap::from([
        (
            attr::GAME_SESSION_ARN.to_owned(),
            s(&session.game_session_arn),
        ),
        (attr::IP_ADDRESS.to_owned(), s(&session.ip_address)),
        (attr::DNS_NAME.to_owned(), s(&session.dns_name)),
        (attr::PORT.to_owned(), n(session.port)),
        (attr::REGION.to_owned(), s(&session.region)),
        (
            attr::PLAYER_SESSION_ID.to_owned(),
            s(&session.player_session_id),
        ),
    ]);
    // Kept with the seat so that `resume` answers with it without asking GameLift again.
    if let Some(connection) = &session.connection {
        // Strings and numbers only: always serializable.
        let text = serde_json::to_string(connection).unwrap_or_default();
        map.insert(attr::CONNECTION.to_owned(), s(text));
    }
    if session.connection_unavailable {
        map.insert(
            attr::CONNECTION_UNAVAILABLE.to_owned(),
            AttributeValue::Bool(true),
        );
    }
    AttributeValue::M(map)
}

/// The table key of a player.
pub(crate) fn key(player: &PlayerId) -> Item {
    HashMap::from([(attr::PLAYER_ID.to_owned(), s(player.as_str()))])
}

/// Reads one item, tolerating nothing: every mistake is a [`StoreError::Corrupt`] naming
/// the item and the attribute.
struct Reader<'a> {
    item: &'a Item,
    key: String,
}

impl<'a> Reader<'a> {
    fn new(item: &'a Item) -> Self {
        let key = match item.get(attr::PLAYER_ID) {
            Some(AttributeValue::S(id)) => format!("{}={id}", attr::PLAYER_ID),
            _ => format!("{}=<missing>", attr::PLAYER_ID),
        };
        Self { item, key }
    }

    fn corrupt(&self, reason: impl Into<String>) -> StoreError {
        StoreError::Corrupt {
            key: self.key.clone(),
            reason: reason.into(),
        }
    }

    fn has(&self, name: &str) -> bool {
        self.item.contains_key(name)
    }

    fn opt_s(&self, name: &str) -> Result<Option<&'a str>, StoreError> {
        match self.item.get(name) {
            None | Some(AttributeValue::Null(true)) => Ok(None),
            Some(AttributeValue::S(value)) => Ok(Some(value)),
            Some(other) => Err(self.corrupt(format!("{name} is {other:?}, not a string"))),
        }
    }

    fn req_s(&self, name: &str) -> Result<&'a str, StoreError> {
        self.opt_s(name)?
            .ok_or_else(|| self.corrupt(format!("{name} is missing")))
    }

    fn opt_n<T: std::str::FromStr>(&self, name: &str) -> Result<Option<T>, StoreError> {
        match self.item.get(name) {
            None | Some(AttributeValue::Null(true)) => Ok(None),
            Some(AttributeValue::N(raw)) => raw
                .parse()
                .map(Some)
                .map_err(|_| self.corrupt(format!("{name} is {raw:?}, out of range"))),
            Some(other) => Err(self.corrupt(format!("{name} is {other:?}, not a number"))),
        }
    }

    fn req_n<T: std::str::FromStr>(&self, name: &str) -> Result<T, StoreError> {
        self.opt_n(name)?
            .ok_or_else(|| self.corrupt(format!("{name} is missing")))
    }

    fn pending(&self) -> Result<Option<Pending>, StoreError> {
        let name = attr::PENDING_PLACEMENT_ID;
        let raw = match self.item.get(name) {
            None | Some(AttributeValue::Null(true)) => return Ok(None),
            Some(AttributeValue::S(id)) => id,
            Some(AttributeValue::Ss(ids)) if ids.len() == 1 => &ids[0],
            Some(other) => {
                return Err(self.corrupt(format!("{name} is {other:?}, not one request id")));
            }
        };
        self.request_id(name, raw).map(Some)
    }

    fn party_id(&self) -> Result<Option<PartyId>, StoreError> {
        self.opt_s(attr::PARTY_ID)?
            .map(|raw| {
                PartyId::parse(raw).map_err(|e| self.corrupt(format!("{}: {e}", attr::PARTY_ID)))
            })
            .transpose()
    }

    fn latencies(&self) -> Result<Vec<(String, u32)>, StoreError> {
        let name = attr::PLACEMENT_LATENCIES;
        let map = match self.item.get(name) {
            None | Some(AttributeValue::Null(true)) => return Ok(Vec::new()),
            Some(AttributeValue::M(map)) => map,
            Some(other) => return Err(self.corrupt(format!("{name} is {other:?}, not a map"))),
        };
        let mut latencies = map
            .iter()
            .map(|(region, value)| match value {
                AttributeValue::N(raw) => raw
                    .parse::<u32>()
                    .map(|millis| (region.clone(), millis))
                    .map_err(|_| self.corrupt(format!("{name}.{region} is {raw:?}, out of range"))),
                other => Err(self.corrupt(format!("{name}.{region} is {other:?}, not a number"))),
            })
            .collect::<Result<Vec<_>, _>>()?;
        latencies.sort();
        Ok(latencies)
    }

    fn matchmaking_attributes(&self) -> Result<shared::matchmaking::Attributes, StoreError> {
        let name = attr::MATCHMAKING_ATTRIBUTES;
        match self.opt_s(name)? {
            None => Ok(Default::default()),
            Some(raw) => serde_json::from_str(raw)
                .map_err(|e| self.corrupt(format!("{name} is not attributes: {e}"))),
        }
    }

    /// A request id, read into what it names: the one place a stored id is told a
    /// ticket or a placement.
    fn request_id(&self, name: &str, raw: &str) -> Result<Pending, StoreError> {
        Pending::from_stored(raw).map_err(|e| self.corrupt(format!("{name}: {e}")))
    }

    fn game_session(&self) -> Result<Option<GameSession>, StoreError> {
        let name = attr::GAME_SESSION;
        let map = match self.item.get(name) {
            None | Some(AttributeValue::Null(true)) => return Ok(None),
            Some(AttributeValue::M(map)) => map,
            Some(other) => return Err(self.corrupt(format!("{name} is {other:?}, not a map"))),
        };
        let field = Reader {
            item: map,
            key: self.key.clone(),
        };
        let in_map = |e: StoreError| match e {
            StoreError::Corrupt { key, reason } => StoreError::Corrupt {
                key,
                reason: format!("{name}.{reason}"),
            },
            other => other,
        };
        field.game_session_fields().map(Some).map_err(in_map)
    }

    /// The fields of a `gameSession` map (this reader reading the map).
    fn game_session_fields(&self) -> Result<GameSession, StoreError> {
        Ok(GameSession {
            game_session_arn: self.req_s(attr::GAME_SESSION_ARN)?.to_owned(),
            ip_address: self.req_s(attr::IP_ADDRESS)?.to_owned(),
            dns_name: self.req_s(attr::DNS_NAME)?.to_owned(),
            port: self.req_n(attr::PORT)?,
            region: self.req_s(attr::REGION)?.to_owned(),
            player_session_id: self.req_s(attr::PLAYER_SESSION_ID)?.to_owned(),
            // A seat stored before connection details existed has neither.
            connection: self
                .opt_s(attr::CONNECTION)?
                .map(|raw| {
                    serde_json::from_str(raw).map_err(|e| {
                        self.corrupt(format!(
                            "{} is not connection details: {e}",
                            attr::CONNECTION
                        ))
                    })
                })
                .transpose()?,
            connection_unavailable: match self.item.get(attr::CONNECTION_UNAVAILABLE) {
                None | Some(AttributeValue::Null(true)) => false,
                Some(AttributeValue::Bool(unavailable)) => *unavailable,
                Some(other) => {
                    return Err(self.corrupt(format!(
                        "{} is {other:?}, not a boolean",
                        attr::CONNECTION_UNAVAILABLE
                    )));
                }
            },
        })
    }

    fn player_id(&self) -> Result<PlayerId, StoreError> {
        PlayerId::parse(self.req_s(attr::PLAYER_ID)?)
            .map_err(|e| self.corrupt(format!("{}: {e}", attr::PLAYER_ID)))
    }

    fn status(&self, name: &str, raw: &str) -> Result<PresenceStatus, StoreError> {
        PresenceStatus::parse(raw)
            .ok_or_else(|| self.corrupt(format!("{name} is {raw:?}, not a presence status")))
    }
}

/// Maps a Players item to the connection record it holds.
///
/// `Ok(None)` when the item holds no connection at all (neither `connectionId` nor
/// `status`): an item other writers created with game state only (e.g. `gameSession`)
/// is "no connection record", so the next `$connect` is a new session. An item with
/// some connection fields but not all is corrupt.
pub(crate) fn record_from_item(item: &Item) -> Result<Option<PlayerRecord>, StoreError> {
    let r = Reader::new(item);
    if !r.has(attr::CONNECTION_ID) && !r.has(attr::STATUS) {
        return Ok(None);
    }
    let player_id = r.player_id()?;
    let connection_id = ConnectionId::parse(r.req_s(attr::CONNECTION_ID)?)
        .map_err(|e| r.corrupt(format!("{}: {e}", attr::CONNECTION_ID)))?;
    let status = r.status(attr::STATUS, r.req_s(attr::STATUS)?)?;
    let previous_status = match r.opt_s(attr::PREVIOUS_STATUS)? {
        None | Some(NO_PREVIOUS_STATUS) => None,
        Some(raw) => Some(r.status(attr::PREVIOUS_STATUS, raw)?),
    };
    let previous_sweep_at = r
        .opt_n::<EpochMillis>(attr::PREVIOUS_SWEEP_AT)?
        .filter(|at| *at != NO_PREVIOUS_SWEEP_AT);
    let connection = |name: &str| -> Result<Option<ConnectionId>, StoreError> {
        match r.opt_s(name)? {
            None | Some(NO_PREVIOUS_STRING) => Ok(None),
            Some(raw) => ConnectionId::parse(raw)
                .map(Some)
                .map_err(|e| r.corrupt(format!("{name}: {e}"))),
        }
    };
    let seq = |name: &str| -> Result<Option<Seq>, StoreError> {
        r.opt_n::<u64>(name)?
            .map(|raw| Seq::new(raw).map_err(|e| r.corrupt(format!("{name}: {e}"))))
            .transpose()
    };
    Ok(Some(PlayerRecord {
        player_id,
        connection_id,
        endpoint: r.req_s(attr::ENDPOINT)?.to_owned(),
        connected_at: r.req_n(attr::CONNECTED_AT)?,
        last_seen: r.req_n(attr::LAST_SEEN)?,
        status,
        sweep_at: r.opt_n(attr::SWEEP_AT)?,
        previous_status,
        previous_sweep_at,
        previous_connection_id: connection(attr::PREVIOUS_CONNECTION_ID)?,
        previous_endpoint: r
            .opt_s(attr::PREVIOUS_ENDPOINT)?
            .filter(|e| *e != NO_PREVIOUS_STRING)
            .map(str::to_owned),
        previous_last_seen: r
            .opt_n::<EpochMillis>(attr::PREVIOUS_LAST_SEEN)?
            .filter(|at| *at != NO_PREVIOUS_SWEEP_AT),
        live_connection_id: connection(attr::LIVE_CONNECTION_ID)?,
        live_from: seq(attr::LIVE_FROM)?,
        acked_seq: seq(attr::ACKED_SEQ)?,
        pending: r.pending()?,
        last_request: r
            .opt_s(attr::LAST_PLACEMENT_ID)?
            .map(|raw| r.request_id(attr::LAST_PLACEMENT_ID, raw))
            .transpose()?,
        game_session: r.game_session()?,
        ended_game_session: r.opt_s(attr::ENDED_GAME_SESSION_ARN)?.map(str::to_owned),
        party_id: r.party_id()?,
        placement_latencies: r.latencies()?,
        matchmaking_attributes: r.matchmaking_attributes()?,
    }))
}

/// Like [`record_from_item`], for an item that must hold a connection.
pub(crate) fn required_record(item: &Item) -> Result<PlayerRecord, StoreError> {
    record_from_item(item)?.ok_or_else(|| {
        Reader::new(item).corrupt(format!(
            "{} and {} are missing",
            attr::CONNECTION_ID,
            attr::STATUS
        ))
    })
}

/// A tracked player as the sweeper reads it (`playerId` and `sweepAt`; `None` when the
/// item has no `sweepAt` any more, i.e. it was swept meanwhile).
pub(crate) fn sweep_deadline(item: &Item) -> Result<SweepDeadline, StoreError> {
    let r = Reader::new(item);
    let online = match r.opt_s(attr::STATUS)? {
        Some(raw) => r.status(attr::STATUS, raw)? == PresenceStatus::Online,
        None => false,
    };
    let online_connection = match (online, r.opt_s(attr::CONNECTION_ID)?) {
        (true, Some(raw)) => Some(OnlineConnection {
            connection_id: ConnectionId::parse(raw)
                .map_err(|e| r.corrupt(format!("{}: {e}", attr::CONNECTION_ID)))?,
            endpoint: r.req_s(attr::ENDPOINT)?.to_owned(),
        }),
        _ => None,
    };
    Ok(SweepDeadline {
        player_id: r.player_id()?,
        sweep_at: r.opt_n(attr::SWEEP_AT)?,
        online_connection,
    })
}

/// What the sweeper reads of a tracked player.
pub(crate) struct SweepDeadline {
    pub player_id: PlayerId,
    pub sweep_at: Option<EpochMillis>,
    pub online_connection: Option<OnlineConnection>,
}

/// The player an index key names.
pub(crate) fn player_of_key(item: &Item) -> Result<PlayerId, StoreError> {
    Reader::new(item).player_id()
}

/// The `ExclusiveStartKey` that continues a `BySweepShard` query after `after`.
pub(crate) fn sweep_index_key(shard: u32, after: &PlayerId) -> Item {
    HashMap::from([
        (attr::PLAYER_ID.to_owned(), s(after.as_str())),
        (attr::SWEEP_SHARD.to_owned(), n(shard)),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use contracts::fixtures::pending;

    fn online_item() -> Item {
        HashMap::from([
            (attr::PLAYER_ID.to_owned(), s("alice")),
            (attr::CONNECTION_ID.to_owned(), s("c1")),
            (attr::ENDPOINT.to_owned(), s("https://api.example/prod")),
            (attr::CONNECTED_AT.to_owned(), n(10)),
            (attr::LAST_SEEN.to_owned(), n(11)),
            (attr::STATUS.to_owned(), s("online")),
            (attr::SWEEP_SHARD.to_owned(), n(2)),
            (attr::SWEEP_AT.to_owned(), n(100)),
            (attr::PREVIOUS_STATUS.to_owned(), s("disconnected")),
            (attr::PREVIOUS_SWEEP_AT.to_owned(), n(40)),
            (attr::EXPIRE_AT.to_owned(), n(1_000)),
        ])
    }

    #[test]
    fn an_online_item_maps_every_field() {
        let record = required_record(&online_item()).unwrap();
        assert_eq!(
            record,
            PlayerRecord {
                player_id: PlayerId::parse("alice").unwrap(),
                connection_id: ConnectionId::parse("c1").unwrap(),
                endpoint: "https://api.example/prod".into(),
                connected_at: 10,
                last_seen: 11,
                status: PresenceStatus::Online,
                sweep_at: Some(100),
                previous_status: Some(PresenceStatus::Disconnected),
                previous_sweep_at: Some(40),
                previous_connection_id: None,
                previous_endpoint: None,
                previous_last_seen: None,
                live_connection_id: None,
                live_from: None,
                acked_seq: None,
                pending: None,
                last_request: None,
                game_session: None,
                ended_game_session: None,
                party_id: None,
                placement_latencies: Vec::new(),
                matchmaking_attributes: Default::default(),
            }
        );
    }

    #[test]
    fn a_party_link_and_latencies_map_back_and_a_bad_one_is_corrupt() {
        let mut item = online_item();
        item.insert(attr::PARTY_ID.into(), s("party-1"));
        item.insert(
            attr::PLACEMENT_LATENCIES.into(),
            latencies_value(&[("us-east-1".into(), 40), ("eu-west-1".into(), 90)]),
        );
        let record = required_record(&item).unwrap();
        assert_eq!(record.party_id, Some(PartyId::parse("party-1").unwrap()));
        assert_eq!(
            record.placement_latencies,
            vec![("eu-west-1".into(), 90), ("us-east-1".into(), 40)]
        );
        assert_eq!(party_of(&item).unwrap(), record.party_id);
        item.insert(attr::PARTY_ID.into(), s("a b"));
        assert!(matches!(
            record_from_item(&item),
            Err(StoreError::Corrupt { reason, .. }) if reason.starts_with("partyId: party id")
        ));
    }

    #[test]
    fn game_state_maps_from_a_set_or_a_string_and_a_game_session_map() {
        let session = GameSession {
            game_session_arn: "arn:gs".into(),
            ip_address: "10.0.0.1".into(),
            dns_name: "host.example".into(),
            port: 7777,
            region: "us-east-1".into(),
            player_session_id: "psess-1".into(),
            connection: None,
            connection_unavailable: false,
        };
        let mut item = online_item();
        item.insert(
            attr::PENDING_PLACEMENT_ID.into(),
            pending_value(&pending("p-2")),
        );
        item.insert(attr::LAST_PLACEMENT_ID.into(), s("p-2"));
        item.insert(attr::GAME_SESSION.into(), game_session_value(&session));
        let record = required_record(&item).unwrap();
        assert_eq!(record.pending, Some(pending("p-2")));
        assert_eq!(record.last_request, Some(pending("p-2")));
        assert_eq!(record.game_session, Some(session));
        assert_eq!(pending_of(&item).unwrap(), Some(pending("p-2")));

        item.insert(attr::PENDING_PLACEMENT_ID.into(), s("p-1"));
        let record = required_record(&item).unwrap();
        assert_eq!(record.pending, Some(pending("p-1")));
    }

    #[test]
    fn given_a_seat_with_connection_details_or_unavailable_when_stored_then_it_reads_back_the_same()
    {
        let seat = GameSession {
            game_session_arn: "arn:gs".into(),
            ip_address: "10.0.0.1".into(),
            dns_name: "host.example".into(),
            port: 7777,
            region: "us-east-1".into(),
            player_session_id: "psess-1".into(),
            connection: None,
            connection_unavailable: false,
        };
        let relayed = seat
            .clone()
            .with_connection(shared::domain::ConnectionDetails {
                endpoints: vec![shared::domain::ConnectionEndpoint {
                    ip_address: "198.51.100.7".into(),
                    port: 4100,
                }],
                player_gateway_token: Some("pgt-1".into()),
                expires_at: Some(1_800_000),
            });
        for seat in [relayed, seat.with_connection_unavailable()] {
            let mut item = online_item();
            item.insert(attr::GAME_SESSION.into(), game_session_value(&seat));
            assert_eq!(required_record(&item).unwrap().game_session, Some(seat));
        }
    }

    #[test]
    fn a_corrupt_game_session_names_the_map_attribute() {
        let mut item = online_item();
        let AttributeValue::M(mut map) = game_session_value(&GameSession {
            game_session_arn: "arn:gs".into(),
            ip_address: "10.0.0.1".into(),
            dns_name: "host.example".into(),
            port: 7777,
            region: "us-east-1".into(),
            player_session_id: "psess-1".into(),
            connection: None,
            connection_unavailable: false,
        }) else {
            unreachable!()
        };
        map.insert(attr::PORT.into(), n(70_000));
        item.insert(attr::GAME_SESSION.into(), AttributeValue::M(map));
        match record_from_item(&item) {
            Err(StoreError::Corrupt { key, reason }) => {
                assert_eq!(key, "playerId=alice");
                assert!(reason.starts_with("gameSession.port"), "{reason}");
            }
            other => panic!("{other:?}"),
        }
        item.insert(attr::PENDING_PLACEMENT_ID.into(), n(1));
        assert!(matches!(
            record_from_item(&item),
            Err(StoreError::Corrupt { .. })
        ));
    }

    #[test]
    fn a_stored_placement_id_that_is_not_one_is_corrupt_naming_the_key_and_the_attribute() {
        for (name, value) in [
            (attr::PENDING_PLACEMENT_ID, s("p/1")),
            (
                attr::PENDING_PLACEMENT_ID,
                AttributeValue::Ss(vec!["x".repeat(49)]),
            ),
            (attr::LAST_PLACEMENT_ID, s("")),
        ] {
            let mut item = online_item();
            item.insert(name.into(), value.clone());
            match record_from_item(&item) {
                Err(StoreError::Corrupt { key, reason }) => {
                    assert_eq!(key, "playerId=alice");
                    assert!(
                        reason.starts_with(&format!("{name}: placement id")),
                        "{reason}"
                    );
                }
                other => panic!("{name} = {value:?}: {other:?}"),
            }
        }
        let mut item = online_item();
        item.insert(attr::PENDING_PLACEMENT_ID.into(), s("p/1"));
        assert!(matches!(
            pending_of(&item),
            Err(StoreError::Corrupt { reason, .. }) if reason.contains("'/' at position 1")
        ));
    }

    #[test]
    fn the_no_previous_markers_map_back_to_none() {
        let mut item = online_item();
        item.insert(attr::PREVIOUS_STATUS.into(), s(NO_PREVIOUS_STATUS));
        item.insert(attr::PREVIOUS_SWEEP_AT.into(), n(NO_PREVIOUS_SWEEP_AT));
        item.remove(attr::SWEEP_AT);
        let record = required_record(&item).unwrap();
        assert_eq!(record.previous_status, None);
        assert_eq!(record.previous_sweep_at, None);
        assert_eq!(record.sweep_at, None);
    }

    #[test]
    fn an_item_with_game_state_only_holds_no_connection() {
        let item = HashMap::from([
            (attr::PLAYER_ID.to_owned(), s("alice")),
            ("pendingPlacementId".to_owned(), s("p-1")),
        ]);
        assert_eq!(record_from_item(&item).unwrap(), None);
        assert!(matches!(
            required_record(&item),
            Err(StoreError::Corrupt { .. })
        ));
    }

    #[test]
    fn a_corrupt_item_names_the_key_and_the_attribute() {
        for (name, value) in [
            (attr::STATUS, s("sleeping")),
            (attr::CONNECTED_AT, s("yesterday")),
            (attr::LAST_SEEN, n("1e400")),
            (attr::CONNECTION_ID, s("a/b")),
        ] {
            let mut item = online_item();
            item.insert(name.into(), value);
            match record_from_item(&item) {
                Err(StoreError::Corrupt { key, reason }) => {
                    assert_eq!(key, "playerId=alice");
                    assert!(reason.contains(name), "{reason}");
                }
                other => panic!("{name}: {other:?}"),
            }
        }
        let mut item = online_item();
        item.remove(attr::ENDPOINT);
        assert!(matches!(
            record_from_item(&item),
            Err(StoreError::Corrupt { reason, .. }) if reason == "endpoint is missing"
        ));
    }

    #[test]
    fn sweep_index_keys_round_trip() {
        let after = PlayerId::parse("bob").unwrap();
        assert_eq!(player_of_key(&sweep_index_key(3, &after)).unwrap(), after);
        let mut item = sweep_index_key(3, &after);
        let deadline = sweep_deadline(&item).unwrap();
        assert_eq!(
            (deadline.player_id, deadline.sweep_at),
            (after.clone(), None)
        );
        item.insert(attr::SWEEP_AT.to_owned(), n(123));
        assert_eq!(sweep_deadline(&item).unwrap().sweep_at, Some(123));
    }

    #[test]
    fn given_a_tracked_item_when_the_sweeper_reads_it_then_only_an_online_one_names_its_socket() {
        let mut item = online_item();
        let deadline = sweep_deadline(&item).unwrap();
        let socket = deadline.online_connection.unwrap();
        assert_eq!(
            Some(&s(socket.connection_id.as_str())),
            item.get(attr::CONNECTION_ID)
        );
        assert_eq!(Some(&s(socket.endpoint)), item.get(attr::ENDPOINT));
        item.insert(attr::STATUS.to_owned(), s("disconnected"));
        assert_eq!(sweep_deadline(&item).unwrap().online_connection, None);
        item.insert(attr::STATUS.to_owned(), s("online"));
        item.remove(attr::ENDPOINT);
        assert!(
            sweep_deadline(&item).is_err(),
            "an online item without endpoint is corrupt"
        );
    }
}
