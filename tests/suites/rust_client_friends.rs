//! The Rust client's friends shortcuts against the local stack (clients/rust/src/routes.rs):
//! the five friend routes and their `friend` pushes, `setActivity` reaching a friend in a
//! `presence` frame without subscribing, and `joinFriendGame` on the GameLift simulator (a
//! seat that becomes the client's, and a refusal).

use std::time::Duration;

use gamelift_sockets_client::protocol::ServerFrame;
use gamelift_sockets_client::protocol::domain::PlacementStatus;
use gamelift_sockets_client::protocol::friends::{FriendState, FriendUpdate};
use gamelift_sockets_client::protocol::requests::PlacementRequestBody;
use gamelift_sockets_client::{Auth, Client, Config, Event, Events};
use serde_json::json;
use tests::stack::TestStack;

const WAIT: Duration = Duration::from_secs(10);

async fn connect(stack: &TestStack, player: &str) -> (Client, Events) {
    Client::connect(Config::new(stack.url(), Auth::player_id(player)))
        .await
        .expect("connects")
}

/// The next push `wanted` accepts, skipping others.
async fn push(events: &mut Events, wanted: impl Fn(&ServerFrame) -> bool) -> ServerFrame {
    tokio::time::timeout(WAIT, async {
        loop {
            match events.next().await.expect("the client runs") {
                Event::Push { frame, .. } if wanted(&frame) => return frame,
                _ => {}
            }
        }
    })
    .await
    .expect("pushed in time")
}

/// Waits for the `friend` push saying the relation with `player` became `state`.
async fn friend(events: &mut Events, player: &str, state: FriendUpdate) {
    push(events, |f| {
        matches!(f, ServerFrame::Friend { player_id, state: s } if player_id.as_str() == player && *s == state)
    })
    .await;
}

/// ann and ben connected and made friends: ann invites, ben accepts by inviting back,
/// each told.
async fn ann_and_ben_friends(stack: &TestStack) -> ((Client, Events), (Client, Events)) {
    let (ann, mut ann_events) = connect(stack, "ann").await;
    let (ben, mut ben_events) = connect(stack, "ben").await;
    let ack = ann.add_friend("ben").await.unwrap();
    assert_eq!(ack.state, Some(FriendState::Invited));
    friend(&mut ben_events, "ann", FriendUpdate::Invitation).await;
    let ack = ben.add_friend("ann").await.unwrap();
    assert_eq!(ack.state, Some(FriendState::Friends));
    friend(&mut ann_events, "ben", FriendUpdate::Friends).await;
    ((ann, ann_events), (ben, ben_events))
}

#[tokio::test]
async fn given_the_friend_shortcuts_when_players_befriend_list_block_and_remove_then_each_change_is_pushed_and_listed()
 {
    let stack = TestStack::start().await;
    let ((ann, mut ann_events), (ben, _ben_events)) = ann_and_ben_friends(&stack).await;
    let (cid, mut cid_events) = connect(&stack, "cid").await;
    cid.add_friend("ann").await.unwrap();
    friend(&mut ann_events, "cid", FriendUpdate::Invitation).await;

    // One page, by player id: ben a friend with his presence, cid's invitation without.
    let page = ann.list_friends(None, None).await.unwrap();
    let entries: Vec<_> = page
        .friends
        .iter()
        .map(|e| (e.player_id.to_string(), e.state, e.presence.is_some()))
        .collect();
    assert_eq!(
        entries,
        vec![
            ("ben".into(), FriendState::Friends, true),
            ("cid".into(), FriendState::Invitation, false),
        ]
    );
    assert_eq!(page.cursor, None);
    let invitations = ann
        .list_friends(Some(FriendState::Invitation), None)
        .await
        .unwrap();
    assert_eq!(invitations.friends.len(), 1, "{invitations:?}");

    // Blocking cid ends the invitation (cid told `removed`, nothing more); unblocking lifts it.
    let ack = ann.block_player("cid").await.unwrap();
    assert_eq!(ack.state, Some(FriendState::Blocked));
    friend(&mut cid_events, "ann", FriendUpdate::Removed).await;
    let blocked = ann
        .list_friends(Some(FriendState::Blocked), None)
        .await
        .unwrap();
    assert_eq!(blocked.friends[0].player_id.as_str(), "cid", "{blocked:?}");
    let ack = ann.unblock_player("cid").await.unwrap();
    assert_eq!(ack.state, None);

    // Removing ben: both told.
    let ack = ben.remove_friend("ann").await.unwrap();
    assert_eq!(ack.state, None);
    friend(&mut ann_events, "ben", FriendUpdate::Removed).await;
    assert!(
        ann.list_friends(None, None)
            .await
            .unwrap()
            .friends
            .is_empty()
    );

    // A bad id is refused before anything is sent.
    let error = ann.add_friend("not a player id").await.unwrap_err();
    assert_eq!(error.code(), "invalid", "{error}");
    for client in [ann, ben, cid] {
        client.close();
    }
    stack.shutdown().await;
}

#[tokio::test]
async fn given_friends_when_one_sets_an_activity_then_the_other_gets_it_in_a_presence_push_without_subscribing()
 {
    let stack = TestStack::start().await;
    let ((ann, mut ann_events), (ben, _ben_events)) = ann_and_ben_friends(&stack).await;

    let details = json!({"map": "dust", "score": [3, 1]});
    let stored = ben
        .set_activity("ranked, map Dust, 3–1", details.as_object().cloned())
        .await
        .unwrap();
    assert_eq!(stored.activity.as_str(), "ranked, map Dust, 3–1");
    let frame = push(
        &mut ann_events,
        |f| matches!(f, ServerFrame::Presence { player_id, activity: Some(_), .. } if player_id == "ben"),
    )
    .await;
    let ServerFrame::Presence {
        status, activity, ..
    } = frame
    else {
        unreachable!("matched above")
    };
    assert_eq!(status, "online");
    assert_eq!(activity, Some(stored));

    // Over 64 characters: refused by the client, unsent.
    let error = ben.set_activity(&"x".repeat(65), None).await.unwrap_err();
    assert_eq!(error.code(), "invalid", "{error}");
    ann.close();
    ben.close();
    stack.shutdown().await;
}

#[tokio::test]
async fn given_a_friend_in_a_game_when_joining_it_then_the_seat_is_the_clients_and_a_stranger_is_refused_forbidden()
 {
    let stack = TestStack::start_with(|s| {
        s.simulator.sim_server_startup_ms = 0;
        s.simulator.sim_placement_delay_ms = 100;
    })
    .await;
    let ((ann, _ann_events), (ben, mut ben_events)) = ann_and_ben_friends(&stack).await;
    let (cid, _cid_events) = connect(&stack, "cid").await;
    ben.request_placement(PlacementRequestBody::default())
        .await
        .unwrap();
    let placed = push(&mut ben_events, |f| {
        matches!(f, ServerFrame::Placement { status, .. } if *status == PlacementStatus::Fulfilled)
    })
    .await;
    let ServerFrame::Placement {
        game_session: Some(bens_seat),
        ..
    } = placed
    else {
        unreachable!("a fulfilled placement has a seat: {placed:?}")
    };

    let seat = ann.join_friend_game("ben").await.unwrap();
    assert_eq!(seat.game_session_arn, bens_seat.game_session_arn);
    assert_ne!(seat.player_session_id, bens_seat.player_session_id);
    assert_eq!(ann.seat(), Some(seat), "the client keeps it as its seat");

    let error = cid.join_friend_game("ben").await.unwrap_err();
    assert_eq!(error.code(), "forbidden", "{error}");
    assert_eq!(cid.seat(), None);
    for client in [ann, ben, cid] {
        client.close();
    }
    stack.shutdown().await;
}
