//! Your game server against the stack: the server SDK 5 endpoint's ports
//! (`local::gamelift_sdk`) and how the fleet treats a real process (activation,
//! heartbeats, termination grace, reconnects).

use serde::Serialize;

use super::values::{millis, seconds, whole};
use crate::gamelift;

#[derive(Clone, Debug, PartialEq, Eq, clap::Args, Serialize)]
#[command(next_help_heading = "Game servers (GameLift server SDK 5)")]
pub struct GameServerFlags {
    /// TCP port of the server SDK 5 WebSocket, plain ws:// (what GAMELIFT_SDK_WEBSOCKET_URL
    /// points at) [default: PORT + 2, or any free port when PORT is 0].
    #[arg(long, env = "GAMELIFT_SDK_PORT", value_parser = whole(0..=u16::MAX))]
    pub gamelift_sdk_port: Option<u16>,

    /// TCP port of the same endpoint over TLS, wss:// (the C++ and Unreal SDKs speak TLS
    /// only), with a self-signed certificate made at start-up [default: PORT + 3, or any
    /// free port when PORT is 0].
    #[arg(long, env = "GAMELIFT_SDK_TLS_PORT", value_parser = whole(0..=u16::MAX))]
    pub gamelift_sdk_tls_port: Option<u16>,

    /// Seconds a game server has to call ActivateGameSession after CreateGameSession;
    /// then the game session is TERMINATED and the placement tried again (GameLift's
    /// GameSessionActivationTimeoutSeconds, 1-600).
    #[arg(long, env = "SIM_GAME_SESSION_ACTIVATION_SECONDS",
          default_value_t = gamelift::DEFAULT_GAME_SESSION_ACTIVATION_SECONDS,
          value_parser = seconds(gamelift::GAME_SESSION_ACTIVATION_SECONDS_RANGE))]
    pub sim_game_session_activation_seconds: u64,

    /// A game server's heartbeat interval: three missed (or three unhealthy reports) and
    /// it is sent TerminateProcess (the SDKs beat every 60 s; 10-3600000 ms).
    #[arg(long, env = "SIM_HEARTBEAT_INTERVAL_MS",
          default_value_t = gamelift::DEFAULT_HEARTBEAT_INTERVAL_MS,
          value_parser = millis(gamelift::HEARTBEAT_INTERVAL_MS_RANGE))]
    pub sim_heartbeat_interval_ms: u64,

    /// Seconds a game server has, after TerminateProcess, to call ProcessEnding before it
    /// is taken out and its games end (GameLift gives 5 minutes; 1-3600).
    #[arg(long, env = "SIM_TERMINATION_GRACE_SECONDS",
          default_value_t = gamelift::DEFAULT_TERMINATION_GRACE_SECONDS,
          value_parser = seconds(gamelift::TERMINATION_GRACE_SECONDS_RANGE))]
    pub sim_termination_grace_seconds: u64,

    /// Seconds a game server whose socket dropped keeps its games, waiting for it to
    /// reconnect with the same pID (1-86400).
    #[arg(long, env = "SIM_RECONNECT_WINDOW_SECONDS",
          default_value_t = gamelift::DEFAULT_RECONNECT_WINDOW_SECONDS,
          value_parser = seconds(gamelift::RECONNECT_WINDOW_SECONDS_RANGE))]
    pub sim_reconnect_window_seconds: u64,
}

impl super::Settings {
    /// The ws:// endpoint's port: `GAMELIFT_SDK_PORT`, else PORT + 2 (0 stays 0).
    pub fn gamelift_sdk_port(&self) -> u16 {
        self.game_servers
            .gamelift_sdk_port
            .unwrap_or_else(|| offset(self.gateway.port, 2))
    }

    /// The wss:// endpoint's port: `GAMELIFT_SDK_TLS_PORT`, else PORT + 3 (0 stays 0).
    pub fn gamelift_sdk_tls_port(&self) -> u16 {
        self.game_servers
            .gamelift_sdk_tls_port
            .unwrap_or_else(|| offset(self.gateway.port, 3))
    }

    /// Two listeners on one port: each problem named by the knobs.
    pub(super) fn port_problems(&self) -> Vec<String> {
        let ports = [
            ("PORT", self.gateway.port),
            ("BACKEND_API_PORT", self.gateway.backend_api_port()),
            ("GAMELIFT_SDK_PORT", self.gamelift_sdk_port()),
            ("GAMELIFT_SDK_TLS_PORT", self.gamelift_sdk_tls_port()),
        ];
        let mut problems = Vec::new();
        for (i, (name, port)) in ports.iter().enumerate().skip(2) {
            if let Some((other, _)) = ports[..i].iter().find(|(_, p)| p == port && *port != 0) {
                problems.push(format!(
                    "{name}={port} is {other}'s: the server SDK endpoint needs a port of its own"
                ));
            }
        }
        problems
    }
}

fn offset(port: u16, by: u16) -> u16 {
    match port {
        0 => 0,
        port => port.saturating_add(by),
    }
}
