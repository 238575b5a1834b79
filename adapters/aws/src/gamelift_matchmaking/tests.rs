//! The FlexMatch calls against a mocked SDK client: what each sends, and each way
//! GameLift can refuse (success, throttling, invalid request, unknown outcome, ...).

use std::collections::BTreeMap;

use aws_sdk_gamelift::Client;
use aws_sdk_gamelift::operation::accept_match::AcceptMatchOutput;
use aws_sdk_gamelift::operation::start_matchmaking::StartMatchmakingOutput;
use aws_sdk_gamelift::operation::stop_matchmaking::StopMatchmakingOutput;
use aws_smithy_mocks::mock;

use super::*;
use aws_sdk_gamelift::config::http::HttpResponse;

use crate::gamelift_mocks::{
    Case, assert_refusals, bare_status, gamelift, kind, refusal, wire_error,
};

const TICKET: &str = "mm-019ab4c0-1f2e-7a3b-8c4d-5e6f7a8b9c0d";

fn ticket() -> TicketId {
    TicketId::parse(TICKET).unwrap()
}

fn player_id(name: &str) -> PlayerId {
    PlayerId::parse(name).unwrap()
}

fn request() -> MatchmakingRequest {
    MatchmakingRequest {
        ticket_id: ticket(),
        configuration: "ranked".into(),
        players: vec![
            MatchmakingPlayer {
                player_id: player_id("alice"),
                attributes: BTreeMap::from([
                    ("skill".into(), AttributeValue::Number(23.0)),
                    ("mode".into(), AttributeValue::String("duel".into())),
                    (
                        "maps".into(),
                        AttributeValue::StringList(vec!["a".into(), "b".into()]),
                    ),
                    (
                        "roles".into(),
                        AttributeValue::StringNumberMap(BTreeMap::from([("tank".into(), 1.0)])),
                    ),
                ]),
                latencies: vec![("eu-west-1".into(), 42)],
            },
            MatchmakingPlayer {
                player_id: player_id("bob"),
                attributes: BTreeMap::new(),
                latencies: Vec::new(),
            },
        ],
    }
}

#[tokio::test]
async fn given_a_party_ticket_when_started_then_every_player_goes_with_their_attributes_and_latencies()
 {
    let rule = mock!(Client::start_matchmaking)
        .match_requests(|req| {
            let players = req.players();
            let alice = &players[0];
            let attributes = alice.player_attributes().cloned().unwrap_or_default();
            req.ticket_id() == Some(TICKET)
                && req.configuration_name() == Some("ranked")
                && players.len() == 2
                && alice.player_id() == Some("alice")
                && attributes["skill"].n() == Some(23.0)
                && attributes["mode"].s() == Some("duel")
                && attributes["maps"].sl() == ["a", "b"]
                && attributes["roles"].sdm().map(|m| m["tank"]) == Some(1.0)
                && alice.latency_in_ms().map(|l| l["eu-west-1"]) == Some(42)
                && alice.team().is_none()
                && players[1].player_id() == Some("bob")
                && players[1].player_attributes().is_none()
                && players[1].latency_in_ms().is_none()
        })
        .then_output(|| StartMatchmakingOutput::builder().build());
    gamelift(&[&rule])
        .start_matchmaking(&request())
        .await
        .expect("started");
    assert_eq!(rule.num_calls(), 1);
}

#[tokio::test]
async fn given_an_answer_when_sent_then_accept_match_names_the_ticket_players_and_answer() {
    for (accept, expected) in [
        (true, AcceptanceType::Accept),
        (false, AcceptanceType::Reject),
    ] {
        let rule = mock!(Client::accept_match)
            .match_requests(move |req| {
                req.ticket_id() == Some(TICKET)
                    && req.player_ids() == ["alice", "bob"]
                    && req.acceptance_type() == Some(&expected)
            })
            .then_output(|| AcceptMatchOutput::builder().build());
        gamelift(&[&rule])
            .accept_match(&ticket(), &[player_id("alice"), player_id("bob")], accept)
            .await
            .expect("answered");
        assert_eq!(rule.num_calls(), 1);
    }
}

#[tokio::test]
async fn given_a_ticket_when_stopped_then_stop_matchmaking_names_it() {
    let rule = mock!(Client::stop_matchmaking)
        .match_requests(|req| req.ticket_id() == Some(TICKET))
        .then_output(|| StopMatchmakingOutput::builder().build());
    gamelift(&[&rule])
        .stop_matchmaking(&ticket())
        .await
        .expect("stopped");
    assert_eq!(rule.num_calls(), 1);
}

#[tokio::test]
async fn given_each_modeled_refusal_then_every_call_maps_it_alike() {
    macro_rules! cases {
        ($error:ident) => {{
            type E = $error;
            let cases: [Case<E>; 4] = [
                (
                    refusal!(E::InvalidRequestException, "not now"),
                    "invalid: not now",
                ),
                (refusal!(E::NotFoundException, "gone"), "not found: gone"),
                (refusal!(E::InternalServiceException), "unknown"),
                (refusal!(E::UnsupportedRegionException), "other"),
            ];
            cases
        }};
    }
    let start = |e| mock!(Client::start_matchmaking).then_error(e);
    assert_refusals(cases!(StartMatchmakingError), start, async |g| {
        g.start_matchmaking(&request()).await
    })
    .await;
    let accept = |e| mock!(Client::accept_match).then_error(e);
    assert_refusals(cases!(AcceptMatchError), accept, async |g| {
        g.accept_match(&ticket(), &[player_id("alice")], true).await
    })
    .await;
    let stop = |e| mock!(Client::stop_matchmaking).then_error(e);
    assert_refusals(cases!(StopMatchmakingError), stop, async |g| {
        g.stop_matchmaking(&ticket()).await
    })
    .await;
}

/// Each FlexMatch call (start, accept, stop) answered with `response`: its outcome, in a
/// word.
async fn outcomes(
    response: impl Fn() -> HttpResponse + Clone + Send + Sync + 'static,
) -> [String; 3] {
    let start = mock!(Client::start_matchmaking).then_http_response(response.clone());
    let accept = mock!(Client::accept_match).then_http_response(response.clone());
    let stop = mock!(Client::stop_matchmaking).then_http_response(response);
    let gamelift = gamelift(&[&start, &accept, &stop]);
    [
        kind(gamelift.start_matchmaking(&request()).await),
        kind(
            gamelift
                .accept_match(&ticket(), &[player_id("alice")], false)
                .await,
        ),
        kind(gamelift.stop_matchmaking(&ticket()).await),
    ]
}

/// Off the wire: throttling is `unavailable` (nothing was done), an invalid request
/// says GameLift's message, a 5xx may have been acted on.
#[tokio::test]
async fn given_wire_errors_then_throttling_invalid_and_unknown_outcomes_map_on_every_call() {
    for (status, code, expected) in [
        (400, "ThrottlingException", "unavailable"),
        (400, "InvalidRequestException", "invalid: boom"),
        (400, "NotFoundException", "not found: boom"),
        (500, "InternalServiceException", "unknown"),
        (503, "ServiceUnavailableException", "unknown"),
        (400, "AccessDeniedException", "other"),
    ] {
        let outcomes = outcomes(move || wire_error(status, code, "boom")).await;
        assert_eq!(outcomes, [expected; 3], "{code} on start, accept, stop");
    }
}

#[tokio::test]
async fn given_bare_statuses_then_429_is_unavailable_and_a_gateway_timeout_an_unknown_outcome() {
    for (status, expected) in [(429, "unavailable"), (504, "unknown"), (403, "other")] {
        let outcomes = outcomes(move || bare_status(status)).await;
        assert_eq!(outcomes, [expected; 3], "{status} on start, accept, stop");
    }
}
