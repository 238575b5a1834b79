//! Connection rows: the authorizer, $connect (new, takeover, within grace), heartbeat
//! and ping (API Gateway integrations, no Lambda), $disconnect, resume with nothing
//! pending.

use std::sync::Arc;

use aws_lambda_events::apigw::ApiGatewayCustomAuthorizerRequestTypeRequest;
use contracts::events::route_event;
use edge::websocket::RouteHandler;
use local::integration::{Integration, IntegrationRequest};
use serde_json::{Value, json};
use shared::requests::Route;
use tools::frames::client_frame;

use super::{Error, World};
use crate::{Bench, client_event, lambda_event, now};

impl World {
    pub(super) async fn connections(&self, bench: &mut Bench) -> Result<(), Error> {
        let authorizer = authorizer::Authorizer::new(
            authorizer::AuthConfig::Header,
            Arc::new(authorizer::StaticJwks::empty()),
        );
        let request: ApiGatewayCustomAuthorizerRequestTypeRequest = serde_json::from_str(
            include_str!("../../../../../events/authorizer-header-mode.json"),
        )?;
        bench
            .invoke(authorizer.handle(lambda_event(request)))
            .await?;
        bench.row(
            "authorizer",
            "$connect authorizer (header mode)",
            "no storage",
        );
        let connect = |connection: &str| {
            self.connect
                .handle(route_event("$connect", "alice", connection, now(), None))
        };
        bench.route(connect("c1")).await?;
        bench.row("connect_new_session", "$connect, new session", "1 write");
        bench.route(connect("c2")).await?;
        bench.row(
            "connect_takeover",
            "$connect, takeover",
            "1 write (+1 DeleteConnection)",
        );
        let request = IntegrationRequest {
            connection_id: "c2".into(),
            route_key: Route::Heartbeat.as_str().into(),
            stage: "Development".into(),
            domain_name: "abcdef1234.execute-api.us-east-1.amazonaws.com".into(),
            api_id: "abcdef1234".into(),
            request_id: "Kx8bNFq-IAMFZ3g=".into(),
            message_id: "Kx8cDdf1IAMCJzQ=".into(),
            request_time_epoch: now(),
            connected_at: now(),
            authorizer: serde_json::Map::from_iter([("playerId".to_owned(), json!("alice"))]),
        };
        let heartbeat = |frame: Value| {
            let request = IntegrationRequest {
                request_time_epoch: now(),
                ..request.clone()
            };
            async move { self.heartbeat.handle(&frame.to_string(), &request).await }
        };
        bench
            .integration(heartbeat(client_frame(Route::Heartbeat, None, None)))
            .await;
        bench.row(
            "heartbeat",
            "heartbeat (API Gateway's DynamoDB integration, no Lambda)",
            "1 write, no reply",
        );
        bench
            .integration(heartbeat(client_frame(
                Route::Heartbeat,
                Some("h-1"),
                Some(json!({"cursor": 42})),
            )))
            .await;
        bench.row(
            "heartbeat_with_cursor",
            "heartbeat with a cursor and a requestId",
            "1 write (the same one), the ack",
        );
        // A ping: the MOCK integration renders its request template and nothing else
        // (the frame still marks the socket active, which GetConnection reports).
        let ping_request = IntegrationRequest {
            route_key: Route::Ping.as_str().into(),
            request_time_epoch: now(),
            ..request.clone()
        };
        bench
            .integration(self.ping.handle(
                &client_frame(Route::Ping, None, None).to_string(),
                &ping_request,
            ))
            .await;
        bench.row(
            "ping",
            "ping (API Gateway's MOCK integration, one-way: no Lambda, no DynamoDB, no reply)",
            "the inbound message only",
        );
        bench
            .route(
                self.disconnect
                    .handle(route_event("$disconnect", "alice", "c2", now(), None)),
            )
            .await?;
        bench.row("disconnect", "$disconnect", "1 write");
        bench.route(connect("c3")).await?;
        bench.row(
            "connect_resume_within_grace",
            "$connect, resume within grace",
            "1 write",
        );
        bench
            .route(
                self.resume
                    .handle(client_event(Route::Resume, "alice", "c3", json!({}))),
            )
            .await?;
        bench.row(
            "resume_nothing_pending",
            "resume, nothing pending",
            "1 read + 1 query + 1 hand-over transaction",
        );
        Ok(())
    }
}
