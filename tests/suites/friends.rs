//! Friends end to end over real WebSockets (shared/src/friends.rs): an invitation and
//! its acceptance by inviting back, each pushed to both sides through the inbox; an
//! offline player's invitation replayed on `resume`; friends' presence pushed without
//! subscribing; `listFriends` with presence; removing; blocking, after which the blocked
//! player's messages, party invitations and friend invitations do not arrive while every
//! one of them is acked as if they did. Each scenario runs in memory and (with
//! `DYNAMODB_ENDPOINT` set) on DynamoDB Local. Paging and the friends limit end to end
//! are `friends_paging`; the invitation rate limit, `functions/friends`' handler tests.

use local::Settings;
use serde_json::{Value, json};
use shared::domain::PresenceStatus;
use tests::player::Player;
use tests::stack::TestStack;

/// A short grace and a sweep every second, so that a player who closes is offline (and
/// their friends told) within a few seconds.
fn quick_presence(settings: &mut Settings) {
    settings.presence.reconnect_grace_seconds = 1;
    settings.presence.sweep_interval_seconds = 1;
}

/// `actor` sends `route` about `other`: its ack's `state` is `state`, then `actor` is told
/// the first of `told` and `other` the second.
async fn relate(
    actor: &mut Player,
    route: &str,
    other: &mut Player,
    state: Value,
    told: [&str; 2],
) {
    let ack = actor.ok(route, json!({"playerId": other.name})).await;
    assert_eq!(ack["state"], state, "{ack}");
    actor.friend(other.name, told[0]).await;
    other.friend(actor.name, told[1]).await;
}

async fn friends_whole_life(stack: &TestStack) {
    // dave has connected once and is offline.
    let dave = Player::online(stack, "dave").await;
    let dave_cursor = dave.client.cursor();
    dave.client.close().await;
    let mut alice = Player::online(stack, "alice").await;
    let mut bob = Player::online(stack, "bob").await;
    let mut carol = Player::online(stack, "carol").await;

    // An invitation, accepted by inviting back: both sides told each step.
    let invited = ["invited", "invitation"];
    relate(&mut alice, "addFriend", &mut bob, json!("invited"), invited).await;
    let friends = ["friends", "friends"];
    relate(&mut bob, "addFriend", &mut alice, json!("friends"), friends).await;

    // dave, offline, gets alice's invitation when he comes back.
    alice.ok("addFriend", json!({"playerId": "dave"})).await;
    alice.friend("dave", "invited").await;
    stack.wait_for_status("dave", PresenceStatus::Offline).await;
    let (mut dave, _) = Player::back(stack, "dave", dave_cursor).await;
    dave.friend("alice", "invitation").await;

    // A friend's presence, without subscribing: bob goes, then comes back.
    bob.client.close().await;
    let offline = alice.push().await;
    assert_eq!(
        (&offline["type"], &offline["playerId"], &offline["status"]),
        (&json!("presence"), &json!("bob"), &json!("offline")),
        "{offline}"
    );
    let mut bob = Player::online(stack, "bob").await;
    let online = alice.push().await;
    assert_eq!(
        (&online["type"], &online["playerId"], &online["status"]),
        (&json!("presence"), &json!("bob"), &json!("online")),
        "{online}"
    );

    // listFriends: the friend with presence, the invitation without.
    let list = alice.ok("listFriends", json!({})).await;
    let entries: Vec<_> = list["friends"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["playerId"].as_str().unwrap().to_owned(),
                e["state"].as_str().unwrap().to_owned(),
                e["presence"].as_str().map(str::to_owned),
            )
        })
        .collect();
    assert_eq!(
        entries,
        vec![
            (
                "bob".to_owned(),
                "friends".to_owned(),
                Some("online".to_owned())
            ),
            ("dave".to_owned(), "invited".to_owned(), None),
        ]
    );
    assert_eq!(list["cursor"], json!(null));

    // dave declines: both told removed.
    let removed = ["removed", "removed"];
    relate(&mut dave, "removeFriend", &mut alice, json!(null), removed).await;

    // carol and alice are friends; alice blocks carol, who sees an unfriend.
    relate(
        &mut carol,
        "addFriend",
        &mut alice,
        json!("invited"),
        invited,
    )
    .await;
    relate(
        &mut alice,
        "addFriend",
        &mut carol,
        json!("friends"),
        friends,
    )
    .await;
    relate(
        &mut alice,
        "blockPlayer",
        &mut carol,
        json!("blocked"),
        removed,
    )
    .await;

    // Everything carol sends alice is acked as if it arrived; none of it does.
    let sent = carol
        .ok(
            "sendMessage",
            json!({"playerIds": ["alice"], "message": {"text": "hi"}}),
        )
        .await;
    assert_eq!(sent["queued"], 1);
    carol.ok("createParty", json!({})).await;
    carol.party("created", "carol").await;
    let invited = carol
        .ok("inviteToParty", json!({"playerId": "alice"}))
        .await;
    assert_eq!(invited["playerId"], "alice");
    let ack = carol.ok("addFriend", json!({"playerId": "alice"})).await;
    assert_eq!(ack["state"], "invited");
    carol.friend("alice", "invited").await;
    // bob's message comes next to alice: nothing of carol's came before it.
    bob.ok(
        "sendMessage",
        json!({"playerIds": ["alice"], "message": {"text": "after"}}),
    )
    .await;
    let next = alice.push().await;
    assert_eq!(next["type"], "message", "{next}");
    assert_eq!(next["from"], "bob", "{next}");
}

#[tokio::test]
async fn given_players_when_they_befriend_remove_and_block_then_each_side_is_told_and_blocks_reveal_nothing()
 {
    let stack = TestStack::start_with(quick_presence).await;
    friends_whole_life(&stack).await;
    stack.shutdown().await;
}

#[tokio::test]
async fn given_dynamodb_local_when_players_befriend_remove_and_block_then_each_side_is_told_and_blocks_reveal_nothing()
 {
    let Some(endpoint) = tests::dynamodb::endpoint_or_skip() else {
        return;
    };
    let stack = TestStack::start_with(|s| {
        quick_presence(s);
        tests::dynamodb::use_fresh_tables(&mut s.storage, endpoint);
    })
    .await;
    friends_whole_life(&stack).await;
    stack.shutdown().await;
}
