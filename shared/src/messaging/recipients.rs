//! The checks every sender of a player's message makes before anything is stored
//! (`sendMessage`, the backend API's `POST /v1/messages`): the message's size, and that
//! every recipient is a player the backend knows (connected at least once in the last
//! 30 days). An unknown id refuses the whole message (`not_found` naming the unknown
//! ids): nothing is stored for an id no player has (never connected, or gone for 30
//! days, the Players retention). A read of up to 100 small items (one BatchGetItem,
//! concurrent with the rate-limit write) costs less than storing, streaming and expiring
//! a message nobody can receive, and a client learns of a typo at once. A refused frame
//! still counts against the sender's limits.

use std::collections::HashSet;

use serde_json::Value;

use crate::domain::PlayerId;
use crate::ports::{PlayerLookup, StoreError};

/// The most a message may weigh, serialized (the README's protocol section).
pub const MAX_MESSAGE_FIELD_BYTES: usize = 32 * 1024;

/// Why a message was refused.
#[derive(Debug, thiserror::Error)]
pub enum RecipientsError {
    /// No player has these ids (each once, in the order given).
    #[error("no player has the id {}", .0.iter().map(PlayerId::as_str).collect::<Vec<_>>().join(", "))]
    Unknown(Vec<PlayerId>),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// `message`'s size serialized, when it is over [`MAX_MESSAGE_FIELD_BYTES`]. JSON Schema cannot
/// state a size serialized, so this is checked here, not in the request's type.
pub fn oversized(message: &Value) -> Option<usize> {
    let size = serde_json::to_vec(message).map_or(usize::MAX, |bytes| bytes.len());
    (size > MAX_MESSAGE_FIELD_BYTES).then_some(size)
}

/// Every one of `recipients` is a known player: one batched read.
pub async fn require_known(
    players: &dyn PlayerLookup,
    recipients: &[PlayerId],
) -> Result<(), RecipientsError> {
    let known = players
        .get_many(recipients)
        .await?
        .into_iter()
        .map(|record| record.player_id);
    all_known(recipients, known)
}

/// Every one of `recipients` is among `known` (the players a read found).
pub fn all_known(
    recipients: &[PlayerId],
    known: impl IntoIterator<Item = PlayerId>,
) -> Result<(), RecipientsError> {
    let known: HashSet<PlayerId> = known.into_iter().collect();
    let mut seen = HashSet::new();
    let unknown: Vec<PlayerId> = recipients
        .iter()
        .filter(|id| !known.contains(*id) && seen.insert(*id))
        .cloned()
        .collect();
    if unknown.is_empty() {
        Ok(())
    } else {
        Err(RecipientsError::Unknown(unknown))
    }
}
