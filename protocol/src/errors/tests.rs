use serde_json::{Value, json};

use super::*;
use crate::frames::{ServerFrame, UntypedRequest};

fn frame(reply: ErrorReply) -> ServerFrame {
    let request = UntypedRequest::parse(r#"{"route":"sendMessage","requestId":"r1"}"#).unwrap();
    ServerFrame::error_reply(&request, reply)
}

fn ticket(raw: &str) -> TicketId {
    TicketId::parse(raw).unwrap()
}

fn player(raw: &str) -> PlayerId {
    PlayerId::parse(raw).unwrap()
}

/// The frames as clients received them before the details were typed, byte for byte
/// (key order included): the typed model writes the same text.
#[test]
fn given_each_kind_of_error_when_written_then_the_frame_is_the_text_clients_received_before() {
    let cases = [
        (
            ErrorReply::rate_limited(
                "over the limit of 5 messages a minute; nothing was done; retry in 45000 ms",
                RateLimitedDetail {
                    retry_after_ms: 45_000,
                },
            ),
            r#"{"type":"error","route":"sendMessage","requestId":"r1","code":"rate_limited","message":"over the limit of 5 messages a minute; nothing was done; retry in 45000 ms","retryAfterMs":45000}"#,
        ),
        (
            ErrorReply::not_found(
                "no player has the id bob, carol; nothing was sent",
                NotFoundDetail {
                    player_ids: Some(vec![player("bob"), player("carol")]),
                    ..NotFoundDetail::default()
                },
            ),
            r#"{"type":"error","route":"sendMessage","requestId":"r1","code":"not_found","message":"no player has the id bob, carol; nothing was sent","playerIds":["bob","carol"]}"#,
        ),
        (
            ErrorReply::conflict(
                "bob has a live matchmaking ticket mm-1: wait for its result or stopMatchmaking",
                ConflictDetail {
                    player_id: Some(player("bob")),
                    ..ConflictDetail::ticket(ticket("mm-1"))
                },
            ),
            r#"{"type":"error","route":"sendMessage","requestId":"r1","code":"conflict","message":"bob has a live matchmaking ticket mm-1: wait for its result or stopMatchmaking","ticketId":"mm-1","playerId":"bob"}"#,
        ),
        (
            ErrorReply::conflict(
                "you have a pending placement p-1: wait for its result or cancelPlacement",
                ConflictDetail {
                    placement_id: Some(PlacementId::parse("p-1").unwrap()),
                    ..ConflictDetail::default()
                },
            ),
            r#"{"type":"error","route":"sendMessage","requestId":"r1","code":"conflict","message":"you have a pending placement p-1: wait for its result or cancelPlacement","placementId":"p-1"}"#,
        ),
        (
            ErrorReply::conflict(
                "ticket mm-1 is SEARCHING",
                ConflictDetail {
                    status: Some(TicketStatus::Searching),
                    ..ConflictDetail::ticket(ticket("mm-1"))
                },
            ),
            r#"{"type":"error","route":"sendMessage","requestId":"r1","code":"conflict","message":"ticket mm-1 is SEARCHING","ticketId":"mm-1","status":"SEARCHING"}"#,
        ),
        (
            ErrorReply::session_ended(
                "the game session has ended",
                SessionEndedDetail {
                    game_session_arn: Some("arn:gs".into()),
                    ..SessionEndedDetail::default()
                },
            ),
            r#"{"type":"error","route":"sendMessage","requestId":"r1","code":"session_ended","message":"the game session has ended","gameSessionArn":"arn:gs"}"#,
        ),
        (
            ErrorReply::not_found(
                "you have no live matchmaking ticket",
                NotFoundDetail::ticket(ticket("mm-2")),
            ),
            r#"{"type":"error","route":"sendMessage","requestId":"r1","code":"not_found","message":"you have no live matchmaking ticket","ticketId":"mm-2"}"#,
        ),
        (
            ErrorReply::forbidden("only the leader may kick", ForbiddenDetail::default()),
            r#"{"type":"error","route":"sendMessage","requestId":"r1","code":"forbidden","message":"only the leader may kick"}"#,
        ),
    ];
    for (reply, text) in cases {
        let frame = frame(reply);
        assert_eq!(frame.to_json(), text);
        assert_eq!(
            serde_json::from_str::<ServerFrame>(text).unwrap(),
            frame,
            "read back: {text}"
        );
    }
}

#[test]
fn given_a_conflict_over_a_seat_elsewhere_then_a_null_current_game_session_is_kept_apart_from_none()
{
    let reply = |current| {
        ErrorReply::conflict(
            "alice's game session is not g",
            ConflictDetail {
                current_game_session_id: current,
                ..ConflictDetail::default()
            },
        )
    };
    for (current, fields) in [
        (Some(None), json!({"currentGameSessionId": null})),
        (
            Some(Some("g2".to_owned())),
            json!({"currentGameSessionId": "g2"}),
        ),
        (None, json!({})),
    ] {
        let reply = reply(current);
        let mut expected = json!({"code": "conflict", "message": "alice's game session is not g"});
        expected
            .as_object_mut()
            .unwrap()
            .extend(fields.as_object().unwrap().clone());
        let value = serde_json::to_value(&reply).unwrap();
        assert_eq!(value, expected);
        assert_eq!(serde_json::from_value::<ErrorReply>(value).unwrap(), reply);
    }
}

#[test]
fn given_every_code_then_its_name_is_what_serde_writes_and_new_makes_an_error_of_it() {
    for &code in ErrorCode::ALL {
        assert_eq!(serde_json::to_value(code).unwrap(), json!(code.as_str()));
        let reply = ErrorReply::new(code, ErrorMessage::new("m"));
        assert_eq!(reply.code(), code);
        let value = serde_json::to_value(&reply).unwrap();
        assert_eq!(
            (&value["code"], &value["message"]),
            (&json!(code.as_str()), &json!("m"))
        );
    }
}

#[test]
fn given_an_error_when_its_message_is_taken_apart_then_the_rest_has_no_message() {
    let (message, rest) =
        ErrorReply::bad_request("`message` is required", FieldDetail::named("message"))
            .into_parts();
    assert_eq!(message, "`message` is required");
    assert_eq!(rest.code(), ErrorCode::BadRequest);
    assert_eq!(
        serde_json::to_value(&rest).unwrap(),
        json!({"code": "bad_request", "field": "message"})
    );
}

#[test]
fn given_an_error_with_fields_of_another_code_when_read_then_they_are_not_taken() {
    let reply: ErrorReply =
        serde_json::from_value(json!({"code": "forbidden", "message": "no", "ticketId": "t"}))
            .unwrap();
    assert_eq!(
        reply,
        ErrorReply::forbidden("no", ForbiddenDetail::default())
    );
    let unknown = serde_json::from_value::<ErrorReply>(json!({"code": "oops", "message": "no"}));
    assert!(unknown.is_err());
    let _: Value = serde_json::to_value(reply).unwrap();
}
