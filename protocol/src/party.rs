//! The party types clients see: a party's id, its view in `party` frames and acks, and
//! the kind of change a `party` frame reports. The party state and its rules live in
//! the `shared` crate.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::domain::{EpochMillis, PlayerId, is_allowed, stable_shard};

/// The longest party id accepted (the same bound as a player id).
pub const MAX_PARTY_ID_LEN: usize = 128;

/// A party's id: 1–128 characters of `A-Z a-z 0-9 . _ : @ -`, the player id rules. The
/// ones made here are random (v4) UUIDs; any id of that shape is accepted where one
/// comes back (`joinParty`, `sendMessage`, a stored item) and parsed there once.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, JsonSchema)]
#[serde(transparent)]
pub struct PartyId(
    #[schemars(length(min = 1, max = 128), regex(pattern = r"^[A-Za-z0-9._:@-]+$"))] String,
);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PartyIdError {
    #[error("party id is empty")]
    Empty,
    #[error("party id is {len} characters long; the maximum is {MAX_PARTY_ID_LEN}")]
    TooLong { len: usize },
    #[error(
        "party id contains {found:?} at position {position}; allowed are A-Z a-z 0-9 . _ : @ -"
    )]
    ForbiddenCharacter { found: char, position: usize },
}

impl PartyId {
    pub fn parse(raw: impl Into<String>) -> Result<Self, PartyIdError> {
        let raw = raw.into();
        if raw.is_empty() {
            return Err(PartyIdError::Empty);
        }
        let len = raw.chars().count();
        if len > MAX_PARTY_ID_LEN {
            return Err(PartyIdError::TooLong { len });
        }
        if let Some((position, found)) = raw.chars().enumerate().find(|(_, c)| !is_allowed(*c)) {
            return Err(PartyIdError::ForbiddenCharacter { found, position });
        }
        Ok(Self(raw))
    }

    /// A fresh id: a random (v4) UUID, never reused.
    pub fn generate() -> Self {
        Self(uuid::Uuid::new_v4().to_string())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The partition of the parties' offline index this party lives in.
    pub fn sweep_shard(&self, shards: u32) -> u32 {
        stable_shard(&self.0, shards)
    }
}

impl fmt::Display for PartyId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for PartyId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(d)?;
        PartyId::parse(raw).map_err(serde::de::Error::custom)
    }
}

/// A party in `party` frames and acks: `{"partyId", "leaderId", "maxSize", "members":
/// [{"playerId", "presence", "joinedAt"}], "version"}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PartyView {
    pub party_id: PartyId,
    pub leader_id: PlayerId,
    pub max_size: u32,
    pub members: Vec<MemberView>,
    pub version: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MemberView {
    pub player_id: PlayerId,
    /// `online` or `offline`.
    pub presence: String,
    pub joined_at: EpochMillis,
}

/// The `change` of a `party` frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ChangeKind {
    Created,
    Joined,
    Left,
    Kicked,
    Promoted,
    Disbanded,
    Presence,
}
