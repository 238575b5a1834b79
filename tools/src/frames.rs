//! Client frames as the tools write them by hand (a body the typed
//! [`ClientRequest`](shared::requests::ClientRequest) could not carry, a bare frame with
//! no body, a frame laid out as a benchmark measures it): the route named by [`Route`],
//! whose names the protocol crate declares once.

use serde_json::{Map, Value};
use shared::requests::Route;

/// `{"route", "requestId"?, "body"?}`: a request to `route`, with the fields given.
pub fn client_frame(route: Route, request_id: Option<&str>, body: Option<Value>) -> Value {
    let mut frame = Map::new();
    frame.insert("route".to_owned(), Value::from(route.as_str()));
    if let Some(request_id) = request_id {
        frame.insert("requestId".to_owned(), Value::from(request_id));
    }
    if let Some(body) = body {
        frame.insert("body".to_owned(), body);
    }
    Value::Object(frame)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn given_a_route_alone_when_framed_then_the_frame_is_only_its_name() {
        assert_eq!(
            client_frame(Route::Ping, None, None).to_string(),
            r#"{"route":"ping"}"#
        );
    }

    #[test]
    fn given_a_request_id_and_a_body_when_framed_then_both_are_carried() {
        assert_eq!(
            client_frame(Route::Heartbeat, Some("h-1"), Some(json!({"cursor": 42}))),
            json!({"route": "heartbeat", "requestId": "h-1", "body": {"cursor": 42}})
        );
    }
}
