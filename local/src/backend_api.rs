//! The backend API on its own port (`BACKEND_API_PORT`): every request under `/v1/` is
//! turned into the HTTP API (payload v2) event API Gateway would send, read by
//! `lambda_http` into its `Request` as in Lambda, and answered by the real
//! `backend-api` handler in-process. Deployed, the HTTP API checks callers' SigV4
//! signatures (AWS_IAM); here there is no auth by default, or, with `BACKEND_API_KEY`,
//! a shared key in `x-api-key` (a 403 without it, as API Gateway refuses an unsigned
//! call), so scripts can practise sending a credential.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body as AxumBody;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use backend_api::BackendApi;
use serde_json::{Map, Value, json};

use crate::ids;
use crate::time::iso8601;

/// The header holding `BACKEND_API_KEY`.
pub const API_KEY_HEADER: &str = "x-api-key";
/// API Gateway's payload limit for HTTP APIs.
pub const MAX_REQUEST_BYTES: usize = 10 * 1024 * 1024;
/// An HTTP API's longest integration timeout.
pub const INTEGRATION_TIMEOUT: Duration = Duration::from_secs(30);
/// The route every request is sent to (template.yaml's `BackendApiFunction` event).
pub const ROUTE_KEY: &str = "ANY /v1/{proxy+}";

/// What the server needs: the handler and the optional key.
pub struct BackendApiServer {
    pub api: Arc<BackendApi>,
    pub key: Option<String>,
    pub domain_name: String,
}

/// Binds the backend API's port and serves it until `stop` (`local::backend_api`).
pub(crate) async fn listen(
    settings: &crate::Settings,
    dependencies: &crate::Dependencies,
    stop: tokio::sync::watch::Receiver<bool>,
) -> Result<(SocketAddr, tokio::task::JoinHandle<()>), crate::StartError> {
    let addr = SocketAddr::from((
        settings.gateway.bind_address,
        settings.gateway.backend_api_port(),
    ));
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| crate::StartError::Bind { addr, source })?;
    let addr = listener
        .local_addr()
        .map_err(|source| crate::StartError::Bind { addr, source })?;
    let server = Arc::new(BackendApiServer {
        api: crate::Routes::wire_backend_api(dependencies),
        key: settings.gateway.backend_api_key.clone(),
        domain_name: addr.to_string(),
    });
    let app = router(server);
    let task = tokio::spawn(async move {
        let serve = axum::serve(
            listener,
            app.into_make_service_with_connect_info::<SocketAddr>(),
        )
        .with_graceful_shutdown(crate::gateway::shutting_down(stop));
        if let Err(error) = serve.await {
            tracing::error!(%error, "the backend API server stopped");
        }
    });
    Ok((addr, task))
}

/// Every path goes to one handler, as the greedy route does; paths outside `/v1/` get
/// API Gateway's 404.
pub fn router(server: Arc<BackendApiServer>) -> Router {
    Router::new().fallback(serve).with_state(server)
}

async fn serve(
    State(server): State<Arc<BackendApiServer>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    request: Request,
) -> Response {
    if let Some(key) = &server.key {
        let given = request
            .headers()
            .get(API_KEY_HEADER)
            .and_then(|v| v.to_str().ok());
        if given != Some(key.as_str()) {
            return message(StatusCode::FORBIDDEN, "Forbidden");
        }
    }
    if !request.uri().path().starts_with("/v1/") {
        return message(StatusCode::NOT_FOUND, "Not Found");
    }
    let (parts, body) = request.into_parts();
    let Ok(body) = axum::body::to_bytes(body, MAX_REQUEST_BYTES).await else {
        return message(StatusCode::PAYLOAD_TOO_LARGE, "Request Entity Too Large");
    };
    let event = event(&parts, &body, peer, &server.domain_name);
    let request = match lambda_http::request::from_str(&event.to_string()) {
        Ok(request) => request,
        Err(error) => {
            tracing::error!(%error, "the backend API event did not parse");
            return message(StatusCode::INTERNAL_SERVER_ERROR, "Internal Server Error");
        }
    };
    let api = server.api.clone();
    let task = tokio::spawn(async move { api.handle(request).await });
    match tokio::time::timeout(INTEGRATION_TIMEOUT, task).await {
        Ok(Ok(response)) => {
            let (parts, body) = response.into_parts();
            Response::from_parts(parts, AxumBody::from(body.to_vec()))
        }
        Ok(Err(join_error)) => {
            tracing::error!(error = %shared::telemetry::ErrorChain(&join_error), "backend-api panicked");
            message(StatusCode::INTERNAL_SERVER_ERROR, "Internal Server Error")
        }
        Err(_) => message(StatusCode::SERVICE_UNAVAILABLE, "Service Unavailable"),
    }
}

/// The HTTP API payload v2 event for a request, as API Gateway builds it (no
/// `authorizer`: locally nobody is signed in).
fn event(
    parts: &axum::http::request::Parts,
    body: &[u8],
    peer: SocketAddr,
    domain_name: &str,
) -> Value {
    let mut headers = Map::new();
    for (name, value) in &parts.headers {
        if let Ok(value) = value.to_str() {
            // Repeated headers are joined with commas, as API Gateway does.
            let joined = match headers.get(name.as_str()).and_then(Value::as_str) {
                Some(earlier) => format!("{earlier},{value}"),
                None => value.to_owned(),
            };
            headers.insert(name.as_str().to_owned(), json!(joined));
        }
    }
    let path = parts.uri.path();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64);
    let user_agent = headers.get("user-agent").cloned().unwrap_or(json!(""));
    let (text, base64) = match std::str::from_utf8(body) {
        Ok(text) => (text.to_owned(), false),
        Err(_) => {
            use base64::Engine;
            (base64::engine::general_purpose::STANDARD.encode(body), true)
        }
    };
    let mut event = json!({
        "version": "2.0",
        "routeKey": ROUTE_KEY,
        "rawPath": path,
        "rawQueryString": parts.uri.query().unwrap_or(""),
        "headers": headers,
        "pathParameters": {"proxy": path.trim_start_matches("/v1/")},
        "requestContext": {
            "accountId": "000000000000",
            "apiId": "local",
            "domainName": domain_name,
            "domainPrefix": "local",
            "http": {
                "method": parts.method.as_str(),
                "path": path,
                "protocol": "HTTP/1.1",
                "sourceIp": peer.ip().to_string(),
                "userAgent": user_agent,
            },
            "requestId": ids::new_id(),
            "routeKey": ROUTE_KEY,
            "stage": "$default",
            "time": iso8601(now),
            "timeEpoch": now,
        },
        "isBase64Encoded": base64,
    });
    if !body.is_empty() {
        event["body"] = json!(text);
    }
    event
}

/// API Gateway's own answers (`{"message"}`), for what never reaches the function.
fn message(status: StatusCode, text: &str) -> Response {
    let mut response = (status, axum::Json(json!({ "message": text }))).into_response();
    if let Ok(value) = HeaderValue::from_str(&ids::new_id()) {
        response.headers_mut().insert("apigw-requestid", value);
    }
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

#[cfg(test)]
mod tests {
    use lambda_http::RequestExt;

    use super::*;

    #[test]
    fn a_request_becomes_the_http_api_event_lambda_http_reads_back() {
        let request = axum::http::Request::builder()
            .method("POST")
            .uri("/v1/messages?dry=1")
            .header("x-trace", "a")
            .header("x-trace", "b")
            .header("user-agent", "curl/8")
            .body(())
            .unwrap();
        let (parts, ()) = request.into_parts();
        let peer: SocketAddr = "127.0.0.1:40000".parse().unwrap();
        let binary = [0xff, 0x00, 0x7b];
        let event = event(&parts, &binary, peer, "127.0.0.1:3002");
        assert_eq!(event["routeKey"], ROUTE_KEY);
        assert_eq!(
            event["headers"]["x-trace"], "a,b",
            "joined, as API Gateway does"
        );
        assert_eq!(event["isBase64Encoded"], true, "not UTF-8: base64");
        assert_eq!(event["requestContext"]["http"]["sourceIp"], "127.0.0.1");
        assert_eq!(event["pathParameters"]["proxy"], "messages");

        let request = lambda_http::request::from_str(&event.to_string()).unwrap();
        assert_eq!(request.method(), "POST");
        assert_eq!(request.raw_http_path(), "/v1/messages");
        assert_eq!(request.uri().query(), Some("dry=1"));
        assert_eq!(request.body().as_ref(), &binary);
    }
}
