//! A game server in Go against the local stack's GameLift server SDK 5 endpoint (issue 31,
//! part 6): game-server/go-conformance speaks the SDK 5 WebSocket as AWS's official Go
//! server SDK 5.6.0 does on the wire (its README says why it is not the SDK itself). It is
//! built with `go build`, run as its own process with the variables the stack's banner
//! prints, on a fleet of real processes only (`SIM_FLEET_SERVERS=0`), and a player places
//! on it over the player WebSocket: the placement is PENDING until the game server
//! activates its game session, FULFILLED is pushed, the game server accepts and removes the
//! player's seat, ends with ProcessEnding, and a later `rejoinSession` is `session_ended`.
//! Over `ws://`, over `wss://` (the stack's certificate through `SSL_CERT_FILE`), with the
//! socket dropped mid-game and dialled again with the same query, and with two players
//! placed together (so the game server's `Limit` 1 paging walks two pages); and over
//! `wss://` without that certificate, which Go must refuse.
//!
//! Needs `go` (1.26) on PATH, or `GO` naming it; scripts/test.sh downloads the module's
//! pinned dependencies first (`go mod download`), so the build itself stays offline.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use local::Settings;
use local::gamelift_sdk::GameServerEndpoint;
use serde_json::{Value, json};
use tests::stack::{Client, Received, TestStack};

/// The port the game server says players reach it on (ActivateServerProcess `Port`).
const GAME_PORT: u16 = 7777;
/// How long a step of the game server may take (a cold `go build` is not one of them).
const STEP: Duration = Duration::from_secs(15);

#[derive(Clone, Copy, Debug)]
enum Transport {
    Ws,
    Wss,
    /// wss:// without pointing SSL_CERT_FILE at the stack's certificate.
    WssUntrusted,
}

/// Real processes only, as a studio runs its own game server.
fn real_processes_only(settings: &mut Settings) {
    settings.simulator.sim_fleet_servers = 0;
    settings.simulator.sim_placement_delay_ms = 0;
}

/// Builds game-server/go-conformance once per run of the suites binary.
fn go_binary() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| {
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../game-server/go-conformance");
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("go-conformance");
        let go = std::env::var_os("GO").unwrap_or_else(|| "go".into());
        // readonly: the build uses go.mod and go.sum as they are, never resolving anew.
        let built = Command::new(&go)
            .arg("build")
            .arg("-o")
            .arg(&out)
            .arg(".")
            .current_dir(&source)
            .env("GOFLAGS", "-mod=readonly -buildvcs=false")
            .status();
        match built {
            Ok(status) if status.success() => out,
            Ok(status) => panic!(
                "`go build` in {} failed ({status}); run `go mod download` there first \
                 (scripts/test.sh does)",
                source.display()
            ),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => panic!(
                "`{}` was not found: install Go 1.26 (https://go.dev/dl/) and put it on PATH, \
                 or set GO to its path (scripts/test.sh adds /usr/local/go/bin)",
                go.to_string_lossy()
            ),
            Err(e) => panic!("running `{}`: {e}", go.to_string_lossy()),
        }
    })
}

/// The Go game server as a child process: its stdout milestones, its stderr log (every
/// frame), and its stdin (the go-ahead for ActivateGameSession).
struct GoServer {
    child: Child,
    stdin: Option<ChildStdin>,
    milestones: tokio::sync::mpsc::UnboundedReceiver<String>,
    log: Arc<Mutex<String>>,
}

impl GoServer {
    fn start(
        endpoint: &GameServerEndpoint,
        process_id: &str,
        transport: Transport,
        args: &[&str],
    ) -> Self {
        let mut command = Command::new(go_binary());
        let tls = !matches!(transport, Transport::Ws);
        // Go trusts what SSL_CERT_FILE names (crypto/x509 on Linux), as a studio would point
        // it at the stack's self-signed certificate; nothing else from this machine's trust.
        command.env_remove("SSL_CERT_DIR");
        match transport {
            Transport::Wss => command.env("SSL_CERT_FILE", &endpoint.certificate_path),
            Transport::Ws | Transport::WssUntrusted => command.env_remove("SSL_CERT_FILE"),
        };
        // What the banner says to export.
        command
            .envs(endpoint.env(process_id, tls))
            // Heartbeats every ~0.5 s instead of 60, so some go out between the game's calls.
            .env("HEALTHCHECK_INTERVAL", "500ms")
            .env("HEALTHCHECK_MAX_JITTER", "100ms")
            .arg("-port")
            .arg(GAME_PORT.to_string())
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command.spawn().expect("starting the Go game server");

        let (sender, milestones) = tokio::sync::mpsc::unbounded_channel();
        let stdout = child.stdout.take().expect("piped stdout");
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let log = Arc::new(Mutex::new(String::new()));
        let stderr = child.stderr.take().expect("piped stderr");
        let sink = Arc::clone(&log);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let mut log = sink.lock().unwrap();
                log.push_str(&line);
                log.push('\n');
            }
        });
        Self {
            stdin: child.stdin.take(),
            child,
            milestones,
            log,
        }
    }

    fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    /// Waits for the stdout line starting with `word` (earlier lines are passed over) and
    /// returns the rest of it.
    async fn milestone(&mut self, word: &str) -> String {
        let deadline = tokio::time::Instant::now() + STEP;
        loop {
            match tokio::time::timeout_at(deadline, self.milestones.recv()).await {
                Ok(Some(line)) => {
                    if let Some(rest) = line.strip_prefix(word) {
                        return rest.trim().to_owned();
                    }
                }
                Ok(None) => panic!(
                    "the game server ended before `{word}` ({:?}); its log:\n{}",
                    self.child.try_wait(),
                    self.log()
                ),
                Err(_) => panic!("no `{word}` within {STEP:?}; its log:\n{}", self.log()),
            }
        }
    }

    /// Lets a game server started with `-hold-activation` call ActivateGameSession.
    fn release_activation(&mut self) {
        let stdin = self.stdin.as_mut().expect("stdin still open");
        stdin
            .write_all(b"go\n")
            .expect("writing to the game server");
        stdin.flush().expect("flushing the game server's stdin");
    }

    /// Waits for the process to exit and checks it succeeded.
    async fn expect_success(&mut self) {
        let deadline = Instant::now() + STEP;
        loop {
            if let Some(status) = self.child.try_wait().expect("waiting for the game server") {
                // Every frame both ways, for `--nocapture`.
                eprintln!("the Go game server's log:\n{}", self.log());
                assert!(
                    status.success(),
                    "the game server exited with {status}; its log:\n{}",
                    self.log()
                );
                return;
            }
            assert!(
                Instant::now() < deadline,
                "the game server is still running; its log:\n{}",
                self.log()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

impl GoServer {
    /// Waits for the process to fail and returns its log.
    async fn expect_failure(&mut self) -> String {
        let deadline = Instant::now() + STEP;
        loop {
            if let Some(status) = self.child.try_wait().expect("waiting for the game server") {
                assert!(!status.success(), "the game server succeeded");
                // Its stderr may still be draining.
                tokio::time::sleep(Duration::from_millis(100)).await;
                return self.log();
            }
            assert!(
                Instant::now() < deadline,
                "the game server is still running"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

impl Drop for GoServer {
    fn drop(&mut self) {
        // A failed test must not leave the process behind.
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Sends `sessionPlacementRequest` and returns the placement id of its PENDING ack.
async fn request_placement(player: &mut Client) -> String {
    let ack = player.request("sessionPlacementRequest", json!({})).await;
    assert_eq!(ack["type"], "ack", "{ack}");
    assert_eq!(ack["status"], "PENDING", "{ack}");
    ack["placementId"]
        .as_str()
        .expect("a placementId")
        .to_owned()
}

/// The simulator's view of `field == value` in its snapshot's `list`, as JSON.
fn snapshot_entry(stack: &TestStack, list: &str, field: &str, value: &str) -> Value {
    let snapshot = serde_json::to_value(stack.stack().simulator().snapshot()).unwrap();
    snapshot[list]
        .as_array()
        .and_then(|entries| entries.iter().find(|e| e[field] == value).cloned())
        .unwrap_or_else(|| panic!("no {list} entry with {field} {value}: {snapshot}"))
}

/// Asks `rejoinSession` until it answers `session_ended` (the end reaches the backend
/// through the placement events, a moment after ProcessEnding).
async fn expect_rejoin_session_ended(player: &mut Client) {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let rejoin = player.request("rejoinSession", json!({})).await;
        if rejoin["code"] == "session_ended" {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "rejoinSession after ProcessEnding: {rejoin}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// How the game is asked for.
#[derive(Clone, Copy, Debug)]
enum Players {
    /// alice sends `sessionPlacementRequest`.
    Alice,
    /// alice and bob in one placement, as a matchmaker asks for it (the simulator's test
    /// hook): two seats, so the game server's `Limit` 1 paging walks two pages.
    AliceAndBob,
}

/// Places `players` and returns their clients and the placement id.
async fn place(stack: &TestStack, players: Players) -> (Vec<Client>, String) {
    match players {
        Players::Alice => {
            let (mut alice, _) = stack.online("alice").await;
            let placement_id = request_placement(&mut alice).await;
            (vec![alice], placement_id)
        }
        Players::AliceAndBob => {
            let (alice, _) = stack.online("alice").await;
            let (bob, _) = stack.online("bob").await;
            let placement_id = stack.place_together(&["alice", "bob"]).await;
            (vec![alice, bob], placement_id.as_str().to_owned())
        }
    }
}

/// The next `count` stdout lines starting with `word`, as a sorted list.
async fn milestones(server: &mut GoServer, word: &str, count: usize) -> Vec<String> {
    let mut found = Vec::new();
    for _ in 0..count {
        found.push(server.milestone(word).await);
    }
    found.sort();
    found
}

/// One game on the Go game server: placed, held in PENDING until it activates, accepted,
/// removed, ended; `drop` has it lose its socket after accepting and dial again.
async fn one_game(stack: &TestStack, transport: Transport, players: Players, drop: bool) {
    let endpoint = stack.stack().game_server_endpoint();
    // A new process id per run, as the GameLift agent makes one per launch.
    let process_id = GameServerEndpoint::new_process_id();
    let count = match players {
        Players::Alice => "1",
        Players::AliceAndBob => "2",
    };
    let mut args = vec!["-hold-activation", "-players", count];
    if drop {
        args.push("-drop-mid-game");
    }
    let mut server = GoServer::start(endpoint, &process_id, transport, &args);
    server.milestone("process-ready").await;
    // The endpoint knows it by its pID, with what its upgrade and ActivateServerProcess said.
    let process = snapshot_entry(stack, "processes", "processId", &process_id);
    assert_eq!(process["sdkLanguage"], "Go", "{process}");
    assert_eq!(process["sdkVersion"], "5.6.0", "{process}");
    assert_eq!(process["port"], GAME_PORT, "{process}");
    assert_eq!(process["computeId"], endpoint.host_id.as_str(), "{process}");

    let (mut clients, placement_id) = place(stack, players).await;
    let arn = server.milestone("game-session").await;

    // The game session is ACTIVATING: GameLift keeps the placement PENDING until the game
    // server activates it (API_GameSessionPlacement).
    for client in &mut clients {
        client.expect_no_frame(Duration::from_millis(500)).await;
    }
    let placement = snapshot_entry(stack, "placements", "placementId", &placement_id);
    assert_eq!(placement["status"], "PENDING", "{placement}");

    server.release_activation();
    assert_eq!(server.milestone("game-session-active").await, arn);
    let mut seats = Vec::new();
    for client in &mut clients {
        let frame = match client.receive(STEP).await {
            Received::Text(text) => serde_json::from_str::<Value>(&text).unwrap(),
            other => panic!("expected the placement frame, got {other:?}"),
        };
        assert_eq!(frame["type"], "placement", "{frame}");
        assert_eq!(frame["status"], "FULFILLED", "{frame}");
        let seat = &frame["gameSession"];
        assert_eq!(seat["gameSessionArn"], arn.as_str(), "{frame}");
        assert_eq!(seat["port"], GAME_PORT, "{frame}");
        seats.push(
            seat["playerSessionId"]
                .as_str()
                .expect("a playerSessionId")
                .to_owned(),
        );
    }
    seats.sort();

    assert_eq!(
        milestones(&mut server, "accepted", seats.len()).await,
        seats
    );
    if drop {
        server.milestone("reconnected").await;
        // Still one process for that pID, on its new socket, and its game still running.
        let snapshot = serde_json::to_value(stack.stack().simulator().snapshot()).unwrap();
        let processes: Vec<&Value> = snapshot["processes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| p["processId"] == process_id.as_str())
            .collect();
        assert_eq!(processes.len(), 1, "{snapshot}");
        assert_eq!(processes[0]["connected"], true, "{snapshot}");
        let game = snapshot_entry(stack, "gameSessions", "gameSessionArn", &arn);
        assert_eq!(game["status"], "ACTIVE", "{game}");
    }
    server.milestone("re-accept-refused").await;
    assert_eq!(server.milestone("paged").await, seats.len().to_string());
    assert_eq!(milestones(&mut server, "removed", seats.len()).await, seats);
    server.milestone("fleet-role-refused").await;
    server.milestone("process-ending").await;
    server.milestone("done").await;
    server.expect_success().await;

    let game = snapshot_entry(stack, "gameSessions", "gameSessionArn", &arn);
    assert_eq!(game["status"], "TERMINATED", "{game}");
    for client in &mut clients {
        expect_rejoin_session_ended(client).await;
    }
}

/// Builds the Go game server, starts a stack of real processes only, and runs `one_game`.
async fn run(transport: Transport, players: Players, drop: bool) {
    go_binary();
    let stack = TestStack::start_with(real_processes_only).await;
    one_game(&stack, transport, players, drop).await;
    stack.shutdown().await;
}

#[tokio::test]
async fn given_the_go_game_server_over_ws_when_a_player_is_placed_then_it_activates_accepts_removes_and_ends_the_game()
 {
    run(Transport::Ws, Players::Alice, false).await;
}

#[tokio::test]
async fn given_the_go_game_server_over_wss_with_the_stack_certificate_when_a_player_is_placed_then_the_game_runs_to_its_end()
 {
    run(Transport::Wss, Players::Alice, false).await;
}

#[tokio::test]
async fn given_the_go_game_server_drops_its_socket_mid_game_when_it_dials_the_same_url_then_the_endpoint_keeps_its_game()
 {
    run(Transport::Ws, Players::Alice, true).await;
}

#[tokio::test]
async fn given_two_players_placed_together_on_the_go_game_server_when_it_pages_with_limit_one_then_it_sees_both_seats()
 {
    run(Transport::Ws, Players::AliceAndBob, false).await;
}

#[tokio::test]
async fn given_wss_without_the_stack_certificate_trusted_when_the_go_game_server_dials_then_go_refuses_the_certificate()
 {
    go_binary();
    let stack = TestStack::start_with(real_processes_only).await;
    let endpoint = stack.stack().game_server_endpoint();
    let process_id = GameServerEndpoint::new_process_id();
    let mut server = GoServer::start(endpoint, &process_id, Transport::WssUntrusted, &[]);
    let log = server.expect_failure().await;
    // The wss test above passes through Go's own certificate check, not around it.
    assert!(
        log.contains("certificate signed by unknown authority"),
        "{log}"
    );
    stack.shutdown().await;
}
