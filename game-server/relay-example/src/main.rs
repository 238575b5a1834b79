//! `relay-server`: the relay game server (see the library's docs). Logs go to stderr
//! (`RUST_LOG`, default info); stdout has the library's announcements, one a line:
//! `listening on HOST:PORT` once the process is ready, `game-session ARN` (and `team NAME
//! PLAYER…` for a FlexMatch game) as each game starts. Exits 0 when the game is over and
//! ProcessEnding succeeded.

use std::io::IsTerminal;
use std::process::ExitCode;

use gamelift_server_sdk::GameLiftServer;
use relay_game_server::{Settings, serve};
use tokio::net::TcpListener;

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .init();
    match run().await {
        Ok(reason) => {
            tracing::info!(%reason, "game over; ProcessEnding done");
            ExitCode::SUCCESS
        }
        Err(error) => {
            tracing::error!("{error}");
            ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<String, String> {
    let settings = Settings::parse(std::env::args().skip(1), |name| std::env::var(name).ok())?;
    let listener = TcpListener::bind((settings.bind.as_str(), settings.port))
        .await
        .map_err(|e| format!("cannot listen on {}:{}: {e}", settings.bind, settings.port))?;
    let server = GameLiftServer::init_sdk_from_environment()
        .await
        .map_err(|e| format!("InitSDK: {e}"))?;
    let ended = serve(listener, server, |announcement| println!("{announcement}"))
        .await
        .map_err(|e| e.to_string())?;
    Ok(ended)
}
