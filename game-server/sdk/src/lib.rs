//! A server SDK 5 for Amazon GameLift Servers, in async Rust (tokio).
//!
//! The official SDKs (Go, C++, C#) are the definition of the protocol; this crate speaks
//! it as they do, through the frames of `gamelift-server-protocol`: InitSDK opens the
//! WebSocket, [`GameLiftServer::process_ready`] activates the process and starts the
//! heartbeats, the service's pushes call the [`ProcessParameters`] callbacks, and every
//! server call returns a typed [`GameLiftError`]. `README.md` beside this crate says how to
//! run a game server on it against the local stack and on an Anywhere fleet.
//!
//! ```no_run
//! use gamelift_server_sdk::{GameLiftServer, ProcessParameters, ServerParameters};
//! # async fn run() -> Result<(), gamelift_server_sdk::GameLiftError> {
//! let server = GameLiftServer::init_sdk(ServerParameters::from_environment()).await?;
//! let activate = server.clone();
//! server
//!     .process_ready(ProcessParameters::new(7777).on_start_game_session(move |_session| {
//!         let server = activate.clone();
//!         async move {
//!             let _ = server.activate_game_session().await;
//!         }
//!     }))
//!     .await?;
//! // … accept players with server.accept_player_session(id), and at the end:
//! server.process_ending().await?;
//! server.destroy().await
//! # }
//! ```

mod calls;
mod config;
mod connection;
mod error;
mod heartbeat;
mod process;
mod server;
mod sigv4;
#[cfg(feature = "fake-service")]
pub mod testing;
mod tls;

pub use config::{Backoff, ServerParameters, Timing, env};
pub use error::{GameLiftError, Result};
pub use gamelift_server_protocol as protocol;
pub use gamelift_server_protocol::model::{
    GameSession, Player, PlayerSession, PlayerSessionCreationPolicy, PlayerSessionStatus,
};
pub use gamelift_server_protocol::{
    DescribePlayerSessions, DescribePlayerSessionsResult, ErrorKind, GetComputeCertificateResult,
    GetFleetRoleCredentials, GetFleetRoleCredentialsResult, StartMatchBackfill,
    StartMatchBackfillResult, StopMatchBackfill, UpdateGameSession,
};
pub use process::{BoxFuture, ProcessParameters};
pub use server::GameLiftServer;

/// The SDK 5 protocol version sent as `sdkVersion`: the Go SDK's (5.6.0), whose behaviour
/// this crate follows, since the service may use it to decide what the process speaks.
pub const SDK_VERSION: &str = "5.6.0";
/// Sent as `sdkLanguage`.
pub const SDK_LANGUAGE: &str = "Rust";
