//! The SDK against the local stack's real server SDK 5 endpoint (`local::gamelift_sdk`),
//! with players placed on its process over the client WebSocket: every call and every
//! refusal, ws:// and wss://, a dropped socket that reconnects with the same pID, missed
//! heartbeats, the stack's TerminateProcess and RefreshConnection, and a friend joining
//! a player's game (`joinFriendGame`) until the game server closes it.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests: a panic is the test failing, with its message.

mod relay;

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use gamelift_server_sdk::{
    Backoff, DescribePlayerSessions, ErrorKind, GameLiftError, GameLiftServer, GameSession,
    GetFleetRoleCredentials, Player, PlayerSessionCreationPolicy, PlayerSessionStatus,
    ProcessParameters, ServerParameters, StartMatchBackfill, StopMatchBackfill, Timing,
};
use local::Settings;
use local::gamelift::{GameSessionStatus, PlacementStatus, ServerState, Snapshot};
use relay::Relay;
use serde_json::{Value, json};
use tests::stack::{Client, TestStack};
use tokio::sync::mpsc;

/// How long anything the stack or the SDK does may take on a loaded machine.
const WAIT: Duration = Duration::from_secs(10);
/// The port the game server tells the stack its players connect to.
const GAME_PORT: u16 = 7777;

/// Real processes only, placed on 100 ms after a request; the stack expects a heartbeat
/// every 2 s (the SDK beats every 200 ms here) and gives every window room.
fn real_only(settings: &mut Settings) {
    settings.simulator.sim_fleet_servers = 0;
    settings.simulator.sim_server_startup_ms = 0;
    settings.simulator.sim_placement_delay_ms = 100;
    settings.game_servers.sim_game_session_activation_seconds = 30;
    settings.game_servers.sim_heartbeat_interval_ms = 2_000;
    settings.game_servers.sim_termination_grace_seconds = 30;
    settings.game_servers.sim_reconnect_window_seconds = 30;
}

/// Short heartbeats without jitter, quick reconnects, a short RefreshConnection grace.
fn fast_timing() -> Timing {
    Timing {
        heartbeat_interval: Duration::from_millis(200),
        heartbeat_max_jitter: Duration::ZERO,
        reconnect: Backoff {
            first: Duration::from_millis(100),
            max: Duration::from_secs(1),
            retries: 5,
        },
        refresh_grace: Duration::from_millis(200),
        ..Timing::default()
    }
}

/// What the SDK's callbacks saw.
#[derive(Debug)]
enum Event {
    Started(GameSession),
    Terminate,
}

/// A game server on the SDK, its callbacks reporting to `events`.
struct GameServer {
    sdk: GameLiftServer,
    pid: String,
    events: mpsc::UnboundedReceiver<Event>,
}

/// How a game server reaches the stack.
struct Route<'a> {
    /// Over wss:// with the stack's certificate trusted.
    tls: bool,
    /// Another WebSocket URL (the relay), instead of the stack's.
    url: Option<&'a str>,
    timing: Timing,
    /// What `on_health_check` answers.
    healthy: bool,
}

impl Default for Route<'_> {
    fn default() -> Self {
        Self {
            tls: false,
            url: None,
            timing: fast_timing(),
            healthy: true,
        }
    }
}

impl GameServer {
    /// InitSDK with the variables the stack's banner prints, then ProcessReady.
    async fn ready(stack: &TestStack, route: Route<'_>) -> Self {
        let pid = local::gamelift_sdk::GameServerEndpoint::new_process_id();
        let sdk = init(stack, &pid, &route).await.unwrap();
        let (sender, events) = mpsc::unbounded_channel();
        let (started, terminate) = (sender.clone(), sender);
        let healthy = route.healthy;
        sdk.process_ready(
            ProcessParameters::new(GAME_PORT)
                .on_start_game_session(move |session| {
                    let _ = started.send(Event::Started(session));
                    async {}
                })
                .on_process_terminate(move || {
                    let _ = terminate.send(Event::Terminate);
                    async {}
                })
                .on_health_check(move || async move { healthy }),
        )
        .await
        .unwrap();
        Self { sdk, pid, events }
    }

    /// [`GameServer::ready`] through a relay in front of the stack's endpoint (`wss://` with
    /// `tls`, else `ws://`), which the test can cut or take down.
    async fn ready_behind_relay(stack: &TestStack, tls: bool) -> (Relay, Self) {
        let endpoint = stack.stack().game_server_endpoint();
        let relay = Relay::start(if tls {
            &endpoint.wss_url
        } else {
            &endpoint.ws_url
        })
        .await;
        let route = Route {
            tls,
            url: Some(&relay.url),
            ..Route::default()
        };
        let server = Self::ready(stack, route).await;
        (relay, server)
    }

    async fn next_event(&mut self) -> Event {
        tokio::time::timeout(WAIT, self.events.recv())
            .await
            .expect("a callback within the wait")
            .expect("the SDK keeps its callbacks")
    }

    async fn started(&mut self) -> GameSession {
        match self.next_event().await {
            Event::Started(session) => session,
            other => panic!("expected on_start_game_session, got {other:?}"),
        }
    }
}

/// InitSDK for process `pid` as `route` says.
async fn init(
    stack: &TestStack,
    pid: &str,
    route: &Route<'_>,
) -> Result<GameLiftServer, GameLiftError> {
    let endpoint = stack.stack().game_server_endpoint();
    let mut vars = endpoint.env(pid, route.tls);
    if let Some(url) = route.url {
        vars.retain(|(name, _)| *name != "GAMELIFT_SDK_WEBSOCKET_URL");
        vars.push(("GAMELIFT_SDK_WEBSOCKET_URL", url.to_owned()));
    }
    let parameters = ServerParameters {
        ca_certificate_file: route.tls.then(|| endpoint.certificate_path.clone()),
        timing: route.timing.clone(),
        ..ServerParameters::default()
    };
    GameLiftServer::init_sdk_with_env(parameters, move |name| {
        vars.iter()
            .find(|(var, _)| *var == name)
            .map(|(_, value)| value.clone())
    })
    .await
}

/// A player placed on `server`'s process.
struct Placed {
    player: Client,
    session: GameSession,
    /// The player's seat (RESERVED).
    player_session_id: String,
}

/// `player` asks for a game; `server` gets CreateGameSession and the placement stays
/// PENDING (nothing pushed to the player) until it calls ActivateGameSession.
async fn place(stack: &TestStack, server: &mut GameServer, player: &str) -> Placed {
    let (mut client, _) = stack.online(player).await;
    let placement_id = request_placement(&mut client).await;
    let session = server.started().await;
    assert_eq!(
        server.sdk.get_game_session_id(),
        Some(session.game_session_id.clone())
    );
    assert_eq!(session.port, i32::from(GAME_PORT), "{session:?}");
    assert_eq!(
        session.fleet_id,
        stack.stack().game_server_endpoint().fleet_id
    );

    let snapshot = snapshot(stack);
    let placement = snapshot
        .placements
        .iter()
        .find(|p| p.placement_id.as_str() == placement_id)
        .unwrap();
    assert_eq!(placement.status, PlacementStatus::Pending, "{placement:?}");
    let game = snapshot.game_session(&session.game_session_id).unwrap();
    assert_eq!(game.status, GameSessionStatus::Activating, "{game:?}");
    assert_eq!(game.process_id, server.pid);
    client.expect_no_frame(Duration::from_millis(300)).await;

    server.sdk.activate_game_session().await.unwrap();
    let frame = client.next_frame_within(WAIT).await;
    assert_eq!(frame["type"], "placement", "{frame}");
    assert_eq!(frame["placementId"], placement_id.as_str(), "{frame}");
    assert_eq!(frame["status"], "FULFILLED", "{frame}");
    let seat = &frame["gameSession"];
    assert_eq!(
        seat["gameSessionArn"],
        session.game_session_id.as_str(),
        "{frame}"
    );
    assert_eq!(seat["port"], GAME_PORT, "{frame}");
    let game = snapshot_of(stack, |s| s.game_session(&session.game_session_id).cloned()).unwrap();
    assert_eq!(game.status, GameSessionStatus::Active, "{game:?}");
    Placed {
        player: client,
        session,
        player_session_id: seat["playerSessionId"].as_str().unwrap().to_owned(),
    }
}

/// [`place`], then the game server accepts the player's seat (ACTIVE).
async fn place_accepted(stack: &TestStack, server: &mut GameServer, player: &str) -> Placed {
    let placed = place(stack, server, player).await;
    server
        .sdk
        .accept_player_session(&placed.player_session_id)
        .await
        .unwrap();
    placed
}

/// Sends `sessionPlacementRequest`; the placement id of its PENDING ack.
async fn request_placement(client: &mut Client) -> String {
    let ack = reply(client, "sessionPlacementRequest", json!({})).await;
    assert_eq!(ack["type"], "ack", "{ack}");
    assert_eq!(ack["status"], "PENDING", "{ack}");
    ack["placementId"].as_str().unwrap().to_owned()
}

/// Sends `route` and returns its ack or error (frames pushed in between are skipped).
async fn reply(client: &mut Client, route: &str, body: Value) -> Value {
    client
        .send_json(json!({ "route": route, "body": body }))
        .await;
    loop {
        let frame = client.next_frame_within(WAIT).await;
        if frame["route"] == route || frame["type"] == "error" {
            return frame;
        }
    }
}

/// `rejoinSession`'s new seat (a player session id), asserted to be in `session`.
async fn rejoin(client: &mut Client, session: &GameSession) -> String {
    let ack = reply(client, "rejoinSession", json!({})).await;
    assert_eq!(ack["type"], "ack", "{ack}");
    let seat = &ack["gameSession"];
    assert_eq!(
        seat["gameSessionArn"],
        session.game_session_id.as_str(),
        "{ack}"
    );
    seat["playerSessionId"].as_str().unwrap().to_owned()
}

/// `a` invites `b` and `b` invites back: friends, as players make friends.
async fn befriend((a, a_id): (&mut Client, &str), (b, b_id): (&mut Client, &str)) {
    let invited = reply(a, "addFriend", json!({ "playerId": b_id })).await;
    assert_eq!(invited["state"], "invited", "{invited}");
    let friends = reply(b, "addFriend", json!({ "playerId": a_id })).await;
    assert_eq!(friends["state"], "friends", "{friends}");
}

fn snapshot(stack: &TestStack) -> Snapshot {
    stack.stack().simulator().snapshot()
}

fn snapshot_of<T>(stack: &TestStack, pick: impl Fn(&Snapshot) -> Option<T>) -> Option<T> {
    pick(&snapshot(stack))
}

/// The stack's status of a player session.
fn seat_status(stack: &TestStack, player_session_id: &str) -> local::gamelift::PlayerSessionStatus {
    snapshot(stack)
        .player_session(player_session_id)
        .unwrap_or_else(|| panic!("{player_session_id} unknown to the stack"))
        .status
}

/// Waits until `check` holds for the stack's snapshot.
async fn eventually(stack: &TestStack, what: &str, check: impl Fn(&Snapshot) -> bool) {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let snapshot = snapshot(stack);
        if check(&snapshot) {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{what}: not so within {WAIT:?}: {snapshot:#?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A refusal by the service: its kind, and its message containing `says`.
fn assert_refused<T: std::fmt::Debug>(
    result: Result<T, GameLiftError>,
    kind: ErrorKind,
    says: &str,
) {
    match result {
        Err(GameLiftError::Service {
            kind: got, message, ..
        }) => {
            assert_eq!(got, kind, "{message}");
            assert!(message.contains(says), "{says:?} not in {message:?}");
        }
        other => panic!("expected a {kind:?} refusal saying {says:?}, got {other:?}"),
    }
}

fn by_game(session: &GameSession) -> DescribePlayerSessions {
    DescribePlayerSessions {
        game_session_id: Some(session.game_session_id.clone()),
        ..DescribePlayerSessions::default()
    }
}

fn ids(result: &gamelift_server_sdk::DescribePlayerSessionsResult) -> Vec<String> {
    let mut ids: Vec<String> = result
        .player_sessions
        .iter()
        .map(|s| s.player_session_id.clone())
        .collect();
    ids.sort();
    ids
}

#[tokio::test]
async fn given_a_player_placed_on_the_sdk_process_when_it_accepts_and_removes_then_the_stack_applies_each_and_refuses_unknown_or_active_seats()
 {
    let stack = TestStack::start_with(real_only).await;
    let mut server = GameServer::ready(&stack, Route::default()).await;
    let process = snapshot_of(&stack, |s| s.process(&server.pid).cloned()).unwrap();
    assert_eq!(process.sdk_language, "Rust");
    assert_eq!(process.port, GAME_PORT);
    assert_eq!(
        process.compute_id,
        stack.stack().game_server_endpoint().host_id
    );
    let Placed {
        mut player,
        session,
        player_session_id,
    } = place(&stack, &mut server, "alice").await;
    assert_eq!(
        seat_status(&stack, &player_session_id),
        local::gamelift::PlayerSessionStatus::Reserved
    );

    server
        .sdk
        .accept_player_session(&player_session_id)
        .await
        .unwrap();
    assert_eq!(
        seat_status(&stack, &player_session_id),
        local::gamelift::PlayerSessionStatus::Active
    );
    // Refusals: an ACTIVE seat, an id the stack never gave.
    assert_refused(
        server.sdk.accept_player_session(&player_session_id).await,
        ErrorKind::BadRequest,
        "not RESERVED",
    );
    let unknown = server.sdk.accept_player_session("psess-unknown").await;
    assert!(
        matches!(&unknown, Err(GameLiftError::Service { message, .. }) if message.contains("psess-unknown")),
        "{unknown:?}"
    );
    // Refused by the SDK itself: nothing sent.
    assert!(matches!(
        server.sdk.accept_player_session("not a valid id!").await,
        Err(GameLiftError::Validation(_))
    ));

    // The player leaves: COMPLETED, the slot reopens, and a rejoin seats them again.
    server
        .sdk
        .remove_player_session(&player_session_id)
        .await
        .unwrap();
    assert_eq!(
        seat_status(&stack, &player_session_id),
        local::gamelift::PlayerSessionStatus::Completed
    );
    assert!(
        server
            .sdk
            .accept_player_session(&player_session_id)
            .await
            .is_err()
    );
    let again = rejoin(&mut player, &session).await;
    assert_ne!(again, player_session_id);
    server.sdk.accept_player_session(&again).await.unwrap();
    assert_eq!(
        seat_status(&stack, &again),
        local::gamelift::PlayerSessionStatus::Active
    );
    stack.shutdown().await;
}

#[tokio::test]
async fn given_a_game_with_seats_when_the_sdk_sets_the_policy_and_describes_then_rejoins_follow_the_policy_and_every_filter_and_page_is_right()
 {
    let stack = TestStack::start_with(real_only).await;
    let mut server = GameServer::ready(&stack, Route::default()).await;
    let Placed {
        mut player,
        session,
        player_session_id: first,
    } = place(&stack, &mut server, "alice").await;
    server.sdk.accept_player_session(&first).await.unwrap();

    server
        .sdk
        .update_player_session_creation_policy(PlayerSessionCreationPolicy::DenyAll)
        .await
        .unwrap();
    let refused = reply(&mut player, "rejoinSession", json!({})).await;
    assert_eq!(refused["type"], "error", "{refused}");
    assert_eq!(refused["code"], "session_ended", "{refused}");
    assert!(
        refused.to_string().contains("DENY_ALL"),
        "the reason is named: {refused}"
    );
    server
        .sdk
        .update_player_session_creation_policy(PlayerSessionCreationPolicy::AcceptAll)
        .await
        .unwrap();
    let second = rejoin(&mut player, &session).await;

    // By game session: what the stack holds for that game.
    let all = server
        .sdk
        .describe_player_sessions(by_game(&session))
        .await
        .unwrap();
    let mut expected: Vec<String> = snapshot(&stack)
        .player_sessions_of(&session.game_session_id)
        .iter()
        .map(|s| s.player_session_id.clone())
        .collect();
    expected.sort();
    assert_eq!(ids(&all), expected);
    assert!(all.player_sessions.len() >= 2, "{all:?}");
    assert_eq!(all.next_token, None);

    // By player session id: that one, with the game's address.
    let one = server
        .sdk
        .describe_player_sessions(DescribePlayerSessions {
            player_session_id: Some(first.clone()),
            ..DescribePlayerSessions::default()
        })
        .await
        .unwrap();
    assert_eq!(one.player_sessions.len(), 1, "{one:?}");
    let seat = &one.player_sessions[0];
    assert_eq!(seat.player_id, "alice");
    assert_eq!(seat.game_session_id, session.game_session_id);
    assert_eq!(seat.port, i32::from(GAME_PORT));
    assert_eq!(seat.status, Some(PlayerSessionStatus::Active));

    // By player id, and by status.
    let alices = server
        .sdk
        .describe_player_sessions(DescribePlayerSessions {
            player_id: Some("alice".to_owned()),
            ..DescribePlayerSessions::default()
        })
        .await
        .unwrap();
    assert!(
        ids(&alices).contains(&first) && ids(&alices).contains(&second),
        "{alices:?}"
    );
    assert!(
        alices
            .player_sessions
            .iter()
            .all(|s| s.player_id == "alice")
    );
    let active = server
        .sdk
        .describe_player_sessions(DescribePlayerSessions {
            player_session_status_filter: Some(PlayerSessionStatus::Active),
            ..by_game(&session)
        })
        .await
        .unwrap();
    assert_eq!(ids(&active), vec![first.clone()]);
    let reserved = server
        .sdk
        .describe_player_sessions(DescribePlayerSessions {
            player_session_status_filter: Some(PlayerSessionStatus::Reserved),
            ..by_game(&session)
        })
        .await
        .unwrap();
    assert!(ids(&reserved).contains(&second), "{reserved:?}");
    assert!(!ids(&reserved).contains(&first), "{reserved:?}");

    // One a page: every seat once, the last page without a NextToken.
    let mut paged = Vec::new();
    let mut next_token = None;
    for _ in 0..=expected.len() {
        let page = server
            .sdk
            .describe_player_sessions(DescribePlayerSessions {
                limit: Some(1),
                next_token: next_token.clone(),
                ..by_game(&session)
            })
            .await
            .unwrap();
        assert_eq!(page.player_sessions.len(), 1, "{page:?}");
        paged.extend(ids(&page));
        next_token = page.next_token;
        if next_token.is_none() {
            break;
        }
    }
    paged.sort();
    assert_eq!(paged, expected);

    // None or two of the ids, or a limit out of range: the SDK refuses, nothing sent.
    for request in [
        DescribePlayerSessions::default(),
        DescribePlayerSessions {
            player_id: Some("alice".to_owned()),
            ..by_game(&session)
        },
        DescribePlayerSessions {
            limit: Some(0),
            ..by_game(&session)
        },
    ] {
        let result = server.sdk.describe_player_sessions(request.clone()).await;
        assert!(
            matches!(result, Err(GameLiftError::Validation(_))),
            "{request:?}: {result:?}"
        );
    }
    // A NextToken the stack never gave: the stack refuses.
    assert_refused(
        server
            .sdk
            .describe_player_sessions(DescribePlayerSessions {
                next_token: Some("not-a-token".to_owned()),
                ..by_game(&session)
            })
            .await,
        ErrorKind::BadRequest,
        "NextToken",
    );
    stack.shutdown().await;
}

#[tokio::test]
async fn given_a_running_game_when_the_sdk_asks_for_certificate_role_and_backfill_then_the_stack_answers_or_refuses_clearly_and_process_ending_ends_the_game()
 {
    let stack = TestStack::start_with(|settings| {
        real_only(settings);
        // FlexMatch on, so that backfill has a configuration to go through.
        settings.matchmaking.matchmaking_rule_set = Some(
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../local/rule-sets/duel.json"
            )
            .to_owned(),
        );
    })
    .await;
    let endpoint = stack.stack().game_server_endpoint().clone();
    let mut server = GameServer::ready(&stack, Route::default()).await;
    let Placed {
        mut player,
        session,
        player_session_id,
    } = place_accepted(&stack, &mut server, "alice").await;

    let certificate = server.sdk.get_compute_certificate().await.unwrap();
    assert_eq!(
        certificate.certificate_path,
        endpoint.certificate_path.display().to_string()
    );
    assert_eq!(certificate.compute_name, endpoint.host_id);

    let role = server
        .sdk
        .get_fleet_role_credentials(GetFleetRoleCredentials {
            role_arn: "arn:aws:iam::123456789012:role/game-server".to_owned(),
            role_session_name: None,
        })
        .await;
    assert_refused(role, ErrorKind::BadRequest, "no instance role");

    // The stack's one matchmaking configuration, by ARN.
    let configuration = format!(
        "arn:aws:gamelift:{}:{}:matchmakingconfiguration/default",
        local::gamelift::DEFAULT_REGION,
        local::gamelift::DEFAULT_ACCOUNT_ID
    );
    let ticket_id = server
        .sdk
        .start_match_backfill(StartMatchBackfill {
            game_session_arn: session.game_session_id.clone(),
            matchmaking_configuration_arn: configuration.clone(),
            ticket_id: String::new(),
            players: vec![Player {
                player_id: "alice".to_owned(),
                team: "red".to_owned(),
                ..Player::default()
            }],
        })
        .await
        .unwrap()
        .ticket_id;
    assert!(!ticket_id.is_empty());
    server
        .sdk
        .stop_match_backfill(StopMatchBackfill {
            game_session_arn: session.game_session_id.clone(),
            matchmaking_configuration_arn: configuration.clone(),
            ticket_id,
        })
        .await
        .unwrap();
    let unknown = server
        .sdk
        .stop_match_backfill(StopMatchBackfill {
            game_session_arn: session.game_session_id.clone(),
            matchmaking_configuration_arn: configuration,
            ticket_id: "ticket-1".to_owned(),
        })
        .await;
    assert_refused(unknown, ErrorKind::NotFound, "no live backfill ticket");

    // ProcessEnding: the process is taken out, its game ends, its seats complete.
    server.sdk.process_ending().await.unwrap();
    let snapshot = snapshot(&stack);
    let process = snapshot.process(&server.pid).unwrap();
    assert_eq!(process.state, ServerState::Terminated, "{process:?}");
    assert!(
        process
            .ended
            .as_deref()
            .unwrap_or_default()
            .contains("ProcessEnding"),
        "{process:?}"
    );
    let game = snapshot.game_session(&session.game_session_id).unwrap();
    assert_eq!(game.status, GameSessionStatus::Terminated, "{game:?}");
    assert_eq!(
        snapshot.player_session(&player_session_id).unwrap().status,
        local::gamelift::PlayerSessionStatus::Completed
    );
    let ended = reply(&mut player, "rejoinSession", json!({})).await;
    assert_eq!(ended["type"], "error", "{ended}");
    assert_eq!(ended["code"], "session_ended", "{ended}");
    // The SDK is no longer ready: nothing is sent.
    assert_eq!(
        server.sdk.get_compute_certificate().await,
        Err(GameLiftError::ProcessNotReady)
    );
    server.sdk.destroy().await.unwrap();
    stack.shutdown().await;
}

#[tokio::test]
async fn given_wss_with_the_stacks_certificate_when_a_player_is_placed_then_the_whole_game_runs_over_tls_and_without_the_certificate_init_fails()
 {
    let stack = TestStack::start_with(real_only).await;
    let tls = || Route {
        tls: true,
        ..Route::default()
    };
    let mut server = GameServer::ready(&stack, tls()).await;
    let Placed {
        session,
        player_session_id,
        ..
    } = place_accepted(&stack, &mut server, "alice").await;
    let seats = server
        .sdk
        .describe_player_sessions(by_game(&session))
        .await
        .unwrap();
    assert_eq!(ids(&seats), vec![player_session_id]);
    server.sdk.process_ending().await.unwrap();

    // The certificate is self-signed: not trusting it, the handshake fails.
    let mut untrusted = tls();
    untrusted.timing.reconnect.retries = 0;
    let endpoint = stack.stack().game_server_endpoint().clone();
    let pid = local::gamelift_sdk::GameServerEndpoint::new_process_id();
    let vars = endpoint.env(&pid, true);
    let parameters = ServerParameters {
        timing: untrusted.timing,
        ..ServerParameters::default()
    };
    let result = GameLiftServer::init_sdk_with_env(parameters, move |name| {
        vars.iter()
            .find(|(var, _)| *var == name)
            .map(|(_, value)| value.clone())
    })
    .await;
    assert!(
        matches!(&result, Err(GameLiftError::ConnectionFailed { url, .. }) if url.starts_with("wss://")),
        "{:?}",
        result.err()
    );
    stack.shutdown().await;
}

#[tokio::test]
async fn given_a_friend_in_a_game_on_the_sdk_process_when_players_join_it_then_the_sdk_accepts_their_seats_until_the_game_takes_no_more()
 {
    let stack = TestStack::start_with(real_only).await;
    let mut server = GameServer::ready(&stack, Route::default()).await;
    let (mut bob, _) = stack.online("bob").await;
    let (mut carol, _) = stack.online("carol").await;
    let Placed {
        mut player,
        session,
        ..
    } = place_accepted(&stack, &mut server, "alice").await;
    befriend((&mut player, "alice"), (&mut bob, "bob")).await;
    befriend((&mut player, "alice"), (&mut carol, "carol")).await;

    // A seat in alice's game, which the game server itself accepts.
    let joined = reply(&mut bob, "joinFriendGame", json!({ "playerId": "alice" })).await;
    assert_eq!(joined["type"], "ack", "{joined}");
    let seat = &joined["gameSession"];
    assert_eq!(
        seat["gameSessionArn"],
        session.game_session_id.as_str(),
        "{joined}"
    );
    assert_eq!(seat["port"], GAME_PORT, "{joined}");
    let bobs_seat = seat["playerSessionId"].as_str().unwrap();
    server.sdk.accept_player_session(bobs_seat).await.unwrap();
    assert_eq!(
        seat_status(&stack, bobs_seat),
        local::gamelift::PlayerSessionStatus::Active
    );

    // Closed by the game server (DENY_ALL), then ended: each a clear refusal naming the game.
    server
        .sdk
        .update_player_session_creation_policy(PlayerSessionCreationPolicy::DenyAll)
        .await
        .unwrap();
    let closed = reply(&mut carol, "joinFriendGame", json!({ "playerId": "alice" })).await;
    assert_eq!(closed["code"], "session_ended", "{closed}");
    assert_eq!(closed["playerId"], "alice", "{closed}");
    server.sdk.process_ending().await.unwrap();
    let ended = reply(&mut carol, "joinFriendGame", json!({ "playerId": "alice" })).await;
    assert_eq!(ended["code"], "session_ended", "{ended}");
    assert_eq!(
        ended["gameSessionArn"],
        session.game_session_id.as_str(),
        "{ended}"
    );
    stack.shutdown().await;
}

#[tokio::test]
async fn given_two_games_on_two_processes_when_one_accepts_the_others_seat_then_it_is_refused_as_another_games()
 {
    let stack = TestStack::start_with(real_only).await;
    let mut first = GameServer::ready(&stack, Route::default()).await;
    let mut second = GameServer::ready(&stack, Route::default()).await;
    let (mut alice, _) = stack.online("alice").await;
    let (mut bob, _) = stack.online("bob").await;
    request_placement(&mut alice).await;
    request_placement(&mut bob).await;
    let sessions = [first.started().await, second.started().await];
    first.sdk.activate_game_session().await.unwrap();
    second.sdk.activate_game_session().await.unwrap();
    let seat_of = |frame: &Value| {
        assert_eq!(frame["status"], "FULFILLED", "{frame}");
        (
            frame["gameSession"]["gameSessionArn"]
                .as_str()
                .unwrap()
                .to_owned(),
            frame["gameSession"]["playerSessionId"]
                .as_str()
                .unwrap()
                .to_owned(),
        )
    };
    let (alice_game, alice_seat) = seat_of(&alice.next_frame_within(WAIT).await);
    let (bob_game, _) = seat_of(&bob.next_frame_within(WAIT).await);
    assert_ne!(alice_game, bob_game, "a game each");
    let (own, other) = if sessions[0].game_session_id == alice_game {
        (&first, &second)
    } else {
        (&second, &first)
    };
    assert_refused(
        other.sdk.accept_player_session(&alice_seat).await,
        ErrorKind::BadRequest,
        "another game session's",
    );
    assert_eq!(
        seat_status(&stack, &alice_seat),
        local::gamelift::PlayerSessionStatus::Reserved
    );
    own.sdk.accept_player_session(&alice_seat).await.unwrap();
    stack.shutdown().await;
}

#[tokio::test]
async fn given_a_running_game_when_the_sdks_socket_is_cut_then_it_reconnects_with_the_same_pid_without_activating_again_and_keeps_its_game()
 {
    let stack = TestStack::start_with(real_only).await;
    let (relay, mut server) = GameServer::ready_behind_relay(&stack, false).await;
    let Placed {
        mut player,
        session,
        player_session_id,
    } = place_accepted(&stack, &mut server, "alice").await;

    relay.cut();
    let pid = server.pid.clone();
    eventually(&stack, "the SDK is back on a second socket", |s| {
        relay.connections() == 2 && s.process(&pid).is_some_and(|p| p.connected)
    })
    .await;
    let seats = server
        .sdk
        .describe_player_sessions(DescribePlayerSessions {
            player_session_id: Some(player_session_id.clone()),
            ..DescribePlayerSessions::default()
        })
        .await
        .unwrap();
    assert_eq!(
        seats.player_sessions[0].status,
        Some(PlayerSessionStatus::Active)
    );

    // The same process and game: still ACTIVE, and a rejoin seats the player there.
    let snapshot = snapshot(&stack);
    assert_eq!(snapshot.processes.len(), 1, "{:?}", snapshot.processes);
    let game = snapshot.game_session(&session.game_session_id).unwrap();
    assert_eq!(game.status, GameSessionStatus::Active, "{game:?}");
    let again = rejoin(&mut player, &session).await;
    server.sdk.accept_player_session(&again).await.unwrap();

    // What the SDK sent on each socket: ActivateServerProcess on the first only.
    let sent = relay.actions();
    assert_eq!(sent.len(), 2, "{sent:?}");
    assert!(
        sent[0].contains(&"ActivateServerProcess".to_owned()),
        "{sent:?}"
    );
    assert!(
        !sent[1].contains(&"ActivateServerProcess".to_owned()),
        "{sent:?}"
    );
    assert!(
        sent[1].contains(&"DescribePlayerSessions".to_owned()),
        "{sent:?}"
    );
    stack.shutdown().await;
}

#[tokio::test]
async fn given_an_sdk_that_beats_too_rarely_when_three_heartbeats_are_missed_then_terminate_process_reaches_it_and_the_process_is_taken_out_after_the_grace()
 {
    let stack = TestStack::start_with(|settings| {
        real_only(settings);
        settings.game_servers.sim_heartbeat_interval_ms = 300;
        settings.game_servers.sim_termination_grace_seconds = 1;
    })
    .await;
    let mut server = GameServer::ready(
        &stack,
        Route {
            timing: Timing {
                heartbeat_interval: Duration::from_secs(60),
                ..fast_timing()
            },
            ..Route::default()
        },
    )
    .await;
    assert_eq!(
        server.sdk.get_termination_time(),
        Err(GameLiftError::TerminationTimeNotSet)
    );

    // One beat at ProcessReady, then none for 60 s: 3 × 300 ms later the stack gives up.
    assert!(matches!(server.next_event().await, Event::Terminate));
    let now = epoch_seconds();
    let at = server.sdk.get_termination_time().unwrap();
    assert!(
        (now - 1..=now + 2).contains(&at),
        "termination at {at}, now {now}"
    );
    let process = snapshot_of(&stack, |s| s.process(&server.pid).cloned()).unwrap();
    assert!(!process.healthy && process.termination_sent, "{process:?}");

    let pid = server.pid.clone();
    eventually(&stack, "taken out after the grace", |s| {
        s.process(&pid)
            .is_some_and(|p| p.state == ServerState::Terminated)
    })
    .await;
    assert_refused(
        server.sdk.get_compute_certificate().await,
        ErrorKind::BadRequest,
        "taken out",
    );
    stack.shutdown().await;
}

#[tokio::test]
async fn given_a_running_game_when_the_stack_sends_terminate_process_then_the_callback_fires_and_process_ending_ends_the_game()
 {
    let stack = TestStack::start_with(real_only).await;
    let mut server = GameServer::ready(&stack, Route::default()).await;
    let Placed {
        mut player,
        session,
        ..
    } = place_accepted(&stack, &mut server, "alice").await;

    stack
        .stack()
        .game_servers()
        .terminate_process(&server.pid)
        .unwrap();
    assert!(matches!(server.next_event().await, Event::Terminate));
    let now = epoch_seconds();
    let at = server.sdk.get_termination_time().unwrap();
    // The grace is 30 s here.
    assert!(
        (now + 25..=now + 32).contains(&at),
        "termination at {at}, now {now}"
    );

    server.sdk.process_ending().await.unwrap();
    let game = snapshot_of(&stack, |s| {
        s.game_session(&session.game_session_id).cloned()
    })
    .unwrap();
    assert_eq!(game.status, GameSessionStatus::Terminated, "{game:?}");
    let ended = reply(&mut player, "rejoinSession", json!({})).await;
    assert_eq!(ended["code"], "session_ended", "{ended}");
    stack.shutdown().await;
}

#[tokio::test]
async fn given_a_running_game_when_the_stack_sends_refresh_connection_then_the_sdk_moves_to_the_new_endpoint_and_keeps_working()
 {
    let stack = TestStack::start_with(real_only).await;
    let (relay, mut server) = GameServer::ready_behind_relay(&stack, false).await;
    let Placed {
        mut player,
        session,
        player_session_id,
    } = place(&stack, &mut server, "alice").await;

    // The new endpoint is the stack's own URL, not the relay's.
    let url = stack
        .stack()
        .game_servers()
        .refresh_connection(&server.pid)
        .unwrap();
    assert!(url.ends_with("/refreshed"), "{url}");
    // Past the SDK's grace on the old socket, cutting the relay changes nothing.
    tokio::time::sleep(Duration::from_millis(600)).await;
    relay.cut();
    server
        .sdk
        .accept_player_session(&player_session_id)
        .await
        .unwrap();
    let again = rejoin(&mut player, &session).await;
    server.sdk.accept_player_session(&again).await.unwrap();
    let pid = server.pid.clone();
    eventually(&stack, "connected on the new socket", |s| {
        s.process(&pid).is_some_and(|p| p.connected)
    })
    .await;
    assert_eq!(
        relay.connections(),
        1,
        "the SDK did not come back through the relay"
    );
    let sent = relay.actions();
    assert!(
        !sent[0].contains(&"AcceptPlayerSession".to_owned()),
        "{sent:?}"
    );
    stack.shutdown().await;
}

#[tokio::test]
async fn given_a_game_server_on_wss_when_the_stack_sends_refresh_connection_then_the_new_endpoint_is_wss_too_and_the_sdk_moves_there()
 {
    let stack = TestStack::start_with(real_only).await;
    let (relay, mut server) = GameServer::ready_behind_relay(&stack, true).await;
    let Placed {
        player_session_id, ..
    } = place(&stack, &mut server, "alice").await;

    // A game server that speaks TLS only (C++, Unreal) cannot follow a ws:// endpoint.
    let url = stack
        .stack()
        .game_servers()
        .refresh_connection(&server.pid)
        .unwrap();
    assert!(url.starts_with("wss://"), "{url}");
    tokio::time::sleep(Duration::from_millis(600)).await;
    relay.cut();
    server
        .sdk
        .accept_player_session(&player_session_id)
        .await
        .unwrap();
    assert_eq!(
        relay.connections(),
        1,
        "the SDK did not come back through the relay"
    );
    stack.shutdown().await;
}

#[tokio::test]
async fn given_a_health_check_that_says_unhealthy_when_three_heartbeats_report_it_then_terminate_process_reaches_the_sdk()
 {
    let stack = TestStack::start_with(real_only).await;
    let mut server = GameServer::ready(
        &stack,
        Route {
            healthy: false,
            ..Route::default()
        },
    )
    .await;
    // Beats every 200 ms, each unhealthy: the third ends it, long before any is missed.
    assert!(matches!(server.next_event().await, Event::Terminate));
    let process = snapshot_of(&stack, |s| s.process(&server.pid).cloned()).unwrap();
    assert!(!process.healthy && process.termination_sent, "{process:?}");
    server.sdk.process_ending().await.unwrap();
    let process = snapshot_of(&stack, |s| s.process(&server.pid).cloned()).unwrap();
    assert_eq!(process.state, ServerState::Terminated, "{process:?}");
    stack.shutdown().await;
}

#[tokio::test]
async fn given_no_on_process_terminate_when_the_stack_sends_terminate_process_then_the_sdk_ends_the_process_itself()
 {
    let stack = TestStack::start_with(real_only).await;
    let pid = local::gamelift_sdk::GameServerEndpoint::new_process_id();
    let sdk = init(&stack, &pid, &Route::default()).await.unwrap();
    sdk.process_ready(ProcessParameters::new(GAME_PORT))
        .await
        .unwrap();

    // As the official SDKs: ProcessEnding, then Destroy.
    stack
        .stack()
        .game_servers()
        .terminate_process(&pid)
        .unwrap();
    eventually(&stack, "ProcessEnding sent by the SDK", |s| {
        s.process(&pid).is_some_and(|p| {
            p.state == ServerState::Terminated
                && p.ended
                    .as_deref()
                    .is_some_and(|why| why.contains("ProcessEnding"))
        })
    })
    .await;
    assert!(sdk.get_termination_time().is_ok());
    stack.shutdown().await;
}

#[tokio::test]
async fn given_a_cut_socket_when_the_sdk_cannot_come_back_within_the_reconnect_window_then_its_game_ends_and_a_later_call_is_refused()
 {
    let stack = TestStack::start_with(|settings| {
        real_only(settings);
        settings.game_servers.sim_reconnect_window_seconds = 1;
    })
    .await;
    let (relay, mut server) = GameServer::ready_behind_relay(&stack, false).await;
    let Placed {
        mut player,
        session,
        ..
    } = place_accepted(&stack, &mut server, "alice").await;

    relay.set_down(true);
    let pid = server.pid.clone();
    eventually(&stack, "taken out after the reconnect window", |s| {
        s.process(&pid)
            .is_some_and(|p| p.state == ServerState::Terminated)
    })
    .await;
    let game = snapshot_of(&stack, |s| {
        s.game_session(&session.game_session_id).cloned()
    })
    .unwrap();
    assert_eq!(game.status, GameSessionStatus::Terminated, "{game:?}");
    let ended = reply(&mut player, "rejoinSession", json!({})).await;
    assert_eq!(ended["code"], "session_ended", "{ended}");

    // Back on the network, the SDK reconnects for its next call, which is refused.
    relay.set_down(false);
    let refused = tokio::time::timeout(WAIT, async {
        loop {
            match server.sdk.get_compute_certificate().await {
                Err(GameLiftError::Service { message, .. }) => return message,
                Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
                Ok(answer) => panic!("a process taken out was answered: {answer:?}"),
            }
        }
    })
    .await
    .expect("a refusal once the relay is back");
    assert!(refused.contains("taken out"), "{refused}");
    stack.shutdown().await;
}

fn epoch_seconds() -> i64 {
    let since = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
    i64::try_from(since.as_secs()).unwrap()
}
