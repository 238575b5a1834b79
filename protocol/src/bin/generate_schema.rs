//! Prints the protocol's JSON Schema; `protocol/schema.json` is its output:
//! `cargo run -p gamelift-sockets-protocol --bin generate-schema > protocol/schema.json`.

use gamelift_sockets_protocol::schema;

fn main() -> std::process::ExitCode {
    schema::print("generate-schema", &schema::document_text())
}
