//! Publishing presence events (`crate::presence`) on the presence bus.

use async_trait::async_trait;

use crate::presence::PresenceEvent;

type Source = Box<dyn std::error::Error + Send + Sync>;

/// Publishing failures.
#[derive(Debug, thiserror::Error)]
pub enum EventBusError {
    /// Throttling, 5xx, timeouts, or entries the bus kept refusing: safe to retry.
    #[error("event bus unavailable")]
    Unavailable(#[source] Source),
    /// Anything else (no such bus, missing permission, ...): a fault.
    #[error("publishing to the event bus failed")]
    Other(#[source] Source),
}

#[async_trait]
pub trait EventBus: Send + Sync {
    /// Publishes every event (10 per PutEvents call on EventBridge), retrying entries the
    /// bus did not accept; nothing to publish is no call.
    async fn publish(&self, events: &[PresenceEvent]) -> Result<(), EventBusError>;
}
