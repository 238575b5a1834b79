//! The SDK's typed errors: the official SDKs' client-side errors (Go `common/errors.go`),
//! the service's refusals as its status code maps ([`ErrorKind::from_status`]), and the
//! connection's failures.

use std::time::Duration;

use gamelift_server_protocol::ErrorKind;

/// Everything a call can fail with.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GameLiftError {
    /// `ServerParameters` (or the `GAMELIFT_SDK_*` variables) cannot be used; the text
    /// names the field and the variable.
    #[error("invalid server parameters: {0}")]
    Config(String),
    /// An argument the SDK refuses before sending anything (as Go `server/validation.go`).
    #[error("invalid argument: {0}")]
    Validation(String),
    /// A call made before `process_ready` succeeded, or after `process_ending`/`destroy`;
    /// nothing was sent (Go `ProcessNotReady`).
    #[error("the process is not ready: call process_ready first (nothing was sent)")]
    ProcessNotReady,
    /// A game-session call before any `CreateGameSession` arrived; nothing was sent (Go
    /// `GamesessionIDNotSet`).
    #[error("no game session: the service has not started one on this process (nothing was sent)")]
    GameSessionIdNotSet,
    /// `get_termination_time` before a `TerminateProcess` arrived (Go
    /// `TerminationTimeNotSet`).
    #[error("no termination time: the service has not asked this process to terminate")]
    TerminationTimeNotSet,
    /// The service answered with a status other than 200.
    #[error("{action} refused by the service ({status}, {kind:?}): {message}")]
    Service {
        action: &'static str,
        kind: ErrorKind,
        status: u16,
        message: String,
    },
    /// No answer in time (20 s by default; 6 s for ActivateServerProcess).
    #[error("{action} got no answer within {timeout:?}")]
    Timeout {
        action: &'static str,
        timeout: Duration,
    },
    /// The WebSocket could not be opened (every retry failed).
    #[error("could not connect to {url}: {reason}")]
    ConnectionFailed { url: String, reason: String },
    /// The socket dropped after the request was written and before its answer: the
    /// service may or may not have applied it. The SDK reconnects on its own.
    #[error(
        "the connection dropped before {action} was answered; it may or may not have been applied"
    )]
    ConnectionLost { action: &'static str },
    /// `destroy` was called, or reconnecting gave up for good.
    #[error("the SDK is not connected (destroyed, or every reconnect failed)")]
    NotConnected,
    /// A 200 answer whose fields do not fit the action's result.
    #[error("{action}'s answer could not be read: {reason}")]
    BadResponse {
        action: &'static str,
        reason: String,
    },
}

impl GameLiftError {
    /// The service's error kind, when the service refused the call.
    pub fn kind(&self) -> Option<ErrorKind> {
        match self {
            Self::Service { kind, .. } => Some(*kind),
            _ => None,
        }
    }
}

/// The SDK's result type.
pub type Result<T, E = GameLiftError> = std::result::Result<T, E>;
