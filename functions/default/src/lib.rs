//! `$default`: every frame API Gateway could not route. A frame that is not a JSON
//! object with a string `route` gets `bad_request` saying what is wrong; a well-formed
//! frame naming a route we do not have gets `unknown_route`. The connection stays open.

use async_trait::async_trait;
use edge::websocket::{RouteEvent, RouteHandler, RouteResult, reply, untyped_request};
use shared::frames::{ErrorCode, ServerFrame};
use shared::requests::Route;
use tracing::info;

#[derive(Clone, Copy, Debug, Default)]
pub struct DefaultHandler;

impl DefaultHandler {
    pub fn new() -> Self {
        Self
    }
}

#[async_trait]
impl RouteHandler for DefaultHandler {
    async fn handle(&self, event: RouteEvent) -> RouteResult {
        let connection_id = event.payload.request_context.connection_id.as_deref();
        let frame = match untyped_request(&event.payload) {
            Ok(frame) => frame,
            Err(error_reply) => {
                shared::metrics::request("$default", Some(ErrorCode::BadRequest));
                info!(connection_id, "bad frame");
                return Ok(error_reply);
            }
        };
        info!(connection_id, route = %frame.route, "unknown route");
        shared::metrics::request("$default", Some(ErrorCode::UnknownRoute));
        let message = format!(
            "unknown route {:?}; the routes are: {}",
            frame.route,
            Route::list(Route::ALL)
        );
        Ok(reply(&ServerFrame::error(
            &frame,
            ErrorCode::UnknownRoute,
            message,
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use contracts::events::{parse_event, reply_frame, route_event};
    use serde_json::json;

    async fn reply_to(body: &str) -> serde_json::Value {
        let event = route_event("$default", "alice", "c1", 1, Some(body));
        reply_frame(&DefaultHandler::new().handle(event).await.unwrap())
    }

    #[tokio::test]
    async fn given_an_unknown_route_then_unknown_route_echoing_route_and_request_id() {
        let frame = reply_to(r#"{"route":"dance","requestId":"r1"}"#).await;
        assert_eq!(frame["type"], "error");
        assert_eq!(frame["code"], "unknown_route");
        assert_eq!(frame["route"], "dance");
        assert_eq!(frame["requestId"], "r1");
        assert!(frame["message"].as_str().unwrap().contains("heartbeat"));
    }

    #[tokio::test]
    async fn given_each_kind_of_malformed_frame_then_bad_request_saying_what_is_wrong() {
        for (body, says) in [
            ("not json", "not valid JSON"),
            ("[]", "JSON object"),
            ("{}", "missing `route`"),
            (r#"{"route":1}"#, "`route` must be a string"),
            (r#"{"route":"x","body":1}"#, "`body` must be a JSON object"),
            (
                r#"{"route":"x","requestId":[]}"#,
                "`requestId` must be a string",
            ),
            ("", "not valid JSON"),
        ] {
            let frame = reply_to(body).await;
            assert_eq!(frame["code"], "bad_request", "{body}");
            assert!(
                frame["message"].as_str().unwrap().contains(says),
                "{body}: {frame}"
            );
        }
    }

    #[tokio::test]
    async fn given_a_binary_frame_then_bad_request() {
        let mut event = route_event("$default", "alice", "c1", 1, Some("AAEC"));
        event.payload.is_base64_encoded = true;
        let frame = reply_frame(&DefaultHandler::new().handle(event).await.unwrap());
        assert_eq!(frame["code"], "bad_request");
        assert!(frame["message"].as_str().unwrap().contains("binary"));
    }

    #[tokio::test]
    async fn the_sample_default_events_get_the_documented_replies() {
        for (file, expected) in [
            (
                include_str!("../../../events/default-unknown-route.json"),
                json!({"type":"error","route":"dance","requestId":"d-1","code":"unknown_route"}),
            ),
            (
                include_str!("../../../events/default-not-json.json"),
                json!({"type":"error","code":"bad_request"}),
            ),
        ] {
            let event = parse_event(serde_json::from_str(file).unwrap());
            let mut frame = reply_frame(&DefaultHandler::new().handle(event).await.unwrap());
            frame.as_object_mut().unwrap().remove("message");
            assert_eq!(frame, expected);
        }
    }
}
