//! The Messages item (an inbox entry, see `shared::ports::messages`), derived, and
//! its mapping to [`StoredMessage`], both ways: the SDK's attribute maps (PutItem, Query
//! results) and the stream's `NEW_IMAGE` as `aws_lambda_events` delivers it
//! (`serde_dynamo::Item`), for `on-message-inserted`.
//!
//! Each inbox also has one epoch item at `seq` 0 holding only `epoch` and `expireAt`: the
//! current epoch, written when an empty inbox starts a new one, so that `resume`'s
//! hand-over can tell that happened (see `inbox.rs`).

use serde::{Deserialize, Deserializer, Serialize};

use super::item::{self, Item, Stored, decode};
use shared::domain::{EpochMillis, MessageId, PlayerId, Seq};
use shared::messaging::{MessageKind, StoredMessage};
use shared::ports::StoreError;

pub use super::item::Malformed as MessageImageError;

/// A message in an inbox: serde's remote derive for [`StoredMessage`] (see
/// `placement_item.rs`); what the domain refuses is refused as it is read.
#[derive(Serialize, Deserialize)]
#[serde(remote = "StoredMessage", rename_all = "camelCase")]
struct MessageItem {
    /// Partition key: the inbox.
    recipient_id: PlayerId,
    /// Sort key: the position in the inbox (0: the epoch item, which the stream's
    /// filter `seq > 0` leaves out).
    #[serde(deserialize_with = "message_seq")]
    seq: Seq,
    /// The first seq of the inbox epoch the message belongs to.
    epoch: Seq,
    /// What clients de-duplicate on.
    #[serde(deserialize_with = "message_id")]
    message_id: MessageId,
    /// A player id, or `system`.
    sender_id: String,
    /// A [`MessageKind`] (`MessageKind::as_str`).
    #[serde(with = "kind")]
    kind: MessageKind,
    /// The server frame to deliver, JSON text.
    payload: String,
    /// Epoch milliseconds.
    created_at: EpochMillis,
    /// Epoch seconds (TTL): at least as late as the item before it in the inbox
    /// (`inbox.rs`), so it may be later than the message's own TTL.
    #[serde(rename = "expireAt")]
    expire_at_secs: i64,
    /// Epoch seconds: the message's own TTL, present only when `expireAt` is later.
    #[serde(
        rename = "replayUntil",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    replay_until_secs: Option<i64>,
}

#[derive(Serialize, Deserialize)]
#[serde(transparent)]
struct Message(#[serde(with = "MessageItem")] StoredMessage);

impl Stored for Message {
    const TABLE: &'static str = "Messages";
    const KEY: &'static [&'static str] = &[attr::RECIPIENT_ID, attr::SEQ];
}

impl From<Message> for StoredMessage {
    fn from(message: Message) -> Self {
        message.0
    }
}

/// [`Message`]'s encoding of a borrowed message: writing an item or an image copies
/// nothing beforehand.
#[derive(Serialize)]
#[serde(transparent)]
struct MessageRef<'a>(#[serde(with = "MessageItem")] &'a StoredMessage);

/// The table key of an inbox position.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MessageKey<'a> {
    recipient_id: &'a str,
    seq: u64,
}

/// Attribute names the adapters' expressions and the tables' key schemas use: the
/// struct's field names (a test holds them equal).
pub mod attr {
    pub const RECIPIENT_ID: &str = "recipientId";
    pub const SEQ: &str = "seq";
    pub const EPOCH: &str = "epoch";
    pub const MESSAGE_ID: &str = "messageId";
    pub const EXPIRE_AT: &str = "expireAt";
}

/// The `seq` of an inbox's epoch item.
pub const EPOCH_ITEM_SEQ: Seq = Seq::ZERO;

/// A message's `seq`: never the epoch item's.
fn message_seq<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Seq, D::Error> {
    match Seq::deserialize(deserializer)? {
        EPOCH_ITEM_SEQ => Err(serde::de::Error::custom(
            "0 is the inbox's epoch item, not a message",
        )),
        seq => Ok(seq),
    }
}

/// A message's id: any stored one but empty.
fn message_id<'de, D: Deserializer<'de>>(deserializer: D) -> Result<MessageId, D::Error> {
    let id = MessageId::deserialize(deserializer)?;
    if id.as_str().is_empty() {
        return Err(serde::de::Error::custom("empty"));
    }
    Ok(id)
}

/// `kind` as [`MessageKind::as_str`] writes it.
mod kind {
    use serde::{Deserialize, Deserializer, Serializer};

    use super::{MessageKind, quoted};

    pub(super) fn serialize<S: Serializer>(
        kind: &MessageKind,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(kind.as_str())
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<MessageKind, D::Error> {
        let raw = String::deserialize(deserializer)?;
        MessageKind::parse(&raw)
            .ok_or_else(|| serde::de::Error::custom(quoted(&raw, "not a message kind")))
    }
}

/// `value` (cut to 64 characters) and why it is wrong.
fn quoted(value: &str, reason: &str) -> String {
    let mut cut: String = value.chars().take(64).collect();
    if cut.len() < value.len() {
        cut.push('…');
    }
    format!("{cut:?}: {reason}")
}

/// The item an append writes for a message.
pub fn message_to_item(message: &StoredMessage) -> Result<Item, StoreError> {
    item::to_item(&MessageRef(message))
}

/// Maps a Messages item (a Query result) back to the message.
pub(crate) fn message_from_item(stored: &Item) -> Result<StoredMessage, StoreError> {
    item::read::<Message, _>(stored.clone())
}

/// Maps the `NEW_IMAGE` of a Messages stream record
/// (`aws_lambda_events::event::dynamodb::StreamRecord::new_image`) to the message,
/// consuming the image (its strings move into the message).
pub fn message_from_stream_image(
    image: serde_dynamo::Item,
) -> Result<StoredMessage, MessageImageError> {
    decode::<Message>(image).map(StoredMessage::from)
}

/// True for the image of an inbox's epoch item (`seq` 0), which is not a message: the
/// stream's filter leaves it out, and the consumer skips it if one gets through.
pub fn is_epoch_item_image(image: &serde_dynamo::Item) -> bool {
    matches!(image.get(attr::SEQ), Some(serde_dynamo::AttributeValue::N(seq)) if seq == "0")
}

/// The `NEW_IMAGE` a stream carries for a message: what the local stack hands
/// `on-message-inserted` in place of DynamoDB Streams, and test fixtures.
pub fn message_to_stream_image(message: &StoredMessage) -> serde_dynamo::Item {
    // Strings and numbers only: always serializable.
    serde_dynamo::to_item(MessageRef(message)).unwrap_or_default()
}

/// The table key of an inbox position.
pub(crate) fn key(recipient: &PlayerId, seq: Seq) -> Result<Item, StoreError> {
    item::to_item(&MessageKey {
        recipient_id: recipient.as_str(),
        seq: seq.get(),
    })
}

#[cfg(test)]
mod tests {
    use aws_lambda_events::event::dynamodb::EventRecord;
    use aws_sdk_dynamodb::types::AttributeValue;
    use serde_json::json;

    use super::super::item::wire;
    use super::*;

    fn message() -> StoredMessage {
        StoredMessage {
            seq: Seq::new(179_532_360_000_003).unwrap(),
            epoch: Seq::new(179_532_360_000_000).unwrap(),
            message_id: MessageId::from_stored("01JDK3Z5Q8M2W4X6Y8Z0A2B4C6"),
            recipient_id: PlayerId::parse("bob").unwrap(),
            sender_id: "alice".into(),
            kind: MessageKind::Chat,
            payload: r#"{"type":"message","messageId":"01JDK3Z5Q8M2W4X6Y8Z0A2B4C6","from":"alice","message":{"text":"gg"},"sentAt":1795323600000}"#.into(),
            created_at: 1_795_323_600_000,
            expire_at_secs: 1_795_410_000,
            replay_until_secs: None,
        }
    }

    fn item() -> Item {
        message_to_item(&message()).unwrap()
    }

    fn corrupt_reason(item: &Item) -> String {
        match message_from_item(item) {
            Err(StoreError::Corrupt { reason, .. }) => reason,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn given_a_message_when_written_then_it_has_the_attributes_the_hand_written_mapping_wrote_and_reads_back()
     {
        // Captured from the hand-written mapping this struct replaced.
        let old = json!({
            "recipientId": {"S": "bob"}, "seq": {"N": "179532360000003"},
            "epoch": {"N": "179532360000000"}, "messageId": {"S": "01JDK3Z5Q8M2W4X6Y8Z0A2B4C6"},
            "senderId": {"S": "alice"}, "kind": {"S": "party"},
            "payload": {"S": "{\"type\":\"message\",\"text\":\"gg\"}"},
            "createdAt": {"N": "1795323600000"}, "expireAt": {"N": "1795410000"}
        });
        let party = StoredMessage {
            kind: MessageKind::Party,
            payload: r#"{"type":"message","text":"gg"}"#.into(),
            ..message()
        };
        assert_eq!(wire::to_json(&message_to_item(&party).unwrap()), old);
        assert_eq!(message_from_item(&wire::from_json(old)).unwrap(), party);
        let key = key(&PlayerId::parse("bob").unwrap(), Seq::new(5).unwrap()).unwrap();
        assert_eq!(
            wire::to_json(&key),
            json!({"recipientId": {"S": "bob"}, "seq": {"N": "5"}})
        );
    }

    #[test]
    fn given_every_kind_when_written_then_items_and_stream_images_read_back() {
        for kind in [
            MessageKind::Chat,
            MessageKind::Placement,
            MessageKind::Presence,
            MessageKind::Party,
            MessageKind::Matchmaking,
            MessageKind::Kick,
            MessageKind::Friend,
        ] {
            let m = StoredMessage { kind, ..message() };
            assert_eq!(message_from_item(&message_to_item(&m).unwrap()).unwrap(), m);
            let image = message_to_stream_image(&m);
            assert_eq!(message_from_stream_image(image), Ok(m));
        }
    }

    #[test]
    fn given_a_message_kept_past_its_own_ttl_when_written_then_it_carries_its_own_ttl_and_reads_back()
     {
        let kept = message().kept_until(1_795_500_000);
        let item = message_to_item(&kept).unwrap();
        assert_eq!(item["expireAt"], AttributeValue::N("1795500000".into()));
        assert_eq!(item["replayUntil"], AttributeValue::N("1795410000".into()));
        assert_eq!(message_from_item(&item).unwrap(), kept);
        let image = message_to_stream_image(&kept);
        assert_eq!(message_from_stream_image(image), Ok(kept));
        assert!(
            !message_to_item(&message())
                .unwrap()
                .contains_key("replayUntil")
        );
    }

    #[test]
    fn given_the_names_expressions_use_then_they_are_the_items_attributes() {
        let item = item();
        for name in [
            attr::RECIPIENT_ID,
            attr::SEQ,
            attr::EPOCH,
            attr::MESSAGE_ID,
            attr::EXPIRE_AT,
        ] {
            assert!(item.contains_key(name), "{name}");
        }
    }

    #[test]
    fn given_a_missing_or_mistyped_attribute_when_read_then_the_error_names_the_table_key_and_attribute()
     {
        for attribute in ["seq", "kind", "createdAt", "expireAt", "recipientId"] {
            let mut item = item();
            item.remove(attribute);
            let reason = corrupt_reason(&item);
            assert!(reason.starts_with("Messages item: "), "{reason}");
            assert!(reason.contains(&format!("`{attribute}`")), "{reason}");
        }
        for (attribute, wrong) in [
            ("epoch", AttributeValue::S("1".into())),
            ("kind", AttributeValue::N("1".into())),
            ("createdAt", AttributeValue::N("1.5".into())),
            ("expireAt", AttributeValue::N("1e400".into())),
            ("seq", AttributeValue::N("-1".into())),
        ] {
            let mut item = item();
            item.insert(attribute.into(), wrong);
            let reason = corrupt_reason(&item);
            assert!(
                reason.starts_with(&format!("Messages item: {attribute}: ")),
                "{reason}"
            );
        }
        let mut image = message_to_stream_image(&message());
        image.insert("kind".into(), serde_dynamo::AttributeValue::Null(true));
        assert_eq!(
            message_from_stream_image(image).unwrap_err().attribute,
            "kind"
        );
    }

    #[test]
    fn given_a_value_the_domain_refuses_when_read_then_the_error_names_and_quotes_it() {
        for (attribute, value, says) in [
            ("messageId", AttributeValue::S("".into()), "empty"),
            ("seq", AttributeValue::N("0".into()), "epoch item"),
            ("epoch", AttributeValue::N("9007199254740992".into()), ""),
            ("recipientId", AttributeValue::S("b b".into()), "position 1"),
            (
                "kind",
                AttributeValue::S("shout".into()),
                "\"shout\": not a message kind",
            ),
        ] {
            let mut item = item();
            item.insert(attribute.into(), value);
            let reason = match message_from_item(&item) {
                Err(StoreError::Corrupt { key, reason }) => {
                    if attribute != "recipientId" && attribute != "seq" {
                        assert_eq!(key, "recipientId=bob seq=179532360000003");
                    }
                    reason
                }
                other => panic!("{other:?}"),
            };
            assert!(
                reason.starts_with(&format!("Messages item: {attribute}: ")),
                "{reason}"
            );
            assert!(reason.contains(says), "{reason}");
        }
        let mut item = item();
        item.insert("kind".into(), AttributeValue::S("k".repeat(1000)));
        let text = corrupt_reason(&item);
        assert!(text.len() < 200, "long values are cut: {text}");
    }

    #[test]
    fn given_an_epoch_item_image_then_it_is_told_apart() {
        let mut image = message_to_stream_image(&message());
        assert!(!is_epoch_item_image(&image));
        image.insert("seq".into(), serde_dynamo::AttributeValue::N("0".into()));
        assert!(is_epoch_item_image(&image));
    }

    /// A record as Lambda delivers it from the Messages stream (NEW_IMAGE).
    const STREAM_RECORD: &str = r#"{
        "eventID": "c4ca4238a0b923820dcc509a6f75849b",
        "eventName": "INSERT",
        "eventVersion": "1.1",
        "eventSource": "aws:dynamodb",
        "awsRegion": "us-east-1",
        "dynamodb": {
            "ApproximateCreationDateTime": 1795323600,
            "Keys": {"recipientId": {"S": "bob"}, "seq": {"N": "179532360000003"}},
            "NewImage": {
                "seq": {"N": "179532360000003"},
                "epoch": {"N": "179532360000000"},
                "messageId": {"S": "01JDK3Z5Q8M2W4X6Y8Z0A2B4C6"},
                "recipientId": {"S": "bob"},
                "senderId": {"S": "alice"},
                "kind": {"S": "chat"},
                "payload": {"S": "{\"type\":\"message\",\"messageId\":\"01JDK3Z5Q8M2W4X6Y8Z0A2B4C6\",\"from\":\"alice\",\"message\":{\"text\":\"gg\"},\"sentAt\":1795323600000}"},
                "createdAt": {"N": "1795323600000"},
                "expireAt": {"N": "1795410000"}
            },
            "SequenceNumber": "111",
            "SizeBytes": 26,
            "StreamViewType": "NEW_IMAGE"
        },
        "eventSourceARN": "arn:aws:dynamodb:us-east-1:123456789012:table/Messages/stream/2026-11-22T00:00:00.000"
    }"#;

    #[test]
    fn given_a_stream_record_when_read_then_it_maps_to_the_message_it_inserted() {
        let record: EventRecord = serde_json::from_str(STREAM_RECORD).expect("a stream record");
        assert_eq!(record.event_name, "INSERT");
        assert_eq!(
            message_from_stream_image(record.change.new_image),
            Ok(message())
        );
    }

    #[test]
    fn given_a_stream_record_without_a_new_image_when_read_then_it_says_what_is_missing() {
        let mut record: serde_json::Value = serde_json::from_str(STREAM_RECORD).unwrap();
        record["dynamodb"]
            .as_object_mut()
            .unwrap()
            .remove("NewImage");
        record["dynamodb"]["StreamViewType"] = "KEYS_ONLY".into();
        let record: EventRecord = serde_json::from_value(record).unwrap();
        let err = message_from_stream_image(record.change.new_image).unwrap_err();
        assert!(err.reason.starts_with("missing field"), "{err}");
    }
}
