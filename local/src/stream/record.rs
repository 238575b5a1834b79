//! Stream records exactly as Lambda hands them to a DynamoDB stream consumer (the JSON
//! of `aws_lambda_events::dynamodb::EventRecord`), built from a message (in-memory mode)
//! or from a record read through the DynamoDB Streams API.

use std::collections::HashMap;
use std::sync::Arc;

use aws_adapters::dynamodb::message_item::message_to_stream_image;
use aws_sdk_dynamodbstreams::types::{AttributeValue, OperationType, Record};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use on_message_inserted::{BatchRecord, StreamedMessage};
use serde_json::{Map, Value, json};
use shared::messaging::StoredMessage;

/// The region of the in-memory stream's records (the local stack's ARNs use `local`).
pub const LOCAL_REGION: &str = "local";

/// One record on its way to the consumer: its sequence number (the batch item
/// identifier a partial failure names) and what the record Lambda delivers is made of.
///
/// The JSON is built for each invocation ([`StreamRecord::to_value`]) rather than kept
/// and cloned: the handler consumes its records, a retry needs them again, and building
/// from a message costs no more than cloning the JSON would.
#[derive(Clone, Debug, PartialEq)]
pub struct StreamRecord {
    pub sequence_number: String,
    body: Body,
}

#[derive(Clone, Debug, PartialEq)]
enum Body {
    /// A ready record (from the Streams API).
    Json(Value),
    /// An INSERT of this message (in-memory mode).
    Insert {
        message: StoredMessage,
        stream_arn: Arc<str>,
        /// `eventID`: the same on every delivery of the record, as in Lambda.
        event_id: u128,
    },
}

impl StreamRecord {
    /// A record already in Lambda's JSON shape.
    pub fn from_json(sequence_number: String, value: Value) -> Self {
        Self {
            sequence_number,
            body: Body::Json(value),
        }
    }

    /// The INSERT record of `message` on the stream `stream_arn`.
    pub fn insert(message: StoredMessage, sequence_number: String, stream_arn: Arc<str>) -> Self {
        Self {
            sequence_number,
            body: Body::Insert {
                message,
                stream_arn,
                event_id: fastrand::u128(..),
            },
        }
    }

    /// The record as the consumer's batch holds it: an in-memory insert is handed over
    /// as the message it carries (no image to encode here and decode back in the
    /// handler; a test holds it to what the handler reads from `to_value`'s record).
    pub fn to_record(&self) -> BatchRecord {
        match &self.body {
            Body::Json(value) => BatchRecord::from_json(value.clone()),
            Body::Insert { message, .. } => BatchRecord::Inserted(Box::new(
                StreamedMessage::inserted(message.clone(), self.sequence_number.clone()),
            )),
        }
    }

    /// The record as Lambda delivers it.
    pub fn to_value(&self) -> Value {
        match &self.body {
            Body::Json(value) => value.clone(),
            Body::Insert {
                message,
                stream_arn,
                event_id,
            } => build_insert(message, &self.sequence_number, stream_arn, *event_id),
        }
    }

    /// The item's partition key (`recipientId`, the inbox) that the stream and the event
    /// source mapping keep records in order by.
    pub fn partition_key(&self) -> Option<&str> {
        match &self.body {
            Body::Json(value) => value["dynamodb"]["Keys"]["recipientId"]["S"].as_str(),
            Body::Insert { message, .. } => Some(message.recipient_id.as_str()),
        }
    }
}

/// The ARN of the in-memory stream of `table`.
pub fn local_stream_arn(table: &str) -> String {
    format!("arn:aws:dynamodb:{LOCAL_REGION}:000000000000:table/{table}/stream/local")
}

/// A sequence number as DynamoDB writes them: decimal digits, here zero-padded to 21 so
/// they also sort as text.
pub fn sequence_number(n: u64) -> String {
    format!("{n:021}")
}

/// The INSERT record (stream view `NEW_IMAGE`) a table stream carries for `message`.
pub fn insert_record(message: &StoredMessage, sequence_number: &str, stream_arn: &str) -> Value {
    build_insert(message, sequence_number, stream_arn, fastrand::u128(..))
}

fn build_insert(
    message: &StoredMessage,
    sequence_number: &str,
    stream_arn: &str,
    event_id: u128,
) -> Value {
    let image = message_to_stream_image(message);
    let size_bytes: usize = image
        .iter()
        .map(|(name, value)| name.len() + image_value_len(value))
        .sum();
    let new_image = serde_json::to_value(&image).unwrap_or(Value::Null);
    json!({
        "eventID": format!("{event_id:032x}"),
        "eventName": "INSERT",
        "eventVersion": "1.1",
        "eventSource": "aws:dynamodb",
        "awsRegion": LOCAL_REGION,
        "dynamodb": {
            "ApproximateCreationDateTime": message.created_at / 1000,
            "Keys": {
                "recipientId": { "S": message.recipient_id.as_str() },
                "seq": { "N": message.seq.to_string() }
            },
            "NewImage": new_image,
            "SequenceNumber": sequence_number,
            "SizeBytes": size_bytes,
            "StreamViewType": "NEW_IMAGE"
        },
        "eventSourceARN": stream_arn
    })
}

fn image_value_len(value: &serde_dynamo::AttributeValue) -> usize {
    match value {
        serde_dynamo::AttributeValue::S(s) | serde_dynamo::AttributeValue::N(s) => s.len(),
        _ => 1,
    }
}

/// Why a Streams API record is not passed on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Skipped {
    /// Not an INSERT: the event source mapping's filter (`eventName: [INSERT]`) drops it.
    NotInsert,
    /// An inbox's epoch item (`seq` 0), not a message: the filter drops it too.
    EpochItem,
    /// No `dynamodb.SequenceNumber`: it could never be acknowledged.
    NoSequenceNumber,
}

/// A record from `GetRecords` as Lambda would deliver it: the same fields, attribute
/// values in DynamoDB JSON (`{"S": …}`, `{"N": …}`, `{"B": base64}`, …), the creation
/// time in epoch seconds, and `eventSourceARN` (which `GetRecords` does not return).
pub fn from_streams_api(record: &Record, stream_arn: &str) -> Result<StreamRecord, Skipped> {
    if record.event_name() != Some(&OperationType::Insert) {
        return Err(Skipped::NotInsert);
    }
    let change = record.dynamodb();
    let seq = change
        .and_then(|c| c.keys())
        .and_then(|keys| keys.get("seq"))
        .and_then(|seq| seq.as_n().ok());
    if seq.is_some_and(|seq| seq == "0") {
        return Err(Skipped::EpochItem);
    }
    let sequence_number = change
        .and_then(|c| c.sequence_number())
        .ok_or(Skipped::NoSequenceNumber)?
        .to_owned();
    let mut dynamodb = Map::new();
    if let Some(change) = change {
        if let Some(at) = change.approximate_creation_date_time() {
            dynamodb.insert(
                "ApproximateCreationDateTime".into(),
                json!(at.as_secs_f64()),
            );
        }
        if let Some(keys) = change.keys() {
            dynamodb.insert("Keys".into(), item_json(keys));
        }
        if let Some(image) = change.new_image() {
            dynamodb.insert("NewImage".into(), item_json(image));
        }
        if let Some(image) = change.old_image() {
            dynamodb.insert("OldImage".into(), item_json(image));
        }
        dynamodb.insert(
            "SequenceNumber".into(),
            Value::String(sequence_number.clone()),
        );
        if let Some(size) = change.size_bytes() {
            dynamodb.insert("SizeBytes".into(), json!(size));
        }
        if let Some(view) = change.stream_view_type() {
            dynamodb.insert("StreamViewType".into(), json!(view.as_str()));
        }
    }
    let value = json!({
        "eventID": record.event_id().unwrap_or_default(),
        "eventName": "INSERT",
        "eventVersion": record.event_version().unwrap_or("1.1"),
        "eventSource": record.event_source().unwrap_or("aws:dynamodb"),
        "awsRegion": record.aws_region().unwrap_or_default(),
        "dynamodb": dynamodb,
        "eventSourceARN": stream_arn,
    });
    Ok(StreamRecord::from_json(sequence_number, value))
}

/// An attribute map in DynamoDB JSON.
fn item_json(item: &HashMap<String, AttributeValue>) -> Value {
    Value::Object(
        item.iter()
            .map(|(name, value)| (name.clone(), attribute_json(value)))
            .collect(),
    )
}

/// One attribute value in DynamoDB JSON.
fn attribute_json(value: &AttributeValue) -> Value {
    let strings = |items: &[String]| Value::from(items.to_vec());
    let (kind, inner) = match value {
        AttributeValue::S(s) => ("S", Value::from(s.as_str())),
        AttributeValue::N(n) => ("N", Value::from(n.as_str())),
        AttributeValue::B(blob) => ("B", Value::from(STANDARD.encode(blob.as_ref()))),
        AttributeValue::Bool(b) => ("BOOL", Value::from(*b)),
        AttributeValue::Null(b) => ("NULL", Value::from(*b)),
        AttributeValue::Ss(items) => ("SS", strings(items)),
        AttributeValue::Ns(items) => ("NS", strings(items)),
        AttributeValue::Bs(items) => (
            "BS",
            items
                .iter()
                .map(|blob| Value::from(STANDARD.encode(blob.as_ref())))
                .collect(),
        ),
        AttributeValue::L(items) => ("L", items.iter().map(attribute_json).collect()),
        AttributeValue::M(map) => ("M", item_json(map)),
        // A type this SDK does not know: pass a NULL rather than invent a shape.
        _ => ("NULL", Value::from(true)),
    };
    let mut object = Map::with_capacity(1);
    object.insert(kind.to_owned(), inner);
    Value::Object(object)
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_adapters::dynamodb::message_item::{message_from_stream_image, message_to_item};
    use aws_lambda_events::event::dynamodb::EventRecord;
    use aws_sdk_dynamodbstreams::primitives::{Blob, DateTime};
    use aws_sdk_dynamodbstreams::types::{StreamRecord as SdkStreamRecord, StreamViewType};
    use on_message_inserted::StreamBatch;
    use shared::domain::{MessageId, PlayerId};
    use shared::messaging::MessageKind;

    fn message() -> StoredMessage {
        StoredMessage {
            seq: shared::domain::Seq::new(179_532_360_000_012).unwrap(),
            epoch: shared::domain::Seq::new(179_532_360_000_000).unwrap(),
            message_id: MessageId::from_stored("01JDK3Z5Q8M2W4X6Y8Z0A2B4C6"),
            recipient_id: PlayerId::parse("bob").unwrap(),
            sender_id: "alice".into(),
            kind: MessageKind::Chat,
            payload: r#"{"type":"message","messageId":"01JDK3Z5Q8M2W4X6Y8Z0A2B4C6","from":"alice","message":{"text":"gg"},"sentAt":1795323600000}"#.into(),
            created_at: 1_795_323_600_123,
            expire_at_secs: 1_795_410_000,
            replay_until_secs: None,
        }
    }

    #[test]
    fn an_in_memory_insert_record_parses_as_lambdas_event_record_and_maps_back() {
        let value = insert_record(
            &message(),
            &sequence_number(7),
            &local_stream_arn("Messages"),
        );
        let record: EventRecord = serde_json::from_value(value.clone()).unwrap();
        assert_eq!(record.event_name, "INSERT");
        assert_eq!(record.event_source.as_deref(), Some("aws:dynamodb"));
        assert_eq!(
            record.change.sequence_number.as_deref(),
            Some("000000000000000000007")
        );
        assert_eq!(
            record.change.approximate_creation_date_time.timestamp(),
            1_795_323_600
        );
        assert_eq!(
            message_from_stream_image(record.change.new_image),
            Ok(message())
        );
        assert_eq!(
            value["eventSourceARN"],
            "arn:aws:dynamodb:local:000000000000:table/Messages/stream/local"
        );
        assert_eq!(value["dynamodb"]["Keys"]["recipientId"]["S"], "bob");
        assert_eq!(value["dynamodb"]["Keys"]["seq"]["N"], "179532360000012");
        assert!(value["dynamodb"]["SizeBytes"].as_u64().unwrap() > 100);
    }

    #[test]
    fn given_an_in_memory_insert_when_handed_over_typed_then_the_handler_reads_what_its_lambda_record_carries()
     {
        let record = StreamRecord::insert(
            message(),
            sequence_number(7),
            Arc::from(local_stream_arn("Messages").as_str()),
        );
        let read = |record: BatchRecord| {
            StreamBatch {
                records: vec![record],
            }
            .messages()
        };
        let typed = read(record.to_record());
        assert_eq!(typed, read(BatchRecord::from_json(record.to_value())));
        assert_eq!(typed[0].message, message());
        assert_eq!(typed[0].streamed_at, 1_795_323_600_000, "to the second");
    }

    #[test]
    fn sequence_numbers_sort_as_text_and_as_numbers() {
        let (a, b) = (sequence_number(9), sequence_number(10));
        assert!(a < b);
        assert_eq!(b.parse::<u64>().unwrap(), 10);
    }

    fn sdk_image(message: &StoredMessage) -> HashMap<String, AttributeValue> {
        message_to_item(message)
            .unwrap()
            .into_iter()
            .map(|(name, value)| {
                let value = match value {
                    aws_sdk_dynamodb::types::AttributeValue::S(s) => AttributeValue::S(s),
                    aws_sdk_dynamodb::types::AttributeValue::N(n) => AttributeValue::N(n),
                    other => panic!("unexpected {other:?}"),
                };
                (name, value)
            })
            .collect()
    }

    fn sdk_record(name: OperationType, image: HashMap<String, AttributeValue>) -> Record {
        let key = HashMap::from([
            ("recipientId".to_owned(), AttributeValue::S("bob".into())),
            (
                "seq".to_owned(),
                AttributeValue::N("179532360000012".into()),
            ),
        ]);
        Record::builder()
            .event_id("e1")
            .event_name(name)
            .event_version("1.1")
            .event_source("aws:dynamodb")
            .aws_region("us-east-1")
            .dynamodb(
                SdkStreamRecord::builder()
                    .approximate_creation_date_time(DateTime::from_secs(1_795_323_600))
                    .set_keys(Some(key))
                    .set_new_image(Some(image))
                    .sequence_number("4200000000001")
                    .size_bytes(212)
                    .stream_view_type(StreamViewType::NewImage)
                    .build(),
            )
            .build()
    }

    #[test]
    fn a_streams_api_insert_becomes_the_record_lambda_delivers() {
        let arn =
            "arn:aws:dynamodb:ddblocal:000000000000:table/Messages/stream/2026-01-01T00:00:00.000";
        let converted = from_streams_api(
            &sdk_record(OperationType::Insert, sdk_image(&message())),
            arn,
        )
        .unwrap();
        assert_eq!(converted.sequence_number, "4200000000001");
        assert_eq!(converted.partition_key(), Some("bob"));
        let value = &converted.to_value();
        assert_eq!(value["eventSourceARN"], arn);
        assert_eq!(value["awsRegion"], "us-east-1");
        assert_eq!(value["dynamodb"]["StreamViewType"], "NEW_IMAGE");
        assert_eq!(value["dynamodb"]["SizeBytes"], 212);
        assert_eq!(
            value["dynamodb"]["NewImage"]["createdAt"],
            json!({"N": "1795323600123"})
        );
        let record: EventRecord = serde_json::from_value(value.clone()).unwrap();
        assert_eq!(
            record.change.approximate_creation_date_time.timestamp(),
            1_795_323_600
        );
        assert_eq!(
            message_from_stream_image(record.change.new_image),
            Ok(message())
        );
    }

    #[test]
    fn every_attribute_type_converts_to_dynamodb_json() {
        let image = HashMap::from([
            ("b".to_owned(), AttributeValue::B(Blob::new(b"hi".to_vec()))),
            ("t".to_owned(), AttributeValue::Bool(true)),
            ("z".to_owned(), AttributeValue::Null(true)),
            ("ss".to_owned(), AttributeValue::Ss(vec!["a".into()])),
            ("ns".to_owned(), AttributeValue::Ns(vec!["1".into()])),
            (
                "bs".to_owned(),
                AttributeValue::Bs(vec![Blob::new(b"x".to_vec())]),
            ),
            (
                "l".to_owned(),
                AttributeValue::L(vec![AttributeValue::N("2".into())]),
            ),
            (
                "m".to_owned(),
                AttributeValue::M(HashMap::from([(
                    "k".to_owned(),
                    AttributeValue::S("v".into()),
                )])),
            ),
        ]);
        assert_eq!(
            item_json(&image),
            json!({
                "b": {"B": "aGk="}, "t": {"BOOL": true}, "z": {"NULL": true},
                "ss": {"SS": ["a"]}, "ns": {"NS": ["1"]}, "bs": {"BS": ["eA=="]},
                "l": {"L": [{"N": "2"}]}, "m": {"M": {"k": {"S": "v"}}}
            })
        );
        // And Lambda's types read it.
        let item: serde_dynamo::Item = serde_json::from_value(item_json(&image)).unwrap();
        assert_eq!(item.len(), 8);
    }

    #[test]
    fn records_other_than_insert_are_filtered_out() {
        for name in [OperationType::Modify, OperationType::Remove] {
            assert_eq!(
                from_streams_api(&sdk_record(name, HashMap::new()), "arn"),
                Err(Skipped::NotInsert)
            );
        }
    }

    #[test]
    fn an_epoch_item_insert_is_filtered_out_as_the_templates_filter_does() {
        let mut record = sdk_record(OperationType::Insert, HashMap::new());
        let change = record.dynamodb.as_mut().unwrap();
        change
            .keys
            .as_mut()
            .unwrap()
            .insert("seq".to_owned(), AttributeValue::N("0".into()));
        assert_eq!(from_streams_api(&record, "arn"), Err(Skipped::EpochItem));
    }
}
