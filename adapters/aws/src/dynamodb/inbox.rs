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
//!
//! **A seq is never handed out twice**, although TTL deletes items one by one: DynamoDB
//! deletes an item some time after its `expireAt` has passed, typically within two days,
//! and AWS documents no order among expired items
//! (<https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateTimeToLive.html>).
//! Were the newest item deleted first, the next append would find the one below it and
//! write at the deleted item's seq, which a client that saw that item skips as seen: a
//! silent drop. So every item is kept (its `expireAt`) at least as long as the item
//! below it and at least [`MIN_KEPT_SECONDS`], still delivered only until its own TTL
//! (`replayUntil`, see `message_item.rs`): the newest item is the last of its epoch to
//! expire. An append that finds the newest item expired (or within [`CLOCK_MARGIN_MS`] of
//! it, for the writer's clock against DynamoDB's) cannot know what was deleted above it,
//! and starts a new epoch there. Its first seq, [`Seq::epoch_start`] of the time (100 per
//! millisecond), is above every seq of the old epoch: an epoch's items are appended one
//! at a time, far fewer than 100 per millisecond over the day it lasted at least (and
//! never below the newest seq + 1 whatever the clock says).
use std::time::Duration;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::error::BuildError;
use aws_sdk_dynamodb::types::{AttributeValue, ConditionCheck, Put, TransactWriteItem, Update};

use serde::{Deserialize, Serialize};

use super::error::store_error;
use super::item::{self, Malformed, Stored};
use super::message_item::{EPOCH_ITEM_SEQ, attr, key, message_to_item};
use shared::domain::{EpochMillis, MessageId, PLAYER_RETENTION_SECONDS, PlayerId, Seq};
use shared::messaging::{MIN_KEPT_SECONDS, NewMessage, expire_at_secs};
use shared::ports::StoreError;

/// How many times an append reads the inbox again after losing a race for a seq.
pub(crate) const APPEND_ATTEMPTS: u32 = 25;

/// `seq` must be free.
pub(crate) const SEQ_IS_FREE: &str = "attribute_not_exists(seq)";
/// The epoch item is as the writer (or the hand-over) saw it.
const EPOCH_ABSENT: &str = "attribute_not_exists(epoch)";
const EPOCH_UNCHANGED: &str = "attribute_not_exists(epoch) OR epoch = :epoch";
const SET_EPOCH: &str = "SET epoch = :epoch, expireAt = :expireAt";

/// How far ahead of the writer's clock DynamoDB's may be: a newest item this close to
/// its `expireAt` counts as expired.
pub(crate) const CLOCK_MARGIN_MS: EpochMillis = 60_000;

/// The inbox's newest item, as an append sees it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct InboxTop {
    /// The newest message.
    pub newest: Option<Newest>,
    /// The epoch item's epoch, when the inbox holds no message but has one.
    pub epoch_item: Option<Seq>,
}

/// An inbox's newest message, as an append sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Newest {
    pub seq: Seq,
    pub epoch: Seq,
    pub message_id: MessageId,
    /// Its `expireAt`: no item below it in its epoch expires later.
    pub kept_until_secs: i64,
}

/// What the head read projects of the inbox's newest item (a message, or the epoch item,
/// which has no `messageId`).
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct HeadItem {
    recipient_id: PlayerId,
    seq: Seq,
    epoch: Seq,
    message_id: Option<MessageId>,
    #[serde(rename = "expireAt")]
    expire_at_secs: i64,
}

impl Stored for HeadItem {
    const TABLE: &'static str = "Messages";
    const KEY: &'static [&'static str] = &[attr::RECIPIENT_ID, attr::SEQ];
}

/// The projection of the head read: [`HeadItem`]'s attributes.
const HEAD_PROJECTION: &str = "recipientId, seq, epoch, messageId, expireAt";

/// Where a message goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Slot {
    /// The inbox's newest message is this one already (a retried invocation).
    Taken,
    /// After the newest message, in its epoch, kept at least as long as the newest.
    Next {
        seq: Seq,
        epoch: Seq,
        kept_until_secs: i64,
    },
    /// The inbox holds no message, or its newest has expired: a new epoch, starting with
    /// this one, if the epoch item is still `seen`.
    NewEpoch { seq: Seq, seen: Option<Seq> },
}

impl Slot {
    /// The slot of `message` on an inbox whose newest item is `top`.
    pub(crate) fn of(top: &InboxTop, message: &NewMessage) -> Self {
        match &top.newest {
            Some(newest) if newest.message_id == message.message_id => Self::Taken,
            Some(newest)
                if newest.kept_until_secs.saturating_mul(1000)
                    <= message.created_at.saturating_add(CLOCK_MARGIN_MS) =>
            {
                Self::NewEpoch {
                    seq: Seq::epoch_start(message.created_at).max(newest.seq.next()),
                    // The epoch item holds the newest message's epoch (or expired).
                    seen: Some(newest.epoch),
                }
            }
            Some(newest) => Self::Next {
                seq: newest.seq.next(),
                epoch: newest.epoch,
                kept_until_secs: newest.kept_until_secs,
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

    /// The slot after this one once `message` is written in it (the next message of the
    /// same recipient goes there unless someone else got there first).
    pub(crate) fn following(self, message: &NewMessage) -> Option<Self> {
        match self {
            Self::Taken => None,
            Self::Next {
                seq,
                epoch,
                kept_until_secs,
            } => Some(Self::Next {
                seq: seq.next(),
                epoch,
                kept_until_secs: kept_until(kept_until_secs, message),
            }),
            Self::NewEpoch { seq, .. } => Some(Self::Next {
                seq: seq.next(),
                epoch: seq,
                kept_until_secs: kept_until(i64::MIN, message),
            }),
        }
    }
}

/// The `expireAt` of `message` written above an item kept until `floor`: the latest of
/// that, its own TTL and [`MIN_KEPT_SECONDS`] after it was written.
fn kept_until(floor: i64, message: &NewMessage) -> i64 {
    floor
        .max(message.expire_at_secs)
        .max(expire_at_secs(message.created_at, MIN_KEPT_SECONDS))
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
        .projection_expression(HEAD_PROJECTION)
        .scan_index_forward(false)
        .limit(1)
        .consistent_read(true)
        .send()
        .await
        .map_err(store_error)?;
    match output.items.unwrap_or_default().into_iter().next() {
        Some(item) => head(item),
        None => Ok(InboxTop::default()),
    }
}

/// The head read's item as an append sees it.
fn head(stored: item::Item) -> Result<InboxTop, StoreError> {
    let key = item::key_text::<HeadItem>(&stored);
    let head: HeadItem = item::read::<HeadItem, HeadItem>(stored)?;
    if head.seq == EPOCH_ITEM_SEQ {
        return Ok(InboxTop {
            newest: None,
            epoch_item: Some(head.epoch),
        });
    }
    let Some(message_id) = head.message_id else {
        return Err(item::corrupt::<HeadItem>(
            key,
            &Malformed::new(attr::MESSAGE_ID, "missing on a message"),
        ));
    };
    Ok(InboxTop {
        newest: Some(Newest {
            seq: head.seq,
            epoch: head.epoch,
            message_id,
            kept_until_secs: head.expire_at_secs,
        }),
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
    let (seq, epoch, seen, floor) = match slot {
        Slot::Taken => return Ok(Vec::new()),
        Slot::Next {
            seq,
            epoch,
            kept_until_secs,
        } => (seq, epoch, None, kept_until_secs),
        Slot::NewEpoch { seq, seen } => (seq, seq, Some(seen), i64::MIN),
    };
    let stored = message
        .clone()
        .at(seq, epoch)
        .kept_until(kept_until(floor, message));
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
                    .set_item(Some(message_to_item(&stored)?))
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

    /// An inbox whose newest message is `m2` at seq 12 of epoch 10, kept until `kept`.
    fn top_kept_until(kept: i64) -> InboxTop {
        InboxTop {
            newest: Some(Newest {
                seq: seq(12),
                epoch: seq(10),
                message_id: MessageId::from_stored("m2"),
                kept_until_secs: kept,
            }),
            epoch_item: None,
        }
    }

    #[test]
    fn a_message_goes_after_the_newest_in_its_epoch_unless_it_is_the_newest() {
        let at = 1_795_323_600_000;
        let top = top_kept_until(at / 1000 + 3_600);
        let next = Slot::of(&top, &message("m3", at));
        assert_eq!(
            next,
            Slot::Next {
                seq: seq(13),
                epoch: seq(10),
                kept_until_secs: at / 1000 + 3_600,
            }
        );
        assert_eq!(Slot::of(&top, &message("m2", at)), Slot::Taken);
        assert_eq!(Slot::Taken.following(&message("m2", at)), None);
        assert_eq!(
            next.following(&message("m3", at)),
            Some(Slot::Next {
                seq: seq(14),
                epoch: seq(10),
                // m3's own TTL is a minute; kept a day, the longest of the three.
                kept_until_secs: at / 1000 + MIN_KEPT_SECONDS,
            })
        );
    }

    #[test]
    fn given_a_short_lived_message_above_a_long_lived_one_when_written_then_it_is_kept_as_long_and_delivered_only_for_its_own_ttl()
     {
        let at = 1_795_323_600_000;
        let week = at / 1000 + 7 * 86_400;
        let presence = message("m3", at);
        let writes = writes(
            "Messages",
            &presence,
            Slot::of(&top_kept_until(week), &presence),
        )
        .unwrap();
        let item = writes[0].put().unwrap().item();
        assert_eq!(item["expireAt"], AttributeValue::N(week.to_string()));
        assert_eq!(
            item["replayUntil"],
            AttributeValue::N(presence.expire_at_secs.to_string())
        );
    }

    #[test]
    fn given_the_newest_message_expired_when_appending_then_a_new_epoch_starts_above_it() {
        let at = 1_795_323_600_000;
        // Expired a second ago, or due within the clock margin: the items above it (if
        // any) may be deleted already, so its seq + 1 may have been handed out before.
        for kept in [at / 1000 - 1, (at + CLOCK_MARGIN_MS) / 1000] {
            assert_eq!(
                Slot::of(&top_kept_until(kept), &message("m3", at)),
                Slot::NewEpoch {
                    seq: Seq::epoch_start(at),
                    seen: Some(seq(10)),
                },
                "kept until {kept}"
            );
        }
        // A writer's clock far behind still starts above the newest seq.
        let behind = InboxTop {
            newest: Some(Newest {
                seq: Seq::epoch_start(at),
                epoch: Seq::epoch_start(at),
                message_id: MessageId::from_stored("m2"),
                kept_until_secs: 0,
            }),
            epoch_item: None,
        };
        assert_eq!(
            Slot::of(&behind, &message("m3", at - 5_000)),
            Slot::NewEpoch {
                seq: Seq::epoch_start(at).next(),
                seen: Some(Seq::epoch_start(at)),
            }
        );
        let epoch = writes(
            "Messages",
            &message("m3", at),
            Slot::of(&top_kept_until(0), &message("m3", at)),
        )
        .unwrap();
        assert_eq!(epoch.len(), 2, "the epoch item's update and the message");
        assert_eq!(
            epoch[0].update().unwrap().condition_expression(),
            Some("attribute_not_exists(epoch) OR epoch = :seen")
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
            started.following(&message("m1", at)),
            Some(Slot::Next {
                seq: Seq::epoch_start(at).next(),
                epoch: Seq::epoch_start(at),
                kept_until_secs: at / 1000 + MIN_KEPT_SECONDS,
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
                kept_until_secs: 0,
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
