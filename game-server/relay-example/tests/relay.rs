//! The relay against the fake service: a whole game, refusals, `/end`, TerminateProcess,
//! and the binary itself.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Test support: a panic is the test failing, with its message.

use std::net::SocketAddr;
use std::process::Stdio;
use std::time::Duration;

use gamelift_server_sdk::protocol::{CreateGameSession, Push, Request, TerminateProcess};
use gamelift_server_sdk::testing::{Answer, FakeService, parameters};
use gamelift_server_sdk::{ErrorKind, GameLiftServer};
use relay_game_server::{Announcement, Reason, Settings, serve};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::net::TcpStream;
use tokio::net::tcp::OwnedReadHalf;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

const GAME_SESSION: &str = "arn:aws:gamelift:us-west-2::gamesession/fleet-1/gsess-1";

/// The relay running on the fake, with its game session activated.
async fn start(
    fake: &FakeService,
) -> (
    SocketAddr,
    JoinHandle<Result<Reason, gamelift_server_sdk::GameLiftError>>,
) {
    let server = GameLiftServer::init_sdk_with_env(parameters(&fake.url()), |_| None)
        .await
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let (ready, address) = oneshot::channel();
    let ready = std::sync::Mutex::new(Some(ready));
    let relay = tokio::spawn(serve(listener, server, move |announcement| {
        if let Announcement::Listening(address) = announcement
            && let Some(ready) = ready.lock().unwrap().take()
        {
            let _ = ready.send(address);
        }
    }));
    let address = address.await.unwrap();
    let Request::ActivateServerProcess(activate) = fake.next_request().await.request else {
        panic!()
    };
    assert_eq!(activate.port, i32::from(address.port()));
    fake.push(&Push::CreateGameSession(CreateGameSession {
        game_session_id: GAME_SESSION.into(),
        maximum_player_session_count: 4,
        ..CreateGameSession::default()
    }));
    assert_eq!(
        fake.next_request().await.request.action(),
        "ActivateGameSession"
    );
    (address, relay)
}

struct Client {
    lines: Lines<BufReader<OwnedReadHalf>>,
    write: tokio::net::tcp::OwnedWriteHalf,
}

impl Client {
    async fn connect(address: SocketAddr, player_session_id: &str) -> Self {
        let (read, write) = TcpStream::connect(address).await.unwrap().into_split();
        let mut client = Self {
            lines: BufReader::new(read).lines(),
            write,
        };
        client.send(player_session_id).await;
        client
    }

    async fn send(&mut self, line: &str) {
        self.write
            .write_all(format!("{line}\n").as_bytes())
            .await
            .unwrap();
    }

    async fn line(&mut self) -> Option<String> {
        tokio::time::timeout(Duration::from_secs(10), self.lines.next_line())
            .await
            .unwrap()
            .unwrap()
    }
}

async fn expect_request(fake: &FakeService, action: &str) -> Request {
    let frame = fake.next_request().await;
    assert_eq!(frame.request.action(), action, "{frame:?}");
    frame.request
}

/// Accepted: AcceptPlayerSession and DescribePlayerSessions were sent, `OK` answered.
async fn join(fake: &FakeService, address: SocketAddr, id: &str) -> Client {
    let mut client = Client::connect(address, id).await;
    let Request::AcceptPlayerSession(accept) = expect_request(fake, "AcceptPlayerSession").await
    else {
        panic!()
    };
    assert_eq!(
        (
            accept.game_session_id.as_str(),
            accept.player_session_id.as_str()
        ),
        (GAME_SESSION, id)
    );
    expect_request(fake, "DescribePlayerSessions").await;
    assert_eq!(client.line().await.as_deref(), Some("OK"));
    client
}

#[tokio::test]
async fn given_two_players_when_they_talk_and_leave_then_lines_are_relayed_each_is_removed_and_the_process_ends()
 {
    let fake = FakeService::start().await;
    let (address, relay) = start(&fake).await;
    fake.answer(
        "DescribePlayerSessions",
        Answer::Ok(serde_json::json!({"PlayerSessions": [{"PlayerId": "player-x", "PlayerSessionId": "p"}]})),
    );
    let mut alice = join(&fake, address, "psess-a").await;
    let mut bob = join(&fake, address, "psess-b").await;
    alice.send("hello").await;
    assert_eq!(bob.line().await.as_deref(), Some("player-x: hello"));
    drop(bob);
    let Request::RemovePlayerSession(removed) = expect_request(&fake, "RemovePlayerSession").await
    else {
        panic!()
    };
    assert_eq!(removed.player_session_id, "psess-b");
    drop(alice);
    expect_request(&fake, "RemovePlayerSession").await;
    expect_request(&fake, "TerminateServerProcess").await;
    assert_eq!(relay.await.unwrap().unwrap(), "the last player left");
}

#[tokio::test]
async fn given_a_player_session_the_service_refuses_when_it_connects_then_it_is_told_why_and_hung_up_on()
 {
    let fake = FakeService::start().await;
    let (address, relay) = start(&fake).await;
    fake.answer(
        "AcceptPlayerSession",
        Answer::Error(ErrorKind::BadRequest, "player session not RESERVED".into()),
    );
    let mut forged = Client::connect(address, "psess-forged").await;
    expect_request(&fake, "AcceptPlayerSession").await;
    let refusal = forged.line().await.unwrap();
    assert!(
        refusal.starts_with("REFUSED ") && refusal.contains("player session not RESERVED"),
        "{refusal}"
    );
    assert_eq!(forged.line().await, None, "hung up");
    assert!(!relay.is_finished(), "a refusal does not end the game");
    relay.abort();
}

#[tokio::test]
async fn given_a_player_already_connected_when_its_id_connects_again_then_it_is_refused_without_asking_the_service()
 {
    let fake = FakeService::start().await;
    let (address, relay) = start(&fake).await;
    let _alice = join(&fake, address, "psess-a").await;
    let mut again = Client::connect(address, "psess-a").await;
    let refusal = again.line().await.unwrap();
    assert!(refusal.contains("already connected"), "{refusal}");
    assert!(fake.no_request_within(Duration::from_millis(200)).await);
    relay.abort();
}

#[tokio::test]
async fn given_a_player_sending_end_when_read_then_everyone_gets_game_over_and_process_ending_is_called()
 {
    let fake = FakeService::start().await;
    let (address, relay) = start(&fake).await;
    let mut alice = join(&fake, address, "psess-a").await;
    let mut bob = join(&fake, address, "psess-b").await;
    alice.send("/end").await;
    assert_eq!(
        bob.line().await.as_deref(),
        Some("GAME OVER psess-a ended the game")
    );
    assert_eq!(
        alice.line().await.as_deref(),
        Some("GAME OVER psess-a ended the game")
    );
    expect_request(&fake, "TerminateServerProcess").await;
    assert_eq!(relay.await.unwrap().unwrap(), "psess-a ended the game");
}

#[tokio::test]
async fn given_a_terminate_process_when_pushed_then_the_game_ends_with_process_ending() {
    let fake = FakeService::start().await;
    let (address, relay) = start(&fake).await;
    let mut alice = join(&fake, address, "psess-a").await;
    fake.push(&Push::TerminateProcess(TerminateProcess {
        termination_time: 1,
    }));
    assert_eq!(
        alice.line().await.as_deref(),
        Some("GAME OVER the service is terminating the process")
    );
    expect_request(&fake, "TerminateServerProcess").await;
    assert!(relay.await.unwrap().is_ok());
}

#[test]
fn given_flags_and_variables_when_parsed_then_flags_win_and_defaults_fill_in() {
    let none = |_: &str| None;
    assert_eq!(
        Settings::parse([], none).unwrap(),
        Settings {
            bind: "127.0.0.1".into(),
            port: 7777
        }
    );
    let env = |name: &str| (name == "RELAY_PORT").then(|| "9000".to_owned());
    assert_eq!(Settings::parse([], env).unwrap().port, 9000);
    let args = ["--port", "0", "--bind", "0.0.0.0"].map(String::from);
    assert_eq!(
        Settings::parse(args, env).unwrap(),
        Settings {
            bind: "0.0.0.0".into(),
            port: 0
        }
    );
    assert!(
        Settings::parse(["--port".into(), "x".into()], none)
            .unwrap_err()
            .contains("port")
    );
}

#[tokio::test]
async fn given_the_binary_with_sdk_variables_when_a_game_is_played_then_it_prints_its_address_and_exits_0()
 {
    let fake = FakeService::start().await;
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_relay-server"))
        .env("GAMELIFT_SDK_WEBSOCKET_URL", fake.url())
        .env("GAMELIFT_SDK_PROCESS_ID", "proc-bin")
        .env("GAMELIFT_SDK_HOST_ID", "host-1")
        .env("GAMELIFT_SDK_FLEET_ID", "fleet-1")
        .env("GAMELIFT_SDK_AUTH_TOKEN", "tok-1")
        .env("RELAY_PORT", "0")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap()).lines();
    let line = tokio::time::timeout(Duration::from_secs(10), stdout.next_line())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    let address: SocketAddr = line
        .strip_prefix("listening on ")
        .expect(&line)
        .parse()
        .unwrap();
    assert_eq!(fake.next_connection().await.query.process_id, "proc-bin");
    let Request::ActivateServerProcess(activate) = fake.next_request().await.request else {
        panic!()
    };
    assert_eq!(activate.port, i32::from(address.port()));
    fake.push(&Push::CreateGameSession(CreateGameSession {
        game_session_id: GAME_SESSION.into(),
        ..Default::default()
    }));
    expect_request(&fake, "ActivateGameSession").await;
    let alice = join(&fake, address, "psess-a").await;
    drop(alice);
    expect_request(&fake, "RemovePlayerSession").await;
    expect_request(&fake, "TerminateServerProcess").await;
    let status = tokio::time::timeout(Duration::from_secs(10), child.wait())
        .await
        .unwrap()
        .unwrap();
    assert!(status.success(), "{status}");
}
