//! The Players item (shared/src/ports/players.rs), derived, and its mapping to
//! [`PlayerRecord`]. The item is written piecewise by update expressions (`$connect`,
//! heartbeats, the game state of `player_game_state.rs`, settlements); those take their
//! values from the attribute structs here, and read it whole (GetItem, ALL_OLD images,
//! `BySweepShard` keys) through [`PlayerItem`].

use std::collections::BTreeMap;

use aws_sdk_dynamodb::types::AttributeValue;
use serde::{Deserialize, Serialize};

use super::item::{self, Item, Malformed, Stored, parse};
use shared::activity::Activity;
use shared::domain::{ConnectionId, EpochMillis, GameSession, PlayerId, PresenceStatus, Seq};
use shared::party::PartyId;
use shared::pending::Pending;
use shared::players::{OnlineConnection, PlayerRecord};
use shared::ports::StoreError;

/// A player's item: every attribute but the key is optional, as writers other than
/// `$connect` create the item with game state only.
#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct PlayerItem {
    player_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    connection_id: Option<ConnectionId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    endpoint: Option<String>,
    /// Epoch milliseconds, as every time here but `expireAt`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    connected_at: Option<EpochMillis>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    last_seen: Option<EpochMillis>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    status: Option<PresenceStatus>,
    /// Set while the sweeper tracks the player: the `BySweepShard` index's key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sweep_shard: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sweep_at: Option<EpochMillis>,
    /// What `$connect` replaced ([`NO_PREVIOUS_STATUS`] / [`NO_PREVIOUS_SWEEP_AT`]: nothing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    previous_status: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    previous_sweep_at: Option<EpochMillis>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    previous_connection_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    previous_endpoint: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    previous_last_seen: Option<EpochMillis>,
    /// Written by `resume`'s hand-over: the connection posted to live, and the inbox
    /// head its replay reached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    live_connection_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    live_from: Option<u64>,
    /// The last cursor the client reported (or a cursor-less replay reached).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    acked_seq: Option<u64>,
    /// Epoch seconds (TTL).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    expire_at: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pending_placement_id: Option<PendingAttribute>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    last_placement_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    game_session: Option<SeatAttributes>,
    /// The ARN of the game the backend API reported over for this player (its
    /// `gameSession` was removed by the same write).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    ended_game_session_arn: Option<String>,
    /// The party the player is in (written only inside a party's transactions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    party_id: Option<PartyId>,
    /// Region → milliseconds, from `setPlacementLatencies`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    placement_latencies: BTreeMap<String, u32>,
    /// JSON text: the attributes as the client sent them (FlexMatch's four kinds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    matchmaking_attributes: Option<String>,
    /// JSON text of the player's [`Activity`] (`setActivity`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    activity: Option<String>,
}

impl Stored for PlayerItem {
    const TABLE: &'static str = "Players";
    const KEY: &'static [&'static str] = &[attr::PLAYER_ID];
}

/// `pendingPlacementId`: a string set holding at most one id, so that a settlement can
/// clear it only if it is still that placement with a condition-free
/// `DELETE pendingPlacementId :ids` (a condition on a player item would cancel a whole
/// settlement transaction). A plain string is read too.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
enum PendingAttribute {
    Set(#[serde(with = "serde_dynamo::string_set")] Vec<String>),
    One(String),
}

/// The `gameSession` map: the seat, and where the player connects.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct SeatAttributes {
    game_session_arn: String,
    ip_address: String,
    dns_name: String,
    port: u16,
    region: String,
    player_session_id: String,
    /// Connection details, JSON text as the protocol writes them: kept with the seat
    /// so that `resume` answers with them without asking GameLift again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    connection: Option<String>,
    /// Only when true.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    connection_unavailable: Option<bool>,
}

/// Attribute names the adapters' expressions and the table's key schema use: the
/// struct's field names (a test holds them equal).
pub(crate) mod attr {
    pub const PLAYER_ID: &str = "playerId";
    pub const CONNECTION_ID: &str = "connectionId";
    pub const ENDPOINT: &str = "endpoint";
    pub const CONNECTED_AT: &str = "connectedAt";
    pub const LAST_SEEN: &str = "lastSeen";
    pub const STATUS: &str = "status";
    pub const SWEEP_SHARD: &str = "sweepShard";
    pub const EXPIRE_AT: &str = "expireAt";
    pub const PENDING_PLACEMENT_ID: &str = "pendingPlacementId";
    pub const PARTY_ID: &str = "partyId";
    pub const ACTIVITY: &str = "activity";
}

/// `previousStatus` when the `$connect` write found no earlier status.
pub(crate) const NO_PREVIOUS_STATUS: &str = "none";
/// `previousConnectionId` / `previousEndpoint` when the `$connect` write found none.
const NO_PREVIOUS_STRING: &str = NO_PREVIOUS_STATUS;
/// `previousSweepAt` / `previousLastSeen` when the `$connect` write found none.
pub(crate) const NO_PREVIOUS_SWEEP_AT: EpochMillis = 0;

/// The table key of a player.
pub(crate) fn key(player: &PlayerId) -> Item {
    Item::from([(
        attr::PLAYER_ID.to_owned(),
        AttributeValue::S(player.to_string()),
    )])
}

/// The `pendingPlacementId` value of a pending request.
pub(crate) fn pending_value(pending: &Pending) -> Result<AttributeValue, StoreError> {
    item::to_value(&PendingAttribute::Set(vec![pending.stored().to_owned()]))
}

/// The `matchmakingAttributes` value.
pub(crate) fn attributes_value(attributes: &shared::matchmaking::Attributes) -> AttributeValue {
    // Plain numbers, strings, lists and maps: always serializable.
    AttributeValue::S(serde_json::to_string(attributes).unwrap_or_else(|_| "{}".to_owned()))
}

/// The `activity` value: the activity as JSON text.
pub(crate) fn activity_value(activity: &Activity) -> AttributeValue {
    // Strings and JSON values only: always serializable.
    AttributeValue::S(serde_json::to_string(activity).unwrap_or_default())
}

/// The `placementLatencies` value.
pub(crate) fn latencies_value(latencies: &[(String, u32)]) -> Result<AttributeValue, StoreError> {
    item::to_value(&latencies.iter().cloned().collect::<BTreeMap<_, _>>())
}

/// The `gameSession` value.
pub(crate) fn game_session_value(session: &GameSession) -> Result<AttributeValue, StoreError> {
    item::to_value(&SeatAttributes {
        game_session_arn: session.game_session_arn.clone(),
        ip_address: session.ip_address.clone(),
        dns_name: session.dns_name.clone(),
        port: session.port,
        region: session.region.clone(),
        player_session_id: session.player_session_id.clone(),
        // Strings and numbers only: always serializable.
        connection: session
            .connection
            .as_ref()
            .map(|connection| serde_json::to_string(connection).unwrap_or_default()),
        connection_unavailable: session.connection_unavailable.then_some(true),
    })
}

impl TryFrom<SeatAttributes> for GameSession {
    type Error = Malformed;

    fn try_from(seat: SeatAttributes) -> Result<Self, Malformed> {
        let connection = seat
            .connection
            .map(|raw| parse("gameSession.connection", serde_json::from_str(&raw)))
            .transpose()?;
        Ok(GameSession {
            game_session_arn: seat.game_session_arn,
            ip_address: seat.ip_address,
            dns_name: seat.dns_name,
            port: seat.port,
            region: seat.region,
            player_session_id: seat.player_session_id,
            // A seat stored before connection details existed has neither.
            connection,
            connection_unavailable: seat.connection_unavailable.unwrap_or(false),
        })
    }
}

/// A request id, read into what it names: the one place a stored id is told a ticket
/// or a placement.
fn request(attribute: &str, raw: &str) -> Result<Pending, Malformed> {
    parse(attribute, Pending::from_stored(raw))
}

fn pending(attribute: Option<PendingAttribute>) -> Result<Option<Pending>, Malformed> {
    let name = attr::PENDING_PLACEMENT_ID;
    match attribute {
        None => Ok(None),
        Some(PendingAttribute::One(id)) => request(name, &id).map(Some),
        Some(PendingAttribute::Set(ids)) => match ids.as_slice() {
            [id] => request(name, id).map(Some),
            _ => Err(Malformed::new(name, format!("{ids:?}: not one request id"))),
        },
    }
}

fn status(attribute: &str, raw: &str) -> Result<PresenceStatus, Malformed> {
    PresenceStatus::parse(raw)
        .ok_or_else(|| Malformed::new(attribute, format!("{raw:?}: not a presence status")))
}

fn connection(attribute: &str, raw: &str) -> Result<ConnectionId, Malformed> {
    parse(attribute, ConnectionId::parse(raw))
}

fn required<T>(attribute: &str, value: Option<T>) -> Result<T, Malformed> {
    value.ok_or_else(|| Malformed::new(attribute, "missing"))
}

/// `None` when the item holds no connection at all (neither `connectionId` nor
/// `status`); an item with some connection fields but not all is malformed.
impl TryFrom<PlayerItem> for Option<PlayerRecord> {
    type Error = Malformed;

    fn try_from(item: PlayerItem) -> Result<Self, Malformed> {
        if item.connection_id.is_none() && item.status.is_none() {
            return Ok(None);
        }
        let previous_connection = |name: &str, raw: Option<String>| {
            raw.filter(|raw| raw != NO_PREVIOUS_STRING)
                .map(|raw| connection(name, &raw))
                .transpose()
        };
        let seq =
            |name: &str, raw: Option<u64>| raw.map(|raw| parse(name, Seq::new(raw))).transpose();
        let recorded = |at: Option<EpochMillis>| at.filter(|at| *at != NO_PREVIOUS_SWEEP_AT);
        let mut placement_latencies: Vec<(String, u32)> =
            item.placement_latencies.into_iter().collect();
        placement_latencies.sort();
        Ok(Some(PlayerRecord {
            player_id: parse(attr::PLAYER_ID, PlayerId::parse(&item.player_id))?,
            connection_id: required(attr::CONNECTION_ID, item.connection_id)?,
            endpoint: required(attr::ENDPOINT, item.endpoint)?,
            connected_at: required(attr::CONNECTED_AT, item.connected_at)?,
            last_seen: required(attr::LAST_SEEN, item.last_seen)?,
            status: required(attr::STATUS, item.status)?,
            sweep_at: item.sweep_at,
            previous_status: item
                .previous_status
                .filter(|raw| raw != NO_PREVIOUS_STATUS)
                .map(|raw| status("previousStatus", &raw))
                .transpose()?,
            previous_sweep_at: recorded(item.previous_sweep_at),
            previous_connection_id: previous_connection(
                "previousConnectionId",
                item.previous_connection_id,
            )?,
            previous_endpoint: item.previous_endpoint.filter(|e| e != NO_PREVIOUS_STRING),
            previous_last_seen: recorded(item.previous_last_seen),
            live_connection_id: previous_connection("liveConnectionId", item.live_connection_id)?,
            live_from: seq("liveFrom", item.live_from)?,
            acked_seq: seq("ackedSeq", item.acked_seq)?,
            pending: pending(item.pending_placement_id)?,
            last_request: item
                .last_placement_id
                .map(|raw| request("lastPlacementId", &raw))
                .transpose()?,
            game_session: item.game_session.map(GameSession::try_from).transpose()?,
            ended_game_session: item.ended_game_session_arn,
            party_id: item.party_id,
            placement_latencies,
            matchmaking_attributes: item
                .matchmaking_attributes
                .map(|raw| parse("matchmakingAttributes", serde_json::from_str(&raw)))
                .transpose()?
                .unwrap_or_default(),
            activity: item
                .activity
                .map(|raw| parse(attr::ACTIVITY, serde_json::from_str(&raw)))
                .transpose()?,
        }))
    }
}

/// Maps a Players item to the connection record it holds (`None`: no connection, see
/// the `TryFrom`).
pub(crate) fn record_from_item(stored: &Item) -> Result<Option<PlayerRecord>, StoreError> {
    item::read::<PlayerItem, _>(stored.clone())
}

/// Like [`record_from_item`], for an item that must hold a connection.
pub(crate) fn required_record(stored: &Item) -> Result<PlayerRecord, StoreError> {
    record_from_item(stored)?.ok_or_else(|| {
        item::corrupt::<PlayerItem>(
            item::key_text::<PlayerItem>(stored),
            &Malformed::new("", "connectionId and status are missing"),
        )
    })
}

/// What a failed condition's old image (or a game-state read) tells of a player's
/// reservations.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Reservations {
    #[serde(default)]
    pending_placement_id: Option<PendingAttribute>,
    #[serde(default)]
    party_id: Option<PartyId>,
}

fn reservations<T>(
    stored: &Item,
    read: impl FnOnce(Reservations) -> Result<T, Malformed>,
) -> Result<T, StoreError> {
    item::decode::<Reservations>(stored.clone())
        .and_then(read)
        .map_err(|e| item::corrupt::<PlayerItem>(item::key_text::<PlayerItem>(stored), &e))
}

/// The pending request in an item, e.g. the old image a failed condition returned.
pub(crate) fn pending_of(stored: &Item) -> Result<Option<Pending>, StoreError> {
    reservations(stored, |r| pending(r.pending_placement_id))
}

/// The party id in an item (e.g. the old image a failed condition returned).
pub(crate) fn party_of(stored: &Item) -> Result<Option<PartyId>, StoreError> {
    reservations(stored, |r| Ok(r.party_id))
}

/// What the sweeper reads of a tracked player.
pub(crate) struct SweepDeadline {
    pub player_id: PlayerId,
    /// `None` when the item has no `sweepAt` any more, i.e. it was swept meanwhile.
    pub sweep_at: Option<EpochMillis>,
    pub online_connection: Option<OnlineConnection>,
}

impl TryFrom<PlayerItem> for SweepDeadline {
    type Error = Malformed;

    fn try_from(item: PlayerItem) -> Result<Self, Malformed> {
        let online = item.status == Some(PresenceStatus::Online);
        let online_connection = match (online, item.connection_id) {
            (true, Some(connection_id)) => Some(OnlineConnection {
                connection_id,
                endpoint: required(attr::ENDPOINT, item.endpoint)?,
            }),
            _ => None,
        };
        Ok(SweepDeadline {
            player_id: parse(attr::PLAYER_ID, PlayerId::parse(&item.player_id))?,
            sweep_at: item.sweep_at,
            online_connection,
        })
    }
}

impl TryFrom<PlayerItem> for PlayerId {
    type Error = Malformed;

    fn try_from(item: PlayerItem) -> Result<Self, Malformed> {
        parse(attr::PLAYER_ID, PlayerId::parse(&item.player_id))
    }
}

/// A tracked player as the sweeper reads it (`playerId`, `sweepAt`, and the socket of
/// an online one).
pub(crate) fn sweep_deadline(stored: &Item) -> Result<SweepDeadline, StoreError> {
    item::read::<PlayerItem, _>(stored.clone())
}

/// The player an index key names.
pub(crate) fn player_of_key(stored: &Item) -> Result<PlayerId, StoreError> {
    item::read::<PlayerItem, _>(stored.clone())
}

/// The `ExclusiveStartKey` that continues a `BySweepShard` query after `after`.
pub(crate) fn sweep_index_key(shard: u32, after: &PlayerId) -> Result<Item, StoreError> {
    item::to_item(&PlayerItem {
        player_id: after.to_string(),
        sweep_shard: Some(shard),
        ..PlayerItem::default()
    })
}

#[cfg(test)]
#[path = "player_item_tests.rs"]
mod tests;
