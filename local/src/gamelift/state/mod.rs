//! The simulated fleet, queue and sessions: a discrete-event model driven by tokio time.
//!
//! Every change happens at a known instant (a server finishing start-up, a placement
//! becoming ready, a game ending, a reservation or a queue timing out). `advance(now)`
//! applies every change due by `now`, earliest first, each at its own instant (so a
//! late wake-up never reorders them), and returns when the next one is due.
//!
//! - [`model`]: what the simulator holds (servers, placements, game and player sessions);
//! - [`lifecycle`]: the changes that happen by themselves as time passes (servers
//!   starting up and shutting down, placements fulfilled or timing out, games ending);
//! - [`requests`]: the API calls (start or stop a placement, create, accept or remove a
//!   player session, end a game), each checked as GameLift checks it;
//! - [`connections`]: GetPlayerConnectionDetails, as the fleet's PlayerGatewayMode
//!   answers it;
//! - [`processes`]: real processes (game servers on the server SDK 5 WebSocket) and
//!   their game sessions' activation; [`player_calls`]: their player session calls;
//! - [`backfill`]: the game session a match backfill fills, and UpdateGameSession;
//! - [`faults`]: runtime knobs that make the fleet misbehave (fail placements, slow one);
//! - [`snapshot`]: read-only views of it all, for tests and diagnostics.

mod backfill;
mod connections;
mod faults;
mod lifecycle;
mod model;
mod player_calls;
mod processes;
mod requests;
mod snapshot;

pub use connections::RELAY_IPS;
pub(crate) use model::State;
pub use model::{
    DesiredPlayer, Faults, GameSessionStatus, GroupPlacementRequest, PlacementStatus,
    PlayerSessionStatus, ServerState, Socket,
};
pub use processes::{ProcessError, ProcessRegistration};
pub use snapshot::{
    GameSessionView, PlacementView, PlayerConnectionView, PlayerSessionView, ProcessView,
    ServerView, Snapshot,
};
