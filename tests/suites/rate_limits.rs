//! Per-player rate limits end to end (shared/src/rate_limits.rs): a sender over
//! the limit is told `rate_limited` with `retryAfterMs`, nothing of the refused frame is
//! stored, other players are unaffected, and the next minute the limit resets. In
//! memory, and on DynamoDB Local (the windows on the players' items). The stack runs on
//! a settable clock, so "the next minute" takes no real minute.

use std::time::Duration;

use contracts::fixtures::assert_refused;
use serde_json::{Value, json};
use shared::ports::{Clock, ManualClock, SystemClock};
use tests::stack::{Client, TestStack};

async fn stack(dynamodb: bool, clock: ManualClock) -> Option<TestStack> {
    let endpoint = if dynamodb {
        Some(tests::dynamodb::endpoint_or_skip()?)
    } else {
        None
    };
    Some(
        TestStack::start_with_clock(
            |s| {
                s.rate_limits.rate_limit_messages_per_minute = 5;
                s.rate_limits.rate_limit_recipients_per_minute = 250;
                if let Some(endpoint) = endpoint {
                    tests::dynamodb::use_fresh_tables(&mut s.storage, endpoint);
                }
            },
            clock,
        )
        .await,
    )
}

async fn send(client: &mut Client, to: &[String], n: u32) -> Value {
    client
        .send_json(json!({"route": "sendMessage", "requestId": format!("m{n}"),
                          "body": {"playerIds": to, "message": n}}))
        .await;
    client.next_frame_within(Duration::from_secs(10)).await
}

fn names(prefix: &str, count: usize) -> Vec<String> {
    (0..count).map(|i| format!("{prefix}{i}")).collect()
}

async fn a_fast_sender_is_limited_others_are_not_and_the_limit_resets(dynamodb: bool) {
    // Given a limit of 5 messages a minute, and the clock 20 s into a minute
    let now = SystemClock.now_millis();
    let clock = ManualClock::at(now - now.rem_euclid(60_000) + 20_000);
    let Some(stack) = stack(dynamodb, clock.clone()).await else {
        return;
    };
    let (mut alice, _) = stack.online("alice").await;
    let (mut bob, _) = stack.online("bob").await;
    let to_bob = vec!["bob".to_owned()];

    // When alice sends 6 within the minute
    for n in 0..5 {
        let ack = send(&mut alice, &to_bob, n).await;
        assert_eq!(ack["type"], "ack", "{ack}");
    }
    let refused = send(&mut alice, &to_bob, 5).await;

    // Then the sixth is refused, saying when to retry
    assert_eq!(refused["type"], "error", "{refused}");
    assert_eq!(refused["code"], "rate_limited", "{refused}");
    assert_eq!(refused["route"], "sendMessage", "{refused}");
    assert_eq!(refused["requestId"], "m5", "{refused}");
    assert_eq!(refused["retryAfterMs"], 40_000, "{refused}");
    // and bob got the five, not the sixth
    for n in 0..5 {
        assert_eq!(bob.next_frame().await["message"], n);
    }
    bob.expect_no_frame(Duration::from_millis(300)).await;
    // And bob, on his own limit, still sends
    let ack = send(&mut bob, &["alice".to_owned()], 0).await;
    assert_eq!(ack["type"], "ack", "{ack}");
    assert_eq!(alice.next_frame().await["message"], 0);

    // When the minute is over, alice may send again
    clock.advance(40_000);
    let ack = send(&mut alice, &to_bob, 6).await;
    assert_eq!(ack["type"], "ack", "the limit reset: {ack}");
    assert_eq!(bob.next_frame().await["message"], 6);
    stack.shutdown().await;
}

async fn a_burst_of_100_recipient_messages_is_capped_by_the_recipient_limit(dynamodb: bool) {
    // Given 250 recipients a minute, and 100 players who have connected once
    let now = SystemClock.now_millis();
    let clock = ManualClock::at(now - now.rem_euclid(60_000) + 1_000);
    let Some(stack) = stack(dynamodb, clock).await else {
        return;
    };
    let hundred = names("fan", 100);
    for name in &hundred {
        let (client, _) = stack.online(name).await;
        client.close().await;
    }
    let (mut alice, _) = stack.online("alice").await;

    // When alice sends to all 100, three times
    let replies = [
        send(&mut alice, &hundred, 0).await,
        send(&mut alice, &hundred, 1).await,
        send(&mut alice, &hundred, 2).await,
    ];

    // Then two go out (200 recipients) and the third would cross 250
    assert_eq!(replies[0]["queued"], 100, "{}", replies[0]);
    assert_eq!(replies[1]["queued"], 100, "{}", replies[1]);
    assert_refused(&replies[2], "rate_limited", "250 recipients a minute");
    assert!(replies[2]["retryAfterMs"].as_i64().unwrap_or(0) > 0);
    // And what fits still goes: 50 more recipients
    let ack = send(&mut alice, &names("fan", 50), 3).await;
    assert_eq!(ack["queued"], 50, "{ack}");
    stack.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn given_a_sender_over_the_message_limit_then_rate_limited_with_retry_after_others_unaffected_and_it_resets()
 {
    a_fast_sender_is_limited_others_are_not_and_the_limit_resets(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn given_dynamodb_local_and_a_sender_over_the_message_limit_then_rate_limited_with_retry_after_others_unaffected_and_it_resets()
 {
    a_fast_sender_is_limited_others_are_not_and_the_limit_resets(true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn given_a_burst_of_100_recipient_messages_then_the_recipient_limit_caps_it() {
    a_burst_of_100_recipient_messages_is_capped_by_the_recipient_limit(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn given_dynamodb_local_and_a_burst_of_100_recipient_messages_then_the_recipient_limit_caps_it()
 {
    a_burst_of_100_recipient_messages_is_capped_by_the_recipient_limit(true).await;
}
