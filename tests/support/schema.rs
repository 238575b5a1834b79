//! Every frame the server sends in the end-to-end suites is checked against the
//! committed protocol/schema.json (`$defs.ServerFrame`), so the published schema cannot
//! drift from what the server really sends. The schema is read from the file itself;
//! the protocol crate's own test keeps that file equal to what the Rust types generate.

use std::sync::OnceLock;

use serde_json::Value;

const SCHEMA: &str = include_str!("../../protocol/schema.json");

/// The committed protocol/schema.json.
pub fn document() -> Value {
    serde_json::from_str(SCHEMA).expect("protocol/schema.json is JSON")
}

/// A validator of one of the schema's `$defs` (`ServerFrame`, `ClientFrame`).
fn validator(def: &str) -> jsonschema::Validator {
    let mut root = document();
    let object = root.as_object_mut().expect("the schema is an object");
    object.remove("anyOf");
    object.insert("$ref".into(), Value::from(format!("#/$defs/{def}")));
    jsonschema::draft202012::new(&root).expect("protocol/schema.json is a valid schema")
}

fn server_frame() -> &'static jsonschema::Validator {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| validator("ServerFrame"))
}

/// The validator of `$defs.ClientFrame`: what a client may send.
pub fn client_frame() -> &'static jsonschema::Validator {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| validator("ClientFrame"))
}

/// Panics, naming every violation, when `text` is not a `ServerFrame` of the schema.
pub fn assert_server_frame(text: &str) {
    let frame: Value = match serde_json::from_str(text) {
        Ok(frame) => frame,
        Err(e) => panic!("the server sent a frame that is not JSON ({e}): {text}"),
    };
    let errors: Vec<String> = server_frame()
        .iter_errors(&frame)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "the server sent a frame protocol/schema.json does not allow: {text}\n  {}",
        errors.join("\n  ")
    );
}
