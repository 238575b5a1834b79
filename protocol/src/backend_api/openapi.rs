//! The backend API's OpenAPI 3.1 document, generated from [`OPERATIONS`] and the body
//! types (their JSON Schema 2020-12, which OpenAPI 3.1 embeds) and committed as
//! `docs/backend-api.openapi.json`; a test fails while the committed file is stale, and
//! `scripts/test.sh` checks it with an OpenAPI validator. Regenerate after changing an
//! endpoint or a body: `cargo run -p gamelift-sockets-protocol --bin generate-openapi >
//! docs/backend-api.openapi.json`.

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde_json::{Map, Value, json};

use super::{
    BatchGetPlayersResponse, EndConnectionRequest, EndConnectionResponse, FriendAck,
    GameSessionEndedResponse, ListFriendsAck, ListFriendsBody, PlayerIdsBody, PlayerLeftResponse,
    PlayerView, Problem, SendMessagesRequest, SendMessagesResponse,
};

/// The command that rewrites the committed document (run from the workspace root).
pub const REGENERATE: &str =
    "cargo run -p gamelift-sockets-protocol --bin generate-openapi > docs/backend-api.openapi.json";

/// The committed document, relative to the workspace root.
pub const DOCUMENT_PATH: &str = "docs/backend-api.openapi.json";

/// A body's schema, as a `$ref` into `components.schemas`.
type SchemaOf = fn(&mut SchemaGenerator) -> Schema;

fn schema_of<T: JsonSchema>(generator: &mut SchemaGenerator) -> Schema {
    generator.subschema_for::<T>()
}

/// One endpoint: what the function's router serves (a test holds the two equal).
pub struct Operation {
    /// The operation's id, and the endpoint's name in the function's logs and metrics.
    pub id: &'static str,
    pub method: &'static str,
    /// Under the API's root; `{name}` is a path parameter.
    pub path: &'static str,
    pub summary: &'static str,
    pub request: Option<SchemaOf>,
    /// The success status and its body.
    pub status: u16,
    pub response: SchemaOf,
}

pub const SEND_MESSAGES: Operation = Operation {
    id: "sendMessages",
    method: "post",
    path: "/v1/messages",
    summary: "A `message` frame (`backend: true`) to players or to a party, through their inboxes; an unknown player id refuses the whole request (404).",
    request: Some(schema_of::<SendMessagesRequest>),
    status: 202,
    response: schema_of::<SendMessagesResponse>,
};

pub const GET_PLAYER: Operation = Operation {
    id: "getPlayer",
    method: "get",
    path: "/v1/players/{playerId}",
    summary: "A player's presence and game state.",
    request: None,
    status: 200,
    response: schema_of::<PlayerView>,
};

pub const BATCH_GET_PLAYERS: Operation = Operation {
    id: "batchGetPlayers",
    method: "post",
    path: "/v1/players:batchGet",
    summary: "The same for 1–100 players, in the order asked.",
    request: Some(schema_of::<PlayerIdsBody>),
    status: 200,
    response: schema_of::<BatchGetPlayersResponse>,
};

pub const END_CONNECTION: Operation = Operation {
    id: "endConnection",
    method: "delete",
    path: "/v1/players/{playerId}/connection",
    summary: "The player's socket gets `disconnected_by_server`, then closes; they may reconnect at once. 404 when they have no open connection.",
    request: Some(schema_of::<EndConnectionRequest>),
    status: 202,
    response: schema_of::<EndConnectionResponse>,
};

pub const GAME_SESSION_ENDED: Operation = Operation {
    id: "gameSessionEnded",
    method: "post",
    path: "/v1/game-sessions/{gameSessionId}/ended",
    summary: "Each named player whose seat is in that game loses it (`rejoinSession` answers `session_ended`); idempotent.",
    request: Some(schema_of::<PlayerIdsBody>),
    status: 200,
    response: schema_of::<GameSessionEndedResponse>,
};

pub const PLAYER_LEFT: Operation = Operation {
    id: "playerLeft",
    method: "post",
    path: "/v1/game-sessions/{gameSessionId}/players/{playerId}/left",
    summary: "The same for one player; 409 if their seat is in another game.",
    request: None,
    status: 200,
    response: schema_of::<PlayerLeftResponse>,
};

pub const LIST_FRIENDS: Operation = Operation {
    id: "listFriends",
    method: "post",
    path: "/v1/players/{playerId}/friends:list",
    summary: "A page of the player's relations (friends with their presence, invitations both ways, blocks), by player id, exactly as the player's `listFriends` answers it (the same body: `state`, `cursor`).",
    request: Some(schema_of::<ListFriendsBody>),
    status: 200,
    response: schema_of::<ListFriendsAck>,
};

pub const ADD_FRIENDSHIP: Operation = Operation {
    id: "addFriendship",
    method: "put",
    path: "/v1/players/{playerId}/friends/{friendId}",
    summary: "Makes two known players friends at once, with no invitation (a studio importing a platform's friends); each is pushed a `friend` frame as on the socket. Idempotent; 409 if either blocked the other, 403 if either has MAX_FRIENDS friends.",
    request: None,
    status: 200,
    response: schema_of::<FriendAck>,
};

pub const REMOVE_FRIENDSHIP: Operation = Operation {
    id: "removeFriendship",
    method: "delete",
    path: "/v1/players/{playerId}/friends/{friendId}",
    summary: "Ends a friendship or an invitation either way, as the player's `removeFriend` does (both told `removed`); a block stays. Nothing to remove is no error.",
    request: None,
    status: 200,
    response: schema_of::<FriendAck>,
};

/// Every endpoint of the backend API.
pub const OPERATIONS: &[&Operation] = &[
    &SEND_MESSAGES,
    &GET_PLAYER,
    &BATCH_GET_PLAYERS,
    &END_CONNECTION,
    &GAME_SESSION_ENDED,
    &PLAYER_LEFT,
    &LIST_FRIENDS,
    &ADD_FRIENDSHIP,
    &REMOVE_FRIENDSHIP,
];

/// The operation named `id`.
pub fn operation(id: &str) -> Option<&'static Operation> {
    OPERATIONS
        .iter()
        .copied()
        .find(|operation| operation.id == id)
}

/// A path parameter's schema and description.
fn parameter(name: &str) -> Value {
    let (description, schema) = match name {
        "playerId" => (
            "A player's id.",
            json!({"$ref": "#/components/schemas/PlayerId"}),
        ),
        "friendId" => (
            "The other player's id.",
            json!({"$ref": "#/components/schemas/PlayerId"}),
        ),
        _ => (
            "GameLift's game session id (its ARN), percent-encoded.",
            json!({"type": "string", "minLength": 1, "maxLength": 512, "pattern": "^[A-Za-z0-9:/._-]+$"}),
        ),
    };
    json!({"name": name, "in": "path", "required": true, "description": description, "schema": schema})
}

fn path_parameters(path: &str) -> Vec<Value> {
    path.split('/')
        .filter_map(|segment| segment.strip_prefix('{')?.strip_suffix('}'))
        .map(parameter)
        .collect()
}

/// The whole document, keys sorted at every level so the committed text is stable.
pub fn document() -> Value {
    let mut generator = SchemaSettings::draft2020_12()
        .with(|settings| settings.definitions_path = "/components/schemas".into())
        .into_generator();
    let problem = generator.subschema_for::<Problem>();
    // The path parameter's `$ref`.
    let _ = generator.subschema_for::<crate::domain::PlayerId>();
    let mut paths = Map::new();
    for operation in OPERATIONS {
        let mut entry = json!({
            "operationId": operation.id,
            "summary": operation.summary,
            "parameters": path_parameters(operation.path),
            "responses": {
                operation.status.to_string(): {
                    "description": "Done.",
                    "content": {"application/json": {"schema": (operation.response)(&mut generator)}}
                },
                "4XX": {"$ref": "#/components/responses/Problem"},
                "5XX": {"$ref": "#/components/responses/Problem"}
            }
        });
        if let Some(request) = operation.request {
            entry["requestBody"] = json!({
                "required": true,
                "content": {"application/json": {"schema": request(&mut generator)}}
            });
        }
        let item = paths
            .entry(operation.path)
            .or_insert_with(|| Value::Object(Map::new()));
        item[operation.method] = entry;
    }
    let schemas = generator.take_definitions(true);
    let document = json!({
        "openapi": "3.1.0",
        "jsonSchemaDialect": "https://json-schema.org/draft/2020-12/schema",
        "info": {
            "title": "GameLift Sockets backend API",
            "version": "1",
            "description": format!(
                "What game servers and studio services call to reach players (README.md, \"Backend API\"). Every request is signed with SigV4 by the caller's IAM role. Errors are RFC 9457 problem details with the client protocol's codes. Generated from the Rust types by `{REGENERATE}`; do not edit."
            )
        },
        "servers": [
            {
                "url": "https://{apiId}.execute-api.{region}.amazonaws.com",
                "description": "The stack's `BackendApiUrl` output.",
                "variables": {"apiId": {"default": "apiId"}, "region": {"default": "us-east-1"}}
            },
            {"url": "http://127.0.0.1:3002", "description": "The local stack (`cargo run -p local`)."}
        ],
        "security": [{"sigv4": []}],
        "paths": Value::Object(paths),
        "components": {
            "securitySchemes": {
                "sigv4": {
                    "type": "apiKey",
                    "name": "Authorization",
                    "in": "header",
                    "description": "AWS Signature Version 4 with the caller's IAM credentials (API Gateway's AWS_IAM authorization: https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-access-control-iam.html).",
                    "x-amazon-apigateway-authtype": "awsSigv4"
                }
            },
            "responses": {
                "Problem": {
                    "description": "RFC 9457 problem details; `503` carries `Retry-After`, a wrong method `Allow`.",
                    "content": {"application/problem+json": {"schema": problem}}
                }
            },
            "schemas": Value::Object(schemas)
        }
    });
    crate::schema::sorted(document)
}

/// `document()` as the committed file's text: two-space indented, with a final newline.
pub fn document_text() -> String {
    let mut text = serde_json::to_string_pretty(&document()).unwrap_or_default();
    text.push('\n');
    text
}
