//! DynamoDB's `UpdateItem`, called as API Gateway's AWS integration calls it: the request
//! in DynamoDB's JSON form, the answer as the HTTP status and JSON body DynamoDB sends
//! (`{"Attributes": …}`, or `{"__type": "…#ConditionalCheckFailedException", "Item": …}`).
//!
//! Against DynamoDB Local the request goes through the SDK as it is. In memory there is no
//! table to run an arbitrary update on: [`MemoryUpdateItem`] checks that the request is
//! the heartbeat's (the one update template.yaml's heartbeat route makes), refuses what
//! DynamoDB would refuse (an empty key, a value no expression uses, a number that is
//! not one), and applies it with `Heartbeats::heartbeat`, whose conditions the player
//! store contract suite holds to DynamoDB's.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use async_trait::async_trait;
use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::operation::update_item::UpdateItemError;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnValue, ReturnValuesOnConditionCheckFailure};
use serde_json::{Map, Value, json};
use shared::domain::{ConnectionId, PlayerId, Seq};
use shared::players::Liveness;
use shared::ports::{Heartbeats, PlayerReader};

const CONDITION_FAILED: &str = "com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException";
const VALIDATION: &str = "com.amazon.coral.validate#ValidationException";
const INTERNAL: &str = "com.amazonaws.dynamodb.v20120810#InternalServerError";

/// An `UpdateItem` call: the HTTP status and body DynamoDB answers `request` with.
#[async_trait]
pub trait UpdateItem: Send + Sync {
    async fn update_item(&self, request: &Value) -> (u16, Value);
}

fn error(status: u16, kind: &str, message: impl Into<String>) -> (u16, Value) {
    (status, json!({"__type": kind, "message": message.into()}))
}

/// DynamoDB's JSON form of an attribute value → the SDK's.
pub fn attribute(value: &Value) -> Result<AttributeValue, String> {
    let object = value
        .as_object()
        .filter(|o| o.len() == 1)
        .ok_or_else(|| format!("not an attribute value: {value}"))?;
    let (kind, inner) = object.iter().next().ok_or("empty attribute value")?;
    let text = || {
        inner
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| format!("{kind} needs a string: {value}"))
    };
    let texts = || -> Result<Vec<String>, String> {
        inner
            .as_array()
            .map(|items| {
                items
                    .iter()
                    .filter_map(|i| i.as_str().map(str::to_owned))
                    .collect()
            })
            .ok_or_else(|| format!("{kind} needs a list: {value}"))
    };
    Ok(match kind.as_str() {
        "S" => AttributeValue::S(text()?),
        "N" => AttributeValue::N(text()?),
        "BOOL" => AttributeValue::Bool(inner.as_bool().ok_or("BOOL needs a boolean")?),
        "NULL" => AttributeValue::Null(true),
        "SS" => AttributeValue::Ss(texts()?),
        "NS" => AttributeValue::Ns(texts()?),
        "L" => AttributeValue::L(
            inner
                .as_array()
                .ok_or("L needs a list")?
                .iter()
                .map(attribute)
                .collect::<Result<_, _>>()?,
        ),
        "M" => AttributeValue::M(attributes(inner)?),
        other => return Err(format!("attribute type {other} is not supported here")),
    })
}

/// A map of attribute values in DynamoDB's JSON form → the SDK's.
pub fn attributes(value: &Value) -> Result<HashMap<String, AttributeValue>, String> {
    value
        .as_object()
        .ok_or_else(|| format!("not a map of attribute values: {value}"))?
        .iter()
        .map(|(name, v)| Ok((name.clone(), attribute(v)?)))
        .collect()
}

/// The SDK's attribute values → DynamoDB's JSON form.
pub fn to_json(item: &HashMap<String, AttributeValue>) -> Value {
    fn one(value: &AttributeValue) -> Value {
        match value {
            AttributeValue::S(s) => json!({ "S": s }),
            AttributeValue::N(n) => json!({ "N": n }),
            AttributeValue::Bool(b) => json!({ "BOOL": b }),
            AttributeValue::Null(_) => json!({ "NULL": true }),
            AttributeValue::Ss(v) => json!({ "SS": v }),
            AttributeValue::Ns(v) => json!({ "NS": v }),
            AttributeValue::L(v) => json!({ "L": v.iter().map(one).collect::<Vec<_>>() }),
            AttributeValue::M(m) => json!({ "M": to_json(m) }),
            _ => json!({ "NULL": true }),
        }
    }
    Value::Object(item.iter().map(|(k, v)| (k.clone(), one(v))).collect())
}

/// `UpdateItem` on DynamoDB (Local), the request passed through as it is.
pub struct DynamoDbUpdateItem {
    client: Client,
}

impl DynamoDbUpdateItem {
    pub fn new(client: Client) -> Self {
        Self { client }
    }
}

#[async_trait]
impl UpdateItem for DynamoDbUpdateItem {
    async fn update_item(&self, request: &Value) -> (u16, Value) {
        let text = |name: &str| request[name].as_str().map(str::to_owned);
        let parsed = (|| -> Result<_, String> {
            let names = match request.get("ExpressionAttributeNames") {
                Some(Value::Object(names)) => Some(
                    names
                        .iter()
                        .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned()))
                        .collect::<HashMap<_, _>>(),
                ),
                _ => None,
            };
            let values = match request.get("ExpressionAttributeValues") {
                Some(values) => Some(attributes(values)?),
                None => None,
            };
            Ok((attributes(&request["Key"])?, names, values))
        })();
        let (key, names, values) = match parsed {
            Ok(parsed) => parsed,
            Err(message) => return error(400, VALIDATION, message),
        };
        let result = self
            .client
            .update_item()
            .set_table_name(text("TableName"))
            .set_key(Some(key))
            .set_update_expression(text("UpdateExpression"))
            .set_condition_expression(text("ConditionExpression"))
            .set_expression_attribute_names(names)
            .set_expression_attribute_values(values)
            .set_return_values(text("ReturnValues").map(|v| ReturnValue::from(v.as_str())))
            .set_return_values_on_condition_check_failure(
                text("ReturnValuesOnConditionCheckFailure")
                    .map(|v| ReturnValuesOnConditionCheckFailure::from(v.as_str())),
            )
            .send()
            .await;
        match result {
            Ok(output) => {
                let mut body = Map::new();
                if let Some(attributes) = output.attributes() {
                    body.insert("Attributes".into(), to_json(attributes));
                }
                (200, Value::Object(body))
            }
            Err(err) => {
                if let Some(UpdateItemError::ConditionalCheckFailedException(failed)) =
                    err.as_service_error()
                {
                    let mut body = json!({"__type": CONDITION_FAILED, "message": "The conditional request failed"});
                    if let Some(item) = failed.item() {
                        body["Item"] = to_json(item);
                    }
                    return (400, body);
                }
                let message = err.message().unwrap_or("no message").to_owned();
                match err.code() {
                    Some("ValidationException") => error(400, VALIDATION, message),
                    Some(code) if code.contains("Throttl") || code.contains("Exceeded") => error(
                        400,
                        &format!("com.amazonaws.dynamodb.v20120810#{code}"),
                        message,
                    ),
                    _ => error(
                        500,
                        INTERNAL,
                        shared::telemetry::ErrorChain(&err).to_string(),
                    ),
                }
            }
        }
    }
}

/// The heartbeat's `UpdateItem` on the in-memory Players store.
pub struct MemoryUpdateItem {
    table: String,
    heartbeats: Arc<dyn Heartbeats>,
    /// The item as it is after a refused update (`ALL_OLD` on a failed condition).
    players: Arc<dyn PlayerReader>,
}

impl MemoryUpdateItem {
    pub fn new<S: Heartbeats + PlayerReader + 'static>(
        table: impl Into<String>,
        players: Arc<S>,
    ) -> Self {
        Self {
            table: table.into(),
            heartbeats: players.clone(),
            players,
        }
    }
}

/// The heartbeat's update: `SET lastSeen, sweepAt[, ackedSeq][, heartbeatRequestId]`,
/// or `REMOVE heartbeatRequestId` without a request id.
fn heartbeat_update(cursor: bool, request_id: bool) -> String {
    let mut update = "SET lastSeen = :now, sweepAt = :now + :timeout".to_owned();
    if cursor {
        update.push_str(", ackedSeq = :cursor");
    }
    if request_id {
        update.push_str(", heartbeatRequestId = :requestId");
    } else {
        update.push_str(" REMOVE heartbeatRequestId");
    }
    update
}

const HEARTBEAT_CONDITION: &str = "connectionId = :connectionId AND #status = :online";

#[async_trait]
impl UpdateItem for MemoryUpdateItem {
    async fn update_item(&self, request: &Value) -> (u16, Value) {
        if request["TableName"] != self.table.as_str() {
            return error(
                400,
                "com.amazonaws.dynamodb.v20120810#ResourceNotFoundException",
                "Requested resource not found",
            );
        }
        let player = match request["Key"]["playerId"]["S"].as_str() {
            Some("") | None => {
                return error(
                    400,
                    VALIDATION,
                    "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: playerId",
                );
            }
            Some(player) => player,
        };
        let empty = Map::new();
        let values = request["ExpressionAttributeValues"]
            .as_object()
            .unwrap_or(&empty);
        let update = request["UpdateExpression"].as_str().unwrap_or_default();
        let condition = request["ConditionExpression"].as_str().unwrap_or_default();
        let expressions = format!("{update} {condition}");
        let used: BTreeSet<&str> = expressions
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == ':' || c == '_'))
            .filter(|word| word.starts_with(':'))
            .collect();
        let unused: Vec<&str> = values
            .keys()
            .map(String::as_str)
            .filter(|k| !used.contains(k))
            .collect();
        if !unused.is_empty() {
            return error(
                400,
                VALIDATION,
                format!(
                    "Value provided in ExpressionAttributeValues unused in expressions: keys: {{{}}}",
                    unused.join(", ")
                ),
            );
        }
        let number = |name: &str| values.get(name).and_then(|v| v["N"].as_str());
        let (Some(now), Some(timeout)) = (number(":now"), number(":timeout")) else {
            return error(
                400,
                VALIDATION,
                "ExpressionAttributeValues lack :now or :timeout",
            );
        };
        let (Ok(now), Ok(timeout)) = (now.parse::<i64>(), timeout.parse::<i64>()) else {
            return error(
                400,
                VALIDATION,
                "A value provided cannot be converted into a number",
            );
        };
        let cursor = match number(":cursor").map(|c| c.parse::<u64>().map(Seq::new)) {
            None => None,
            Some(Ok(Ok(seq))) => Some(seq),
            Some(_) => {
                return error(
                    400,
                    VALIDATION,
                    "A value provided cannot be converted into a number",
                );
            }
        };
        let request_id = values.get(":requestId").map(|v| v["S"].clone());
        if update != heartbeat_update(cursor.is_some(), request_id.is_some())
            || condition != HEARTBEAT_CONDITION
            || request["ExpressionAttributeNames"] != json!({"#status": "status"})
            || values.get(":online") != Some(&json!({"S": "online"}))
        {
            return error(
                500,
                INTERNAL,
                "the local stack's in-memory UpdateItem runs only the heartbeat's update (template.yaml)",
            );
        }
        let connection = values
            .get(":connectionId")
            .and_then(|v| v["S"].as_str())
            .unwrap_or_default();
        let (Ok(player), Ok(connection)) =
            (PlayerId::parse(player), ConnectionId::parse(connection))
        else {
            // No item of DynamoDB's could have that key or connection: the condition fails.
            return (
                400,
                json!({"__type": CONDITION_FAILED, "message": "The conditional request failed"}),
            );
        };
        let deadline = now + timeout;
        match self
            .heartbeats
            .heartbeat(&player, &connection, now, deadline, cursor)
            .await
        {
            Ok(Liveness::Current) => {
                let mut attributes = json!({
                    "lastSeen": {"N": now.to_string()},
                    "sweepAt": {"N": deadline.to_string()},
                });
                if let Some(cursor) = cursor {
                    attributes["ackedSeq"] = json!({"N": cursor.get().to_string()});
                }
                if let Some(request_id) = request_id {
                    attributes["heartbeatRequestId"] = json!({ "S": request_id });
                }
                (200, json!({ "Attributes": attributes }))
            }
            Ok(Liveness::Replaced | Liveness::Gone) => {
                let mut body = json!({"__type": CONDITION_FAILED, "message": "The conditional request failed"});
                if let Ok(Some(record)) = self.players.get(&player).await {
                    body["Item"] = json!({
                        "playerId": {"S": record.player_id.as_str()},
                        "connectionId": {"S": record.connection_id.as_str()},
                        "status": {"S": record.status.as_str()},
                    });
                }
                (400, body)
            }
            Err(err) => error(500, INTERNAL, err.to_string()),
        }
    }
}
