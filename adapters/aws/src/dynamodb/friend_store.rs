//! The Friends ports on the DynamoDB Friends table (shared/src/ports/friends.rs): reads
//! are one GetItem, one BatchGetItem per 100 keys or one Query per page; a change is one
//! TransactWriteItems, with its pushes' inbox appends (each recipient's inbox head read
//! first, at once), whose conditions settle every race.

use std::collections::HashSet;

use async_trait::async_trait;
use aws_sdk_dynamodb::types::{ConditionCheck, Delete, Put, TransactWriteItem, Update};
use futures_util::future::try_join_all;

use super::batch::{BATCH_GET_LIMIT, get_batch};
use super::error::store_error;
use super::friend_item::{
    COUNT_ID, attr, count_key, key, other_from_item, relation_from_item, relation_item,
};
use super::inbox::{self, APPEND_ATTEMPTS, Slot};
use super::item::{Item, n, query_limit, s};
use super::message_store::{Transacted, transact};
use crate::calls::{AwsCall, Calls};
use shared::domain::PlayerId;
use shared::friends::{
    FriendCommit, FriendCommitted, FriendState, MAX_FRIENDS, Relation, RelationPage, RelationQuery,
    SideWrite,
};
use shared::ports::StoreError;
use shared::ports::{Blocks, FriendCommits, FriendReader};

const PAGE_KEY_CONDITION: &str = "playerId = :player AND otherId > :after";
const STATE_FILTER: &str = "#state = :state";
/// A side is as read: absent, or in the state read.
const ABSENT: &str = "attribute_not_exists(playerId)";
const IN_STATE: &str = "#state = :expected";
/// A count that gains a friend stays within `MAX_FRIENDS`.
const COUNT_UP: &str = "ADD #friends :delta";
const WITHIN_MAX: &str = "attribute_not_exists(#friends) OR #friends < :max";

table_store! {
    /// The Friends table in DynamoDB.
    DynamoFriendStore {
        table,
        /// The Messages table, where a change's pushes are appended.
        messages_table;
        /// `Limit` of each Query of [`FriendReader::friends`]; `None`: 1 MB pages.
        page_limit: Option<i32> = None,
    }
}

impl DynamoFriendStore {
    /// Reads a player's friends `limit` items per Query (tests: paging without
    /// thousands of items).
    pub fn with_page_limit(mut self, limit: u32) -> Self {
        self.page_limit = Some(query_limit(limit));
        self
    }

    pub fn table(&self) -> &str {
        &self.table
    }

    /// One Query page of `player`'s sides after `after` (the count item when none).
    async fn query(
        &self,
        player: &PlayerId,
        state: Option<FriendState>,
        after: Option<&PlayerId>,
        limit: Option<i32>,
        projection: Option<&str>,
    ) -> Result<(Vec<Item>, Option<Item>), StoreError> {
        let mut query = self
            .client
            .query()
            .table_name(&self.table)
            .key_condition_expression(PAGE_KEY_CONDITION)
            .expression_attribute_values(":player", s(player.as_str()))
            .expression_attribute_values(":after", s(after.map_or(COUNT_ID, PlayerId::as_str)))
            .consistent_read(true)
            .set_limit(limit)
            .set_projection_expression(projection.map(str::to_owned));
        if let Some(state) = state {
            query = query
                .filter_expression(STATE_FILTER)
                .expression_attribute_names("#state", attr::STATE)
                .expression_attribute_values(":state", s(state.as_str()));
        }
        let output = query.send().await.map_err(store_error)?;
        let last = output.last_evaluated_key.filter(|last| !last.is_empty());
        Ok((output.items.unwrap_or_default(), last))
    }
}

#[async_trait]
impl FriendReader for DynamoFriendStore {
    async fn relation(
        &self,
        player: &PlayerId,
        other: &PlayerId,
    ) -> Result<Option<Relation>, StoreError> {
        let output = self
            .client
            .get_item()
            .table_name(&self.table)
            .set_key(Some(key(player, other)?))
            .consistent_read(true)
            .send()
            .await
            .map_err(store_error)?;
        output.item.map(relation_from_item).transpose()
    }

    async fn pair(
        &self,
        a: &PlayerId,
        b: &PlayerId,
    ) -> Result<(Option<Relation>, Option<Relation>), StoreError> {
        let items = get_batch(
            &self.client,
            &self.table,
            vec![key(a, b)?, key(b, a)?],
            true,
            None,
        )
        .await?;
        let (mut of_a, mut of_b) = (None, None);
        for item in items {
            let relation = relation_from_item(item)?;
            if relation.player == *a {
                of_a = Some(relation);
            } else {
                of_b = Some(relation);
            }
        }
        Ok((of_a, of_b))
    }

    async fn page(&self, query: RelationQuery<'_>) -> Result<RelationPage, StoreError> {
        let player = query.player;
        let limit = Some(query_limit(query.limit));
        let (items, last) = self
            .query(player, query.state, query.after, limit, None)
            .await?;
        let next = last
            .map(|last| other_from_item(player, &last))
            .transpose()?;
        Ok(RelationPage {
            relations: items
                .into_iter()
                .map(relation_from_item)
                .collect::<Result<_, _>>()?,
            next,
        })
    }

    async fn friends(&self, player: &PlayerId) -> Result<Vec<PlayerId>, StoreError> {
        let mut friends = Vec::new();
        let mut after = None;
        loop {
            let (items, last) = self
                .query(
                    player,
                    Some(FriendState::Friends),
                    after.as_ref(),
                    self.page_limit,
                    Some(attr::OTHER_ID),
                )
                .await?;
            for item in &items {
                friends.push(other_from_item(player, item)?);
            }
            match last {
                Some(last) => after = Some(other_from_item(player, &last)?),
                None => return Ok(friends),
            }
        }
    }
}

impl Calls<dyn FriendReader> for DynamoFriendStore {
    fn calls(&self) -> Vec<AwsCall> {
        AwsCall::on_table(&self.table, &["GetItem", "BatchGetItem", "Query"])
    }
}

#[async_trait]
impl Blocks for DynamoFriendStore {
    async fn blockers(
        &self,
        sender: &PlayerId,
        recipients: &[PlayerId],
    ) -> Result<Vec<PlayerId>, StoreError> {
        let mut seen = HashSet::new();
        let unique: Vec<&PlayerId> = recipients.iter().filter(|r| seen.insert(*r)).collect();
        let mut blockers = Vec::new();
        for chunk in unique.chunks(BATCH_GET_LIMIT) {
            let keys = chunk
                .iter()
                .map(|recipient| key(recipient, sender))
                .collect::<Result<Vec<_>, _>>()?;
            // Whole items: a side is a few dozen bytes, under the smallest read unit.
            for item in get_batch(&self.client, &self.table, keys, true, None).await? {
                let side = relation_from_item(item)?;
                if side.state == FriendState::Blocked {
                    blockers.push(side.player);
                }
            }
        }
        Ok(blockers)
    }
}

impl Calls<dyn Blocks> for DynamoFriendStore {
    fn calls(&self) -> Vec<AwsCall> {
        AwsCall::on_table(&self.table, &["BatchGetItem"])
    }
}

/// The transaction item that writes (or only checks) one side.
fn side_item(table: &str, write: &SideWrite, at: i64) -> Result<TransactWriteItem, StoreError> {
    let build = |e: aws_sdk_dynamodb::error::BuildError| StoreError::Other(Box::new(e));
    let condition = if write.expected.is_some() {
        IN_STATE
    } else {
        ABSENT
    };
    let expected = write.expected.map(|state| s(state.as_str()));
    let item = match (write.changes(), write.after) {
        (false, _) => {
            let check = ConditionCheck::builder()
                .table_name(table)
                .set_key(Some(key(&write.player, &write.other)?))
                .condition_expression(condition);
            let check = match expected {
                Some(value) => check
                    .expression_attribute_names("#state", attr::STATE)
                    .expression_attribute_values(":expected", value),
                None => check,
            };
            TransactWriteItem::builder()
                .condition_check(check.build().map_err(build)?)
                .build()
        }
        (true, Some(state)) => {
            let put = Put::builder()
                .table_name(table)
                .set_item(Some(relation_item(&write.player, &write.other, state, at)?))
                .condition_expression(condition);
            let put = match expected {
                Some(value) => put
                    .expression_attribute_names("#state", attr::STATE)
                    .expression_attribute_values(":expected", value),
                None => put,
            };
            TransactWriteItem::builder()
                .put(put.build().map_err(build)?)
                .build()
        }
        (true, None) => {
            let delete = Delete::builder()
                .table_name(table)
                .set_key(Some(key(&write.player, &write.other)?))
                .condition_expression(condition);
            let delete = match expected {
                Some(value) => delete
                    .expression_attribute_names("#state", attr::STATE)
                    .expression_attribute_values(":expected", value),
                None => delete,
            };
            TransactWriteItem::builder()
                .delete(delete.build().map_err(build)?)
                .build()
        }
    };
    Ok(item)
}

/// The transaction item that moves `player`'s count by `delta` (+1 within `MAX_FRIENDS`).
fn count_item(table: &str, player: &PlayerId, delta: i32) -> Result<TransactWriteItem, StoreError> {
    let update = Update::builder()
        .table_name(table)
        .set_key(Some(count_key(player)?))
        .update_expression(COUNT_UP)
        .expression_attribute_names("#friends", attr::FRIENDS)
        .expression_attribute_values(":delta", n(delta));
    let update = if delta > 0 {
        update
            .condition_expression(WITHIN_MAX)
            .expression_attribute_values(":max", n(MAX_FRIENDS))
    } else {
        update
    };
    Ok(TransactWriteItem::builder()
        .update(update.build().map_err(|e| StoreError::Other(Box::new(e)))?)
        .build())
}

/// What one attempt's transaction answered.
enum Attempt {
    Done(FriendCommitted),
    /// An inbox moved (or another transaction held an item): read the heads again.
    Again,
}

impl DynamoFriendStore {
    /// One attempt: the sides, the counts that move, and the pushes at their inboxes'
    /// next seqs, in one transaction.
    async fn attempt(&self, commit: &FriendCommit) -> Result<Attempt, StoreError> {
        let tops =
            try_join_all(commit.pushes.iter().map(|message| {
                inbox::top(&self.client, &self.messages_table, &message.recipient_id)
            }))
            .await?;
        let mut items = commit
            .writes
            .iter()
            .map(|write| side_item(&self.table, write, commit.at))
            .collect::<Result<Vec<_>, _>>()?;
        let counted: Vec<&SideWrite> = commit
            .writes
            .iter()
            .filter(|write| write.friends_delta() != 0)
            .collect();
        for write in &counted {
            items.push(count_item(
                &self.table,
                &write.player,
                write.friends_delta(),
            )?);
        }
        for (message, top) in commit.pushes.iter().zip(&tops) {
            items.extend(inbox::writes(
                &self.messages_table,
                message,
                Slot::of(top, message),
            )?);
        }
        if items.is_empty() {
            return Ok(Attempt::Done(FriendCommitted::Done));
        }
        Ok(match transact(&self.client, items).await? {
            Transacted::Committed => Attempt::Done(FriendCommitted::Done),
            Transacted::Conflict => Attempt::Again,
            Transacted::ConditionFailed(reasons) => {
                let sides = commit.writes.len();
                if reasons.iter().take(sides).any(Option::is_some) {
                    Attempt::Done(FriendCommitted::Moved)
                } else if let Some((_, write)) = reasons
                    .iter()
                    .skip(sides)
                    .zip(&counted)
                    .find(|(reason, _)| reason.is_some())
                {
                    Attempt::Done(FriendCommitted::Full(write.player.clone()))
                } else {
                    Attempt::Again
                }
            }
        })
    }
}

#[async_trait]
impl FriendCommits for DynamoFriendStore {
    async fn commit(&self, commit: &FriendCommit) -> Result<FriendCommitted, StoreError> {
        for attempt in 1..=APPEND_ATTEMPTS {
            if let Attempt::Done(outcome) = self.attempt(commit).await? {
                return Ok(outcome);
            }
            tokio::time::sleep(inbox::backoff(attempt)).await;
        }
        Err(StoreError::Unavailable(
            format!(
                "a friend change: the inboxes were still contended after {APPEND_ATTEMPTS} attempts"
            )
            .into(),
        ))
    }
}

impl Calls<dyn FriendCommits> for DynamoFriendStore {
    /// One transaction: sides put, deleted or checked, counts updated, pushes appended
    /// (after their inboxes' heads are read).
    fn calls(&self) -> Vec<AwsCall> {
        let mut calls = AwsCall::on_table(
            &self.table,
            &["PutItem", "DeleteItem", "ConditionCheckItem", "UpdateItem"],
        );
        calls.extend(inbox::append_calls(&self.messages_table));
        calls
    }
}
