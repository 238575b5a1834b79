//! Players: the record of a player's connection, presence and game state, and the
//! decisions made from it (a connect's outcome, a connection's liveness). The ports that
//! read and write it, and the item's attributes, are `crate::ports::players`.
//!
//! # Connection and presence
//!
//! Presence is tracked per player, not per connection. Watchers see `online` for
//! `online` and for `disconnected` within its grace period, so a quick reconnect is not
//! a blink; they are told `offline` only when the sweeper marks the player offline.
//!
//! ```text
//! [*]          --> online        $connect, new session, publishes presence.connected
//! online       --> online        heartbeat pushes sweepAt
//! online       --> online        ping: sweepAt passed, socket active within the timeout
//!                                (the sweeper asks GetConnection), nothing written
//! online       --> online        takeover by a $connect elsewhere: the old socket gets
//!                                session_replaced and is closed
//! online       --> disconnected  $disconnect of the current connection, or a post finds
//!                                it gone (410)
//! disconnected --> online        $connect within the grace period: resumed, no event
//! disconnected --> online        $connect after the grace period but before the sweep:
//!                                new session
//! disconnected --> offline       sweeper, grace period over, publishes presence.disconnected
//! online       --> offline       sweeper, heartbeat deadline passed and no frame within the
//!                                timeout: zombie socket closed, publishes presence.disconnected
//! offline      --> online        $connect, new session, publishes presence.connected
//! ```
//!
//! - Every transition is one conditional write on the player's item: `$disconnect` and
//!   `heartbeat` only act for the current online connection; the sweeper only if
//!   `sweepAt` is still past.
//! - A player's activity (`setActivity`, `crate::activity`) lives as long as their presence:
//!   the sweeper's write that takes them offline removes it (a dropped connection within
//!   its grace period, still `online` to watchers, keeps it), and their
//!   `presence.disconnected` frame carries none.
//! - `$disconnect` is best effort on API Gateway; the sweeper (every minute) is what
//!   makes presence converge. A zombie (online, no heartbeat and no frame at all within
//!   the timeout) is closed by the sweeper; its later `$disconnect` finds the player
//!   offline and changes nothing.
//! - A `$connect` made earlier than the one holding the record (`connectedAt` older: two
//!   sockets opened at the same moment) changes nothing and is accepted, never live: its
//!   first frame (`resume`) is answered with `session_replaced` and the socket is closed
//!   (a `heartbeat` is answered `session_replaced` too, but the socket is left to the
//!   client: the heartbeat route, `local/src/integration/mod.rs`). A socket that never
//!   speaks is closed by API Gateway's idle timeout.
//!
//! # Presence liveness
//!
//! What keeps a player online is a setting, `PRESENCE_LIVENESS`, and `resume`'s ack tells
//! clients what to send, and how often, as `keepAlive` (`protocol/src/keep_alive.rs`):
//! two frames per `HEARTBEAT_TIMEOUT_SECONDS` and one per API Gateway idle timeout, each
//! with a tenth of it to spare (40 s for the default 90 s timeout; at most 540 s). So a
//! stack can change mode without shipping new clients.
//!
//! - `heartbeat` (the default): the timer sends `heartbeat` (with the cursor) every
//!   interval; only the heartbeat's write moves `sweepAt`, and the sweeper trusts
//!   `sweepAt` alone. It rests only on what this stack writes itself.
//! - `connection-activity`: the timer sends `{"route":"ping"}`, the cheapest frame there
//!   is (a one-way route with a `MOCK` integration, `PingIntegration` in template.yaml:
//!   no function, no write, no answer; one inbound message), or a `heartbeat` with the
//!   cursor when the client handled a pushed frame newer than the cursor it last
//!   reported. What a ping leaves behind is API Gateway's own record of the socket,
//!   GetConnection's `lastActiveAt`, which the sweeper reads when an online player's
//!   `sweepAt` has passed: active within `HEARTBEAT_TIMEOUT_SECONDS`, the player stays
//!   online and nothing is written (the next sweep asks again); older than that, or gone
//!   (410), swept as before (conditional write, socket told `heartbeat_timeout` and
//!   closed, presence event); the call fails otherwise (throttled, 5xx), the player is
//!   left for the next sweep and the run counts a failure (its alarm fires): a player is
//!   never taken offline on an error.
//!
//!   It rests on how `lastActiveAt` moves, which AWS does not document: if frames API
//!   Gateway sends counted, a silently dead socket that keeps receiving pushes (party
//!   presence, chat) would look alive until a post to it failed or the 2-hour limit
//!   closed it. That is why it is not the default; `smoke --check-assumptions` tells on a
//!   deployment (docs/deploy.md, "What this stack assumes of AWS"), and the local stack
//!   can emulate either reading (`LAST_ACTIVE_COUNTS_SENT_FRAMES`; it counts client
//!   frames only by default). The sweeper is granted GET on `@connections` only in this
//!   mode.
//!
//! Either way a silent player goes offline within the timeout plus one sweep of its last
//! sign of life, and a client left to its timer never does (end to end in both modes:
//! `tests/suites/presence.rs`, `tests/suites/rust_client.rs`, the TypeScript and C#
//! clients' suites). `heartbeat` keeps all its answers (ack with `requestId`,
//! `session_replaced`, `disconnected`). Scale in `connection-activity`: one GetConnection
//! per pinging online player per minute (1,700 calls a second at 100,000 players), at
//! most 32 in flight; API Gateway documents no separate quota for the management API's
//! reads. Cost of each mode: docs/cost.md.

use crate::activity::Activity;
use crate::domain::{ConnectionId, EpochMillis, GameSession, PlayerId, PresenceStatus, Seq};
use crate::matchmaking::Attributes;
use crate::party::PartyId;
use crate::pending::Pending;

/// The connection record a `$connect` writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewConnection {
    pub player_id: PlayerId,
    pub connection_id: ConnectionId,
    /// Management API base URL for this connection (`https://{domain}/{stage}`).
    pub endpoint: String,
    /// API Gateway's `connectedAt`: orders racing connects of the same player.
    pub connected_at: EpochMillis,
    pub now: EpochMillis,
    /// `sweepAt` while online: no heartbeat by then and the sweeper takes the player offline.
    pub heartbeat_deadline: EpochMillis,
    pub sweep_shard: u32,
    /// Retention (DynamoDB TTL, epoch seconds).
    pub expire_at_secs: i64,
}

/// What a `$connect` found, decided from the record it replaced
/// (the module's docs: connection and presence).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConnectOutcome {
    /// No previous record, an offline one, or a disconnected one past its grace period:
    /// a new session (presence.connected).
    New,
    /// The previous connection dropped within the grace period: no presence events.
    Resumed,
    /// The player was online elsewhere: tell that socket and close it.
    TakeOver {
        old_connection: ConnectionId,
        old_endpoint: String,
    },
    /// A connection made later than this one already holds the record; this one lost
    /// the race and must be refused.
    Superseded,
}

impl ConnectOutcome {
    /// The decision both adapters share, from the item as it was before the write.
    pub fn decide(previous: Option<&PlayerRecord>, new: &NewConnection) -> Self {
        let Some(previous) = previous else {
            return Self::New;
        };
        match previous.status {
            PresenceStatus::Online if previous.connection_id != new.connection_id => {
                Self::TakeOver {
                    old_connection: previous.connection_id.clone(),
                    old_endpoint: previous.endpoint.clone(),
                }
            }
            PresenceStatus::Online => Self::Resumed,
            PresenceStatus::Disconnected if previous.within_grace(new.connected_at) => {
                Self::Resumed
            }
            PresenceStatus::Disconnected | PresenceStatus::Offline => Self::New,
        }
    }
}

/// A player's item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerRecord {
    pub player_id: PlayerId,
    pub connection_id: ConnectionId,
    pub endpoint: String,
    pub connected_at: EpochMillis,
    pub last_seen: EpochMillis,
    pub status: PresenceStatus,
    /// Present only while online or disconnected (as is `sweepShard`, which puts the
    /// player in the sparse `BySweepShard` index): the heartbeat deadline, or the end of
    /// the grace period.
    pub sweep_at: Option<EpochMillis>,
    /// What the record this connection replaced said, copied by the same `$connect`
    /// write: `resume` tells a resumed session and a takeover from them, closes a
    /// replaced connection that was still opening, and (for a client that reports no
    /// cursor) replays from the old connection's last sign of life.
    pub previous_status: Option<PresenceStatus>,
    pub previous_sweep_at: Option<EpochMillis>,
    pub previous_connection_id: Option<ConnectionId>,
    pub previous_endpoint: Option<String>,
    pub previous_last_seen: Option<EpochMillis>,
    /// The connection messages are posted to live: set by `resume`'s hand-over, so it
    /// is `connection_id` only once the current connection has replayed its inbox.
    pub live_connection_id: Option<ConnectionId>,
    /// The inbox head that hand-over's replay reached: live delivery posts what comes
    /// after it.
    pub live_from: Option<Seq>,
    /// The last cursor the player's client reported (`resume`, `heartbeat`), or what a
    /// replay to a client without one posted: where the next cursor-less `resume`
    /// replays from.
    pub acked_seq: Option<Seq>,
    /// The request (a queue placement or a matchmaking ticket) the player is waiting
    /// for: at most one at a time. Game state like this survives reconnects (`$connect`
    /// writes only connection fields).
    pub pending: Option<Pending>,
    /// The request the player made last, pending or ended (`cancelPlacement`'s
    /// default once nothing is pending).
    pub last_request: Option<Pending>,
    /// The player's seat in their last fulfilled (or rejoined) game session.
    pub game_session: Option<GameSession>,
    /// The game session the backend reported over (ended, or the player left it): its
    /// seat was cleared, and `rejoinSession` answers `session_ended` without asking
    /// GameLift. Stale once a new seat is set (the seat is read first).
    pub ended_game_session: Option<String>,
    /// The party the player is in: written with the party's own changes, in the same
    /// transaction, so it always agrees with the party's members.
    pub party_id: Option<PartyId>,
    /// Region → milliseconds, as the client last reported them (`setPlacementLatencies`):
    /// what a party placement asks GameLift with for this member.
    pub placement_latencies: Vec<(String, u32)>,
    /// The player's FlexMatch attributes, as they last set them
    /// (`setMatchmakingAttributes`): what a party's ticket carries for this member.
    pub matchmaking_attributes: Attributes,
    /// What the player is doing (`setActivity`), set only over their online connection
    /// and removed by the sweeper's write that takes them offline
    /// ([`PlayerRecord::watched_activity`] is what others see of it).
    pub activity: Option<Activity>,
}

impl PlayerRecord {
    /// What watchers (friends, presence subscribers, the backend API) see at `now`:
    /// online while connected or within the reconnect grace period (a quick reconnect is
    /// not a blink), offline otherwise.
    pub fn watched_online(&self, now: EpochMillis) -> bool {
        self.status == PresenceStatus::Online || self.within_grace(now)
    }

    /// The activity watchers see at `now`: the player's, while they are watched online.
    pub fn watched_activity(&self, now: EpochMillis) -> Option<&Activity> {
        self.activity.as_ref().filter(|_| self.watched_online(now))
    }

    /// Its socket, while online.
    pub fn online_connection(&self) -> Option<OnlineConnection> {
        (self.status == PresenceStatus::Online).then(|| OnlineConnection {
            connection_id: self.connection_id.clone(),
            endpoint: self.endpoint.clone(),
        })
    }

    /// A disconnected record whose grace period has not ended at `at`.
    pub fn within_grace(&self, at: EpochMillis) -> bool {
        self.status == PresenceStatus::Disconnected && self.sweep_at.is_some_and(|end| at <= end)
    }

    /// True when messages are posted to the current connection as they arrive: it is
    /// online and has completed `resume`'s hand-over.
    pub fn is_live(&self) -> bool {
        self.status == PresenceStatus::Online
            && self.live_connection_id.as_ref() == Some(&self.connection_id)
    }

    /// Whether live delivery posts the message at `seq` (the replay posted up to
    /// `live_from`).
    pub fn delivers_live(&self, seq: Seq) -> bool {
        self.is_live() && self.live_from.is_none_or(|from| seq > from)
    }

    /// True when the current connection took over one that was still online (the
    /// player connected elsewhere without closing the first socket).
    pub fn took_over(&self) -> bool {
        self.previous_status == Some(PresenceStatus::Online)
            && self
                .previous_connection_id
                .as_ref()
                .is_some_and(|old| *old != self.connection_id)
    }

    /// True when the current connection replaced a disconnected one within its grace
    /// period (the `resumed` field of the `resume` ack).
    pub fn resumed(&self) -> bool {
        self.previous_status == Some(PresenceStatus::Disconnected)
            && self
                .previous_sweep_at
                .is_some_and(|end| self.connected_at <= end)
    }
}

/// Whether a connection is still the player's current online one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Liveness {
    /// It is: the write it asked for was made.
    Current,
    /// The player connected again elsewhere: this socket should be told and closed.
    Replaced,
    /// The connection was marked disconnected or swept offline (or the player has no
    /// record): this socket should be closed.
    Gone,
}

impl Liveness {
    /// What a record (or its absence) says about `connection`.
    pub fn of(record: Option<&PlayerRecord>, connection: &ConnectionId) -> Self {
        match record {
            Some(r) if r.connection_id != *connection => Self::Replaced,
            Some(r) if r.status == PresenceStatus::Online => Self::Current,
            _ => Self::Gone,
        }
    }
}

/// One player the sweeper may need to act on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExpiredPlayer {
    pub player_id: PlayerId,
    pub sweep_at: EpochMillis,
    /// While `online`: the socket the deadline is about, which the sweeper asks API
    /// Gateway about (a `ping` keeps it active without moving `sweepAt`). `None` for a
    /// disconnected player, whose deadline is the end of the grace period.
    pub online_connection: Option<OnlineConnection>,
}

/// The socket of an online player, as the sweeper read it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OnlineConnection {
    pub connection_id: ConnectionId,
    pub endpoint: String,
}

/// One page of a shard's tracked players, with those among them whose deadline has
/// passed; pass `next` back to continue.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExpiredPage {
    pub players: Vec<ExpiredPlayer>,
    /// Tracked players the page read (expired or not), and of those the online ones:
    /// the sweeper's counts of who is online, from the read it makes anyway.
    pub examined: usize,
    pub online: usize,
    /// The last player the page read: where the next page starts.
    pub next: Option<PlayerId>,
}
