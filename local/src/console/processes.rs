//! The `processes` section and its actions: the real game server processes that joined
//! over the server SDK 5 WebSocket (`local::gamelift_sdk`), their health, their game
//! sessions and those games' player sessions by status; TerminateProcess and
//! RefreshConnection to one.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::Console;
use super::actions::{Accepted, Empty, done};
use super::api::{ApiError, error};
use crate::gamelift::{PlayerSessionStatus, ProcessError};
use crate::gamelift_sdk::GameServerEndpoint;

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
    Accepted(Empty {}): Accepted<Empty>,
) -> Result<Response, ApiError> {
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
    Accepted(Empty {}): Accepted<Empty>,
) -> Result<Response, ApiError> {
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

/// `?tls=true` asks for the `wss://` endpoint.
#[derive(Debug, Default, serde::Deserialize)]
pub struct EnvQuery {
    #[serde(default)]
    tls: bool,
}

/// `GET /console/api/game-server-env[?tls=true]`: what a game server exports to run on
/// this stack, with a fresh process id, as shell lines; so one command starts one:
/// `eval "$(curl -s …/game-server-env)" && ./my-server`.
pub async fn game_server_env(
    State(console): State<Arc<Console>>,
    Query(query): Query<EnvQuery>,
) -> Response {
    let endpoint = console.game_servers.endpoint();
    let mut variables = endpoint.env(&GameServerEndpoint::new_process_id(), query.tls);
    if query.tls {
        // Go (and this repository's Rust SDK) trust the self-signed certificate this way.
        variables.push((
            "SSL_CERT_FILE",
            endpoint.certificate_path.display().to_string(),
        ));
    }
    let lines: String = variables
        .iter()
        .map(|(name, value)| format!("export {name}='{}'\n", value.replace('\'', r"'\''")))
        .collect();
    ([(CONTENT_TYPE, "text/plain; charset=utf-8")], lines).into_response()
}
