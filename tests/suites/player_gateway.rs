//! Player gateway end to end over real WebSockets (shared/src/seats.rs):
//! in each `PLAYER_GATEWAY` mode, with the GameLift simulator's fleet in the same mode, a
//! party placement, a solo placement, a FlexMatch match, a rejoin, a resume and a refresh
//! each give every player the right connection details, with exactly one
//! GetPlayerConnectionDetails per game session (none when disabled), counted by the
//! simulator; with the call throttled (the `failConnectionDetails` fault) `enabled`
//! seats go direct and `required` ones say `connectionUnavailable`; a refresh without a
//! seat is `not_found`. In memory, and (with `DYNAMODB_ENDPOINT` set) on DynamoDB Local.

use local::gamelift::{Faults, RELAY_IPS};
use serde_json::{Value, json};
use shared::config::PlayerGateway;
use tests::dynamodb::unique_table_name;
use tests::player::Player;
use tests::stack::TestStack;

const DUEL: &str = include_str!("../../local/rule-sets/duel.json");

#[derive(Clone, Copy, Debug)]
enum Storage {
    Memory,
    DynamoDb,
}

/// The stack in `mode` (the simulated fleet follows it), with FlexMatch's duel rule
/// set; `None` when DynamoDB Local is asked for and not there.
async fn stack(storage: Storage, mode: PlayerGateway) -> Option<TestStack> {
    let path = std::env::temp_dir().join(format!("{}.json", unique_table_name("rule-set")));
    std::fs::write(&path, DUEL).unwrap();
    let endpoint = match storage {
        Storage::Memory => None,
        Storage::DynamoDb => Some(tests::dynamodb::endpoint_or_skip()?),
    };
    let stack = TestStack::start_with(|s| {
        s.simulator.sim_server_startup_ms = 0;
        s.simulator.sim_placement_delay_ms = 100;
        // A game session each for the party, carol, the match and frank.
        s.simulator.sim_fleet_servers = 8;
        s.matchmaking.matchmaking_rule_set = Some(path.to_string_lossy().into_owned());
        s.placement.player_gateway = mode;
        if let Some(endpoint) = endpoint {
            tests::dynamodb::use_fresh_tables(&mut s.storage, endpoint);
        }
    })
    .await;
    Some(stack)
}

/// Checks where `seat` says to connect, for a fleet in `mode` that answered.
fn assert_details(seat: &Value, mode: PlayerGateway) {
    let connection = &seat["connection"];
    assert!(seat.get("connectionUnavailable").is_none(), "{seat}");
    match mode {
        PlayerGateway::Disabled => assert_direct(seat),
        PlayerGateway::Enabled | PlayerGateway::Required => {
            let endpoints = connection["endpoints"].as_array().expect("endpoints");
            assert_eq!(endpoints.len(), 2, "{seat}");
            for endpoint in endpoints {
                let ip = endpoint["ipAddress"].as_str().unwrap();
                assert!(RELAY_IPS.contains(&ip), "a relay: {seat}");
            }
            let token = connection["playerGatewayToken"].as_str().unwrap();
            assert!(token.starts_with("pgt-"), "{seat}");
            let now = shared::ports::Clock::now_millis(&shared::ports::SystemClock);
            assert!(connection["expiresAt"].as_i64().unwrap() > now, "{seat}");
        }
    }
}

/// The game server's own address and no token.
fn assert_direct(seat: &Value) {
    assert_eq!(
        seat["connection"],
        json!({"endpoints": [{"ipAddress": seat["ipAddress"], "port": seat["port"]}]}),
        "{seat}"
    );
}

fn token(seat: &Value) -> Value {
    seat["connection"]["playerGatewayToken"].clone()
}

async fn every_seat_carries_its_details(storage: Storage, mode: PlayerGateway) {
    let Some(stack) = stack(storage, mode).await else {
        return;
    };
    // One call per game session seated, none when the gateway is disabled.
    let per_game = u64::from(mode != PlayerGateway::Disabled);
    let context = format!("{storage:?}, {mode}");

    // A party placement: alice leads, bob follows; one game session for both.
    let mut alice = Player::online(&stack, "alice").await;
    let mut bob = Player::online(&stack, "bob").await;
    let created = alice.ok("createParty", json!({})).await;
    let party = created["party"]["partyId"].clone();
    alice.ok("inviteToParty", json!({"playerId": "bob"})).await;
    bob.ok("joinParty", json!({"partyId": party})).await;
    let before = stack.connection_details_calls();
    alice.ok("sessionPlacementRequest", json!({})).await;
    let a = alice.push_of("placement", "FULFILLED").await["gameSession"].clone();
    let b = bob.push_of("placement", "FULFILLED").await["gameSession"].clone();
    assert_eq!(a["gameSessionArn"], b["gameSessionArn"], "{context}");
    assert_details(&a, mode);
    assert_details(&b, mode);
    if mode != PlayerGateway::Disabled {
        assert_ne!(token(&a), token(&b), "a token each: {context}");
    }
    assert_eq!(
        stack.connection_details_calls() - before,
        per_game,
        "party placement: {context}"
    );

    // A solo placement.
    let mut carol = Player::online(&stack, "carol").await;
    let before = stack.connection_details_calls();
    carol.ok("sessionPlacementRequest", json!({})).await;
    let c = carol.push_of("placement", "FULFILLED").await["gameSession"].clone();
    assert_details(&c, mode);
    assert_eq!(
        stack.connection_details_calls() - before,
        per_game,
        "placement: {context}"
    );

    // A FlexMatch match: one game session for both tickets' players.
    let mut dave = Player::online(&stack, "dave").await;
    let mut erin = Player::online(&stack, "erin").await;
    let before = stack.connection_details_calls();
    let body = |skill: u32| json!({"attributes": {"skill": skill}, "latencies": {"local": 20}});
    dave.ok("startMatchmaking", body(1000)).await;
    erin.ok("startMatchmaking", body(1010)).await;
    let d = dave.push_of("matchmaking", "COMPLETED").await["gameSession"].clone();
    let e = erin.push_of("matchmaking", "COMPLETED").await["gameSession"].clone();
    assert_eq!(d["gameSessionArn"], e["gameSessionArn"], "{context}");
    assert_details(&d, mode);
    assert_details(&e, mode);
    assert_eq!(
        stack.connection_details_calls() - before,
        per_game,
        "match: {context}"
    );

    // A rejoin: a new player session, its own details, one call.
    let before = stack.connection_details_calls();
    let rejoined = carol.ok("rejoinSession", json!({})).await["gameSession"].clone();
    assert_ne!(
        rejoined["playerSessionId"], c["playerSessionId"],
        "{context}"
    );
    assert_details(&rejoined, mode);
    assert_eq!(
        stack.connection_details_calls() - before,
        per_game,
        "rejoin: {context}"
    );

    // resume answers with the stored seat, details included, without asking GameLift.
    let before = stack.connection_details_calls();
    let resumed = carol.client.resume(None).await;
    assert_eq!(resumed["gameSession"], rejoined, "{context}");
    assert_eq!(
        stack.connection_details_calls(),
        before,
        "resume: {context}"
    );

    // A refresh: the same seat, fresh details.
    let refreshed = carol.ok("refreshConnectionDetails", json!({})).await["gameSession"].clone();
    assert_eq!(refreshed["playerSessionId"], rejoined["playerSessionId"]);
    assert_details(&refreshed, mode);
    if mode != PlayerGateway::Disabled {
        assert_ne!(
            token(&refreshed),
            token(&rejoined),
            "a new token: {context}"
        );
    }
    assert_eq!(
        stack.connection_details_calls() - before,
        per_game,
        "refresh: {context}"
    );

    // No seat: nothing to refresh.
    let mut frank = Player::online(&stack, "frank").await;
    let none = frank.ask("refreshConnectionDetails", json!({})).await;
    assert_eq!(none["code"], "not_found", "{context}: {none}");

    // GameLift throttling every call: the failure policy decides.
    if mode != PlayerGateway::Disabled {
        stack.stack().simulator().set_faults(Faults {
            fail_connection_details: true,
            ..Faults::default()
        });
        frank.ok("sessionPlacementRequest", json!({})).await;
        let f = frank.push_of("placement", "FULFILLED").await["gameSession"].clone();
        let r = carol.ok("refreshConnectionDetails", json!({})).await["gameSession"].clone();
        for seat in [&f, &r] {
            if mode == PlayerGateway::Enabled {
                assert_direct(seat);
            } else {
                assert_eq!(seat["connectionUnavailable"], true, "{context}: {seat}");
                assert!(seat.get("connection").is_none(), "{context}: {seat}");
            }
        }
    }
    stack.shutdown().await;
}

#[tokio::test]
async fn given_the_gateway_disabled_then_every_seat_goes_straight_to_the_game_server_and_gamelift_is_never_asked()
 {
    every_seat_carries_its_details(Storage::Memory, PlayerGateway::Disabled).await;
}

#[tokio::test]
async fn given_an_enabled_fleet_then_every_seat_carries_relays_and_a_token_from_one_call_per_game_and_a_failed_call_goes_direct()
 {
    every_seat_carries_its_details(Storage::Memory, PlayerGateway::Enabled).await;
}

#[tokio::test]
async fn given_a_required_fleet_then_every_seat_carries_relays_and_a_token_from_one_call_per_game_and_a_failed_call_is_unavailable()
 {
    every_seat_carries_its_details(Storage::Memory, PlayerGateway::Required).await;
}

#[tokio::test]
async fn given_dynamodb_local_and_the_gateway_disabled_then_every_seat_goes_straight_to_the_game_server()
 {
    every_seat_carries_its_details(Storage::DynamoDb, PlayerGateway::Disabled).await;
}

#[tokio::test]
async fn given_dynamodb_local_and_an_enabled_fleet_then_every_seat_carries_its_details_from_one_call_per_game()
 {
    every_seat_carries_its_details(Storage::DynamoDb, PlayerGateway::Enabled).await;
}

#[tokio::test]
async fn given_dynamodb_local_and_a_required_fleet_then_every_seat_carries_its_details_from_one_call_per_game()
 {
    every_seat_carries_its_details(Storage::DynamoDb, PlayerGateway::Required).await;
}
