//! Presence end to end over real WebSockets: subscriptions, the in-process bus routed
//! to `on-presence-event`, and the sweeper on a 1 s interval
//! (functions/on-presence-event/src/lib.rs).
//!
//! Time bounds are deadlines on a receive, measured from the moment that starts the
//! clock (a close, the last heartbeat): they check the protocol's promises (grace + 2 s,
//! timeout + 2 s), not performance.

use std::time::Duration;

use serde_json::{Value, json};
use shared::config::PresenceLiveness;
use shared::domain::PresenceStatus;
use shared::ports::Clock;
use tests::stack::{Client, Received, TestStack};
use tokio::time::Instant;

const HEARTBEAT_TIMEOUT: Duration = Duration::from_secs(3);
const RECONNECT_GRACE: Duration = Duration::from_secs(2);
const SWEEP_INTERVAL: Duration = Duration::from_secs(1);
/// What the issue allows on top of the grace period or the heartbeat timeout.
const SLACK: Duration = Duration::from_secs(2);
/// How often a live client heartbeats here (well inside the 3 s timeout).
const HEARTBEAT_EVERY: Duration = Duration::from_secs(1);

async fn presence_stack() -> TestStack {
    TestStack::start_with(|s| {
        s.presence.heartbeat_timeout_seconds = HEARTBEAT_TIMEOUT.as_secs();
        s.presence.reconnect_grace_seconds = RECONNECT_GRACE.as_secs();
        s.presence.sweep_interval_seconds = SWEEP_INTERVAL.as_secs();
    })
    .await
}

fn about(frame: &Value, player: &str) -> bool {
    frame["type"] == "presence" && frame["playerId"] == player
}

/// Heartbeats `client` every second, as a live client does, until `deadline` or until a
/// frame `wanted` arrives. Returns that frame (`None` at the deadline) and every other
/// frame but the heartbeat acks; panics if the socket closes meanwhile.
async fn heartbeat_until(
    client: &mut Client,
    deadline: Instant,
    wanted: impl Fn(&Value) -> bool,
) -> (Option<Value>, Vec<Value>) {
    let mut others = Vec::new();
    let mut next_heartbeat = Instant::now();
    loop {
        let now = Instant::now();
        if now >= deadline {
            return (None, others);
        }
        if now >= next_heartbeat {
            client.send_json(json!({"route": "heartbeat"})).await;
            next_heartbeat += HEARTBEAT_EVERY;
        }
        let wait = deadline
            .min(next_heartbeat)
            .saturating_duration_since(Instant::now());
        match client.receive(wait).await {
            Received::Nothing => {}
            Received::Text(text) => {
                let frame: Value = serde_json::from_str(&text).expect("a JSON frame");
                if frame["type"] == "ack" && frame["route"] == "heartbeat" {
                    continue;
                }
                if wanted(&frame) {
                    return (Some(frame), others);
                }
                others.push(frame);
            }
            other => panic!("expected the socket to stay open, got {other:?}"),
        }
    }
}

/// bob subscribes to alice (and carol, who never shows up), then alice connects and bob
/// is told she is online.
async fn bob_watching_alice_online(stack: &TestStack) -> (Client, Client) {
    let mut bob = stack.online("bob").await.0;
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
    let alice = stack.online("alice").await.0;
    let frame = bob.next_frame().await;
    assert!(about(&frame, "alice"), "{frame}");
    assert_eq!(frame["status"], "online");
    (bob, alice)
}

#[tokio::test]
async fn given_bob_watches_alice_and_carol_when_alice_connects_then_the_ack_said_both_offline_and_bob_sees_alice_online()
 {
    let stack = presence_stack().await;
    let (mut bob, _alice) = bob_watching_alice_online(&stack).await;
    bob.expect_no_frame(Duration::from_millis(300)).await;
}

#[tokio::test]
async fn given_alice_online_when_she_closes_and_reconnects_within_the_grace_period_then_bob_gets_nothing_about_her()
 {
    let stack = presence_stack().await;
    let (mut bob, alice) = bob_watching_alice_online(&stack).await;

    alice.close().await;
    let mut alice = stack.online("alice").await.0;
    // Longer than grace + one sweep interval: a wrong `offline` (or a second `online`)
    // would have been delivered by now. Both keep heartbeating, so neither times out.
    let until = Instant::now() + RECONNECT_GRACE + SWEEP_INTERVAL + Duration::from_millis(500);
    let ((_, to_bob), (_, to_alice)) = tokio::join!(
        heartbeat_until(&mut bob, until, |_| false),
        heartbeat_until(&mut alice, until, |_| false),
    );
    assert_eq!(to_bob, Vec::<Value>::new(), "no blinking");
    assert_eq!(to_alice, Vec::<Value>::new());
}

#[tokio::test]
async fn given_alice_online_when_she_closes_and_stays_away_then_bob_gets_offline_within_grace_plus_2_s()
 {
    let stack = presence_stack().await;
    let (mut bob, alice) = bob_watching_alice_online(&stack).await;

    let closed = Instant::now();
    alice.close().await;
    let (offline, others) = heartbeat_until(&mut bob, closed + RECONNECT_GRACE + SLACK, |f| {
        about(f, "alice")
    })
    .await;
    let offline = offline.expect("alice offline within grace + 2 s of her close");
    assert_eq!(offline["status"], "offline");
    assert!(
        closed.elapsed() >= RECONNECT_GRACE,
        "not before the grace period ends"
    );
    assert_eq!(others, Vec::<Value>::new());
}

#[tokio::test]
async fn given_alice_stops_heartbeating_then_her_socket_is_closed_and_bob_gets_offline_within_timeout_plus_2_s()
 {
    let stack = presence_stack().await;
    let (mut bob, mut alice) = bob_watching_alice_online(&stack).await;

    // alice's last heartbeat; her socket stays open but silent from here on.
    let last_heartbeat = Instant::now();
    alice
        .send_json(json!({"route": "heartbeat", "requestId": "last"}))
        .await;
    let ack = alice.next_frame().await;
    assert_eq!(ack["route"], "heartbeat");
    let deadline = last_heartbeat + HEARTBEAT_TIMEOUT + SLACK;
    let ((offline, others), (why, close)) = tokio::join!(
        heartbeat_until(&mut bob, deadline, |f| about(f, "alice")),
        // The sweeper tells the zombie socket why, then closes it (DeleteConnection).
        async {
            let why = alice
                .receive(deadline.saturating_duration_since(Instant::now()))
                .await;
            let close = alice
                .receive(deadline.saturating_duration_since(Instant::now()))
                .await;
            (why, close)
        },
    );
    let offline = offline.expect("alice offline within timeout + 2 s of her last heartbeat");
    assert_eq!(offline["status"], "offline");
    assert!(
        last_heartbeat.elapsed() >= HEARTBEAT_TIMEOUT,
        "not before the heartbeat timeout"
    );
    match why {
        Received::Text(text) => assert_eq!(
            serde_json::from_str::<Value>(&text).unwrap(),
            json!({"type": "disconnected", "reason": "heartbeat_timeout"})
        ),
        other => panic!("expected the reason first, got {other:?}"),
    }
    assert!(
        matches!(close, Received::Close(Some(_))),
        "alice's socket closed within timeout + 2 s, got {close:?}"
    );
    assert_eq!(others, Vec::<Value>::new());
}

#[tokio::test]
async fn given_carol_heartbeats_every_second_for_twice_the_timeout_then_she_stays_online_and_her_watcher_hears_nothing()
 {
    let stack = presence_stack().await;
    let mut bob = stack.online("bob").await.0;
    bob.request("subscribePresence", json!({"playerIds": ["carol"]}))
        .await;
    let mut carol = stack.online("carol").await.0;
    let online = bob.next_frame().await;
    assert!(
        about(&online, "carol") && online["status"] == "online",
        "{online}"
    );
    let connection = stack.connection_id("carol").await;

    // heartbeat_until panics if carol's socket closes.
    let until = Instant::now() + 2 * HEARTBEAT_TIMEOUT;
    let ((_, to_bob), (_, to_carol)) = tokio::join!(
        heartbeat_until(&mut bob, until, |_| false),
        heartbeat_until(&mut carol, until, |_| false),
    );
    assert_eq!(to_bob, Vec::<Value>::new(), "no offline for carol");
    assert_eq!(to_carol, Vec::<Value>::new());
    stack.wait_for_status("carol", PresenceStatus::Online).await;
    assert_eq!(stack.connection_id("carol").await, connection);
    carol
        .send_json(json!({"route": "heartbeat", "requestId": "still"}))
        .await;
    let ack = carol.next_frame().await;
    assert_eq!(
        ack["route"], "heartbeat",
        "her socket still serves requests"
    );
}

#[tokio::test]
async fn given_bob_unsubscribes_then_no_more_frames_about_alice() {
    let stack = presence_stack().await;
    let mut bob = stack.online("bob").await.0;
    bob.request("subscribePresence", json!({"playerIds": ["alice"]}))
        .await;
    let ack = bob
        .request("unsubscribePresence", json!({"playerIds": ["alice"]}))
        .await;
    assert_eq!(ack["unsubscribed"], 1);
    let _alice = stack.online("alice").await.0;
    bob.expect_no_frame(Duration::from_millis(800)).await;
    let bad = bob
        .request("subscribePresence", json!({"playerIds": []}))
        .await;
    assert_eq!(bad["code"], "bad_request");
}

/// Where the clocked stacks keep their players.
#[derive(Clone, Copy, Debug)]
enum Store {
    Memory,
    DynamoDbLocal,
}

/// A stack on a manual clock (the gateway's `requestTimeEpoch`, the integration's
/// `UpdateItem`, the handlers and the sweeper all read it) whose background sweeper never
/// runs: the test moves time and sweeps when it says. `None` when the store is DynamoDB
/// Local and `DYNAMODB_ENDPOINT` is not set.
async fn clocked_stack(clock: &shared::ports::ManualClock, store: Store) -> Option<TestStack> {
    clocked_stack_with(clock, store, PresenceLiveness::Heartbeat, false).await
}

/// [`clocked_stack`] in `liveness` mode; with `counts_sent_frames`, its API Gateway moves a
/// socket's `lastActiveAt` on the frames it sends too (what AWS does not rule out).
async fn clocked_stack_with(
    clock: &shared::ports::ManualClock,
    store: Store,
    liveness: PresenceLiveness,
    counts_sent_frames: bool,
) -> Option<TestStack> {
    let endpoint = match store {
        Store::Memory => None,
        Store::DynamoDbLocal => Some(tests::dynamodb::endpoint_or_skip()?),
    };
    let stack = TestStack::start_with_clock(
        |s| {
            s.presence.heartbeat_timeout_seconds = HEARTBEAT_TIMEOUT.as_secs();
            s.presence.reconnect_grace_seconds = RECONNECT_GRACE.as_secs();
            s.presence.sweep_interval_seconds = 3_600;
            s.presence.presence_liveness = liveness;
            s.gateway.last_active_counts_sent_frames = counts_sent_frames;
            if let Some(endpoint) = endpoint {
                tests::dynamodb::use_fresh_tables(&mut s.storage, endpoint);
            }
        },
        clock.clone(),
    )
    .await;
    Some(stack)
}

/// Sends a heartbeat without a requestId (no reply comes) and waits until the store has
/// it, as of the clock's now: a deadline of the timeout from now.
async fn heartbeat_recorded(stack: &TestStack, client: &mut Client, player: &str, now: i64) {
    client.send_json(json!({"route": "heartbeat"})).await;
    let id = shared::domain::PlayerId::parse(player).unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let record = stack.stack().players().get(&id).await.unwrap().unwrap();
        if record.last_seen == now {
            // The mapping template's sum is the functions' one (`Config::heartbeat_deadline`).
            assert_eq!(
                record.sweep_at,
                Some(stack.stack().dependencies().config.heartbeat_deadline(now))
            );
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the heartbeat at {now} was not recorded: {record:?}"
        );
        tokio::task::yield_now().await;
    }
}

/// The sweeper's period, on the stack's clock.
const SWEEP_EVERY_MS: i64 = SWEEP_INTERVAL.as_millis() as i64;

async fn only_heartbeats_for_three_timeouts(store: Store) {
    let clock = shared::ports::ManualClock::at(shared::ports::SystemClock.now_millis());
    let Some(stack) = clocked_stack(&clock, store).await else {
        return;
    };
    let mut dave = stack.online("dave").await.0;
    let sweeper = local::Routes::wire_presence_timeout(stack.stack().dependencies());
    let started = clock.now_millis();

    // Every sweep period: a heartbeat every other one (twice per timeout, no requestId,
    // nothing else on the socket), a sweep at each, for three timeouts of the clock.
    let mut step = 0;
    while clock.now_millis() < started + 3 * HEARTBEAT_TIMEOUT.as_millis() as i64 {
        clock.advance(SWEEP_EVERY_MS);
        step += 1;
        let now = clock.now_millis();
        if step % 2 == 1 {
            heartbeat_recorded(&stack, &mut dave, "dave", now).await;
        }
        let summary = sweeper.sweep_once(now).await;
        assert_eq!(
            summary.swept,
            0,
            "{store:?}, sweep at +{} ms: {summary:?}",
            now - started
        );
        assert_eq!(
            stack.record("dave").await.status,
            PresenceStatus::Online,
            "{store:?}"
        );
    }
    // Nothing was sent to him: no acks (no requestId), no disconnect.
    dave.expect_no_frame(Duration::from_millis(100)).await;
    stack.shutdown().await;
}

#[tokio::test]
async fn given_dave_only_heartbeats_without_request_ids_for_three_timeouts_then_every_sweep_leaves_him_online()
 {
    only_heartbeats_for_three_timeouts(Store::Memory).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn given_dynamodb_local_when_dave_only_heartbeats_for_three_timeouts_then_every_sweep_leaves_him_online()
 {
    only_heartbeats_for_three_timeouts(Store::DynamoDbLocal).await;
}

async fn goes_silent(store: Store, liveness: PresenceLiveness) {
    let clock = shared::ports::ManualClock::at(shared::ports::SystemClock.now_millis());
    let Some(stack) = clocked_stack_with(&clock, store, liveness, false).await else {
        return;
    };
    let mut erin = stack.online("erin").await.0;
    let sweeper = local::Routes::wire_presence_timeout(stack.stack().dependencies());
    clock.advance(SWEEP_EVERY_MS / 2);
    let last = clock.now_millis();
    heartbeat_recorded(&stack, &mut erin, "erin", last).await;

    // Silent from here: a sweep every period; every one up to her deadline leaves her
    // online, the first one past it takes her offline.
    let deadline = last + HEARTBEAT_TIMEOUT.as_millis() as i64;
    let offline_at = loop {
        clock.advance(SWEEP_EVERY_MS);
        let now = clock.now_millis();
        let summary = sweeper.sweep_once(now).await;
        if now <= deadline {
            assert_eq!(
                summary.swept, 0,
                "{store:?}, sweep at {now} (deadline {deadline})"
            );
            continue;
        }
        assert_eq!(
            summary.swept, 1,
            "{store:?}, first sweep past the deadline: {summary:?}"
        );
        break now;
    };

    // Within the timeout plus one sweep of her last heartbeat, and told why.
    assert!(
        offline_at <= deadline + SWEEP_EVERY_MS,
        "{store:?}: offline at +{} ms",
        offline_at - last
    );
    let record = stack.record("erin").await;
    assert_eq!(record.status, PresenceStatus::Offline, "{store:?}");
    assert_eq!(
        erin.next_frame().await,
        json!({"type": "disconnected", "reason": "heartbeat_timeout"})
    );
    stack.shutdown().await;
}

#[tokio::test]
async fn given_heartbeat_mode_when_erin_goes_silent_then_the_first_sweep_after_her_timeout_takes_her_offline()
 {
    goes_silent(Store::Memory, PresenceLiveness::Heartbeat).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn given_dynamodb_local_in_heartbeat_mode_when_erin_goes_silent_then_the_first_sweep_after_her_timeout_takes_her_offline()
 {
    goes_silent(Store::DynamoDbLocal, PresenceLiveness::Heartbeat).await;
}

#[tokio::test]
async fn given_connection_activity_mode_when_erin_goes_silent_then_the_first_sweep_after_her_timeout_takes_her_offline()
 {
    goes_silent(Store::Memory, PresenceLiveness::ConnectionActivity).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn given_dynamodb_local_in_connection_activity_mode_when_erin_goes_silent_then_the_first_sweep_after_her_timeout_takes_her_offline()
 {
    goes_silent(Store::DynamoDbLocal, PresenceLiveness::ConnectionActivity).await;
}

/// Sends a `ping` (no reply ever comes, nothing is written) and waits until API
/// Gateway's view of the socket (the registry behind `@connections`, GetConnection's
/// `lastActiveAt`) has it, as of the clock's now.
async fn ping_recorded(stack: &TestStack, client: &mut Client, player: &str, now: i64) {
    client.send_json(json!({"route": "ping"})).await;
    let id = shared::domain::PlayerId::parse(player).unwrap();
    let record = stack.stack().players().get(&id).await.unwrap().unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let meta = stack
            .stack()
            .connections()
            .get(record.connection_id.as_str())
            .unwrap();
        if meta.last_active_at() == now {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the ping at {now} did not reach the connection"
        );
        tokio::task::yield_now().await;
    }
}

async fn only_pings_for_three_timeouts(store: Store) {
    let clock = shared::ports::ManualClock::at(shared::ports::SystemClock.now_millis());
    let Some(stack) =
        clocked_stack_with(&clock, store, PresenceLiveness::ConnectionActivity, false).await
    else {
        return;
    };
    let mut fay = stack.online("fay").await.0;
    let sweeper = local::Routes::wire_presence_timeout(stack.stack().dependencies());
    let started = clock.now_millis();
    let deadline = stack.record("fay").await.sweep_at;

    // Given fay sends nothing but a ping every other sweep period (twice per timeout)
    // for three timeouts, with a sweep at each period: no heartbeat ever moves the
    // deadline `$connect` set.
    let mut step = 0;
    let mut kept_by_pings = 0;
    while clock.now_millis() < started + 3 * HEARTBEAT_TIMEOUT.as_millis() as i64 {
        clock.advance(SWEEP_EVERY_MS);
        step += 1;
        let now = clock.now_millis();
        if step % 2 == 1 {
            ping_recorded(&stack, &mut fay, "fay", now).await;
        }
        let summary = sweeper.sweep_once(now).await;
        kept_by_pings += summary.still_active;
        assert_eq!(
            summary.swept,
            0,
            "{store:?}, sweep at +{} ms: {summary:?}",
            now - started
        );
        let record = stack.record("fay").await;
        assert_eq!(record.status, PresenceStatus::Online, "{store:?}");
        // Then nothing was written for her: the deadline is still `$connect`'s.
        assert_eq!(record.sweep_at, deadline, "{store:?}");
    }
    assert!(
        kept_by_pings > 0,
        "{store:?}: the sweeper never had to ask about her socket"
    );
    // And nothing was sent to her: a ping is never answered.
    fay.expect_no_frame(Duration::from_millis(100)).await;

    // When she goes silent, the first sweep past the timeout after her last ping takes
    // her offline (within the timeout plus one sweep), and she is told why.
    let last = clock.now_millis();
    ping_recorded(&stack, &mut fay, "fay", last).await;
    let offline_at = loop {
        clock.advance(SWEEP_EVERY_MS);
        let now = clock.now_millis();
        if sweeper.sweep_once(now).await.swept == 1 {
            break now;
        }
        assert!(
            now <= last + HEARTBEAT_TIMEOUT.as_millis() as i64,
            "{store:?}"
        );
    };
    assert!(offline_at <= last + HEARTBEAT_TIMEOUT.as_millis() as i64 + SWEEP_EVERY_MS);
    assert_eq!(
        fay.next_frame().await,
        json!({"type": "disconnected", "reason": "heartbeat_timeout"})
    );
    stack.shutdown().await;
}

#[tokio::test]
async fn given_connection_activity_mode_when_fay_only_pings_for_three_timeouts_then_every_sweep_leaves_her_online_until_she_goes_silent()
 {
    only_pings_for_three_timeouts(Store::Memory).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn given_dynamodb_local_in_connection_activity_mode_when_fay_only_pings_for_three_timeouts_then_every_sweep_leaves_her_online_until_she_goes_silent()
 {
    only_pings_for_three_timeouts(Store::DynamoDbLocal).await;
}

/// Gus sends nothing after `resume`; bob messages him every sweep period, and every
/// message reaches his socket. The stack's API Gateway counts frames it sends as activity
/// (the reading AWS does not rule out). Returns the sweep (ms after his connect) that took
/// him offline, if one did within four timeouts.
async fn only_receives_pushes(store: Store, liveness: PresenceLiveness) -> Option<i64> {
    let clock = shared::ports::ManualClock::at(shared::ports::SystemClock.now_millis());
    let stack = clocked_stack_with(&clock, store, liveness, true).await?;
    let (mut gus, _) = stack.online("gus").await;
    let (mut bob, _) = stack.online("bob").await;
    let sweeper = local::Routes::wire_presence_timeout(stack.stack().dependencies());
    let started = clock.now_millis();
    let mut offline_at = None;
    while clock.now_millis() < started + 4 * HEARTBEAT_TIMEOUT.as_millis() as i64 {
        clock.advance(SWEEP_EVERY_MS);
        let now = clock.now_millis();
        // Bob's own heartbeat keeps him online whatever the mode; his message reaches gus.
        heartbeat_recorded(&stack, &mut bob, "bob", now).await;
        let sent = bob
            .request(
                "sendMessage",
                json!({"playerIds": ["gus"], "message": {"n": now}}),
            )
            .await;
        if sent["type"] != "ack" {
            break; // Gus is gone: nothing more reaches him.
        }
        let pushed = gus.next_frame().await;
        assert_eq!(
            pushed["type"], "message",
            "{store:?} {liveness:?}: {pushed}"
        );
        if sweeper.sweep_once(now).await.swept == 1 {
            offline_at = Some(now - started);
            assert_eq!(
                gus.next_frame().await,
                json!({"type": "disconnected", "reason": "heartbeat_timeout"})
            );
            break;
        }
    }
    stack.shutdown().await;
    offline_at
}

#[tokio::test]
async fn given_heartbeat_mode_when_gus_only_receives_pushes_then_he_goes_offline_within_the_timeout_plus_one_sweep()
 {
    let offline_at = only_receives_pushes(Store::Memory, PresenceLiveness::Heartbeat).await;
    assert!(
        offline_at.is_some_and(|at| at <= HEARTBEAT_TIMEOUT.as_millis() as i64 + SWEEP_EVERY_MS),
        "offline at {offline_at:?} ms"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn given_dynamodb_local_in_heartbeat_mode_when_gus_only_receives_pushes_then_he_goes_offline_within_the_timeout_plus_one_sweep()
 {
    if tests::dynamodb::endpoint().is_none() {
        return;
    }
    let offline_at = only_receives_pushes(Store::DynamoDbLocal, PresenceLiveness::Heartbeat).await;
    assert!(
        offline_at.is_some_and(|at| at <= HEARTBEAT_TIMEOUT.as_millis() as i64 + SWEEP_EVERY_MS),
        "offline at {offline_at:?} ms"
    );
}

#[tokio::test]
async fn given_connection_activity_mode_and_an_api_gateway_counting_sent_frames_when_gus_only_receives_pushes_then_he_looks_online()
 {
    // Why heartbeat is the default: if API Gateway counted its own frames as activity,
    // a socket nobody reads that keeps receiving pushes would never be swept here.
    let offline_at =
        only_receives_pushes(Store::Memory, PresenceLiveness::ConnectionActivity).await;
    assert_eq!(offline_at, None);
}
