//! The Messages item (an inbox entry, see docs/architecture.md#data-model) and its
//! mapping to [`StoredMessage`], both ways: the SDK's attribute maps (PutItem, Query
//! results) and the stream's `NEW_IMAGE` as `aws_lambda_events` delivers it
//! (`serde_dynamo::Item`), for `on-message-inserted`.
//!
//! | attribute     | type | meaning                                                  |
//! |---------------|------|----------------------------------------------------------|
//! | `recipientId` | S    | partition key: the inbox                                 |
//! | `seq`         | N    | sort key: the position in the inbox (0: the epoch item)  |
//! | `epoch`       | N    | the first seq of the inbox epoch the message belongs to  |
//! | `messageId`   | S    | what clients de-duplicate on                             |
//! | `senderId`    | S    | a player id, or `system`                                 |
//! | `kind`        | S    | `chat` / `placement` / `presence` / `party`              |
//! | `payload`     | S    | the server frame to deliver, JSON text                   |
//! | `createdAt`   | N    | epoch milliseconds                                       |
//! | `expireAt`    | N    | epoch seconds (TTL)                                      |
//!
//! Each inbox also has one epoch item at `seq` 0 holding only `epoch` and `expireAt`: the
//! current epoch, written when an empty inbox starts a new one, so that `resume`'s
//! hand-over can tell that happened (see `inbox.rs`).

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;

use shared::domain::{MessageId, PlayerId, Seq};
use shared::messaging::{MessageKind, StoredMessage};
use shared::ports::StoreError;

/// A Messages item as the SDK reads and writes it.
pub type Item = HashMap<String, AttributeValue>;

/// Attribute names of the Messages table.
pub mod attr {
    pub const RECIPIENT_ID: &str = "recipientId";
    pub const SEQ: &str = "seq";
    pub const EPOCH: &str = "epoch";
    pub const MESSAGE_ID: &str = "messageId";
    pub const SENDER_ID: &str = "senderId";
    pub const KIND: &str = "kind";
    pub const PAYLOAD: &str = "payload";
    pub const CREATED_AT: &str = "createdAt";
    pub const EXPIRE_AT: &str = "expireAt";
}

/// The `seq` of an inbox's epoch item.
pub const EPOCH_ITEM_SEQ: Seq = Seq::ZERO;

/// How much of a malformed value an error quotes.
const QUOTED_VALUE_CHARS: usize = 64;

/// Why an item (or a stream image) is not a [`StoredMessage`]; always names the attribute.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MessageImageError {
    #[error("attribute {attribute} is missing")]
    Missing { attribute: &'static str },
    #[error("attribute {attribute} is of type {found}; expected {expected}")]
    WrongType {
        attribute: &'static str,
        /// The DynamoDB type wanted: `S` or `N`.
        expected: &'static str,
        /// The DynamoDB type found (`S`, `N`, `BOOL`, `NULL`, `M`, …).
        found: &'static str,
    },
    #[error("attribute {attribute} is {value:?}: {reason}")]
    Malformed {
        attribute: &'static str,
        /// The value, cut to 64 characters.
        value: String,
        reason: String,
    },
}

impl MessageImageError {
    /// The attribute at fault.
    pub fn attribute(&self) -> &'static str {
        match self {
            Self::Missing { attribute }
            | Self::WrongType { attribute, .. }
            | Self::Malformed { attribute, .. } => attribute,
        }
    }

    fn malformed(attribute: &'static str, value: &str, reason: impl Into<String>) -> Self {
        let mut quoted: String = value.chars().take(QUOTED_VALUE_CHARS).collect();
        if quoted.len() < value.len() {
            quoted.push('…');
        }
        Self::Malformed {
            attribute,
            value: quoted,
            reason: reason.into(),
        }
    }
}

/// The item an append writes for a message.
pub fn message_to_item(message: &StoredMessage) -> Item {
    HashMap::from([
        (
            attr::RECIPIENT_ID.to_owned(),
            s(message.recipient_id.as_str()),
        ),
        (attr::SEQ.to_owned(), n(message.seq.get())),
        (attr::EPOCH.to_owned(), n(message.epoch.get())),
        (attr::MESSAGE_ID.to_owned(), s(message.message_id.as_str())),
        (attr::SENDER_ID.to_owned(), s(&message.sender_id)),
        (attr::KIND.to_owned(), s(message.kind.as_str())),
        (attr::PAYLOAD.to_owned(), s(&message.payload)),
        (attr::CREATED_AT.to_owned(), n(message.created_at)),
        (attr::EXPIRE_AT.to_owned(), n(message.expire_at_secs)),
    ])
}

/// Maps a Messages item (a Query result) back to the message.
pub fn message_from_item(item: &Item) -> Result<StoredMessage, MessageImageError> {
    parse(item)
}

/// Maps the `NEW_IMAGE` of a Messages stream record
/// (`aws_lambda_events::event::dynamodb::StreamRecord::new_image`) to the message.
pub fn message_from_stream_image(
    image: &serde_dynamo::Item,
) -> Result<StoredMessage, MessageImageError> {
    parse(image)
}

/// True for the image of an inbox's epoch item (`seq` 0), which is not a message: the
/// stream's filter leaves it out, and the consumer skips it if one gets through.
pub fn is_epoch_item_image(image: &serde_dynamo::Item) -> bool {
    matches!(image.get(attr::SEQ), Some(serde_dynamo::AttributeValue::N(seq)) if seq == "0")
}

/// The `NEW_IMAGE` a stream carries for a message: what the local stack hands
/// `on-message-inserted` in place of DynamoDB Streams, and test fixtures.
pub fn message_to_stream_image(message: &StoredMessage) -> serde_dynamo::Item {
    use serde_dynamo::AttributeValue as V;
    HashMap::from([
        (
            attr::RECIPIENT_ID.to_owned(),
            V::S(message.recipient_id.as_str().to_owned()),
        ),
        (attr::SEQ.to_owned(), V::N(message.seq.to_string())),
        (attr::EPOCH.to_owned(), V::N(message.epoch.to_string())),
        (
            attr::MESSAGE_ID.to_owned(),
            V::S(message.message_id.as_str().to_owned()),
        ),
        (attr::SENDER_ID.to_owned(), V::S(message.sender_id.clone())),
        (
            attr::KIND.to_owned(),
            V::S(message.kind.as_str().to_owned()),
        ),
        (attr::PAYLOAD.to_owned(), V::S(message.payload.clone())),
        (
            attr::CREATED_AT.to_owned(),
            V::N(message.created_at.to_string()),
        ),
        (
            attr::EXPIRE_AT.to_owned(),
            V::N(message.expire_at_secs.to_string()),
        ),
    ])
    .into()
}

/// The table key of an inbox position.
pub(crate) fn key(recipient: &PlayerId, seq: Seq) -> Item {
    HashMap::from([
        (attr::RECIPIENT_ID.to_owned(), s(recipient.as_str())),
        (attr::SEQ.to_owned(), n(seq.get())),
    ])
}

/// A [`MessageImageError`] in a stored item, as the store reports it.
pub(crate) fn corrupt(item: &Item, err: &MessageImageError) -> StoreError {
    let part = |name: &str| match item.get(name) {
        Some(AttributeValue::S(value) | AttributeValue::N(value)) => value.clone(),
        _ => "<missing>".to_owned(),
    };
    let key = format!(
        "{}={} {}={}",
        attr::RECIPIENT_ID,
        part(attr::RECIPIENT_ID),
        attr::SEQ,
        part(attr::SEQ)
    );
    StoreError::Corrupt {
        key,
        reason: err.to_string(),
    }
}

fn s(value: impl Into<String>) -> AttributeValue {
    AttributeValue::S(value.into())
}

fn n(value: impl ToString) -> AttributeValue {
    AttributeValue::N(value.to_string())
}

/// The two attribute value types a message arrives in (the SDK's and the stream's).
trait AttributeView {
    fn string(&self) -> Option<&str>;
    fn number(&self) -> Option<&str>;
    fn type_name(&self) -> &'static str;
}

impl AttributeView for AttributeValue {
    fn string(&self) -> Option<&str> {
        self.as_s().ok().map(String::as_str)
    }

    fn number(&self) -> Option<&str> {
        self.as_n().ok().map(String::as_str)
    }

    fn type_name(&self) -> &'static str {
        match self {
            Self::S(_) => "S",
            Self::N(_) => "N",
            Self::B(_) => "B",
            Self::Bool(_) => "BOOL",
            Self::Null(_) => "NULL",
            Self::M(_) => "M",
            Self::L(_) => "L",
            Self::Ss(_) => "SS",
            Self::Ns(_) => "NS",
            Self::Bs(_) => "BS",
            _ => "unknown",
        }
    }
}

impl AttributeView for serde_dynamo::AttributeValue {
    fn string(&self) -> Option<&str> {
        match self {
            Self::S(value) => Some(value),
            _ => None,
        }
    }

    fn number(&self) -> Option<&str> {
        match self {
            Self::N(value) => Some(value),
            _ => None,
        }
    }

    fn type_name(&self) -> &'static str {
        match self {
            Self::S(_) => "S",
            Self::N(_) => "N",
            Self::B(_) => "B",
            Self::Bool(_) => "BOOL",
            Self::Null(_) => "NULL",
            Self::M(_) => "M",
            Self::L(_) => "L",
            Self::Ss(_) => "SS",
            Self::Ns(_) => "NS",
            Self::Bs(_) => "BS",
        }
    }
}

fn parse<A: AttributeView>(item: &HashMap<String, A>) -> Result<StoredMessage, MessageImageError> {
    let get = |attribute: &'static str| {
        item.get(attribute)
            .ok_or(MessageImageError::Missing { attribute })
    };
    let string = |attribute: &'static str| {
        let value = get(attribute)?;
        value.string().ok_or(MessageImageError::WrongType {
            attribute,
            expected: "S",
            found: value.type_name(),
        })
    };
    let integer = |attribute: &'static str| {
        let value = get(attribute)?;
        let raw = value.number().ok_or(MessageImageError::WrongType {
            attribute,
            expected: "N",
            found: value.type_name(),
        })?;
        raw.parse::<i64>().map_err(|_| {
            MessageImageError::malformed(attribute, raw, "not a whole number within i64")
        })
    };

    let seq = |attribute: &'static str| {
        let value = integer(attribute)?;
        u64::try_from(value)
            .ok()
            .and_then(|v| Seq::new(v).ok())
            .ok_or_else(|| {
                MessageImageError::malformed(
                    attribute,
                    &value.to_string(),
                    "not a seq (0 to 2^53 - 1)",
                )
            })
    };
    let position = seq(attr::SEQ)?;
    if position == EPOCH_ITEM_SEQ {
        return Err(MessageImageError::malformed(
            attr::SEQ,
            "0",
            "the inbox's epoch item, not a message",
        ));
    }
    let message_id = string(attr::MESSAGE_ID)?;
    if message_id.is_empty() {
        return Err(MessageImageError::malformed(
            attr::MESSAGE_ID,
            message_id,
            "empty",
        ));
    }
    let recipient = string(attr::RECIPIENT_ID)?;
    let recipient_id = PlayerId::parse(recipient)
        .map_err(|e| MessageImageError::malformed(attr::RECIPIENT_ID, recipient, e.to_string()))?;
    let kind = string(attr::KIND)?;
    let kind = MessageKind::parse(kind).ok_or_else(|| {
        MessageImageError::malformed(attr::KIND, kind, "not chat, placement, presence or party")
    })?;
    Ok(StoredMessage {
        seq: position,
        epoch: seq(attr::EPOCH)?,
        message_id: MessageId::from_stored(message_id),
        recipient_id,
        sender_id: string(attr::SENDER_ID)?.to_owned(),
        kind,
        payload: string(attr::PAYLOAD)?.to_owned(),
        created_at: integer(attr::CREATED_AT)?,
        expire_at_secs: integer(attr::EXPIRE_AT)?,
    })
}

#[cfg(test)]
mod tests {
    use aws_lambda_events::event::dynamodb::EventRecord;

    use super::*;

    const ALL: [&str; 9] = [
        attr::SEQ,
        attr::EPOCH,
        attr::MESSAGE_ID,
        attr::RECIPIENT_ID,
        attr::SENDER_ID,
        attr::KIND,
        attr::PAYLOAD,
        attr::CREATED_AT,
        attr::EXPIRE_AT,
    ];

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
        }
    }

    #[test]
    fn items_round_trip_for_every_kind() {
        for kind in [
            MessageKind::Chat,
            MessageKind::Placement,
            MessageKind::Presence,
            MessageKind::Party,
            MessageKind::Matchmaking,
            MessageKind::Kick,
        ] {
            let m = StoredMessage { kind, ..message() };
            assert_eq!(message_from_item(&message_to_item(&m)), Ok(m.clone()));
            assert_eq!(
                message_from_stream_image(&message_to_stream_image(&m)),
                Ok(m)
            );
        }
    }

    #[test]
    fn the_item_has_exactly_the_designed_attributes_and_types() {
        let item = message_to_item(&message());
        let mut names: Vec<_> = item.keys().map(String::as_str).collect();
        names.sort_unstable();
        let mut expected = ALL.to_vec();
        expected.sort_unstable();
        assert_eq!(names, expected);
        assert_eq!(item[attr::KIND], s("chat"));
        assert_eq!(
            item[attr::CREATED_AT],
            AttributeValue::N("1795323600000".into())
        );
        assert_eq!(
            item[attr::EXPIRE_AT],
            AttributeValue::N("1795410000".into())
        );
    }

    #[test]
    fn each_missing_attribute_is_named() {
        for attribute in ALL {
            let mut item = message_to_item(&message());
            item.remove(attribute);
            assert_eq!(
                message_from_item(&item),
                Err(MessageImageError::Missing { attribute }),
            );
            let mut image = message_to_stream_image(&message());
            image.remove(attribute);
            let err = message_from_stream_image(&image).unwrap_err();
            assert_eq!(err, MessageImageError::Missing { attribute });
            assert_eq!(err.to_string(), format!("attribute {attribute} is missing"));
        }
    }

    #[test]
    fn each_attribute_of_the_wrong_type_is_named() {
        for attribute in ALL {
            let numeric = matches!(
                attribute,
                attr::SEQ | attr::EPOCH | attr::CREATED_AT | attr::EXPIRE_AT
            );
            let (wrong, expected, found) = if numeric {
                (s("1795323600000"), "N", "S")
            } else {
                (AttributeValue::N("1".into()), "S", "N")
            };
            let mut item = message_to_item(&message());
            item.insert(attribute.into(), wrong);
            assert_eq!(
                message_from_item(&item),
                Err(MessageImageError::WrongType {
                    attribute,
                    expected,
                    found
                }),
            );
            let mut image = message_to_stream_image(&message());
            image.insert(attribute.into(), serde_dynamo::AttributeValue::Null(true));
            assert_eq!(
                message_from_stream_image(&image),
                Err(MessageImageError::WrongType {
                    attribute,
                    expected,
                    found: "NULL"
                }),
            );
        }
    }

    #[test]
    fn each_malformed_value_is_named_and_quoted() {
        for (attribute, value, reason) in [
            (attr::MESSAGE_ID, s(""), "empty"),
            (attr::SEQ, AttributeValue::N("-1".into()), "not a seq"),
            (attr::SEQ, AttributeValue::N("0".into()), "epoch item"),
            (
                attr::EPOCH,
                AttributeValue::N("9007199254740992".into()),
                "not a seq",
            ),
            (attr::RECIPIENT_ID, s("b b"), "position 1"),
            (attr::RECIPIENT_ID, s(""), "empty"),
            (
                attr::KIND,
                s("shout"),
                "not chat, placement, presence or party",
            ),
            (
                attr::CREATED_AT,
                AttributeValue::N("1.5".into()),
                "whole number",
            ),
            (
                attr::EXPIRE_AT,
                AttributeValue::N("1e400".into()),
                "whole number",
            ),
        ] {
            let mut item = message_to_item(&message());
            item.insert(attribute.into(), value);
            let err = message_from_item(&item).unwrap_err();
            assert_eq!(err.attribute(), attribute);
            assert!(
                matches!(&err, MessageImageError::Malformed { reason: r, .. } if r.contains(reason)),
                "{attribute}: {err}"
            );
        }
        let mut item = message_to_item(&message());
        item.insert(attr::KIND.into(), s("k".repeat(1000)));
        let text = message_from_item(&item).unwrap_err().to_string();
        assert!(text.len() < 200, "long values are cut: {text}");
        assert!(text.starts_with("attribute kind is \"kkk"), "{text}");
    }

    #[test]
    fn a_corrupt_stored_item_names_its_key_and_the_attribute() {
        let mut item = message_to_item(&message());
        item.insert(attr::KIND.into(), s("shout"));
        let err = message_from_item(&item).unwrap_err();
        match corrupt(&item, &err) {
            StoreError::Corrupt { key, reason } => {
                assert_eq!(key, "recipientId=bob seq=179532360000003");
                assert!(reason.contains("kind"), "{reason}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_key_is_the_inbox_and_the_position_and_the_epoch_item_is_told_apart() {
        let key = key(&PlayerId::parse("bob").unwrap(), Seq::new(5).unwrap());
        assert_eq!(key.len(), 2);
        assert_eq!(key[attr::RECIPIENT_ID], s("bob"));
        assert_eq!(key[attr::SEQ], AttributeValue::N("5".into()));
        let mut image = message_to_stream_image(&message());
        assert!(!is_epoch_item_image(&image));
        image.insert(
            attr::SEQ.into(),
            serde_dynamo::AttributeValue::N("0".into()),
        );
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
    fn a_stream_record_maps_to_the_message_it_inserted() {
        let record: EventRecord = serde_json::from_str(STREAM_RECORD).expect("a stream record");
        assert_eq!(record.event_name, "INSERT");
        let recipient = record.change.keys.get(attr::RECIPIENT_ID);
        assert_eq!(
            recipient,
            Some(&serde_dynamo::AttributeValue::S("bob".into()))
        );
        assert_eq!(
            message_from_stream_image(&record.change.new_image),
            Ok(message())
        );
    }

    #[test]
    fn a_stream_record_without_a_new_image_says_what_is_missing() {
        let mut record: serde_json::Value = serde_json::from_str(STREAM_RECORD).unwrap();
        record["dynamodb"]
            .as_object_mut()
            .unwrap()
            .remove("NewImage");
        record["dynamodb"]["StreamViewType"] = "KEYS_ONLY".into();
        let record: EventRecord = serde_json::from_value(record).unwrap();
        assert_eq!(
            message_from_stream_image(&record.change.new_image),
            Err(MessageImageError::Missing {
                attribute: attr::SEQ
            })
        );
    }
}
