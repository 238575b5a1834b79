//! Prints the backend API's OpenAPI 3.1 document; `docs/backend-api.openapi.json` is its
//! output: `cargo run -p gamelift-sockets-protocol --bin generate-openapi >
//! docs/backend-api.openapi.json`.

use gamelift_sockets_protocol::backend_api::openapi;
use gamelift_sockets_protocol::schema;

fn main() -> std::process::ExitCode {
    schema::print("generate-openapi", &openapi::document_text())
}
