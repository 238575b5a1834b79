//! Each player's inbox, in the Messages table (docs/architecture.md#delivery): appends
//! ([`MessageStore`]), reads for a replay ([`InboxReader`]) and `resume`'s switch to live
//! delivery ([`DeliveryHandover`]). The records are `crate::messaging`'s.

use async_trait::async_trait;

use crate::domain::{EpochMillis, PlayerId};
use crate::messaging::{Handover, HandoverOutcome, InboxRead, NewMessage, ReplayFrom};

use super::StoreError;

/// Appending to inboxes.
#[async_trait]
pub trait MessageStore: Send + Sync {
    /// Appends each message to its recipient's inbox at the next seq (one conditional
    /// write per message after one read of the inbox's newest item, retried when another
    /// writer took that seq first). Messages to one recipient are appended in the order
    /// given. A message whose id is already its inbox's newest is not appended again (a
    /// retried invocation). Returns how many were appended.
    async fn append(&self, messages: &[NewMessage]) -> Result<usize, StoreError>;
}

/// Reading an inbox for a replay.
#[async_trait]
pub trait InboxReader: Send + Sync {
    /// The recipient's messages that `from` admits and that have not expired at `now`,
    /// oldest first, with the inbox's head and epoch as they were when it was read
    /// (strongly consistent, newest first, stopping where `from` starts).
    async fn read(
        &self,
        recipient: &PlayerId,
        from: &ReplayFrom,
        now: EpochMillis,
    ) -> Result<InboxRead, StoreError>;
}

/// One atomic step across the Players and Messages tables (a transaction on DynamoDB).
#[async_trait]
pub trait DeliveryHandover: Send + Sync {
    async fn go_live(&self, handover: &Handover) -> Result<HandoverOutcome, StoreError>;
}
