//! `listFriends` paging and the friends limit end to end over real WebSockets, on memory
//! and (with `DYNAMODB_ENDPOINT` set) on DynamoDB Local: a player with `MAX_FRIENDS`
//! friends (made through the stack's own Friends ports, as the backend API's PUT does)
//! walks more than a page with the cursor, nothing missing or twice; the 501st friendship
//! is refused `forbidden`, naming the full player, whichever side accepts it.

use contracts::friend_store_contract::act_on;
use futures_util::future::join_all;
use serde_json::{Value, json};
use shared::friends::{Action, FRIENDS_PAGE_SIZE, FriendCommitted, MAX_FRIENDS};
use tests::player::Player;
use tests::stack::TestStack;

async fn paging_stack(dynamodb: bool) -> Option<TestStack> {
    let endpoint = match dynamodb {
        true => Some(tests::dynamodb::endpoint_or_skip()?),
        false => None,
    };
    let stack = TestStack::start_with(|s| {
        if let Some(endpoint) = endpoint {
            tests::dynamodb::use_fresh_tables(&mut s.storage, endpoint);
        }
    })
    .await;
    Some(stack)
}

/// `player` given `MAX_FRIENDS` friends `f0000`…, at once on both sides (the backend
/// API's import), a few at a time: each writes the player's count, so more would contend.
async fn fill_friends(stack: &TestStack, player: &str) -> Vec<String> {
    let stores = &stack.stack().dependencies().stores;
    let (reader, commits) = (stores.friend_reader(), stores.friend_commits());
    let others: Vec<String> = (0..MAX_FRIENDS).map(|i| format!("f{i:04}")).collect();
    for chunk in others.chunks(4) {
        let done = join_all(
            chunk
                .iter()
                .map(|other| act_on(&*reader, &*commits, player, other, Action::Befriend, 1)),
        )
        .await;
        assert!(done.iter().all(|d| *d == FriendCommitted::Done), "{done:?}");
    }
    others
}

/// Every entry of `player`'s `listFriends` (only `state`'s, if given), page by page with
/// the cursor; the number of pages.
async fn walk(player: &mut Player, state: Option<&str>) -> (Vec<Value>, usize) {
    let (mut entries, mut pages, mut cursor) = (Vec::new(), 0, Value::Null);
    loop {
        let mut body = json!({"state": state, "cursor": cursor});
        body.as_object_mut().unwrap().retain(|_, v| !v.is_null());
        let page = player.ok("listFriends", body).await;
        let friends = page["friends"].as_array().unwrap();
        assert!(
            friends.len() <= FRIENDS_PAGE_SIZE as usize,
            "{}",
            friends.len()
        );
        entries.extend(friends.iter().cloned());
        pages += 1;
        cursor = page["cursor"].clone();
        if cursor.is_null() {
            return (entries, pages);
        }
        assert_eq!(
            cursor,
            friends.last().unwrap()["playerId"],
            "the page's last"
        );
    }
}

fn ids(entries: &[Value]) -> Vec<&str> {
    entries
        .iter()
        .map(|e| e["playerId"].as_str().unwrap())
        .collect()
}

async fn paging_and_the_limit(dynamodb: bool) {
    let Some(stack) = paging_stack(dynamodb).await else {
        return;
    };
    let friends = fill_friends(&stack, "alice").await;
    let mut alice = Player::online(&stack, "alice").await;
    let mut bob = Player::online(&stack, "bob").await;
    let mut carol = Player::online(&stack, "carol").await;
    // Invitations both ways make no friend: they are taken at the limit.
    bob.ok("addFriend", json!({"playerId": "alice"})).await;
    let ack = alice.ok("addFriend", json!({"playerId": "carol"})).await;
    assert_eq!(ack["state"], "invited");

    // Every relation once, by player id, over more than one page; friends with presence.
    let (entries, pages) = walk(&mut alice, None).await;
    let mut expected: Vec<&str> = friends.iter().map(String::as_str).collect();
    expected.extend(["bob", "carol"]);
    expected.sort_unstable();
    assert_eq!(
        ids(&entries),
        expected,
        "nothing missing or twice, in order"
    );
    assert_eq!(pages, entries.len().div_ceil(FRIENDS_PAGE_SIZE as usize));
    for entry in &entries {
        let friend = entry["state"] == "friends";
        assert_eq!(entry["presence"].is_string(), friend, "{entry}");
    }
    let (only_friends, _) = walk(&mut alice, Some("friends")).await;
    assert_eq!(ids(&only_friends), friends);

    // The 501st friend: refused, naming alice, whether she accepts or carol does.
    for (accepting, other) in [(&mut alice, "bob"), (&mut carol, "alice")] {
        let refused = accepting.ask("addFriend", json!({"playerId": other})).await;
        assert_eq!(refused["code"], "forbidden", "{refused}");
        let message = refused["message"].as_str().unwrap();
        assert!(
            message.contains(&format!("alice has {MAX_FRIENDS} friends")),
            "{message}"
        );
    }
    let (after, _) = walk(&mut alice, None).await;
    assert_eq!(after, entries, "nothing changed");
    stack.shutdown().await;
}

#[tokio::test]
async fn given_max_friends_when_listed_page_by_page_then_every_relation_once_and_the_next_friend_is_refused_on_both_sides()
 {
    paging_and_the_limit(false).await;
}

#[tokio::test]
async fn given_dynamodb_local_and_max_friends_when_listed_page_by_page_then_every_relation_once_and_the_next_friend_is_refused_on_both_sides()
 {
    paging_and_the_limit(true).await;
}
