//! The Rust client keeps its seat's player gateway token fresh on its own, against the
//! local stack: with the simulated fleet's tokens lasting 3 s, a placement's seat is
//! refreshed by the client (the game never asks) before its token expires, and the
//! `ConnectionDetails` event carries the new token and a later expiry.

use std::time::Duration;

use gamelift_sockets_client::protocol::ServerFrame;
use gamelift_sockets_client::protocol::domain::{GameSession, PlacementStatus};
use gamelift_sockets_client::protocol::requests::PlacementRequestBody;
use gamelift_sockets_client::{Auth, Client, Config, Event, Events};
use shared::config::PlayerGateway;
use shared::ports::{Clock, SystemClock};
use tests::stack::TestStack;

const TOKEN_SECONDS: u64 = 3;
const WAIT: Duration = Duration::from_secs(10);

/// The next event `pick` maps to something, skipping others.
async fn next_of<T>(events: &mut Events, pick: impl Fn(Event) -> Option<T>) -> T {
    tokio::time::timeout(WAIT, async {
        loop {
            if let Some(found) = pick(events.next().await.expect("the client runs")) {
                return found;
            }
        }
    })
    .await
    .expect("in time")
}

fn token_and_expiry(seat: &GameSession) -> (String, i64) {
    let connection = seat.connection.as_ref().expect("connection details");
    (
        connection.player_gateway_token.clone().expect("a token"),
        connection.expires_at.expect("an expiry"),
    )
}

#[tokio::test]
async fn given_an_enabled_fleet_with_3_s_tokens_when_a_placement_seats_the_player_then_the_client_refreshes_before_expiry_without_the_game_asking()
 {
    // Given a stack whose fleet uses player gateway, with tokens lasting 3 s
    let stack = TestStack::start_with(|s| {
        s.simulator.sim_server_startup_ms = 0;
        s.simulator.sim_placement_delay_ms = 100;
        s.placement.player_gateway = PlayerGateway::Enabled;
        s.simulator.sim_player_gateway = Some(PlayerGateway::Enabled);
        s.simulator.sim_player_gateway_token_seconds = TOKEN_SECONDS;
    })
    .await;
    let (client, mut events) = Client::connect(Config::new(stack.url(), Auth::player_id("ida")))
        .await
        .expect("connects");

    // When a placement seats the player
    client
        .request_placement(PlacementRequestBody::default())
        .await
        .expect("placement requested");
    let seat = next_of(&mut events, |event| match event {
        Event::Push {
            frame:
                ServerFrame::Placement {
                    status: PlacementStatus::Fulfilled,
                    game_session: Some(seat),
                    ..
                },
            ..
        } => Some(seat),
        _ => None,
    })
    .await;
    let (first_token, first_expiry) = token_and_expiry(&seat);
    let seated_calls = stack.connection_details_calls();

    // Then, with nothing asked by the test, the client refreshes the seat itself
    let refreshed = next_of(&mut events, |event| match event {
        Event::ConnectionDetails(seat) => Some(seat),
        _ => None,
    })
    .await;
    let received_at = SystemClock.now_millis();
    let (token, expiry) = token_and_expiry(&refreshed);
    assert_eq!(refreshed.player_session_id, seat.player_session_id);
    assert_ne!(token, first_token, "a new token");
    assert!(
        expiry > first_expiry,
        "a later expiry: {expiry} > {first_expiry}"
    );
    assert!(
        received_at < first_expiry,
        "before the first token expired: {received_at} < {first_expiry}"
    );
    // GameLift was asked again for it: the refresh went through the backend.
    assert!(
        stack.connection_details_calls() > seated_calls,
        "a GetPlayerConnectionDetails call"
    );
    // And the seat the game reads has the new details.
    assert_eq!(token_and_expiry(&client.seat().expect("a seat")).0, token);
    client.close();
    stack.shutdown().await;
}
