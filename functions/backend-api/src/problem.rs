//! Responses: JSON for success, RFC 9457 problem details (`application/problem+json`)
//! for every failure, with the socket protocol's error codes so that a studio handles
//! both APIs' errors alike.

use edge::websocket::RouteError;
use gamelift_sockets_protocol::backend_api::Problem;
use lambda_http::http::{StatusCode, header};
use lambda_http::{Body, Response};
use serde_json::Value;
use shared::frames::{ErrorCode, ErrorReply};

/// Where a problem's `type` points: the code, under this URN (RFC 9457 §3.1.1 allows any
/// URI; these are documented in the README's backend API section).
pub const PROBLEM_TYPE_PREFIX: &str = "urn:gamelift-sockets:problem:";

/// A JSON response with `status`.
pub fn json_response(status: StatusCode, body: &Value) -> Response<Body> {
    response(status, "application/json", body.to_string())
}

/// The problem details of `error`: `type`, `title`, `status`, `detail`, `code`, and
/// the fields of its code (`field` for a 400, the unknown `playerIds` of a 404, ...).
pub fn problem(error: &RouteError) -> Response<Body> {
    let code = error.code();
    let status = status_of(code);
    let (detail, error) = ErrorReply::clone(&error.reply).into_parts();
    let allow = match &error {
        ErrorReply::UnknownRoute(refused) => refused.detail.allow.clone(),
        _ => None,
    };
    let body = Problem {
        kind: format!("{PROBLEM_TYPE_PREFIX}{code}"),
        title: title(code).to_owned(),
        status: status.as_u16(),
        detail,
        error,
    };
    let mut response = response(
        status,
        "application/problem+json",
        serde_json::to_string(&body).unwrap_or_default(),
    );
    if status == StatusCode::SERVICE_UNAVAILABLE {
        // A dependency fault: safe to retry, shortly.
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, header::HeaderValue::from_static("1"));
    }
    if let Some(allow) = allow
        && let Ok(value) = header::HeaderValue::from_str(&allow)
    {
        response.headers_mut().insert(header::ALLOW, value);
    }
    response
}

/// The HTTP status of each code.
pub fn status_of(code: ErrorCode) -> StatusCode {
    match code {
        ErrorCode::BadRequest => StatusCode::BAD_REQUEST,
        ErrorCode::UnknownRoute | ErrorCode::NotFound => StatusCode::NOT_FOUND,
        ErrorCode::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
        ErrorCode::Conflict => StatusCode::CONFLICT,
        ErrorCode::Forbidden => StatusCode::FORBIDDEN,
        ErrorCode::SessionEnded => StatusCode::GONE,
        ErrorCode::SessionFull => StatusCode::CONFLICT,
        ErrorCode::RateLimited => StatusCode::TOO_MANY_REQUESTS,
        ErrorCode::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
        ErrorCode::Internal => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

fn title(code: ErrorCode) -> &'static str {
    match code {
        ErrorCode::BadRequest => "The request is not valid",
        ErrorCode::UnknownRoute => "No such endpoint",
        ErrorCode::PayloadTooLarge => "The request is too large",
        ErrorCode::NotFound => "Not found",
        ErrorCode::Conflict => "The request conflicts with the current state",
        ErrorCode::Forbidden => "Not allowed",
        ErrorCode::SessionEnded => "The game session has ended",
        ErrorCode::SessionFull => "The game session is full",
        ErrorCode::RateLimited => "Too many requests",
        ErrorCode::Unavailable => "A dependency is unavailable; retry",
        ErrorCode::Internal => "Internal error",
    }
}

fn response(status: StatusCode, content_type: &'static str, body: String) -> Response<Body> {
    let mut response = Response::new(Body::Text(body));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static(content_type),
    );
    response
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn body(response: &Response<Body>) -> Value {
        serde_json::from_slice(response.body().as_ref()).unwrap()
    }

    #[test]
    fn a_bad_request_is_problem_json_naming_the_field() {
        let error = crate::field_error("message", "`message` is required");
        let response = problem(&error);
        assert_eq!(response.status(), StatusCode::BAD_REQUEST);
        assert_eq!(
            response.headers()[header::CONTENT_TYPE],
            "application/problem+json"
        );
        assert_eq!(
            body(&response),
            json!({"type": "urn:gamelift-sockets:problem:bad_request",
                   "title": "The request is not valid", "status": 400,
                   "detail": "`message` is required", "code": "bad_request",
                   "field": "message"})
        );
    }

    #[test]
    fn an_unavailable_dependency_is_a_retryable_503() {
        let response = problem(&RouteError::new(ErrorCode::Unavailable, "store down"));
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(response.headers()[header::RETRY_AFTER], "1");
        assert_eq!(body(&response)["code"], "unavailable");
    }

    #[test]
    fn every_code_has_its_status() {
        assert_eq!(status_of(ErrorCode::NotFound), StatusCode::NOT_FOUND);
        assert_eq!(status_of(ErrorCode::Conflict), StatusCode::CONFLICT);
        assert_eq!(
            status_of(ErrorCode::PayloadTooLarge),
            StatusCode::PAYLOAD_TOO_LARGE
        );
        assert_eq!(
            status_of(ErrorCode::Internal),
            StatusCode::INTERNAL_SERVER_ERROR
        );
    }
}
