//! The relay game server: a small real game on `gamelift-server-sdk`.
//!
//! - Start: InitSDK from the `GAMELIFT_SDK_*` variables, listen on TCP, ProcessReady with
//!   that port, then print `listening on HOST:PORT` on stdout (the process is ready for
//!   players from then on).
//! - `on_start_game_session`: ActivateGameSession.
//! - A player connects; its first line is its `playerSessionId`. AcceptPlayerSession:
//!   on success the server answers `OK`, else `REFUSED <reason>` and hangs up.
//! - Every line a player sends goes to the game's other players as `<playerId>: <line>`
//!   (the player id from DescribePlayerSessions, else the player session id).
//! - A player who disconnects is removed (RemovePlayerSession).
//! - The game is over when the last player leaves after at least one joined, when a
//!   player sends `/end`, or on `on_process_terminate`: every player gets
//!   `GAME OVER <reason>`, the server calls ProcessEnding (which completes the player
//!   sessions still open) and Destroy, and the process exits 0.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use gamelift_server_sdk::protocol::model::MatchmakerData;
use gamelift_server_sdk::{
    DescribePlayerSessions, GameLiftError, GameLiftServer, ProcessParameters,
};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, watch};
use tokio::task::JoinSet;

/// How long a new connection has to send its player session id.
const FIRST_LINE_TIMEOUT: Duration = Duration::from_secs(30);
/// How long the players' last lines get to go out once the game is over.
const FAREWELL_TIMEOUT: Duration = Duration::from_secs(2);

/// Where to listen: `--port N` / `RELAY_PORT` (default 7777; 0 picks a free one) and
/// `--bind ADDR` / `RELAY_BIND` (default 127.0.0.1; 0.0.0.0 on an Anywhere fleet).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    pub bind: String,
    pub port: u16,
}

impl Settings {
    /// Flags win over variables.
    pub fn parse(
        args: impl IntoIterator<Item = String>,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, String> {
        let mut bind = env("RELAY_BIND").unwrap_or_else(|| "127.0.0.1".to_owned());
        let mut port = env("RELAY_PORT");
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--port" => port = Some(args.next().ok_or("--port needs a value")?),
                "--bind" => bind = args.next().ok_or("--bind needs a value")?,
                other => {
                    return Err(format!(
                        "unknown argument {other:?} (use --port N, --bind ADDR)"
                    ));
                }
            }
        }
        let port = match port {
            Some(text) => text
                .parse()
                .map_err(|_| format!("the port must be 0..=65535, got {text:?}"))?,
            None => 7777,
        };
        Ok(Self { bind, port })
    }
}

/// Why the game ended.
pub type Reason = String;

/// The one game session this process hosts.
struct Game {
    server: GameLiftServer,
    /// Each accepted player's outgoing lines, by player session id.
    players: Mutex<HashMap<String, mpsc::UnboundedSender<String>>>,
    over: watch::Sender<Option<Reason>>,
}

impl Game {
    fn players(&self) -> MutexGuard<'_, HashMap<String, mpsc::UnboundedSender<String>>> {
        self.players
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn end(&self, reason: &str) {
        self.over.send_if_modified(|over| {
            if over.is_some() {
                return false;
            }
            tracing::info!(reason, "game over");
            *over = Some(reason.to_owned());
            true
        });
    }

    fn is_over(&self) -> bool {
        self.over.borrow().is_some()
    }

    fn broadcast(&self, from: &str, line: &str) {
        for (id, lines) in self.players().iter() {
            if id != from {
                let _ = lines.send(line.to_owned());
            }
        }
    }
}

/// What the relay tells whoever runs it; the binary prints each on stdout, so a script
/// or a test can follow the game without parsing logs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Announcement {
    /// ProcessReady succeeded: players may connect here. `listening on HOST:PORT`.
    Listening(SocketAddr),
    /// A game session started (before ActivateGameSession): `game-session ARN`, then
    /// `team NAME PLAYER…` for each team FlexMatch put in its matchmaker data.
    GameSession {
        id: String,
        teams: Vec<(String, Vec<String>)>,
    },
}

impl std::fmt::Display for Announcement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Listening(address) => write!(f, "listening on {address}"),
            Self::GameSession { id, teams } => {
                write!(f, "game-session {id}")?;
                for (team, players) in teams {
                    write!(f, "\nteam {team} {}", players.join(" "))?;
                }
                Ok(())
            }
        }
    }
}

/// The teams of a game session's matchmaker data (none for a game not made by FlexMatch,
/// or data that does not read, which is logged).
fn teams(matchmaker_data: &str) -> Vec<(String, Vec<String>)> {
    match MatchmakerData::parse(matchmaker_data) {
        Ok(data) => data
            .into_iter()
            .flat_map(|data| data.teams)
            .map(|team| {
                let players = team.players.into_iter().map(|p| p.player_id).collect();
                (team.name, players)
            })
            .collect(),
        Err(error) => {
            tracing::warn!(%error, "MatchmakerData does not read");
            Vec::new()
        }
    }
}

/// Runs the game on `listener` with an initialised SDK: ProcessReady, players until the
/// game is over, then ProcessEnding and Destroy. `announce` is told the address once
/// ProcessReady succeeded, and each game session as it starts. Returns why the game ended.
pub async fn serve(
    listener: TcpListener,
    server: GameLiftServer,
    announce: impl Fn(Announcement) + Send + Sync + 'static,
) -> Result<Reason, GameLiftError> {
    let announce = Arc::new(announce);
    let address = listener
        .local_addr()
        .map_err(|e| GameLiftError::Validation(format!("the listener has no address: {e}")))?;
    let (over, mut game_over) = watch::channel(None);
    let game = Arc::new(Game {
        server: server.clone(),
        players: Mutex::new(HashMap::new()),
        over,
    });
    let activate = server.clone();
    let terminate = game.clone();
    let started = announce.clone();
    let parameters = ProcessParameters::new(address.port())
        .on_start_game_session(move |session| {
            let server = activate.clone();
            started(Announcement::GameSession {
                id: session.game_session_id.clone(),
                teams: teams(&session.matchmaker_data),
            });
            async move {
                tracing::info!(game_session_id = %session.game_session_id, "game session started");
                if let Err(error) = server.activate_game_session().await {
                    tracing::error!(%error, "ActivateGameSession failed");
                }
            }
        })
        .on_process_terminate(move || {
            let game = terminate.clone();
            async move { game.end("the service is terminating the process") }
        })
        .on_health_check(|| async { true });
    server.process_ready(parameters).await?;
    announce(Announcement::Listening(address));

    let mut players = JoinSet::new();
    let reason = loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => {
                    tracing::info!(%peer, "player connected");
                    players.spawn(play(game.clone(), stream));
                }
                Err(error) => tracing::warn!(%error, "accept failed"),
            },
            over = game_over.wait_for(Option::is_some) => {
                break over.ok().and_then(|reason| reason.clone()).unwrap_or_default();
            }
        }
    };
    for lines in game.players().values() {
        let _ = lines.send(format!("GAME OVER {reason}"));
    }
    game.players().clear(); // Closing the senders ends each player's writer.
    let _ = tokio::time::timeout(FAREWELL_TIMEOUT, async {
        while players.join_next().await.is_some() {}
    })
    .await;
    server.process_ending().await?;
    server.destroy().await?;
    Ok(reason)
}

/// One player's connection, from its first line to its leaving.
async fn play(game: Arc<Game>, stream: TcpStream) {
    let (read, mut write) = stream.into_split();
    let mut lines = BufReader::new(read).lines();
    let Ok(Ok(Some(first))) = tokio::time::timeout(FIRST_LINE_TIMEOUT, lines.next_line()).await
    else {
        return;
    };
    let id = first.trim().to_owned();
    if let Err(reason) = admit(&game, &id).await {
        tracing::info!(player_session_id = %id, %reason, "player refused");
        let _ = write
            .write_all(format!("REFUSED {reason}\n").as_bytes())
            .await;
        return;
    }
    let name = player_name(&game.server, &id).await;
    let (tx, mut outbox) = mpsc::unbounded_channel::<String>();
    let _ = tx.send("OK".to_owned());
    game.players().insert(id.clone(), tx);
    tracing::info!(player_session_id = %id, player_id = %name, "player accepted");
    let writer = tokio::spawn(async move {
        while let Some(line) = outbox.recv().await {
            if write
                .write_all(format!("{line}\n").as_bytes())
                .await
                .is_err()
            {
                break;
            }
        }
    });
    let mut over = game.over.subscribe();
    loop {
        tokio::select! {
            line = lines.next_line() => match line {
                Ok(Some(line)) if line.trim() == "/end" => game.end(&format!("{name} ended the game")),
                Ok(Some(line)) => game.broadcast(&id, &format!("{name}: {line}")),
                _ => break,
            },
            _ = over.wait_for(Option::is_some) => break,
        }
    }
    leave(&game, &id).await;
    let _ = writer.await;
}

/// AcceptPlayerSession, refusing a player session already connected here.
async fn admit(game: &Game, id: &str) -> Result<(), String> {
    if game.is_over() {
        return Err("the game is over".to_owned());
    }
    if game.players().contains_key(id) {
        return Err("this player session is already connected".to_owned());
    }
    game.server
        .accept_player_session(id)
        .await
        .map_err(|e| e.to_string())
}

/// The player's id, from DescribePlayerSessions; the player session id if that fails.
async fn player_name(server: &GameLiftServer, player_session_id: &str) -> String {
    let request = DescribePlayerSessions {
        player_session_id: Some(player_session_id.to_owned()),
        ..DescribePlayerSessions::default()
    };
    match server.describe_player_sessions(request).await {
        Ok(result) => result
            .player_sessions
            .into_iter()
            .map(|session| session.player_id)
            .find(|player_id| !player_id.is_empty())
            .unwrap_or_else(|| player_session_id.to_owned()),
        Err(error) => {
            tracing::warn!(%error, "DescribePlayerSessions failed; naming the player by its session");
            player_session_id.to_owned()
        }
    }
}

/// RemovePlayerSession while the game goes on (ProcessEnding completes the rest); the
/// last player out ends the game.
async fn leave(game: &Game, id: &str) {
    if game.is_over() {
        return; // `serve` says goodbye to the players still here and closes them.
    }
    let (removed, empty) = {
        let mut players = game.players();
        (players.remove(id).is_some(), players.is_empty())
    };
    if !removed {
        return;
    }
    tracing::info!(player_session_id = %id, "player left");
    if let Err(error) = game.server.remove_player_session(id).await {
        tracing::warn!(%error, "RemovePlayerSession failed");
    }
    if empty {
        game.end("the last player left");
    }
}
