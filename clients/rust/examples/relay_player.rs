//! A player of the relay example game server (`game-server/relay-example`): connects to
//! GameLift Sockets, asks for a placement, waits for the pushed `placement` FULFILLED,
//! opens TCP to its seat's `ipAddress`:`port`, sends its `playerSessionId` line, then
//! relays stdin to the game and the game to stdout until either side ends.
//!
//! ```text
//! cargo run -p gamelift-sockets-client --example relay_player -- alice
//! cargo run -p gamelift-sockets-client --example relay_player -- bob ws://127.0.0.1:3001/Development
//! ```
//!
//! The first argument is the player id (`PLAYER_ID`, default `alice`), sent as
//! `?playerId=` as the local stack accepts it; the second the WebSocket URL
//! (`GAMELIFT_SOCKETS_URL`, default `ws://127.0.0.1:3001/Development`). Status goes to
//! stderr; stdout has only the game's lines (`OK`, the others' lines, `GAME OVER …`).

use std::process::ExitCode;

use gamelift_sockets_client::protocol::ServerFrame;
use gamelift_sockets_client::protocol::domain::{GameSession, PlacementStatus};
use gamelift_sockets_client::{Auth, Client, Config, Event};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

#[tokio::main]
async fn main() -> ExitCode {
    match play().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("relay_player: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn play() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let player = args
        .next()
        .or_else(|| std::env::var("PLAYER_ID").ok())
        .unwrap_or_else(|| "alice".to_owned());
    let url = args
        .next()
        .or_else(|| std::env::var("GAMELIFT_SOCKETS_URL").ok())
        .unwrap_or_else(|| "ws://127.0.0.1:3001/Development".to_owned());

    let (client, mut events) = Client::connect(Config::new(&url, Auth::player_id(&player)))
        .await
        .map_err(|e| format!("connect to {url}: {e}"))?;
    eprintln!("connected to {url} as {player}; asking for a placement");
    client
        .request_placement(Default::default())
        .await
        .map_err(|e| format!("sessionPlacementRequest: {e}"))?;
    let seat = seat(&mut events).await?;
    client.close();

    let address = if seat.ip_address.is_empty() {
        &seat.dns_name
    } else {
        &seat.ip_address
    };
    eprintln!(
        "seated: {address}:{} as {}",
        seat.port, seat.player_session_id
    );
    let stream = TcpStream::connect((address.as_str(), seat.port))
        .await
        .map_err(|e| format!("connect to the game server {address}:{}: {e}", seat.port))?;
    relay(stream, &seat.player_session_id).await
}

/// Waits for this player's placement result.
async fn seat(events: &mut gamelift_sockets_client::Events) -> Result<GameSession, String> {
    while let Some(event) = events.next().await {
        match event {
            Event::Push {
                frame:
                    ServerFrame::Placement {
                        status,
                        game_session,
                        ..
                    },
                ..
            } => {
                return match (status, game_session) {
                    (PlacementStatus::Fulfilled, Some(seat)) => Ok(seat),
                    (status, _) => Err(format!("placement {}", status.as_str())),
                };
            }
            Event::Closed(reason) => return Err(format!("the client stopped: {reason:?}")),
            _ => {}
        }
    }
    Err("the client stopped before the placement ended".to_owned())
}

/// The first line is the player session id; then stdin → game and game → stdout.
async fn relay(stream: TcpStream, player_session_id: &str) -> Result<(), String> {
    let (read, mut write) = stream.into_split();
    write
        .write_all(format!("{player_session_id}\n").as_bytes())
        .await
        .map_err(|e| e.to_string())?;
    let mut game = BufReader::new(read).lines();
    let mut stdin = BufReader::new(tokio::io::stdin()).lines();
    let mut stdin_open = true;
    loop {
        tokio::select! {
            line = game.next_line() => match line {
                Ok(Some(line)) => {
                    println!("{line}");
                    if line.starts_with("REFUSED") {
                        return Err(line);
                    }
                }
                // The game server hung up: the game is over.
                Ok(None) => return Ok(()),
                Err(e) => return Err(format!("the game connection failed: {e}")),
            },
            line = stdin.next_line(), if stdin_open => match line {
                Ok(Some(line)) => {
                    if write.write_all(format!("{line}\n").as_bytes()).await.is_err() {
                        return Ok(());
                    }
                }
                // End of input: leave the game (the server removes the player session).
                _ => {
                    stdin_open = false;
                    let _ = write.shutdown().await;
                }
            },
        }
    }
}
