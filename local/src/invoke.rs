//! Invoking a real handler in-process the way Lambda would: a `LambdaEvent` with a
//! context, a time limit, and a panic turned into a failed invocation (as
//! `lambda_runtime` does) instead of taking the whole stack down.

use std::any::Any;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use aws_lambda_events::apigw::{ApiGatewayProxyResponse, ApiGatewayWebsocketProxyRequest};
use edge::websocket::RouteHandler;
use futures_util::FutureExt;
use lambda_runtime::{Context, LambdaEvent};

/// API Gateway's integration timeout.
pub const INTEGRATION_TIMEOUT: Duration = Duration::from_secs(29);

#[derive(Debug, thiserror::Error)]
pub enum InvokeError {
    /// The handler returned `Err` (Lambda: a function error).
    #[error("handler failed: {0}")]
    Failed(String),
    /// The handler panicked.
    #[error("handler panicked")]
    Panicked,
    /// The handler ran past the integration timeout.
    #[error("handler timed out after {0:?}")]
    TimedOut(Duration),
}

/// Runs `handler` on `event` as an invocation named `function` (used in the context's
/// ARN and in logs).
pub async fn invoke(
    handler: Arc<dyn RouteHandler>,
    function: &str,
    request_id: &str,
    event: ApiGatewayWebsocketProxyRequest,
) -> Result<ApiGatewayProxyResponse, InvokeError> {
    let mut context = Context::default();
    context.request_id = request_id.to_owned();
    context.invoked_function_arn = format!("arn:aws:lambda:local:000000000000:function:{function}");
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    context.deadline = (now + INTEGRATION_TIMEOUT).as_millis() as u64;

    let started = std::time::Instant::now();
    // Inline on the caller's task, not a task of its own: a spawn per frame (and the
    // wake-up to join it) was a thirtieth of the local stack's CPU per message. A panic
    // is still a failed invocation, and the timeout drops the handler's future.
    let call = AssertUnwindSafe(handler.handle(LambdaEvent::new(event, context))).catch_unwind();
    let outcome = tokio::time::timeout(INTEGRATION_TIMEOUT, call).await;
    tracing::debug!(
        function,
        request_id,
        elapsed_ms = started.elapsed().as_millis() as u64,
        "invoked"
    );
    match outcome {
        Ok(Ok(Ok(response))) => Ok(response),
        Ok(Ok(Err(error))) => {
            tracing::error!(function, request_id, error = %shared::telemetry::ErrorChain(error.as_ref()), "handler failed");
            Err(InvokeError::Failed(error.to_string()))
        }
        Ok(Err(panic)) => {
            tracing::error!(function, request_id, panic = %panic_message(panic.as_ref()), "handler panicked");
            Err(InvokeError::Panicked)
        }
        Err(_) => {
            tracing::error!(function, request_id, "handler timed out");
            Err(InvokeError::TimedOut(INTEGRATION_TIMEOUT))
        }
    }
}

/// What a panic said (its `&str` or `String` payload), for the log.
pub fn panic_message(panic: &(dyn Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use async_trait::async_trait;
    use edge::websocket::{RouteEvent, RouteResult};

    use super::*;

    /// A handler that panics on a frame whose body is `panic`, and answers others with
    /// its body.
    struct Echo;

    #[async_trait]
    impl RouteHandler for Echo {
        async fn handle(&self, event: RouteEvent) -> RouteResult {
            let body = event.payload.body.unwrap_or_default();
            assert_ne!(body, "panic", "told to panic");
            let mut response = ApiGatewayProxyResponse::default();
            response.status_code = 200;
            response.body = Some(body.into());
            Ok(response)
        }
    }

    fn event(body: &str) -> ApiGatewayWebsocketProxyRequest {
        let mut event = ApiGatewayWebsocketProxyRequest::default();
        event.body = Some(body.to_owned());
        event
    }

    #[tokio::test]
    async fn given_a_handler_that_panics_when_invoked_then_the_invocation_fails_and_the_next_one_runs()
     {
        // Given: a handler invoked inline on this task.
        let handler: Arc<dyn RouteHandler> = Arc::new(Echo);

        // When: one invocation panics.
        let failed = invoke(handler.clone(), "echo", "r1", event("panic")).await;

        // Then: it is a failed invocation, and the task goes on to answer the next.
        assert!(matches!(failed, Err(InvokeError::Panicked)), "{failed:?}");
        let answered = invoke(handler, "echo", "r2", event("hi")).await.unwrap();
        assert_eq!(answered.body, Some("hi".into()));
    }
}
