//! Prints the protocol's JSON Schema; `protocol/schema.json` is its output:
//! `cargo run -p gamelift-sockets-protocol --bin generate-schema > protocol/schema.json`.

use std::io::Write;

fn main() -> std::process::ExitCode {
    let text = gamelift_sockets_protocol::schema::document_text();
    match std::io::stdout().write_all(text.as_bytes()) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("generate-schema: cannot write the schema: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}
