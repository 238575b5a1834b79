//! `shared::seats::SeatConnector` on the fake GameLift: each mode's seats, one call per
//! game session, the failure policy (here, not in `shared`'s unit tests, so that the fake
//! and the connector share one `shared`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use contracts::fake_gamelift::{FAKE_RELAYS, FakeGameLift};
use shared::config::PlayerGateway;
use shared::domain::{ConnectionDetails, GameSession, PlayerId};
use shared::ports::GameLiftError;
use shared::seats::SeatConnector;

const ARN: &str = "arn:aws:gamelift:eu-west-1::gamesession/fleet-1/gs-1";

fn player(name: &str) -> PlayerId {
    PlayerId::parse(name).unwrap()
}

fn seat(name: &str) -> (PlayerId, GameSession) {
    (
        player(name),
        GameSession {
            game_session_arn: ARN.into(),
            ip_address: "203.0.113.10".into(),
            dns_name: "host.example".into(),
            port: 7777,
            region: "eu-west-1".into(),
            player_session_id: format!("psess-{name}"),
            connection: None,
            connection_unavailable: false,
        },
    )
}

fn connector(mode: PlayerGateway) -> (Arc<FakeGameLift>, SeatConnector) {
    let fake = Arc::new(FakeGameLift::new());
    (fake.clone(), SeatConnector::new(mode, fake))
}

#[tokio::test]
async fn given_the_gateway_disabled_when_seats_are_connected_then_gamelift_is_not_asked_and_they_go_direct()
 {
    let (fake, connector) = connector(PlayerGateway::Disabled);
    let seats = connector
        .connect(ARN, vec![seat("alice"), seat("bob")])
        .await;
    assert!(fake.connection_details_calls().is_empty());
    for (_, seat) in seats {
        assert_eq!(
            seat.connection,
            Some(ConnectionDetails::direct("203.0.113.10", 7777))
        );
    }
}

#[tokio::test]
async fn given_a_gateway_fleet_when_a_game_sessions_seats_are_connected_then_one_call_gives_each_their_relays_and_token()
 {
    for mode in [PlayerGateway::Enabled, PlayerGateway::Required] {
        let (fake, connector) = connector(mode);
        fake.with_player_gateway(900_000);
        let seats = connector
            .connect(ARN, vec![seat("alice"), seat("bob"), seat("carol")])
            .await;
        let calls = fake.connection_details_calls();
        assert_eq!(calls.len(), 1, "{mode}");
        assert_eq!(calls[0].game_session_arn, ARN);
        assert_eq!(calls[0].players.len(), 3);
        let tokens: Vec<_> = seats
            .iter()
            .map(|(_, s)| {
                let c = s.connection.as_ref().unwrap();
                assert_eq!(c.endpoints[0].ip_address, FAKE_RELAYS[0].0);
                assert_eq!(c.expires_at, Some(900_000));
                c.player_gateway_token.clone().unwrap()
            })
            .collect();
        assert_eq!(tokens.len(), 3);
        assert!(tokens[0] != tokens[1] && tokens[1] != tokens[2]);
    }
}

#[tokio::test]
async fn given_the_call_fails_then_enabled_seats_go_direct_and_required_ones_are_unavailable() {
    for (mode, direct) in [
        (PlayerGateway::Enabled, true),
        (PlayerGateway::Required, false),
    ] {
        let (fake, connector) = connector(mode);
        fake.fail_next_connection_details(GameLiftError::Unavailable("throttled".into()));
        let seats = connector
            .connect(ARN, vec![seat("alice"), seat("bob")])
            .await;
        for (_, seat) in seats {
            assert_eq!(seat.connection.is_some(), direct, "{mode}");
            assert_eq!(seat.connection_unavailable, !direct, "{mode}");
        }
    }
}

#[tokio::test]
async fn given_gamelift_leaves_a_player_out_then_only_that_player_gets_the_failure_policy() {
    let (fake, connector) = connector(PlayerGateway::Required);
    fake.next_connection_details(vec![shared::ports::PlayerConnection {
        player_id: player("bob"),
        details: ConnectionDetails::direct("198.51.100.9", 4000),
    }]);
    let seats = connector
        .connect(ARN, vec![seat("alice"), seat("bob")])
        .await;
    assert!(seats[0].1.connection_unavailable);
    assert_eq!(
        seats[1].1.connection,
        Some(ConnectionDetails::direct("198.51.100.9", 4000))
    );
}

#[tokio::test]
async fn given_a_refresh_when_the_game_is_over_then_that_is_the_answer_and_other_failures_get_the_policy()
 {
    let (fake, connector) = connector(PlayerGateway::Required);
    fake.fail_next_connection_details(GameLiftError::SessionEnded {
        message: "TERMINATED".into(),
    });
    let (alice, her_seat) = seat("alice");
    assert!(matches!(
        connector.refresh(&alice, her_seat.clone()).await,
        Err(GameLiftError::SessionEnded { .. })
    ));
    fake.fail_next_connection_details(GameLiftError::Unavailable("throttled".into()));
    let refreshed = connector.refresh(&alice, her_seat.clone()).await.unwrap();
    assert!(refreshed.connection_unavailable);
    fake.with_player_gateway(5_000);
    let refreshed = connector.refresh(&alice, her_seat).await.unwrap();
    assert_eq!(refreshed.connection.unwrap().expires_at, Some(5_000));
    assert_eq!(fake.connection_details_calls().len(), 3);
}

#[tokio::test]
async fn given_the_connector_a_disabled_wiring_builds_when_seats_are_connected_then_they_go_direct_without_a_port()
 {
    let seats = SeatConnector::disabled()
        .connect(ARN, vec![seat("alice")])
        .await;
    let (_, seat) = &seats[0];
    let direct = seat.connection.as_ref().expect("the game server's address");
    assert_eq!(direct.endpoints[0].ip_address, "203.0.113.10");
    assert!(!seat.connection_unavailable);
}
