//! Invoking a real handler in-process the way Lambda would: a `LambdaEvent` with a
//! context, a time limit, and a panic turned into a failed invocation (as
//! `lambda_runtime` does) instead of taking the whole stack down.

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use aws_lambda_events::apigw::{ApiGatewayProxyResponse, ApiGatewayWebsocketProxyRequest};
use edge::websocket::RouteHandler;
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
    /// The stack shut down while the handler ran.
    #[error("cancelled by the stack shutting down")]
    Cancelled,
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
    let task = tokio::spawn(async move { handler.handle(LambdaEvent::new(event, context)).await });
    let abort = task.abort_handle();
    let outcome = tokio::time::timeout(INTEGRATION_TIMEOUT, task).await;
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
        // The stack is shutting down (its runtime drops every task): not the handler's fault.
        Ok(Err(join_error)) if join_error.is_cancelled() => Err(InvokeError::Cancelled),
        Ok(Err(join_error)) => {
            tracing::error!(function, request_id, error = %shared::telemetry::ErrorChain(&join_error), "handler panicked");
            Err(InvokeError::Panicked)
        }
        Err(_) => {
            abort.abort();
            tracing::error!(function, request_id, "handler timed out");
            Err(InvokeError::TimedOut(INTEGRATION_TIMEOUT))
        }
    }
}
