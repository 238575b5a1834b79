//! GameLift server SDK 5's WebSocket protocol: the one model of its wire format.
//!
//! AWS does not document this protocol; the official server SDKs define it
//! (`amazon-gamelift/amazon-gamelift-servers-go-server-sdk`, `…-cpp-server-sdk`,
//! `…-csharp-server-sdk` on GitHub). Every key and rule here follows them, with the
//! source file named where it is declared. `docs/game-server.md` tells the story.
//!
//! - [`ConnectQuery`]: the upgrade's query string (who the process is).
//! - [`RequestFrame`] / [`Request`]: what a game server sends (`Action` + `RequestId`).
//! - [`ResponseFrame`]: the service's answer, `StatusCode` 200 or an error with
//!   `ErrorMessage`; [`ErrorKind`] is how the SDKs read a status code.
//! - [`Push`]: what the service sends unasked (no `RequestId`).
//! - [`model`]: the records the frames carry (player sessions, players, matchmaker data).
//!
//! The game server side is `gamelift-server-sdk`; the service side is the local stack's
//! `local::gamelift_sdk` endpoint. Both encode and decode only through these types.

mod frames;
pub mod model;
mod query;
mod status;

pub use frames::{
    AcceptPlayerSession, ActivateGameSession, ActivateServerProcess, CreateGameSession,
    DescribePlayerSessions, DescribePlayerSessionsResult, Empty, FrameError, FrameProblem,
    GetComputeCertificateResult, GetFleetRoleCredentials, GetFleetRoleCredentialsResult,
    HeartbeatServerProcess, Inbound, Push, RefreshConnection, RemovePlayerSession, Request,
    RequestFrame, ResponseFrame, StartMatchBackfill, StartMatchBackfillResult, StopMatchBackfill,
    TerminateProcess, UpdateGameSession, UpdatePlayerSessionCreationPolicy,
};
pub use query::{ConnectQuery, QueryError};
pub use status::{ErrorKind, STATUS_OK};
