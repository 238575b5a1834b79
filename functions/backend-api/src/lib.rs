//! The backend API: what game servers and other trusted services call over HTTP (an API
//! Gateway HTTP API with AWS_IAM auth, one greedy `/v1/{proxy+}` route to this function)
//! to reach players on the WebSocket API (README, "Backend API"):
//!
//! - `POST /v1/messages`: a `message` frame to players or a party, through their inboxes
//!   like every push (`shared::messaging`): live from the stream, replayed by `resume` to
//!   those offline;
//! - `GET /v1/players/{playerId}`, `POST /v1/players:batchGet`: presence and game state;
//! - `DELETE /v1/players/{playerId}/connection`: a `disconnected_by_server` frame, then
//!   the socket closes (an inbox item of kind `kick`); the player may reconnect;
//! - `POST /v1/game-sessions/{gameSessionId}/ended` and
//!   `.../players/{playerId}/left`: the seat is cleared and `rejoinSession` answers
//!   `session_ended` without asking GameLift;
//! - `POST /v1/players/{playerId}/friends:list`, `PUT` and `DELETE
//!   /v1/players/{playerId}/friends/{friendId}`: a player's friends, and friendships made
//!   or ended for them (the `friends` module).
//!
//! The bodies are the types of `gamelift_sockets_protocol::backend_api`, from which the
//! API's OpenAPI document (docs/backend-api.openapi.json) is generated; a body is read
//! only into its type. Errors are RFC 9457 problem details with the socket protocol's
//! codes ([`problem`]),
//! never a function error. The path is routed here, not by API Gateway (`route.rs`: a game
//! session id is an ARN, which holds `/`, so the path is matched from its fixed end);
//! `lambda_http` turns the HTTP API's payload 2.0 event into an `http::Request` and the
//! handler's `Response` back.
//!
//! Pushes take the players' path: `POST /v1/messages` appends one `chat` item per
//! recipient (one message id, `senderId` = `from`), exactly as `sendMessage` does, with
//! the frame marked `backend: true`. Recipients are looked up first (one BatchGetItem)
//! and an unknown id refuses the request whole. No rate limit: the callers are the
//! studio's own signed servers, bounded by the HTTP API's throttling.
//!
//! Round trips, measured (BENCHMARKS.md):
//!
//! | request | DynamoDB |
//! |---|---|
//! | `POST /v1/messages`, N players | 1 BatchGetItem + N × (1 Query + 1 PutItem) |
//! | `POST /v1/messages`, a party of N | 1 GetItem + N × (1 Query + 1 PutItem) |
//! | `GET /v1/players/{id}` | 1 GetItem |
//! | `POST /v1/players:batchGet` | 1 BatchGetItem per 100 ids |
//! | `DELETE /v1/players/{id}/connection` | 1 GetItem + 1 Query + 1 PutItem (then the stream's BatchGetItem, PostToConnection, DeleteConnection) |
//! | `.../ended`, N players; `.../left` | N conditional UpdateItem; 1 (+ 1 GetItem when it changed nothing) |
//! | `POST .../friends:list` | 1 Query (a page of up to 100 relations) + 1 BatchGetItem (the page's friends' presence) |
//! | `PUT .../friends/{friendId}` | 1 BatchGetItem (Players: both known; Friends: both sides), then 2 Queries (the inboxes' heads, at once) + 1 TransactWriteItems (nothing more when they are friends already) |
//! | `DELETE .../friends/{friendId}` | 1 BatchGetItem (both sides), then up to 2 Queries (at once) + 1 TransactWriteItems when there is something to end |

mod friends;
mod game_sessions;
mod messages;
mod players;
pub mod problem;
pub mod route;

use std::sync::Arc;

use edge::websocket::RouteError;
use gamelift_sockets_protocol::backend_api::read_request;
use lambda_http::http::StatusCode;
use lambda_http::{Body, Request, RequestExt, Response};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use shared::config::Config;
use shared::errors::FieldDetail;
use shared::frames::{ErrorCode, ErrorReply, json_kind};
use shared::ports::{
    Clock, FriendCommits, FriendReader, MessageStore, PartyReader, PlayerLookup, PlayerReader,
    RecipientCheck, Seats,
};
use shared::telemetry::ErrorChain;
use tracing::{error, info, warn};

use crate::route::{Endpoint, route};

#[cfg(test)]
mod tests;

/// The largest request body read (a 32 KiB message and 100 ids fit well within it).
pub const MAX_BODY_BYTES: usize = 64 * 1024;

shared::wired! {
    /// The backend API as every deployment builds it.
    pub fn wire(w) ->
    /// The API's handler: one instance per execution environment, built at init.
    pub struct BackendApi {
        config: Arc<Config> = w.config.clone(),
        players: Arc<dyn PlayerReader> = w.stores.player_reader(),
        lookup: Arc<dyn PlayerLookup> = w.stores.player_lookup(),
        seats: Arc<dyn Seats> = w.stores.seats(),
        messages: Arc<dyn MessageStore> = w.stores.message_store(),
        parties: Arc<dyn PartyReader> = w.stores.party_reader(),
        relations: Arc<dyn FriendReader> = w.stores.friend_reader(),
        friend_commits: Arc<dyn FriendCommits> = w.stores.friend_commits(),
        /// A friendship's reads: both players known, both sides, in one call.
        checks: Arc<dyn RecipientCheck> = w.stores.recipient_check(),
        clock: Arc<dyn Clock> = w.clock.clone(),
    }
}

/// What an endpoint answers: a status and a JSON body.
type Answer = Result<(StatusCode, Value), RouteError>;

/// `body`, one of the API's response types, with `status`.
fn answer<T: Serialize>(status: StatusCode, body: &T) -> Answer {
    serde_json::to_value(body)
        .map(|body| (status, body))
        .map_err(|e| RouteError::new(ErrorCode::Internal, format!("the answer: {e}")))
}

impl BackendApi {
    /// Answers one request; every failure is a problem response, never an invocation
    /// error (API Gateway would turn that into a bare 500).
    pub async fn handle(&self, request: Request) -> Response<Body> {
        let path = request.raw_http_path().to_owned();
        let path = if path.is_empty() {
            request.uri().path().to_owned()
        } else {
            path
        };
        let caller = caller_of(&request);
        let answer = match route(request.method(), &path) {
            Ok(endpoint) => self.serve(&endpoint, &request).await.inspect(|_| {
                info!(endpoint = endpoint.name(), %caller, "served");
            }),
            Err(refusal) => Err(refusal),
        };
        shared::metrics::request("backendApi", answer.as_ref().err().map(RouteError::code));
        match answer {
            Ok((status, body)) => problem::json_response(status, &body),
            Err(refusal) => {
                log_refusal(&refusal, &path, &caller);
                problem::problem(&refusal)
            }
        }
    }

    async fn serve(&self, endpoint: &Endpoint, request: &Request) -> Answer {
        match endpoint {
            Endpoint::SendMessages => self.send_messages(body_of(request)?).await,
            Endpoint::GetPlayer(player) => self.get_player(player).await,
            Endpoint::BatchGetPlayers => self.batch_get_players(body_of(request)?).await,
            Endpoint::EndConnection(player) => self.end_connection(player, body_of(request)?).await,
            Endpoint::GameSessionEnded(game) => {
                self.game_session_ended(game, body_of(request)?).await
            }
            Endpoint::PlayerLeft(game, player) => self.player_left(game, player).await,
            Endpoint::ListFriends(player) => self.list_friends(player, body_of(request)?).await,
            Endpoint::AddFriendship(player, friend) => self.add_friendship(player, friend).await,
            Endpoint::RemoveFriendship(player, friend) => {
                self.remove_friendship(player, friend).await
            }
        }
    }
}

/// The request body read into its type `B` (an empty body is read as `{}`); what does not
/// fit is a 400 naming the field.
fn body_of<B: DeserializeOwned>(request: &Request) -> Result<B, RouteError> {
    read_request(object_of(request)?).map_err(|e| field_error(&e.field, e.message))
}

/// The request body as a JSON object; an empty body is an empty object.
fn object_of(request: &Request) -> Result<Map<String, Value>, RouteError> {
    let bytes: &[u8] = request.body().as_ref();
    if bytes.len() > MAX_BODY_BYTES {
        return Err(RouteError::new(
            ErrorCode::PayloadTooLarge,
            format!(
                "the body is {} bytes; the maximum is {MAX_BODY_BYTES}",
                bytes.len()
            ),
        ));
    }
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Map::new());
    }
    match serde_json::from_slice::<Value>(bytes) {
        Ok(Value::Object(body)) => Ok(body),
        Ok(other) => Err(field_error(
            "body",
            format!("the body must be a JSON object, got {}", json_kind(&other)),
        )),
        Err(e) => Err(field_error("body", format!("the body is not JSON: {e}"))),
    }
}

/// A 400 naming `field`.
pub(crate) fn field_error(field: &str, message: impl Into<String>) -> RouteError {
    ErrorReply::bad_request(message, FieldDetail::named(field)).into()
}

/// A store failure: 503 (retry) or 500, saying what did not happen.
pub(crate) fn store_refusal(err: shared::ports::StoreError, consequence: &str) -> RouteError {
    RouteError::from_store(err, consequence)
}

/// Who called, for the log: the IAM principal API Gateway verified (deployed), else
/// `anonymous` (the local stack without a key).
fn caller_of(request: &Request) -> String {
    use lambda_http::request::RequestContext;
    match request.request_context_ref() {
        Some(RequestContext::ApiGatewayV2(context)) => context
            .authorizer
            .as_ref()
            .and_then(|a| a.iam.as_ref())
            .and_then(|iam| iam.user_arn.clone())
            .unwrap_or_else(|| "anonymous".to_owned()),
        _ => "anonymous".to_owned(),
    }
}

fn log_refusal(refusal: &RouteError, path: &str, caller: &str) {
    let cause = refusal.cause().map(|c| ErrorChain(c).to_string());
    match refusal.code() {
        ErrorCode::Internal => {
            error!(code = ?refusal.code(), path, caller, cause, detail = %refusal.message(), "request failed")
        }
        ErrorCode::Unavailable => {
            warn!(code = ?refusal.code(), path, caller, cause, detail = %refusal.message(), "request failed")
        }
        _ => {
            info!(code = ?refusal.code(), path, caller, detail = %refusal.message(), "request refused")
        }
    }
}
