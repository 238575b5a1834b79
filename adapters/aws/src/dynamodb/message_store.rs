//! [`MessageStore`] on the DynamoDB Messages table (PK `recipientId`, SK `seq`): an
//! append is one Query plus one conditional write per message (see `inbox.rs`), a read
//! is one strongly consistent Query newest-first, stopping where the replay starts.
//! [`DeliveryHandover`] is one `TransactWriteItems` across the Players and Messages
//! tables.

use std::collections::HashMap;

use async_trait::async_trait;
use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::types::{AttributeValue, TransactWriteItem, Update};
use futures_util::StreamExt;
use futures_util::stream;

use super::error::{applied, store_error};
use super::inbox::{self, APPEND_ATTEMPTS, Contended, Slot, build_error};
use super::message_item::{EPOCH_ITEM_SEQ, attr, message_from_item};
use super::player_item::{attr as player_attr, key as player_key};
use crate::calls::{AwsCall, Calls};
use shared::domain::{EpochMillis, PlayerId, PresenceStatus, Seq};
use shared::messaging::{
    Handover, HandoverOutcome, InboxRead, NewMessage, ReplayFrom, StoredMessage,
};
use shared::ports::StoreError;
use shared::ports::{DeliveryHandover, InboxReader, MessageStore};

/// Inboxes appended to at once by one `append`.
const CONCURRENT_INBOXES: usize = 16;
/// Items read by a replay's first Query: most resumes find nothing or little to replay,
/// and a strongly consistent read is charged for every item it reads.
const FIRST_PAGE: i32 = 10;
/// Items per later Query of a replay.
const PAGE: i32 = 100;

table_store! {
    /// The Messages table in DynamoDB.
    DynamoMessageStore
}

impl DynamoMessageStore {
    /// Appends one recipient's messages, in order.
    async fn append_to(&self, messages: Vec<&NewMessage>) -> Result<usize, StoreError> {
        let Some(first) = messages.first() else {
            return Ok(0);
        };
        let recipient = first.recipient_id.clone();
        let mut appended = 0;
        let mut known: Option<Slot> = None;
        for message in messages {
            let mut attempt = 0;
            loop {
                attempt += 1;
                let slot = match known.take() {
                    Some(slot) => slot,
                    None => Slot::of(
                        &inbox::top(&self.client, &self.table, &recipient).await?,
                        message,
                    ),
                };
                if self.write(message, slot).await? {
                    if slot != Slot::Taken {
                        appended += 1;
                    }
                    known = slot.following(message);
                    break;
                }
                if attempt >= APPEND_ATTEMPTS {
                    return Err(StoreError::Unavailable(Box::new(Contended {
                        recipient,
                        attempts: attempt,
                    })));
                }
                tokio::time::sleep(inbox::backoff(attempt)).await;
            }
        }
        Ok(appended)
    }

    /// Writes `message` at `slot`; `Ok(false)` when another writer took the slot.
    async fn write(&self, message: &NewMessage, slot: Slot) -> Result<bool, StoreError> {
        let mut items = inbox::writes(&self.table, message, slot)?;
        match items.len() {
            0 => Ok(true),
            1 => {
                let Some(put) = items.pop().and_then(|item| item.put) else {
                    return Err(StoreError::Other("an append without a Put".into()));
                };
                let result = self
                    .client
                    .put_item()
                    .table_name(&self.table)
                    .set_item(Some(put.item))
                    .condition_expression(inbox::SEQ_IS_FREE)
                    .send()
                    .await;
                applied(result)
            }
            _ => Ok(transact(&self.client, items).await? == Transacted::Committed),
        }
    }

    /// One Query page of the inbox, newest first, from `start` (exclusive).
    async fn page(
        &self,
        recipient: &PlayerId,
        start: Option<HashMap<String, AttributeValue>>,
        limit: i32,
    ) -> Result<
        (
            Vec<HashMap<String, AttributeValue>>,
            Option<HashMap<String, AttributeValue>>,
        ),
        StoreError,
    > {
        let output = self
            .client
            .query()
            .table_name(&self.table)
            .key_condition_expression("recipientId = :recipient")
            .expression_attribute_values(":recipient", AttributeValue::S(recipient.to_string()))
            .scan_index_forward(false)
            .consistent_read(true)
            .limit(limit)
            .set_exclusive_start_key(start)
            .send()
            .await
            .map_err(store_error)?;
        let next = output
            .last_evaluated_key()
            .filter(|k| !k.is_empty())
            .cloned();
        Ok((output.items.unwrap_or_default(), next))
    }
}

#[async_trait]
impl MessageStore for DynamoMessageStore {
    async fn append(&self, messages: &[NewMessage]) -> Result<usize, StoreError> {
        let mut by_recipient: Vec<(&PlayerId, Vec<&NewMessage>)> = Vec::new();
        for message in messages {
            match by_recipient
                .iter_mut()
                .find(|(recipient, _)| **recipient == message.recipient_id)
            {
                Some((_, list)) => list.push(message),
                None => by_recipient.push((&message.recipient_id, vec![message])),
            }
        }
        let appends: Vec<_> = by_recipient
            .into_iter()
            .map(|(_, list)| self.append_to(list))
            .collect();
        let results: Vec<Result<usize, StoreError>> = stream::iter(appends)
            .buffer_unordered(CONCURRENT_INBOXES)
            .collect()
            .await;
        let mut appended = 0;
        for result in results {
            appended += result?;
        }
        Ok(appended)
    }
}

impl Calls<dyn MessageStore> for DynamoMessageStore {
    /// The inbox's head, the conditional put at the next seq, and a new epoch's item
    /// with its first message (a transaction of a Put and an Update).
    fn calls(&self) -> Vec<AwsCall> {
        inbox::append_calls(&self.table)
    }
}

#[async_trait]
impl InboxReader for DynamoMessageStore {
    async fn read(
        &self,
        recipient: &PlayerId,
        from: &ReplayFrom,
        now: EpochMillis,
    ) -> Result<InboxRead, StoreError> {
        let mut newest_first: Vec<StoredMessage> = Vec::new();
        let (mut head, mut epoch) = (None, None);
        let (mut start, mut limit) = (None, FIRST_PAGE);
        'pages: loop {
            let (items, next) = self.page(recipient, start, limit).await?;
            for item in &items {
                if item_seq(item) == Some(EPOCH_ITEM_SEQ) {
                    // The epoch item sorts last: the inbox ends here.
                    if epoch.is_none() {
                        epoch = item_epoch(item);
                    }
                    break 'pages;
                }
                let message = message_from_item(item)?;
                if head.is_none() {
                    head = Some(message.seq);
                    epoch = Some(message.epoch);
                }
                if from.passed(&message) {
                    break 'pages;
                }
                newest_first.push(message);
            }
            match next {
                Some(key) => (start, limit) = (Some(key), PAGE),
                None => break,
            }
        }
        Ok(InboxRead {
            messages: from.select(newest_first, now),
            head,
            epoch,
        })
    }
}

impl Calls<dyn InboxReader> for DynamoMessageStore {
    fn calls(&self) -> Vec<AwsCall> {
        AwsCall::on_table(&self.table, &["Query"])
    }
}

fn item_seq(item: &HashMap<String, AttributeValue>) -> Option<Seq> {
    let raw = item.get(attr::SEQ)?.as_n().ok()?;
    Seq::new(raw.parse().ok()?).ok()
}

fn item_epoch(item: &HashMap<String, AttributeValue>) -> Option<Seq> {
    let raw = item.get(attr::EPOCH)?.as_n().ok()?;
    Seq::new(raw.parse().ok()?).ok()
}

/// How a transaction ended, when it did not fail outright.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Transacted {
    Committed,
    /// Cancelled by conditions: each item's reason (`None` where the item was fine).
    ConditionFailed(Vec<Option<Refusal>>),
    /// Cancelled because another transaction was writing one of the items: try again.
    Conflict,
}

/// Why one item of a cancelled transaction was refused.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Refusal {
    pub code: String,
    /// The item as it was, when the item asked for it (`ALL_OLD` on condition failure).
    pub item: Option<HashMap<String, AttributeValue>>,
}

/// Runs a transaction. Throttling and 5xx are [`StoreError::Unavailable`].
pub(crate) async fn transact(
    client: &Client,
    items: Vec<TransactWriteItem>,
) -> Result<Transacted, StoreError> {
    let result = client
        .transact_write_items()
        .set_transact_items(Some(items))
        .send()
        .await;
    let err = match result {
        Ok(_) => return Ok(Transacted::Committed),
        Err(err) => err,
    };
    let reasons: Vec<Option<Refusal>> = match err.as_service_error() {
        Some(TransactWriteItemsError::TransactionCanceledException(cancelled)) => cancelled
            .cancellation_reasons()
            .iter()
            .map(|r| {
                let code = r.code().filter(|c| *c != "None")?;
                Some(Refusal {
                    code: code.to_owned(),
                    item: r.item().cloned(),
                })
            })
            .collect(),
        _ => return Err(store_error(err)),
    };
    let codes: Vec<&str> = reasons.iter().flatten().map(|r| r.code.as_str()).collect();
    if codes.contains(&"TransactionConflict") {
        return Ok(Transacted::Conflict);
    }
    if !codes.is_empty() && codes.iter().all(|code| *code == "ConditionalCheckFailed") {
        return Ok(Transacted::ConditionFailed(reasons));
    }
    let transient = codes.iter().any(|code| {
        matches!(
            *code,
            "ThrottlingError" | "ProvisionedThroughputExceeded" | "RequestLimitExceeded"
        )
    });
    Err(if transient {
        StoreError::Unavailable(Box::new(err))
    } else {
        StoreError::Other(Box::new(err))
    })
}

table_store! {
    /// [`DeliveryHandover`] on DynamoDB: one `TransactWriteItems` holding the player's
    /// update (live connection, `liveFrom`, `ackedSeq`; conditional on the connection
    /// being the player's current online one) and the inbox checks (no message after the
    /// head, the epoch item unchanged).
    DynamoDeliveryHandover {
        players_table,
        messages_table,
    }
}

impl DynamoDeliveryHandover {
    fn player_update(&self, handover: &Handover) -> Result<Update, StoreError> {
        let mut update = Update::builder()
            .table_name(&self.players_table)
            .set_key(Some(player_key(&handover.player)))
            .condition_expression("connectionId = :connection AND #status = :online")
            .expression_attribute_names("#status", player_attr::STATUS)
            .expression_attribute_values(
                ":connection",
                AttributeValue::S(handover.connection.to_string()),
            )
            .expression_attribute_values(
                ":online",
                AttributeValue::S(PresenceStatus::Online.as_str().to_owned()),
            )
            .expression_attribute_values(
                ":liveFrom",
                AttributeValue::N(handover.head.unwrap_or(Seq::ZERO).to_string()),
            );
        update = match handover.acked {
            Some(acked) => update
                .update_expression(
                    "SET liveConnectionId = :connection, liveFrom = :liveFrom, ackedSeq = :acked",
                )
                .expression_attribute_values(":acked", AttributeValue::N(acked.to_string())),
            None => {
                update.update_expression("SET liveConnectionId = :connection, liveFrom = :liveFrom")
            }
        };
        update.build().map_err(build_error)
    }
}

#[async_trait]
impl DeliveryHandover for DynamoDeliveryHandover {
    async fn go_live(&self, handover: &Handover) -> Result<HandoverOutcome, StoreError> {
        let mut items = vec![
            TransactWriteItem::builder()
                .update(self.player_update(handover)?)
                .build(),
        ];
        items.extend(inbox::unmoved_checks(
            &self.messages_table,
            &handover.player,
            handover.head,
            handover.epoch,
        )?);
        Ok(match transact(&self.client, items).await? {
            Transacted::Committed => HandoverOutcome::Live,
            Transacted::ConditionFailed(reasons)
                if reasons.first().is_some_and(Option::is_some) =>
            {
                HandoverOutcome::NotCurrent
            }
            // The inbox moved, or a settlement was writing the player: read and try again.
            Transacted::ConditionFailed(_) | Transacted::Conflict => HandoverOutcome::InboxMoved,
        })
    }
}

impl Calls<dyn DeliveryHandover> for DynamoDeliveryHandover {
    /// One transaction: the player's live connection set, the inbox checked unmoved.
    fn calls(&self) -> Vec<AwsCall> {
        let mut calls = AwsCall::on_table(&self.players_table, &["UpdateItem"]);
        calls.extend(AwsCall::on_table(
            &self.messages_table,
            &["ConditionCheckItem"],
        ));
        calls
    }
}
