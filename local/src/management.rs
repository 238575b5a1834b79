//! The management API: `POST`, `GET`, `DELETE /{stage}/@connections/{id}` on the
//! stack's port, answering as API Gateway does (restJson1: errors carry
//! `x-amzn-ErrorType` and a JSON `{"message"}`), so `aws-sdk-apigatewaymanagement` and
//! the real adapter work against it. Requests are not authenticated (no SigV4 check).

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};
use shared::frames::MAX_WEBSOCKET_MESSAGE_BYTES;
use shared::ports::GatewayError;

use crate::gateway::Gateway;
use crate::ids;
use crate::time::iso8601;

const ERROR_TYPE: &str = "x-amzn-errortype";
const REQUEST_ID: &str = "x-amzn-requestid";

/// `POST /{stage}/@connections/{id}`: PostToConnection.
pub async fn post(
    State(gateway): State<Arc<Gateway>>,
    Path(id): Path<String>,
    body: Bytes,
) -> Response {
    if body.len() > MAX_WEBSOCKET_MESSAGE_BYTES {
        return error(&GatewayError::PayloadTooLarge, body.len());
    }
    match gateway.registry.post(&id, &body).await {
        Ok(()) => with_request_id(StatusCode::OK.into_response()),
        Err(e) => error(&e, body.len()),
    }
}

/// `GET /{stage}/@connections/{id}`: GetConnection.
pub async fn get(State(gateway): State<Arc<Gateway>>, Path(id): Path<String>) -> Response {
    match gateway.registry.get(&id) {
        Ok(meta) => {
            let mut identity = Map::new();
            identity.insert("sourceIp".into(), Value::from(meta.source_ip.as_str()));
            if let Some(agent) = &meta.user_agent {
                identity.insert("userAgent".into(), Value::from(agent.as_str()));
            }
            let body = json!({
                "connectedAt": iso8601(meta.connected_at),
                "identity": identity,
                "lastActiveAt": iso8601(meta.last_active_at()),
            });
            with_request_id((StatusCode::OK, axum::Json(body)).into_response())
        }
        Err(e) => error(&e, 0),
    }
}

/// `DELETE /{stage}/@connections/{id}`: DeleteConnection (the socket closes, then
/// `$disconnect` fires).
pub async fn delete(State(gateway): State<Arc<Gateway>>, Path(id): Path<String>) -> Response {
    match gateway.registry.delete(&id) {
        Ok(()) => with_request_id(StatusCode::NO_CONTENT.into_response()),
        Err(e) => error(&e, 0),
    }
}

fn with_request_id(mut response: Response) -> Response {
    if let Ok(value) = HeaderValue::from_str(&ids::new_id()) {
        response
            .headers_mut()
            .insert(HeaderName::from_static(REQUEST_ID), value);
    }
    response
}

/// A restJson1 error the SDK maps to its typed exceptions.
fn error(error: &GatewayError, size: usize) -> Response {
    let (status, kind, message) = match error {
        GatewayError::Gone => (StatusCode::GONE, "GoneException", "Gone".to_owned()),
        GatewayError::PayloadTooLarge => (
            StatusCode::PAYLOAD_TOO_LARGE,
            "PayloadTooLargeException",
            format!("Message of {size} bytes is over the {MAX_WEBSOCKET_MESSAGE_BYTES}-byte limit"),
        ),
        GatewayError::LimitExceeded => (
            StatusCode::TOO_MANY_REQUESTS,
            "LimitExceededException",
            "Rate exceeded".to_owned(),
        ),
        GatewayError::Forbidden(_) => (
            StatusCode::FORBIDDEN,
            "ForbiddenException",
            "Forbidden".to_owned(),
        ),
        GatewayError::Unavailable(_) | GatewayError::Other(_) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            "InternalServerErrorException",
            "Internal server error".to_owned(),
        ),
    };
    let mut response = (status, axum::Json(json!({ "message": message }))).into_response();
    response.headers_mut().insert(
        HeaderName::from_static(ERROR_TYPE),
        HeaderValue::from_static(kind),
    );
    with_request_id(response)
}
