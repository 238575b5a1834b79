//! The router: an HTTP method and a raw path to one endpoint, with its path parameters
//! percent-decoded. API Gateway forwards every `/v1/...` path here (one greedy route),
//! so an unknown path or method is answered here, as the socket protocol's
//! `unknown_route`.
//!
//! A game session id is GameLift's ARN, which holds `/`: it may come percent-encoded
//! (`%2F`) as one segment or raw as several; both are read by matching the path's
//! fixed segments from its end.

use edge::websocket::RouteError;
use gamelift_sockets_protocol::backend_api::openapi::{self, Operation};
use lambda_http::http::Method;
use shared::domain::PlayerId;
use shared::errors::AllowDetail;
use shared::frames::{ErrorCode, ErrorReply};

use crate::field_error;

/// One endpoint, with its parsed path parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Endpoint {
    /// `POST /v1/messages`
    SendMessages,
    /// `GET /v1/players/{playerId}`
    GetPlayer(PlayerId),
    /// `POST /v1/players:batchGet`
    BatchGetPlayers,
    /// `DELETE /v1/players/{playerId}/connection`
    EndConnection(PlayerId),
    /// `POST /v1/game-sessions/{gameSessionId}/ended`
    GameSessionEnded(String),
    /// `POST /v1/game-sessions/{gameSessionId}/players/{playerId}/left`
    PlayerLeft(String, PlayerId),
    /// `POST /v1/players/{playerId}/friends:list`
    ListFriends(PlayerId),
    /// `PUT /v1/players/{playerId}/friends/{friendId}`
    AddFriendship(PlayerId, PlayerId),
    /// `DELETE /v1/players/{playerId}/friends/{friendId}`
    RemoveFriendship(PlayerId, PlayerId),
}

impl Endpoint {
    /// The endpoint as the API's OpenAPI document declares it (a test holds the router
    /// and the document equal).
    pub fn operation(&self) -> &'static Operation {
        match self {
            Self::SendMessages => &openapi::SEND_MESSAGES,
            Self::GetPlayer(_) => &openapi::GET_PLAYER,
            Self::BatchGetPlayers => &openapi::BATCH_GET_PLAYERS,
            Self::EndConnection(_) => &openapi::END_CONNECTION,
            Self::GameSessionEnded(_) => &openapi::GAME_SESSION_ENDED,
            Self::PlayerLeft(..) => &openapi::PLAYER_LEFT,
            Self::ListFriends(_) => &openapi::LIST_FRIENDS,
            Self::AddFriendship(..) => &openapi::ADD_FRIENDSHIP,
            Self::RemoveFriendship(..) => &openapi::REMOVE_FRIENDSHIP,
        }
    }

    /// The endpoint's name in logs and metrics: its operation id.
    pub fn name(&self) -> &'static str {
        self.operation().id
    }
}

/// The longest game session id GameLift gives (its ARN).
pub const MAX_GAME_SESSION_ID_LEN: usize = 512;

/// `method` and `raw_path` to an endpoint; a path under a stage (`/prod/v1/...`) is
/// read from its `v1` segment.
pub fn route(method: &Method, raw_path: &str) -> Result<Endpoint, RouteError> {
    let raw: Vec<&str> = raw_path.split('/').filter(|s| !s.is_empty()).collect();
    let start = raw
        .iter()
        .position(|s| *s == "v1")
        .ok_or_else(|| unknown(raw_path))?;
    let segments = raw[start + 1..]
        .iter()
        .map(|s| decode(s))
        .collect::<Result<Vec<_>, _>>()?;
    let path: Vec<&str> = segments.iter().map(String::as_str).collect();
    // Each method served at the path, with its endpoint.
    let mut served = match path.as_slice() {
        ["messages"] => vec![(Method::POST, Endpoint::SendMessages)],
        ["players:batchGet"] => vec![(Method::POST, Endpoint::BatchGetPlayers)],
        ["players", id] => vec![(Method::GET, Endpoint::GetPlayer(player_id(id)?))],
        ["players", id, "connection"] => {
            vec![(Method::DELETE, Endpoint::EndConnection(player_id(id)?))]
        }
        ["players", id, "friends:list"] => {
            vec![(Method::POST, Endpoint::ListFriends(player_id(id)?))]
        }
        ["players", id, "friends", other] => {
            let (player, friend) = (player_id(id)?, player_id_named(other, "friendId")?);
            vec![
                (
                    Method::PUT,
                    Endpoint::AddFriendship(player.clone(), friend.clone()),
                ),
                (Method::DELETE, Endpoint::RemoveFriendship(player, friend)),
            ]
        }
        ["game-sessions", game @ .., "players", id, "left"] if !game.is_empty() => vec![(
            Method::POST,
            Endpoint::PlayerLeft(game_session_id(game)?, player_id(id)?),
        )],
        ["game-sessions", game @ .., "ended"] if !game.is_empty() => vec![(
            Method::POST,
            Endpoint::GameSessionEnded(game_session_id(game)?),
        )],
        _ => return Err(unknown(raw_path)),
    };
    match served.iter().position(|(allowed, _)| allowed == method) {
        Some(at) => Ok(served.swap_remove(at).1),
        None => {
            let allowed: Vec<&str> = served.iter().map(|(m, _)| m.as_str()).collect();
            Err(ErrorReply::unknown_route(
                format!(
                    "{method} is not served on {raw_path}; use {}",
                    allowed.join(" or ")
                ),
                AllowDetail {
                    allow: Some(allowed.join(", ")),
                },
            )
            .into())
        }
    }
}

fn unknown(raw_path: &str) -> RouteError {
    RouteError::new(
        ErrorCode::UnknownRoute,
        format!(
            "no endpoint at {raw_path}: the paths are under /v1/ (see the README's backend API)"
        ),
    )
}

fn player_id(raw: &str) -> Result<PlayerId, RouteError> {
    player_id_named(raw, "playerId")
}

fn player_id_named(raw: &str, name: &str) -> Result<PlayerId, RouteError> {
    PlayerId::parse(raw).map_err(|e| {
        field_error(
            name,
            format!("`{name}` in the path is not a player id: {e}"),
        )
    })
}

/// GameLift's game session id (an ARN: `arn:aws:gamelift:<region>::gamesession/<fleet>/<id>`),
/// 1-512 of `A-Z a-z 0-9 : / . _ -`.
fn game_session_id(segments: &[&str]) -> Result<String, RouteError> {
    let id = segments.join("/");
    let valid = !id.is_empty()
        && id.len() <= MAX_GAME_SESSION_ID_LEN
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b":/._-".contains(&b));
    if valid {
        Ok(id)
    } else {
        Err(field_error(
            "gameSessionId",
            format!(
                "`gameSessionId` in the path must be GameLift's game session id (its ARN, \
                 percent-encoded), 1-{MAX_GAME_SESSION_ID_LEN} of A-Z a-z 0-9 : / . _ -"
            ),
        ))
    }
}

/// Percent-decodes one path segment (UTF-8).
fn decode(segment: &str) -> Result<String, RouteError> {
    let bad = || {
        field_error(
            "path",
            format!("the path segment {segment:?} is not valid percent-encoded UTF-8"),
        )
    };
    let bytes = segment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3).ok_or_else(bad)?;
            let text = std::str::from_utf8(hex).map_err(|_| bad())?;
            out.push(u8::from_str_radix(text, 16).map_err(|_| bad())?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| bad())
}

#[cfg(test)]
mod tests {
    use super::*;

    const ARN: &str = "arn:aws:gamelift:eu-west-1::gamesession/fleet-1/gs-1";

    fn player(id: &str) -> PlayerId {
        PlayerId::parse(id).unwrap()
    }

    #[test]
    fn every_endpoint_is_routed_with_its_decoded_parameters() {
        let cases = [
            (Method::POST, "/v1/messages", Endpoint::SendMessages),
            (
                Method::POST,
                "/v1/players:batchGet",
                Endpoint::BatchGetPlayers,
            ),
            (
                Method::GET,
                "/v1/players/alice",
                Endpoint::GetPlayer(player("alice")),
            ),
            (
                Method::GET,
                "/prod/v1/players/a%40b",
                Endpoint::GetPlayer(player("a@b")),
            ),
            (
                Method::DELETE,
                "/v1/players/alice/connection",
                Endpoint::EndConnection(player("alice")),
            ),
            (
                Method::POST,
                "/v1/game-sessions/arn%3Aaws%3Agamelift%3Aeu-west-1%3A%3Agamesession%2Ffleet-1%2Fgs-1/ended",
                Endpoint::GameSessionEnded(ARN.into()),
            ),
            (
                Method::POST,
                &format!("/v1/game-sessions/{ARN}/ended"),
                Endpoint::GameSessionEnded(ARN.into()),
            ),
            (
                Method::POST,
                &format!("/v1/game-sessions/{ARN}/players/bob/left"),
                Endpoint::PlayerLeft(ARN.into(), player("bob")),
            ),
            (
                Method::POST,
                "/v1/players/alice/friends:list",
                Endpoint::ListFriends(player("alice")),
            ),
            (
                Method::PUT,
                "/v1/players/alice/friends/b%40b",
                Endpoint::AddFriendship(player("alice"), player("b@b")),
            ),
            (
                Method::DELETE,
                "/v1/players/alice/friends/bob",
                Endpoint::RemoveFriendship(player("alice"), player("bob")),
            ),
        ];
        for (method, path, expected) in cases {
            assert_eq!(route(&method, path), Ok(expected), "{method} {path}");
        }
    }

    /// One endpoint of each kind (the `match` stops compiling when a kind is added, until
    /// it is listed here too).
    fn one_of_each() -> Vec<Endpoint> {
        let all = vec![
            Endpoint::SendMessages,
            Endpoint::GetPlayer(player("alice")),
            Endpoint::BatchGetPlayers,
            Endpoint::EndConnection(player("alice")),
            Endpoint::GameSessionEnded(ARN.into()),
            Endpoint::PlayerLeft(ARN.into(), player("alice")),
            Endpoint::ListFriends(player("alice")),
            Endpoint::AddFriendship(player("alice"), player("bob")),
            Endpoint::RemoveFriendship(player("alice"), player("bob")),
        ];
        for endpoint in &all {
            match endpoint {
                Endpoint::SendMessages
                | Endpoint::GetPlayer(_)
                | Endpoint::BatchGetPlayers
                | Endpoint::EndConnection(_)
                | Endpoint::GameSessionEnded(_)
                | Endpoint::PlayerLeft(..)
                | Endpoint::ListFriends(_)
                | Endpoint::AddFriendship(..)
                | Endpoint::RemoveFriendship(..) => {}
            }
        }
        all
    }

    #[test]
    fn every_operation_of_the_openapi_document_is_routed_here_and_every_endpoint_is_documented() {
        let encoded_arn = ARN.replace(':', "%3A").replace('/', "%2F");
        for operation in openapi::OPERATIONS {
            let path = operation
                .path
                .replace("{playerId}", "alice")
                .replace("{friendId}", "bob")
                .replace("{gameSessionId}", &encoded_arn);
            let method = Method::from_bytes(operation.method.to_uppercase().as_bytes()).unwrap();
            let endpoint = route(&method, &path)
                .unwrap_or_else(|e| panic!("{method} {path} is not routed: {}", e.message()));
            assert_eq!(endpoint.name(), operation.id, "{method} {path}");
        }
        let endpoints = one_of_each();
        assert_eq!(endpoints.len(), openapi::OPERATIONS.len());
        for endpoint in endpoints {
            assert!(
                openapi::operation(endpoint.name()).is_some(),
                "{endpoint:?} is not in the OpenAPI document"
            );
        }
    }

    #[test]
    fn unknown_paths_wrong_methods_and_bad_parameters_are_typed_errors() {
        let code = |method: Method, path: &str| route(&method, path).unwrap_err().code();
        assert_eq!(code(Method::GET, "/"), ErrorCode::UnknownRoute);
        assert_eq!(
            code(Method::GET, "/v2/players/alice"),
            ErrorCode::UnknownRoute
        );
        assert_eq!(code(Method::GET, "/v1/players"), ErrorCode::UnknownRoute);
        let fields = |method: Method, path: &str| {
            serde_json::to_value(*route(&method, path).unwrap_err().reply).unwrap()
        };
        let wrong = fields(Method::GET, "/v1/messages");
        assert_eq!(
            (&wrong["code"], &wrong["allow"]),
            (&"unknown_route".into(), &"POST".into())
        );
        let wrong = fields(Method::GET, "/v1/players/alice/friends/bob");
        assert_eq!(wrong["allow"], "PUT, DELETE");
        let bad = fields(Method::GET, "/v1/players/al%20ice");
        assert_eq!(
            (&bad["code"], &bad["field"]),
            (&"bad_request".into(), &"playerId".into())
        );
        assert_eq!(
            fields(Method::PUT, "/v1/players/alice/friends/b%20b")["field"],
            "friendId"
        );
        assert_eq!(fields(Method::GET, "/v1/players/%zz")["field"], "path");
        let bad = fields(Method::POST, "/v1/game-sessions/a%20b/ended");
        assert_eq!(bad["field"], "gameSessionId");
    }
}
