//! The placement ports on the DynamoDB Placements table (one round trip per call), and
//! [`PlacementOutcomes`] across the Placements, Players and Messages tables: a
//! settlement is ONE `TransactWriteItems` (for up to [`PLAYERS_PER_TRANSACTION`] players).
//!
//! The transaction holds, for a placement with P players, 1 + 2P writes (and one more
//! per player whose inbox starts a new epoch):
//! - the placement: status (and game session), conditional on `status = PENDING`: the
//!   only condition in the transaction, so that a duplicate or out-of-order event
//!   cancels the whole of it and writes nothing;
//! - per player, a condition-free update: `DELETE pendingPlacementId :this` (the pending
//!   id is a one-element string set: this removes it only if it is still this placement,
//!   without a condition that could cancel the transaction) and, when FULFILLED,
//!   `SET gameSession`;
//! - per player, their `placement` message appended to their inbox: a Put at the inbox's
//!   next seq, conditional on that seq being free (read just before; see `inbox.rs`).
//!   When another writer takes the seq first, the transaction is cancelled by that
//!   condition alone and is retried with the inboxes read again.
//!
//! A transaction takes at most 100 writes, so P ≤ 33 per transaction. Larger placements
//! (GameLift places up to 200 players) are settled in chunks of 33, each its own
//! transaction; the placement item counts them (`settledChunks`) and every later chunk
//! is conditional on the count before it, so an event retried after a partial
//! settlement resumes at the first missing chunk and a duplicate writes nothing.

use std::collections::{BTreeMap, HashMap};

use async_trait::async_trait;
use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::error::BuildError;
use aws_sdk_dynamodb::types::{
    AttributeValue, ReturnValuesOnConditionCheckFailure, TransactWriteItem, Update,
};

use super::error::{Failure, applied, classify, store_error};
use super::inbox::{self, Slot};
use super::item::{n, s};
use super::message_store::{Transacted, transact};
use super::placement_item::{
    attr, game_session_attributes, key, placement_from_item, placement_to_item,
    player_sessions_value, settlement_progress,
};
use super::player_item::{game_session_value, pending_value};
use crate::calls::{AwsCall, Calls};
use shared::domain::{
    EpochMillis, PLAYER_RETENTION_SECONDS, PlacementId, PlacementStatus, PlayerId,
};
use shared::pending::Pending;
use shared::placement::{PlacementRecord, SettledPlayer, Settlement};
use shared::ports::StoreError;
use shared::ports::{PlacementOutcomes, PlacementReader, PlacementRecorder};

/// DynamoDB's limit of 100 writes per transaction: the placement + at most 3 per player
/// (their item, their inbox's epoch item, their message).
pub const PLAYERS_PER_TRANSACTION: usize = 33;

const PENDING_CONDITION: &str = "#status = :pending";
const MARK_FAILED_UPDATE: &str = "SET #status = :failed, updatedAt = :at";

table_store! {
    /// The Placements table in DynamoDB.
    DynamoPlacementStore
}

#[async_trait]
impl PlacementReader for DynamoPlacementStore {
    async fn get(&self, placement_id: &PlacementId) -> Result<Option<PlacementRecord>, StoreError> {
        read_consistent(&self.client, &self.table, key(placement_id.as_str()))
            .await?
            .as_ref()
            .map(placement_from_item)
            .transpose()
    }
}

impl Calls<dyn PlacementReader> for DynamoPlacementStore {
    fn calls(&self) -> Vec<AwsCall> {
        AwsCall::on_table(&self.table, &["GetItem"])
    }
}

#[async_trait]
impl PlacementRecorder for DynamoPlacementStore {
    async fn create(&self, placement: &PlacementRecord) -> Result<(), StoreError> {
        let item = placement_to_item(placement)?;
        put_new(
            &self.client,
            &self.table,
            item,
            "placement",
            &placement.placement_id,
        )
        .await
    }

    async fn mark_failed(
        &self,
        placement_id: &PlacementId,
        at: EpochMillis,
    ) -> Result<bool, StoreError> {
        let result = self
            .client
            .update_item()
            .table_name(&self.table)
            .set_key(Some(key(placement_id.as_str())))
            .update_expression(MARK_FAILED_UPDATE)
            .condition_expression(PENDING_CONDITION)
            .expression_attribute_names("#status", attr::STATUS)
            .expression_attribute_values(":pending", s(PlacementStatus::Pending.as_str()))
            .expression_attribute_values(":failed", s(PlacementStatus::Failed.as_str()))
            .expression_attribute_values(":at", n(at))
            .send()
            .await;
        applied(result)
    }
}

impl Calls<dyn PlacementRecorder> for DynamoPlacementStore {
    fn calls(&self) -> Vec<AwsCall> {
        AwsCall::on_table(&self.table, &["PutItem", "UpdateItem"])
    }
}

table_store! {
    /// Settlements across the three tables, each one transaction per 49 players.
    DynamoPlacementOutcomes {
        placements_table,
        players_table,
        messages_table,
    }
}

/// How one chunk's transaction went.
#[derive(Debug, PartialEq, Eq)]
enum Attempt {
    Committed,
    /// The placement's condition failed; what the item held then.
    Refused {
        status: Option<PlacementStatus>,
        settled_chunks: u64,
    },
}

impl DynamoPlacementOutcomes {
    /// The placement's update for chunk `chunk` (0-based) of a settlement.
    fn placement_update(
        &self,
        settlement: &Settlement,
        chunk: usize,
    ) -> Result<Update, StoreError> {
        let mut names = HashMap::from([("#status".to_owned(), attr::STATUS.to_owned())]);
        let mut values = HashMap::from([
            (":final".to_owned(), s(settlement.status.as_str())),
            (":chunks".to_owned(), n(chunk + 1)),
        ]);
        let (update, condition) = if chunk == 0 {
            let mut sets = vec![
                "#status = :final".to_owned(),
                "updatedAt = :at".to_owned(),
                "settledChunks = :chunks".to_owned(),
            ];
            values.insert(":pending".into(), s(PlacementStatus::Pending.as_str()));
            values.insert(":at".into(), n(settlement.at));
            if let Some(session) = &settlement.game_session {
                for (name, value) in game_session_attributes(session)? {
                    sets.push(format!("#{name} = :{name}"));
                    names.insert(format!("#{name}"), name.clone());
                    values.insert(format!(":{name}"), value);
                }
                let sessions: BTreeMap<PlayerId, String> = settlement
                    .players
                    .iter()
                    .filter_map(|p| Some((p.player_id.clone(), p.player_session_id.clone()?)))
                    .collect();
                sets.push(format!("{} = :playerSessions", attr::PLAYER_SESSIONS));
                values.insert(":playerSessions".into(), player_sessions_value(&sessions)?);
            }
            (
                format!("SET {}", sets.join(", ")),
                PENDING_CONDITION.to_owned(),
            )
        } else {
            values.insert(":previous".into(), n(chunk));
            (
                "SET settledChunks = :chunks".to_owned(),
                "#status = :final AND settledChunks = :previous".to_owned(),
            )
        };
        Update::builder()
            .table_name(&self.placements_table)
            .set_key(Some(key(settlement.placement_id.as_str())))
            .update_expression(update)
            .condition_expression(condition)
            .set_expression_attribute_names(Some(names))
            .set_expression_attribute_values(Some(values))
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .build()
            .map_err(build_error)
    }

    /// A player's condition-free update: the pending id removed if it is this
    /// placement's, and the seat stored when FULFILLED. A player placed by someone else
    /// (a matchmaker's group placement) may have no item yet: the one created here gets
    /// the players' retention, so that it expires like any other; an existing item keeps
    /// its own.
    fn player_update(
        &self,
        settlement: &Settlement,
        player: &SettledPlayer,
    ) -> Result<Update, StoreError> {
        let mut values = HashMap::from([
            (
                ":placement".to_owned(),
                pending_value(&Pending::Placement(settlement.placement_id.clone()))?,
            ),
            (
                ":expireAt".to_owned(),
                n(settlement.at / 1000 + PLAYER_RETENTION_SECONDS),
            ),
        ]);
        let update = match settlement.seat_of(player) {
            Some(seat) => {
                values.insert(":gameSession".into(), game_session_value(&seat)?);
                "DELETE pendingPlacementId :placement \
                 SET gameSession = :gameSession, expireAt = if_not_exists(expireAt, :expireAt)"
            }
            None => {
                "DELETE pendingPlacementId :placement \
                 SET expireAt = if_not_exists(expireAt, :expireAt)"
            }
        };
        Update::builder()
            .table_name(&self.players_table)
            .key("playerId", s(player.player_id.as_str()))
            .update_expression(update)
            .set_expression_attribute_values(Some(values))
            .build()
            .map_err(build_error)
    }

    /// One transaction: chunk `chunk` of the settlement, retried (with each inbox read
    /// again) when only an inbox moved under it.
    async fn transact(
        &self,
        settlement: &Settlement,
        chunk: usize,
        players: &[SettledPlayer],
    ) -> Result<Attempt, StoreError> {
        let mut attempt = 0;
        loop {
            attempt += 1;
            let tops =
                futures_util::future::try_join_all(players.iter().map(|player| {
                    inbox::top(&self.client, &self.messages_table, &player.player_id)
                }))
                .await?;
            let mut items = Vec::with_capacity(1 + 3 * players.len());
            items.push(
                TransactWriteItem::builder()
                    .update(self.placement_update(settlement, chunk)?)
                    .build(),
            );
            for (player, top) in players.iter().zip(&tops) {
                items.push(
                    TransactWriteItem::builder()
                        .update(self.player_update(settlement, player)?)
                        .build(),
                );
                let slot = Slot::of(top, &player.message);
                items.extend(inbox::writes(&self.messages_table, &player.message, slot)?);
            }
            let reasons = match transact(&self.client, items).await? {
                Transacted::Committed => return Ok(Attempt::Committed),
                Transacted::ConditionFailed(reasons) => Some(reasons),
                Transacted::Conflict => None,
            };
            if let Some(Some(placement)) = reasons.as_ref().and_then(|r| r.first()) {
                let (status, settled_chunks) = placement
                    .item
                    .as_ref()
                    .map_or((None, 0), settlement_progress);
                return Ok(Attempt::Refused {
                    status,
                    settled_chunks,
                });
            }
            // Another writer took an inbox seq first, or another transaction was writing
            // one of the items: read the inboxes again.
            if attempt >= inbox::APPEND_ATTEMPTS {
                return Err(StoreError::Unavailable(
                    format!(
                        "settling placement {}: inboxes still contended after {attempt} attempts",
                        settlement.placement_id
                    )
                    .into(),
                ));
            }
            tokio::time::sleep(inbox::backoff(attempt)).await;
        }
    }
}

#[async_trait]
impl PlacementOutcomes for DynamoPlacementOutcomes {
    async fn settle(&self, settlement: &Settlement) -> Result<bool, StoreError> {
        let chunks: Vec<&[SettledPlayer]> = if settlement.players.is_empty() {
            vec![&[]]
        } else {
            settlement.players.chunks(PLAYERS_PER_TRANSACTION).collect()
        };
        let mut applied = false;
        let mut next = 0;
        while let Some(players) = chunks.get(next) {
            match self.transact(settlement, next, players).await? {
                Attempt::Committed => {
                    applied = true;
                    next += 1;
                }
                // This outcome, partly settled by an earlier attempt: resume after it.
                Attempt::Refused {
                    status: Some(status),
                    settled_chunks,
                } if status == settlement.status && settled_chunks > next as u64 => {
                    next = usize::try_from(settled_chunks).unwrap_or(usize::MAX);
                }
                // Another outcome, or this one settled whole already: nothing to do.
                Attempt::Refused { .. } => break,
            }
        }
        Ok(applied)
    }
}

impl Calls<dyn PlacementOutcomes> for DynamoPlacementOutcomes {
    /// One transaction: the placement, each player's state, each player's message
    /// (after the inboxes' heads are read).
    fn calls(&self) -> Vec<AwsCall> {
        let mut calls = AwsCall::on_table(&self.placements_table, &["UpdateItem"]);
        calls.extend(AwsCall::on_table(&self.players_table, &["UpdateItem"]));
        calls.extend(inbox::append_calls(&self.messages_table));
        calls
    }
}

fn build_error(err: BuildError) -> StoreError {
    StoreError::Other(Box::new(err))
}

/// Puts `item` (a placement or a ticket, keyed by `placementId`) only if its key is new:
/// ids are never reused, so an existing item is an error naming the `kind` and its `id`.
pub(super) async fn put_new(
    client: &Client,
    table: &str,
    item: HashMap<String, AttributeValue>,
    kind: &str,
    id: &(dyn std::fmt::Display + Sync),
) -> Result<(), StoreError> {
    let result = client
        .put_item()
        .table_name(table)
        .set_item(Some(item))
        .condition_expression("attribute_not_exists(placementId)")
        .send()
        .await;
    match result {
        Ok(_) => Ok(()),
        Err(err) => match classify(err) {
            Failure::ConditionFailed => Err(StoreError::Other(
                format!("{kind} {id} already exists: {kind} ids are never reused").into(),
            )),
            Failure::Store(err) => Err(err),
        },
    }
}

/// The item at `key` of the Placements table, read strongly consistent.
pub(super) async fn read_consistent(
    client: &Client,
    table: &str,
    key: HashMap<String, AttributeValue>,
) -> Result<Option<HashMap<String, AttributeValue>>, StoreError> {
    let output = client
        .get_item()
        .table_name(table)
        .set_key(Some(key))
        .consistent_read(true)
        .send()
        .await
        .map_err(store_error)?;
    Ok(output.item)
}
