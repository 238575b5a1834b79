//! `POST /console/api/...`: what the page does to the stack. Each takes a JSON body
//! (`{}` when it needs nothing), answers `{"ok": true, ...}` or the console's error
//! (`{"error", "message"}`: 400 bad_request, 403 forbidden, 404 not_found, 409 conflict),
//! and leaves a `console` event in the feed.
//!
//! Only for this machine: the stack listens on 127.0.0.1, and these refuse a request
//! that is not `Content-Type: application/json` or whose `Origin` is another site (so a
//! page elsewhere cannot post a form here).

use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::body::Bytes;
use axum::extract::{FromRequest, Path, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use shared::domain::PlacementId;
use shared::ports::GameLiftError;

use super::Console;
use super::api::{ApiError, error};
use super::feed::{Entry, FeedKind};
use crate::gamelift::Faults;

/// A console action's body, `T`: the extractor every action takes it through, so that
/// none reads a body `accept` has not checked.
pub struct Accepted<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for Accepted<T> {
    type Rejection = Response;

    async fn from_request(request: Request, state: &S) -> Result<Self, Response> {
        let headers = request.headers().clone();
        let body = Bytes::from_request(request, state)
            .await
            .map_err(IntoResponse::into_response)?;
        accept(&headers, &body)
            .map(Accepted)
            .map_err(IntoResponse::into_response)
    }
}

/// Refuses what is not a same-origin JSON request; else the body, parsed.
fn accept<T: DeserializeOwned>(headers: &HeaderMap, body: &Bytes) -> Result<T, ApiError> {
    let json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !json {
        return Err(error(
            StatusCode::BAD_REQUEST,
            "bad_request",
            "console actions take a JSON body (Content-Type: application/json); send {} when there is nothing to say",
        ));
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let host = headers.get(header::HOST).and_then(|v| v.to_str().ok());
        let same = origin
            .to_str()
            .ok()
            .and_then(|o| o.strip_prefix("http://"))
            .is_some_and(|o| Some(o) == host);
        if !same {
            return Err(error(
                StatusCode::FORBIDDEN,
                "forbidden",
                "console actions are taken only from the console's own page",
            ));
        }
    }
    let text = if body.is_empty() { &b"{}"[..] } else { body };
    serde_json::from_slice(text).map_err(|e| {
        error(
            StatusCode::BAD_REQUEST,
            "bad_request",
            format!("the body is not what this action takes: {e}"),
        )
    })
}

/// Nothing to say.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Empty {}

pub(super) fn done(
    console: &Console,
    players: Vec<String>,
    summary: String,
    extra: Value,
) -> Response {
    console.hub.record(
        FeedKind::Console,
        console.clock.now_millis(),
        Entry {
            player_ids: players,
            connection_id: None,
            summary: format!("console: {summary}"),
            detail: None,
        },
    );
    let mut body = json!({ "ok": true, "done": summary });
    if let (Some(body), Value::Object(extra)) = (body.as_object_mut(), extra) {
        body.extend(extra);
    }
    Json(body).into_response()
}

fn gamelift_error(err: &GameLiftError) -> ApiError {
    match err {
        GameLiftError::NotFound { message } => {
            error(StatusCode::NOT_FOUND, "not_found", message.clone())
        }
        GameLiftError::InvalidRequest { message }
        | GameLiftError::SessionEnded { message }
        | GameLiftError::SessionFull { message } => {
            error(StatusCode::CONFLICT, "conflict", message.clone())
        }
        other => error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            shared::telemetry::ErrorChain(other).to_string(),
        ),
    }
}

fn player_of(console: &Console, connection_id: &str) -> Option<String> {
    console
        .registry
        .get(connection_id)
        .ok()
        .and_then(|meta| meta.player_id.clone())
}

fn no_connection(id: &str) -> ApiError {
    error(
        StatusCode::NOT_FOUND,
        "not_found",
        format!("no open connection {id:?}"),
    )
}

/// `POST /console/api/connections/{id}/drop`: ends the socket without a close frame, as
/// a lost network would (the client sees 1006; `$disconnect` runs).
pub async fn drop_connection(
    State(console): State<Arc<Console>>,
    Path(id): Path<String>,
    Accepted(Empty {}): Accepted<Empty>,
) -> Result<Response, ApiError> {
    let player = player_of(&console, &id);
    let ended = console.registry.abort(&id).is_ok();
    connection_ended(&console, &id, player, ended, "dropped")
}

/// `POST /console/api/connections/{id}/close`: DeleteConnection (close 1000).
pub async fn close_connection(
    State(console): State<Arc<Console>>,
    Path(id): Path<String>,
    Accepted(Empty {}): Accepted<Empty>,
) -> Result<Response, ApiError> {
    let player = player_of(&console, &id);
    let ended = console.registry.delete(&id).is_ok();
    connection_ended(&console, &id, player, ended, "closed")
}

/// The answer to a drop or a close: what was done to whose connection, or `not_found`.
fn connection_ended(
    console: &Console,
    id: &str,
    player: Option<String>,
    ended: bool,
    verb: &str,
) -> Result<Response, ApiError> {
    if !ended {
        return Err(no_connection(id));
    }
    let whose = player.as_deref().unwrap_or("?");
    let summary = format!("{verb} {whose}'s connection {id}");
    Ok(done(
        console,
        player.into_iter().collect(),
        summary,
        Value::Null,
    ))
}

fn placement_id(raw: String) -> Result<PlacementId, ApiError> {
    PlacementId::parse(raw).map_err(|e| {
        error(
            StatusCode::BAD_REQUEST,
            "bad_request",
            format!("not a placement id: {e}"),
        )
    })
}

/// `POST /console/api/placements/{id}/fail`: a PENDING placement ends FAILED.
pub async fn fail_placement(
    State(console): State<Arc<Console>>,
    Path(id): Path<String>,
    Accepted(Empty {}): Accepted<Empty>,
) -> Result<Response, ApiError> {
    let id = placement_id(id)?;
    match console.simulator.fail_placement(&id) {
        Ok(()) => Ok(done(
            &console,
            Vec::new(),
            format!("failed placement {id}"),
            Value::Null,
        )),
        Err(err) => Err(gamelift_error(&err)),
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Delay {
    /// Milliseconds more the placement stays PENDING.
    ms: u64,
}

/// `POST /console/api/placements/{id}/delay` `{"ms": 5000}`: a PENDING placement waits
/// that much longer (it may time out meanwhile, as in GameLift).
pub async fn delay_placement(
    State(console): State<Arc<Console>>,
    Path(id): Path<String>,
    Accepted(delay): Accepted<Delay>,
) -> Result<Response, ApiError> {
    let id = placement_id(id)?;
    match console
        .simulator
        .delay_placement(&id, Duration::from_millis(delay.ms))
    {
        Ok(()) => Ok(done(
            &console,
            Vec::new(),
            format!("slowed placement {id} by {} ms", delay.ms),
            Value::Null,
        )),
        Err(err) => Err(gamelift_error(&err)),
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FaultsChange {
    /// Every placement that would be fulfilled fails instead.
    fail_placements: Option<bool>,
    /// Every GetPlayerConnectionDetails is throttled.
    fail_connection_details: Option<bool>,
    /// `SIM_PLACEMENT_DELAY_MS` for new placements.
    placement_delay_ms: Option<u64>,
}

/// `POST /console/api/fleet/faults` `{"failPlacements": true, "failConnectionDetails":
/// true, "placementDelayMs": 5000}` (any of them): the fleet's runtime knobs. Answers the
/// knobs as they are now.
pub async fn set_faults(
    State(console): State<Arc<Console>>,
    Accepted(change): Accepted<FaultsChange>,
) -> Result<Response, ApiError> {
    if change.fail_placements.is_none()
        && change.fail_connection_details.is_none()
        && change.placement_delay_ms.is_none()
    {
        return Err(error(
            StatusCode::BAD_REQUEST,
            "bad_request",
            "say what to change: failPlacements (true/false), failConnectionDetails (true/false), placementDelayMs (0 to 3600000)",
        ));
    }
    let simulator = &console.simulator;
    if let Some(ms) = change.placement_delay_ms
        && let Err(err) = simulator.set_placement_delay(Duration::from_millis(ms))
    {
        return Err(match err {
            GameLiftError::InvalidRequest { message } => {
                error(StatusCode::BAD_REQUEST, "bad_request", message)
            }
            other => gamelift_error(&other),
        });
    }
    let now = simulator.faults();
    simulator.set_faults(Faults {
        fail_placements: change.fail_placements.unwrap_or(now.fail_placements),
        fail_connection_details: change
            .fail_connection_details
            .unwrap_or(now.fail_connection_details),
    });
    let faults = simulator.faults();
    let delay_ms =
        u64::try_from(simulator.settings().placement_delay.as_millis()).unwrap_or(u64::MAX);
    Ok(done(
        &console,
        Vec::new(),
        format!(
            "fleet faults: failPlacements {}, failConnectionDetails {}, placementDelayMs {delay_ms}",
            faults.fail_placements, faults.fail_connection_details
        ),
        json!({ "faults": faults, "placementDelayMs": delay_ms }),
    ))
}

/// `POST /console/api/game-sessions/{id}/terminate` (id or ARN): the game ends now, as
/// TerminateGameSession; its player sessions complete, its server is replaced.
pub async fn terminate_game_session(
    State(console): State<Arc<Console>>,
    Path(id): Path<String>,
    Accepted(Empty {}): Accepted<Empty>,
) -> Result<Response, ApiError> {
    match console.simulator.terminate_game_session(&id) {
        Ok(()) => Ok(done(
            &console,
            Vec::new(),
            format!("ended game session {id}"),
            Value::Null,
        )),
        Err(err) => Err(gamelift_error(&err)),
    }
}
