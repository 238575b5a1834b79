//! The building blocks tests share: one start time, players and connections by name,
//! a connected player's `$connect` write in one call, a player's record and inbox read
//! back, a placement's settlement, the malformed `sendMessage` bodies, and a refusal's
//! assertion.

use serde_json::{Value, json};
use shared::domain::{
    ConnectionId, EpochMillis, MessageId, PlacementId, PlacementStatus, PlayerId,
};
use shared::messaging::{MessageKind, NewMessage, ReplayFrom, SYSTEM_SENDER, StoredMessage};
use shared::pending::Pending;
use shared::placement::{PlacedGameSession, SettledPlayer, Settlement};
use shared::players::{NewConnection, PlayerRecord};
use shared::ports::{Connections, InboxReader, PlayerReader};

/// A seat on a game server reached directly: the protocol's fixture, for the crates
/// that reach the protocol through `shared`.
pub use gamelift_sockets_protocol::fixtures::seat;

/// The time tests start at: 2100-01-01, so that items written with it are never in the
/// past for DynamoDB Local's TTL sweeper, which deletes expired items for real.
pub const T0: EpochMillis = 4_102_444_800_000;

/// The heartbeat timeout [`new_connection`] gives a connection (the default setting).
pub const HEARTBEAT_TIMEOUT_MS: EpochMillis = 90_000;

/// A valid player id.
///
/// # Panics
/// When `name` is not a valid player id (a mistake in the test).
pub fn player(name: &str) -> PlayerId {
    PlayerId::parse(name).unwrap_or_else(|e| panic!("{name:?} is not a player id: {e}"))
}

/// A valid connection id.
///
/// # Panics
/// When `raw` is not a valid connection id (a mistake in the test).
pub fn connection(raw: &str) -> ConnectionId {
    ConnectionId::parse(raw).unwrap_or_else(|e| panic!("{raw:?} is not a connection id: {e}"))
}

/// A valid placement id.
///
/// # Panics
/// When `raw` is not a valid placement id (a mistake in the test).
pub fn placement_id(raw: &str) -> PlacementId {
    PlacementId::parse(raw).unwrap_or_else(|e| panic!("{raw:?} is not a placement id: {e}"))
}

/// A pending queue placement of id `raw`.
///
/// # Panics
/// When `raw` is not a valid placement id (a mistake in the test).
pub fn pending(raw: &str) -> Pending {
    Pending::Placement(placement_id(raw))
}

/// `c-<name>`: the connection tests give a player by default.
pub fn connection_of(name: &str) -> ConnectionId {
    connection(&format!("c-{name}"))
}

/// The `$connect` write of `name` on `connection_id` at `at` (API Gateway's `connectedAt`
/// and the handler's clock alike), with the default heartbeat deadline.
pub fn new_connection(name: &str, connection_id: &str, at: EpochMillis) -> NewConnection {
    NewConnection {
        player_id: player(name),
        connection_id: connection(connection_id),
        endpoint: "https://abcdef1234.execute-api.us-east-1.amazonaws.com/Development".into(),
        connected_at: at,
        now: at,
        heartbeat_deadline: at + HEARTBEAT_TIMEOUT_MS,
        sweep_shard: 0,
        expire_at_secs: at / 1000 + shared::domain::PLAYER_RETENTION_SECONDS,
    }
}

/// `name` connected on `connection_id` at `at`: the [`new_connection`] write.
///
/// # Panics
/// When the store fails (the test fails with its error).
pub async fn connected(
    players: &dyn Connections,
    name: &str,
    connection_id: &str,
    at: EpochMillis,
) {
    players
        .connect(&new_connection(name, connection_id, at))
        .await
        .unwrap_or_else(|e| panic!("{name} did not connect: {e}"));
}

/// `name`'s player record as stored now (one strongly consistent read).
///
/// # Panics
/// When the store fails or has no record of `name` (the test fails saying which).
pub async fn player_record(players: &dyn PlayerReader, name: &str) -> PlayerRecord {
    players
        .get(&player(name))
        .await
        .unwrap_or_else(|e| panic!("{name}'s record did not read: {e}"))
        .unwrap_or_else(|| panic!("{name} has no player record"))
}

/// The game session a fulfilled [`settlement`] creates.
pub fn placed_game_session() -> PlacedGameSession {
    PlacedGameSession {
        game_session_arn: "arn:aws:gamelift:eu-west-1::gamesession/fleet-1/gs-1".into(),
        ip_address: "10.0.0.1".into(),
        dns_name: "ec2-10-0-0-1.eu-west-1.compute.amazonaws.com".into(),
        port: 7777,
        region: "eu-west-1".into(),
    }
}

/// The `placement` frame telling `recipient` that placement `id` ended with `status`,
/// appended at `at` (kept a day).
pub fn placement_message(
    id: &str,
    recipient: &str,
    status: PlacementStatus,
    at: EpochMillis,
) -> NewMessage {
    system_message(
        MessageKind::Placement,
        MessageId::deterministic(&["placement", id, recipient]),
        recipient,
        format!(r#"{{"type":"placement","placementId":"{id}","status":"{status}"}}"#),
        at,
    )
}

/// A message of `kind` the service writes itself (`SYSTEM_SENDER`) to `recipient`, at
/// `at`, kept a day.
pub fn system_message(
    kind: MessageKind,
    id: MessageId,
    recipient: &str,
    payload: String,
    at: EpochMillis,
) -> NewMessage {
    NewMessage::new(
        kind,
        id,
        player(recipient),
        SYSTEM_SENDER,
        payload,
        at,
        86_400,
    )
}

/// Placement `id` ended with `status` at `at`, as `on-placement-event` settles it: each
/// of `players` told by a [`placement_message`] and, when FULFILLED, seated (player
/// session `psess-<name>`) in [`placed_game_session`].
pub fn settlement(
    id: &str,
    status: PlacementStatus,
    players: &[&str],
    at: EpochMillis,
) -> Settlement {
    let fulfilled = status == PlacementStatus::Fulfilled;
    Settlement {
        placement_id: placement_id(id),
        status,
        game_session: fulfilled.then(placed_game_session),
        players: players
            .iter()
            .map(|name| SettledPlayer {
                player_id: player(name),
                player_session_id: fulfilled.then(|| format!("psess-{name}")),
                connection: Default::default(),
                message: placement_message(id, name, status, at),
            })
            .collect(),
        at,
    }
}

/// Everything in `name`'s inbox that has not expired at `now`, oldest first.
///
/// # Panics
/// When the store fails (the test fails with its error).
pub async fn inbox(reader: &dyn InboxReader, name: &str, now: EpochMillis) -> Vec<StoredMessage> {
    reader
        .read(&player(name), &ReplayFrom::EVERYTHING, now)
        .await
        .unwrap_or_else(|e| panic!("{name}'s inbox did not read: {e}"))
        .messages
}

/// The messages of `kind` in `name`'s inbox at `now`, oldest first, each as the frame a
/// client receives (its `seq` included).
///
/// # Panics
/// When the store fails, or a frame is not JSON.
pub async fn frames(
    reader: &dyn InboxReader,
    name: &str,
    kind: MessageKind,
    now: EpochMillis,
) -> Vec<Value> {
    inbox(reader, name, now)
        .await
        .into_iter()
        .filter(|m| m.kind == kind)
        .map(|m| serde_json::from_str(&m.frame()).unwrap_or_else(|e| panic!("{e}: {m:?}")))
        .collect()
}

/// `sendMessage` bodies refused as malformed (`bad_request`), each with what the error
/// says: the cases the handler and the socket refuse alike.
pub fn malformed_send_message_bodies() -> Vec<(Value, &'static str)> {
    let too_many: Vec<String> = (0..101).map(|i| format!("p{i}")).collect();
    vec![
        (json!({"message": 1}), "`playerIds` is required"),
        (
            json!({"playerIds": "bob", "message": 1}),
            "`playerIds` must be an array",
        ),
        (
            json!({"playerIds": [], "message": 1}),
            "`playerIds` must name at least one",
        ),
        (
            json!({"playerIds": too_many, "message": 1}),
            "`playerIds` names 101",
        ),
        (
            json!({"playerIds": ["bob", "no/slash"], "message": 1}),
            "`playerIds[1]`",
        ),
        (
            json!({"playerIds": ["bob", 7], "message": 1}),
            "`playerIds[1]`",
        ),
        (json!({"playerIds": ["bob"]}), "`message` is required"),
    ]
}

/// Asserts that `frame` is an error of `code` whose message says `says`.
///
/// # Panics
/// When it is not (the panic shows the frame).
#[track_caller]
pub fn assert_refused(frame: &Value, code: &str, says: &str) {
    assert_eq!(frame["code"], code, "{frame}");
    let message = frame["message"].as_str().unwrap_or_default();
    assert!(message.contains(says), "not saying {says:?}: {frame}");
}
