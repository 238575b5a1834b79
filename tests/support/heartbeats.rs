//! Heartbeats on DynamoDB as deployed: no Rust adapter records them (API Gateway's own
//! integration does, from template.yaml's mapping template), so the heartbeat contract
//! runs that template, as the local stack runs it, against DynamoDB Local; what the
//! integration answers the socket tells which [`Liveness`] it found.

use std::sync::Arc;

use async_trait::async_trait;
use local::integration::dynamodb::DynamoDbUpdateItem;
use local::integration::{Integration, IntegrationRequest, UpdateItemIntegration};
use serde_json::{Value, json};
use shared::domain::{ConnectionId, EpochMillis, PlayerId, Seq};
use shared::players::Liveness;
use shared::ports::{Heartbeats, StoreError};

/// The heartbeat route's integration on `table`.
pub struct TemplateHeartbeats {
    client: aws_sdk_dynamodb::Client,
    table: String,
}

impl TemplateHeartbeats {
    pub fn new(client: aws_sdk_dynamodb::Client, table: impl Into<String>) -> Self {
        Self {
            client,
            table: table.into(),
        }
    }
}

#[async_trait]
impl Heartbeats for TemplateHeartbeats {
    async fn heartbeat(
        &self,
        player: &PlayerId,
        connection: &ConnectionId,
        now: EpochMillis,
        deadline: EpochMillis,
        cursor: Option<Seq>,
    ) -> Result<Liveness, StoreError> {
        // The template adds the stack's timeout, in whole seconds, to the request's time.
        let timeout = deadline - now;
        assert_eq!(
            timeout % 1_000,
            0,
            "the template's timeout is whole seconds"
        );
        let template = local::template::parse(local::template::TEMPLATE_YAML)
            .expect("the compiled-in template parses");
        let integration = UpdateItemIntegration::from_template(
            &template,
            "heartbeat",
            &[
                ("PlayersTable", self.table.as_str()),
                ("HeartbeatTimeoutSeconds", &(timeout / 1_000).to_string()),
            ],
            Arc::new(DynamoDbUpdateItem::new(self.client.clone())),
        )
        .expect("the heartbeat integration is an UpdateItem");
        let mut frame = json!({"route": "heartbeat", "requestId": "hb"});
        if let Some(cursor) = cursor {
            frame["body"] = json!({ "cursor": cursor.get() });
        }
        let request = IntegrationRequest {
            connection_id: connection.as_str().to_owned(),
            route_key: "heartbeat".into(),
            stage: "Development".into(),
            domain_name: "abcdef1234.execute-api.us-east-1.amazonaws.com".into(),
            api_id: "abcdef1234".into(),
            request_id: "Kx8bNFq-IAMFZ3g=".into(),
            message_id: "Kx8cDdf1IAMCJzQ=".into(),
            request_time_epoch: now,
            connected_at: now,
            authorizer: serde_json::Map::from_iter([(
                "playerId".to_owned(),
                json!(player.as_str()),
            )]),
        };
        let reply = integration.handle(&frame.to_string(), &request).await;
        let reply: Value = reply
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or(Value::Null);
        match reply["type"].as_str() {
            Some("ack") => Ok(Liveness::Current),
            Some("session_replaced") => Ok(Liveness::Replaced),
            Some("disconnected") => Ok(Liveness::Gone),
            _ => Err(StoreError::Unavailable(
                format!("the heartbeat integration answered {reply}").into(),
            )),
        }
    }
}
