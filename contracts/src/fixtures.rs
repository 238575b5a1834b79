//! The building blocks tests share: one start time, players and connections by name,
//! a connected player's `$connect` write in one call, and a player's inbox read back.

use serde_json::Value;
use shared::domain::{ConnectionId, EpochMillis, PlacementId, PlayerId};
use shared::messaging::{MessageKind, ReplayFrom, StoredMessage};
use shared::pending::Pending;
use shared::players::NewConnection;
use shared::ports::InboxReader;

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
