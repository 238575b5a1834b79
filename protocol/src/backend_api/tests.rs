use serde_json::json;

use super::openapi::{DOCUMENT_PATH, REGENERATE, document_text};
use super::*;

fn read<B: DeserializeOwned>(body: Value) -> Result<B, BodyError> {
    let Value::Object(body) = body else {
        unreachable!("a test body is an object")
    };
    read_request(body)
}

#[test]
fn the_committed_openapi_document_is_the_generated_one() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../docs/backend-api.openapi.json"
    );
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        committed == document_text(),
        "{DOCUMENT_PATH} is out of date with the Rust types; regenerate it from the workspace root:\n  {REGENERATE}"
    );
}

#[test]
fn given_a_bad_send_messages_body_then_the_error_names_the_top_level_field() {
    for (body, field, says) in [
        (
            json!({"playerIds": ["alice"]}),
            "message",
            "`message` is required",
        ),
        (json!({"playerIds": ["a b"], "message": 1}), "playerIds", ""),
        (
            json!({"playerIds": "alice", "message": 1}),
            "playerIds",
            "`playerIds` must be an array of player ids, got a string",
        ),
        (
            json!({"partyId": 7, "message": 1}),
            "partyId",
            "`partyId` must be a string, got a number",
        ),
        (
            json!({"playerIds": ["alice"], "message": 1, "from": "no spaces"}),
            "from",
            "`from` must be `system` or a service name of 1-64 A-Z a-z 0-9 . _ : @ -",
        ),
    ] {
        let error = read::<SendMessagesRequest>(body.clone()).expect_err("refused");
        assert_eq!(error.field, field, "{body}: {error:?}");
        if !says.is_empty() {
            assert_eq!(error.message, says, "{body}");
        }
    }
}

#[test]
fn given_both_audiences_or_none_then_the_audience_is_refused_naming_the_field() {
    let both: SendMessagesRequest =
        read(json!({"playerIds": ["alice"], "partyId": "p1", "message": 1})).unwrap();
    assert_eq!(both.audience().unwrap_err().field, "partyId");
    let none: SendMessagesRequest = read(json!({"message": null, "partyId": null})).unwrap();
    assert_eq!(none.audience().unwrap_err().field, "playerIds");
    let players: SendMessagesRequest =
        read(json!({"playerIds": ["bob", "bob", "carol"], "message": {"t": 1}})).unwrap();
    assert_eq!(
        players.audience().unwrap(),
        Audience::Players(vec![
            PlayerId::parse("bob").unwrap(),
            PlayerId::parse("carol").unwrap()
        ])
    );
}

#[test]
fn given_an_end_connection_body_then_reason_and_from_are_checked() {
    let empty: EndConnectionRequest = read(json!({})).unwrap();
    assert_eq!(empty, EndConnectionRequest::default());
    for (body, field) in [
        (json!({"reason": ""}), "reason"),
        (json!({"reason": "x".repeat(MAX_REASON_LEN + 1)}), "reason"),
        (json!({"reason": 3}), "reason"),
        (json!({"from": ""}), "from"),
    ] {
        let error = read::<EndConnectionRequest>(body.clone()).expect_err("refused");
        assert_eq!(error.field, field, "{body}: {error:?}");
    }
}
