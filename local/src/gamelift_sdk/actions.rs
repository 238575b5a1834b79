//! Each frame a game server sends, answered: decoded with `RequestFrame::decode`, turned
//! into a simulator call, and answered with `ResponseFrame` (StatusCode 200 echoing
//! Action and RequestId, or a 4xx/5xx with an ErrorMessage that says why).

use std::sync::Arc;

use gamelift_server_protocol::{
    ConnectQuery, Empty, ErrorKind, GetComputeCertificateResult, Request, RequestFrame,
    ResponseFrame, StartMatchBackfillResult,
};

use super::GameServers;
use crate::flexmatch::FlexMatch;
use crate::gamelift::{ProcessError, ProcessRegistration, Simulator, Socket};

/// What to write back, and a line for the console's feed.
pub(super) struct Answer {
    /// The response frame's text.
    pub text: String,
    pub summary: String,
    /// A 4xx or 5xx.
    pub refused: bool,
}

/// The answer to one text frame from process `query.process_id`.
pub(super) fn answer(
    servers: &GameServers,
    query: &ConnectQuery,
    socket: &Socket,
    text: &str,
) -> Answer {
    let process_id = &query.process_id;
    let frame = match RequestFrame::decode(text) {
        Ok(frame) => frame,
        Err(error) => {
            // The answer reaches the caller only if its RequestId could be read; it is
            // logged and in the feed either way.
            let action = error.action.clone().unwrap_or_default();
            let request_id = error.request_id.clone().unwrap_or_default();
            let message = format!("{error}; the frame was: {}", clip(text));
            return refusal(
                process_id,
                &action,
                &request_id,
                ErrorKind::BadRequest,
                message,
            );
        }
    };
    let action = frame.request.action();
    let request_id = frame.request_id.as_str();
    match call(servers, query, socket, frame.request) {
        Ok(body) => Answer {
            text: body.into_text(action, request_id),
            summary: format!("game server {process_id} ← {action}: 200"),
            refused: false,
        },
        Err(error) => refusal(process_id, action, request_id, error.kind, error.message),
    }
}

fn refusal(
    process_id: &str,
    action: &str,
    request_id: &str,
    kind: ErrorKind,
    message: String,
) -> Answer {
    let response = ResponseFrame::error(action, request_id, kind, message.clone());
    Answer {
        text: response.to_text(),
        summary: format!(
            "game server {process_id} ← {}: {} {message}",
            if action.is_empty() { "?" } else { action },
            kind.status()
        ),
        refused: true,
    }
}

/// A success's result fields.
enum Body {
    Empty,
    Json(serde_json::Value),
}

impl Body {
    fn of(result: impl serde::Serialize) -> Self {
        serde_json::to_value(result).map_or(Self::Empty, Self::Json)
    }

    fn into_text(self, action: &str, request_id: &str) -> String {
        match self {
            Self::Empty => ResponseFrame::ok(action, request_id, Empty {}).to_text(),
            Self::Json(value) => ResponseFrame::ok(action, request_id, value).to_text(),
        }
    }
}

fn call(
    servers: &GameServers,
    query: &ConnectQuery,
    socket: &Socket,
    request: Request,
) -> Result<Body, ProcessError> {
    let simulator = &servers.simulator;
    let pid = query.process_id.as_str();
    if !matches!(request, Request::ActivateServerProcess(_)) {
        simulator.check_process(pid)?;
    }
    match request {
        Request::ActivateServerProcess(activate) => {
            let port = u16::try_from(activate.port).map_err(|_| {
                ProcessError::bad_request(format!(
                    "Port {} is not a TCP port (1-65535)",
                    activate.port
                ))
            })?;
            let registration = ProcessRegistration {
                process_id: pid.to_owned(),
                compute_id: query.compute_id.clone().unwrap_or_default(),
                sdk_language: activate
                    .sdk_language
                    .or_else(|| query.sdk_language.clone())
                    .unwrap_or_default(),
                sdk_version: activate
                    .sdk_version
                    .or_else(|| query.sdk_version.clone())
                    .unwrap_or_default(),
                port,
                log_paths: activate.log_paths.unwrap_or_default(),
            };
            simulator.activate_process(registration, socket.clone())?;
            Ok(Body::Empty)
        }
        Request::HeartbeatServerProcess(beat) => {
            simulator.heartbeat(pid, beat.health_status)?;
            Ok(Body::Empty)
        }
        Request::ActivateGameSession(activate) => {
            simulator.activate_game_session(pid, &activate.game_session_id)?;
            Ok(Body::Empty)
        }
        Request::AcceptPlayerSession(accept) => {
            simulator.accept_player_session_of(
                pid,
                &accept.game_session_id,
                &accept.player_session_id,
            )?;
            Ok(Body::Empty)
        }
        Request::RemovePlayerSession(remove) => {
            simulator.remove_player_session_of(
                pid,
                &remove.game_session_id,
                &remove.player_session_id,
            )?;
            Ok(Body::Empty)
        }
        Request::UpdatePlayerSessionCreationPolicy(update) => {
            simulator.update_player_session_creation_policy(
                pid,
                &update.game_session_id,
                update.player_session_policy,
            )?;
            Ok(Body::Empty)
        }
        Request::DescribePlayerSessions(describe) => Ok(Body::of(
            simulator.describe_player_sessions(pid, &describe)?,
        )),
        Request::TerminateServerProcess(Empty {}) => {
            simulator.process_ending(pid)?;
            Ok(Body::Empty)
        }
        Request::GetComputeCertificate(Empty {}) => Ok(Body::of(GetComputeCertificateResult {
            certificate_path: servers.endpoint.certificate_path.display().to_string(),
            compute_name: query
                .compute_id
                .clone()
                .unwrap_or_else(|| servers.endpoint.host_id.clone()),
        })),
        Request::GetFleetRoleCredentials(_) => Err(ProcessError::bad_request(
            "GetFleetRoleCredentials: the local stack's fleet has no instance role, so there \
             are no fleet role credentials to give; when the game server runs locally, give it \
             AWS credentials another way (environment or profile)",
        )),
        Request::StartMatchBackfill(start) => {
            let ticket_id = flexmatch(simulator)?.start_backfill(pid, start)?;
            Ok(Body::of(StartMatchBackfillResult { ticket_id }))
        }
        Request::StopMatchBackfill(stop) => {
            flexmatch(simulator)?.stop_backfill(pid, &stop)?;
            Ok(Body::Empty)
        }
    }
}

/// Backfill goes to the local FlexMatch, which exists only with a rule set.
fn flexmatch(simulator: &Simulator) -> Result<Arc<FlexMatch>, ProcessError> {
    simulator.flexmatch().ok_or_else(|| {
        ProcessError::bad_request(
            "matchmaking is not configured: the local stack runs FlexMatch only when given a \
             rule set (--matchmaking-rule-set / MATCHMAKING_RULE_SET), so there is nothing to \
             backfill through",
        )
    })
}

/// A frame, shortened for an error message.
fn clip(text: &str) -> String {
    const MOST: usize = 200;
    match text.char_indices().nth(MOST) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}
