//! GetPlayerConnectionDetails against a mocked SDK client: what it sends (in batches of
//! 25), what it reads back (relays and token, or the game server's own address), and each
//! way GameLift can refuse (no such game session, one that is over, throttling, ...).

use aws_sdk_gamelift::Client;
use aws_sdk_gamelift::operation::get_player_connection_details::GetPlayerConnectionDetailsOutput;
use aws_sdk_gamelift::primitives::DateTime;
use aws_sdk_gamelift::types::{PlayerConnectionDetail, PlayerConnectionEndpoint};
use aws_smithy_mocks::mock;

use super::*;
use crate::gamelift_mocks::{
    Case, assert_refusals, bare_status, gamelift, kind, refusal, wire_error,
};

const ARN: &str = "arn:aws:gamelift:eu-west-1::gamesession/fleet-2222bbbb-33cc-44dd-55ee-6666ffff77aa/gsess-4444dddd";
const EXPIRES_AT: i64 = 1_795_324_200_000;

fn player(name: &str) -> PlayerId {
    PlayerId::parse(name).unwrap()
}

fn endpoint(ip: &str, port: i32) -> PlayerConnectionEndpoint {
    PlayerConnectionEndpoint::builder()
        .ip_address(ip)
        .port(port)
        .build()
}

/// A player's entry behind player gateway: two relays and a token.
fn relayed(name: &str) -> PlayerConnectionDetail {
    PlayerConnectionDetail::builder()
        .player_id(name)
        .endpoints(endpoint("198.51.100.7", 4100))
        .endpoints(endpoint("198.51.100.8", 4101))
        .player_gateway_token(format!("token-of-{name}"))
        .expiration(DateTime::from_millis(EXPIRES_AT))
        .build()
}

fn answer(details: Vec<PlayerConnectionDetail>) -> GetPlayerConnectionDetailsOutput {
    GetPlayerConnectionDetailsOutput::builder()
        .game_session_id(ARN)
        .set_player_connection_details(Some(details))
        .build()
}

#[tokio::test]
async fn given_a_gateway_fleet_when_asked_for_two_players_then_one_call_gives_each_relays_and_a_dated_token()
 {
    // Given GameLift answering for alice and bob behind player gateway
    let rule = mock!(Client::get_player_connection_details)
        .match_requests(|req| {
            req.game_session_id() == Some(ARN) && req.player_ids() == ["alice", "bob"]
        })
        .then_output(|| answer(vec![relayed("alice"), relayed("bob")]));

    // When both are asked for
    let found = gamelift(&[&rule])
        .get_player_connection_details(ARN, &[player("alice"), player("bob")])
        .await
        .unwrap();

    // Then one call brought both, each with its relays, token and expiry
    assert_eq!(rule.num_calls(), 1);
    assert_eq!(found.len(), 2);
    assert_eq!(found[0].player_id, player("alice"));
    assert_eq!(
        found[0].details,
        ConnectionDetails {
            endpoints: vec![
                ConnectionEndpoint {
                    ip_address: "198.51.100.7".into(),
                    port: 4100
                },
                ConnectionEndpoint {
                    ip_address: "198.51.100.8".into(),
                    port: 4101
                },
            ],
            player_gateway_token: Some("token-of-alice".into()),
            expires_at: Some(EXPIRES_AT),
        }
    );
    assert_eq!(
        found[1].details.player_gateway_token.as_deref(),
        Some("token-of-bob")
    );
}

#[tokio::test]
async fn given_a_fleet_without_the_gateway_then_the_details_are_the_game_server_and_nothing_expires()
 {
    let rule = mock!(Client::get_player_connection_details).then_output(|| {
        answer(vec![
            PlayerConnectionDetail::builder()
                .player_id("alice")
                .endpoints(endpoint("203.0.113.10", 7777))
                .build(),
        ])
    });
    let found = gamelift(&[&rule])
        .get_player_connection_details(ARN, &[player("alice")])
        .await
        .unwrap();
    assert_eq!(
        found[0].details,
        ConnectionDetails::direct("203.0.113.10", 7777)
    );
}

#[tokio::test]
async fn given_more_than_25_players_then_they_are_asked_in_batches_of_25() {
    // Given a game of 30 players
    let players: Vec<PlayerId> = (0..30).map(|i| player(&format!("p{i}"))).collect();
    let rule = mock!(Client::get_player_connection_details)
        .match_requests(|req| (1..=25).contains(&req.player_ids().len()))
        .then_output(|| answer(vec![relayed("p0")]));

    // When all are asked for
    gamelift(&[&rule])
        .get_player_connection_details(ARN, &players)
        .await
        .unwrap();

    // Then GameLift got two calls (25, then 5); none for no players at all
    assert_eq!(rule.num_calls(), 2);
    let none = gamelift(&[&rule])
        .get_player_connection_details(ARN, &[])
        .await
        .unwrap();
    assert!(none.is_empty());
    assert_eq!(rule.num_calls(), 2);
}

#[tokio::test]
async fn given_unusable_entries_then_they_are_left_out_and_the_others_kept() {
    // Given an answer with, besides bob's good entry, one for nobody asked, one with no
    // usable endpoint and one with a token but no expiry
    let rule = mock!(Client::get_player_connection_details).then_output(|| {
        answer(vec![
            relayed("mallory"),
            PlayerConnectionDetail::builder()
                .player_id("alice")
                .endpoints(endpoint("", 4100))
                .endpoints(endpoint("198.51.100.7", 70_000))
                .build(),
            PlayerConnectionDetail::builder()
                .player_id("carol")
                .endpoints(endpoint("198.51.100.7", 4100))
                .player_gateway_token("t")
                .build(),
            relayed("bob"),
        ])
    });
    let found = gamelift(&[&rule])
        .get_player_connection_details(ARN, &[player("alice"), player("bob"), player("carol")])
        .await
        .unwrap();
    // Then only bob's is read: the caller's policy applies to the others
    let ids: Vec<&str> = found.iter().map(|c| c.player_id.as_str()).collect();
    assert_eq!(ids, ["bob"]);
}

/// alice's details in the game session ARN.
async fn alice_details(g: &SdkGameLift) -> Result<Vec<PlayerConnection>, GameLiftError> {
    g.get_player_connection_details(ARN, &[player("alice")])
        .await
}

#[tokio::test]
async fn modeled_errors_map_and_a_read_is_never_an_unknown_outcome() {
    type E = GetPlayerConnectionDetailsError;
    let cases: Vec<Case<E>> = vec![
        (
            refusal!(E::NotFoundException, "no game"),
            "not found: no game",
        ),
        (
            refusal!(E::InvalidGameSessionStatusException, "TERMINATED"),
            "ended: TERMINATED",
        ),
        (refusal!(E::InvalidRequestException, "bad"), "invalid: bad"),
        (refusal!(E::LimitExceededException), "unavailable"),
        (refusal!(E::InternalServiceException), "unavailable"),
        (refusal!(E::UnauthorizedException), "other"),
        (refusal!(E::UnsupportedRegionException), "other"),
    ];
    let refusing = |e| mock!(Client::get_player_connection_details).then_error(e);
    assert_refusals(cases, refusing, alice_details).await;
}

/// Off the wire: a game session GameLift does not know, and throttling (not modeled for
/// this operation, read by its code, or a bare 429), as the client would see them.
#[tokio::test]
async fn wire_errors_not_found_and_throttling_map_by_code() {
    for (status, code, expected) in [
        (400, "NotFoundException", "not found: boom"),
        (400, "ThrottlingException", "unavailable"),
        (400, "LimitExceededException", "unavailable"),
        (400, "InvalidGameSessionStatusException", "ended: boom"),
        (500, "InternalServiceException", "unavailable"),
        (503, "ServiceUnavailableException", "unavailable"),
        (400, "AccessDeniedException", "other"),
    ] {
        let rule = mock!(Client::get_player_connection_details)
            .then_http_response(move || wire_error(status, code, "boom"));
        assert_eq!(
            kind(alice_details(&gamelift(&[&rule])).await),
            expected,
            "{code}"
        );
    }
    let throttled =
        mock!(Client::get_player_connection_details).then_http_response(|| bare_status(429));
    assert_eq!(
        kind(alice_details(&gamelift(&[&throttled])).await),
        "unavailable"
    );
}
