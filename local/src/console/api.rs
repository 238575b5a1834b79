//! `GET /console/api/...`: the sections as JSON, the feed, and the live stream the page
//! runs on (`events`, Server-Sent Events). docs/console.md documents each.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::Stream;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::{broadcast, mpsc};
use tokio::time::{Instant, MissedTickBehavior};

use super::feed::{FeedEvent, FeedKind, Watch};
use super::{Console, state};

/// How often the page gets a fresh state when nothing happens (ages, idle times and
/// grace periods move on their own): the eye needs no more.
const STATE_EVERY: Duration = Duration::from_secs(1);
/// After an event, the state follows this soon (several events, one state).
const STATE_AFTER_EVENT: Duration = Duration::from_millis(150);
/// Feed events wait at most this long to go out together.
const FEED_EVERY: Duration = Duration::from_millis(50);
/// Most feed events a `GET /console/api/feed` returns.
const MAX_FEED_LIMIT: usize = super::feed::RECENT;

/// A refused console API request: its status, and the body `{"error": code, "message"}`.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    code: &'static str,
    message: String,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (
            self.status,
            Json(json!({ "error": self.code, "message": self.message })),
        )
            .into_response()
    }
}

pub fn error(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
    ApiError {
        status,
        code,
        message: message.into(),
    }
}

/// `GET /console/api/state`: every section at once.
pub async fn everything(State(console): State<Arc<Console>>) -> Json<Value> {
    Json(state::everything(&console).await)
}

/// `GET /console/api/{section}`: one section (players, connections, placements, fleet,
/// parties).
pub async fn section(State(console): State<Arc<Console>>, Path(name): Path<String>) -> Response {
    let now = console.clock.now_millis();
    match state::section(&console, &name, now).await {
        Some(value) => Json(value).into_response(),
        None => error(
            StatusCode::NOT_FOUND,
            "not_found",
            format!(
                "no console section {name:?}; the sections are: state, feed, events, {}",
                state::SECTIONS.join(", ")
            ),
        )
        .into_response(),
    }
}

#[derive(Debug, Deserialize)]
pub struct FeedQuery {
    /// Only events about this player.
    player: Option<String>,
    /// Only events of this kind (`frameIn`, `frameOut`, `connected`, ...).
    kind: Option<String>,
    /// The newest this many (default and most: 500).
    limit: Option<usize>,
}

/// `GET /console/api/feed?player=&kind=&limit=`: recent events, oldest first.
pub async fn feed(State(console): State<Arc<Console>>, Query(query): Query<FeedQuery>) -> Response {
    let kind = match query.kind.as_deref().map(parse_kind).transpose() {
        Ok(kind) => kind,
        Err(refused) => return refused.into_response(),
    };
    let limit = query.limit.unwrap_or(MAX_FEED_LIMIT).min(MAX_FEED_LIMIT);
    let mut events: Vec<Arc<FeedEvent>> = console
        .hub
        .recent()
        .into_iter()
        .filter(|e| kind.is_none_or(|k| e.kind == k))
        .filter(|e| {
            query
                .player
                .as_deref()
                .is_none_or(|p| e.player_ids.iter().any(|id| id == p))
        })
        .collect();
    let skip = events.len().saturating_sub(limit);
    events.drain(..skip);
    Json(events).into_response()
}

fn parse_kind(raw: &str) -> Result<FeedKind, ApiError> {
    serde_json::from_value(Value::from(raw)).map_err(|_| {
        error(
            StatusCode::BAD_REQUEST,
            "bad_request",
            format!(
                "kind {raw:?} is not one of frameIn, frameOut, connected, disconnected, sns, \
                 eventBridge, stream, console, gameServer"
            ),
        )
    })
}

fn sse_event(name: &str, data: &impl serde::Serialize) -> Option<Event> {
    Event::default().event(name).json_data(data).ok()
}

/// `GET /console/api/events`: Server-Sent Events. First `feed` (the recent events) and
/// `state` (every section); then new feed events within 50 ms, and `state` again
/// shortly after events and every second. A frame that announces what the stores
/// already hold (a placement's result, say) goes out at once, right after a fresh
/// `state`: the page never shows the frame before the row it changes. `lagged` says how
/// many events a slow page missed.
pub async fn events(
    State(console): State<Arc<Console>>,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let (tx, rx) = mpsc::channel::<Event>(64);
    // Subscribed before the recent events are read: nothing falls between (the page
    // drops the duplicates by id).
    let live = console.hub.subscribe();
    tokio::spawn(push(console, live, tx));
    let stream = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|event| (Ok(event), rx))
    });
    Sse::new(stream).keep_alive(KeepAlive::default())
}

/// Feeds one page until it goes away.
async fn push(console: Arc<Console>, mut live: Watch, tx: mpsc::Sender<Event>) {
    let send = |event: Option<Event>| {
        let tx = tx.clone();
        async move {
            match event {
                Some(event) => tx.send(event).await.is_ok(),
                None => true,
            }
        }
    };
    if !send(sse_event("feed", &console.hub.recent())).await {
        return;
    }
    let mut tick = tokio::time::interval(STATE_EVERY);
    tick.set_missed_tick_behavior(MissedTickBehavior::Delay);
    let mut state_due: Option<Instant> = None;
    // Events go out in batches (at most every FEED_EVERY): under load, one chunk per
    // batch instead of one per frame.
    let mut batch: Vec<Arc<FeedEvent>> = Vec::new();
    let mut batch_due: Option<Instant> = None;
    // The batch holds a frame whose change the state must show first.
    let mut state_first = false;
    loop {
        let open = tokio::select! {
            () = tx.closed() => false,
            // The stream ends with the stack (the server waits for open responses).
            () = crate::gateway::shutting_down(console.shutdown.clone()) => false,
            received = live.events.recv() => match received {
                Ok(event) => {
                    state_due.get_or_insert_with(|| Instant::now() + STATE_AFTER_EVENT);
                    if event.announces_stored_change() {
                        state_first = true;
                        batch_due = Some(Instant::now());
                    }
                    batch_due.get_or_insert_with(|| Instant::now() + FEED_EVERY);
                    batch.push(event);
                    true
                }
                Err(broadcast::error::RecvError::Lagged(missed)) => {
                    send(sse_event("lagged", &json!({ "missed": missed }))).await
                }
                Err(broadcast::error::RecvError::Closed) => false,
            },
            () = tokio::time::sleep_until(batch_due.unwrap_or_else(Instant::now)), if batch_due.is_some() => {
                batch_due = None;
                let state_sent = !std::mem::take(&mut state_first) || {
                    state_due = None;
                    tick.reset();
                    send(sse_event("state", &state::everything(&console).await)).await
                };
                state_sent && send(sse_event("feed", &std::mem::take(&mut batch))).await
            }
            _ = tick.tick() => {
                state_due = None;
                send(sse_event("state", &state::everything(&console).await)).await
            }
            () = tokio::time::sleep_until(state_due.unwrap_or_else(Instant::now)), if state_due.is_some() => {
                state_due = None;
                tick.reset();
                send(sse_event("state", &state::everything(&console).await)).await
            }
        };
        if !open {
            return;
        }
    }
}
