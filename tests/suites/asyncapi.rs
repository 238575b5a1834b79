//! protocol/asyncapi.yaml, the AsyncAPI 3 document of the WebSocket, against the JSON
//! Schema it references (protocol/schema.json, itself checked against the Rust types by
//! the protocol crate's tests): every reference resolves, a client sends `ClientFrame` and
//! receives `ServerFrame`, and every example is a frame the schema allows.

use std::collections::BTreeSet;

use serde_json::{Value, json};

const ASYNCAPI: &str = include_str!("../../protocol/asyncapi.yaml");
const SCHEMA: &str = include_str!("../../protocol/schema.json");
const SCHEMA_FILE: &str = "./schema.json";

fn document() -> Value {
    local::template::parse(ASYNCAPI).expect("protocol/asyncapi.yaml is YAML")
}

fn schema() -> Value {
    serde_json::from_str(SCHEMA).expect("protocol/schema.json is JSON")
}

/// Every `$ref` in `value`, depth first.
fn refs(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(object) => {
            for (key, value) in object {
                match (key.as_str(), value) {
                    ("$ref", Value::String(target)) => out.push(target.clone()),
                    _ => refs(value, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| refs(item, out)),
        _ => {}
    }
}

/// A `#/…` reference inside the document.
fn resolve<'a>(document: &'a Value, target: &str) -> &'a Value {
    let pointer = target
        .strip_prefix('#')
        .unwrap_or_else(|| panic!("{target} is not a local reference"));
    document
        .pointer(pointer)
        .unwrap_or_else(|| panic!("{target} points at nothing in protocol/asyncapi.yaml"))
}

/// The message an operation sends or receives, followed through its references.
fn operation_message<'a>(document: &'a Value, operation: &str) -> &'a Value {
    let messages = document["operations"][operation]["messages"]
        .as_array()
        .unwrap_or_else(|| panic!("operation {operation} lists its messages"));
    assert_eq!(messages.len(), 1, "{operation}: one message");
    let mut message = &messages[0];
    while let Some(target) = message.get("$ref").and_then(Value::as_str) {
        message = resolve(document, target);
    }
    message
}

/// The `$defs` name a message's payload references in schema.json.
fn payload_def(message: &Value) -> &str {
    let payload = &message["payload"];
    assert_eq!(
        payload["schemaFormat"], "application/schema+json;version=2020-12",
        "the payload says which JSON Schema it is"
    );
    payload["schema"]["$ref"]
        .as_str()
        .and_then(|r| r.strip_prefix(SCHEMA_FILE))
        .and_then(|r| r.strip_prefix("#/$defs/"))
        .unwrap_or_else(|| panic!("the payload references schema.json's $defs: {payload}"))
}

fn validator(def: &str) -> jsonschema::Validator {
    let mut root = schema();
    root["$ref"] = json!(format!("#/$defs/{def}"));
    root.as_object_mut().unwrap().remove("anyOf");
    jsonschema::draft202012::new(&root).unwrap()
}

#[test]
fn given_the_asyncapi_document_then_it_is_asyncapi_3_with_one_channel_and_a_send_and_a_receive() {
    let document = document();
    assert_eq!(document["asyncapi"], "3.0.0");
    assert!(document["info"]["title"].is_string() && document["info"]["version"].is_string());
    let channels = document["channels"].as_object().unwrap();
    assert_eq!(
        channels.keys().collect::<Vec<_>>(),
        ["socket"],
        "one channel: the WebSocket"
    );
    let operations = document["operations"].as_object().unwrap();
    let actions: BTreeSet<(&str, &str)> = operations
        .iter()
        .map(|(name, op)| {
            assert_eq!(op["channel"]["$ref"], "#/channels/socket", "{name}");
            (name.as_str(), op["action"].as_str().unwrap())
        })
        .collect();
    assert_eq!(
        actions,
        BTreeSet::from([
            ("receiveServerFrame", "receive"),
            ("sendClientFrame", "send")
        ])
    );
    for server in document["servers"].as_object().unwrap().values() {
        assert!(
            matches!(server["protocol"].as_str(), Some("ws" | "wss")),
            "{server}"
        );
    }
}

#[test]
fn given_every_reference_then_it_resolves_in_the_document_or_in_the_schemas_defs() {
    let (document, schema) = (document(), schema());
    let mut targets = Vec::new();
    refs(&document, &mut targets);
    assert!(!targets.is_empty());
    for target in targets {
        if let Some(def) = target.strip_prefix(SCHEMA_FILE) {
            let pointer = def.strip_prefix('#').unwrap();
            assert!(
                schema.pointer(pointer).is_some(),
                "protocol/asyncapi.yaml references {target}, which protocol/schema.json lacks"
            );
        } else {
            resolve(&document, &target);
        }
    }
}

#[test]
fn given_the_operations_then_a_client_sends_client_frames_and_receives_server_frames_and_every_example_is_one()
 {
    let document = document();
    for (operation, def) in [
        ("sendClientFrame", "ClientFrame"),
        ("receiveServerFrame", "ServerFrame"),
    ] {
        let message = operation_message(&document, operation);
        assert_eq!(payload_def(message), def, "{operation}");
        assert_eq!(message["contentType"], "application/json");
        let validator = validator(def);
        let examples = message["examples"].as_array().unwrap();
        assert!(!examples.is_empty(), "{def} has examples");
        for example in examples {
            let payload = &example["payload"];
            let problems: Vec<String> = validator
                .iter_errors(payload)
                .map(|e| e.to_string())
                .collect();
            assert!(
                problems.is_empty(),
                "the {def} example {} is not one: {problems:?}",
                example["name"]
            );
        }
    }
}

#[test]
fn given_a_frame_the_schema_refuses_then_the_examples_check_would_catch_it() {
    // The check above means something: a request to no route is no ClientFrame.
    let validator = validator("ClientFrame");
    assert!(!validator.is_valid(&json!({"route": "dance", "requestId": "r1"})));
    assert!(validator.is_valid(&json!({"route": "resume", "body": {}})));
}
