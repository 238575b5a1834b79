//! Route events shaped exactly like API Gateway's, for handler tests.

use aws_lambda_events::apigw::{ApiGatewayProxyResponse, ApiGatewayWebsocketProxyRequest};
use aws_lambda_events::encodings::Body;
use lambda_runtime::{Context, LambdaEvent};
use serde_json::{Value, json};

/// A WebSocket route event from `player` on `connection`, as API Gateway sends it.
pub fn route_event(
    route_key: &str,
    player: &str,
    connection: &str,
    connected_at: i64,
    body: Option<&str>,
) -> LambdaEvent<ApiGatewayWebsocketProxyRequest> {
    let event_type = match route_key {
        "$connect" => "CONNECT",
        "$disconnect" => "DISCONNECT",
        _ => "MESSAGE",
    };
    let mut raw = json!({
        "requestContext": {
            "routeKey": route_key,
            "eventType": event_type,
            "messageDirection": "IN",
            "stage": "Development",
            "connectedAt": connected_at,
            "requestTimeEpoch": connected_at + 1,
            "requestId": "req-1",
            "domainName": "abcdef1234.execute-api.us-east-1.amazonaws.com",
            "connectionId": connection,
            "apiId": "abcdef1234",
            "authorizer": { "playerId": player, "principalId": player }
        },
        "isBase64Encoded": false
    });
    if let Some(body) = body {
        raw["body"] = Value::String(body.to_owned());
    }
    parse_event(raw)
}

/// Deserializes a JSON event (e.g. a file from `events/`) into a Lambda event.
pub fn parse_event<T: serde::de::DeserializeOwned>(raw: Value) -> LambdaEvent<T> {
    let payload = serde_json::from_value(raw).expect("a well-formed test event");
    LambdaEvent::new(payload, Context::default())
}

/// The JSON frame in a reply's body.
pub fn reply_frame(response: &ApiGatewayProxyResponse) -> Value {
    match &response.body {
        Some(Body::Text(text)) => serde_json::from_str(text).expect("reply body is JSON"),
        other => panic!("expected a text body, got {other:?}"),
    }
}

/// A DynamoDB stream INSERT record carrying `message` as its NEW_IMAGE, as Lambda
/// delivers it.
pub fn stream_insert(message: &shared::messaging::StoredMessage, sequence_number: &str) -> Value {
    json!({
        "eventID": format!("evt-{sequence_number}"),
        "eventName": "INSERT",
        "eventVersion": "1.1",
        "eventSource": "aws:dynamodb",
        "awsRegion": "us-east-1",
        "dynamodb": {
            "ApproximateCreationDateTime": message.created_at / 1000,
            "Keys": {
                "recipientId": { "S": message.recipient_id.as_str() },
                "seq": { "N": message.seq.to_string() }
            },
            "NewImage": {
                "recipientId": { "S": message.recipient_id.as_str() },
                "seq": { "N": message.seq.to_string() },
                "epoch": { "N": message.epoch.to_string() },
                "messageId": { "S": message.message_id.as_str() },
                "senderId": { "S": message.sender_id },
                "kind": { "S": message.kind.as_str() },
                "payload": { "S": message.payload },
                "createdAt": { "N": message.created_at.to_string() },
                "expireAt": { "N": message.expire_at_secs.to_string() }
            },
            "SequenceNumber": sequence_number,
            "SizeBytes": 256,
            "StreamViewType": "NEW_IMAGE"
        },
        "eventSourceARN": "arn:aws:dynamodb:us-east-1:123456789012:table/Messages/stream/2026-11-22T00:00:00.000"
    })
}

/// `text` percent-encoded as a client puts it in a path segment or a query value (an ARN
/// holds `:` and `/`; a token command may print anything): RFC 3986's unreserved
/// characters kept, every other byte `%XX`.
pub fn percent_encoded(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}
