use contracts::events::{reply_frame, route_event};
use contracts::fake_gamelift::{FAKE_IP_ADDRESS, FAKE_PORT, GameLiftCall};
use contracts::fixtures::connected;
use contracts::friend_store_contract::{act, befriend};
use edge::websocket::RouteHandler;
use memory_adapters::test_wiring::TestWiring;
use serde_json::{Value, json};
use shared::domain::{GameSession, PlayerId};
use shared::friends::Action;
use shared::ports::{GameLiftError, PlayerReader, Seats};

use crate::{RejoinSessionHandler, wire};

const T0: i64 = 1_795_323_600_000;
const ARN: &str = "arn:aws:gamelift:eu-west-1::gamesession/fleet-1/gs-1";

fn p(name: &str) -> PlayerId {
    PlayerId::parse(name).unwrap()
}

fn seat(arn: &str, session: &str) -> GameSession {
    GameSession {
        game_session_arn: arn.into(),
        ip_address: FAKE_IP_ADDRESS.into(),
        dns_name: String::new(),
        port: FAKE_PORT,
        region: "eu-west-1".into(),
        player_session_id: session.into(),
        connection: None,
        connection_unavailable: false,
    }
}

struct World {
    wiring: TestWiring,
    handler: RejoinSessionHandler,
}

/// Alice and Bob online; Bob seated in `ARN`; the placement limit off.
async fn world() -> World {
    let mut wiring = TestWiring::new().at(T0);
    wiring.config.rate_limits.placements_per_minute = 0;
    let players = wiring.tables.players.clone();
    for name in ["alice", "bob"] {
        connected(&*players, name, &format!("c-{name}"), T0).await;
    }
    players
        .take_seat(&p("bob"), &seat(ARN, "psess-bob"))
        .await
        .unwrap();
    World {
        handler: wire(&wiring.wiring()),
        wiring,
    }
}

async fn join(w: &World, friend: &str) -> Value {
    let text = json!({"route": "joinFriendGame", "requestId": "j1", "body": {"playerId": friend}})
        .to_string();
    let event = route_event("joinFriendGame", "alice", "c-alice", T0, Some(&text));
    reply_frame(&w.handler.handle(event).await.unwrap())
}

async fn alice_seat(w: &World) -> Option<GameSession> {
    w.wiring
        .tables
        .players
        .get(&p("alice"))
        .await
        .unwrap()
        .unwrap()
        .game_session
}

#[tokio::test]
async fn given_a_friend_in_a_game_with_room_when_joining_then_a_new_player_session_there_is_acked_and_becomes_yours()
 {
    let w = world().await;
    befriend(&*w.wiring.tables.friends, "alice", "bob").await;

    let ack = join(&w, "bob").await;

    assert_eq!(ack["type"], "ack", "{ack}");
    assert_eq!(ack["route"], "joinFriendGame");
    assert_eq!(ack["requestId"], "j1");
    let given: GameSession = serde_json::from_value(ack["gameSession"].clone()).unwrap();
    assert_eq!(given.game_session_arn, ARN);
    assert_eq!(given.region, "eu-west-1", "the friend's seat's region");
    assert!(
        given.connection.is_some(),
        "with where to connect, as rejoinSession's"
    );
    assert_eq!(
        w.wiring.gamelift.calls(),
        vec![GameLiftCall::CreatePlayerSession {
            game_session_arn: ARN.into(),
            player_id: p("alice"),
            player_data: None,
        }]
    );
    assert_eq!(
        alice_seat(&w).await,
        Some(given),
        "a later rejoinSession comes back here"
    );
}

#[tokio::test]
async fn given_no_friendship_when_joining_then_forbidden_and_gamelift_is_not_asked() {
    let w = world().await;
    assert_eq!(join(&w, "bob").await["code"], "forbidden");
    // Alice's invitation, not yet answered; then Bob's block of her.
    act(&*w.wiring.tables.friends, "alice", "bob", Action::Add, T0).await;
    let refused = join(&w, "bob").await;
    assert_eq!(refused["code"], "forbidden", "{refused}");
    assert_eq!(refused["playerId"], "bob");
    act(
        &*w.wiring.tables.friends,
        "bob",
        "alice",
        Action::Block,
        T0 + 1,
    )
    .await;
    assert_eq!(join(&w, "bob").await["code"], "forbidden");
    assert!(w.wiring.gamelift.calls().is_empty());
    assert_eq!(alice_seat(&w).await, None);
}

#[tokio::test]
async fn given_a_friend_in_no_game_when_joining_then_not_found() {
    let w = world().await;
    befriend(&*w.wiring.tables.friends, "alice", "carol").await;
    connected(&*w.wiring.tables.players, "carol", "c-carol", T0).await;
    let refused = join(&w, "carol").await;
    assert_eq!(refused["code"], "not_found", "{refused}");
    assert_eq!(refused["message"], "carol is in no game");
    assert!(w.wiring.gamelift.calls().is_empty());
}

#[tokio::test]
async fn given_the_friends_game_full_ended_closed_or_gone_when_joining_then_each_refusal_names_it_and_nothing_is_stored()
 {
    for (refusal, code) in [
        (
            GameLiftError::SessionFull {
                message: "Game session is full (GameSessionFullException: 8 of 8).".into(),
            },
            "session_full",
        ),
        (
            GameLiftError::SessionEnded {
                message: "not ACTIVE (TERMINATED)".into(),
            },
            "session_ended",
        ),
        (
            GameLiftError::SessionEnded {
                message: "not accepting new player sessions (DENY_ALL)".into(),
            },
            "session_ended",
        ),
        (
            GameLiftError::NotFound {
                message: "no such game session".into(),
            },
            "session_ended",
        ),
        (
            GameLiftError::Unavailable("throttled".into()),
            "unavailable",
        ),
    ] {
        let w = world().await;
        befriend(&*w.wiring.tables.friends, "alice", "bob").await;
        w.wiring.gamelift.fail_next_player_session(refusal);
        let refused = join(&w, "bob").await;
        assert_eq!(refused["code"], code, "{refused}");
        if code != "unavailable" {
            assert_eq!(refused["gameSessionArn"], ARN, "{refused}");
            assert_eq!(refused["playerId"], "bob");
        }
        assert_eq!(alice_seat(&w).await, None);
    }
}

#[tokio::test]
async fn given_yourself_when_joining_then_bad_request() {
    let w = world().await;
    let refused = join(&w, "alice").await;
    assert_eq!(refused["code"], "bad_request", "{refused}");
}

#[tokio::test]
async fn given_the_placement_limit_spent_when_joining_then_rate_limited() {
    let mut w = world().await;
    w.wiring.config.rate_limits.placements_per_minute = 1;
    w.handler = wire(&w.wiring.wiring());
    befriend(&*w.wiring.tables.friends, "alice", "bob").await;
    assert_eq!(join(&w, "bob").await["type"], "ack");
    assert_eq!(join(&w, "bob").await["code"], "rate_limited");
    assert_eq!(w.wiring.gamelift.calls().len(), 1);
}
