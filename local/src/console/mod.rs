//! The console (README: "The console"): one page at `http://127.0.0.1:{port}/console`,
//! served by the local stack itself, that shows what the backend sees, live, and acts on
//! it. Everything it needs is embedded in the binary ([`assets`]); nothing is fetched
//! from elsewhere.
//!
//! - [`feed`]: the taps' end ([`Hub`]): recent frames and events, broadcast to open pages;
//! - [`taps`]: the small hooks on the stream consumer, the SNS topic and the bus;
//! - [`state`]: the sections (players, connections, placements, fleet, parties) as JSON;
//! - [`api`]: `GET /console/api/...` (sections, feed, the live `events` stream);
//! - [`actions`]: `POST /console/api/...` (drop a connection, fail or slow a placement,
//!   fleet faults, end a game session).
//!
//! The API is documented in docs/console.md. It exists only in the local stack (nothing
//! in template.yaml), which listens on 127.0.0.1 only; the actions also refuse requests
//! that are not JSON or that come from another origin (another site's page in the same
//! browser cannot drive them).

pub mod actions;
pub mod api;
pub mod assets;
pub mod feed;
pub mod state;
pub mod taps;

use std::sync::Arc;

use axum::Router;
use axum::routing::{get, post};
use serde_json::Value;
use shared::ports::{Clock, MessageStore, PartyStore, PlayerStore};

pub use feed::{FeedEvent, FeedKind, Hub};

use crate::gamelift::Simulator;
use crate::gateway::registry::ConnectionRegistry;

/// The path the console is served at.
pub const PATH: &str = "/console";

/// What the console reads and drives.
pub struct Console {
    pub hub: Arc<Hub>,
    pub registry: Arc<ConnectionRegistry>,
    pub players: Arc<dyn PlayerStore>,
    pub messages: Arc<dyn MessageStore>,
    pub parties: Arc<dyn PartyStore>,
    pub clock: Arc<dyn Clock>,
    pub simulator: Arc<Simulator>,
    /// The `stack` section: stage, auth mode, presence knobs, storage.
    pub info: Value,
}

/// The console's routes, under [`PATH`].
pub fn router(console: Arc<Console>) -> Router {
    Router::new()
        .route(PATH, get(assets::index))
        .route(&format!("{PATH}/"), get(assets::index))
        .route(&format!("{PATH}/assets/{{name}}"), get(assets::asset))
        .route(&format!("{PATH}/api/events"), get(api::events))
        .route(&format!("{PATH}/api/state"), get(api::everything))
        .route(&format!("{PATH}/api/feed"), get(api::feed))
        .route(&format!("{PATH}/api/{{section}}"), get(api::section))
        .route(
            &format!("{PATH}/api/connections/{{id}}/drop"),
            post(actions::drop_connection),
        )
        .route(
            &format!("{PATH}/api/connections/{{id}}/close"),
            post(actions::close_connection),
        )
        .route(
            &format!("{PATH}/api/placements/{{id}}/fail"),
            post(actions::fail_placement),
        )
        .route(
            &format!("{PATH}/api/placements/{{id}}/delay"),
            post(actions::delay_placement),
        )
        .route(
            &format!("{PATH}/api/fleet/faults"),
            post(actions::set_faults),
        )
        .route(
            &format!("{PATH}/api/game-sessions/{{id}}/terminate"),
            post(actions::terminate_game_session),
        )
        .with_state(console)
}
