//! [`Subscriptions`] and [`Watchers`] on the DynamoDB PresenceSubscriptions table: subscribing and
//! unsubscribing go through BatchWriteItem (`ceil(n / 25)` calls, a few at once), the
//! watchers of a target are one Query per page (one page up to a few thousand watchers).

use std::collections::HashSet;

use async_trait::async_trait;
use aws_sdk_dynamodb::types::{AttributeValue, DeleteRequest, PutRequest, WriteRequest};

use super::batch::write_all;
use super::error::store_error;
use super::subscription_item::{attr, item, key, watcher_from_item};
use crate::calls::{AwsCall, Calls};
use shared::domain::{EpochMillis, PlayerId};
use shared::ports::StoreError;
use shared::ports::{Subscriptions, Watchers};

const WATCHERS_KEY_CONDITION: &str = "targetId = :target";
/// TTL deletion is lazy (up to days late): an expired item must not count.
const NOT_EXPIRED_FILTER: &str = "expireAt > :nowSecs";

table_store! {
    /// The PresenceSubscriptions table in DynamoDB.
    DynamoSubscriptionStore {
        table;
        /// `Limit` of each Query page; `None`: DynamoDB's own 1 MB pages.
        page_limit: Option<i32> = None,
    }
}

impl DynamoSubscriptionStore {
    /// Reads watchers `limit` items per Query (tests: pagination without thousands of
    /// items).
    pub fn with_page_limit(mut self, limit: u32) -> Self {
        self.page_limit = Some(super::item::query_limit(limit));
        self
    }

    pub fn table(&self) -> &str {
        &self.table
    }
}

/// Each target once (one batch may not hold two writes to one key).
fn distinct(targets: &[PlayerId]) -> impl Iterator<Item = &PlayerId> {
    let mut seen = HashSet::with_capacity(targets.len());
    targets.iter().filter(move |t| seen.insert(*t))
}

#[async_trait]
impl Subscriptions for DynamoSubscriptionStore {
    async fn subscribe(
        &self,
        watcher: &PlayerId,
        targets: &[PlayerId],
        expire_at_secs: i64,
    ) -> Result<(), StoreError> {
        let requests = distinct(targets)
            .map(|target| {
                let put = PutRequest::builder()
                    .set_item(Some(item(target, watcher, expire_at_secs)?))
                    .build()
                    .map_err(|e| StoreError::Other(Box::new(e)))?;
                Ok(WriteRequest::builder().put_request(put).build())
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        write_all(&self.client, &self.table, requests).await
    }

    async fn unsubscribe(
        &self,
        watcher: &PlayerId,
        targets: &[PlayerId],
    ) -> Result<(), StoreError> {
        let requests = distinct(targets)
            .map(|target| {
                let delete = DeleteRequest::builder()
                    .set_key(Some(key(target, watcher)?))
                    .build()
                    .map_err(|e| StoreError::Other(Box::new(e)))?;
                Ok(WriteRequest::builder().delete_request(delete).build())
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        write_all(&self.client, &self.table, requests).await
    }
}

impl Calls<dyn Subscriptions> for DynamoSubscriptionStore {
    fn calls(&self) -> Vec<AwsCall> {
        AwsCall::on_table(&self.table, &["BatchWriteItem"])
    }
}

#[async_trait]
impl Watchers for DynamoSubscriptionStore {
    /// Strongly consistent, so a subscription acknowledged a moment ago is seen by the
    /// next presence change; every page is read (a filtered page may be empty and still
    /// have a next one).
    async fn watchers(
        &self,
        target: &PlayerId,
        now: EpochMillis,
    ) -> Result<Vec<PlayerId>, StoreError> {
        let mut watchers = Vec::new();
        let mut start = None;
        loop {
            let output = self
                .client
                .query()
                .table_name(&self.table)
                .key_condition_expression(WATCHERS_KEY_CONDITION)
                .filter_expression(NOT_EXPIRED_FILTER)
                .projection_expression(attr::WATCHER_ID)
                .expression_attribute_values(":target", AttributeValue::S(target.to_string()))
                .expression_attribute_values(
                    ":nowSecs",
                    AttributeValue::N(now.div_euclid(1000).to_string()),
                )
                .consistent_read(true)
                .set_limit(self.page_limit)
                .set_exclusive_start_key(start.take())
                .send()
                .await
                .map_err(store_error)?;
            for item in output.items() {
                watchers.push(watcher_from_item(target, item)?);
            }
            match output.last_evaluated_key {
                Some(last) if !last.is_empty() => start = Some(last),
                _ => return Ok(watchers),
            }
        }
    }
}

impl Calls<dyn Watchers> for DynamoSubscriptionStore {
    fn calls(&self) -> Vec<AwsCall> {
        AwsCall::on_table(&self.table, &["Query"])
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use aws_sdk_dynamodb::Client;
    use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};
    use aws_smithy_http_client::test_util::infallible_client_fn;
    use serde_json::{Value, json};

    use super::*;

    type Calls = Arc<Mutex<Vec<(String, Value)>>>;

    /// A client whose every call is recorded (operation, JSON body) and answered with
    /// `respond(call index, body)` (HTTP 200).
    fn fake_dynamodb(
        respond: impl Fn(usize, &Value) -> Value + Send + Sync + 'static,
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
            let mut recorded = recorded.lock().unwrap();
            let answer = respond(recorded.len(), &body);
            recorded.push((operation, body));
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

    fn p(name: &str) -> PlayerId {
        PlayerId::parse(name).unwrap()
    }

    #[tokio::test]
    async fn subscribe_puts_one_item_per_distinct_target_in_batches_of_25() {
        let (client, calls) = fake_dynamodb(|_, _| json!({"UnprocessedItems": {}}));
        let store = DynamoSubscriptionStore::new(client, "Subs");
        let mut targets: Vec<PlayerId> = (0..60).map(|i| p(&format!("p{i}"))).collect();
        targets.push(p("p0"));
        store
            .subscribe(&p("bob"), &targets, 1_795_330_800)
            .await
            .unwrap();

        let calls = calls.lock().unwrap();
        assert_eq!(calls.len(), 3, "ceil(60 / 25)");
        let mut items = Vec::new();
        for (operation, body) in calls.iter() {
            assert_eq!(operation, "BatchWriteItem");
            let requests = body["RequestItems"]["Subs"].as_array().unwrap();
            assert!(requests.len() <= 25);
            items.extend(requests.iter().map(|r| r["PutRequest"]["Item"].clone()));
        }
        assert_eq!(items.len(), 60);
        assert!(items.contains(&json!({
            "targetId": {"S": "p0"}, "watcherId": {"S": "bob"}, "expireAt": {"N": "1795330800"}
        })));
    }

    #[tokio::test]
    async fn unsubscribe_deletes_by_target_and_watcher() {
        let (client, calls) = fake_dynamodb(|_, _| json!({"UnprocessedItems": {}}));
        let store = DynamoSubscriptionStore::new(client, "Subs");
        store
            .unsubscribe(&p("bob"), &[p("alice"), p("alice")])
            .await
            .unwrap();
        let calls = calls.lock().unwrap();
        assert_eq!(
            calls[0].1,
            json!({"RequestItems": {"Subs": [
                {"DeleteRequest": {"Key": {"targetId": {"S": "alice"}, "watcherId": {"S": "bob"}}}}
            ]}})
        );
        assert_eq!(calls.len(), 1);
    }

    #[tokio::test]
    async fn nothing_to_write_makes_no_call() {
        let (client, calls) = fake_dynamodb(|_, _| json!({}));
        let store = DynamoSubscriptionStore::new(client, "Subs");
        store.subscribe(&p("bob"), &[], 1).await.unwrap();
        store.unsubscribe(&p("bob"), &[]).await.unwrap();
        assert!(calls.lock().unwrap().is_empty());
    }

    #[tokio::test]
    async fn watchers_reads_every_page_filtering_out_expired_items_consistently() {
        // Page 1: two watchers; page 2: filtered to nothing but not the last; page 3: one.
        let (client, calls) = fake_dynamodb(|call, _| match call {
            0 => json!({
                "Items": [{"watcherId": {"S": "bob"}}, {"watcherId": {"S": "carol"}}],
                "Count": 2, "ScannedCount": 2,
                "LastEvaluatedKey": {"targetId": {"S": "alice"}, "watcherId": {"S": "carol"}}
            }),
            1 => json!({
                "Items": [], "Count": 0, "ScannedCount": 2,
                "LastEvaluatedKey": {"targetId": {"S": "alice"}, "watcherId": {"S": "erin"}}
            }),
            _ => json!({"Items": [{"watcherId": {"S": "frank"}}], "Count": 1, "ScannedCount": 1}),
        });
        let store = DynamoSubscriptionStore::new(client, "Subs").with_page_limit(2);
        let watchers = store
            .watchers(&p("alice"), 1_795_323_600_999)
            .await
            .unwrap();
        assert_eq!(watchers, vec![p("bob"), p("carol"), p("frank")]);

        let calls = calls.lock().unwrap();
        assert_eq!(calls.len(), 3);
        assert!(calls.iter().all(|(operation, _)| operation == "Query"));
        assert_eq!(
            calls[0].1,
            json!({
                "TableName": "Subs",
                "KeyConditionExpression": "targetId = :target",
                "FilterExpression": "expireAt > :nowSecs",
                "ProjectionExpression": "watcherId",
                "ExpressionAttributeValues": {
                    ":target": {"S": "alice"},
                    ":nowSecs": {"N": "1795323600"}
                },
                "ConsistentRead": true,
                "Limit": 2
            })
        );
        assert_eq!(
            calls[2].1["ExclusiveStartKey"],
            json!({"targetId": {"S": "alice"}, "watcherId": {"S": "erin"}})
        );
    }

    #[tokio::test]
    async fn a_corrupt_watcher_is_reported_with_the_target() {
        let (client, _) = fake_dynamodb(
            |_, _| json!({"Items": [{"watcherId": {"S": "no/slash"}}], "Count": 1, "ScannedCount": 1}),
        );
        let store = DynamoSubscriptionStore::new(client, "Subs");
        match store.watchers(&p("alice"), 0).await {
            Err(StoreError::Corrupt { key, .. }) => assert_eq!(key, "targetId=alice"),
            other => panic!("{other:?}"),
        }
    }
}
