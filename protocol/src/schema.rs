//! The protocol's JSON Schema (draft 2020-12), generated from the Rust types and
//! committed as `protocol/schema.json`: `$defs.ClientFrame` (every request, one per
//! route), `$defs.ServerFrame` (every frame the server sends), each a `oneOf`, and
//! `$defs.RouteAck` (the fields of each route's `ack`, by `route`).
//! Regenerate after changing a frame:
//! `cargo run -p gamelift-sockets-protocol --bin generate-schema > protocol/schema.json`.

use schemars::Schema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value, json};

use crate::acks::RouteAck;
use crate::frames::ServerFrame;
use crate::requests::ClientRequest;

/// The command that rewrites `protocol/schema.json` (run from the workspace root).
pub const REGENERATE: &str =
    "cargo run -p gamelift-sockets-protocol --bin generate-schema > protocol/schema.json";

/// Marks a server frame as pushed through the inbox: it carries `seq`, its position there
/// (README.md#delivery-guarantee). Every new pushed `ServerFrame` variant takes
/// `#[schemars(transform = pushed)]`.
pub fn pushed(schema: &mut Schema) {
    let object = schema.ensure_object();
    if let Some(Value::Object(properties)) = object.get_mut("properties") {
        properties.insert(
            "seq".to_owned(),
            json!({
                "description": "This frame's position in your inbox: send the last one you processed as `resume`'s `cursor`.",
                "$ref": "#/$defs/Seq"
            }),
        );
    }
    if let Some(Value::Array(required)) = object.get_mut("required") {
        required.push(Value::String("seq".to_owned()));
    }
}

/// The whole document, keys sorted at every level so the committed text is stable.
pub fn document() -> Value {
    let mut generator = SchemaSettings::draft2020_12().into_generator();
    let client = generator.subschema_for::<ClientRequest>();
    let server = generator.subschema_for::<ServerFrame>();
    // What each route's `ack` carries: `ServerFrame`'s `ack` leaves its fields open.
    let acks = generator.subschema_for::<RouteAck>();
    // All are named types, so each is a `$ref` into the definitions.
    let _ = (client, server, acks);
    let mut defs = generator.take_definitions(true);
    // `Seq` is only referenced by `pushed`'s hand-written `$ref` when no request uses it;
    let mut extra = SchemaSettings::draft2020_12().into_generator();
    if !defs.contains_key("Seq") {
        let _ = extra.subschema_for::<crate::domain::Seq>();
    }
    // Every code, for clients' lists (an `error` frame's variants each give one as `const`).
    let _ = extra.subschema_for::<crate::errors::ErrorCode>();
    defs.extend(extra.take_definitions(true));
    let document = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://gamelift-sockets.invalid/protocol/v1/schema.json",
        "title": "GameLift Sockets client protocol v1",
        "description": format!(
            "Every frame is one JSON object: a client sends a ClientFrame, the server a ServerFrame. Generated from the Rust types by `{REGENERATE}`; do not edit."
        ),
        "anyOf": [
            {"$ref": "#/$defs/ClientFrame"},
            {"$ref": "#/$defs/ServerFrame"}
        ],
        "$defs": Value::Object(defs),
    });
    sorted(document)
}

/// `document()` as the committed file's text: two-space indented, with a final newline.
pub fn document_text() -> String {
    let mut text = serde_json::to_string_pretty(&document()).unwrap_or_default();
    text.push('\n');
    text
}

/// A generator binary's output: `text` on stdout, or why not (as `program`) on stderr.
pub fn print(program: &str, text: &str) -> std::process::ExitCode {
    use std::io::Write;
    match std::io::stdout().write_all(text.as_bytes()) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("{program}: cannot write the document: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// Whether `text` is exactly what [`document_text`] prints (same content, same layout).
pub fn committed_text_matches(text: &str) -> bool {
    text == document_text()
}

pub(crate) fn sorted(value: Value) -> Value {
    match value {
        Value::Object(object) => {
            let mut entries: Vec<(String, Value)> = object.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            let mut out = Map::new();
            for (key, value) in entries {
                out.insert(key, sorted(value));
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
        other => other,
    }
}

#[cfg(test)]
mod tests;
