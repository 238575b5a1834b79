//! Talking to open WebSocket connections: the API Gateway management API
//! (`@connections`), or the local stack's own connections.

use async_trait::async_trait;

use crate::domain::ConnectionId;

type Source = Box<dyn std::error::Error + Send + Sync>;

/// Outcomes of a management API call other than success. 410, 413 and 429 are typed
/// because callers act on them differently (forget the connection / drop the payload /
/// retry later).
#[derive(Debug, thiserror::Error)]
pub enum GatewayError {
    /// 410: the connection is closed (or never existed).
    #[error("connection is gone")]
    Gone,
    /// 413: the payload exceeds the 128 KB message limit.
    #[error("payload too large for a WebSocket message")]
    PayloadTooLarge,
    /// 429: the account or connection rate limit was hit; retry later.
    #[error("rate limited by the management API")]
    LimitExceeded,
    /// 403: the caller may not manage this connection (a policy or endpoint mistake).
    #[error("forbidden by the management API")]
    Forbidden(#[source] Source),
    /// 5xx, timeouts, I/O: transient, safe to retry.
    #[error("management API unavailable")]
    Unavailable(#[source] Source),
    /// Anything else: a fault.
    #[error("management API call failed")]
    Other(#[source] Source),
}

impl GatewayError {
    /// True when retrying later may succeed.
    pub fn is_transient(&self) -> bool {
        matches!(self, Self::LimitExceeded | Self::Unavailable(_))
    }
}

/// What GetConnection reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConnectionInfo {
    pub connected_at_millis: Option<i64>,
    pub last_active_at_millis: Option<i64>,
    pub source_ip: Option<String>,
}

/// Posting to and closing connections.
#[async_trait]
pub trait ConnectionGateway: Send + Sync {
    /// Sends one message to a connection. `endpoint` is the management API base URL
    /// stored with the connection (`https://{domain}/{stage}`).
    async fn post(
        &self,
        endpoint: &str,
        connection: &ConnectionId,
        data: &[u8],
    ) -> Result<(), GatewayError>;

    /// Closes a connection.
    async fn delete(&self, endpoint: &str, connection: &ConnectionId) -> Result<(), GatewayError>;
}

/// Asking API Gateway about a connection (GetConnection): only the sweeper does, and
/// only in the connection-activity liveness mode.
#[async_trait]
pub trait ConnectionProbe: Send + Sync {
    /// Describes a connection.
    async fn get(
        &self,
        endpoint: &str,
        connection: &ConnectionId,
    ) -> Result<ConnectionInfo, GatewayError>;
}
