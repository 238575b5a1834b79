//! Presence end to end over real WebSockets: subscriptions, the in-process bus routed to
//! `on-presence-event`, and the sweeper on a 1 s interval (DESIGN §5).

use std::time::Duration;

use serde_json::json;
use tests::stack::TestStack;

async fn presence_stack() -> TestStack {
    TestStack::start_with(|s| {
        s.heartbeat_timeout_seconds = 3;
        s.reconnect_grace_seconds = 2;
        s.sweep_interval_seconds = 1;
    })
    .await
}

#[tokio::test]
async fn given_bob_watches_alice_when_she_connects_reconnects_and_leaves_then_bob_sees_online_once_and_offline_once()
 {
    let stack = presence_stack().await;
    let mut bob = stack.connect("bob").await;
    let ack = bob
        .request(
            "subscribePresence",
            json!({"playerIds": ["alice", "carol"]}),
        )
        .await;
    assert_eq!(
        ack["presence"],
        json!({"alice": "offline", "carol": "offline"})
    );

    let alice = stack.connect("alice").await;
    let frame = bob.next_frame().await;
    assert_eq!(frame["type"], "presence");
    assert_eq!(frame["playerId"], "alice");
    assert_eq!(frame["status"], "online");

    // A reconnect within the grace period: no blinking.
    alice.close().await;
    let alice = stack.connect("alice").await;
    bob.request("heartbeat", json!({})).await;
    bob.expect_no_frame(Duration::from_millis(1500)).await;

    // Gone for good: offline within grace + 2 s.
    alice.close().await;
    bob.request("heartbeat", json!({})).await;
    let frame = match bob.receive(Duration::from_secs(4)).await {
        tests::stack::Received::Text(text) => {
            serde_json::from_str::<serde_json::Value>(&text).unwrap()
        }
        other => panic!("expected alice offline within grace + 2 s, got {other:?}"),
    };
    assert_eq!(frame["type"], "presence");
    assert_eq!(frame["status"], "offline");
}

#[tokio::test]
async fn given_alice_stops_heartbeating_then_her_socket_is_closed_and_bob_sees_offline() {
    let stack = presence_stack().await;
    let mut bob = stack.connect("bob").await;
    bob.request("subscribePresence", json!({"playerIds": ["alice"]}))
        .await;
    let mut alice = stack.connect("alice").await;
    assert_eq!(bob.next_frame().await["status"], "online");
    // bob heartbeats every second and stays; alice never does.
    let mut offline = None;
    for _ in 0..8 {
        bob.send_json(json!({"route": "heartbeat"})).await;
        let frame = bob.next_frame().await;
        if frame["type"] == "presence" {
            offline = Some(frame);
            break;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    let offline = offline.expect("bob sees alice go offline within the timeout + 2 s");
    assert_eq!(offline["status"], "offline");
    // The sweeper closed the zombie socket (DeleteConnection).
    alice.expect_close_within(Duration::from_secs(3)).await;
}

#[tokio::test]
async fn given_bob_unsubscribes_then_no_more_frames_about_alice() {
    let stack = presence_stack().await;
    let mut bob = stack.connect("bob").await;
    bob.request("subscribePresence", json!({"playerIds": ["alice"]}))
        .await;
    let ack = bob
        .request("unsubscribePresence", json!({"playerIds": ["alice"]}))
        .await;
    assert_eq!(ack["unsubscribed"], 1);
    let _alice = stack.connect("alice").await;
    bob.expect_no_frame(Duration::from_millis(800)).await;
    let bad = bob
        .request("subscribePresence", json!({"playerIds": []}))
        .await;
    assert_eq!(bad["code"], "bad_request");
}
