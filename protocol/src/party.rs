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
        // Worded to follow the field's name: "`partyId` is not a party id: ...".
        PartyId::parse(raw).map_err(|e| serde::de::Error::custom(format!("is not a party id: {e}")))
    }
}

/// The smallest party `createParty` makes.
pub const MIN_PARTY_SIZE: u32 = 2;
/// The largest party any stack may allow (`PARTY_MAX_SIZE` is at most this), so that a
/// party fits one FlexMatch ticket.
pub const MAX_PARTY_SIZE: u32 = 10;

/// The size `createParty` asks for: a whole number from 2 to 10. A stack allows at most
/// its `PARTY_MAX_SIZE` (8 unless set): a well-formed size above that is refused as
/// `forbidden`, not malformed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, JsonSchema)]
#[serde(transparent)]
pub struct PartySize(#[schemars(range(min = 2, max = 10))] u32);

impl PartySize {
    /// `size`, if it is from [`MIN_PARTY_SIZE`] to [`MAX_PARTY_SIZE`].
    pub fn new(size: u32) -> Option<Self> {
        (MIN_PARTY_SIZE..=MAX_PARTY_SIZE)
            .contains(&size)
            .then_some(Self(size))
    }

    pub fn get(self) -> u32 {
        self.0
    }
}

impl<'de> Deserialize<'de> for PartySize {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct SizeVisitor;

        impl serde::de::Visitor<'_> for SizeVisitor {
            type Value = PartySize;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(
                    f,
                    "a whole number from {MIN_PARTY_SIZE} to {MAX_PARTY_SIZE}"
                )
            }

            fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<PartySize, E> {
                u32::try_from(n)
                    .ok()
                    .and_then(PartySize::new)
                    .ok_or_else(|| wrong_size(n))
            }

            fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<PartySize, E> {
                u64::try_from(n).map_or_else(|_| Err(wrong_size(n)), |n| self.visit_u64(n))
            }

            fn visit_f64<E: serde::de::Error>(self, n: f64) -> Result<PartySize, E> {
                Err(wrong_size(n))
            }
        }

        /// Worded to follow the field's name: "`maxSize` is 1; it must be ...".
        fn wrong_size<E: serde::de::Error>(n: impl fmt::Display) -> E {
            E::custom(format!(
                "is {n}; it must be a whole number from {MIN_PARTY_SIZE} to {MAX_PARTY_SIZE}"
            ))
        }

        d.deserialize_u64(SizeVisitor)
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
