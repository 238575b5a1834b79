//! GetPlayerConnectionDetails on the simulated fleet, in each PlayerGatewayMode.

use shared::config::PlayerGateway;
use shared::domain::ConnectionDetails;

use super::*;

/// A fleet in `mode` with 30-second tokens, one game placed for alice and bob; its ARN.
async fn placed(mode: PlayerGateway) -> (Harness, String) {
    let mut h = Harness::start(SimulatorSettings {
        player_gateway: mode,
        player_gateway_token: Duration::from_secs(30),
        ..SimulatorSettings::default()
    });
    sleep(Duration::from_secs(2)).await;
    h.sim
        .start_group_placement(GroupPlacementRequest {
            placement_id: placement_id("p-1"),
            queue: QUEUE.into(),
            max_players: 8,
            players: ["alice", "bob"]
                .into_iter()
                .map(|id| DesiredPlayer {
                    player_id: player(id),
                    player_data: None,
                })
                .collect(),
            matchmaker_data: None,
        })
        .unwrap();
    sleep(Duration::from_millis(500)).await;
    h.delivered().await;
    let arn = h.sim.snapshot().game_sessions[0].game_session_arn.clone();
    (h, arn)
}

#[tokio::test(start_paused = true)]
async fn given_a_required_gateway_when_asked_then_each_player_gets_two_loopback_relays_and_a_dated_token()
 {
    // Given a fleet that requires player gateway, with a game for alice and bob
    let (h, arn) = placed(PlayerGateway::Required).await;
    let before = crate::time::now_millis();

    // When both players' details are asked for in one call
    let found = h
        .sim
        .get_player_connection_details(&arn, &[player("alice"), player("bob")])
        .await
        .unwrap();

    // Then each has two relays on 127.0.0.2 / 127.0.0.3, a token of their own, and an
    // expiry 30 s on (the simulator's clock is the wall clock at start plus simulated
    // time, 2.5 s of it so far)
    assert_eq!(found.len(), 2);
    for connection in &found {
        let details = &connection.details;
        let mut ips: Vec<&str> = details
            .endpoints
            .iter()
            .map(|e| e.ip_address.as_str())
            .collect();
        ips.sort_unstable();
        assert_eq!(ips, RELAY_IPS);
        assert!(
            details
                .player_gateway_token
                .as_ref()
                .unwrap()
                .starts_with("pgt-")
        );
        let expires_at = details.expires_at.unwrap();
        assert!(
            (before + 32_000..=before + 33_500).contains(&expires_at),
            "{expires_at}"
        );
    }
    assert_ne!(
        found[0].details.player_gateway_token,
        found[1].details.player_gateway_token
    );

    // And the call is counted, and what was given is shown
    let snapshot = h.sim.snapshot();
    assert_eq!(snapshot.connection_details_calls, 1);
    assert_eq!(snapshot.player_gateway, PlayerGateway::Required);
    assert_eq!(snapshot.player_connections.len(), 2);
    assert_eq!(snapshot.player_connections[0].player_id, "alice");
    assert_eq!(snapshot.player_connections[0].details, found[0].details);

    // And asking again gives alice a fresh token, which replaces the one shown
    let again = h
        .sim
        .get_player_connection_details(&arn, &[player("alice")])
        .await
        .unwrap();
    assert_ne!(
        again[0].details.player_gateway_token,
        found[0].details.player_gateway_token
    );
    let snapshot = h.sim.snapshot();
    assert_eq!(snapshot.connection_details_calls, 2);
    assert_eq!(snapshot.player_connections[0].details, again[0].details);
    h.task.abort();
}

#[tokio::test(start_paused = true)]
async fn given_no_gateway_when_asked_then_the_details_are_the_game_server_itself() {
    let (h, arn) = placed(PlayerGateway::Disabled).await;
    let game = h.sim.snapshot().game_sessions[0].clone();
    let found = h
        .sim
        .get_player_connection_details(&arn, &[player("alice")])
        .await
        .unwrap();
    assert_eq!(
        found[0].details,
        ConnectionDetails::direct(game.ip_address, game.port)
    );
    h.task.abort();
}

#[tokio::test(start_paused = true)]
async fn refusals_an_unknown_or_ended_game_too_many_players_and_the_throttling_fault() {
    let (h, arn) = placed(PlayerGateway::Enabled).await;
    let alice = [player("alice")];

    // An unknown game session: NotFound
    assert!(matches!(
        h.sim
            .get_player_connection_details(
                "arn:aws:gamelift:local::gamesession/fleet-local/nope",
                &alice
            )
            .await,
        Err(GameLiftError::NotFound { .. })
    ));
    // 26 players in one call: InvalidRequest (the adapter sends 25 at most)
    let many: Vec<PlayerId> = (0..26).map(|i| player(&format!("p{i}"))).collect();
    assert!(matches!(
        h.sim.get_player_connection_details(&arn, &many).await,
        Err(GameLiftError::InvalidRequest { .. })
    ));
    // The console's fault: every call throttled, until it is off
    h.sim.set_faults(Faults {
        fail_connection_details: true,
        ..Faults::default()
    });
    assert!(matches!(
        h.sim.get_player_connection_details(&arn, &alice).await,
        Err(GameLiftError::Unavailable(_))
    ));
    h.sim.set_faults(Faults::default());
    assert!(
        h.sim
            .get_player_connection_details(&arn, &alice)
            .await
            .is_ok()
    );
    // A game that ended: SessionEnded (InvalidGameSessionStatusException)
    h.sim.terminate_game_session(&arn).unwrap();
    assert!(matches!(
        h.sim.get_player_connection_details(&arn, &alice).await,
        Err(GameLiftError::SessionEnded { .. })
    ));
    // Every call counted, refused ones too
    assert_eq!(h.sim.snapshot().connection_details_calls, 5);
    h.task.abort();
}
