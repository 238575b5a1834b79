//! The console's feed: what went through the stack (frames, connections, SNS, EventBridge,
//! stream batches), kept in a small ring for a page that opens later and broadcast to the
//! pages watching now.
//!
//! The taps are built to cost nothing worth measuring when no page is open: frames and
//! stream batches, what happens per message, are recorded only while someone watches
//! (one relaxed atomic read otherwise: not the broadcast's receiver count, which takes
//! the channel's lock); the rest (connects, disconnects, placement and presence events)
//! is recorded always, one small allocation and a short lock each.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;

use crate::gateway::{ConnectionTap, FrameDirection};

/// Events kept for a page that opens later.
pub const RECENT: usize = 500;
/// Longest frame text kept in an event (the rest is cut, with a mark).
pub const MAX_DETAIL_CHARS: usize = 2_000;
/// What the sweeper posts to a zombie before closing it (the frame's `type` comes first).
const ZOMBIE_FRAME_PREFIX: &str = r#"{"type":"disconnected","reason":"heartbeat_timeout""#;

/// What an event is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum FeedKind {
    /// A client's frame, as the gateway received it.
    FrameIn,
    /// A frame the gateway wrote to a client (a reply or an `@connections` post).
    FrameOut,
    Connected,
    Disconnected,
    /// A GameLift placement event, as the SNS topic delivered it to `on-placement-event`.
    Sns,
    /// A presence event on the bus, as the EventBridge rule routes it.
    EventBridge,
    /// An `on-message-inserted` invocation with a batch of the Messages stream.
    Stream,
    /// Something done from the console (a dropped connection, a fault).
    Console,
    /// A game server on the server SDK 5 WebSocket: its frames, the answers and pushes,
    /// refused upgrades (`local::gamelift_sdk`).
    GameServer,
}

/// One entry of the feed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FeedEvent {
    /// Increasing, from 1: a page that lost events sees a gap.
    pub id: u64,
    /// Epoch milliseconds.
    pub at: i64,
    pub kind: FeedKind,
    /// The players it is about (a stream batch may name several).
    pub player_ids: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub connection_id: Option<String>,
    /// One line for the list.
    pub summary: String,
    /// The frame or event JSON, cut at [`MAX_DETAIL_CHARS`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

impl FeedEvent {
    /// A frame out that tells a player what the stores already hold (a placement's or a
    /// ticket's result, a party change: written in the same transaction as the message
    /// that became this frame), so a state read now shows it too.
    pub fn announces_stored_change(&self) -> bool {
        self.kind == FeedKind::FrameOut
            && self.detail.as_deref().is_some_and(|text| {
                ["placement", "matchmaking", "party"]
                    .iter()
                    .any(|kind| text.starts_with(&format!(r#"{{"type":"{kind}""#)))
            })
    }
}

/// An event before it is numbered and stamped.
#[derive(Clone, Debug, Default)]
pub struct Entry {
    pub player_ids: Vec<String>,
    pub connection_id: Option<String>,
    pub summary: String,
    pub detail: Option<String>,
}

/// The taps' end: the feed, and what the console learns from it (the players seen since
/// start, the zombies the sweeper closed).
pub struct Hub {
    live: broadcast::Sender<Arc<FeedEvent>>,
    /// Open [`Watch`]es: pages that want frames.
    watchers: Arc<AtomicUsize>,
    recent: Mutex<VecDeque<Arc<FeedEvent>>>,
    next_id: AtomicU64,
    /// Player → when they last connected (a counter: the order of connects).
    players: Mutex<HashMap<String, u64>>,
    connects: AtomicU64,
    zombies: Mutex<HashSet<String>>,
    /// Matchmaking tickets, as the FlexMatch events describe them.
    pub tickets: super::tickets::Tickets,
    /// The metrics, from the handlers' EMF lines.
    pub metrics: Arc<super::metrics::Board>,
}

impl Default for Hub {
    fn default() -> Self {
        Self::new()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // Every change under these locks is one insert or remove: a panic cannot leave
    // them half-done.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Hub {
    pub fn new() -> Self {
        let (live, _) = broadcast::channel(1024);
        Self {
            live,
            watchers: Arc::new(AtomicUsize::new(0)),
            recent: Mutex::new(VecDeque::with_capacity(RECENT)),
            next_id: AtomicU64::new(1),
            players: Mutex::new(HashMap::new()),
            connects: AtomicU64::new(0),
            zombies: Mutex::new(HashSet::new()),
            tickets: super::tickets::Tickets::default(),
            metrics: Arc::default(),
        }
    }

    /// True while a console page is open (frames are recorded only then).
    pub fn watching(&self) -> bool {
        self.watchers.load(Ordering::Relaxed) > 0
    }

    /// Live events from now on, for as long as the [`Watch`] lives.
    pub fn subscribe(&self) -> Watch {
        self.watchers.fetch_add(1, Ordering::Relaxed);
        Watch {
            events: self.live.subscribe(),
            watchers: self.watchers.clone(),
        }
    }

    /// The last [`RECENT`] events, oldest first.
    pub fn recent(&self) -> Vec<Arc<FeedEvent>> {
        lock(&self.recent).iter().cloned().collect()
    }

    /// How many players connected since the stack started.
    pub fn player_count(&self) -> usize {
        lock(&self.players).len()
    }

    /// The `limit` players who connected last (of everyone since the stack started),
    /// sorted by id, and how many there are in all.
    pub fn players(&self, limit: usize) -> (Vec<String>, usize) {
        let players = lock(&self.players);
        let total = players.len();
        let mut recent: Vec<(&String, &u64)> = players.iter().collect();
        if recent.len() > limit {
            recent.select_nth_unstable_by(limit, |a, b| b.1.cmp(a.1));
            recent.truncate(limit);
        }
        let mut ids: Vec<String> = recent.into_iter().map(|(id, _)| id.clone()).collect();
        ids.sort_unstable();
        (ids, total)
    }

    /// True when the sweeper closed this player's last connection as a zombie.
    pub fn zombie_swept(&self, player_id: &str) -> bool {
        lock(&self.zombies).contains(player_id)
    }

    /// Records an event of `kind` at `at`.
    pub fn record(&self, kind: FeedKind, at: i64, entry: Entry) {
        let event = Arc::new(FeedEvent {
            id: self.next_id.fetch_add(1, Ordering::Relaxed),
            at,
            kind,
            player_ids: entry.player_ids,
            connection_id: entry.connection_id,
            summary: entry.summary,
            detail: entry.detail.map(cut),
        });
        {
            let mut recent = lock(&self.recent);
            if recent.len() == RECENT {
                recent.pop_front();
            }
            recent.push_back(event.clone());
        }
        // Sending takes the channel's lock even with no receiver: only when a page is
        // open (the ring has the event for a page that opens later).
        if self.watching() {
            let _ = self.live.send(event);
        }
    }

    /// A connection opened (after `$connect` accepted it).
    pub fn connected(&self, at: i64, player_id: Option<&str>, connection_id: &str) {
        if let Some(player) = player_id {
            let order = self.connects.fetch_add(1, Ordering::Relaxed);
            lock(&self.players).insert(player.to_owned(), order);
            lock(&self.zombies).remove(player);
        }
        self.record(
            FeedKind::Connected,
            at,
            Entry {
                player_ids: player_id.map(str::to_owned).into_iter().collect(),
                connection_id: Some(connection_id.to_owned()),
                summary: format!("{} connected", player_id.unwrap_or("?")),
                detail: None,
            },
        );
    }

    /// A connection closed with `code` (1006: abruptly).
    pub fn disconnected(
        &self,
        at: i64,
        player_id: Option<&str>,
        connection_id: &str,
        code: u16,
        reason: &str,
    ) {
        self.record(
            FeedKind::Disconnected,
            at,
            Entry {
                player_ids: player_id.map(str::to_owned).into_iter().collect(),
                connection_id: Some(connection_id.to_owned()),
                summary: format!(
                    "{} disconnected ({code}{}{reason})",
                    player_id.unwrap_or("?"),
                    if reason.is_empty() { "" } else { " " }
                ),
                detail: None,
            },
        );
    }

    /// A frame in either direction; recorded only while someone watches, except the
    /// sweeper's zombie notice, which marks the player (cheap: a prefix compare).
    pub fn frame(
        &self,
        kind: FeedKind,
        at: impl FnOnce() -> i64,
        player_id: Option<&str>,
        connection_id: &str,
        text: &str,
    ) {
        if kind == FeedKind::FrameOut
            && text.starts_with(ZOMBIE_FRAME_PREFIX)
            && let Some(player) = player_id
        {
            lock(&self.zombies).insert(player.to_owned());
        }
        if !self.watching() {
            return;
        }
        let arrow = if kind == FeedKind::FrameIn {
            "→"
        } else {
            "←"
        };
        self.record(
            kind,
            at(),
            Entry {
                player_ids: player_id.map(str::to_owned).into_iter().collect(),
                connection_id: Some(connection_id.to_owned()),
                summary: format!("{arrow} {} {}", player_id.unwrap_or("?"), frame_label(text)),
                detail: Some(text.to_owned()),
            },
        );
    }
}

/// A page's subscription to the feed: frames are recorded while one is open.
pub struct Watch {
    pub events: broadcast::Receiver<Arc<FeedEvent>>,
    watchers: Arc<AtomicUsize>,
}

impl Drop for Watch {
    fn drop(&mut self) {
        self.watchers.fetch_sub(1, Ordering::Relaxed);
    }
}

/// `route X` or `type X` of a frame, for the summary line. A scan, not a parse (frames
/// go by at the stack's full rate while a page watches): best effort, the first
/// `"name":"value"` of each field.
fn frame_label(text: &str) -> String {
    let field = |name: &str| string_field(text, name);
    // A server frame's `type` comes first; a `type` further in is a client's payload.
    let kind = text
        .strip_prefix(r#"{"type":""#)
        .and_then(|rest| rest.split_once('"'))
        .map(|(kind, _)| kind);
    match (kind, field("route")) {
        (Some("message"), _) => format!("message from {}", field("from").unwrap_or("?")),
        (Some(kind @ ("placement" | "presence")), _) => {
            format!("{kind} {}", field("status").unwrap_or("?"))
        }
        (Some("party"), _) => format!("party {}", field("change").unwrap_or("?")),
        (Some(kind), Some(route)) => format!("{kind} ({route})"),
        (Some(kind), None) => kind.to_owned(),
        (None, Some(route)) => format!("route {route}"),
        (None, None) => "frame".to_owned(),
    }
}

/// The text of the first `"name":"..."` in `text` (up to the next quote).
fn string_field<'a>(text: &'a str, name: &str) -> Option<&'a str> {
    let key = format!("\"{name}\":\"");
    let start = text.find(&key)? + key.len();
    let rest = &text[start..];
    rest.find('"').map(|end| &rest[..end])
}

fn cut(mut text: String) -> String {
    if text.chars().count() > MAX_DETAIL_CHARS {
        let end = text
            .char_indices()
            .nth(MAX_DETAIL_CHARS)
            .map_or(text.len(), |(i, _)| i);
        text.truncate(end);
        text.push('…');
    }
    text
}

/// The gateway's reports, recorded as the feed's own.
impl ConnectionTap for Hub {
    fn connected(&self, at: i64, player_id: Option<&str>, connection_id: &str) {
        Hub::connected(self, at, player_id, connection_id);
    }

    fn frame(
        &self,
        direction: FrameDirection,
        at: &dyn Fn() -> i64,
        player_id: Option<&str>,
        connection_id: &str,
        text: &str,
    ) {
        let kind = match direction {
            FrameDirection::In => FeedKind::FrameIn,
            FrameDirection::Out => FeedKind::FrameOut,
        };
        Hub::frame(self, kind, at, player_id, connection_id, text);
    }

    fn disconnected(
        &self,
        at: i64,
        player_id: Option<&str>,
        connection_id: &str,
        code: u16,
        reason: &str,
    ) {
        Hub::disconnected(self, at, player_id, connection_id, code, reason);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_recorded_only_while_a_page_watches() {
        // Given a hub nobody watches
        let hub = Hub::new();
        hub.frame(
            FeedKind::FrameIn,
            || 1,
            Some("alice"),
            "c1",
            r#"{"route":"resume"}"#,
        );
        assert!(hub.recent().is_empty());

        // When a page subscribes
        let mut live = hub.subscribe();
        hub.frame(
            FeedKind::FrameIn,
            || 2,
            Some("alice"),
            "c1",
            r#"{"route":"resume"}"#,
        );

        // Then the frame is kept and pushed, with a summary line
        let event = live.events.try_recv().unwrap();
        assert_eq!(event.summary, "→ alice route resume");
        assert_eq!(event.player_ids, vec!["alice".to_owned()]);
        assert_eq!(hub.recent().len(), 1);

        // And once the page is gone, frames are no longer recorded
        drop(live);
        hub.frame(FeedKind::FrameIn, || 3, Some("alice"), "c1", "{}");
        assert_eq!(hub.recent().len(), 1);
    }

    #[test]
    fn the_ring_keeps_the_last_events_and_ids_keep_counting() {
        let hub = Hub::new();
        for at in 0..(RECENT as i64 + 10) {
            hub.connected(at, Some("p"), "c");
        }
        let recent = hub.recent();
        assert_eq!(recent.len(), RECENT);
        assert_eq!(recent[0].id, 11);
        assert_eq!(hub.players(10), (vec!["p".to_owned()], 1));
    }

    #[test]
    fn the_players_listed_are_those_who_connected_last() {
        let hub = Hub::new();
        for (at, player) in ["d", "a", "c", "b", "a"].into_iter().enumerate() {
            hub.connected(at as i64, Some(player), "c");
        }
        // a (again), b and c connected last; d first
        assert_eq!(
            hub.players(3),
            (vec!["a".to_owned(), "b".to_owned(), "c".to_owned()], 4)
        );
    }

    #[test]
    fn the_sweepers_notice_marks_a_zombie_until_the_player_connects_again() {
        let hub = Hub::new();
        hub.frame(
            FeedKind::FrameOut,
            || 1,
            Some("bob"),
            "c1",
            r#"{"type":"disconnected","reason":"heartbeat_timeout"}"#,
        );
        assert!(hub.zombie_swept("bob"));
        hub.connected(2, Some("bob"), "c2");
        assert!(!hub.zombie_swept("bob"));
    }

    #[test]
    fn summaries_name_the_route_or_the_type_and_what_matters_of_it() {
        assert_eq!(
            frame_label(r#"{"route":"sendMessage","body":{"type":"x"}}"#),
            "route sendMessage"
        );
        assert_eq!(
            frame_label(r#"{"type":"ack","route":"resume","requestId":"1"}"#),
            "ack (resume)"
        );
        assert_eq!(
            frame_label(r#"{"type":"message","messageId":"m","from":"carol","message":{}}"#),
            "message from carol"
        );
        assert_eq!(
            frame_label(r#"{"type":"placement","placementId":"p","status":"FULFILLED"}"#),
            "placement FULFILLED"
        );
        assert_eq!(frame_label("hello"), "frame");
    }

    #[test]
    fn long_details_are_cut() {
        let hub = Hub::new();
        let _live = hub.subscribe();
        let text = format!(r#"{{"route":"x","body":"{}"}}"#, "é".repeat(3_000));
        hub.frame(FeedKind::FrameIn, || 1, None, "c", &text);
        let detail = hub.recent()[0].detail.clone().unwrap();
        assert_eq!(detail.chars().count(), MAX_DETAIL_CHARS + 1);
        assert!(detail.ends_with('…'));
    }
}
