//! The stack once serving: where it listens, what it runs on, and its shutdown.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use shared::ports::PlayerReader;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::gamelift::Simulator;
use crate::gamelift_sdk::{GameServerEndpoint, GameServers, RunningEndpoint};
use crate::gateway::Tracker;
use crate::gateway::registry::ConnectionRegistry;
use crate::routes::Dependencies;
use crate::stream::{RunningStream, StreamStatsSnapshot};

/// How long shutdown waits for connections to close and `$disconnect`s to run.
const SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(10);

/// A serving stack.
pub struct RunningStack {
    pub(super) addr: SocketAddr,
    pub(super) backend_api_addr: SocketAddr,
    pub(super) backend_api_server: JoinHandle<()>,
    pub(super) stage: String,
    pub(super) storage: String,
    pub(super) registry: Arc<ConnectionRegistry>,
    pub(super) dependencies: Dependencies,
    pub(super) shutdown: watch::Sender<bool>,
    pub(super) tracker: Tracker,
    pub(super) server: JoinHandle<()>,
    pub(super) stream: RunningStream,
    pub(super) simulator: Arc<Simulator>,
    pub(super) simulator_task: JoinHandle<()>,
    pub(super) flexmatch_task: Option<JoinHandle<()>>,
    pub(super) game_servers: RunningEndpoint,
}

impl RunningStack {
    /// `ws://127.0.0.1:{port}/{stage}`
    pub fn url(&self) -> String {
        format!("ws://{}/{}", self.addr, self.stage)
    }

    /// `http://127.0.0.1:{port}/console`: the console.
    pub fn console_url(&self) -> String {
        format!("http://{}{}", self.addr, crate::console::PATH)
    }

    /// `http://127.0.0.1:{port}/{stage}`: the `@connections` API's base URL.
    pub fn management_endpoint(&self) -> String {
        format!("http://{}/{}", self.addr, self.stage)
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:{port}`: the backend API's base URL (its paths start `/v1/`).
    pub fn backend_api_url(&self) -> String {
        format!("http://{}", self.backend_api_addr)
    }

    pub fn stage(&self) -> &str {
        &self.stage
    }

    /// "in memory" or "DynamoDB at {endpoint}".
    pub fn storage(&self) -> &str {
        &self.storage
    }

    /// The open connections.
    pub fn connections(&self) -> &Arc<ConnectionRegistry> {
        &self.registry
    }

    /// The player store the handlers use.
    pub fn players(&self) -> Arc<dyn PlayerReader> {
        self.dependencies.stores.player_reader()
    }

    /// The ports the handlers were built with.
    pub fn dependencies(&self) -> &Dependencies {
        &self.dependencies
    }

    /// The GameLift simulator (its fleet, sessions and test hooks).
    pub fn simulator(&self) -> &Arc<Simulator> {
        &self.simulator
    }

    /// Where a game server connects (server SDK 5): the ws:// and wss:// URLs, the
    /// certificate to trust, the fleet id, a host id and an auth token the endpoint
    /// accepts. [`GameServerEndpoint::env`] gives the `GAMELIFT_SDK_*` variables; the
    /// processes that joined are in `simulator().snapshot().processes`.
    pub fn game_server_endpoint(&self) -> &GameServerEndpoint {
        self.game_servers.servers.endpoint()
    }

    /// The endpoint's controls: more auth tokens, TerminateProcess and
    /// RefreshConnection to a process (what the console's actions do).
    pub fn game_servers(&self) -> &Arc<GameServers> {
        &self.game_servers.servers
    }

    /// The Messages stream's mode and knobs: "in-memory feeder; …" or "DynamoDB
    /// Streams of table …; …".
    pub fn stream(&self) -> &str {
        self.stream.description()
    }

    /// The stream consumer's counters (records received, completed, invocations, …).
    pub fn stream_stats(&self) -> StreamStatsSnapshot {
        self.stream.stats()
    }

    /// Stops accepting, closes every socket with 1001, waits for their `$disconnect`s,
    /// and stops the server.
    pub async fn shutdown(self) {
        let _ = self.shutdown.send(true);
        if tokio::time::timeout(SHUTDOWN_TIMEOUT, self.tracker.idle())
            .await
            .is_err()
        {
            tracing::warn!("connections still open after {SHUTDOWN_TIMEOUT:?}; stopping anyway");
        }
        let abort = self.server.abort_handle();
        if tokio::time::timeout(SHUTDOWN_TIMEOUT, self.server)
            .await
            .is_err()
        {
            abort.abort();
        }
        let abort = self.backend_api_server.abort_handle();
        if tokio::time::timeout(SHUTDOWN_TIMEOUT, self.backend_api_server)
            .await
            .is_err()
        {
            abort.abort();
        }
        // GameLift goes quiet: no more placement events, no game server sockets.
        self.game_servers.stop();
        self.simulator_task.abort();
        if let Some(flexmatch) = self.flexmatch_task {
            flexmatch.abort();
        }
        // A batch in flight finishes; records not yet handed over stay in the table.
        self.stream.stop(SHUTDOWN_TIMEOUT).await;
        tracing::info!("local stack stopped");
    }
}
