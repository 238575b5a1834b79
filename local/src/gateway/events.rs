//! The events API Gateway sends, built as its JSON and then read into the typed
//! structs, so handlers see exactly what they would see behind the real API. MESSAGE
//! events, one per frame, are built typed directly; a test holds them equal to the JSON.

use aws_lambda_events::apigw::{
    ApiGatewayCustomAuthorizerRequestTypeRequest, ApiGatewayRequestAuthorizer,
    ApiGatewayRequestIdentity, ApiGatewayWebsocketProxyRequest,
    ApiGatewayWebsocketProxyRequestContext,
};
use serde_json::{Map, Value, json};

use crate::routes::{CONNECT, DISCONNECT};
use crate::time::request_time;

/// The API id in ARNs and events.
pub const API_ID: &str = "local";

/// What API Gateway knows about a connection, fixed at `$connect`.
#[derive(Clone, Debug)]
pub struct ConnectionFacts {
    pub connection_id: String,
    /// Epoch milliseconds.
    pub connected_at: i64,
    pub stage: String,
    /// `127.0.0.1:{port}`
    pub domain_name: String,
    pub source_ip: String,
    pub user_agent: Option<String>,
    /// `requestContext.authorizer` (empty until the authorizer allowed the connection).
    pub authorizer: Map<String, Value>,
}

/// The upgrade request's headers and query string, in arrival order.
#[derive(Clone, Debug, Default)]
pub struct UpgradeRequest {
    pub headers: Vec<(String, String)>,
    pub query: Vec<(String, String)>,
}

/// Ids of one invocation.
#[derive(Clone, Debug)]
pub struct Invocation {
    pub request_id: String,
    /// Epoch milliseconds.
    pub at: i64,
}

/// `(single-value map: last value wins, multi-value map)` as API Gateway builds them.
fn maps(pairs: &[(String, String)]) -> (Value, Value) {
    let mut single = Map::new();
    let mut multi: Map<String, Value> = Map::new();
    for (name, value) in pairs {
        single.insert(name.clone(), Value::from(value.as_str()));
        match multi.get_mut(name) {
            Some(Value::Array(values)) => values.push(Value::from(value.as_str())),
            _ => {
                multi.insert(name.clone(), json!([value]));
            }
        }
    }
    if single.is_empty() {
        (Value::Null, Value::Null)
    } else {
        (Value::Object(single), Value::Object(multi))
    }
}

fn identity(facts: &ConnectionFacts) -> Value {
    let mut identity = Map::new();
    identity.insert("sourceIp".into(), Value::from(facts.source_ip.as_str()));
    if let Some(agent) = &facts.user_agent {
        identity.insert("userAgent".into(), Value::from(agent.as_str()));
    }
    Value::Object(identity)
}

fn request_context(
    facts: &ConnectionFacts,
    route_key: &str,
    event_type: &str,
    call: &Invocation,
) -> Map<String, Value> {
    let mut ctx = Map::new();
    ctx.insert("routeKey".into(), Value::from(route_key));
    ctx.insert("eventType".into(), Value::from(event_type));
    ctx.insert(
        "extendedRequestId".into(),
        Value::from(call.request_id.as_str()),
    );
    ctx.insert("requestTime".into(), Value::from(request_time(call.at)));
    ctx.insert("messageDirection".into(), Value::from("IN"));
    ctx.insert("stage".into(), Value::from(facts.stage.as_str()));
    ctx.insert("connectedAt".into(), Value::from(facts.connected_at));
    ctx.insert("requestTimeEpoch".into(), Value::from(call.at));
    ctx.insert("identity".into(), identity(facts));
    ctx.insert("requestId".into(), Value::from(call.request_id.as_str()));
    ctx.insert("domainName".into(), Value::from(facts.domain_name.as_str()));
    ctx.insert(
        "connectionId".into(),
        Value::from(facts.connection_id.as_str()),
    );
    ctx.insert("apiId".into(), Value::from(API_ID));
    if !facts.authorizer.is_empty() {
        ctx.insert("authorizer".into(), Value::Object(facts.authorizer.clone()));
    }
    ctx
}

/// `arn:aws:execute-api:local:000000000000:local/{stage}/$connect`
pub fn method_arn(stage: &str) -> String {
    format!("arn:aws:execute-api:local:000000000000:{API_ID}/{stage}/{CONNECT}")
}

/// The REQUEST authorizer's event for a `$connect`.
pub fn authorizer_request(
    facts: &ConnectionFacts,
    upgrade: &UpgradeRequest,
    call: &Invocation,
) -> Result<ApiGatewayCustomAuthorizerRequestTypeRequest, serde_json::Error> {
    let (headers, multi_headers) = maps(&upgrade.headers);
    let (query, multi_query) = maps(&upgrade.query);
    let value = json!({
        "type": "REQUEST",
        "methodArn": method_arn(&facts.stage),
        "headers": headers,
        "multiValueHeaders": multi_headers,
        "queryStringParameters": query,
        "multiValueQueryStringParameters": multi_query,
        "stageVariables": {},
        "requestContext": request_context(facts, CONNECT, "CONNECT", call),
    });
    serde_json::from_value(value)
}

/// The `$connect` route's event.
pub fn connect_event(
    facts: &ConnectionFacts,
    upgrade: &UpgradeRequest,
    call: &Invocation,
) -> Result<ApiGatewayWebsocketProxyRequest, serde_json::Error> {
    let (headers, multi_headers) = maps(&upgrade.headers);
    let (query, multi_query) = maps(&upgrade.query);
    let value = json!({
        "headers": headers,
        "multiValueHeaders": multi_headers,
        "queryStringParameters": query,
        "multiValueQueryStringParameters": multi_query,
        "requestContext": request_context(facts, CONNECT, "CONNECT", call),
        "isBase64Encoded": false,
    });
    serde_json::from_value(value)
}

/// A MESSAGE event for `route_key`: `body` is the frame's text, or base64 of a binary frame.
pub fn message_event(
    facts: &ConnectionFacts,
    route_key: &str,
    message_id: &str,
    call: &Invocation,
    body: String,
    is_base64_encoded: bool,
) -> Result<ApiGatewayWebsocketProxyRequest, serde_json::Error> {
    // Built as the typed struct: building API Gateway's JSON and parsing it back for
    // every frame was a sixth of the local stack's time under load. A test holds the
    // two equal.
    let mut identity = ApiGatewayRequestIdentity::default();
    identity.source_ip = Some(facts.source_ip.clone());
    identity.user_agent = facts.user_agent.clone();
    let mut context = ApiGatewayWebsocketProxyRequestContext::default();
    context.route_key = Some(route_key.to_owned());
    context.event_type = Some("MESSAGE".to_owned());
    context.extended_request_id = Some(call.request_id.clone());
    context.request_time = Some(request_time(call.at));
    context.message_direction = Some("IN".to_owned());
    context.stage = Some(facts.stage.clone());
    context.connected_at = facts.connected_at;
    context.request_time_epoch = call.at;
    context.identity = identity;
    context.request_id = Some(call.request_id.clone());
    context.domain_name = Some(facts.domain_name.clone());
    context.connection_id = Some(facts.connection_id.clone());
    context.apiid = Some(API_ID.to_owned());
    // A WebSocket event's `requestContext.authorizer` is the authorizer's context map.
    context.authorizer = ApiGatewayRequestAuthorizer::default();
    context.authorizer.fields = facts
        .authorizer
        .iter()
        .map(|(name, value)| (name.clone(), value.clone()))
        .collect();
    context.message_id = Some(message_id.to_owned());
    let mut event = ApiGatewayWebsocketProxyRequest::default();
    event.request_context = context;
    event.body = Some(body);
    event.is_base64_encoded = is_base64_encoded;
    Ok(event)
}

/// [`message_event`] as API Gateway's JSON, read into the typed struct.
#[cfg(test)]
fn message_event_from_json(
    facts: &ConnectionFacts,
    route_key: &str,
    message_id: &str,
    call: &Invocation,
    body: &str,
    is_base64_encoded: bool,
) -> Result<ApiGatewayWebsocketProxyRequest, serde_json::Error> {
    let mut ctx = request_context(facts, route_key, "MESSAGE", call);
    ctx.insert("messageId".into(), Value::from(message_id));
    let value = json!({
        "requestContext": ctx,
        "body": body,
        "isBase64Encoded": is_base64_encoded,
    });
    serde_json::from_value(value)
}

/// The `$disconnect` event: why the connection closed, and with what code.
pub fn disconnect_event(
    facts: &ConnectionFacts,
    call: &Invocation,
    status_code: u16,
    reason: &str,
) -> Result<ApiGatewayWebsocketProxyRequest, serde_json::Error> {
    let mut ctx = request_context(facts, DISCONNECT, "DISCONNECT", call);
    ctx.insert("disconnectStatusCode".into(), Value::from(status_code));
    ctx.insert("disconnectReason".into(), Value::from(reason));
    let headers = vec![
        ("Host".to_owned(), facts.domain_name.clone()),
        ("x-api-key".to_owned(), String::new()),
        ("X-Forwarded-For".to_owned(), String::new()),
        ("x-restapi".to_owned(), String::new()),
    ];
    let (headers, multi_headers) = maps(&headers);
    let value = json!({
        "headers": headers,
        "multiValueHeaders": multi_headers,
        "requestContext": ctx,
        "isBase64Encoded": false,
    });
    serde_json::from_value(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use edge::websocket::{Caller, PLAYER_ID_CONTEXT_KEY};

    fn facts() -> ConnectionFacts {
        let mut authorizer = Map::new();
        authorizer.insert(PLAYER_ID_CONTEXT_KEY.into(), json!("alice"));
        authorizer.insert("principalId".into(), json!("alice"));
        ConnectionFacts {
            connection_id: "L0SM9cOFvHcCIhw=".into(),
            connected_at: 1_586_455_575_966,
            stage: "Development".into(),
            domain_name: "127.0.0.1:3001".into(),
            source_ip: "127.0.0.1".into(),
            user_agent: Some("test".into()),
            authorizer,
        }
    }

    fn call() -> Invocation {
        Invocation {
            request_id: "Jm3cJGx9oAMFvcQ=".into(),
            at: 1_586_455_577_006,
        }
    }

    #[test]
    fn a_message_event_carries_the_connection_and_the_authorizer_context() {
        let event =
            message_event(&facts(), "heartbeat", "m1", &call(), "{}".into(), false).unwrap();
        let ctx = &event.request_context;
        assert_eq!(ctx.route_key.as_deref(), Some("heartbeat"));
        assert_eq!(ctx.event_type.as_deref(), Some("MESSAGE"));
        assert_eq!(ctx.message_id.as_deref(), Some("m1"));
        assert_eq!(ctx.message_direction.as_deref(), Some("IN"));
        assert_eq!(ctx.connected_at, 1_586_455_575_966);
        assert_eq!(ctx.request_time_epoch, 1_586_455_577_006);
        assert_eq!(
            ctx.request_time.as_deref(),
            Some("09/Apr/2020:18:06:17 +0000")
        );
        assert_eq!(ctx.apiid.as_deref(), Some("local"));
        assert_eq!(ctx.identity.source_ip.as_deref(), Some("127.0.0.1"));
        assert_eq!(event.body.as_deref(), Some("{}"));
        assert!(!event.is_base64_encoded);

        let caller = Caller::from_event(&event).unwrap();
        assert_eq!(caller.player_id.as_str(), "alice");
        assert_eq!(caller.connection_id.as_str(), "L0SM9cOFvHcCIhw=");
        assert_eq!(caller.endpoint, "http://127.0.0.1:3001/Development");
    }

    #[test]
    fn given_an_allowed_connection_when_a_message_arrives_then_its_typed_event_is_what_the_json_would_give()
     {
        // Given: a connection the authorizer allowed.
        let facts = facts();

        // When: a binary message.
        let later = Invocation {
            request_id: "Jm3cJGx9oAMFvcR=".into(),
            at: 1_586_455_579_123,
        };
        let event = message_event(&facts, "resume", "m2", &later, "AAE=".into(), true).unwrap();

        // Then: field for field what building and parsing the JSON gives.
        let from_json =
            message_event_from_json(&facts, "resume", "m2", &later, "AAE=", true).unwrap();
        assert_eq!(event, from_json);
    }

    #[test]
    fn connect_and_authorizer_events_carry_headers_and_query() {
        let upgrade = UpgradeRequest {
            headers: vec![
                ("host".into(), "127.0.0.1:3001".into()),
                ("x-player-id".into(), "bob".into()),
            ],
            query: vec![
                ("playerId".into(), "a".into()),
                ("playerId".into(), "alice".into()),
            ],
        };
        let mut facts = facts();
        facts.authorizer.clear();
        let auth = authorizer_request(&facts, &upgrade, &call()).unwrap();
        assert_eq!(auth.type_.as_deref(), Some("REQUEST"));
        assert_eq!(
            auth.method_arn.as_deref(),
            Some("arn:aws:execute-api:local:000000000000:local/Development/$connect")
        );
        assert_eq!(auth.headers.get("X-Player-Id").unwrap(), "bob");
        assert_eq!(
            auth.query_string_parameters.first("playerId"),
            Some("alice")
        );
        assert_eq!(
            auth.multi_value_query_string_parameters.all("playerId"),
            Some(vec!["a", "alice"])
        );
        assert_eq!(auth.request_context.stage.as_deref(), Some("Development"));

        let connect = connect_event(&facts, &upgrade, &call()).unwrap();
        assert_eq!(
            connect.request_context.route_key.as_deref(),
            Some("$connect")
        );
        assert_eq!(
            connect.request_context.event_type.as_deref(),
            Some("CONNECT")
        );
        assert_eq!(connect.headers.get("host").unwrap(), "127.0.0.1:3001");
    }

    #[test]
    fn a_disconnect_event_says_why() {
        let event = disconnect_event(&facts(), &call(), 1001, "Going away").unwrap();
        let ctx = &event.request_context;
        assert_eq!(ctx.route_key.as_deref(), Some("$disconnect"));
        assert_eq!(ctx.event_type.as_deref(), Some("DISCONNECT"));
        assert_eq!(ctx.disconnect_status_code, Some(1001));
        assert_eq!(ctx.disconnect_reason.as_deref(), Some("Going away"));
        assert_eq!(ctx.authorizer.fields.get("playerId"), Some(&json!("alice")));
    }
}
