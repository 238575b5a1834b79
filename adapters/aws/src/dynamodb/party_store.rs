//! The Parties ports on DynamoDB: a party change is ONE `TransactWriteItems` across the
//! Parties, Players and Messages tables, after one Query per recipient for their
//! inbox's head (see `inbox.rs`):
//! - the party item: Put (or Delete) conditional on `version` (or on not existing yet),
//!   or a ConditionCheck of it for an invitation;
//! - an invitation item: Put, or Delete conditional on it being live;
//! - the joining player: `SET partyId`, only if they have an item and no party;
//! - the leaving player: `REMOVE partyId`, only if it is this party;
//! - an invitee: a ConditionCheck that they have an item;
//! - one message per recipient, at their inbox's next seq (conditional on it being free).
//!
//! A party condition that fails cancels everything: the caller reads the party again. An
//! inbox that moved under the transaction (another append took the seq) only makes it
//! read the heads again and retry. At most 10 members, so at most 25 items.

use std::collections::HashMap;

use async_trait::async_trait;
use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{
    AttributeValue, ConditionCheck, Delete, Put, ReturnValuesOnConditionCheckFailure,
    TransactWriteItem, Update,
};

use super::error::store_error;
use super::inbox::{self, APPEND_ATTEMPTS, Slot, build_error};
use super::item::{n, s};
use super::message_store::{Refusal, Transacted, transact};
use super::party_item::{
    attr, invitation_from_item, invitation_key, invitation_to_item, offline_from_key,
    offline_index_key, party_from_item, party_key, party_to_item,
};
use super::player_item::{key as player_key, party_of, pending_of, pending_value};
use crate::calls::{AwsCall, Calls};
use shared::domain::{EpochMillis, PLAYER_RETENTION_SECONDS, PlayerId};
use shared::party::{
    CommitScope, Committed, InvitationWrite, OfflinePage, PartyCommit, PartyCondition, PartyWrite,
};
use shared::party::{Invitation, Party, PartyId};
use shared::pending::{PartyReservation, Pending};
use shared::ports::{OfflineParties, PartyCommits, PartyReader, PartySlots, StoreError};

/// The Parties table's sparse index of parties with an offline member.
pub const OFFLINE_INDEX: &str = "ByOfflineSince";

mod slots;

const AT_VERSION: &str = "#version = :version";
const ABSENT: &str = "attribute_not_exists(partyId)";
const LIVE_INVITATION: &str = "attribute_exists(sk) AND #expiresAt > :now";
const JOIN_UPDATE: &str = "SET partyId = :party";
const JOIN_CONDITION: &str = "attribute_exists(playerId) AND attribute_not_exists(partyId)";
/// A player item that is gone (TTL) is created again with only its retention, so that
/// a member whose item expired can still be removed.
const LEAVE_UPDATE: &str = "REMOVE partyId SET expireAt = if_not_exists(expireAt, :expireAt)";
const LEAVE_CONDITION: &str = "attribute_not_exists(partyId) OR partyId = :party";
const BEGIN_PLACEMENT_UPDATE: &str =
    "SET pendingPlacementId = :pending, lastPlacementId = :placementId";
const NONE_PENDING: &str = "attribute_not_exists(pendingPlacementId)";
const SAME_LEADER: &str = "#version = :version AND #leader = :leader";

/// The Parties table in DynamoDB, with the Players and Messages tables its commits write.
#[derive(Clone, Debug)]
pub struct DynamoPartyStore {
    client: Client,
    table: String,
    players_table: String,
    messages_table: String,
    /// Partitions of the offline index (`PRESENCE_SHARDS`).
    shards: u32,
    /// What its commits may write (what its function's role grants).
    scope: CommitScope,
}

/// What each item of a commit's transaction is, to tell which condition failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Party,
    Invitation,
    Join,
    Leave,
    MustExist,
    Inbox,
}

impl DynamoPartyStore {
    pub fn new(
        client: Client,
        table: impl Into<String>,
        players_table: impl Into<String>,
        messages_table: impl Into<String>,
        shards: u32,
    ) -> Self {
        Self {
            client,
            table: table.into(),
            players_table: players_table.into(),
            messages_table: messages_table.into(),
            shards,
            scope: CommitScope::Any,
        }
    }

    /// The same store, committing only what `scope` holds.
    pub fn scoped(mut self, scope: CommitScope) -> Self {
        self.scope = scope;
        self
    }

    pub fn table(&self) -> &str {
        &self.table
    }

    /// The party item's write (or check) under `commit.condition`.
    fn party_item(&self, commit: &PartyCommit) -> Result<Option<TransactWriteItem>, StoreError> {
        let (condition, version) = match commit.condition {
            PartyCondition::Absent => (Some(ABSENT), None),
            PartyCondition::AtVersion(version) => (Some(AT_VERSION), Some(version)),
            PartyCondition::Any => (None, None),
        };
        let names =
            version.map(|_| HashMap::from([("#version".to_owned(), attr::VERSION.to_owned())]));
        let values = version.map(|v| HashMap::from([(":version".to_owned(), n(v))]));
        let item = match &commit.write {
            Some(PartyWrite::Save(party)) => TransactWriteItem::builder().put(
                Put::builder()
                    .table_name(&self.table)
                    .set_item(Some(party_to_item(party, self.shards)?))
                    .set_condition_expression(condition.map(str::to_owned))
                    .set_expression_attribute_names(names)
                    .set_expression_attribute_values(values)
                    .build()
                    .map_err(build_error)?,
            ),
            Some(PartyWrite::Delete) => TransactWriteItem::builder().delete(
                Delete::builder()
                    .table_name(&self.table)
                    .set_key(Some(party_key(&commit.party_id)))
                    .set_condition_expression(condition.map(str::to_owned))
                    .set_expression_attribute_names(names)
                    .set_expression_attribute_values(values)
                    .build()
                    .map_err(build_error)?,
            ),
            None => {
                let Some(condition) = condition else {
                    return Ok(None);
                };
                TransactWriteItem::builder().condition_check(
                    ConditionCheck::builder()
                        .table_name(&self.table)
                        .set_key(Some(party_key(&commit.party_id)))
                        .condition_expression(condition)
                        .set_expression_attribute_names(names)
                        .set_expression_attribute_values(values)
                        .build()
                        .map_err(build_error)?,
                )
            }
        };
        Ok(Some(item.build()))
    }

    fn invitation_item(
        &self,
        commit: &PartyCommit,
        write: &InvitationWrite,
    ) -> Result<TransactWriteItem, StoreError> {
        Ok(match write {
            InvitationWrite::Put(invitation) => TransactWriteItem::builder()
                .put(
                    Put::builder()
                        .table_name(&self.table)
                        .set_item(Some(invitation_to_item(invitation)?))
                        .build()
                        .map_err(build_error)?,
                )
                .build(),
            InvitationWrite::Take(invitee) => TransactWriteItem::builder()
                .delete(
                    Delete::builder()
                        .table_name(&self.table)
                        .set_key(Some(invitation_key(&commit.party_id, invitee)))
                        .condition_expression(LIVE_INVITATION)
                        .expression_attribute_names("#expiresAt", attr::EXPIRES_AT)
                        .expression_attribute_values(":now", n(commit.now))
                        .build()
                        .map_err(build_error)?,
                )
                .build(),
        })
    }

    fn player_update(
        &self,
        player: &PlayerId,
        update: &str,
        condition: &str,
        values: HashMap<String, AttributeValue>,
    ) -> Result<TransactWriteItem, StoreError> {
        Ok(TransactWriteItem::builder()
            .update(
                Update::builder()
                    .table_name(&self.players_table)
                    .set_key(Some(player_key(player)))
                    .update_expression(update)
                    .condition_expression(condition)
                    .set_expression_attribute_values(Some(values))
                    .return_values_on_condition_check_failure(
                        ReturnValuesOnConditionCheckFailure::AllOld,
                    )
                    .build()
                    .map_err(build_error)?,
            )
            .build())
    }

    /// Every item of the commit's transaction, with its role, the pushes written at the
    /// slots `tops` (one per push, in order) make.
    fn transaction(
        &self,
        commit: &PartyCommit,
        tops: &[inbox::InboxTop],
    ) -> Result<(Vec<TransactWriteItem>, Vec<Role>), StoreError> {
        let mut items = Vec::new();
        let mut roles = Vec::new();
        let party = s(commit.party_id.as_str());
        if let Some(item) = self.party_item(commit)? {
            items.push(item);
            roles.push(Role::Party);
        }
        if let Some(write) = &commit.invitation {
            items.push(self.invitation_item(commit, write)?);
            roles.push(Role::Invitation);
        }
        if let Some(joiner) = &commit.join {
            let values = HashMap::from([(":party".to_owned(), party.clone())]);
            items.push(self.player_update(joiner, JOIN_UPDATE, JOIN_CONDITION, values)?);
            roles.push(Role::Join);
        }
        for leaver in &commit.leave {
            let values = HashMap::from([
                (":party".to_owned(), party.clone()),
                (
                    ":expireAt".to_owned(),
                    n(commit.now.div_euclid(1000) + PLAYER_RETENTION_SECONDS),
                ),
            ]);
            items.push(self.player_update(leaver, LEAVE_UPDATE, LEAVE_CONDITION, values)?);
            roles.push(Role::Leave);
        }
        if let Some(player) = &commit.must_exist {
            items.push(
                TransactWriteItem::builder()
                    .condition_check(
                        ConditionCheck::builder()
                            .table_name(&self.players_table)
                            .set_key(Some(player_key(player)))
                            .condition_expression("attribute_exists(playerId)")
                            .build()
                            .map_err(build_error)?,
                    )
                    .build(),
            );
            roles.push(Role::MustExist);
        }
        for (message, top) in commit.pushes.iter().zip(tops) {
            for item in inbox::writes(&self.messages_table, message, Slot::of(top, message))? {
                items.push(item);
                roles.push(Role::Inbox);
            }
        }
        Ok((items, roles))
    }
}

/// What a cancelled commit means, by the first role (in this order) whose condition
/// failed; `None` when only inboxes moved (read them again and retry).
fn outcome_of(
    roles: &[Role],
    reasons: &[Option<Refusal>],
) -> Result<Option<Committed>, StoreError> {
    let failed = |role: Role| {
        roles
            .iter()
            .zip(reasons)
            .find(|(r, reason)| **r == role && reason.is_some())
            .and_then(|(_, reason)| reason.as_ref())
    };
    if failed(Role::Party).is_some() || failed(Role::Leave).is_some() {
        return Ok(Some(Committed::PartyMoved));
    }
    if failed(Role::Invitation).is_some() {
        return Ok(Some(Committed::InvitationGone));
    }
    if let Some(refusal) = failed(Role::Join) {
        return Ok(Some(match refusal.item.as_ref() {
            Some(item) => Committed::InAnotherParty(party_of(item)?),
            None => Committed::NoSuchPlayer,
        }));
    }
    if failed(Role::MustExist).is_some() {
        return Ok(Some(Committed::NoSuchPlayer));
    }
    Ok(None)
}

#[async_trait]
impl PartyReader for DynamoPartyStore {
    async fn get(&self, party_id: &PartyId) -> Result<Option<Party>, StoreError> {
        let output = self
            .client
            .get_item()
            .table_name(&self.table)
            .set_key(Some(party_key(party_id)))
            .consistent_read(true)
            .send()
            .await
            .map_err(store_error)?;
        output.item().map(party_from_item).transpose()
    }

    async fn get_with_invitation(
        &self,
        party_id: &PartyId,
        player: &PlayerId,
    ) -> Result<(Option<Party>, Option<Invitation>), StoreError> {
        use aws_sdk_dynamodb::types::{Get, TransactGetItem};
        let get = |key| -> Result<TransactGetItem, StoreError> {
            Ok(TransactGetItem::builder()
                .get(
                    Get::builder()
                        .table_name(&self.table)
                        .set_key(Some(key))
                        .build()
                        .map_err(build_error)?,
                )
                .build())
        };
        let output = self
            .client
            .transact_get_items()
            .transact_items(get(party_key(party_id))?)
            .transact_items(get(invitation_key(party_id, player))?)
            .send()
            .await
            .map_err(store_error)?;
        let responses = output.responses();
        let item = |i: usize| responses.get(i).and_then(|r| r.item());
        Ok((
            item(0).map(party_from_item).transpose()?,
            item(1).map(invitation_from_item).transpose()?,
        ))
    }
}

impl Calls<dyn PartyReader> for DynamoPartyStore {
    /// GetItem, and TransactGetItems (authorized as GetItem).
    fn calls(&self) -> Vec<AwsCall> {
        AwsCall::on_table(&self.table, &["GetItem"])
    }
}

#[async_trait]
impl PartyCommits for DynamoPartyStore {
    async fn commit(&self, commit: &PartyCommit) -> Result<Committed, StoreError> {
        if commit.scope() > self.scope {
            return Err(StoreError::Other(
                format!(
                    "a commit of party {} needs {:?}; this function may write {:?} (its role grants no more)",
                    commit.party_id,
                    commit.scope(),
                    self.scope
                )
                .into(),
            ));
        }
        let mut attempt = 0;
        loop {
            attempt += 1;
            let tops = futures_util::future::try_join_all(commit.pushes.iter().map(|message| {
                inbox::top(&self.client, &self.messages_table, &message.recipient_id)
            }))
            .await?;
            let (items, roles) = self.transaction(commit, &tops)?;
            if items.is_empty() {
                return Ok(Committed::Done);
            }
            match transact(&self.client, items).await? {
                Transacted::Committed => return Ok(Committed::Done),
                Transacted::ConditionFailed(reasons) => {
                    if let Some(outcome) = outcome_of(&roles, &reasons)? {
                        return Ok(outcome);
                    }
                }
                // Another transaction was writing one of the items: try again.
                Transacted::Conflict => {}
            }
            if attempt >= APPEND_ATTEMPTS {
                return Err(StoreError::Unavailable(
                    format!(
                        "committing a change of party {}: still contended after {attempt} attempts",
                        commit.party_id
                    )
                    .into(),
                ));
            }
            tokio::time::sleep(inbox::backoff(attempt)).await;
        }
    }
}

impl Calls<dyn PartyCommits> for DynamoPartyStore {
    /// One transaction after the recipients' inbox heads are read; what it may hold
    /// depends on the scope.
    fn calls(&self) -> Vec<AwsCall> {
        let (parties, players): (&[&str], &[&str]) = match self.scope {
            CommitScope::Presence => (&["PutItem"], &[]),
            CommitScope::Departures => (&["PutItem", "DeleteItem"], &["UpdateItem"]),
            CommitScope::Any => (
                &["PutItem", "DeleteItem", "ConditionCheckItem"],
                &["UpdateItem", "ConditionCheckItem"],
            ),
        };
        let mut calls = AwsCall::on_table(&self.table, parties);
        calls.extend(AwsCall::on_table(&self.players_table, players));
        calls.extend(inbox::append_calls(&self.messages_table));
        calls
    }
}
