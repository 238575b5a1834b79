//! `cargo run -p local -- invoke <function> <event.json> [flags]`: what `sam local invoke`
//! does, without Docker. The stack is assembled as `cargo run -p local` assembles it
//! ([`LocalStack::build`]: the same settings, stores, simulator and wiring, but nothing
//! listening), the function named by its binary name in template.yaml gets the event
//! file as its payload, once, and its response is returned as JSON (printed on stdout;
//! logs go to stderr).

use std::path::{Path, PathBuf};

use aws_lambda_events::apigw::{
    ApiGatewayCustomAuthorizerRequestTypeRequest, ApiGatewayWebsocketProxyRequest,
};
use aws_lambda_events::eventbridge::EventBridgeEvent;
use lambda_runtime::{Context, LambdaEvent};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::settings::Settings;
use crate::stack::{LocalStack, StartError};

/// Every function of template.yaml, by its binary name.
pub use shared::metrics::catalogue::FUNCTIONS;

/// Why nothing (or a failure) was printed.
#[derive(Debug, thiserror::Error)]
pub enum InvokeOnceError {
    #[error(
        "no function {0:?}; the functions (template.yaml's binary names) are: {list}",
        list = FUNCTIONS.join(", ")
    )]
    UnknownFunction(String),
    #[error("cannot read the event file {path}: {source}")]
    Unreadable {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("the event file {path} is not JSON: {source}")]
    NotJson {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    #[error("the event file {path} is not {expected}, which {function} takes: {source}")]
    WrongShape {
        path: PathBuf,
        function: String,
        expected: &'static str,
        #[source]
        source: serde_json::Error,
    },
    #[error(transparent)]
    Stack(#[from] StartError),
    /// The function ran and failed (Lambda: a function error). The value is what
    /// Lambda answers: `{"errorType": ..., "errorMessage": ...}`.
    #[error("{function} failed: {message}")]
    FunctionError {
        function: String,
        message: String,
        response: Value,
    },
}

/// What each kind of function takes, for the messages.
const WEBSOCKET_EVENT: &str = "an API Gateway WebSocket event";
const AUTHORIZER_EVENT: &str = "an API Gateway REQUEST authorizer event";
const EVENTBRIDGE_EVENT: &str = "an EventBridge event";
const STREAM_EVENT: &str = "a DynamoDB stream event";
const PLACEMENT_EVENT: &str = "an SNS or EventBridge GameLift placement event";
const MATCHMAKING_EVENT: &str = "an EventBridge or SNS FlexMatch event";
const HTTP_EVENT: &str = "an API Gateway HTTP API (payload 2.0) event";

/// Runs `function` once on the event in `path`, against the stack `settings` describe;
/// returns its response as JSON.
pub async fn invoke_once(
    settings: Settings,
    function: &str,
    path: &Path,
) -> Result<Value, InvokeOnceError> {
    if !FUNCTIONS.contains(&function) {
        return Err(InvokeOnceError::UnknownFunction(function.to_owned()));
    }
    let text = std::fs::read_to_string(path).map_err(|source| InvokeOnceError::Unreadable {
        path: path.to_owned(),
        source,
    })?;
    let raw: Value = serde_json::from_str(&text).map_err(|source| InvokeOnceError::NotJson {
        path: path.to_owned(),
        source,
    })?;
    let payload = |expected: &'static str| {
        move |source| InvokeOnceError::WrongShape {
            path: path.to_owned(),
            function: function.to_owned(),
            expected,
            source,
        }
    };
    // The event is checked before the stack is assembled: a bad file fails fast.
    let event = match function {
        "authorizer" => Payload::Authorizer(Box::new(parse(&raw, payload(AUTHORIZER_EVENT))?)),
        "on-message-inserted" => Payload::Stream(parse(&raw, payload(STREAM_EVENT))?),
        "presence-timeout" | "on-presence-event" => {
            Payload::Bus(Box::new(parse(&raw, payload(EVENTBRIDGE_EVENT))?))
        }
        "on-placement-event" => {
            if !raw.is_object() {
                return Err(payload(PLACEMENT_EVENT)(serde::de::Error::custom(
                    "expected a JSON object",
                )));
            }
            Payload::Placement(raw.clone())
        }
        "on-matchmaking-event" => {
            if !raw.is_object() {
                return Err(payload(MATCHMAKING_EVENT)(serde::de::Error::custom(
                    "expected a JSON object",
                )));
            }
            Payload::Matchmaking(raw.clone())
        }
        "backend-api" => Payload::Http(Box::new(
            lambda_http::request::from_str(&text).map_err(payload(HTTP_EVENT))?,
        )),
        _ => Payload::WebSocket(Box::new(parse(&raw, payload(WEBSOCKET_EVENT))?)),
    };

    let stack = LocalStack::build(settings.clone()).await?;
    let context = context(function);
    let failed = |error: lambda_runtime::Error| function_error(function, &*error);
    let response = match event {
        Payload::Authorizer(request) => {
            let config = settings.auth_config().map_err(|e| {
                StartError::Settings(crate::settings::SettingsError {
                    problems: e.problems,
                })
            })?;
            let authorizer = authorizer::Authorizer::from_config(config)
                .map_err(|e| StartError::Authorizer(e.to_string()))?;
            authorizer.warm_up().await;
            to_json(
                authorizer
                    .handle(LambdaEvent::new(*request, context))
                    .await
                    .map_err(failed)?,
            )
        }
        Payload::Stream(batch) => to_json(
            stack
                .stream_handler()
                .handle(LambdaEvent::new(batch, context))
                .await
                .map_err(failed)?,
        ),
        Payload::Bus(event) if function == "presence-timeout" => {
            let sweeper = crate::routes::Routes::wire_presence_timeout(stack.dependencies());
            to_json(
                sweeper
                    .handle(LambdaEvent::new(*event, context))
                    .await
                    .map_err(failed)?,
            )
        }
        Payload::Bus(event) => {
            let notifier = crate::routes::Routes::wire_presence_events(stack.dependencies());
            to_json(
                notifier
                    .handle(LambdaEvent::new(*event, context))
                    .await
                    .map_err(failed)?,
            )
        }
        Payload::Placement(event) => to_json(
            stack
                .placement_event_handler()
                .handle(LambdaEvent::new(event, context))
                .await
                .map_err(failed)?,
        ),
        Payload::Matchmaking(event) => to_json(
            stack
                .matchmaking_event_handler()
                .handle(LambdaEvent::new(event, context))
                .await
                .map_err(failed)?,
        ),
        Payload::Http(request) => {
            let api = crate::routes::Routes::wire_backend_api(stack.dependencies());
            http_response(api.handle(*request).await)
        }
        Payload::WebSocket(event) => {
            let route = stack
                .routes()
                .by_function(function)
                .ok_or_else(|| InvokeOnceError::UnknownFunction(function.to_owned()))?;
            let request_id = context.request_id.clone();
            match crate::invoke::invoke(route.handler.clone(), function, &request_id, *event).await
            {
                Ok(response) => to_json(response),
                Err(error) => {
                    return Err(InvokeOnceError::FunctionError {
                        function: function.to_owned(),
                        message: error.to_string(),
                        response: lambda_error("HandlerError", &error.to_string()),
                    });
                }
            }
        }
    };
    Ok(response)
}

/// The payload, typed for the function that takes it.
enum Payload {
    Authorizer(Box<ApiGatewayCustomAuthorizerRequestTypeRequest>),
    WebSocket(Box<ApiGatewayWebsocketProxyRequest>),
    Stream(on_message_inserted::StreamBatch),
    Bus(Box<EventBridgeEvent<Value>>),
    Placement(Value),
    Matchmaking(Value),
    Http(Box<lambda_http::Request>),
}

/// What Lambda returns to an HTTP API (payload 2.0) for `response`: the function's
/// binary serializes it so (`lambda_http`'s own conversion, which it does not export):
/// `Set-Cookie` headers as `cookies`, no `multiValueHeaders`, a binary body in base64.
fn http_response(response: lambda_http::Response<lambda_http::Body>) -> Value {
    let (parts, body) = response.into_parts();
    let mut headers = parts.headers;
    let cookies = headers
        .get_all(lambda_http::http::header::SET_COOKIE)
        .iter()
        .map(|v| v.to_str().unwrap_or_default().to_owned())
        .collect();
    headers.remove(lambda_http::http::header::SET_COOKIE);
    let mut out = aws_lambda_events::apigw::ApiGatewayV2httpResponse::default();
    out.status_code = i64::from(parts.status.as_u16());
    out.is_base64_encoded = matches!(body, lambda_http::Body::Binary(_));
    out.body = (!matches!(body, lambda_http::Body::Empty)).then_some(body);
    out.headers = headers;
    out.cookies = cookies;
    to_json(out)
}

fn parse<T: DeserializeOwned>(
    raw: &Value,
    error: impl FnOnce(serde_json::Error) -> InvokeOnceError,
) -> Result<T, InvokeOnceError> {
    serde_json::from_value(raw.clone()).map_err(error)
}

/// A Lambda context as the runtime gives one: a request id and the function's ARN.
fn context(function: &str) -> Context {
    let mut context = Context::default();
    context.request_id = uuid::Uuid::new_v4().to_string();
    context.invoked_function_arn = format!("arn:aws:lambda:local:000000000000:function:{function}");
    context
}

fn to_json(response: impl serde::Serialize) -> Value {
    serde_json::to_value(response).unwrap_or_else(|error| {
        lambda_error("SerializationError", &format!("cannot serialize: {error}"))
    })
}

/// Lambda's answer to a function error.
fn lambda_error(error_type: &str, message: &str) -> Value {
    serde_json::json!({ "errorType": error_type, "errorMessage": message })
}

fn function_error(
    function: &str,
    error: &(dyn std::error::Error + Send + Sync + 'static),
) -> InvokeOnceError {
    let message = shared::telemetry::ErrorChain(error).to_string();
    InvokeOnceError::FunctionError {
        function: function.to_owned(),
        response: lambda_error("HandlerError", &message),
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn every_function_that_takes_a_websocket_event_is_a_wired_route() {
        let stack = LocalStack::build(Settings::default()).await.unwrap();
        let others = [
            "authorizer",
            "on-message-inserted",
            "presence-timeout",
            "on-presence-event",
            "on-placement-event",
            "on-matchmaking-event",
            "backend-api",
        ];
        for function in FUNCTIONS.into_iter().filter(|f| !others.contains(f)) {
            assert!(
                stack.routes().by_function(function).is_some(),
                "{function} is not wired"
            );
        }
    }
}
