//! `joinFriendGame` end to end on the GameLift simulator, on memory and on DynamoDB
//! Local: a friend placed in a game (a real placement, its event, the seat stored), a
//! seat in it for the joiner (CreatePlayerSession) answered as `rejoinSession`'s, and each
//! refusal: not friends, the friend in no game, the game full, the game over. (A game
//! closed to new players, DENY_ALL, needs a real game server to set it: the SDK's suite,
//! game-server/sdk/tests/local_stack.rs, joins a friend's game on a real SDK process and
//! checks that refusal.)

use std::time::Duration;

use contracts::friend_store_contract::act_on;
use serde_json::{Value, json};
use shared::friends::{Action, FriendCommitted};
use tests::stack::{Client, TestStack};

/// Two players a game session, so that a second joiner finds it full.
const MAX_PLAYERS: u32 = 2;

async fn join_stack(dynamodb: bool) -> Option<TestStack> {
    let endpoint = match dynamodb {
        true => Some(tests::dynamodb::endpoint_or_skip()?),
        false => None,
    };
    let stack = TestStack::start_with(|s| {
        s.simulator.sim_server_startup_ms = 0;
        s.simulator.sim_placement_delay_ms = 100;
        s.placement.max_players_per_session = MAX_PLAYERS;
        if let Some(endpoint) = endpoint {
            tests::dynamodb::use_fresh_tables(&mut s.storage, endpoint);
        }
    })
    .await;
    Some(stack)
}

/// `a` and `b` made friends as the routes make them (an invitation, one back), through
/// the stack's own Friends ports.
async fn befriend(stack: &TestStack, a: &str, b: &str) {
    let stores = &stack.stack().dependencies().stores;
    let (reader, commits) = (stores.friend_reader(), stores.friend_commits());
    for (me, them) in [(a, b), (b, a)] {
        let done = act_on(&*reader, &*commits, me, them, Action::Add, 1).await;
        assert_eq!(done, FriendCommitted::Done, "{me} → {them}");
    }
}

/// `player` placed by a placement of their own; the seat's `gameSession`.
async fn placed(client: &mut Client) -> Value {
    let ack = client.request("sessionPlacementRequest", json!({})).await;
    assert_eq!(ack["status"], "PENDING", "{ack}");
    let frame = client.next_frame_within(Duration::from_secs(3)).await;
    assert_eq!(frame["status"], "FULFILLED", "{frame}");
    frame["gameSession"].clone()
}

/// The reply to `joinFriendGame` (the `friend` frames of the befriending, pushed
/// meanwhile, skipped).
async fn join(client: &mut Client, friend: &str) -> Value {
    client
        .send_json(json!({"route": "joinFriendGame", "body": {"playerId": friend}}))
        .await;
    loop {
        let frame = client.next_frame().await;
        if frame["type"] != "friend" {
            return frame;
        }
    }
}

async fn joining_a_friends_game(dynamodb: bool) {
    let Some(stack) = join_stack(dynamodb).await else {
        return;
    };
    let (mut bob, _) = stack.online("bob").await;
    let bobs_seat = placed(&mut bob).await;
    let arn = bobs_seat["gameSessionArn"].clone();
    let (mut alice, _) = stack.online("alice").await;
    let (mut carol, _) = stack.online("carol").await;
    let (mut dave, _) = stack.online("dave").await;

    // Not friends: forbidden, and nothing asked of GameLift.
    let refused = join(&mut alice, "bob").await;
    assert_eq!(refused["code"], "forbidden", "{refused}");

    // A friend seated nowhere: not_found.
    befriend(&stack, "alice", "dave").await;
    let refused = join(&mut dave, "alice").await;
    assert_eq!(refused["code"], "not_found", "{refused}");

    // A friend's game with a free slot: a new player session there, as rejoinSession's.
    befriend(&stack, "alice", "bob").await;
    let ack = join(&mut alice, "bob").await;
    assert_eq!(ack["type"], "ack", "{ack}");
    assert_eq!(ack["route"], "joinFriendGame");
    let seat = &ack["gameSession"];
    assert_eq!(seat["gameSessionArn"], arn);
    assert_ne!(seat["playerSessionId"], bobs_seat["playerSessionId"]);
    assert_eq!(seat["ipAddress"], bobs_seat["ipAddress"]);
    assert_eq!(seat["port"], bobs_seat["port"]);
    assert!(seat["connection"].is_object(), "where to connect: {ack}");
    // It is Alice's seat now (what resume and rejoinSession read).
    let record = stack.record("alice").await;
    assert_eq!(
        serde_json::to_value(record.game_session.unwrap()).unwrap(),
        *seat
    );

    // Two of two seats taken: full.
    befriend(&stack, "carol", "bob").await;
    let full = join(&mut carol, "bob").await;
    assert_eq!(full["code"], "session_full", "{full}");
    assert_eq!(full["gameSessionArn"], arn);

    // The game ends: session_ended.
    stack
        .stack()
        .simulator()
        .terminate_game_session(arn.as_str().unwrap())
        .unwrap();
    let ended = join(&mut carol, "bob").await;
    assert_eq!(ended["code"], "session_ended", "{ended}");
    assert_eq!(ended["gameSessionArn"], arn);
    stack.shutdown().await;
}

#[tokio::test]
async fn given_friends_in_a_game_when_joining_then_a_seat_there_and_each_refusal_is_clear() {
    joining_a_friends_game(false).await;
}

#[tokio::test]
async fn given_dynamodb_local_when_joining_friends_games_then_a_seat_there_and_each_refusal_is_clear()
 {
    joining_a_friends_game(true).await;
}
