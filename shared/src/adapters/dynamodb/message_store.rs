//! [`MessageStore`] on the DynamoDB Messages table: writes and deletes go
//! through BatchWriteItem (`ceil(n / 25)` calls, a few at once), a page of a recipient's
//! undelivered messages is one Query on the `ByRecipient` index.

use std::collections::HashSet;

use async_trait::async_trait;
use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{AttributeValue, DeleteRequest, PutRequest, WriteRequest};

use super::batch::write_all;
use super::message_item::{
    attr, corrupt, key, message_from_item, message_to_item, recipient_index_key,
};
use crate::domain::{MessageId, PlayerId};
use crate::ports::message_store::{MessagePage, MessageStore, StoredMessage};
use crate::ports::player_store::StoreError;

/// The index of a recipient's messages: PK `recipientId`, SK `messageId`, projecting
/// every attribute so that a page carries the payloads.
pub const RECIPIENT_INDEX: &str = "ByRecipient";

const PENDING_KEY_CONDITION: &str = "recipientId = :recipient";

/// The Messages table in DynamoDB.
#[derive(Clone, Debug)]
pub struct DynamoMessageStore {
    client: Client,
    table: String,
}

impl DynamoMessageStore {
    pub fn new(client: Client, table: impl Into<String>) -> Self {
        Self {
            client,
            table: table.into(),
        }
    }

    pub fn table(&self) -> &str {
        &self.table
    }
}

#[async_trait]
impl MessageStore for DynamoMessageStore {
    /// A message id given twice is written once, as its last occurrence (one batch may
    /// not hold two writes to one key).
    async fn put_all(&self, messages: &[StoredMessage]) -> Result<(), StoreError> {
        let mut seen = HashSet::with_capacity(messages.len());
        let mut latest_first: Vec<&StoredMessage> = messages
            .iter()
            .rev()
            .filter(|m| seen.insert(&m.message_id))
            .collect();
        latest_first.reverse();
        let requests = latest_first
            .into_iter()
            .map(|message| {
                let put = PutRequest::builder()
                    .set_item(Some(message_to_item(message)))
                    .build()
                    .map_err(|e| StoreError::Other(Box::new(e)))?;
                Ok(WriteRequest::builder().put_request(put).build())
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        write_all(&self.client, &self.table, requests).await
    }

    /// One Query on [`RECIPIENT_INDEX`] (eventually consistent, like every GSI read: a
    /// message written a moment ago may be missing, and is delivered by the stream).
    /// `next` is set whenever DynamoDB stopped at the limit, so the last page may be
    /// empty.
    async fn pending(
        &self,
        recipient: &PlayerId,
        after: Option<&MessageId>,
        limit: u32,
    ) -> Result<MessagePage, StoreError> {
        let output = self
            .client
            .query()
            .table_name(&self.table)
            .index_name(RECIPIENT_INDEX)
            .key_condition_expression(PENDING_KEY_CONDITION)
            .expression_attribute_values(":recipient", AttributeValue::S(recipient.to_string()))
            .scan_index_forward(true)
            .limit(i32::try_from(limit.max(1)).unwrap_or(i32::MAX))
            .set_exclusive_start_key(after.map(|after| recipient_index_key(recipient, after)))
            .send()
            .await
            .map_err(super::error::store_error)?;
        let messages = output
            .items()
            .iter()
            .map(|item| message_from_item(item).map_err(|e| corrupt(item, &e)))
            .collect::<Result<Vec<_>, _>>()?;
        let next = match output.last_evaluated_key() {
            Some(last) if !last.is_empty() => match last.get(attr::MESSAGE_ID) {
                Some(AttributeValue::S(id)) => Some(MessageId::from_stored(id.as_str())),
                _ => {
                    return Err(StoreError::Corrupt {
                        key: format!("{}={recipient}", attr::RECIPIENT_ID),
                        reason: format!(
                            "LastEvaluatedKey of {RECIPIENT_INDEX} has no string {}",
                            attr::MESSAGE_ID
                        ),
                    });
                }
            },
            _ => None,
        };
        Ok(MessagePage { messages, next })
    }

    /// Deleting a message that is already gone is not an error.
    async fn delete_all(&self, ids: &[MessageId]) -> Result<(), StoreError> {
        let mut seen = HashSet::with_capacity(ids.len());
        let requests = ids
            .iter()
            .filter(|id| seen.insert(*id))
            .map(|id| {
                let delete = DeleteRequest::builder()
                    .set_key(Some(key(id)))
                    .build()
                    .map_err(|e| StoreError::Other(Box::new(e)))?;
                Ok(WriteRequest::builder().delete_request(delete).build())
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        write_all(&self.client, &self.table, requests).await
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};
    use aws_smithy_http_client::test_util::infallible_client_fn;
    use serde_json::{Value, json};

    use super::*;
    use crate::adapters::dynamodb::message_item::message_to_stream_image;
    use crate::ports::message_store::MessageKind;

    type Calls = Arc<Mutex<Vec<(String, Value)>>>;

    /// A client whose every call is recorded (operation, JSON body) and answered with
    /// `respond(operation, body)` (HTTP 200).
    fn fake_dynamodb(
        respond: impl Fn(&str, &Value) -> Value + Send + Sync + 'static,
    ) -> (Client, Calls) {
        let calls = Calls::default();
        let recorded = calls.clone();
        let http = infallible_client_fn(move |request: http::Request<_>| {
            let operation = request
                .headers()
                .get("x-amz-target")
                .and_then(|t| t.to_str().ok())
                .and_then(|t| t.strip_prefix("DynamoDB_20120810."))
                .unwrap_or_default()
                .to_owned();
            let body: Value =
                serde_json::from_slice(request.body().bytes().unwrap_or_default()).unwrap();
            let answer = respond(&operation, &body);
            recorded.lock().unwrap().push((operation, body));
            http::Response::builder()
                .status(200)
                .header("content-type", "application/x-amz-json-1.0")
                .body(answer.to_string())
                .unwrap()
        });
        let config = aws_sdk_dynamodb::Config::builder()
            .behavior_version(BehaviorVersion::latest())
            .region(Region::from_static("us-east-1"))
            .credentials_provider(Credentials::new("test", "test", None, None, "test"))
            .http_client(http)
            .build();
        (Client::from_conf(config), calls)
    }

    fn message(recipient: &str, id: &str) -> StoredMessage {
        StoredMessage {
            message_id: MessageId::from_stored(id),
            recipient_id: PlayerId::parse(recipient).unwrap(),
            sender_id: "alice".into(),
            kind: MessageKind::Chat,
            payload: r#"{"type":"message"}"#.into(),
            created_at: 1,
            expire_at_secs: 2,
        }
    }

    fn dynamodb_json(message: &StoredMessage) -> Value {
        serde_json::to_value(message_to_stream_image(message)).unwrap()
    }

    #[tokio::test]
    async fn put_all_writes_100_messages_in_4_batch_calls_and_a_repeated_id_once() {
        let (client, calls) = fake_dynamodb(|_, _| json!({"UnprocessedItems": {}}));
        let store = DynamoMessageStore::new(client, "Messages");
        let mut messages: Vec<_> = (0..100)
            .map(|i| message("bob", &format!("m{i:03}")))
            .collect();
        messages.push(message("carol", "m000"));
        store.put_all(&messages).await.unwrap();

        let calls = calls.lock().unwrap();
        assert_eq!(calls.len(), 4, "ceil(100 / 25) calls");
        let mut puts = Vec::new();
        for (operation, body) in calls.iter() {
            assert_eq!(operation, "BatchWriteItem");
            let requests = body["RequestItems"]["Messages"].as_array().unwrap();
            assert!(requests.len() <= 25);
            puts.extend(requests.iter().map(|r| r["PutRequest"]["Item"].clone()));
        }
        assert_eq!(puts.len(), 100);
        let m000 = puts
            .iter()
            .find(|item| item["messageId"]["S"] == "m000")
            .unwrap();
        assert_eq!(
            *m000,
            dynamodb_json(&message("carol", "m000")),
            "the last one wins"
        );
    }

    #[tokio::test]
    async fn nothing_to_write_or_delete_makes_no_call() {
        let (client, calls) = fake_dynamodb(|_, _| json!({}));
        let store = DynamoMessageStore::new(client, "Messages");
        store.put_all(&[]).await.unwrap();
        store.delete_all(&[]).await.unwrap();
        assert!(calls.lock().unwrap().is_empty());
    }

    #[tokio::test]
    async fn pending_is_one_query_on_the_index_continuing_after_the_given_id() {
        let (client, calls) = fake_dynamodb(|_, _| {
            json!({
                "Items": [dynamodb_json(&message("bob", "m2")), dynamodb_json(&message("bob", "m3"))],
                "Count": 2,
                "ScannedCount": 2,
                "LastEvaluatedKey": {"messageId": {"S": "m3"}, "recipientId": {"S": "bob"}}
            })
        });
        let store = DynamoMessageStore::new(client, "Messages");
        let page = store
            .pending(
                &PlayerId::parse("bob").unwrap(),
                Some(&MessageId::from_stored("m1")),
                2,
            )
            .await
            .unwrap();
        assert_eq!(
            page.messages,
            vec![message("bob", "m2"), message("bob", "m3")]
        );
        assert_eq!(page.next, Some(MessageId::from_stored("m3")));

        let calls = calls.lock().unwrap();
        let [(operation, body)] = calls.as_slice() else {
            panic!("one call: {calls:?}");
        };
        assert_eq!(operation, "Query");
        assert_eq!(
            *body,
            json!({
                "TableName": "Messages",
                "IndexName": "ByRecipient",
                "KeyConditionExpression": "recipientId = :recipient",
                "ExpressionAttributeValues": {":recipient": {"S": "bob"}},
                "ScanIndexForward": true,
                "Limit": 2,
                "ExclusiveStartKey": {"messageId": {"S": "m1"}, "recipientId": {"S": "bob"}}
            })
        );
    }

    #[tokio::test]
    async fn the_last_page_has_no_next() {
        let (client, _) = fake_dynamodb(|_, _| json!({"Items": [], "Count": 0, "ScannedCount": 0}));
        let store = DynamoMessageStore::new(client, "Messages");
        let page = store
            .pending(&PlayerId::parse("bob").unwrap(), None, 0)
            .await
            .unwrap();
        assert_eq!(page, MessagePage::default());
    }

    #[tokio::test]
    async fn a_corrupt_item_in_a_page_names_its_key_and_attribute() {
        let (client, _) = fake_dynamodb(|_, _| {
            let mut item = dynamodb_json(&message("bob", "m2"));
            item.as_object_mut().unwrap().remove("payload");
            json!({"Items": [item], "Count": 1, "ScannedCount": 1})
        });
        let store = DynamoMessageStore::new(client, "Messages");
        match store
            .pending(&PlayerId::parse("bob").unwrap(), None, 10)
            .await
        {
            Err(StoreError::Corrupt { key, reason }) => {
                assert_eq!(key, "messageId=m2");
                assert_eq!(reason, "attribute payload is missing");
            }
            other => panic!("{other:?}"),
        }
    }

    #[tokio::test]
    async fn delete_all_sends_one_delete_per_distinct_id_and_retries_the_unprocessed() {
        // The first call leaves m2 unprocessed; the retry writes it.
        let (client, calls) = fake_dynamodb(|_, body| {
            if body["RequestItems"]["Messages"].as_array().unwrap().len() == 2 {
                json!({"UnprocessedItems": {"Messages": [
                    {"DeleteRequest": {"Key": {"messageId": {"S": "m2"}}}}
                ]}})
            } else {
                json!({"UnprocessedItems": {}})
            }
        });
        let store = DynamoMessageStore::new(client, "Messages");
        let ids = ["m1", "m2", "m1"].map(MessageId::from_stored);
        store.delete_all(&ids).await.unwrap();

        let calls = calls.lock().unwrap();
        let bodies: Vec<_> = calls.iter().map(|(_, body)| body.clone()).collect();
        assert_eq!(
            bodies,
            vec![
                json!({"RequestItems": {"Messages": [
                    {"DeleteRequest": {"Key": {"messageId": {"S": "m1"}}}},
                    {"DeleteRequest": {"Key": {"messageId": {"S": "m2"}}}}
                ]}}),
                json!({"RequestItems": {"Messages": [
                    {"DeleteRequest": {"Key": {"messageId": {"S": "m2"}}}}
                ]}}),
            ]
        );
    }
}
