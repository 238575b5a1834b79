use std::collections::BTreeSet;

use serde_json::json;

use super::*;
use crate::requests::Route;

fn committed() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/schema.json");
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"))
}

fn validator(def: &str) -> jsonschema::Validator {
    let mut root = document();
    root["$ref"] = json!(format!("#/$defs/{def}"));
    root.as_object_mut().unwrap().remove("anyOf");
    jsonschema::draft202012::new(&root).unwrap()
}

#[test]
fn the_committed_schema_is_the_generated_one() {
    let text = committed();
    let committed: Value = serde_json::from_str(&text).expect("schema.json is JSON");
    assert!(
        committed == document(),
        "protocol/schema.json is out of date with the Rust types; regenerate it from the workspace root:\n  {REGENERATE}"
    );
    assert!(
        committed_text_matches(&text),
        "protocol/schema.json is not formatted as generated; regenerate it:\n  {REGENERATE}"
    );
}

#[test]
fn every_route_has_exactly_one_client_frame_and_every_frame_a_route() {
    let doc = document();
    let variants = doc["$defs"]["ClientFrame"]["oneOf"].as_array().unwrap();
    let in_schema: BTreeSet<&str> = variants
        .iter()
        .map(|v| v["properties"]["route"]["const"].as_str().unwrap())
        .collect();
    let routes: BTreeSet<&str> = Route::ALL.iter().map(|route| route.as_str()).collect();
    assert_eq!(
        in_schema, routes,
        "requests::ClientRequest must have one variant per route in Route::ALL"
    );
    assert_eq!(variants.len(), Route::ALL.len());
}

#[test]
fn server_frames_are_a_one_of_with_seq_required_on_pushed_frames_only() {
    let doc = document();
    let variants = doc["$defs"]["ServerFrame"]["oneOf"].as_array().unwrap();
    for variant in variants {
        let kind = variant["properties"]["type"]["const"].as_str().unwrap();
        let has_seq = variant["required"]
            .as_array()
            .is_some_and(|r| r.contains(&json!("seq")));
        let pushed = matches!(
            kind,
            "message"
                | "placement"
                | "presence"
                | "party"
                | "party_invite"
                | "party_invite_declined"
                | "disconnected_by_server"
                | "matchmaking"
                | "friend"
        );
        assert_eq!(has_seq, pushed, "{kind}");
    }
}

#[test]
fn given_frames_the_server_sends_then_they_validate_and_broken_ones_do_not() {
    let server = validator("ServerFrame");
    for good in [
        json!({"type":"ack","route":"heartbeat","requestId":"2","serverTime":1}),
        json!({"type":"error","code":"bad_request","message":"no"}),
        json!({"type":"message","messageId":"01K","from":"alice","message":{"text":"gg"},"sentAt":1,"seq":7}),
        json!({"type":"placement","placementId":"c2-9","status":"FULFILLED","gameSession":{"gameSessionArn":"arn","ipAddress":"127.0.0.1","dnsName":"localhost","port":7777,"region":"local","playerSessionId":"psess-1"},"seq":8}),
        json!({"type":"session_replaced"}),
        json!({"type":"disconnected","reason":"heartbeat_timeout"}),
    ] {
        assert!(server.is_valid(&good), "{good}");
    }
    for bad in [
        json!({"type":"message","messageId":"01K","from":"alice","message":1,"sentAt":1}),
        json!({"type":"placement","placementId":"p","status":"DONE","seq":1}),
        json!({"type":"error","code":"oops","message":"no"}),
        json!({"type":"dance"}),
    ] {
        assert!(!server.is_valid(&bad), "{bad}");
    }
}

#[test]
fn given_requests_a_client_writes_then_they_validate_as_client_frames() {
    let client = validator("ClientFrame");
    let frames = [
        ClientRequest::Resume {
            request_id: Some("1".into()),
            body: Default::default(),
        },
        ClientRequest::Ping,
        serde_json::from_value(
            json!({"route":"sendMessage","body":{"playerIds":["bob"],"message":{"t":1}}}),
        )
        .unwrap(),
        serde_json::from_value(
            json!({"route":"joinParty","requestId":"r","body":{"partyId":"p1"}}),
        )
        .unwrap(),
    ];
    for frame in frames {
        let value = serde_json::to_value(&frame).unwrap();
        assert!(client.is_valid(&value), "{value}");
        // And the server reads it as the same route.
        let parsed = crate::frames::UntypedRequest::parse(&frame.to_json()).unwrap();
        assert_eq!(parsed.route, frame.route().as_str());
    }
    assert!(!client.is_valid(&json!({"route":"sendMessage","body":{"playerIds":[]}})));
    assert!(!client.is_valid(&json!({"route":"dance"})));
}
