//! The Messages table's stream as Lambda delivers it to `on-message-inserted` (records
//! of view type `NEW_IMAGE`), decoded here by the item codec that wrote the items
//! (`message_item`): the handler receives typed [`StreamedMessage`]s and knows no item
//! format.
//!
//! Each record is read on its own, so that one malformed record is skipped instead of
//! failing (and endlessly retrying) the whole batch: a record that does not decode is
//! logged and skipped, never a batch item failure (a retry cannot repair it; the message,
//! if there is one, stays in its inbox for `resume`).

use aws_lambda_events::event::dynamodb::EventRecord;
use serde::Deserialize;
use serde_json::Value;
use shared::domain::EpochMillis;
use shared::messaging::StoredMessage;
use shared::telemetry::ErrorChain;
use tracing::{debug, warn};

use super::message_item::{is_epoch_item_image, message_from_stream_image};

/// The stream event, each record parsed on its own.
#[derive(Debug)]
pub struct StreamBatch {
    pub records: Vec<BatchRecord>,
}

/// One record of a [`StreamBatch`]: Lambda's record, or why it did not parse.
#[derive(Debug, Clone)]
pub enum BatchRecord {
    Record(Box<EventRecord>),
    /// An INSERT of a message, already typed: what the local stack's in-memory stream
    /// hands over in place of an image this codec would write and read straight back
    /// (Lambda always delivers [`BatchRecord::Record`]s).
    Inserted(Box<StreamedMessage>),
    Malformed(String),
}

impl BatchRecord {
    /// A record in Lambda's JSON shape, parsed.
    pub fn from_json(value: Value) -> Self {
        match serde_json::from_value::<EventRecord>(value) {
            Ok(record) => Self::Record(Box::new(record)),
            Err(error) => Self::Malformed(ErrorChain(&error).to_string()),
        }
    }
}

impl<'de> Deserialize<'de> for StreamBatch {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Raw {
            #[serde(rename = "Records", default)]
            records: Vec<Value>,
        }
        let raw = Raw::deserialize(deserializer)?;
        Ok(Self {
            records: raw
                .records
                .into_iter()
                .map(BatchRecord::from_json)
                .collect(),
        })
    }
}

/// A message the stream says was inserted.
#[derive(Clone, Debug, PartialEq)]
pub struct StreamedMessage {
    /// The record's sequence number: the batch item identifier a partial failure names.
    pub sequence_number: String,
    pub message: StoredMessage,
    /// When the stream recorded the insert (DynamoDB rounds it down to the second).
    pub streamed_at: EpochMillis,
}

impl StreamedMessage {
    /// The INSERT of `message` as a stream records it: `streamed_at` is its creation
    /// time rounded down to the second, as DynamoDB's `ApproximateCreationDateTime`.
    pub fn inserted(message: StoredMessage, sequence_number: String) -> Self {
        let streamed_at = message.created_at / 1000 * 1000;
        Self {
            sequence_number,
            message,
            streamed_at,
        }
    }
}

impl StreamBatch {
    /// The messages the batch's INSERT records carry, in the batch's order; every other
    /// record (not an INSERT, an inbox's epoch item, one that does not decode) is logged
    /// and skipped.
    pub fn messages(self) -> Vec<StreamedMessage> {
        (self.records.into_iter().enumerate())
            .filter_map(|(i, record)| streamed_message(i, record))
            .collect()
    }
}

fn streamed_message(i: usize, record: BatchRecord) -> Option<StreamedMessage> {
    let mut record = match record {
        BatchRecord::Record(record) => record,
        BatchRecord::Inserted(inserted) => return Some(*inserted),
        BatchRecord::Malformed(error) => {
            warn!(record = i, error, "skipping a malformed stream record");
            return None;
        }
    };
    if record.event_name != "INSERT" {
        debug!(record = i, event_name = %record.event_name, "skipping a non-INSERT record");
        return None;
    }
    if is_epoch_item_image(&record.change.new_image) {
        debug!(record = i, "skipping an inbox's epoch item");
        return None;
    }
    let Some(sequence_number) = record.change.sequence_number.take() else {
        warn!(
            record = i,
            "skipping a stream record without a sequence number"
        );
        return None;
    };
    let streamed_at = record
        .change
        .approximate_creation_date_time
        .timestamp_millis();
    match message_from_stream_image(std::mem::take(&mut record.change.new_image)) {
        Ok(message) => Some(StreamedMessage {
            sequence_number,
            message,
            streamed_at,
        }),
        Err(error) => {
            warn!(record = i, sequence_number, error = %ErrorChain(&error), "skipping a stream record that is not a message");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use contracts::events::stream_insert;
    use serde_json::json;
    use shared::domain::{MessageId, Seq};
    use shared::messaging::MessageKind;

    use super::*;

    fn message(seq: u64) -> StoredMessage {
        StoredMessage {
            recipient_id: shared::domain::PlayerId::parse("bob").unwrap(),
            seq: Seq::new(seq).unwrap(),
            epoch: Seq::new(1).unwrap(),
            message_id: MessageId::generate(1_795_323_600_000),
            sender_id: "alice".into(),
            kind: MessageKind::Chat,
            payload: r#"{"type":"message"}"#.into(),
            created_at: 1_795_323_600_250,
            expire_at_secs: 1_795_410_000,
            replay_until_secs: None,
        }
    }

    #[test]
    fn given_a_batch_when_its_messages_are_taken_then_only_the_inserted_messages_come_typed_in_order()
     {
        let (first, second, third) = (message(7), message(8), message(9));
        let insert = stream_insert(&first, "101");
        let mut remove = insert.clone();
        remove["eventName"] = json!("REMOVE");
        let mut epoch_item = insert.clone();
        epoch_item["dynamodb"]["NewImage"] = json!({
            "recipientId": {"S": "bob"}, "seq": {"N": "0"}, "epoch": {"N": "5"}, "expireAt": {"N": "5"}
        });
        let mut not_a_message = insert.clone();
        (not_a_message["dynamodb"]["NewImage"].as_object_mut())
            .unwrap()
            .remove("payload");
        let mut no_sequence_number = insert.clone();
        (no_sequence_number["dynamodb"].as_object_mut())
            .unwrap()
            .remove("SequenceNumber");
        let batch: StreamBatch = serde_json::from_value(json!({"Records": [
            insert, remove, epoch_item, not_a_message, no_sequence_number,
            "not a record", {"eventName": 5}, stream_insert(&second, "102"),
        ]}))
        .unwrap();
        assert_eq!(batch.records.len(), 8);
        // And one the local stack hands over already typed.
        let typed = StreamedMessage::inserted(third.clone(), "103".into());
        let mut batch = batch;
        batch.records.push(BatchRecord::Inserted(Box::new(typed)));
        assert_eq!(
            batch.messages(),
            vec![
                StreamedMessage {
                    sequence_number: "101".into(),
                    message: first,
                    streamed_at: 1_795_323_600_000,
                },
                StreamedMessage {
                    sequence_number: "102".into(),
                    message: second,
                    streamed_at: 1_795_323_600_000,
                },
                StreamedMessage {
                    sequence_number: "103".into(),
                    message: third,
                    streamed_at: 1_795_323_600_000,
                },
            ]
        );
    }
}
