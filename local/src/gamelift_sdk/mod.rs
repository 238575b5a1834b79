//! The service side of GameLift's server SDK 5 WebSocket: a real, unchanged game server
//! (Go, C#/Unity, C++/Unreal, or this repository's Rust SDK) runs against the local
//! stack as it would on an Anywhere fleet.
//!
//! - Plain `ws://` on `GAMELIFT_SDK_PORT` (default PORT + 2) and `wss://` on
//!   `GAMELIFT_SDK_TLS_PORT` (PORT + 3) with a self-signed certificate made at start-up
//!   ([`tls`]; its PEM file's path is in the banner and in [`GameServerEndpoint`]).
//! - Upgrades on any path (RefreshConnection may name a new one); refused with a 4xx
//!   whose body names what is expected when the query has no `pID`, a `FleetId` other
//!   than the simulator's, or an `Authorization` that is neither a token this stack
//!   issued nor `SigV4` (whose signature is not checked: no AWS credentials exist
//!   locally) (`upgrade.rs`).
//! - Every frame is read and written with `gamelift-server-protocol`'s types
//!   (`socket.rs`, `actions.rs`); each action becomes a call on the GameLift simulator,
//!   which keeps the process by its `pID` (a new socket for the same pID takes over,
//!   without a new ActivateServerProcess) and sends it pushes.
//! - Every frame in and out, refusals included, is in the console's feed (`gameServer`).

mod actions;
mod socket;
pub mod tls;
mod upgrade;

#[cfg(test)]
mod tests;

use std::collections::{HashMap, HashSet};
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use gamelift_server_protocol::{Push, RefreshConnection};
use serde::Serialize;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::console::Hub;
use crate::gamelift::{ProcessError, Simulator};
use crate::start_error::StartError;

/// What a game server needs to reach the endpoint: the values of the `GAMELIFT_SDK_*`
/// variables the SDKs read (and the certificate to trust for wss://).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GameServerEndpoint {
    /// `ws://{bind}:{GAMELIFT_SDK_PORT}`: `GAMELIFT_SDK_WEBSOCKET_URL`.
    pub ws_url: String,
    /// `wss://{bind}:{GAMELIFT_SDK_TLS_PORT}` (C++ and Unreal need it).
    pub wss_url: String,
    /// The self-signed certificate's PEM (trust it: `SSL_CERT_FILE` for Go).
    pub certificate_path: PathBuf,
    /// `GAMELIFT_SDK_FLEET_ID`: the simulator's fleet id (`SIM_FLEET_ID`).
    pub fleet_id: String,
    /// `GAMELIFT_SDK_HOST_ID`: a compute name (any value passing the SDK's check works).
    pub host_id: String,
    /// `GAMELIFT_SDK_AUTH_TOKEN`: a token the endpoint accepts.
    pub auth_token: String,
}

impl GameServerEndpoint {
    /// The variables to export for a game server with process id `process_id`, over
    /// ws:// (`tls`: wss://).
    pub fn env(&self, process_id: &str, tls: bool) -> Vec<(&'static str, String)> {
        vec![
            (
                "GAMELIFT_SDK_WEBSOCKET_URL",
                if tls { &self.wss_url } else { &self.ws_url }.clone(),
            ),
            ("GAMELIFT_SDK_FLEET_ID", self.fleet_id.clone()),
            ("GAMELIFT_SDK_HOST_ID", self.host_id.clone()),
            ("GAMELIFT_SDK_PROCESS_ID", process_id.to_owned()),
            ("GAMELIFT_SDK_AUTH_TOKEN", self.auth_token.clone()),
        ]
    }

    /// A fresh process id, as the GameLift agent makes one (a UUID).
    pub fn new_process_id() -> String {
        uuid::Uuid::new_v4().to_string()
    }
}

/// The compute name the banner suggests (GameLift's `HostID` check:
/// `^[a-zA-Z0-9-]+(/[a-zA-Z0-9-]+)?$`).
pub const DEFAULT_HOST_ID: &str = "local-compute";

/// The endpoint's shared state: the simulator it drives, the tokens it accepts, where
/// it listens.
pub struct GameServers {
    pub(crate) simulator: Arc<Simulator>,
    pub(crate) hub: Arc<Hub>,
    pub(crate) endpoint: GameServerEndpoint,
    tokens: Mutex<HashSet<String>>,
    next_socket: AtomicU64,
    /// Whether each process's latest socket came over wss://: its RefreshConnection
    /// names the same scheme.
    over_tls: Mutex<HashMap<String, bool>>,
}

impl GameServers {
    /// Where game servers connect.
    pub fn endpoint(&self) -> &GameServerEndpoint {
        &self.endpoint
    }

    /// A new token the endpoint accepts (RefreshConnection gives one).
    pub fn issue_token(&self) -> String {
        let token = new_token();
        self.tokens
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(token.clone());
        token
    }

    pub(crate) fn accepts_token(&self, token: &str) -> bool {
        self.tokens
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains(token)
    }

    pub(crate) fn next_socket_id(&self) -> u64 {
        self.next_socket.fetch_add(1, Ordering::Relaxed)
    }

    pub(crate) fn opened_socket(&self, process_id: &str, over_tls: bool) {
        self.over_tls
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(process_id.to_owned(), over_tls);
    }

    /// Sends RefreshConnection to a process: the same endpoint (its path `/refreshed`),
    /// wss:// if the process is on wss:// (the C++ and Unreal SDKs speak TLS only), and
    /// a new token; the SDK opens a new socket there and drops the old one.
    pub fn refresh_connection(&self, process_id: &str) -> Result<String, ProcessError> {
        let over_tls = self
            .over_tls
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(process_id)
            .copied()
            .unwrap_or(false);
        let base = if over_tls {
            &self.endpoint.wss_url
        } else {
            &self.endpoint.ws_url
        };
        let url = format!("{base}/refreshed");
        let auth_token = self.issue_token();
        self.simulator.push_to_process(
            process_id,
            Push::RefreshConnection(RefreshConnection {
                refresh_connection_endpoint: url.clone(),
                auth_token,
            }),
        )?;
        Ok(url)
    }

    /// Sends TerminateProcess to a process (it is taken out after the grace).
    pub fn terminate_process(&self, process_id: &str) -> Result<(), ProcessError> {
        self.simulator.terminate_process(process_id)
    }
}

/// The endpoint, listening.
pub struct RunningEndpoint {
    pub servers: Arc<GameServers>,
    pub tasks: Vec<JoinHandle<()>>,
}

impl RunningEndpoint {
    /// Stops accepting and removes the certificate file.
    pub fn stop(self) {
        for task in self.tasks {
            task.abort();
        }
        // Best effort: a file left in the temp dir harms nothing.
        let _ = std::fs::remove_file(&self.servers.endpoint.certificate_path);
    }
}

/// Binds both ports (0: any free port), makes the certificate and serves until
/// `shutdown` turns true.
pub async fn start(
    bind: IpAddr,
    ports: (u16, u16),
    simulator: Arc<Simulator>,
    hub: Arc<Hub>,
    shutdown: watch::Receiver<bool>,
) -> Result<RunningEndpoint, StartError> {
    let ws = bind_port(bind, ports.0).await?;
    let wss = bind_port(bind, ports.1).await?;
    let certificate = tls::make(&std::env::temp_dir(), bind)?;
    let host = |listener: &TcpListener| -> Result<SocketAddr, StartError> {
        listener.local_addr().map_err(|source| StartError::Bind {
            addr: SocketAddr::from((bind, 0)),
            source,
        })
    };
    let (ws_addr, wss_addr) = (host(&ws)?, host(&wss)?);
    let fleet_id = simulator.settings().fleet_id;
    let auth_token = new_token();
    let servers = Arc::new(GameServers {
        simulator,
        hub,
        endpoint: GameServerEndpoint {
            ws_url: format!("ws://{ws_addr}"),
            wss_url: format!("wss://{wss_addr}"),
            certificate_path: certificate.path,
            fleet_id,
            host_id: DEFAULT_HOST_ID.to_owned(),
            auth_token: auth_token.clone(),
        },
        tokens: Mutex::new(HashSet::from([auth_token])),
        next_socket: AtomicU64::new(1),
        over_tls: Mutex::new(HashMap::new()),
    });
    let tasks = vec![
        tokio::spawn(upgrade::accept_loop(
            ws,
            None,
            servers.clone(),
            shutdown.clone(),
        )),
        tokio::spawn(upgrade::accept_loop(
            wss,
            Some(certificate.acceptor),
            servers.clone(),
            shutdown,
        )),
    ];
    tracing::debug!(%ws_addr, %wss_addr, "server SDK 5 endpoint listening");
    Ok(RunningEndpoint { servers, tasks })
}

/// An auth token: `gls-` and 32 hex digits (the C++ SDK does not URL-encode it).
fn new_token() -> String {
    format!("gls-{}", uuid::Uuid::new_v4().simple())
}

async fn bind_port(bind: IpAddr, port: u16) -> Result<TcpListener, StartError> {
    let addr = SocketAddr::from((bind, port));
    TcpListener::bind(addr)
        .await
        .map_err(|source| StartError::Bind { addr, source })
}
