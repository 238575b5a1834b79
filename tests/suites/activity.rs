//! Activity (rich presence) end to end over real WebSockets, on memory and on DynamoDB
//! Local: `setActivity` pushed to a subscriber in a `presence` frame (its `status` still
//! `online`), read by the backend API, refused clearly over its limits, and gone (from
//! the frame, the record and the backend API) once the sweeper takes the player offline.

use std::time::Duration;

use serde_json::{Value, json};
use shared::domain::PresenceStatus;
use tests::stack::TestStack;

const RECONNECT_GRACE: Duration = Duration::from_secs(1);
const SWEEP_INTERVAL: Duration = Duration::from_secs(1);

/// A stack whose sweeper takes a dropped player offline within about two seconds; on
/// DynamoDB Local when `dynamodb` (`None` when `DYNAMODB_ENDPOINT` is not set).
async fn activity_stack(dynamodb: bool) -> Option<TestStack> {
    let endpoint = match dynamodb {
        true => Some(tests::dynamodb::endpoint_or_skip()?),
        false => None,
    };
    let stack = TestStack::start_with(|s| {
        s.presence.reconnect_grace_seconds = RECONNECT_GRACE.as_secs();
        s.presence.sweep_interval_seconds = SWEEP_INTERVAL.as_secs();
        if let Some(endpoint) = endpoint {
            tests::dynamodb::use_fresh_tables(&mut s.storage, endpoint);
        }
    })
    .await;
    Some(stack)
}

fn about_alice(frame: &Value) -> bool {
    frame["type"] == "presence" && frame["playerId"] == "alice"
}

async fn activity_pushed_read_and_cleared_offline(dynamodb: bool) {
    let Some(stack) = activity_stack(dynamodb).await else {
        return;
    };
    let mut bob = stack.online("bob").await.0;
    bob.request("subscribePresence", json!({"playerIds": ["alice"]}))
        .await;
    let mut alice = stack.online("alice").await.0;
    let online = bob.next_frame().await;
    assert!(about_alice(&online), "{online}");
    assert!(
        online.get("activity").is_none(),
        "a new session has none: {online}"
    );

    // Alice sets an activity: acked with it, pushed to her subscriber with `online`.
    let activity =
        json!({"activity": "ranked, map Dust, 3–1", "details": {"map": "dust", "score": [3, 1]}});
    let ack = alice.request("setActivity", activity.clone()).await;
    assert_eq!(ack["type"], "ack", "{ack}");
    assert_eq!(ack["activity"], activity["activity"]);
    assert_eq!(ack["details"], activity["details"]);
    let pushed = bob.next_frame().await;
    assert!(about_alice(&pushed), "{pushed}");
    assert_eq!(pushed["status"], "online");
    assert_eq!(pushed["activity"], activity["activity"]);
    assert_eq!(pushed["details"], activity["details"]);

    // The backend API reads it with her presence.
    let read = stack.backend_api("GET", "/v1/players/alice", None).await;
    assert_eq!(read.status, 200, "{}", read.body);
    assert_eq!(read.body["activity"], activity["activity"], "{}", read.body);
    assert_eq!(read.body["details"], activity["details"]);

    // Over its limits: refused saying which, nothing stored or pushed.
    let long = alice
        .request("setActivity", json!({"activity": "x".repeat(65)}))
        .await;
    assert_eq!(long["code"], "bad_request", "{long}");
    assert_eq!(
        long["message"],
        "`activity` is 65 characters; the maximum is 64"
    );
    let big = alice
        .request(
            "setActivity",
            json!({"activity": "a", "details": {"k": "x".repeat(600)}}),
        )
        .await;
    assert_eq!(big["code"], "payload_too_large", "{big}");
    assert_eq!(
        big["message"],
        "`details` is 608 bytes serialized; the maximum is 512"
    );
    bob.expect_no_frame(Duration::from_millis(300)).await;

    // She leaves: the sweeper takes her offline, and the activity with her.
    alice.close().await;
    let offline = bob
        .next_frame_within(RECONNECT_GRACE + 4 * SWEEP_INTERVAL)
        .await;
    assert!(about_alice(&offline), "{offline}");
    assert_eq!(offline["status"], "offline");
    assert!(offline.get("activity").is_none(), "{offline}");
    stack
        .wait_for_status("alice", PresenceStatus::Offline)
        .await;
    let record = stack.record("alice").await;
    assert_eq!(record.activity, None);
    let read = stack.backend_api("GET", "/v1/players/alice", None).await;
    assert!(read.body.get("activity").is_none(), "{}", read.body);

    // Back online: no activity until she sets one.
    stack.online("alice").await;
    let online = bob.next_frame().await;
    assert_eq!(online["status"], "online");
    assert!(online.get("activity").is_none(), "{online}");
    stack.shutdown().await;
}

#[tokio::test]
async fn given_alice_sets_an_activity_then_her_subscriber_gets_it_the_backend_reads_it_and_going_offline_clears_it()
 {
    activity_pushed_read_and_cleared_offline(false).await;
}

#[tokio::test]
async fn given_dynamodb_local_when_alice_sets_an_activity_then_her_subscriber_gets_it_the_backend_reads_it_and_going_offline_clears_it()
 {
    activity_pushed_read_and_cleared_offline(true).await;
}
