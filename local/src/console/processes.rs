//! The `processes` section and its actions: the real game server processes that joined
//! over the server SDK 5 WebSocket (`local::gamelift_sdk`), their health, their game
//! sessions and those games' player sessions by status; TerminateProcess and
//! RefreshConnection to one.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde_json::{Value, json};

use super::Console;
use super::actions::{Empty, accept, done};
use super::api::{ApiError, error};
use crate::gamelift::{PlayerSessionStatus, ProcessError};

/// `GET /console/api/processes`: one row per real process, newest last.
pub fn section(console: &Console) -> Value {
    let snapshot = console.simulator.snapshot();
    let rows: Vec<Value> = snapshot
        .processes
        .iter()
        .map(|process| {
            let games: Vec<Value> = process
                .game_session_arns
                .iter()
                .filter_map(|arn| {
                    let game = snapshot
                        .game_sessions
                        .iter()
                        .find(|g| &g.game_session_arn == arn)?;
                    let mut by_status: BTreeMap<&str, usize> = BTreeMap::new();
                    for session in snapshot.player_sessions_of(arn) {
                        *by_status.entry(status_name(session.status)).or_default() += 1;
                    }
                    Some(json!({
                        "gameSessionArn": arn,
                        "gameSessionId": game.game_session_id,
                        "status": game.status,
                        "port": game.port,
                        "playerSessions": by_status,
                    }))
                })
                .collect();
            let mut row = json!(process);
            row["gameSessions"] = Value::Array(games);
            row
        })
        .collect();
    Value::Array(rows)
}

fn status_name(status: PlayerSessionStatus) -> &'static str {
    match status {
        PlayerSessionStatus::Reserved => "RESERVED",
        PlayerSessionStatus::Active => "ACTIVE",
        PlayerSessionStatus::Completed => "COMPLETED",
        PlayerSessionStatus::TimedOut => "TIMEDOUT",
    }
}

/// `POST /console/api/processes/{pID}/terminate`: TerminateProcess (GameLift's
/// scale-in); the process is taken out after `SIM_TERMINATION_GRACE_SECONDS` unless it
/// calls ProcessEnding first.
pub async fn terminate_process(
    State(console): State<Arc<Console>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    accept::<Empty>(&headers, &body)?;
    console
        .game_servers
        .terminate_process(&id)
        .map_err(refused)?;
    Ok(done(
        &console,
        Vec::new(),
        format!("sent TerminateProcess to game server {id}"),
        Value::Null,
    ))
}

/// `POST /console/api/processes/{pID}/refresh-connection`: RefreshConnection with a
/// new path and a new auth token; the SDK opens a new socket there.
pub async fn refresh_connection(
    State(console): State<Arc<Console>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    accept::<Empty>(&headers, &body)?;
    let url = console
        .game_servers
        .refresh_connection(&id)
        .map_err(refused)?;
    Ok(done(
        &console,
        Vec::new(),
        format!("sent RefreshConnection to game server {id} ({url})"),
        json!({ "refreshConnectionEndpoint": url }),
    ))
}

/// No such live process (404), or it has no socket to push to (409).
fn refused(refusal: ProcessError) -> ApiError {
    if refusal.message.contains("no open socket") || refusal.message.contains("just closed") {
        return error(StatusCode::CONFLICT, "conflict", refusal.message);
    }
    error(StatusCode::NOT_FOUND, "not_found", refusal.message)
}
