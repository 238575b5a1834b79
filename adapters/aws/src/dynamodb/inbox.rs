//! Inboxes in the DynamoDB Messages table (PK `recipientId`, SK `seq`): finding where the
//! next message goes, and the writes that put it there, shared by the message store's
//! appends and the placement settlement's transaction.
//!
//! An append reads the inbox's newest item (one strongly consistent Query, `Limit 1`,
//! newest first) and writes the message at the next seq, conditional on that seq being
//! free: two writers racing for one seq cannot both win, so seqs follow the order in
//! which messages became visible, without gaps. The loser reads again and retries.
//!
//! When the inbox holds no message (a new player, or every message expired and was
//! deleted), the append starts a new epoch at [`Seq::epoch_start`] in one transaction
//! with the epoch item (`seq` 0), conditional on the epoch item being what the writer
//! saw: two writers never start two epochs, and `resume`'s hand-over, which checks the
//! epoch item too, learns of a new epoch it has not replayed.

use std::time::Duration;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::error::BuildError;
use aws_sdk_dynamodb::types::{AttributeValue, ConditionCheck, Put, TransactWriteItem, Update};

use super::error::store_error;
use super::message_item::{EPOCH_ITEM_SEQ, attr, key, message_to_item};
use shared::domain::{MessageId, PLAYER_RETENTION_SECONDS, PlayerId, Seq};
use shared::messaging::NewMessage;
use shared::ports::StoreError;

/// How many times an append reads the inbox again after losing a race for a seq.
pub(crate) const APPEND_ATTEMPTS: u32 = 25;

/// `seq` must be free.
pub(crate) const SEQ_IS_FREE: &str = "attribute_not_exists(seq)";
/// The epoch item is as the writer (or the hand-over) saw it.
const EPOCH_ABSENT: &str = "attribute_not_exists(epoch)";
const EPOCH_UNCHANGED: &str = "attribute_not_exists(epoch) OR epoch = :epoch";
const SET_EPOCH: &str = "SET epoch = :epoch, expireAt = :expireAt";

/// The inbox's newest item, as an append sees it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct InboxTop {
    /// The newest message: its seq, its epoch and its id.
    pub newest: Option<(Seq, Seq, MessageId)>,
    /// The epoch item's epoch, when the inbox holds no message but has one.
    pub epoch_item: Option<Seq>,
}

/// Where a message goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Slot {
    /// The inbox's newest message is this one already (a retried invocation).
    Taken,
    /// After the newest message, in its epoch.
    Next { seq: Seq, epoch: Seq },
    /// The inbox holds no message: a new epoch, starting with this one.
    NewEpoch { seq: Seq, seen: Option<Seq> },
}

impl Slot {
    /// The slot of `message` on an inbox whose newest item is `top`.
    pub(crate) fn of(top: &InboxTop, message: &NewMessage) -> Self {
        match &top.newest {
            Some((_, _, id)) if *id == message.message_id => Self::Taken,
            Some((seq, epoch, _)) => Self::Next {
                seq: seq.next(),
                epoch: *epoch,
            },
            None => {
                let start = Seq::epoch_start(message.created_at);
                // A clock behind the one that made the last epoch still moves forward.
                let seq = match top.epoch_item {
                    Some(last) if last >= start => last.next(),
                    _ => start,
                };
                Self::NewEpoch {
                    seq,
                    seen: top.epoch_item,
                }
            }
        }
    }

    /// The slot after this one once its message is written (the next message of the
    /// same recipient goes there unless someone else got there first).
    pub(crate) fn following(self) -> Option<Self> {
        match self {
            Self::Taken => None,
            Self::Next { seq, epoch } => Some(Self::Next {
                seq: seq.next(),
                epoch,
            }),
            Self::NewEpoch { seq, .. } => Some(Self::Next {
                seq: seq.next(),
                epoch: seq,
            }),
        }
    }
}

/// Reads the newest item of `recipient`'s inbox (one strongly consistent Query).
pub(crate) async fn top(
    client: &Client,
    table: &str,
    recipient: &PlayerId,
) -> Result<InboxTop, StoreError> {
    let output = client
        .query()
        .table_name(table)
        .key_condition_expression("recipientId = :recipient")
        .expression_attribute_values(":recipient", AttributeValue::S(recipient.to_string()))
        .projection_expression("seq, epoch, messageId")
        .scan_index_forward(false)
        .limit(1)
        .consistent_read(true)
        .send()
        .await
        .map_err(store_error)?;
    let Some(item) = output.items().first() else {
        return Ok(InboxTop::default());
    };
    let number = |name: &str| -> Result<Seq, StoreError> {
        item.get(name)
            .and_then(|v| v.as_n().ok())
            .and_then(|raw| raw.parse::<u64>().ok())
            .and_then(|raw| Seq::new(raw).ok())
            .ok_or_else(|| StoreError::Corrupt {
                key: format!("recipientId={recipient}"),
                reason: format!("the newest inbox item has no valid {name}"),
            })
    };
    let seq = number(attr::SEQ)?;
    let epoch = number(attr::EPOCH)?;
    if seq == EPOCH_ITEM_SEQ {
        return Ok(InboxTop {
            newest: None,
            epoch_item: Some(epoch),
        });
    }
    let id = item
        .get(attr::MESSAGE_ID)
        .and_then(|v| v.as_s().ok())
        .ok_or_else(|| StoreError::Corrupt {
            key: format!("recipientId={recipient} seq={seq}"),
            reason: "no messageId".into(),
        })?;
    Ok(InboxTop {
        newest: Some((seq, epoch, MessageId::from_stored(id.as_str()))),
        epoch_item: None,
    })
}

/// What appending to an inbox calls: the head read, the message put at the next seq,
/// and a new epoch's item updated with it.
pub(crate) fn append_calls(table: &str) -> Vec<crate::calls::AwsCall> {
    crate::calls::AwsCall::on_table(table, &["Query", "PutItem", "UpdateItem"])
}

/// The transaction items that write `message` at `slot` (nothing for [`Slot::Taken`]):
/// its Put, conditional on the seq being free, and for a new epoch the epoch item's
/// update, conditional on the epoch item being as it was seen.
pub(crate) fn writes(
    table: &str,
    message: &NewMessage,
    slot: Slot,
) -> Result<Vec<TransactWriteItem>, StoreError> {
    let (seq, epoch, seen) = match slot {
        Slot::Taken => return Ok(Vec::new()),
        Slot::Next { seq, epoch } => (seq, epoch, None),
        Slot::NewEpoch { seq, seen } => (seq, seq, Some(seen)),
    };
    let mut items = Vec::with_capacity(2);
    if let Some(seen) = seen {
        items.push(
            TransactWriteItem::builder()
                .update(epoch_update(
                    table,
                    &message.recipient_id,
                    seq,
                    seen,
                    message,
                )?)
                .build(),
        );
    }
    items.push(
        TransactWriteItem::builder()
            .put(
                Put::builder()
                    .table_name(table)
                    .set_item(Some(message_to_item(&message.clone().at(seq, epoch))?))
                    .condition_expression(SEQ_IS_FREE)
                    .build()
                    .map_err(build_error)?,
            )
            .build(),
    );
    Ok(items)
}

/// The epoch item's update that starts epoch `epoch`, if the item is still `seen`.
fn epoch_update(
    table: &str,
    recipient: &PlayerId,
    epoch: Seq,
    seen: Option<Seq>,
    message: &NewMessage,
) -> Result<Update, StoreError> {
    let expire_at = message.created_at / 1000 + PLAYER_RETENTION_SECONDS;
    let mut update = Update::builder()
        .table_name(table)
        .set_key(Some(key(recipient, EPOCH_ITEM_SEQ)?))
        .update_expression(SET_EPOCH)
        .expression_attribute_values(":expireAt", AttributeValue::N(expire_at.to_string()));
    update = match seen {
        None => update
            .condition_expression(EPOCH_ABSENT)
            .expression_attribute_values(":epoch", AttributeValue::N(epoch.to_string())),
        Some(seen) => update
            // `epoch = :epoch` in the condition must see the old value and `SET` the new
            // one: two placeholders.
            .condition_expression("attribute_not_exists(epoch) OR epoch = :seen")
            .expression_attribute_values(":seen", AttributeValue::N(seen.to_string()))
            .expression_attribute_values(":epoch", AttributeValue::N(epoch.to_string())),
    };
    update.build().map_err(build_error)
}

/// The hand-over's checks on the inbox: no message after `head`, and the epoch item as
/// the replay saw it (`None`: absent).
pub(crate) fn unmoved_checks(
    table: &str,
    recipient: &PlayerId,
    head: Option<Seq>,
    epoch: Option<Seq>,
) -> Result<Vec<TransactWriteItem>, StoreError> {
    let mut checks = Vec::with_capacity(2);
    if let Some(head) = head {
        checks.push(
            TransactWriteItem::builder()
                .condition_check(
                    ConditionCheck::builder()
                        .table_name(table)
                        .set_key(Some(key(recipient, head.next())?))
                        .condition_expression(SEQ_IS_FREE)
                        .build()
                        .map_err(build_error)?,
                )
                .build(),
        );
    }
    let check = ConditionCheck::builder()
        .table_name(table)
        .set_key(Some(key(recipient, EPOCH_ITEM_SEQ)?));
    let check = match epoch {
        None => check.condition_expression(EPOCH_ABSENT),
        Some(epoch) => check
            .condition_expression(EPOCH_UNCHANGED)
            .expression_attribute_values(":epoch", AttributeValue::N(epoch.to_string())),
    };
    checks.push(
        TransactWriteItem::builder()
            .condition_check(check.build().map_err(build_error)?)
            .build(),
    );
    Ok(checks)
}

/// The pause before attempt `attempt` (1-based) after losing a race: a few jittered
/// milliseconds, growing slowly, so that writers queued on one inbox spread out.
pub(crate) fn backoff(attempt: u32) -> Duration {
    let ceiling = u64::from(attempt.min(10)) * 4;
    Duration::from_millis(fastrand::u64(1..=ceiling.max(2)))
}

/// Why an append gave up: the inbox kept moving under it.
#[derive(Debug, thiserror::Error)]
#[error("inbox of {recipient} still contended after {attempts} attempts to append")]
pub(crate) struct Contended {
    pub recipient: PlayerId,
    pub attempts: u32,
}

pub(crate) fn build_error(err: BuildError) -> StoreError {
    StoreError::Other(Box::new(err))
}

#[cfg(test)]
mod tests {
    use super::*;
    use shared::messaging::MessageKind;

    fn message(id: &str, created_at: i64) -> NewMessage {
        NewMessage {
            message_id: MessageId::from_stored(id),
            recipient_id: PlayerId::parse("bob").unwrap(),
            sender_id: "alice".into(),
            kind: MessageKind::Chat,
            payload: "{}".into(),
            created_at,
            expire_at_secs: created_at / 1000 + 60,
        }
    }

    fn seq(n: u64) -> Seq {
        Seq::new(n).unwrap()
    }

    #[test]
    fn a_message_goes_after_the_newest_in_its_epoch_unless_it_is_the_newest() {
        let top = InboxTop {
            newest: Some((seq(12), seq(10), MessageId::from_stored("m2"))),
            epoch_item: None,
        };
        assert_eq!(
            Slot::of(&top, &message("m3", 5)),
            Slot::Next {
                seq: seq(13),
                epoch: seq(10)
            }
        );
        assert_eq!(Slot::of(&top, &message("m2", 5)), Slot::Taken);
        assert_eq!(Slot::Taken.following(), None);
        assert_eq!(
            Slot::of(&top, &message("m3", 5)).following(),
            Some(Slot::Next {
                seq: seq(14),
                epoch: seq(10)
            })
        );
    }

    #[test]
    fn an_empty_inbox_starts_an_epoch_at_the_time_and_never_below_the_last_one() {
        let empty = InboxTop::default();
        let at = 1_795_323_600_000;
        assert_eq!(
            Slot::of(&empty, &message("m1", at)),
            Slot::NewEpoch {
                seq: Seq::epoch_start(at),
                seen: None
            }
        );
        let expired = InboxTop {
            newest: None,
            epoch_item: Some(Seq::epoch_start(at - 86_400_000)),
        };
        assert_eq!(
            Slot::of(&expired, &message("m1", at)),
            Slot::NewEpoch {
                seq: Seq::epoch_start(at),
                seen: expired.epoch_item
            }
        );
        let ahead = InboxTop {
            newest: None,
            epoch_item: Some(Seq::epoch_start(at + 5)),
        };
        assert_eq!(
            Slot::of(&ahead, &message("m1", at)),
            Slot::NewEpoch {
                seq: Seq::epoch_start(at + 5).next(),
                seen: ahead.epoch_item
            }
        );
        let started = Slot::of(&empty, &message("m1", at));
        assert_eq!(
            started.following(),
            Some(Slot::Next {
                seq: Seq::epoch_start(at).next(),
                epoch: Seq::epoch_start(at)
            })
        );
    }

    #[test]
    fn a_new_epoch_writes_the_epoch_item_and_the_message_and_a_next_slot_only_the_message() {
        let m = message("m1", 1_000);
        let next = writes(
            "Messages",
            &m,
            Slot::Next {
                seq: seq(5),
                epoch: seq(4),
            },
        )
        .unwrap();
        assert_eq!(next.len(), 1);
        let put = next[0].put().unwrap();
        assert_eq!(put.condition_expression(), Some(SEQ_IS_FREE));
        assert_eq!(put.item()["seq"], AttributeValue::N("5".into()));
        assert_eq!(put.item()["epoch"], AttributeValue::N("4".into()));
        let fresh = writes(
            "Messages",
            &m,
            Slot::NewEpoch {
                seq: seq(100),
                seen: None,
            },
        )
        .unwrap();
        assert_eq!(fresh.len(), 2);
        let epoch = fresh[0].update().unwrap();
        assert_eq!(epoch.key()["seq"], AttributeValue::N("0".into()));
        assert_eq!(epoch.condition_expression(), Some(EPOCH_ABSENT));
        assert_eq!(
            fresh[1].put().unwrap().item()["epoch"],
            AttributeValue::N("100".into())
        );
        assert!(writes("Messages", &m, Slot::Taken).unwrap().is_empty());
    }

    #[test]
    fn the_hand_over_checks_the_seq_after_the_head_and_the_epoch_item() {
        let bob = PlayerId::parse("bob").unwrap();
        let checks = unmoved_checks("Messages", &bob, Some(seq(7)), Some(seq(5))).unwrap();
        assert_eq!(checks.len(), 2);
        let after_head = checks[0].condition_check().unwrap();
        assert_eq!(after_head.key()["seq"], AttributeValue::N("8".into()));
        let epoch = checks[1].condition_check().unwrap();
        assert_eq!(epoch.key()["seq"], AttributeValue::N("0".into()));
        assert_eq!(epoch.condition_expression(), EPOCH_UNCHANGED);
        let empty = unmoved_checks("Messages", &bob, None, None).unwrap();
        assert_eq!(empty.len(), 1);
        assert_eq!(
            empty[0].condition_check().unwrap().condition_expression(),
            EPOCH_ABSENT
        );
    }
}
