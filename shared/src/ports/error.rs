//! What a store call can fail with, typed by what the caller does next.

type Source = Box<dyn std::error::Error + Send + Sync>;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Throttling, 5xx, timeouts: transient, safe to retry.
    #[error("store unavailable")]
    Unavailable(#[source] Source),
    /// An item that does not map to the domain (hand-edited, or written by a newer version).
    #[error("corrupt item {key}: {reason}")]
    Corrupt { key: String, reason: String },
    /// Anything else (bad table name, missing permission, ...): a fault.
    #[error("store call failed")]
    Other(#[source] Source),
}
