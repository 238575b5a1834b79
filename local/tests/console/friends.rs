//! `/console/api/friends` and `/console/api/players` with relations made on the socket:
//! a friend with presence and activity, invitations both ways and a block, each on the
//! side that sees it; the activity in the players section too.

use serde_json::{Value, json};

use super::api::{get, stack};
use super::{ok, player};

/// `section`'s row for `id`, if it has one.
fn row<'a>(section: &'a Value, id: &str) -> Option<&'a Value> {
    section
        .as_array()
        .unwrap()
        .iter()
        .find(|row| row["playerId"] == id)
}

/// The player ids of a friends row's `state` column.
fn ids(row: &Value, state: &str) -> Vec<String> {
    row[state]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["playerId"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn given_invitations_both_ways_a_block_and_a_friend_with_an_activity_then_the_console_shows_each_on_the_side_that_sees_it()
 {
    // Given alice invited by carol, inviting bob, blocking dave, and friends with erin,
    // who set an activity
    let stack = stack().await;
    let url = stack.url();
    let mut alice = player(&url, "alice").await;
    let bob = player(&url, "bob").await;
    let mut carol = player(&url, "carol").await;
    let _dave = player(&url, "dave").await;
    let mut erin = player(&url, "erin").await;
    ok(&mut alice, "addFriend", json!({"playerId": "bob"})).await;
    ok(&mut carol, "addFriend", json!({"playerId": "alice"})).await;
    ok(&mut alice, "blockPlayer", json!({"playerId": "dave"})).await;
    ok(&mut alice, "addFriend", json!({"playerId": "erin"})).await;
    ok(&mut erin, "addFriend", json!({"playerId": "alice"})).await;
    let activity = json!({"activity": "in lobby", "details": {"mode": "ranked"}});
    ok(&mut erin, "setActivity", activity.clone()).await;

    // When a script reads the friends section
    let (status, friends) = get(stack.addr(), "/console/api/friends").await;
    assert_eq!(status, 200);

    // Then alice's row has each relation in its column, erin with presence and activity
    let alices = row(&friends, "alice").unwrap_or_else(|| panic!("{friends}"));
    assert_eq!(ids(alices, "friends"), ["erin"], "{alices}");
    assert_eq!(alices["friends"][0]["presence"], "online");
    assert_eq!(alices["friends"][0]["activity"], "in lobby");
    assert_eq!(alices["friends"][0]["details"], activity["details"]);
    assert_eq!(ids(alices, "invited"), ["bob"]);
    assert_eq!(ids(alices, "invitation"), ["carol"]);
    assert_eq!(ids(alices, "blocked"), ["dave"]);
    // And the other sides: bob's invitation, carol's invited, erin's friend; dave has no
    // row (a block shows only on the blocker's side)
    assert_eq!(ids(row(&friends, "bob").unwrap(), "invitation"), ["alice"]);
    assert_eq!(ids(row(&friends, "carol").unwrap(), "invited"), ["alice"]);
    assert_eq!(ids(row(&friends, "erin").unwrap(), "friends"), ["alice"]);
    assert!(row(&friends, "dave").is_none(), "{friends}");

    // And the players section shows erin's activity, none for alice
    let (_, players) = get(stack.addr(), "/console/api/players").await;
    assert_eq!(row(&players, "erin").unwrap()["activity"], activity);
    assert_eq!(row(&players, "alice").unwrap()["activity"], Value::Null);

    // And once erin drops the friendship and alice lifts the block, only invitations stay
    ok(&mut erin, "removeFriend", json!({"playerId": "alice"})).await;
    ok(&mut alice, "unblockPlayer", json!({"playerId": "dave"})).await;
    let (_, friends) = get(stack.addr(), "/console/api/friends").await;
    let alices = row(&friends, "alice").unwrap();
    assert!(ids(alices, "friends").is_empty() && ids(alices, "blocked").is_empty());
    assert_eq!(ids(alices, "invited"), ["bob"]);
    assert!(row(&friends, "erin").is_none(), "{friends}");
    drop(bob);
    stack.shutdown().await;
}
