//! Domain types that are parsed once at the edge and trusted everywhere after
//! ("parse, don't validate").

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use crate::connection::{
    ConnectionDetails, ConnectionEndpoint, MAX_PLAYER_GATEWAY_TOKEN_CHARS,
};

/// Milliseconds since the Unix epoch. Every timestamp in the system uses this unit,
/// except DynamoDB TTL attributes, which DynamoDB requires in seconds.
pub type EpochMillis = i64;

/// How long a player's item is kept after their last connect (DynamoDB TTL).
pub const PLAYER_RETENTION_SECONDS: i64 = 30 * 24 * 3600;

/// The longest player id we accept.
pub const MAX_PLAYER_ID_LEN: usize = 128;

/// A player's identity: 1–128 characters of `A-Z a-z 0-9 . _ : @ -`.
///
/// It is always taken from the authorizer (a JWT `sub` or the development header),
/// never from a message body, so a client cannot act as someone else.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, JsonSchema)]
#[serde(transparent)]
pub struct PlayerId(
    #[schemars(length(min = 1, max = 128), regex(pattern = r"^[A-Za-z0-9._:@-]+$"))] String,
);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlayerIdError {
    #[error("player id is empty")]
    Empty,
    #[error("player id is {len} characters long; the maximum is {MAX_PLAYER_ID_LEN}")]
    TooLong { len: usize },
    #[error(
        "player id contains {found:?} at position {position}; allowed are A-Z a-z 0-9 . _ : @ -"
    )]
    ForbiddenCharacter { found: char, position: usize },
}

impl PlayerId {
    pub fn parse(raw: impl Into<String>) -> Result<Self, PlayerIdError> {
        let raw = raw.into();
        if raw.is_empty() {
            return Err(PlayerIdError::Empty);
        }
        let len = raw.chars().count();
        if len > MAX_PLAYER_ID_LEN {
            return Err(PlayerIdError::TooLong { len });
        }
        if let Some((position, found)) = raw.chars().enumerate().find(|(_, c)| !is_allowed(*c)) {
            return Err(PlayerIdError::ForbiddenCharacter { found, position });
        }
        Ok(Self(raw))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The `BySweepShard` index partition this player lives in. A stable hash (FNV-1a),
    /// so every process and every release agrees on it.
    pub fn sweep_shard(&self, shards: u32) -> u32 {
        stable_shard(&self.0, shards)
    }
}

/// `key`'s partition among `shards` (at least one): FNV-1a, stable across processes
/// and releases.
pub fn stable_shard(key: &str, shards: u32) -> u32 {
    let hash = key.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    (hash % u64::from(shards.max(1))) as u32
}

/// The characters of a player id (and of a party id): `A-Z a-z 0-9 . _ : @ -`.
pub fn is_allowed(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | ':' | '@' | '-')
}

impl fmt::Display for PlayerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for PlayerId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(d)?;
        // Worded to follow the field's name: "`playerId` is not a valid player id: ...".
        PlayerId::parse(raw)
            .map_err(|e| serde::de::Error::custom(format!("is not a valid player id: {e}")))
    }
}

/// An API Gateway connection id, as given in `requestContext.connectionId`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct ConnectionId(String);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConnectionIdError {
    #[error("connection id is empty")]
    Empty,
    #[error("connection id is {len} bytes long; the maximum is 128")]
    TooLong { len: usize },
    #[error("connection id contains {found:?}; only printable ASCII other than '/' is allowed")]
    ForbiddenCharacter { found: char },
}

impl ConnectionId {
    pub fn parse(raw: impl Into<String>) -> Result<Self, ConnectionIdError> {
        let raw = raw.into();
        if raw.is_empty() {
            return Err(ConnectionIdError::Empty);
        }
        if raw.len() > 128 {
            return Err(ConnectionIdError::TooLong { len: raw.len() });
        }
        if let Some(found) = raw.chars().find(|c| !c.is_ascii_graphic() || *c == '/') {
            return Err(ConnectionIdError::ForbiddenCharacter { found });
        }
        Ok(Self(raw))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ConnectionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for ConnectionId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(d)?;
        ConnectionId::parse(raw).map_err(serde::de::Error::custom)
    }
}

/// A message's id: time-ordered (a ULID) for chat, so a recipient's messages replay in
/// order; deterministic for placement results, so a duplicate event writes nothing new.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct MessageId(String);

impl MessageId {
    /// A new ULID: 48 bits of milliseconds then 80 random bits, Crockford base32.
    /// Within one process ids are strictly increasing, even within a millisecond.
    pub fn generate(now: EpochMillis) -> Self {
        use std::sync::Mutex;
        static LAST: Mutex<(u64, u128)> = Mutex::new((0, 0));
        let millis = now.max(0) as u64 & 0xFFFF_FFFF_FFFF;
        let mut last = LAST.lock().unwrap_or_else(|p| p.into_inner());
        let random = if millis <= last.0 {
            // Same (or an earlier) millisecond: keep the last timestamp and count up.
            last.1 = (last.1 + 1) & ((1u128 << 80) - 1);
            last.1
        } else {
            last.0 = millis;
            last.1 = (u128::from(fastrand::u64(..)) << 16 | u128::from(fastrand::u16(..))) >> 1;
            last.1
        };
        let value = (u128::from(last.0) << 80) | random;
        const ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
        let text = (0..26)
            .rev()
            .map(|i| ALPHABET[((value >> (i * 5)) & 0x1F) as usize] as char)
            .collect();
        Self(text)
    }

    /// An id from parts the caller guarantees unique (e.g. placement id + player id).
    pub fn deterministic(parts: &[&str]) -> Self {
        Self(parts.join("#"))
    }

    /// Any stored id; ids are opaque once written.
    pub fn from_stored(raw: impl Into<String>) -> Self {
        Self(raw.into())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for MessageId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A position in a player's inbox. Every frame pushed to a player (a message, a placement
/// result, a presence change) is appended to their inbox at the next `Seq` and carries it
/// as `"seq"`; a client that reports the last one it processed (`resume {"cursor"}`) gets
/// everything after it again. Within an epoch of an inbox the numbers are consecutive;
/// an inbox whose items all expired starts a new epoch at a time-derived number above
/// every earlier one ([`Seq::epoch_start`]), so a `Seq` only ever grows for a player.
/// Clients treat it as an opaque, increasing number (at most 2^53 − 1, exact in every
/// JSON implementation).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, JsonSchema,
)]
#[serde(transparent)]
pub struct Seq(#[schemars(range(max = 9_007_199_254_740_991_u64))] u64);

/// Why a number is not a [`Seq`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a seq is a whole number from 0 to {max}", max = Seq::MAX.0)]
pub struct SeqError;

impl Seq {
    /// Before the first message of any inbox; a cursor of 0 asks for everything.
    pub const ZERO: Self = Self(0);
    /// The largest integer every JSON implementation (JavaScript's included) holds exactly.
    pub const MAX: Self = Self((1 << 53) - 1);

    pub fn new(value: u64) -> Result<Self, SeqError> {
        if value <= Self::MAX.0 {
            Ok(Self(value))
        } else {
            Err(SeqError)
        }
    }

    pub fn get(self) -> u64 {
        self.0
    }

    /// The seq after this one.
    pub fn next(self) -> Self {
        Self(self.0 + 1)
    }

    /// Where a new epoch of an inbox starts when it is (re)created at `now`: 100 per
    /// millisecond since the epoch, so it is above every seq of an earlier epoch as long
    /// as that epoch took fewer than 100 appends per millisecond of its life (DynamoDB
    /// accepts at most 1,000 writes a second on one inbox) and clocks do not run back by
    /// more than its life. Exact in JSON until the year 4700.
    pub fn epoch_start(now: EpochMillis) -> Self {
        Self(
            u64::try_from(now)
                .unwrap_or(0)
                .saturating_mul(100)
                .min(Self::MAX.0),
        )
    }
}

impl fmt::Display for Seq {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl<'de> Deserialize<'de> for Seq {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct SeqVisitor;

        impl serde::de::Visitor<'_> for SeqVisitor {
            type Value = Seq;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "a seq, a whole number from 0 to {}", Seq::MAX)
            }

            fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<Seq, E> {
                Seq::new(n).map_err(|_| out_of_range(n))
            }

            fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<Seq, E> {
                u64::try_from(n).map_or_else(|_| Err(out_of_range(n)), |n| self.visit_u64(n))
            }

            fn visit_f64<E: serde::de::Error>(self, n: f64) -> Result<Seq, E> {
                Err(out_of_range(n))
            }
        }

        /// Worded to follow the field's name: "`cursor` is -1; it must be ...".
        fn out_of_range<E: serde::de::Error>(n: impl fmt::Display) -> E {
            E::custom(format!(
                "is {n}; it must be a seq, a whole number from 0 to {}",
                Seq::MAX
            ))
        }

        d.deserialize_u64(SeqVisitor)
    }
}

/// Where a player is in the connection lifecycle
/// (shared/src/players.rs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PresenceStatus {
    /// Has an open connection.
    Online,
    /// Lost the connection; may resume until the grace period ends.
    Disconnected,
    /// Gone: the grace period or heartbeat timeout ran out.
    Offline,
}

impl PresenceStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Online => "online",
            Self::Disconnected => "disconnected",
            Self::Offline => "offline",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        match raw {
            "online" => Some(Self::Online),
            "disconnected" => Some(Self::Disconnected),
            "offline" => Some(Self::Offline),
            _ => None,
        }
    }
}

/// The longest placement id GameLift accepts (StartGameSessionPlacement).
pub const MAX_PLACEMENT_ID_LEN: usize = 48;

/// A game session placement's id: 1–48 characters of `A-Z a-z 0-9 -`, GameLift's rule
/// for `PlacementId` (`[a-zA-Z0-9-]+`, at most 48).
///
/// The ids this system makes ([`PlacementId::new_at`]) are time-ordered (v7) UUIDs;
/// any id of the right shape is accepted where one comes back (a client's
/// `cancelPlacement`, a GameLift event, a stored item), and parsed there once.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, JsonSchema)]
#[serde(transparent)]
pub struct PlacementId(
    #[schemars(length(min = 1, max = 48), regex(pattern = r"^[A-Za-z0-9-]+$"))] String,
);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlacementIdError {
    #[error("placement id is empty")]
    Empty,
    #[error("placement id is {len} characters long; the maximum is {MAX_PLACEMENT_ID_LEN}")]
    TooLong { len: usize },
    #[error("placement id contains {found:?} at position {position}; allowed are A-Z a-z 0-9 -")]
    ForbiddenCharacter { found: char, position: usize },
}

impl PlacementId {
    pub fn parse(raw: impl Into<String>) -> Result<Self, PlacementIdError> {
        let raw = raw.into();
        if raw.is_empty() {
            return Err(PlacementIdError::Empty);
        }
        let len = raw.chars().count();
        if len > MAX_PLACEMENT_ID_LEN {
            return Err(PlacementIdError::TooLong { len });
        }
        let allowed = |c: char| c.is_ascii_alphanumeric() || c == '-';
        if let Some((position, found)) = raw.chars().enumerate().find(|(_, c)| !allowed(*c)) {
            return Err(PlacementIdError::ForbiddenCharacter { found, position });
        }
        Ok(Self(raw))
    }

    /// A fresh placement id, requested at `now`: a time-ordered (v7) UUID, 36 characters
    /// of `[0-9a-f-]`, never reused (74 random bits besides the time). Its time lets a
    /// later request tell a pending placement that was never recorded (a crash between
    /// the two writes) from one being recorded right now: see [`Self::requested_at`].
    pub fn new_at(now: EpochMillis) -> Self {
        let millis = u64::try_from(now).unwrap_or(0);
        let timestamp = uuid::Timestamp::from_unix(
            uuid::NoContext,
            millis / 1000,
            u32::try_from(millis % 1000).unwrap_or(0) * 1_000_000,
        );
        Self(uuid::Uuid::new_v7(timestamp).to_string())
    }

    /// When an id made by [`Self::new_at`] was requested; `None` for any other id (an
    /// older random id, or one this system did not make).
    pub fn requested_at(&self) -> Option<EpochMillis> {
        let uuid = uuid::Uuid::parse_str(&self.0).ok()?;
        if uuid.get_version_num() != 7 {
            return None;
        }
        let (secs, nanos) = uuid.get_timestamp()?.to_unix();
        i64::try_from(secs)
            .ok()?
            .checked_mul(1000)?
            .checked_add(i64::from(nanos / 1_000_000))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for PlacementId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for PlacementId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(d)?;
        // Worded to follow the field's name: "`placementId` \"p/1\" is not a placement id ...".
        PlacementId::parse(raw.as_str()).map_err(|e| {
            serde::de::Error::custom(format!(
                "{raw:?} is not a placement id (1–48 of A-Z a-z 0-9 -): {e}"
            ))
        })
    }
}

/// Where a game session placement is (shared/src/placement.rs): it moves only
/// from `PENDING` to one of the final states, once.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum PlacementStatus {
    Pending,
    Fulfilled,
    Cancelled,
    TimedOut,
    Failed,
}

impl PlacementStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "PENDING",
            Self::Fulfilled => "FULFILLED",
            Self::Cancelled => "CANCELLED",
            Self::TimedOut => "TIMED_OUT",
            Self::Failed => "FAILED",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        match raw {
            "PENDING" => Some(Self::Pending),
            "FULFILLED" => Some(Self::Fulfilled),
            "CANCELLED" => Some(Self::Cancelled),
            "TIMED_OUT" => Some(Self::TimedOut),
            "FAILED" => Some(Self::Failed),
            _ => None,
        }
    }

    /// Every state but `PENDING` is final.
    pub fn is_final(self) -> bool {
        self != Self::Pending
    }
}

impl fmt::Display for PlacementStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A player's seat in a game session, as clients receive it (`placement` frames, the
/// `resume` and `rejoinSession` acks) and as the Players item keeps it (`gameSession`).
/// Clients of TLS fleets must connect to `dns_name`, not the IP. Where to send game
/// traffic is `connection` when present (behind player gateway, relays rather than the
/// game server's own address).
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GameSession {
    pub game_session_arn: String,
    pub ip_address: String,
    pub dns_name: String,
    pub port: u16,
    pub region: String,
    pub player_session_id: String,
    /// Where this player connects: player gateway relays and token, or the game server
    /// itself. Absent on a seat given before connection details existed: connect to
    /// `ipAddress`/`port`.
    pub connection: Option<ConnectionDetails>,
    /// The fleet requires player gateway and this seat's details could not be had: do
    /// not connect yet; send `refreshConnectionDetails` (the client libraries do, with
    /// backoff). Never together with `connection`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub connection_unavailable: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn player_id_accepts_every_allowed_character() {
        let id = PlayerId::parse("Alice.B_2:team@eu-west").expect("valid id");
        assert_eq!(id.as_str(), "Alice.B_2:team@eu-west");
    }

    #[test]
    fn player_id_of_exactly_128_characters_is_accepted_and_129_is_not() {
        assert!(PlayerId::parse("a".repeat(128)).is_ok());
        assert_eq!(
            PlayerId::parse("a".repeat(129)),
            Err(PlayerIdError::TooLong { len: 129 })
        );
    }

    #[test]
    fn player_id_rejects_empty_and_says_so() {
        assert_eq!(PlayerId::parse(""), Err(PlayerIdError::Empty));
    }

    #[test]
    fn player_id_rejects_forbidden_characters_naming_the_first_one() {
        for (raw, found, position) in [
            ("al ice", ' ', 2),
            ("bob/1", '/', 3),
            ("é", 'é', 0),
            ("x\u{0}", '\u{0}', 1),
        ] {
            assert_eq!(
                PlayerId::parse(raw),
                Err(PlayerIdError::ForbiddenCharacter { found, position }),
                "{raw:?}"
            );
        }
    }

    #[test]
    fn player_id_deserialization_applies_the_same_rules() {
        assert!(serde_json::from_str::<PlayerId>("\"bob\"").is_ok());
        let err = serde_json::from_str::<PlayerId>("\"b b\"").unwrap_err();
        assert!(err.to_string().contains("position 1"), "{err}");
    }

    #[test]
    fn given_letters_digits_and_dashes_when_parsing_a_placement_id_then_it_reads_back_unchanged() {
        for raw in [
            "a",
            "P-1",
            "0d3c2f5e-6b1f-4a7b-9f0e-2a1b3c4d5e6f",
            &"A-9".repeat(16),
        ] {
            let id = PlacementId::parse(raw).expect("valid id");
            assert_eq!(id.as_str(), raw);
            assert_eq!(id.to_string(), raw);
        }
    }

    #[test]
    fn a_placement_id_of_48_characters_is_accepted_and_49_is_refused_with_its_length() {
        assert!(PlacementId::parse("a".repeat(48)).is_ok());
        assert_eq!(
            PlacementId::parse("a".repeat(49)),
            Err(PlacementIdError::TooLong { len: 49 })
        );
        let err = PlacementId::parse("é".repeat(49)).unwrap_err();
        assert_eq!(
            err,
            PlacementIdError::TooLong { len: 49 },
            "counted in characters"
        );
        assert_eq!(
            err.to_string(),
            "placement id is 49 characters long; the maximum is 48"
        );
    }

    #[test]
    fn an_empty_placement_id_is_refused_as_empty() {
        assert_eq!(PlacementId::parse(""), Err(PlacementIdError::Empty));
        assert_eq!(PlacementIdError::Empty.to_string(), "placement id is empty");
    }

    #[test]
    fn an_id_with_a_slash_is_refused_naming_the_character() {
        let err = PlacementId::parse("p/1").unwrap_err();
        assert_eq!(
            err,
            PlacementIdError::ForbiddenCharacter {
                found: '/',
                position: 1
            }
        );
        assert_eq!(
            err.to_string(),
            "placement id contains '/' at position 1; allowed are A-Z a-z 0-9 -"
        );
    }

    #[test]
    fn an_id_with_any_other_character_is_refused_naming_the_first_one() {
        for (raw, found, position) in [
            ("a_b", '_', 1),
            ("a b", ' ', 1),
            ("p.1", '.', 1),
            ("p:1", ':', 1),
            ("é", 'é', 0),
            ("ok-\u{0}-x", '\u{0}', 3),
        ] {
            assert_eq!(
                PlacementId::parse(raw),
                Err(PlacementIdError::ForbiddenCharacter { found, position }),
                "{raw:?}"
            );
        }
    }

    #[test]
    fn a_placement_id_serializes_as_the_bare_string_and_deserializes_through_parse() {
        let id = PlacementId::parse("p-1").unwrap();
        assert_eq!(serde_json::to_string(&id).unwrap(), "\"p-1\"");
        assert_eq!(serde_json::from_str::<PlacementId>("\"p-1\"").unwrap(), id);
        let err = serde_json::from_str::<PlacementId>("\"p/1\"").unwrap_err();
        assert!(err.to_string().contains("'/' at position 1"), "{err}");
        assert!(serde_json::from_str::<PlacementId>("\"\"").is_err());
    }

    #[test]
    fn given_one_millisecond_when_making_placement_ids_then_each_differs_and_parses_back() {
        let now = 1_795_323_600_123;
        let ids: std::collections::HashSet<PlacementId> =
            (0..1000).map(|_| PlacementId::new_at(now)).collect();
        assert_eq!(
            ids.len(),
            1000,
            "ids made in the same millisecond still differ"
        );
        for id in &ids {
            assert_eq!(id.as_str().len(), 36);
            assert_eq!(PlacementId::parse(id.as_str()).as_ref(), Ok(id));
        }
    }

    #[test]
    fn a_placement_id_made_here_tells_when_it_was_requested_and_other_ids_do_not() {
        let now = 1_795_323_600_123;
        assert_eq!(PlacementId::new_at(now).requested_at(), Some(now));
        for other in [
            "3f2504e0-4f89-41d3-9a0c-0305e82c3301", // v4
            "placement-1",
        ] {
            let id = PlacementId::parse(other).unwrap();
            assert_eq!(id.requested_at(), None, "{other}");
        }
    }

    #[test]
    fn sweep_shard_is_stable_and_within_range() {
        let alice = PlayerId::parse("alice").unwrap();
        let shard = alice.sweep_shard(4);
        assert!(shard < 4);
        assert_eq!(shard, alice.sweep_shard(4));
        assert_eq!(alice.sweep_shard(1), 0);
        assert_eq!(alice.sweep_shard(0), 0, "zero shards is treated as one");
    }

    #[test]
    fn message_ids_are_26_characters_and_strictly_increasing_within_a_millisecond() {
        let ids: Vec<_> = (0..1000)
            .map(|_| MessageId::generate(1_700_000_000_000))
            .collect();
        assert!(ids.iter().all(|id| id.as_str().len() == 26));
        assert!(ids.windows(2).all(|w| w[0] < w[1]));
        let later = MessageId::generate(1_700_000_000_001);
        assert!(later > ids[999]);
    }

    #[test]
    fn connection_id_accepts_api_gateway_ids_and_rejects_paths() {
        assert!(ConnectionId::parse("L0SM9cOFvHcCIhw=").is_ok());
        assert_eq!(ConnectionId::parse(""), Err(ConnectionIdError::Empty));
        assert_eq!(
            ConnectionId::parse("a/b"),
            Err(ConnectionIdError::ForbiddenCharacter { found: '/' })
        );
    }

    #[test]
    fn placement_statuses_round_trip_and_only_pending_is_not_final() {
        for status in [
            PlacementStatus::Pending,
            PlacementStatus::Fulfilled,
            PlacementStatus::Cancelled,
            PlacementStatus::TimedOut,
            PlacementStatus::Failed,
        ] {
            assert_eq!(PlacementStatus::parse(status.as_str()), Some(status));
            assert_eq!(
                serde_json::to_value(status).unwrap(),
                serde_json::Value::String(status.as_str().into())
            );
            assert_eq!(status.is_final(), status != PlacementStatus::Pending);
        }
        assert_eq!(PlacementStatus::parse("pending"), None);
    }

    #[test]
    fn a_game_session_serializes_camel_case_with_a_numeric_port() {
        assert_eq!(
            serde_json::to_value(crate::fixtures::seat()).unwrap(),
            serde_json::json!({
                "gameSessionArn": "arn:gs",
                "ipAddress": "10.0.0.1",
                "dnsName": "host.example",
                "port": 7777,
                "region": "us-east-1",
                "playerSessionId": "psess-1"
            })
        );
    }
}

#[cfg(test)]
mod seq_tests {
    use super::*;

    #[test]
    fn a_seq_is_at_most_2_to_the_53_minus_1() {
        assert_eq!(Seq::new(0), Ok(Seq::ZERO));
        assert_eq!(Seq::new((1 << 53) - 1), Ok(Seq::MAX));
        assert_eq!(Seq::new(1 << 53), Err(SeqError));
        assert!(serde_json::from_str::<Seq>("9007199254740992").is_err());
        assert!(serde_json::from_str::<Seq>("-1").is_err());
        assert!(serde_json::from_str::<Seq>("1.5").is_err());
        assert_eq!(serde_json::from_str::<Seq>("42").unwrap(), Seq(42));
    }

    #[test]
    fn a_new_epoch_starts_above_any_earlier_epoch_that_lived_at_least_a_millisecond_per_100_appends()
     {
        let earlier = Seq::epoch_start(1_795_323_600_000);
        let later = Seq::epoch_start(1_795_323_600_001);
        assert_eq!(later.get() - earlier.get(), 100);
        assert!(Seq::epoch_start(4_102_444_800_000) < Seq::MAX, "year 2100");
        assert_eq!(Seq::epoch_start(-5), Seq::ZERO);
    }
}
