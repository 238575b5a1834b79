//! API Gateway's own integrations, emulated from template.yaml: a route whose
//! integration is an AWS service call (the heartbeat route's DynamoDB `UpdateItem`)
//! or a MOCK (the `ping` route, [`mock`]) runs here as API Gateway runs it, with no
//! handler: the deployed request template is rendered ([`velocity`]) with the frame and
//! `$context`, the call is made on the local
//! stores ([`dynamodb`]), and the integration response whose key matches the status is
//! rendered into the frame sent back (none when it renders nothing).
//!
//! The templates are read from the template compiled in ([`crate::template`]), so what
//! the local stack does is what is deployed; `${Name}`s of `Fn::Sub` are the local
//! values (the Players table's name, the heartbeat timeout). On DynamoDB Local the
//! `UpdateItem` is made through the SDK as rendered; in memory, the request is checked to
//! be the heartbeat's and applied with `Heartbeats::heartbeat`.
//! `tests/mapping-templates/cases.json` holds the templates' expected renderings; the
//! Rust renderer is tested on them, and `scripts/check-mapping-templates.py` renders the
//! same cases with a real Velocity engine (Python's `airspeed`, pinned in
//! `scripts/lib.sh`) on the text of template.yaml.
//!
//! # The heartbeat route, as deployed
//!
//! A heartbeat runs no function. The route's integration is API Gateway's own call to
//! DynamoDB (`IntegrationType: AWS`, `dynamodb:action/UpdateItem`, with a role that may
//! only `UpdateItem` the Players table): its request template (`HeartbeatIntegration` in
//! template.yaml) makes the one conditional write, and its integration responses turn
//! DynamoDB's answer into the frame sent back, if any:
//!
//! | DynamoDB answers | frame |
//! |---|---|
//! | 200, the frame had a `requestId` (stored as `heartbeatRequestId`, returned by `UPDATED_NEW`) | `{"type":"ack","route":"heartbeat","requestId":…,"serverTime":…}` |
//! | 200, no `requestId` (the update removes `heartbeatRequestId`) | none: the template renders nothing |
//! | 400 `ConditionalCheckFailedException`, the item names another connection | `{"type":"session_replaced"}` |
//! | 400 `ConditionalCheckFailedException`, this connection but not online (swept, or its `$disconnect` ran) | `{"type":"disconnected","reason":"connection_lost"}` |
//! | 400 `ValidationException` (the frame broke the heartbeat's rules: the template adds a value no expression uses, so DynamoDB refuses it and writes nothing) | `error`, `bad_request` |
//! | any other 4xx (throttled), 5xx, a timeout | `error`, `unavailable`: send the next one |
//!
//! - What it writes: `SET lastSeen = now, sweepAt = now + HeartbeatTimeoutSeconds`
//!   (`now` is `$context.requestTimeEpoch`), `ackedSeq` when the body has a `cursor`,
//!   keyed by the authorizer's `playerId`, under `connectionId = this connection AND
//!   status = online`. Both ids go through `$util.escapeJavaScript`, which would turn a
//!   `'` into `\'` (not JSON); player ids cannot hold one (`A-Z a-z 0-9 . _ : @ -`), and
//!   API Gateway's connection ids are base64 text. One write unit, no index write
//!   (`BySweepShard` keys on `sweepShard`, which a heartbeat does not change).
//! - What clients see: a heartbeat without `requestId` gets no reply; error frames carry
//!   no `requestId` (the integration response sees DynamoDB's answer, not the frame); a
//!   socket that is not current is told `session_replaced` (or `disconnected`) and left
//!   open, since an integration cannot close a socket: the client closes it, and it is no
//!   longer tracked, so it costs nothing but connection minutes until then.
//!
//! What of this API Gateway documents, and what it relies on without a page saying it
//! (and how each is checked on a deployment), is one table: docs/deploy.md, "What this
//! stack assumes of AWS".

pub mod dynamodb;
pub mod mock;
pub mod velocity;

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Map, Value, json};

use dynamodb::UpdateItem;
pub use mock::MockIntegration;
use velocity::{Scope, Template};

/// What API Gateway knows of a message when it runs an integration.
#[derive(Clone, Debug)]
pub struct IntegrationRequest {
    pub connection_id: String,
    pub route_key: String,
    pub stage: String,
    pub domain_name: String,
    pub api_id: String,
    pub request_id: String,
    pub message_id: String,
    /// Epoch milliseconds.
    pub request_time_epoch: i64,
    pub connected_at: i64,
    /// The `$connect` authorizer's context, as every later message carries it.
    pub authorizer: Map<String, Value>,
}

impl IntegrationRequest {
    /// `$context` as a mapping template sees it.
    pub fn context(&self) -> Value {
        json!({
            "connectionId": self.connection_id,
            "routeKey": self.route_key,
            "stage": self.stage,
            "domainName": self.domain_name,
            "apiId": self.api_id,
            "requestId": self.request_id,
            "extendedRequestId": self.request_id,
            "messageId": self.message_id,
            "eventType": "MESSAGE",
            "requestTimeEpoch": self.request_time_epoch,
            "connectedAt": self.connected_at,
            "authorizer": self.authorizer,
        })
    }
}

/// A route's integration that is not a Lambda function.
#[async_trait]
pub trait Integration: Send + Sync {
    /// The AWS action it calls (`dynamodb:UpdateItem`): logs, and the template drift test.
    fn action(&self) -> &str;

    /// Runs it for one frame; the frame to send back, if any.
    async fn handle(&self, frame: &str, request: &IntegrationRequest) -> Option<String>;
}

/// One integration response: its key (`$default`, or `/regex/` on the status) and template.
struct Response {
    key: String,
    template: Template,
}

impl Response {
    fn matches(&self, status: u16) -> bool {
        match self.key.strip_prefix('/').and_then(|k| k.strip_suffix('/')) {
            Some(pattern) => regex_lite::Regex::new(&format!("^(?:{pattern})$"))
                .is_ok_and(|regex| regex.is_match(&status.to_string())),
            None => false,
        }
    }
}

/// A route integrated with DynamoDB `UpdateItem` through mapping templates.
pub struct UpdateItemIntegration {
    request: Template,
    responses: Vec<Response>,
    executor: Arc<dyn UpdateItem>,
}

/// What a route's AWS integration is, as template.yaml deploys it, as text.
pub struct RouteTemplates {
    /// The AWS action it calls: `dynamodb:UpdateItem`.
    pub action: String,
    /// The `$default` request template, its `Fn::Sub` names resolved.
    pub request: String,
    /// Each integration response: its key and its `$default` template.
    pub responses: Vec<(String, String)>,
}

/// The route resource of `route_key`: its logical id and its definition.
fn find_route<'a>(
    resources: &'a Map<String, Value>,
    route_key: &str,
) -> Result<(&'a String, &'a Value), String> {
    resources
        .iter()
        .find(|(_, r)| {
            r["Type"] == "AWS::ApiGatewayV2::Route" && r["Properties"]["RouteKey"] == route_key
        })
        .ok_or_else(|| format!("the template has no route {route_key:?}"))
}

/// The logical id of the integration a route targets (`integrations/${Id}`).
fn route_target<'a>(route: &'a Value, route_key: &str) -> Result<&'a str, String> {
    route["Properties"]["Target"]["Fn::Sub"]
        .as_str()
        .and_then(|t| t.strip_prefix("integrations/${"))
        .and_then(|t| t.strip_suffix('}'))
        .ok_or_else(|| format!("route {route_key:?} has no integrations/${{…}} target"))
}

/// The mapping templates of the integration of `route_key` in `template` (template.yaml
/// as JSON), the request template's `Fn::Sub` names resolved with `values`.
pub fn route_templates(
    template: &Value,
    route_key: &str,
    values: &[(&str, &str)],
) -> Result<RouteTemplates, String> {
    let resources = template["Resources"]
        .as_object()
        .ok_or("the template has no Resources")?;
    let (_, route) = find_route(resources, route_key)?;
    let target = route_target(route, route_key)?;
    let integration = &resources
        .get(target)
        .ok_or_else(|| format!("no integration {target}"))?["Properties"];
    let action = integration["IntegrationUri"]["Fn::Sub"]
        .as_str()
        .and_then(|uri| uri.rsplit_once(":dynamodb:action/"))
        .map(|(_, action)| format!("dynamodb:{action}"))
        .ok_or_else(|| format!("{target} is not a DynamoDB action integration"))?;
    let request = match &integration["RequestTemplates"]["$default"] {
        Value::String(text) => text.clone(),
        other => match other["Fn::Sub"].as_str() {
            Some(text) => crate::template::substitute(text, values)?,
            None => return Err(format!("{target} has no $default request template")),
        },
    };
    let mut responses = Vec::new();
    for resource in resources.values() {
        let properties = &resource["Properties"];
        if resource["Type"] == "AWS::ApiGatewayV2::IntegrationResponse"
            && properties["IntegrationId"]["Ref"] == target
        {
            let key = properties["IntegrationResponseKey"]
                .as_str()
                .ok_or("an integration response without a key")?;
            let text = properties["ResponseTemplates"]["$default"]
                .as_str()
                .ok_or_else(|| format!("integration response {key} has no $default template"))?;
            responses.push((key.to_owned(), text.to_owned()));
        }
    }
    Ok(RouteTemplates {
        action,
        request,
        responses,
    })
}

impl UpdateItemIntegration {
    /// The integration of `route_key` as `template` (template.yaml as JSON) deploys it.
    pub fn from_template(
        template: &Value,
        route_key: &str,
        values: &[(&str, &str)],
        executor: Arc<dyn UpdateItem>,
    ) -> Result<Self, String> {
        let RouteTemplates {
            action,
            request,
            responses,
        } = route_templates(template, route_key, values)?;
        if action != "dynamodb:UpdateItem" {
            return Err(format!(
                "route {route_key:?} calls {action}, not UpdateItem"
            ));
        }
        let responses = responses
            .into_iter()
            .map(|(key, text)| {
                Template::parse(&text)
                    .map(|template| Response { key, template })
                    .map_err(|e| format!("the integration response template: {e}"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self {
            request: Template::parse(&request).map_err(|e| format!("the request template: {e}"))?,
            responses,
            executor,
        })
    }

    /// The response template for `status`: the first `/regex/` key it matches, else
    /// `$default`.
    fn response_for(&self, status: u16) -> Option<&Response> {
        self.responses
            .iter()
            .find(|r| r.matches(status))
            .or_else(|| self.responses.iter().find(|r| r.key == "$default"))
    }
}

#[async_trait]
impl Integration for UpdateItemIntegration {
    fn action(&self) -> &str {
        "dynamodb:UpdateItem"
    }

    async fn handle(&self, frame: &str, request: &IntegrationRequest) -> Option<String> {
        let context = request.context();
        let payload: Value = serde_json::from_str(frame).unwrap_or(Value::Null);
        let rendered = self.request.render(&mut Scope::new(&payload, &context));
        let (status, body) = match rendered.map(|text| serde_json::from_str::<Value>(&text)) {
            Ok(Ok(call)) => {
                let (status, body) = self.executor.update_item(&call).await;
                if status >= 500 {
                    // What API Gateway's execution log would say; the client is told
                    // `unavailable` by the integration response.
                    tracing::warn!(route = ?request.route_key, connection_id = ?request.connection_id, status, error = %body["message"].as_str().unwrap_or_default(), "the route's DynamoDB integration failed");
                }
                (status, body)
            }
            // API Gateway sends DynamoDB whatever the template made; what DynamoDB makes of
            // text that is not JSON is a 400 it cannot parse.
            Ok(Err(error)) => (
                400,
                json!({"__type": "com.amazon.coral.service#SerializationException", "message": error.to_string()}),
            ),
            Err(error) => {
                tracing::error!(%error, "the request template did not render");
                (500, json!({"message": error}))
            }
        };
        let response = self.response_for(status)?;
        match response.template.render(&mut Scope::new(&body, &context)) {
            Ok(text) if text.trim().is_empty() => None,
            Ok(text) => Some(text),
            Err(error) => {
                tracing::error!(%error, status, "the integration response template did not render");
                None
            }
        }
    }
}

#[cfg(test)]
mod tests;
