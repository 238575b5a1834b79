//! The console (README: "The console"): one page at `http://127.0.0.1:{port}/console`,
//! served by the local stack itself, that shows what the backend sees, live, and acts on
//! it. Everything it needs is embedded in the binary ([`assets`]); nothing is fetched
//! from elsewhere.
//!
//! - [`feed`]: the taps' end ([`Hub`]): recent frames and events, broadcast to open pages;
//! - [`taps`]: the small hooks on the stream consumer, the SNS topic, the FlexMatch
//!   simulator's EventBridge rule and the bus;
//! - [`state`]: the sections (players, connections, placements, fleet, parties,
//!   matchmaking tickets: [`tickets`], metrics: [`metrics`]) as JSON;
//! - [`api`]: `GET /console/api/...` (sections, feed, the live `events` stream);
//! - [`actions`]: `POST /console/api/...` (drop a connection, fail or slow a placement,
//!   fleet faults, end a game session; [`processes`]: the real game server processes,
//!   TerminateProcess and RefreshConnection to one).
//!
//! The API is documented in docs/console.md. It exists only in the local stack (nothing
//! in template.yaml), which listens on 127.0.0.1 only; the actions also refuse requests
//! that are not JSON or that come from another origin (another site's page in the same
//! browser cannot drive them).

pub mod actions;
pub mod api;
pub mod assets;
pub mod feed;
pub mod metrics;
pub mod processes;
pub mod state;
pub mod taps;
pub mod tickets;

use std::sync::Arc;

use axum::Router;
use axum::routing::{get, post};
use serde_json::{Value, json};
use shared::ports::{Clock, FriendReader, InboxReader, PartyReader, PlayerLookup};
use tokio::sync::watch;

pub use feed::{FeedEvent, FeedKind, Hub};

use crate::gamelift::Simulator;
use crate::gamelift_sdk::GameServers;
use crate::gateway::registry::ConnectionRegistry;
use crate::routes::Dependencies;
use crate::settings::Settings;

/// The path the console is served at.
pub const PATH: &str = "/console";

/// What the console reads and drives.
pub struct Console {
    pub hub: Arc<Hub>,
    pub registry: Arc<ConnectionRegistry>,
    pub players: Arc<dyn PlayerLookup>,
    pub messages: Arc<dyn InboxReader>,
    pub parties: Arc<dyn PartyReader>,
    pub relations: Arc<dyn FriendReader>,
    pub clock: Arc<dyn Clock>,
    pub simulator: Arc<Simulator>,
    /// The server SDK 5 endpoint (TerminateProcess, RefreshConnection).
    pub game_servers: Arc<GameServers>,
    /// The `stack` section: stage, auth mode, presence knobs, storage.
    pub info: Value,
    /// Turns true when the stack shuts down: open live streams end (or the server would
    /// wait for them).
    pub shutdown: watch::Receiver<bool>,
}

impl Console {
    /// The console of a stack about to serve: what it reads, the `stack` section (see
    /// [`Console::describe`]) and the stack's shutdown signal.
    pub fn new(
        hub: Arc<Hub>,
        registry: Arc<ConnectionRegistry>,
        dependencies: &Dependencies,
        simulator: Arc<Simulator>,
        game_servers: Arc<GameServers>,
        info: Value,
        shutdown: watch::Receiver<bool>,
    ) -> Arc<Self> {
        Arc::new(Self {
            hub,
            registry,
            players: dependencies.stores.player_lookup(),
            messages: dependencies.stores.inbox_reader(),
            parties: dependencies.stores.party_reader(),
            relations: dependencies.stores.friend_reader(),
            clock: dependencies.clock.clone(),
            simulator,
            game_servers,
            info,
            shutdown,
        })
    }

    /// The `stack` section: stage, WebSocket path, auth mode, storage, stream, presence
    /// knobs.
    pub fn describe(settings: &Settings, storage: &str, stream: &str) -> Value {
        let stage = &settings.stage;
        json!({
            "stage": stage,
            "webSocketPath": format!("/{stage}"),
            "authMode": settings.auth.auth_mode.as_str(),
            "storage": storage,
            "stream": stream,
            "reconnectGraceSeconds": settings.presence.reconnect_grace_seconds,
            "heartbeatTimeoutSeconds": settings.presence.heartbeat_timeout_seconds,
            "sweepIntervalSeconds": settings.presence.sweep_interval_seconds,
        })
    }
}

/// `app` with the console's routes added under [`PATH`], unless the stage is named
/// `console` (its WebSocket API is at that path: then there is no console, and the log
/// says so).
pub fn mount(app: Router, console: Arc<Console>, stage: &str) -> Router {
    if PATH.trim_start_matches('/') == stage {
        tracing::warn!("no console: the stage is named {stage:?}, the console's own path");
        return app;
    }
    app.merge(router(console))
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
        .route(
            &format!("{PATH}/api/game-server-env"),
            get(processes::game_server_env),
        )
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
        .route(
            &format!("{PATH}/api/processes/{{id}}/terminate"),
            post(processes::terminate_process),
        )
        .route(
            &format!("{PATH}/api/processes/{{id}}/refresh-connection"),
            post(processes::refresh_connection),
        )
        .with_state(console)
}
