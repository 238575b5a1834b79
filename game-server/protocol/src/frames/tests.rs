use serde_json::json;

use super::*;

/// Frames the official Go SDK 5.6.0 sent, as recorded from a running game server.
const GO_FRAMES: &[&str] = &[
    r#"{"Action":"ActivateServerProcess","RequestId":"f9d5","SdkVersion":"5.6.0","SdkLanguage":"Go","Port":7777,"LogPaths":["/local/game/logs/server.log"]}"#,
    r#"{"Action":"ActivateServerProcess","RequestId":"f9d6","SdkVersion":"5.6.0","SdkLanguage":"Go","Port":7777,"LogPaths":null}"#,
    r#"{"Action":"HeartbeatServerProcess","RequestId":"2543","HealthStatus":true}"#,
    r#"{"Action":"ActivateGameSession","RequestId":"4482","GameSessionId":"arn:aws:gamelift:us-west-2::gamesession/fleet-1/gsess-1"}"#,
    r#"{"Action":"AcceptPlayerSession","RequestId":"ee39","GameSessionId":"arn:aws:gamelift:us-west-2::gamesession/fleet-1/gsess-1","PlayerSessionId":"psess-1"}"#,
    r#"{"Action":"DescribePlayerSessions","RequestId":"ed69","GameSessionId":"arn:aws:gamelift:us-west-2::gamesession/fleet-1/gsess-1"}"#,
    r#"{"Action":"RemovePlayerSession","RequestId":"d73c","GameSessionId":"arn:aws:gamelift:us-west-2::gamesession/fleet-1/gsess-1","PlayerSessionId":"psess-1"}"#,
    r#"{"Action":"GetComputeCertificate","RequestId":"8c6b"}"#,
    r#"{"Action":"UpdatePlayerSessionCreationPolicy","RequestId":"7e30","GameSessionId":"arn:aws:gamelift:us-west-2::gamesession/fleet-1/gsess-1","PlayerSessionPolicy":"DENY_ALL"}"#,
    r#"{"Action":"TerminateServerProcess","RequestId":"e1c9"}"#,
    r#"{"Action":"StartMatchBackfill","RequestId":"b1","GameSessionArn":"arn:aws:gamelift:us-west-2::gamesession/fleet-1/gsess-1","MatchmakingConfigurationArn":"arn:aws:gamelift:us-west-2:123456789012:matchmakingconfiguration/default","TicketId":"","Players":[{"PlayerId":"alice","Team":"red","PlayerAttributes":{"skill":{"AttrType":"DOUBLE","N":23}},"LatencyInMs":{"us-west-2":40}}]}"#,
];

#[test]
fn given_the_go_sdks_frames_when_decoded_then_each_reads_and_encodes_to_the_same_fields() {
    for text in GO_FRAMES {
        let frame = RequestFrame::decode(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        let original: Value = serde_json::from_str(text).unwrap();
        let again: Value = serde_json::from_str(&frame.to_text()).unwrap();
        assert_eq!(again["Action"], original["Action"]);
        assert_eq!(again["RequestId"], original["RequestId"]);
        assert_eq!(frame.request.action(), original["Action"].as_str().unwrap());
    }
}

#[test]
fn given_every_request_action_when_listed_then_each_decodes_with_its_fields() {
    // One frame per name in ACTIONS: the list and the enum are the same set.
    let mut decoded: Vec<&str> = GO_FRAMES
        .iter()
        .map(|text| RequestFrame::decode(text).unwrap().request.action())
        .chain(["StopMatchBackfill", "GetFleetRoleCredentials"].iter().copied().filter(|a| {
            let frame = match *a {
                "StopMatchBackfill" => json!({"Action": a, "RequestId": "1", "GameSessionArn": "g", "MatchmakingConfigurationArn": "c", "TicketId": "t"}),
                _ => json!({"Action": a, "RequestId": "1", "RoleArn": "arn:aws:iam::123456789012:role/r"}),
            };
            RequestFrame::decode(&frame.to_string()).is_ok()
        }))
        .collect();
    decoded.sort_unstable();
    decoded.dedup();
    let mut actions = Request::ACTIONS.to_vec();
    actions.sort_unstable();
    assert_eq!(decoded, actions);
}

#[test]
fn given_bad_frames_when_decoded_then_each_problem_is_named_with_what_could_be_read() {
    let not_json = RequestFrame::decode("hello").unwrap_err();
    assert!(matches!(not_json.problem, FrameProblem::NotJson(_)));
    let unknown = RequestFrame::decode(r#"{"Action":"Dance","RequestId":"r1"}"#).unwrap_err();
    assert_eq!(unknown.request_id.as_deref(), Some("r1"));
    assert!(
        unknown.to_string().contains("AcceptPlayerSession"),
        "{unknown}"
    );
    let missing = RequestFrame::decode(
        r#"{"Action":"AcceptPlayerSession","RequestId":"r2","GameSessionId":"g"}"#,
    )
    .unwrap_err();
    assert_eq!(missing.action.as_deref(), Some("AcceptPlayerSession"));
    assert!(missing.to_string().contains("PlayerSessionId"), "{missing}");
    let no_id = RequestFrame::decode(r#"{"Action":"TerminateServerProcess"}"#).unwrap_err();
    assert_eq!(no_id.problem, FrameProblem::NoRequestId);
}

#[test]
fn given_a_push_when_written_then_it_has_no_request_id_and_reads_back_as_a_push() {
    let push = Push::TerminateProcess(TerminateProcess {
        termination_time: 1_795_323_600_123,
    });
    let text = push.to_text();
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap(),
        json!({"Action": "TerminateProcess", "TerminationTime": 1_795_323_600_123_i64})
    );
    assert_eq!(Inbound::decode(&text).unwrap(), Inbound::Push(push));
}

#[test]
fn given_a_push_with_a_request_id_when_sorted_then_only_status_200_makes_it_a_push() {
    let dropped = r#"{"Action":"TerminateProcess","RequestId":"push-1","TerminationTime":1}"#;
    assert!(matches!(
        Inbound::decode(dropped).unwrap(),
        Inbound::Response { status_code: 0, .. }
    ));
    let taken = r#"{"Action":"TerminateProcess","RequestId":"push-1","StatusCode":200,"TerminationTime":1}"#;
    assert!(matches!(Inbound::decode(taken).unwrap(), Inbound::Push(_)));
}

#[test]
fn given_answers_when_written_then_they_echo_action_and_id_with_a_status() {
    let ok = ResponseFrame::ok(
        "StartMatchBackfill",
        "r1",
        StartMatchBackfillResult {
            ticket_id: "t-1".into(),
        },
    );
    assert_eq!(
        serde_json::from_str::<Value>(&ok.to_text()).unwrap(),
        json!({"Action": "StartMatchBackfill", "RequestId": "r1", "StatusCode": 200, "TicketId": "t-1"})
    );
    let error = ResponseFrame::error(
        "AcceptPlayerSession",
        "r2",
        ErrorKind::BadRequest,
        "player session psess-1 is ACTIVE, not RESERVED".into(),
    );
    let Inbound::Response {
        request_id,
        status_code,
        error_message,
        ..
    } = Inbound::decode(&error.to_text()).unwrap()
    else {
        panic!("an answer");
    };
    assert_eq!((request_id.as_str(), status_code), ("r2", 400));
    assert!(error_message.unwrap().contains("not RESERVED"));
}

#[test]
fn given_a_describe_answer_when_read_then_its_sessions_are_typed() {
    let frame = json!({"Action": "DescribePlayerSessions", "RequestId": "r", "StatusCode": 200,
        "PlayerSessions": [{"PlayerId": "alice", "PlayerSessionId": "psess-1", "Status": "ACTIVE", "Port": 7777}]});
    let result: DescribePlayerSessionsResult = Inbound::result(&frame).unwrap();
    assert_eq!(
        result.player_sessions[0].status,
        Some(PlayerSessionStatus::Active)
    );
    assert_eq!(result.next_token, None);
}
