//! A whole game end to end: the local stack with no simulated servers
//! (`SIM_FLEET_SERVERS=0`), the relay example as a separate process on the stack's server
//! SDK 5 endpoint, players asking for their game over the WebSocket and then playing on
//! the seat they were given over TCP. In memory (ws://) and, with `DYNAMODB_ENDPOINT`
//! set, on DynamoDB Local (wss://); through a queue placement and through FlexMatch.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Test support: a panic is the test failing, with its message.

use std::process::Stdio;
use std::time::Duration;

use local::Settings;
use local::gamelift_sdk::GameServerEndpoint;
use serde_json::{Value, json};
use tests::stack::{Client, Received, TestStack};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::net::TcpStream;
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::process::{Child, ChildStdout, Command};

/// Long enough for a loaded machine; every wait ends as soon as its frame or line comes.
const WAIT: Duration = Duration::from_secs(20);

/// No simulated processes: the relay is the fleet. A placement is tried 100 ms after it
/// is asked for.
fn real_fleet_only(settings: &mut Settings) {
    settings.simulator.sim_fleet_servers = 0;
    settings.simulator.sim_server_startup_ms = 0;
    settings.simulator.sim_placement_delay_ms = 100;
}

/// The relay game server, a child process of the test.
struct Relay {
    child: Child,
    stdout: Lines<BufReader<ChildStdout>>,
    port: u16,
}

impl Relay {
    /// Starts `relay-server` with the variables the README's command exports (the
    /// console's `game-server-env`: over wss:// with `tls`, trusting the stack's
    /// certificate) and waits for `listening on`.
    async fn start(stack: &TestStack, tls: bool) -> Self {
        let mut command = Command::new(env!("CARGO_BIN_EXE_relay-server"));
        command
            .envs(game_server_env(stack, tls).await)
            .env("RELAY_PORT", "0")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true);
        let mut child = command.spawn().expect("relay-server starts");
        let mut stdout = BufReader::new(child.stdout.take().unwrap()).lines();
        let line = next_line(&mut stdout).await;
        let address = line
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("relay-server's first line: {line:?}"));
        let port = address.rsplit(':').next().unwrap().parse().unwrap();
        Self {
            child,
            stdout,
            port,
        }
    }

    /// The relay's next line on stdout.
    async fn line(&mut self) -> String {
        next_line(&mut self.stdout).await
    }

    /// Waits for the process to exit; its status.
    async fn exit(mut self) -> std::process::ExitStatus {
        tokio::time::timeout(WAIT, self.child.wait())
            .await
            .expect("relay-server exits")
            .unwrap()
    }
}

/// `GET /console/api/game-server-env`: its `export NAME='value'` lines, read as a shell
/// would.
async fn game_server_env(stack: &TestStack, tls: bool) -> Vec<(String, String)> {
    let address = stack.stack().addr();
    let mut stream = TcpStream::connect(address).await.unwrap();
    let request = format!(
        "GET /console/api/game-server-env?tls={tls} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut raw = String::new();
    tokio::io::AsyncReadExt::read_to_string(&mut stream, &mut raw)
        .await
        .unwrap();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let variables: Vec<(String, String)> = body
        .lines()
        .map(|line| {
            let (name, value) = line
                .strip_prefix("export ")
                .and_then(|rest| rest.split_once('='))
                .unwrap_or_else(|| panic!("not an export line: {line:?}"));
            (name.to_owned(), value.trim_matches('\'').to_owned())
        })
        .collect();
    let names: Vec<&str> = variables.iter().map(|(name, _)| name.as_str()).collect();
    for expected in [
        "GAMELIFT_SDK_WEBSOCKET_URL",
        "GAMELIFT_SDK_FLEET_ID",
        "GAMELIFT_SDK_HOST_ID",
        "GAMELIFT_SDK_PROCESS_ID",
        "GAMELIFT_SDK_AUTH_TOKEN",
    ] {
        assert!(names.contains(&expected), "{expected} in {body}");
    }
    assert_eq!(names.contains(&"SSL_CERT_FILE"), tls, "{body}");
    variables
}

async fn next_line(lines: &mut Lines<BufReader<ChildStdout>>) -> String {
    tokio::time::timeout(WAIT, lines.next_line())
        .await
        .expect("a line from relay-server within the wait")
        .unwrap()
        .expect("relay-server's stdout is open")
}

/// A player's TCP connection to the game server.
struct Seat {
    lines: Lines<BufReader<OwnedReadHalf>>,
    write: OwnedWriteHalf,
}

impl Seat {
    /// Connects to the relay and sends `player_session_id` first; the relay's answer.
    async fn join(port: u16, player_session_id: &str) -> (Self, String) {
        let stream = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
        let (read, write) = stream.into_split();
        let mut seat = Self {
            lines: BufReader::new(read).lines(),
            write,
        };
        seat.say(player_session_id).await;
        let answer = seat.line().await;
        (seat, answer)
    }

    async fn say(&mut self, line: &str) {
        self.write
            .write_all(format!("{line}\n").as_bytes())
            .await
            .unwrap();
    }

    async fn line(&mut self) -> String {
        tokio::time::timeout(WAIT, self.lines.next_line())
            .await
            .expect("a line from the relay within the wait")
            .unwrap()
            .unwrap_or_default()
    }
}

/// Connects `player` and resumes.
async fn online(stack: &TestStack, player: &str) -> Client {
    let mut client = stack.connect(player).await;
    client.resume(None).await;
    client
}

/// The next frame `wanted` picks (others, such as party changes, are passed over).
async fn next_where(client: &mut Client, what: &str, wanted: impl Fn(&Value) -> bool) -> Value {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        match client.receive(left).await {
            Received::Text(text) => {
                let frame: Value = serde_json::from_str(&text).unwrap();
                if wanted(&frame) {
                    return frame;
                }
            }
            other => panic!("expected {what}, got {other:?}"),
        }
    }
}

/// The next frame of `kind`.
async fn frame_of(client: &mut Client, kind: &str) -> Value {
    next_where(client, kind, |frame| frame["type"] == kind).await
}

/// The answer to `route` (pushes before it are passed over).
async fn answer(client: &mut Client, route: &str, body: Value) -> Value {
    client
        .send_json(json!({"route": route, "body": body}))
        .await;
    next_where(client, route, |frame| frame["route"] == route).await
}

fn player_session(seat: &Value) -> String {
    seat["playerSessionId"].as_str().unwrap().to_owned()
}

/// alice and bob in a party; alice places it; both are accepted by the relay and play;
/// forged and reused player session ids are refused; bob leaves and rejoins; alice ends
/// the game and a rejoin is then `session_ended`.
async fn a_whole_game(stack: &TestStack, tls: bool) {
    let mut relay = Relay::start(stack, tls).await;
    let mut alice = online(stack, "alice").await;
    let mut bob = online(stack, "bob").await;
    let created = answer(&mut alice, "createParty", json!({"maxSize": 2})).await;
    let party_id = created["party"]["partyId"].clone();
    answer(&mut alice, "inviteToParty", json!({"playerId": "bob"})).await;
    frame_of(&mut bob, "party_invite").await;
    let joined = answer(&mut bob, "joinParty", json!({"partyId": party_id})).await;
    assert_eq!(joined["type"], "ack", "{joined}");

    let ack = answer(&mut alice, "sessionPlacementRequest", json!({})).await;
    assert_eq!(ack["status"], "PENDING", "{ack}");
    let alice_placed = frame_of(&mut alice, "placement").await;
    let bob_placed = frame_of(&mut bob, "placement").await;
    for placed in [&alice_placed, &bob_placed] {
        assert_eq!(placed["status"], "FULFILLED", "{placed}");
        assert_eq!(placed["gameSession"]["port"], relay.port, "{placed}");
    }
    let arn = alice_placed["gameSession"]["gameSessionArn"]
        .as_str()
        .unwrap();
    assert_eq!(relay.line().await, format!("game-session {arn}"));

    // Both are accepted by the game server, and play.
    let (mut alice_seat, answer_a) =
        Seat::join(relay.port, &player_session(&alice_placed["gameSession"])).await;
    let bob_session = player_session(&bob_placed["gameSession"]);
    let (bob_seat, answer_b) = Seat::join(relay.port, &bob_session).await;
    assert_eq!((answer_a.as_str(), answer_b.as_str()), ("OK", "OK"));
    let mut bob_seat = bob_seat;
    alice_seat.say("hello").await;
    assert_eq!(bob_seat.line().await, "alice: hello");

    // A forged id and a reused one are refused, and hung up on.
    let (_, forged) = Seat::join(relay.port, "psess-00000000-0000-4000-8000-000000000000").await;
    assert!(forged.starts_with("REFUSED"), "{forged}");
    let (_, reused) = Seat::join(relay.port, &bob_session).await;
    assert!(reused.starts_with("REFUSED"), "{reused}");

    // bob leaves; the relay removes him; he rejoins with a new player session.
    drop(bob_seat);
    let rejoined = loop {
        let rejoined = answer(&mut bob, "rejoinSession", json!({})).await;
        if rejoined["type"] == "ack" {
            break rejoined;
        }
        // The relay may not have removed the old seat yet (a full game says so).
        assert_eq!(rejoined["code"], "session_full", "{rejoined}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let new_session = player_session(&rejoined["gameSession"]);
    assert_ne!(new_session, bob_session);
    let (mut bob_seat, again) = Seat::join(relay.port, &new_session).await;
    assert_eq!(again, "OK");
    // His old player session is COMPLETED: reusing it is refused by GameLift itself.
    let (_, stale) = Seat::join(relay.port, &bob_session).await;
    assert!(stale.starts_with("REFUSED"), "{stale}");
    assert!(stale.contains("COMPLETED"), "{stale}");
    bob_seat.say("back").await;
    assert_eq!(alice_seat.line().await, "bob: back");

    // alice ends the game: ProcessEnding, the process exits 0, rejoining is over.
    alice_seat.say("/end").await;
    assert!(bob_seat.line().await.starts_with("GAME OVER"));
    assert!(relay.exit().await.success());
    let ended = answer(&mut alice, "rejoinSession", json!({})).await;
    assert_eq!(ended["code"], "session_ended", "{ended}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn given_the_relay_on_the_memory_stack_when_a_party_plays_then_accepted_rejoined_and_ended() {
    let stack = TestStack::start_with(real_fleet_only).await;
    a_whole_game(&stack, false).await;
    stack.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn given_the_relay_over_wss_on_dynamodb_local_when_a_party_plays_then_accepted_rejoined_and_ended()
 {
    let Some(endpoint) = tests::dynamodb::endpoint_or_skip() else {
        return;
    };
    let stack = TestStack::start_with(|s| {
        real_fleet_only(s);
        tests::dynamodb::use_fresh_tables(&mut s.storage, endpoint);
    })
    .await;
    assert!(stack.stack().storage().starts_with("DynamoDB"));
    a_whole_game(&stack, true).await;
    stack.shutdown().await;
}

/// The duel rule set (1v1, red and blue), as a developer would give it.
const DUEL: &str = r#"{
  "name": "duel", "ruleLanguageVersion": "1.0",
  "playerAttributes": [{"name": "skill", "type": "number", "default": 1000}],
  "teams": [{"name": "red", "minPlayers": 1, "maxPlayers": 1},
            {"name": "blue", "minPlayers": 1, "maxPlayers": 1}],
  "rules": []
}"#;

async fn a_match(stack: &TestStack) {
    let mut relay = Relay::start(stack, false).await;
    let mut alice = online(stack, "alice").await;
    let mut bob = online(stack, "bob").await;
    for (client, skill) in [(&mut alice, 1000), (&mut bob, 1050)] {
        let ack = answer(
            client,
            "startMatchmaking",
            json!({"attributes": {"skill": skill}, "latencies": {"local": 20}}),
        )
        .await;
        assert_eq!(ack["status"], "QUEUED", "{ack}");
    }
    let mut seats = Vec::new();
    for client in [&mut alice, &mut bob] {
        let completed = loop {
            let frame = frame_of(client, "matchmaking").await;
            if frame["status"] == "COMPLETED" {
                break frame;
            }
        };
        assert_eq!(completed["gameSession"]["port"], relay.port, "{completed}");
        seats.push(completed["gameSession"].clone());
    }
    let arn = seats[0]["gameSessionArn"].as_str().unwrap();
    assert_eq!(relay.line().await, format!("game-session {arn}"));
    // The teams reached the game server in MatchmakerData, as FlexMatch sends them.
    let mut teams = vec![relay.line().await, relay.line().await];
    teams.sort();
    let team_of = |seat: &Value| seat["team"].as_str().unwrap().to_owned();
    let mut expected = vec![
        format!("team {} alice", team_of(&seats[0])),
        format!("team {} bob", team_of(&seats[1])),
    ];
    expected.sort();
    assert_eq!(teams, expected);
    let (mut alice_seat, a) = Seat::join(relay.port, &player_session(&seats[0])).await;
    let (_bob_seat, b) = Seat::join(relay.port, &player_session(&seats[1])).await;
    assert_eq!((a.as_str(), b.as_str()), ("OK", "OK"));
    alice_seat.say("/end").await;
    assert!(relay.exit().await.success());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn given_the_relay_and_flexmatch_when_two_players_match_then_the_teams_reach_the_game_server_in_matchmaker_data()
 {
    let path = std::env::temp_dir().join(format!("duel-{}.json", std::process::id()));
    std::fs::write(&path, DUEL).unwrap();
    let stack = TestStack::start_with(|s| {
        real_fleet_only(s);
        s.matchmaking.matchmaking_rule_set = Some(path.to_string_lossy().into_owned());
    })
    .await;
    a_match(&stack).await;
    stack.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn given_flexmatch_on_dynamodb_local_when_two_players_match_then_the_teams_reach_the_game_server()
 {
    let Some(endpoint) = tests::dynamodb::endpoint_or_skip() else {
        return;
    };
    let path = std::env::temp_dir().join(format!("duel-ddb-{}.json", std::process::id()));
    std::fs::write(&path, DUEL).unwrap();
    let stack = TestStack::start_with(|s| {
        real_fleet_only(s);
        tests::dynamodb::use_fresh_tables(&mut s.storage, endpoint);
        s.matchmaking.matchmaking_rule_set = Some(path.to_string_lossy().into_owned());
    })
    .await;
    a_match(&stack).await;
    stack.shutdown().await;
}

/// A game server that is ready but never calls ActivateGameSession: the placement stays
/// PENDING (GameLift fulfils a placement only once its game session is ACTIVE), each
/// game session it is offered ends after the activation timeout and the placement tries
/// again, until the queue's timeout: TIMED_OUT.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn given_a_game_server_that_never_activates_when_a_player_asks_then_pending_then_timed_out() {
    use gamelift_server_sdk::{GameLiftServer, ProcessParameters, ServerParameters};
    let stack = TestStack::start_with(|s| {
        real_fleet_only(s);
        s.game_servers.sim_game_session_activation_seconds = 1;
        s.simulator.sim_queue_timeout_seconds = 4;
    })
    .await;
    let env = stack
        .stack()
        .game_server_endpoint()
        .env(&GameServerEndpoint::new_process_id(), false);
    let server = GameLiftServer::init_sdk_with_env(ServerParameters::default(), |name| {
        env.iter()
            .find(|(key, _)| *key == name)
            .map(|(_, value)| value.clone())
    })
    .await
    .unwrap();
    // No on_start_game_session: it never activates what it is given.
    server
        .process_ready(ProcessParameters::new(7777))
        .await
        .unwrap();

    let mut alice = online(&stack, "alice").await;
    let ack = answer(&mut alice, "sessionPlacementRequest", json!({})).await;
    assert_eq!(ack["status"], "PENDING", "{ack}");
    // Past one activation timeout, still nothing: the placement is PENDING.
    alice.expect_no_frame(Duration::from_millis(1_500)).await;
    let placed = frame_of(&mut alice, "placement").await;
    assert_eq!(placed["status"], "TIMED_OUT", "{placed}");
    server.destroy().await.unwrap();
    stack.shutdown().await;
}
