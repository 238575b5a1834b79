//! Each player's inbox, in the Messages table: every frame pushed to a player (a chat
//! message, a placement result, a presence change, a party change) is appended to the recipient's inbox
//! at the next [`Seq`], delivered live from the table's stream by `on-message-inserted`
//! to a connection that has completed its hand-over ([`DeliveryHandover`]), and replayed
//! by `resume` to a client that reports the last seq it processed. Nothing is deleted on
//! delivery: messages expire by TTL. The guarantee and why it holds are in
//! docs/architecture.md#delivery.
//!
//! The ports are `crate::ports::messages`; [`recipients`] is the check every sender of
//! player-addressed messages makes (unknown ids are refused whole).

pub mod recipients;

use crate::domain::{ConnectionId, EpochMillis, MessageId, PlayerId, Seq};

/// What produced a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MessageKind {
    Chat,
    Placement,
    Presence,
    /// Party changes, invitations and declines.
    Party,
    /// A matchmaking ticket's status changes.
    Matchmaking,
    /// A `disconnected_by_server` frame from the backend API: whoever delivers it to
    /// the connection it names closes that connection next; a replay to any other
    /// connection skips it (docs/architecture.md#ending-a-connection-from-the-backend).
    Kick,
}

impl MessageKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Chat => "chat",
            Self::Placement => "placement",
            Self::Presence => "presence",
            Self::Party => "party",
            Self::Matchmaking => "matchmaking",
            Self::Kick => "kick",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        match raw {
            "chat" => Some(Self::Chat),
            "placement" => Some(Self::Placement),
            "presence" => Some(Self::Presence),
            "party" => Some(Self::Party),
            "matchmaking" => Some(Self::Matchmaking),
            "kick" => Some(Self::Kick),
            _ => None,
        }
    }
}

/// `senderId` of the messages the service writes itself (placement results, presence,
/// party and matchmaking changes, the backend API's messages without a `from`).
pub const SYSTEM_SENDER: &str = "system";

/// When an inbox item written at `at` is deleted, `ttl_secs` later (DynamoDB TTL, epoch
/// seconds).
pub fn expire_at_secs(at: EpochMillis, ttl_secs: i64) -> i64 {
    at.div_euclid(1000).saturating_add(ttl_secs)
}

/// A message to append to one recipient's inbox.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewMessage {
    /// What the client de-duplicates on; an append whose id is already the inbox's
    /// newest is a retry and writes nothing.
    pub message_id: MessageId,
    pub recipient_id: PlayerId,
    /// A player id, or `system`.
    pub sender_id: String,
    pub kind: MessageKind,
    /// The server frame to deliver, as JSON text (an object; `"seq"` is added on delivery).
    pub payload: String,
    pub created_at: EpochMillis,
    /// DynamoDB TTL, epoch seconds.
    pub expire_at_secs: i64,
}

impl NewMessage {
    /// A message of `kind` from `sender_id`, written `now` and kept `ttl_secs`.
    pub fn new(
        kind: MessageKind,
        message_id: MessageId,
        recipient_id: PlayerId,
        sender_id: impl Into<String>,
        payload: String,
        now: EpochMillis,
        ttl_secs: i64,
    ) -> Self {
        Self {
            message_id,
            recipient_id,
            sender_id: sender_id.into(),
            kind,
            payload,
            created_at: now,
            expire_at_secs: expire_at_secs(now, ttl_secs),
        }
    }

    /// The message once appended at `seq` of an inbox epoch starting at `epoch`.
    pub fn at(self, seq: Seq, epoch: Seq) -> StoredMessage {
        StoredMessage {
            seq,
            epoch,
            message_id: self.message_id,
            recipient_id: self.recipient_id,
            sender_id: self.sender_id,
            kind: self.kind,
            payload: self.payload,
            created_at: self.created_at,
            expire_at_secs: self.expire_at_secs,
        }
    }
}

/// A message in an inbox.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredMessage {
    pub seq: Seq,
    /// The first seq of the inbox epoch this message belongs to.
    pub epoch: Seq,
    pub message_id: MessageId,
    pub recipient_id: PlayerId,
    pub sender_id: String,
    pub kind: MessageKind,
    pub payload: String,
    pub created_at: EpochMillis,
    pub expire_at_secs: i64,
}

impl StoredMessage {
    /// The frame a client receives: the payload with `"seq"` as its last field.
    pub fn frame(&self) -> String {
        with_seq(&self.payload, self.seq)
    }

    /// For a [`MessageKind::Kick`]: the connection it ends (named in its frame).
    pub fn kicks(&self) -> Option<String> {
        if self.kind != MessageKind::Kick {
            return None;
        }
        let frame: serde_json::Value = serde_json::from_str(&self.payload).ok()?;
        frame.get("connectionId")?.as_str().map(str::to_owned)
    }

    /// True once its TTL has passed at `now` (DynamoDB deletes expired items lazily, so
    /// reads filter them).
    pub fn expired(&self, now: EpochMillis) -> bool {
        self.expire_at_secs.saturating_mul(1000) <= now
    }
}

/// `payload` (a JSON object's text) with `,"seq":<seq>` before its closing brace; a
/// payload that is not an object's text is wrapped so the frame stays valid JSON.
pub fn with_seq(payload: &str, seq: Seq) -> String {
    let trimmed = payload.trim_end();
    match trimmed.strip_suffix('}') {
        Some(body) if trimmed.starts_with('{') => {
            let body = body.trim_end();
            let separator = if body.len() > 1 { "," } else { "" };
            format!("{body}{separator}\"seq\":{seq}}}")
        }
        _ => format!("{{\"payload\":{payload},\"seq\":{seq}}}"),
    }
}

/// Where a replay starts: after a seq, and (for clients that report no cursor) not before
/// a time. Both bounds apply when both are given.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReplayFrom {
    /// Only messages with a greater seq.
    pub after: Option<Seq>,
    /// Only messages created at or after this time.
    pub created_since: Option<EpochMillis>,
}

impl ReplayFrom {
    /// Everything still in the inbox.
    pub const EVERYTHING: Self = Self {
        after: None,
        created_since: None,
    };

    pub fn after(seq: Seq) -> Self {
        Self {
            after: Some(seq),
            created_since: None,
        }
    }

    fn admits(&self, message: &StoredMessage) -> bool {
        self.after.is_none_or(|after| message.seq > after)
            && self
                .created_since
                .is_none_or(|since| message.created_at >= since)
    }

    /// Whether reading an inbox newest-first may stop at `message`: nothing older can be
    /// admitted. (`created_at` is the writer's clock, so the time bound is a floor the
    /// caller has already widened by a margin.)
    pub fn passed(&self, message: &StoredMessage) -> bool {
        self.after.is_some_and(|after| message.seq <= after)
            || self
                .created_since
                .is_some_and(|since| message.created_at < since)
    }

    /// `messages` (newest first, as read) filtered to what this replay admits and has
    /// not expired at `now`, oldest first.
    pub fn select(
        &self,
        mut newest_first: Vec<StoredMessage>,
        now: EpochMillis,
    ) -> Vec<StoredMessage> {
        newest_first.retain(|m| self.admits(m) && !m.expired(now));
        newest_first.reverse();
        newest_first
    }
}

/// What a read of an inbox found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InboxRead {
    /// The messages after the replay's start that have not expired, oldest first.
    pub messages: Vec<StoredMessage>,
    /// The inbox's newest seq at the time of the read (expired or not); `None` for an
    /// inbox holding no message at all.
    pub head: Option<Seq>,
    /// The inbox's current epoch (see [`Seq::epoch_start`]); `None` if it never had one,
    /// or it expired.
    pub epoch: Option<Seq>,
}

/// A connection's switch to live delivery, made by `resume` once it has replayed the
/// inbox up to `live_from`: from then on `on-message-inserted` posts every message after
/// `live_from` to it. The switch holds only if the inbox did not move meanwhile (no
/// message after `head`, the same `epoch`), so that no message falls between the replay
/// and live delivery.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Handover {
    pub player: PlayerId,
    pub connection: ConnectionId,
    /// The inbox head the replay reached (`None`: the inbox held nothing).
    pub head: Option<Seq>,
    /// The inbox epoch the replay saw.
    pub epoch: Option<Seq>,
    /// The cursor to remember for the player (`ackedSeq`): what the client reported, or
    /// what a replay to a client without a cursor posted.
    pub acked: Option<Seq>,
}

/// How a hand-over ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandoverOutcome {
    /// The connection is live from the head on.
    Live,
    /// A message arrived after the head (or the inbox started a new epoch): read from
    /// the head again, replay, and retry.
    InboxMoved,
    /// The connection is not the player's current online one (replaced, or swept).
    NotCurrent,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seq_goes_last_in_the_frame_whatever_the_payload_looks_like() {
        let seq = Seq::new(7).unwrap();
        assert_eq!(
            with_seq(r#"{"type":"message","n":1}"#, seq),
            r#"{"type":"message","n":1,"seq":7}"#
        );
        assert_eq!(with_seq("{}", seq), r#"{"seq":7}"#);
        assert_eq!(with_seq("{ } \n", seq), r#"{"seq":7}"#);
        assert_eq!(with_seq("[1]", seq), r#"{"payload":[1],"seq":7}"#);
        let frame: serde_json::Value =
            serde_json::from_str(&with_seq(r#"{"a":{"b":"}"}}"#, seq)).unwrap();
        assert_eq!(frame["seq"], 7);
        assert_eq!(frame["a"]["b"], "}");
    }
}
