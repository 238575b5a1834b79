//! A route API Gateway answers by itself (`IntegrationType: MOCK`), as template.yaml
//! deploys the `ping` route: the request template is rendered and must select status
//! 200; nothing runs, nothing is written and, the route being one-way (no route
//! response), nothing is sent back. What the frame still does happens before any route:
//! the connection is marked active (`lastActiveAt`), which is all a ping is for.

use async_trait::async_trait;
use serde_json::Value;

use super::velocity::{Scope, Template};
use super::{Integration, IntegrationRequest};

/// A one-way route with a MOCK integration.
pub struct MockIntegration {
    request: Template,
}

impl MockIntegration {
    /// The MOCK integration of `route_key` as `template` (template.yaml as JSON) deploys
    /// it. Refuses a route that is not MOCK, or that would answer (a route response or
    /// integration responses): the local stack would not know what to send.
    pub fn from_template(template: &Value, route_key: &str) -> Result<Self, String> {
        let resources = template["Resources"]
            .as_object()
            .ok_or("the template has no Resources")?;
        let (route_id, route) = super::find_route(resources, route_key)?;
        let target = super::route_target(route, route_key)?;
        let integration = &resources
            .get(target)
            .ok_or_else(|| format!("no integration {target}"))?["Properties"];
        if integration["IntegrationType"] != "MOCK" {
            return Err(format!(
                "route {route_key:?}'s integration {target} is not MOCK"
            ));
        }
        let answers = resources.values().any(|resource| {
            let properties = &resource["Properties"];
            (resource["Type"] == "AWS::ApiGatewayV2::RouteResponse"
                && properties["RouteId"]["Ref"] == route_id.as_str())
                || (resource["Type"] == "AWS::ApiGatewayV2::IntegrationResponse"
                    && properties["IntegrationId"]["Ref"] == target)
        });
        if answers {
            return Err(format!(
                "route {route_key:?} answers: only one-way MOCK routes are served locally"
            ));
        }
        let text = integration["RequestTemplates"]["$default"]
            .as_str()
            .ok_or_else(|| format!("{target} has no plain $default request template"))?;
        Ok(Self {
            request: Template::parse(text).map_err(|e| format!("the request template: {e}"))?,
        })
    }
}

#[async_trait]
impl Integration for MockIntegration {
    fn action(&self) -> &str {
        "mock"
    }

    async fn handle(&self, frame: &str, request: &IntegrationRequest) -> Option<String> {
        let context = request.context();
        let payload: Value = serde_json::from_str(frame).unwrap_or(Value::Null);
        let rendered = self.request.render(&mut Scope::new(&payload, &context));
        let status = rendered
            .ok()
            .and_then(|text| serde_json::from_str::<Value>(&text).ok())
            .and_then(|selected| selected["statusCode"].as_u64());
        if status != Some(200) {
            // What API Gateway's execution log would show; a one-way route tells the
            // client nothing either way.
            tracing::warn!(route = ?request.route_key, ?status, "the MOCK request template did not select 200");
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Map, json};

    use super::*;

    fn request() -> IntegrationRequest {
        IntegrationRequest {
            connection_id: "abc=".into(),
            route_key: "ping".into(),
            stage: "local".into(),
            domain_name: "localhost".into(),
            api_id: "local".into(),
            request_id: "r".into(),
            message_id: "m".into(),
            request_time_epoch: 1,
            connected_at: 1,
            authorizer: Map::new(),
        }
    }

    #[tokio::test]
    async fn given_the_ping_route_of_template_yaml_when_a_ping_arrives_then_nothing_is_sent_back() {
        let template = crate::template::parse(crate::template::TEMPLATE_YAML).unwrap();
        let ping = MockIntegration::from_template(&template, "ping").unwrap();
        assert_eq!(ping.action(), "mock");
        for frame in [
            r#"{"route":"ping"}"#,
            r#"{"route":"ping","requestId":"r1","body":{"cursor":3}}"#,
            "not json",
        ] {
            assert_eq!(ping.handle(frame, &request()).await, None, "{frame}");
        }
    }

    #[test]
    fn given_a_route_that_is_not_mock_or_answers_when_wired_as_mock_then_it_is_refused() {
        let template = crate::template::parse(crate::template::TEMPLATE_YAML).unwrap();
        let heartbeat = MockIntegration::from_template(&template, "heartbeat");
        assert!(heartbeat.err().unwrap().contains("not MOCK"));
        let answering = json!({"Resources": {
            "R": {"Type": "AWS::ApiGatewayV2::Route", "Properties": {"RouteKey": "p", "Target": {"Fn::Sub": "integrations/${I}"}}},
            "I": {"Type": "AWS::ApiGatewayV2::Integration", "Properties": {"IntegrationType": "MOCK", "RequestTemplates": {"$default": "{\"statusCode\": 200}"}}},
            "RR": {"Type": "AWS::ApiGatewayV2::RouteResponse", "Properties": {"RouteId": {"Ref": "R"}, "RouteResponseKey": "$default"}},
        }});
        let error = MockIntegration::from_template(&answering, "p")
            .err()
            .unwrap();
        assert!(error.contains("answers"), "{error}");
    }
}
