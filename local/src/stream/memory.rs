//! In-memory mode's stream: the in-memory Messages store reports each new item, and this
//! turns it into the INSERT record DynamoDB Streams would carry (with the next sequence
//! number) and hands it to the [`Feeder`](super::feeder::Feeder). The record's JSON is
//! built by the consumer, off the sender's path.

use std::sync::{Arc, Mutex};

use memory_adapters::InsertObserver;
use shared::messaging::StoredMessage;

use super::feeder::FeederInput;
use super::record::{StreamRecord, sequence_number};

/// The `InsertObserver` of the in-memory Messages store.
pub struct MemoryStream {
    input: FeederInput,
    stream_arn: Arc<str>,
    /// The last sequence number given out. Numbering and queueing happen under this
    /// lock, so sequence numbers increase in queue order within every partition.
    last_sequence: Mutex<u64>,
}

impl MemoryStream {
    pub fn new(input: FeederInput, stream_arn: String) -> Self {
        Self {
            input,
            stream_arn: stream_arn.into(),
            last_sequence: Mutex::new(0),
        }
    }
}

impl InsertObserver for MemoryStream {
    fn inserted(&self, message: StoredMessage) {
        let mut last = self
            .last_sequence
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        *last += 1;
        let key = message.recipient_id.clone();
        let record = StreamRecord::insert(message, sequence_number(*last), self.stream_arn.clone());
        self.input.push(key.as_str(), record);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stream::feeder::Feeder;
    use crate::stream::record::local_stream_arn;
    use memory_adapters::InMemoryMessageStore;
    use shared::domain::{MessageId, PlayerId};
    use shared::messaging::{MessageKind, NewMessage};
    use shared::ports::MessageStore;

    fn message(n: i64) -> NewMessage {
        NewMessage {
            message_id: MessageId::generate(1_795_323_600_000 + n),
            recipient_id: PlayerId::parse("bob").unwrap(),
            sender_id: "alice".into(),
            kind: MessageKind::Chat,
            payload: "{}".into(),
            created_at: 1_795_323_600_000 + n,
            expire_at_secs: 1_795_410_000,
        }
    }

    #[tokio::test]
    async fn each_appended_message_becomes_one_record_with_an_increasing_sequence_number() {
        let feeder = Feeder::new(1);
        let input = feeder.input();
        let store = InMemoryMessageStore::with_observer(MemoryStream::new(
            input.clone(),
            local_stream_arn("Messages"),
        ));
        let (a, b) = (message(1), message(2));
        store.append(&[a.clone(), b.clone()]).await.unwrap();
        // A retried append of the newest message is not appended again.
        store.append(std::slice::from_ref(&b)).await.unwrap();
        assert_eq!(input.stats().snapshot().received, 2);

        let Feeder { mut receivers, .. } = feeder;
        let first = receivers[0].try_recv().unwrap();
        let second = receivers[0].try_recv().unwrap();
        assert!(receivers[0].try_recv().is_err());
        assert_eq!(first.sequence_number, "000000000000000000001");
        assert_eq!(second.sequence_number, "000000000000000000002");
        let value = first.to_value();
        assert_eq!(value["dynamodb"]["SequenceNumber"], "000000000000000000001");
        assert_eq!(
            value["dynamodb"]["NewImage"]["messageId"]["S"],
            a.message_id.as_str()
        );
        assert_eq!(value["eventName"], "INSERT");
        assert_eq!(
            value["eventID"],
            first.to_value()["eventID"],
            "stable across deliveries"
        );
        assert_eq!(first.partition_key(), Some("bob"), "partitioned by inbox");
    }
}
