//! The Rust client's credentials in headers, its resume from a saved cursor and its typed
//! shortcuts (presence, cancelPlacement), against the local stack: what the smoke tool
//! (tools/src/bin/smoke) relies on, and its matchmaking shortcuts.

use std::time::Duration;

use gamelift_sockets_client::protocol::domain::{PlacementStatus, PlayerId, PresenceStatus};
use gamelift_sockets_client::protocol::matchmaking::TicketStatus;
use gamelift_sockets_client::protocol::{ErrorCode, ServerFrame};
use gamelift_sockets_client::{Auth, Client, ClientError, Config, Event, Events};
use jsonwebtoken::{EncodingKey, Header, encode};
use local::AuthMode;
use serde_json::{Map, Value, json};
use tests::stack::TestStack;

const WAIT: Duration = Duration::from_secs(10);

async fn connect(stack: &TestStack, auth: Auth) -> (Client, Events, Map<String, Value>) {
    connect_from(stack, auth, None).await
}

/// Connects (after `cursor` if given); the `resume` ack is the last event queued by then.
async fn connect_from(
    stack: &TestStack,
    auth: Auth,
    cursor: Option<u64>,
) -> (Client, Events, Map<String, Value>) {
    let config = Config::new(stack.url(), auth);
    let (client, mut events) = match cursor {
        Some(cursor) => Client::connect_after(config, cursor).await,
        None => Client::connect(config).await,
    }
    .expect("connects");
    let mut kept = Vec::new();
    let ack = loop {
        match events.try_next().expect("the resume ack is queued") {
            Event::Resumed(ack) => break ack,
            other => kept.push(other),
        }
    };
    assert!(
        kept.iter().all(|e| !matches!(e, Event::Push { .. })),
        "no push before the ack here: {kept:?}"
    );
    (client, events, ack)
}

/// The next push `wanted` accepts, skipping others.
async fn push(events: &mut Events, wanted: impl Fn(&ServerFrame) -> bool) -> (u64, ServerFrame) {
    tokio::time::timeout(WAIT, async {
        loop {
            match events.next().await.expect("the client runs") {
                Event::Push { seq, frame } if wanted(&frame) => {
                    return (seq.expect("pushes carry seq"), frame);
                }
                _ => {}
            }
        }
    })
    .await
    .expect("pushed in time")
}

/// Every message pushed within `wait`, by its `n`.
async fn messages_within(events: &mut Events, wait: Duration) -> Vec<u64> {
    let mut seen = Vec::new();
    let _ = tokio::time::timeout(wait, async {
        while let Some(event) = events.next().await {
            if let Event::Push {
                frame: ServerFrame::Message { message, .. },
                ..
            } = event
            {
                seen.push(message["n"].as_u64().unwrap());
            }
        }
    })
    .await;
    seen
}

#[tokio::test]
async fn given_a_player_id_in_the_x_player_id_header_when_the_client_connects_then_it_is_that_player()
 {
    let stack = TestStack::start().await;
    let (client, _events, ack) = connect(&stack, Auth::player_id_header("hedy")).await;
    assert_eq!(ack["playerId"], "hedy");
    assert!(client.heartbeat().await.unwrap() > 0);
    client.close();
    stack.shutdown().await;
}

#[tokio::test]
async fn given_a_jwt_stack_when_the_client_sends_its_token_as_bearer_then_it_is_the_tokens_player()
{
    const SECRET: &str = "a-local-test-secret-of-32-bytes!";
    let stack = TestStack::start_with(|s| {
        s.auth.auth_mode = AuthMode::Jwt;
        s.auth.jwt_issuer = Some("https://id.example".into());
        s.auth.jwt_audience = Some("game".into());
        s.auth.jwt_hs256_secret = Some(SECRET.into());
    })
    .await;
    let asked = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
    let counter = asked.clone();
    let auth = Auth::bearer_token(move || {
        counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs();
        let claims = json!({"sub": "bea", "iss": "https://id.example", "aud": "game",
                            "iat": now, "exp": now + 600});
        let token = encode(
            &Header::default(),
            &claims,
            &EncodingKey::from_secret(SECRET.as_bytes()),
        );
        async move { token.map_err(|e| e.to_string()) }
    });
    let (client, _events, ack) = connect(&stack, auth).await;
    assert_eq!(ack["playerId"], "bea");
    assert_eq!(asked.load(std::sync::atomic::Ordering::SeqCst), 1);
    client.close();

    // Without the header the stack refuses: the token really travelled in it.
    let refused = Client::connect(Config::new(stack.url(), Auth::player_id("bea"))).await;
    assert!(
        matches!(
            refused,
            Err(ClientError::Closed(
                gamelift_sockets_client::StopReason::Unauthorized(401)
            ))
        ),
        "{:?}",
        refused.err()
    );
    stack.shutdown().await;
}

#[tokio::test]
async fn given_a_cursor_saved_by_an_earlier_run_when_the_client_connects_after_it_then_only_what_came_after_is_replayed()
 {
    let stack = TestStack::start().await;
    let (ann, _ann_events, _) = connect(&stack, Auth::player_id("ann")).await;
    let (ben, mut ben_events, _) = connect(&stack, Auth::player_id("ben")).await;
    ann.send_message(&["ben"], json!({"n": 1})).await.unwrap();
    let (first, _) = push(&mut ben_events, |f| {
        matches!(f, ServerFrame::Message { .. })
    })
    .await;
    ann.send_message(&["ben"], json!({"n": 2})).await.unwrap();
    push(&mut ben_events, |f| {
        matches!(f, ServerFrame::Message { .. })
    })
    .await;
    // The game saved `first` as handled, then quit before handling message 2.
    ben.close();
    ann.send_message(&["ben"], json!({"n": 3})).await.unwrap();

    let config = Config::new(stack.url(), Auth::player_id("ben"));
    let (ben, mut ben_events) = Client::connect_after(config, first).await.unwrap();
    assert_eq!(
        messages_within(&mut ben_events, Duration::from_millis(1500)).await,
        vec![2, 3],
        "message 1 was handled before the cursor; 2 and 3 once each"
    );
    ben.close();
    ann.close();
    stack.shutdown().await;
}

#[tokio::test]
async fn given_presence_shortcuts_when_a_watched_player_comes_online_then_it_is_pushed_and_bad_ids_are_refused_unsent()
 {
    let stack = TestStack::start().await;
    let (ann, mut ann_events, _) = connect(&stack, Auth::player_id("ann")).await;
    let ack = ann.subscribe_presence(&["cid"]).await.unwrap();
    assert_eq!(
        ack.presence,
        vec![(PlayerId::parse("cid").unwrap(), PresenceStatus::Offline)],
        "{ack:?}"
    );
    let (cid, _cid_events, _) = connect(&stack, Auth::player_id("cid")).await;
    let (_, frame) = push(
        &mut ann_events,
        |f| matches!(f, ServerFrame::Presence { player_id, .. } if player_id == "cid"),
    )
    .await;
    assert!(
        matches!(&frame, ServerFrame::Presence { status, .. } if status == "online"),
        "{frame:?}"
    );
    ann.unsubscribe_presence(&["cid"]).await.unwrap();

    let error = ann
        .subscribe_presence(&["not a player id"])
        .await
        .unwrap_err();
    assert_eq!(error.code(), "invalid", "{error}");
    cid.close();
    ann.close();
    stack.shutdown().await;
}

#[tokio::test]
async fn given_a_pending_placement_when_the_client_cancels_it_then_cancelled_is_pushed_and_a_second_cancel_is_a_typed_error()
 {
    // No game server process: the placement stays pending until cancelled.
    let stack = TestStack::start_with(|s| s.simulator.sim_fleet_servers = 0).await;
    let (dee, mut events, _) = connect(&stack, Auth::player_id("dee")).await;
    let ack = dee.request_placement(Default::default()).await.unwrap();
    let id = ack.placement_id.to_string();

    dee.cancel_placement(Some(&id)).await.unwrap();
    let (_, frame) = push(
        &mut events,
        |f| matches!(f, ServerFrame::Placement { placement_id, .. } if placement_id.as_str() == id),
    )
    .await;
    assert!(
        matches!(
            frame,
            ServerFrame::Placement {
                status: PlacementStatus::Cancelled,
                ..
            }
        ),
        "{frame:?}"
    );

    match dee.cancel_placement(None).await {
        Err(ClientError::Server { reply, .. }) => {
            assert!(
                matches!(reply.code(), ErrorCode::NotFound | ErrorCode::Conflict),
                "{reply:?}"
            );
        }
        other => panic!("expected a typed error, got {other:?}"),
    }
    let error = dee
        .cancel_placement(Some("no spaces allowed"))
        .await
        .unwrap_err();
    assert_eq!(error.code(), "invalid", "{error}");
    dee.close();
    stack.shutdown().await;
}

/// The ticket's next `matchmaking` push with `status`.
async fn ticket_status(events: &mut Events, ticket: &str, status: TicketStatus) -> ServerFrame {
    push(events, |f| {
        matches!(f, ServerFrame::Matchmaking { ticket_id, status: s, .. }
            if ticket_id.as_str() == ticket && *s == status)
    })
    .await
    .1
}

#[tokio::test]
async fn given_matchmaking_shortcuts_when_both_players_accept_then_both_complete_and_a_stopped_ticket_is_cancelled()
 {
    // The repository's 1v1 rule set, acceptance required.
    let rule_set = std::env::temp_dir().join(format!(
        "{}.json",
        tests::dynamodb::unique_table_name("client-duel")
    ));
    std::fs::write(&rule_set, include_str!("../../local/rule-sets/duel.json")).unwrap();
    let stack = TestStack::start_with(|s| {
        s.simulator.sim_server_startup_ms = 0;
        s.matchmaking.matchmaking_rule_set = Some(rule_set.to_string_lossy().into_owned());
        s.matchmaking.sim_acceptance_timeout_seconds = 30;
        s.matchmaking.sim_matchmaking_timeout_seconds = 120;
    })
    .await;
    let body = || {
        serde_json::from_value(json!({"attributes": {"skill": 1000}, "latencies": {"local": 20}}))
            .unwrap()
    };
    let mut tickets = Vec::new();
    for name in ["eve", "fay"] {
        let (client, events, _) = connect(&stack, Auth::player_id(name)).await;
        let ack = client.start_matchmaking(body()).await.unwrap();
        let ticket = ack.ticket_id.to_string();
        tickets.push((client, events, ticket));
    }
    for (client, events, ticket) in &mut tickets {
        ticket_status(events, ticket, TicketStatus::RequiresAcceptance).await;
        client.accept_match(ticket, true).await.unwrap();
    }
    for (client, events, ticket) in &mut tickets {
        let done = ticket_status(events, ticket, TicketStatus::Completed).await;
        assert!(
            serde_json::to_value(&done).unwrap()["gameSession"]["port"].is_u64(),
            "a seat: {done:?}"
        );
        client.close();
    }

    let (gus, mut events, _) = connect(&stack, Auth::player_id("gus")).await;
    let ticket = gus
        .start_matchmaking(body())
        .await
        .unwrap()
        .ticket_id
        .to_string();
    gus.stop_matchmaking(None).await.unwrap();
    ticket_status(&mut events, &ticket, TicketStatus::Cancelled).await;
    let again = gus.stop_matchmaking(Some(&ticket)).await.unwrap_err();
    assert_eq!(again.code(), "not_found", "{again}");
    let bad = gus.accept_match("not a ticket!", true).await.unwrap_err();
    assert_eq!(bad.code(), "invalid", "{bad}");
    gus.close();
    stack.shutdown().await;
}
