use super::*;
use contracts::events::{reply_frame, route_event};
use contracts::fixtures::{T0, assert_refused, connected, frames, player};
use contracts::ports::*;
use contracts::unavailable::Unavailable;
use edge::websocket::RouteHandler;
use memory_adapters::test_wiring::TestWiring;
use serde_json::{Value, json};
use shared::friends::MAX_FRIENDS;
use shared::messaging::MessageKind;

const ADD: &str = ClientRoute::AddFriend.as_str();
const REMOVE: &str = ClientRoute::RemoveFriend.as_str();
const BLOCK: &str = ClientRoute::BlockPlayer.as_str();
const UNBLOCK: &str = ClientRoute::UnblockPlayer.as_str();
const LIST: &str = ClientRoute::ListFriends.as_str();

/// alice, bob, carol and dave have connected.
struct World {
    wiring: TestWiring,
}

async fn world() -> World {
    world_with(|_| {}).await
}

async fn world_with(adjust: impl FnOnce(&mut Config)) -> World {
    let mut wiring = TestWiring::new();
    adjust(&mut wiring.config);
    let w = World { wiring };
    for name in ["alice", "bob", "carol", "dave"] {
        w.connect(name).await;
    }
    w
}

/// As [`world`], with no limit on invitations (for worlds of many friends).
async fn unlimited() -> World {
    world_with(|c| c.rate_limits.friend_invites_per_minute = 0).await
}

impl World {
    async fn connect(&self, name: &str) {
        connected(
            &*self.wiring.tables.players,
            name,
            &format!("c-{name}"),
            T0 - 1_000,
        )
        .await;
    }

    async fn send(&self, from: &str, route: &str, body: Value) -> Value {
        let text = json!({"route": route, "requestId": "r1", "body": body}).to_string();
        let event = route_event(route, from, &format!("c-{from}"), T0, Some(&text));
        let handler = wire(&self.wiring.wiring());
        reply_frame(&handler.handle(event).await.unwrap())
    }

    /// Sends and asserts an ack; the ack's `state`.
    async fn ok(&self, from: &str, route: &str, to: &str) -> Value {
        let reply = self.send(from, route, json!({"playerId": to})).await;
        assert_eq!(reply["type"], "ack", "{from} {route} {to}: {reply}");
        assert_eq!(reply["playerId"], to, "{reply}");
        reply["state"].clone()
    }

    async fn refused(&self, from: &str, route: &str, body: Value, code: &str) -> Value {
        let reply = self.send(from, route, body.clone()).await;
        assert_eq!(reply["type"], "error", "{from} {route} {body}: {reply}");
        assert_eq!(reply["code"], code, "{from} {route} {body}: {reply}");
        reply
    }

    /// The `friend` frames in `name`'s inbox as (about, state), oldest first.
    async fn told(&self, name: &str) -> Vec<(String, String)> {
        frames(&*self.wiring.tables.messages, name, MessageKind::Friend, T0)
            .await
            .into_iter()
            .map(|frame| {
                assert_eq!(frame["type"], "friend");
                (
                    frame["playerId"].as_str().unwrap().to_owned(),
                    frame["state"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    }

    async fn list(&self, name: &str, body: Value) -> Value {
        let reply = self.send(name, LIST, body).await;
        assert_eq!(reply["type"], "ack", "{reply}");
        reply
    }
}

fn told(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect()
}

#[tokio::test]
async fn given_an_invitation_when_the_other_invites_back_then_both_are_friends_and_told_each_step()
{
    let w = world().await;
    assert_eq!(w.ok("alice", ADD, "bob").await, "invited");
    assert_eq!(w.told("bob").await, told(&[("alice", "invitation")]));
    assert_eq!(w.ok("bob", ADD, "alice").await, "friends");
    assert_eq!(
        w.told("alice").await,
        told(&[("bob", "invited"), ("bob", "friends")])
    );
    assert_eq!(
        w.told("bob").await,
        told(&[("alice", "invitation"), ("alice", "friends")])
    );
    // Asking again changes nothing and tells nobody again.
    assert_eq!(w.ok("alice", ADD, "bob").await, "friends");
    assert_eq!(w.told("alice").await.len(), 2);
}

#[tokio::test]
async fn given_a_player_nobody_knows_or_yourself_when_invited_then_refused_and_nothing_is_written()
{
    let w = world().await;
    let reply = w
        .refused("alice", ADD, json!({"playerId": "zed"}), "not_found")
        .await;
    assert_refused(&reply, "not_found", "zed");
    w.refused("alice", BLOCK, json!({"playerId": "zed"}), "not_found")
        .await;
    w.refused("alice", ADD, json!({"playerId": "alice"}), "bad_request")
        .await;
    w.refused("alice", ADD, json!({"playerId": "a b"}), "bad_request")
        .await;
    assert!(w.wiring.tables.friends.all().is_empty());
}

#[tokio::test]
async fn given_friends_when_one_removes_the_other_then_both_sides_go_and_both_are_told_removed() {
    let w = world().await;
    w.ok("alice", ADD, "bob").await;
    w.ok("bob", ADD, "alice").await;
    assert_eq!(w.ok("bob", REMOVE, "alice").await, Value::Null);
    assert_eq!(
        w.told("alice").await.last().unwrap(),
        &told(&[("bob", "removed")])[0]
    );
    assert_eq!(
        w.told("bob").await.last().unwrap(),
        &told(&[("alice", "removed")])[0]
    );
    assert!(w.wiring.tables.friends.all().is_empty());
    // Nothing left to remove is no error.
    assert_eq!(w.ok("bob", REMOVE, "alice").await, Value::Null);
    assert_eq!(w.ok("bob", REMOVE, "zed").await, Value::Null);
}

#[tokio::test]
async fn given_a_block_then_the_blocked_side_sees_an_unfriend_and_its_invitations_never_arrive() {
    let w = world().await;
    w.ok("alice", ADD, "bob").await;
    w.ok("bob", ADD, "alice").await;
    let before = w.told("alice").await.len();
    assert_eq!(w.ok("bob", BLOCK, "alice").await, "blocked");
    // alice is told exactly what an unfriend tells her.
    assert_eq!(
        w.told("alice").await[before..],
        told(&[("bob", "removed")])[..]
    );
    // alice invites bob: answered as if nothing stood in the way; bob hears nothing.
    let bob_heard = w.told("bob").await.len();
    assert_eq!(w.ok("alice", ADD, "bob").await, "invited");
    assert_eq!(w.told("bob").await.len(), bob_heard);
    assert_eq!(
        w.told("alice").await.last().unwrap(),
        &told(&[("bob", "invited")])[0]
    );
    let alice_view = w.list("alice", json!({})).await;
    assert_eq!(
        alice_view["friends"],
        json!([{"playerId": "bob", "state": "invited", "since": T0}])
    );
    // bob cannot invite whom he blocks; unblocking delivers alice's invitation.
    w.refused("bob", ADD, json!({"playerId": "alice"}), "conflict")
        .await;
    assert_eq!(w.ok("bob", UNBLOCK, "alice").await, "invitation");
    assert_eq!(
        w.told("bob").await.last().unwrap(),
        &told(&[("alice", "invitation")])[0]
    );
    assert_eq!(w.ok("bob", ADD, "alice").await, "friends");
}

#[tokio::test]
async fn given_relations_when_listed_then_pages_by_id_with_friends_presence_and_the_state_filter() {
    let w = unlimited().await;
    let names: Vec<String> = (0..120).map(|i| format!("f{i:03}")).collect();
    for name in &names {
        w.connect(name).await;
        w.ok("alice", ADD, name).await;
        w.ok(name, ADD, "alice").await;
    }
    w.ok("alice", ADD, "bob").await;
    w.ok("carol", ADD, "alice").await;
    w.ok("alice", BLOCK, "dave").await;
    // f001 goes offline for good (swept): friends see it.
    w.wiring
        .tables
        .players
        .disconnect(
            &player("f001"),
            &contracts::fixtures::connection("c-f001"),
            T0 - 900,
            T0 - 800,
        )
        .await
        .unwrap();

    let first = w.list("alice", json!({})).await;
    let entries = first["friends"].as_array().unwrap();
    assert_eq!(entries.len(), 100);
    assert_eq!(entries[0]["playerId"], "bob");
    assert_eq!(entries[0]["state"], "invited");
    assert!(entries[0].get("presence").is_none(), "{}", entries[0]);
    let f001 = entries.iter().find(|e| e["playerId"] == "f001").unwrap();
    assert_eq!(f001["presence"], "offline");
    let f000 = entries.iter().find(|e| e["playerId"] == "f000").unwrap();
    assert_eq!(f000["presence"], "online");
    assert_eq!(f000["state"], "friends");
    let cursor = first["cursor"].clone();
    assert!(cursor.is_string(), "{first}");

    let second = w.list("alice", json!({"cursor": cursor})).await;
    let rest: Vec<&str> = second["friends"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["playerId"].as_str().unwrap())
        .collect();
    assert_eq!(rest.len(), 23);
    assert_eq!(rest[rest.len() - 1], "f119");
    assert_eq!(second["cursor"], Value::Null);

    let blocked = w.list("alice", json!({"state": "blocked"})).await;
    assert_eq!(
        blocked["friends"],
        json!([{"playerId": "dave", "state": "blocked", "since": T0}])
    );
    let invitations = w.list("alice", json!({"state": "invitation"})).await;
    assert_eq!(invitations["friends"][0]["playerId"], "carol");
    w.refused("alice", LIST, json!({"state": "enemies"}), "bad_request")
        .await;
}

#[tokio::test]
async fn given_max_friends_when_one_more_is_accepted_then_forbidden_and_nothing_changes() {
    let w = unlimited().await;
    for i in 0..MAX_FRIENDS {
        let name = format!("f{i:04}");
        w.connect(&name).await;
        w.ok("alice", ADD, &name).await;
        w.ok(&name, ADD, "alice").await;
    }
    w.ok("bob", ADD, "alice").await;
    let reply = w
        .refused("alice", ADD, json!({"playerId": "bob"}), "forbidden")
        .await;
    assert_refused(&reply, "forbidden", "500 friends");
    assert_eq!(
        w.list("alice", json!({"state": "invitation"})).await["friends"][0]["playerId"],
        "bob"
    );
}

#[tokio::test]
async fn given_the_invitation_limit_when_passed_then_rate_limited_and_nobody_is_invited() {
    let w = world_with(|c| c.rate_limits.friend_invites_per_minute = 2).await;
    w.ok("alice", ADD, "bob").await;
    w.ok("alice", ADD, "carol").await;
    let reply = w
        .refused("alice", ADD, json!({"playerId": "dave"}), "rate_limited")
        .await;
    assert!(reply["retryAfterMs"].is_number(), "{reply}");
    assert!(w.told("dave").await.is_empty());
}

#[tokio::test]
async fn given_the_store_down_when_acting_then_unavailable_says_nothing_changed() {
    let mut w = world().await;
    w.wiring.replace::<dyn FriendReader>(Arc::new(Unavailable));
    for route in [ADD, REMOVE, BLOCK, UNBLOCK] {
        let reply = w
            .refused("alice", route, json!({"playerId": "bob"}), "unavailable")
            .await;
        assert_refused(&reply, "unavailable", "nothing changed");
    }
    w.refused("alice", LIST, json!({}), "unavailable").await;
}

/// Runs a sample event from events/ through the handler and returns its reply frame.
async fn run_sample(w: &World, raw: &str) -> Value {
    let raw: Value = serde_json::from_str(raw).unwrap();
    let handler = wire(&w.wiring.wiring());
    reply_frame(
        &handler
            .handle(contracts::events::parse_event(raw))
            .await
            .unwrap(),
    )
}

#[tokio::test]
async fn the_sample_friend_events_run_through_the_handler() {
    let w = world().await;
    for (raw, state) in [
        (
            include_str!("../../../events/friends-add.json"),
            json!("invited"),
        ),
        (
            include_str!("../../../events/friends-remove.json"),
            json!(null),
        ),
        (
            include_str!("../../../events/friends-block.json"),
            json!("blocked"),
        ),
        (
            include_str!("../../../events/friends-unblock.json"),
            json!(null),
        ),
    ] {
        let reply = run_sample(&w, raw).await;
        assert_eq!(reply["type"], "ack", "{reply}");
        assert_eq!(reply["state"], state, "{reply}");
    }
    let listed = run_sample(&w, include_str!("../../../events/friends-list.json")).await;
    assert_eq!(listed["requestId"], "listFriends-1");
    assert_eq!(listed["friends"], json!([]), "{listed}");
}
