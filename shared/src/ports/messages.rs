//! Each player's inbox, in the Messages table: appends ([`MessageStore`]), reads for a
//! replay ([`InboxReader`]) and `resume`'s switch to live delivery
//! ([`DeliveryHandover`]). The records, and how delivery works, are `crate::messaging`'s.
//!
//! # The item
//!
//! Every frame a player is told asynchronously (chat, placement and matchmaking results,
//! presence changes, party changes and invitations, backend kicks) is an item here,
//! numbered in the order it became visible. Item layout:
//! `adapters/aws/src/dynamodb/message_item.rs`; appends and epochs:
//! `adapters/aws/src/dynamodb/inbox.rs`.
//!
//! - Key: partition `recipientId` (S), sort `seq` (N). No secondary index: a replay is
//!   one strongly consistent Query on one inbox, newest first.
//! - TTL on `expireAt`. Nothing is deleted on delivery.
//! - Stream: `NEW_IMAGE`. The event source mapping passes on only INSERTs with
//!   `seq > 0`, so neither TTL deletions nor epoch items invoke `on-message-inserted`.
//!
//! | attribute | meaning |
//! |---|---|
//! | `recipientId` (S) | the inbox's player |
//! | `seq` (N) | position in the inbox: within an epoch seqs are consecutive and follow the order in which items became visible (`inbox.rs`) |
//! | `epoch` (N) | the first `seq` of the epoch the item belongs to |
//! | `messageId` (S) | a ULID for chat, one per `sendMessage` (every recipient's copy has the same id); for placement results and presence, derived from the event and the recipient, so that a retried event appends nothing new; for a party change, the party, its version and the recipient |
//! | `senderId` (S) | a player id, or `system` |
//! | `kind` (S) | a `crate::messaging::MessageKind`: `chat` (a player's or the backend API's message), `placement`, `presence`, `party` (party changes, invitations, declines), `matchmaking` (a ticket's status changes), `friend` (a relation's changes: `crate::friends`) or `kick` (the backend API ended a connection: `functions/backend-api/src/players.rs`) |
//! | `payload` (S) | the server frame to post, as JSON text (`"seq"` is added when it is posted) |
//! | `createdAt` (N) | epoch milliseconds |
//! | `expireAt` (N) | epoch seconds, the TTL: the latest of the message's own TTL, the `expireAt` of the item below it, and a day (`crate::messaging::MIN_KEPT_SECONDS`) after it was written, so that an inbox's newest item is the last of its epoch to expire |
//! | `replayUntil` (N, optional) | epoch seconds: the message's own TTL, when `expireAt` is later: `MESSAGE_TTL_SECONDS` after it was written for chat and placement results; 60 s for presence messages, which only matter to a watcher connected now; a party invitation's expiry. Reads skip a message past it |
//!
//! Each inbox also holds one *epoch item* at `seq = 0` (only `epoch` and `expireAt`).
//! The first message of an inbox that holds no message (a new player, or one whose
//! every message expired and was deleted) or whose newest message has expired (the items
//! above it may have been deleted: TTL deletes in no documented order) starts a new
//! epoch: its `seq` is
//! `100 × (epoch milliseconds now)`, above every `seq` an earlier epoch gave out (an
//! epoch would need 100 appends per millisecond of its life to reach the next one's
//! start; DynamoDB takes at most 1,000 writes a second on one partition). That append is
//! one transaction with the epoch item, conditional on the epoch item being as the writer
//! saw it, so two writers never start two epochs; `resume`'s hand-over checks the epoch
//! item too. A player's `seq` therefore only ever grows.

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
