//! Every `events/matchmaking-*.json` sample read as the handler reads its payload.

use serde_json::{Value, json};

use super::*;

const A: &str = "mm-019ab4c0-1f2e-7a3b-8c4d-5e6f7a8b9c0d";
const B: &str = "mm-019ab4c0-2a3b-7c4d-9e5f-6a7b8c9d0e1f";
const MATCH: &str = "4b1f2c3d-5e6f-4a7b-8c9d-0e1f2a3b4c5d";

fn read_one(sample: &str) -> MatchmakingEvent {
    let payload: Value = serde_json::from_str(sample).expect("a sample is JSON");
    let mut events = read_payload(&payload);
    assert_eq!(events.len(), 1);
    events.remove(0).expect("a sample reads")
}

fn ticket_ids(event: &MatchmakingEvent) -> Vec<&str> {
    event.tickets.iter().map(|t| t.ticket_id.as_str()).collect()
}

#[test]
fn given_the_searching_sample_then_its_ticket_is_searching() {
    let event = read_one(include_str!(
        "../../../../events/matchmaking-searching.json"
    ));
    assert_eq!(event.kind, MatchmakingEventKind::Searching);
    assert_eq!(event.status(), Some(TicketStatus::Searching));
    assert_eq!(ticket_ids(&event), vec![A]);
    assert_eq!(event.id, "0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f");
    assert_eq!(event.at, 1_795_323_600_600);
    assert_eq!(
        event.configuration_arn.as_deref(),
        Some(
            "arn:aws:gamelift:eu-west-1:123456789012:matchmakingconfiguration/gamelift-sockets-dev-default"
        )
    );
}

#[test]
fn given_the_potential_match_sample_then_acceptance_is_required_with_its_timeout_and_teams() {
    let event = read_one(include_str!(
        "../../../../events/matchmaking-potential-match-created.json"
    ));
    assert_eq!(
        event.kind,
        MatchmakingEventKind::PotentialMatchCreated {
            acceptance_required: true,
            acceptance_timeout: Some(30)
        }
    );
    assert_eq!(event.status(), Some(TicketStatus::RequiresAcceptance));
    assert_eq!(event.match_id.as_deref(), Some(MATCH));
    assert_eq!(ticket_ids(&event), vec![A, B]);
    let teams: Vec<_> = event.players().map(|p| p.team.as_deref()).collect();
    assert_eq!(teams, vec![Some("red"), Some("blue")]);
}

#[test]
fn given_a_potential_match_without_acceptance_then_the_ticket_is_placing() {
    let mut payload: Value = serde_json::from_str(include_str!(
        "../../../../events/matchmaking-potential-match-created.json"
    ))
    .unwrap();
    payload["detail"]["acceptanceRequired"] = json!(false);
    let event = read_payload(&payload).remove(0).unwrap();
    assert_eq!(event.status(), Some(TicketStatus::Placing));
}

#[test]
fn given_the_accept_match_sample_then_it_carries_each_answer_and_moves_no_ticket() {
    let event = read_one(include_str!(
        "../../../../events/matchmaking-accept-match.json"
    ));
    assert_eq!(event.kind, MatchmakingEventKind::AcceptMatch);
    assert_eq!(event.status(), None);
    let answers: Vec<_> = event.players().map(|p| p.accepted).collect();
    assert_eq!(answers, vec![Some(true), None]);
}

#[test]
fn given_the_accept_match_completed_sample_then_a_rejection_moves_no_ticket_itself() {
    let event = read_one(include_str!(
        "../../../../events/matchmaking-accept-match-completed.json"
    ));
    assert_eq!(
        event.kind,
        MatchmakingEventKind::AcceptMatchCompleted {
            acceptance: Acceptance::Rejected
        }
    );
    assert_eq!(
        event.status(),
        None,
        "SEARCHING or CANCELLED follows per ticket"
    );
    let mut payload: Value = serde_json::from_str(include_str!(
        "../../../../events/matchmaking-accept-match-completed.json"
    ))
    .unwrap();
    payload["detail"]["acceptance"] = json!("Accepted");
    let accepted = read_payload(&payload).remove(0).unwrap();
    assert_eq!(accepted.status(), Some(TicketStatus::Placing));
}

#[test]
fn given_the_succeeded_sample_then_each_player_has_their_own_session_in_one_game() {
    for sample in [
        include_str!("../../../../events/matchmaking-succeeded.json"),
        include_str!("../../../../events/matchmaking-succeeded-sns.json"),
    ] {
        let event = read_one(sample);
        assert_eq!(event.status(), Some(TicketStatus::Completed));
        let MatchmakingEventKind::Succeeded { game_session } = &event.kind else {
            panic!("succeeded: {:?}", event.kind)
        };
        assert_eq!(game_session.port, 7777);
        assert_eq!(game_session.ip_address, "52.30.10.20");
        assert_eq!(
            game_session.dns_name,
            "ec2-52-30-10-20.eu-west-1.compute.amazonaws.com"
        );
        assert_eq!(game_session.region, "eu-west-1");
        assert!(
            game_session
                .game_session_arn
                .ends_with("gsess-0d1e2f3a-4b5c-4d6e-8f70-1a2b3c4d5e6f")
        );
        let seats: Vec<_> = event
            .players()
            .map(|p| {
                (
                    p.player_id.as_str(),
                    p.player_session_id.as_deref().unwrap(),
                    p.team.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            seats,
            vec![
                (
                    "alice",
                    "psess-5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d",
                    Some("red")
                ),
                (
                    "bob",
                    "psess-0f1e2d3c-4b5a-4968-8776-5a4b3c2d1e0f",
                    Some("blue")
                ),
            ]
        );
        assert_eq!(event.match_id.as_deref(), Some(MATCH));
    }
}

#[test]
fn given_a_succeeded_event_whose_tickets_omit_sessions_then_the_game_sessions_list_fills_them() {
    let mut payload: Value = serde_json::from_str(include_str!(
        "../../../../events/matchmaking-succeeded.json"
    ))
    .unwrap();
    payload["detail"]["tickets"][0]["players"][0]
        .as_object_mut()
        .unwrap()
        .remove("playerSessionId");
    payload["detail"]["gameSessionInfo"]["port"] = json!("7778");
    let event = read_payload(&payload).remove(0).unwrap();
    let alice = event.players().next().unwrap();
    assert_eq!(
        alice.player_session_id.as_deref(),
        Some("psess-5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d")
    );
    let MatchmakingEventKind::Succeeded { game_session } = &event.kind else {
        unreachable!()
    };
    assert_eq!(game_session.port, 7778);
}

#[test]
fn given_the_ended_samples_then_each_status_carries_gamelifts_message() {
    for (sample, status, reason) in [
        (
            include_str!("../../../../events/matchmaking-timed-out.json"),
            TicketStatus::TimedOut,
            "Removed from matchmaking due to timing out.",
        ),
        (
            include_str!("../../../../events/matchmaking-cancelled.json"),
            TicketStatus::Cancelled,
            "Cancelled by request.",
        ),
        (
            include_str!("../../../../events/matchmaking-failed.json"),
            TicketStatus::Failed,
            "An unexpected error was encountered during match placing.",
        ),
    ] {
        let event = read_one(sample);
        assert_eq!(
            event.kind,
            MatchmakingEventKind::Ended {
                status,
                reason: Some(reason.to_owned())
            }
        );
        assert_eq!(event.status(), Some(status));
        assert_eq!(ticket_ids(&event), vec![A]);
    }
}

#[test]
fn given_malformed_events_then_each_is_refused_saying_why() {
    let base: Value = serde_json::from_str(include_str!(
        "../../../../events/matchmaking-succeeded.json"
    ))
    .unwrap();
    let with = |edit: &dyn Fn(&mut Value)| {
        let mut payload = base.clone();
        edit(&mut payload);
        read_payload(&payload).remove(0).unwrap_err().to_string()
    };
    assert!(
        with(&|p| p["detail-type"] = json!("GameLift Queue Placement Event"))
            .contains("not a \"GameLift Matchmaking Event\" from aws.gamelift")
    );
    assert!(
        with(&|p| p["detail"]["type"] = json!("MatchmakingExploded"))
            .contains("unknown matchmaking event type")
    );
    assert!(
        with(&|p| p["detail"]["tickets"][0]["ticketId"] = json!("a b"))
            .contains("is not a ticket id")
    );
    assert!(with(&|p| p["detail"]["tickets"] = json!([])).contains("names no ticket"));
    assert!(with(&|p| p["detail"]["gameSessionInfo"]["port"] = json!(-1)).contains("port"));
    assert!(with(&|p| p.as_object_mut().unwrap().retain(|k, _| k != "time")).contains("no `time`"));
    let unknown = read_payload(&json!({"hello": 1})).remove(0).unwrap_err();
    assert!(matches!(
        unknown,
        MalformedMatchmakingEvent::Envelope(EnvelopeError::UnknownShape)
    ));
    let bad_sns = read_payload(&json!({"Records": [{"Sns": {"Message": "{}"}}]}));
    assert!(matches!(
        bad_sns[0],
        Err(MalformedMatchmakingEvent::Envelope(EnvelopeError::NotSns(
            _
        )))
    ));
}
