//! The SDK's handle: InitSDK, ProcessReady, ProcessEnding, Destroy, the local getters,
//! and what the pushes do (Go `server/server_state.go`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, SystemTime};

use gamelift_server_protocol::model::GameSession;
use gamelift_server_protocol::{
    ActivateServerProcess, ConnectQuery, CreateGameSession, Empty, ErrorKind,
    GetFleetRoleCredentialsResult, Inbound, Push, Request, RequestFrame, STATUS_OK,
};
use serde::de::DeserializeOwned;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use crate::config::{Auth, Resolved, ServerParameters};
use crate::connection::{self, Command, Dialer, Failure};
use crate::error::{GameLiftError, Result};
use crate::process::ProcessParameters;
use crate::{SDK_LANGUAGE, SDK_VERSION, heartbeat, sigv4, tls};

/// A server SDK session: the connection to GameLift and the process's state. Cheap to
/// clone (callbacks usually hold a clone). The connection closes on [`destroy`], which
/// also lets go of the callbacks (and the clones they hold), or when the last clone is
/// dropped.
///
/// [`destroy`]: GameLiftServer::destroy
#[derive(Clone)]
pub struct GameLiftServer {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    commands: mpsc::UnboundedSender<Command>,
    pub(crate) config: Resolved,
    pub(crate) state: Mutex<State>,
    /// Requests that timed out in a row.
    timeouts: AtomicU32,
    /// Held by `process_ready` from its request until the state says ready, and taken by
    /// the push dispatcher for each push: a CreateGameSession sent right behind the
    /// ActivateServerProcess answer is then handled as ready, not dropped.
    activation: tokio::sync::Mutex<()>,
}

/// Timeouts in a row that make the SDK reconnect (Go `RequestTimeoutReconnectThreshold`).
const TIMEOUTS_BEFORE_RECONNECT: u32 = 2;

#[derive(Default)]
pub(crate) struct State {
    pub ready: bool,
    pub game_session_id: Option<String>,
    /// Epoch seconds.
    pub termination_time: Option<i64>,
    pub parameters: Option<ProcessParameters>,
    pub heartbeat: Option<JoinHandle<()>>,
    /// GetFleetRoleCredentials results by role ARN (Go caches them too).
    pub role_credentials: HashMap<String, GetFleetRoleCredentialsResult>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        if let Ok(state) = self.state.get_mut()
            && let Some(heartbeat) = state.heartbeat.take()
        {
            heartbeat.abort();
        }
    }
}

impl GameLiftServer {
    /// InitSDK: reads the `GAMELIFT_SDK_*` variables (they win over `parameters`),
    /// checks them, and opens the WebSocket. Nothing is sent until `process_ready`.
    pub async fn init_sdk(parameters: ServerParameters) -> Result<Self> {
        Self::init_sdk_with_env(parameters, |name| std::env::var(name).ok()).await
    }

    /// InitSDK from the variables alone (`InitSDKFromEnvironment`).
    pub async fn init_sdk_from_environment() -> Result<Self> {
        Self::init_sdk(ServerParameters::from_environment()).await
    }

    /// As [`GameLiftServer::init_sdk`], with the variables read through `env` instead of
    /// the process environment (tests, or a game with its own configuration).
    pub async fn init_sdk_with_env(
        parameters: ServerParameters,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Self> {
        let config = parameters.resolve(env)?;
        let tls = tls::client_config(config.ca_certificate_file.as_deref())?;
        let mut query = ConnectQuery {
            process_id: config.process_id.clone(),
            sdk_version: Some(SDK_VERSION.to_owned()),
            sdk_language: Some(SDK_LANGUAGE.to_owned()),
            compute_id: Some(config.host_id.clone()),
            fleet_id: config.fleet_id.clone(),
            // New per InitSDK; the reconnects reuse it.
            idempotency_token: Some(uuid::Uuid::new_v4().to_string()),
            ..ConnectQuery::default()
        };
        match &config.auth {
            Auth::Token(token) => query.authorization = Some(token.clone()),
            Auth::SigV4(credentials) => sigv4::sign(&mut query, credentials, SystemTime::now()),
        }
        let dialer = Dialer {
            base_url: config.url.clone(),
            query,
            tls,
            timing: config.timing.clone(),
        };
        let (pushes, push_receiver) = mpsc::unbounded_channel();
        let commands = connection::connect(dialer, pushes)
            .await
            .map_err(|failure| failure_error(failure, "connect"))?;
        let inner = Arc::new(Inner {
            commands,
            config,
            state: Mutex::new(State::default()),
            timeouts: AtomicU32::new(0),
            activation: tokio::sync::Mutex::new(()),
        });
        tokio::spawn(dispatch(Arc::downgrade(&inner), push_receiver));
        Ok(Self { inner })
    }

    /// ProcessReady: sends ActivateServerProcess (6 s to answer), keeps the callbacks,
    /// and starts the heartbeat timer.
    pub async fn process_ready(&self, parameters: ProcessParameters) -> Result<()> {
        let config = &self.inner.config;
        let request = Request::ActivateServerProcess(ActivateServerProcess {
            sdk_version: Some(SDK_VERSION.to_owned()),
            sdk_language: Some(SDK_LANGUAGE.to_owned()),
            sdk_tool_name: config.tool_name.clone(),
            sdk_tool_version: config.tool_version.clone(),
            port: i32::from(parameters.port),
            // Go sends null when there are none.
            log_paths: Some(parameters.log_paths.clone()).filter(|paths| !paths.is_empty()),
        });
        let _activation = self.inner.activation.lock().await;
        self.call::<Empty>(request, config.timing.activate_timeout)
            .await?;
        let health = parameters.on_health_check.clone();
        let weak = Arc::downgrade(&self.inner);
        let send: heartbeat::Send = Arc::new(move |healthy| {
            let weak = weak.clone();
            Box::pin(async move {
                let Some(inner) = weak.upgrade() else { return };
                let server = GameLiftServer { inner };
                let request = Request::HeartbeatServerProcess(
                    gamelift_server_protocol::HeartbeatServerProcess {
                        health_status: healthy,
                    },
                );
                let timeout = server.inner.config.timing.call_timeout;
                if let Err(error) = server.call::<Empty>(request, timeout).await {
                    tracing::warn!(%error, "could not send the heartbeat");
                }
            })
        });
        let timer = heartbeat::spawn(config.timing.clone(), health, send);
        let mut state = self.state();
        state.ready = true;
        state.parameters = Some(parameters);
        if let Some(previous) = state.heartbeat.replace(timer) {
            previous.abort();
        }
        Ok(())
    }

    /// ProcessEnding: sends TerminateServerProcess (the service ends the process's game
    /// sessions), then stops the heartbeat. The process should exit next.
    pub async fn process_ending(&self) -> Result<()> {
        let timeout = self.inner.config.timing.call_timeout;
        self.call::<Empty>(Request::TerminateServerProcess(Empty {}), timeout)
            .await?;
        self.stop();
        Ok(())
    }

    /// Destroy: stops the heartbeat and closes the WebSocket; later calls fail with
    /// `ProcessNotReady` or `NotConnected`.
    pub async fn destroy(&self) -> Result<()> {
        self.stop();
        self.state().parameters = None;
        let _ = self.inner.commands.send(Command::Close);
        Ok(())
    }

    /// The game session the service started here, once `CreateGameSession` arrived.
    pub fn get_game_session_id(&self) -> Option<String> {
        self.state().game_session_id.clone()
    }

    /// When the service will stop the process, in epoch **seconds** (as Go), once a
    /// `TerminateProcess` arrived.
    pub fn get_termination_time(&self) -> Result<i64> {
        self.state()
            .termination_time
            .ok_or(GameLiftError::TerminationTimeNotSet)
    }

    fn stop(&self) {
        let mut state = self.state();
        state.ready = false;
        if let Some(heartbeat) = state.heartbeat.take() {
            heartbeat.abort();
        }
    }

    pub(crate) fn state(&self) -> MutexGuard<'_, State> {
        // A poisoned lock means a callback panicked while we held it; the state is
        // still consistent (plain fields), so carry on.
        self.inner
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The guards every call but ProcessReady has: ready, and (`with_game_session`) a
    /// game session; returns the game session id.
    pub(crate) fn guard(&self, with_game_session: bool) -> Result<String> {
        let state = self.state();
        if !state.ready {
            return Err(GameLiftError::ProcessNotReady);
        }
        match (&state.game_session_id, with_game_session) {
            (Some(id), _) => Ok(id.clone()),
            (None, false) => Ok(String::new()),
            (None, true) => Err(GameLiftError::GameSessionIdNotSet),
        }
    }

    /// Sends one request and reads its answer as `T`.
    pub(crate) async fn call<T: DeserializeOwned>(
        &self,
        request: Request,
        timeout: Duration,
    ) -> Result<T> {
        let action = request.action();
        let request_id = uuid::Uuid::new_v4().to_string();
        let text = RequestFrame::new(request_id.clone(), request).to_text();
        let (reply, answer) = oneshot::channel();
        self.inner
            .commands
            .send(Command::Send {
                request_id,
                text,
                reply,
            })
            .map_err(|_| GameLiftError::NotConnected)?;
        let answer = match tokio::time::timeout(timeout, answer).await {
            Err(_) => {
                let in_a_row = self.inner.timeouts.fetch_add(1, Ordering::Relaxed) + 1;
                if in_a_row >= TIMEOUTS_BEFORE_RECONNECT {
                    self.inner.timeouts.store(0, Ordering::Relaxed);
                    let _ = self.inner.commands.send(Command::Reconnect);
                }
                return Err(GameLiftError::Timeout { action, timeout });
            }
            Ok(Err(_)) => return Err(GameLiftError::NotConnected),
            Ok(Ok(Err(failure))) => return Err(failure_error(failure, action)),
            Ok(Ok(Ok(answer))) => answer,
        };
        self.inner.timeouts.store(0, Ordering::Relaxed);
        if answer.status_code != STATUS_OK {
            return Err(GameLiftError::Service {
                action,
                kind: ErrorKind::from_status(answer.status_code),
                status: answer.status_code,
                message: answer.error_message.unwrap_or_default(),
            });
        }
        Inbound::result(&answer.frame).map_err(|e| GameLiftError::BadResponse {
            action,
            reason: e.to_string(),
        })
    }
}

fn failure_error(failure: Failure, action: &'static str) -> GameLiftError {
    match failure {
        Failure::Lost => GameLiftError::ConnectionLost { action },
        Failure::Connect { url, reason } => GameLiftError::ConnectionFailed { url, reason },
    }
}

/// Hands each push to its callback, in its own task.
async fn dispatch(inner: Weak<Inner>, mut pushes: mpsc::UnboundedReceiver<Push>) {
    while let Some(push) = pushes.recv().await {
        let Some(inner) = inner.upgrade() else { return };
        let server = GameLiftServer { inner };
        drop(server.inner.activation.lock().await);
        match push {
            Push::CreateGameSession(create) => server.on_create_game_session(create),
            Push::UpdateGameSession(update) => {
                // The lock is released before the callback runs: it may call the SDK.
                let callback = {
                    let state = server.state();
                    if !state.ready {
                        tracing::warn!("UpdateGameSession before ProcessReady: ignored");
                        continue;
                    }
                    state
                        .parameters
                        .as_ref()
                        .and_then(|p| p.on_update_game_session.clone())
                };
                if let Some(callback) = callback {
                    tokio::spawn(callback(update));
                }
            }
            Push::TerminateProcess(terminate) => {
                let callback = {
                    let mut state = server.state();
                    state.termination_time = Some(terminate.termination_time / 1000);
                    state
                        .parameters
                        .as_ref()
                        .and_then(|p| p.on_process_terminate.clone())
                };
                match callback {
                    Some(callback) => {
                        tokio::spawn(callback(()));
                    }
                    None => {
                        tracing::info!(
                            "TerminateProcess without on_process_terminate: ProcessEnding and Destroy"
                        );
                        tokio::spawn(async move {
                            if let Err(error) = server.process_ending().await {
                                tracing::error!(%error, "ProcessEnding failed");
                            }
                            let _ = server.destroy().await;
                        });
                    }
                }
            }
            // The connection task handles it itself.
            Push::RefreshConnection(_) => {}
        }
    }
}

impl GameLiftServer {
    fn on_create_game_session(&self, create: CreateGameSession) {
        let session = GameSession {
            game_session_id: create.game_session_id,
            name: create.game_session_name,
            fleet_id: self.inner.config.fleet_id.clone(),
            maximum_player_session_count: create.maximum_player_session_count,
            port: create.port,
            ip_address: create.ip_address,
            dns_name: create.dns_name,
            game_session_data: create.game_session_data,
            matchmaker_data: create.matchmaker_data,
            game_properties: create.game_properties,
        };
        // The lock is released before the callback runs: it may call the SDK.
        let callback = {
            let mut state = self.state();
            if !state.ready {
                tracing::warn!("CreateGameSession before ProcessReady: ignored");
                return;
            }
            state.game_session_id = Some(session.game_session_id.clone());
            state
                .parameters
                .as_ref()
                .and_then(|p| p.on_start_game_session.clone())
        };
        if let Some(callback) = callback {
            tokio::spawn(callback(session));
        }
    }
}
