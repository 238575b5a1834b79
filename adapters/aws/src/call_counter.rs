//! Counts AWS SDK round trips per operation (every HTTP attempt, retries included), for
//! the round-trip benchmarks: attach it to a client's config as an interceptor.
//!
//! [`CallCounter::measuring_capacity`] also asks DynamoDB what each call consumed: it adds
//! `"ReturnConsumedCapacity": "INDEXES"` to every request body that accepts it (before
//! signing, so the signature covers it) and reads `ConsumedCapacity` back from each
//! response, split into read units, table write units and index write units. A write
//! whose condition failed returns no capacity; it is counted apart
//! ([`Capacity::failed_conditions`]), since DynamoDB bills it as a write all the same.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use aws_smithy_runtime_api::box_error::BoxError;
use aws_smithy_runtime_api::client::interceptors::Intercept;
use aws_smithy_runtime_api::client::interceptors::context::{
    AfterDeserializationInterceptorContextRef, BeforeTransmitInterceptorContextMut,
    BeforeTransmitInterceptorContextRef,
};
use aws_smithy_runtime_api::client::orchestrator::Metadata;
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;
use aws_smithy_types::body::SdkBody;
use aws_smithy_types::config_bag::{ConfigBag, Storable, StoreReplace};
use serde_json::Value;

/// What DynamoDB said the calls consumed (request units, as billed on demand).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Capacity {
    /// Read request units (table and indexes).
    pub read_units: f64,
    /// Write request units on tables.
    pub write_units: f64,
    /// Write request units on global secondary indexes (a changed index key: 2).
    pub index_write_units: f64,
    /// Conditional writes (or transactions) refused by their condition: they return no
    /// capacity but are billed as writes of the item.
    pub failed_conditions: u64,
    /// Units DynamoDB Local reported for `TransactWriteItems` (tables and indexes; not in
    /// the two write fields above).
    pub transaction_write_units: f64,
    /// The minimum read (0.5 eventually consistent, 1 strongly) of every Query or Scan
    /// for which DynamoDB Local reported 0 units (it found nothing).
    pub empty_read_minimum: f64,
}

/// Whether the request in flight asked for a strongly consistent read.
#[derive(Clone, Copy, Debug)]
struct StronglyConsistent(bool);

impl Storable for StronglyConsistent {
    type Storer = StoreReplace<Self>;
}

#[derive(Debug, Default)]
struct Tally {
    calls: BTreeMap<String, u64>,
    capacity: Capacity,
}

#[derive(Clone, Debug, Default)]
pub struct CallCounter {
    tally: Arc<Mutex<Tally>>,
    measure_capacity: bool,
}

/// The DynamoDB operations whose requests take `ReturnConsumedCapacity`, and whether
/// they read.
fn capacity_operation(operation: &str) -> Option<bool> {
    match operation {
        "GetItem" | "BatchGetItem" | "Query" | "Scan" | "TransactGetItems" => Some(true),
        "PutItem" | "UpdateItem" | "DeleteItem" | "BatchWriteItem" | "TransactWriteItems" => {
            Some(false)
        }
        _ => None,
    }
}

impl CallCounter {
    pub fn new() -> Self {
        Self::default()
    }

    /// A counter that also measures DynamoDB's consumed capacity (see the module docs).
    pub fn measuring_capacity() -> Self {
        Self {
            measure_capacity: true,
            ..Self::default()
        }
    }

    /// `client` (its configuration otherwise the same) with this counter on every call.
    pub fn counting(&self, client: &aws_sdk_dynamodb::Client) -> aws_sdk_dynamodb::Client {
        aws_sdk_dynamodb::Client::from_conf(
            client
                .config()
                .to_builder()
                .interceptor(self.clone())
                .build(),
        )
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Tally> {
        self.tally.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Calls per operation name (e.g. `UpdateItem`) since the last reset; resets the
    /// capacity too.
    pub fn take(&self) -> BTreeMap<String, u64> {
        self.take_all().0
    }

    /// Calls per operation name and the capacity they consumed, since the last reset.
    pub fn take_all(&self) -> (BTreeMap<String, u64>, Capacity) {
        let mut tally = self.lock();
        (
            std::mem::take(&mut tally.calls),
            std::mem::take(&mut tally.capacity),
        )
    }
}

fn operation_name(cfg: &ConfigBag) -> String {
    cfg.load::<Metadata>()
        .map_or_else(|| "unknown".to_owned(), |m| m.name().to_owned())
}

/// Sums the `CapacityUnits` of one `ConsumedCapacity` object (or an array of them, as
/// the batch and transaction operations return) into `capacity`.
fn add_consumed(value: &Value, reads: bool, capacity: &mut Capacity) {
    match value {
        Value::Array(items) => items
            .iter()
            .for_each(|item| add_consumed(item, reads, capacity)),
        Value::Object(object) => {
            let units = |v: Option<&Value>| v.and_then(|v| v["CapacityUnits"].as_f64());
            let total = object.get("CapacityUnits").and_then(Value::as_f64);
            let table = units(object.get("Table"));
            let indexes: f64 = ["GlobalSecondaryIndexes", "LocalSecondaryIndexes"]
                .iter()
                .filter_map(|key| object.get(*key).and_then(Value::as_object))
                .flat_map(|indexes| indexes.values())
                .filter_map(|index| index["CapacityUnits"].as_f64())
                .sum();
            if reads {
                capacity.read_units += total.unwrap_or(table.unwrap_or(0.0) + indexes);
            } else {
                let table = table.unwrap_or_else(|| total.unwrap_or(0.0) - indexes);
                capacity.write_units += table;
                capacity.index_write_units += indexes;
            }
        }
        _ => {}
    }
}

impl Intercept for CallCounter {
    fn name(&self) -> &'static str {
        "CallCounter"
    }

    fn modify_before_signing(
        &self,
        context: &mut BeforeTransmitInterceptorContextMut<'_>,
        _components: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        if !self.measure_capacity || capacity_operation(&operation_name(cfg)).is_none() {
            return Ok(());
        }
        let request = context.request_mut();
        let Some(bytes) = request.body().bytes() else {
            return Ok(());
        };
        let mut body: Value = serde_json::from_slice(bytes)?;
        let Some(object) = body.as_object_mut() else {
            return Ok(());
        };
        let strong = object.get("ConsistentRead") == Some(&Value::Bool(true));
        cfg.interceptor_state()
            .store_put(StronglyConsistent(strong));
        object.insert("ReturnConsumedCapacity".into(), Value::from("INDEXES"));
        let bytes = serde_json::to_vec(&body)?;
        request
            .headers_mut()
            .insert("content-length", bytes.len().to_string());
        *request.body_mut() = SdkBody::from(bytes);
        Ok(())
    }

    fn read_before_transmit(
        &self,
        _context: &BeforeTransmitInterceptorContextRef<'_>,
        _components: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        *self.lock().calls.entry(operation_name(cfg)).or_default() += 1;
        Ok(())
    }

    fn read_after_deserialization(
        &self,
        context: &AfterDeserializationInterceptorContextRef<'_>,
        _components: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        if !self.measure_capacity {
            return Ok(());
        }
        let operation = operation_name(cfg);
        let Some(reads) = capacity_operation(&operation) else {
            return Ok(());
        };
        let strong = cfg
            .load::<StronglyConsistent>()
            .is_some_and(|consistent| consistent.0);
        let response = context.response();
        let Some(body) = response
            .body()
            .bytes()
            .and_then(|bytes| serde_json::from_slice::<Value>(bytes).ok())
        else {
            return Ok(());
        };
        let mut tally = self.lock();
        if response.status().is_success() {
            let consumed = &body["ConsumedCapacity"];
            match operation.as_str() {
                "TransactWriteItems" => {
                    let mut transaction = Capacity::default();
                    add_consumed(consumed, false, &mut transaction);
                    tally.capacity.transaction_write_units +=
                        transaction.write_units + transaction.index_write_units;
                }
                "Query" | "Scan" if consumed["CapacityUnits"].as_f64() == Some(0.0) => {
                    tally.capacity.empty_read_minimum += if strong { 1.0 } else { 0.5 };
                }
                _ => add_consumed(consumed, reads, &mut tally.capacity),
            }
        } else {
            let kind = body["__type"].as_str().unwrap_or_default();
            let reasons = body["CancellationReasons"].as_array();
            let condition = kind.ends_with("ConditionalCheckFailedException")
                || reasons.is_some_and(|reasons| {
                    reasons
                        .iter()
                        .any(|reason| reason["Code"] == "ConditionalCheckFailed")
                });
            if condition {
                tally.capacity.failed_conditions += 1;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn consumed_capacity_is_split_into_reads_table_writes_and_index_writes() {
        let mut capacity = Capacity::default();
        add_consumed(
            &json!({"TableName": "P", "CapacityUnits": 3.0, "Table": {"CapacityUnits": 1.0},
                    "GlobalSecondaryIndexes": {"BySweepAt": {"CapacityUnits": 2.0}}}),
            false,
            &mut capacity,
        );
        add_consumed(
            &json!([{"TableName": "M", "CapacityUnits": 0.5}, {"TableName": "P", "CapacityUnits": 1.0}]),
            true,
            &mut capacity,
        );
        add_consumed(
            &json!({"TableName": "M", "CapacityUnits": 4.0}),
            false,
            &mut capacity,
        );
        assert_eq!(
            capacity,
            Capacity {
                read_units: 1.5,
                write_units: 5.0,
                index_write_units: 2.0,
                ..Capacity::default()
            }
        );
    }
}
