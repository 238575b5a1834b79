//! The Messages table: one item per (message, recipient), written by
//! `send-message` and `on-placement-event`, delivered from the table's stream by
//! `on-message-inserted`, deleted once delivered. What stays is undelivered and is
//! replayed by `resume`.

use async_trait::async_trait;

use crate::domain::{EpochMillis, MessageId, PlayerId};
use crate::ports::player_store::StoreError;

/// What produced a message; presence messages are not replayed (stale by then).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MessageKind {
    Chat,
    Placement,
    Presence,
}

impl MessageKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Chat => "chat",
            Self::Placement => "placement",
            Self::Presence => "presence",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        match raw {
            "chat" => Some(Self::Chat),
            "placement" => Some(Self::Placement),
            "presence" => Some(Self::Presence),
            _ => None,
        }
    }
}

/// One message to one recipient.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredMessage {
    pub message_id: MessageId,
    pub recipient_id: PlayerId,
    /// A player id, or `system`.
    pub sender_id: String,
    pub kind: MessageKind,
    /// The server frame to deliver, as JSON text.
    pub payload: String,
    pub created_at: EpochMillis,
    /// DynamoDB TTL, epoch seconds.
    pub expire_at_secs: i64,
}

/// A page of a recipient's undelivered messages, oldest first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MessagePage {
    pub messages: Vec<StoredMessage>,
    /// Pass back as `after` to read the next page.
    pub next: Option<MessageId>,
}

#[async_trait]
pub trait MessageStore: Send + Sync {
    /// Writes every message (batched: 25 per BatchWriteItem), retrying unprocessed
    /// items with bounded backoff; `StoreError::Unavailable` if some still fail.
    async fn put_all(&self, messages: &[StoredMessage]) -> Result<(), StoreError>;

    /// The recipient's undelivered messages after `after`, oldest first.
    async fn pending(
        &self,
        recipient: &PlayerId,
        after: Option<&MessageId>,
        limit: u32,
    ) -> Result<MessagePage, StoreError>;

    /// Deletes delivered messages (batched: 25 per BatchWriteItem, retried like `put_all`).
    async fn delete_all(&self, ids: &[MessageId]) -> Result<(), StoreError>;
}
