//! Each player's inbox, in the Messages table: every frame pushed to a player (a chat
//! message, a placement result, a presence change, a party change) is appended to the
//! recipient's inbox at the next [`Seq`], delivered live from the table's stream by
//! `on-message-inserted` to a connection that has completed its hand-over
//! ([`DeliveryHandover`](crate::ports::DeliveryHandover)), and replayed by `resume` to a client that reports the last seq
//! it processed. Nothing is deleted on delivery: messages expire by TTL.
//!
//! The ports, and the item, are `crate::ports::messages`; [`recipients`] is the check every sender of
//! player-addressed messages makes (unknown ids are refused whole).
//!
//! # Delivery
//!
//! Delivery has two paths, live and replay, and one rule joins them without a gap.
//!
//! **The guarantee.** Every frame appended to a player's inbox (every `sendMessage` that
//! was acked with `queued`, every placement result, every presence change) reaches a
//! client of that player that processes frames in the order it receives them and sends
//! `resume {"cursor": <the seq of the last frame it processed>}` on every new socket, as
//! long as it does so before the frame's TTL (`MESSAGE_TTL_SECONDS`, 60 s for presence).
//! This holds whatever happened to the sockets before: closed, dropped, silent (still
//! open but no longer read), replaced by another device, or still opening when the frame
//! was written. A client may receive a frame more than once (it ignores a `seq` it has
//! already processed); it never receives one out of order within a socket's life. For
//! presence, a replay carries only the latest change of each watched player.
//!
//! **Appending** (`adapters/aws/src/dynamodb/inbox.rs`): the winner of two racing appends
//! is visible before the loser's retry can be, so a higher `seq` is never visible before
//! a lower one of the same epoch: seq order is visibility order, which is what a cursor
//! needs (a message written late by a slow writer cannot hide behind a cursor that has
//! passed it, because it cannot have a lower seq than something already visible).
//!
//! **Live** (`functions/on-message-inserted`). The table's stream delivers each INSERT;
//! the event source mapping keeps the records of one partition key, one inbox, in order.
//! The consumer posts a message only if the player's current connection is *live* (it
//! completed the hand-over below: `liveConnectionId = connectionId`, status `online`) and
//! the message's `seq` is above `liveFrom`. A connection that has not sent `resume` gets
//! nothing posted, so it can never be mistaken for gone while it is still opening (API
//! Gateway answers 410 to a post until `$connect` has returned).
//!
//! **Replay and hand-over** (`functions/resume`). A `resume` reads the player's item (is
//! this socket the current one?), then the inbox newest-first down to the cursor, posts
//! every frame after the cursor in seq order, and then, in one `TransactWriteItems`:
//!
//! - sets `liveConnectionId` to this connection and `liveFrom` to the head the replay
//!   reached (and `ackedSeq`), conditional on this connection still being the player's
//!   current online one;
//! - checks that the inbox item at `head + 1` does not exist;
//! - checks that the epoch item is the one the replay saw.
//!
//! If the transaction commits, every message appended later has a higher seq and is
//! appended after the hand-over, so the stream consumer, which reads the player's item
//! after the message is visible, sees the connection live and posts it; every message at
//! or below the head was in the replay. If a message arrived meanwhile, the check fails:
//! `resume` replays from the head it had and tries again (up to 10 times, then
//! `unavailable`: send `resume` again). If the connection is no longer current, it is
//! told (`session_replaced` or `disconnected`) and closed.
//!
//! The ack is the route's reply, sent only once the hand-over committed. So an ack
//! always means "you are live": a client that got one has everything up to `cursor` and
//! will get the rest pushed. Were the ack sent first, a hand-over that then failed (the
//! store went away mid-resume) would leave an acknowledged socket that silently receives
//! nothing; instead the client gets `unavailable` and sends `resume` again. Because the
//! replay is posted before the hand-over and live posts start only after it, a socket
//! receives its frames in seq order: the client's cursor is simply the last seq it
//! processed.
//!
//! **Without a cursor** (clients of protocol v1, or one that lost its state). A `resume`
//! without `cursor` replays what the server cannot tell was processed: the messages
//! after the player's `ackedSeq` (the last cursor a client reported, on `resume` or
//! `heartbeat`, or the head a previous cursor-less replay reached) that were created no
//! earlier than 10 seconds before the old connection's last sign of life
//! (`previousLastSeen`). On a connection that is already live it replays nothing
//! (everything since reached this very socket). Frames the old socket did receive after
//! that point come again: the client ignores a `seq` (or a `messageId`) it has already
//! handled. Heartbeats may carry `cursor` too: the server remembers it as `ackedSeq`, in
//! the same write, so that a client that restarts without its state resumes from there.
//!
//! **One connection's delivery state**, as the stream consumer sees it:
//!
//! ```text
//! [*]    --> opened  $connect accepted, upgrade done (nothing posted; new items wait)
//! opened --> live    resume replays after the cursor, then the hand-over commits
//! opened --> opened  hand-over refused by a newer inbox item: replay again
//! live   --> gone    closed, replaced, swept, or found gone (410)
//! opened --> gone    closed before resume
//! ```
//!
//! Live: every new inbox item above `liveFrom` is posted as it is appended. Gone: posts
//! answer 410; a new connection starts at opened again.
//!
//! **Cost** (per message, DynamoDB): one consistent Query and one conditional write per
//! recipient to append (an inbox's first message: one two-item transaction); the stream
//! consumer reads players in batches of 100 and writes nothing; expiry by TTL is free. A
//! `resume` is one GetItem, one Query (two or more when more than 10 frames wait) and one
//! transaction of three items. Round trips are measured in BENCHMARKS.md.
//!
//! **What it does not cover.** A frame that reaches no client within its TTL is gone (a
//! player away for longer than `MESSAGE_TTL_SECONDS` misses what expired meanwhile; the
//! `cursor` in the ack tells the client where the inbox now is). A `sendMessage`
//! answered `unavailable` may have reached some recipients and not others: retrying it
//! may deliver it twice to those (with different ids).

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
    /// A friend relation's changes (`crate::friends`).
    Friend,
    /// A `disconnected_by_server` frame from the backend API: whoever delivers it to
    /// the connection it names closes that connection next; a replay to any other
    /// connection skips it (`functions/backend-api/src/players.rs`).
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
            Self::Friend => "friend",
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
            "friend" => Some(Self::Friend),
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
            replay_until_secs: None,
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
    /// When the store may delete it (DynamoDB TTL, epoch seconds): its own TTL, or later
    /// when the store keeps it longer (see [`StoredMessage::kept_until`]).
    pub expire_at_secs: i64,
    /// When it stops being delivered, if that is before `expire_at_secs`: its own TTL,
    /// once the store keeps it longer.
    pub replay_until_secs: Option<i64>,
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
        self.replay_until_secs
            .unwrap_or(self.expire_at_secs)
            .saturating_mul(1000)
            <= now
    }

    /// The message kept by the store until `floor` (epoch seconds) at least, still
    /// delivered only until its own TTL. A store whose items expire one by one in any
    /// order (DynamoDB's TTL) keeps each inbox item as long as the one before it, so
    /// that an inbox's newest item is the last to go: see [`MIN_KEPT_SECONDS`].
    pub fn kept_until(mut self, floor: i64) -> Self {
        if floor > self.expire_at_secs {
            self.replay_until_secs = Some(self.replay_until_secs.unwrap_or(self.expire_at_secs));
            self.expire_at_secs = floor;
        }
        self
    }
}

/// How long a store whose items expire one by one keeps every inbox item at least
/// (a day), whatever its own TTL: presence frames are delivered for 60 s, but an inbox
/// whose newest item has expired starts a new epoch on its next append (a two-item
/// transaction, not a put, because the seqs above it may have been deleted and must not
/// be handed out again), and a watcher's inbox often holds only presence frames.
pub const MIN_KEPT_SECONDS: i64 = 86_400;

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
