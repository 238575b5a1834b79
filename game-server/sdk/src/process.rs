//! `ProcessParameters`: the port, the log paths and the four callbacks, as async
//! closures. Each callback runs in its own task (as Go runs each handler in a
//! goroutine), so one that waits does not hold up the others or the heartbeat.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use gamelift_server_protocol::UpdateGameSession;
use gamelift_server_protocol::model::GameSession;

/// A boxed future a callback returns.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

pub(crate) type Callback<A, R> = Arc<dyn Fn(A) -> BoxFuture<R> + Send + Sync>;

/// What `process_ready` tells the service, and what the SDK calls back.
///
/// ```
/// # use gamelift_server_sdk::ProcessParameters;
/// let parameters = ProcessParameters::new(7777)
///     .log_paths(["/local/game/logs/server.log"])
///     .on_start_game_session(|session| async move { println!("{}", session.game_session_id) })
///     .on_health_check(|| async { true });
/// ```
#[derive(Clone, Default)]
pub struct ProcessParameters {
    /// The port players connect to (sent as `Port`).
    pub port: u16,
    /// Files the service uploads after ProcessEnding (sent as `LogPaths`).
    pub log_paths: Vec<String>,
    pub(crate) on_start_game_session: Option<Callback<GameSession, ()>>,
    pub(crate) on_update_game_session: Option<Callback<UpdateGameSession, ()>>,
    pub(crate) on_process_terminate: Option<Callback<(), ()>>,
    pub(crate) on_health_check: Option<Callback<(), bool>>,
}

impl std::fmt::Debug for ProcessParameters {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProcessParameters")
            .field("port", &self.port)
            .field("log_paths", &self.log_paths)
            .finish_non_exhaustive()
    }
}

impl ProcessParameters {
    /// No log paths and no callbacks: health is reported healthy, a TerminateProcess
    /// ends the process's SDK session (see [`ProcessParameters::on_process_terminate`]).
    pub fn new(port: u16) -> Self {
        Self {
            port,
            ..Self::default()
        }
    }

    pub fn log_paths<I, S>(mut self, paths: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.log_paths = paths.into_iter().map(Into::into).collect();
        self
    }

    /// `OnStartGameSession`: the service placed a game session here (CreateGameSession,
    /// with `fleet_id` filled in by the SDK). Call `activate_game_session` when ready to
    /// take players. The SDK has stored the game session's id before this runs.
    pub fn on_start_game_session<F, Fut>(mut self, callback: F) -> Self
    where
        F: Fn(GameSession) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        self.on_start_game_session = Some(Arc::new(move |session| Box::pin(callback(session))));
        self
    }

    /// `OnUpdateGameSession`: backfill results (UpdateGameSession).
    pub fn on_update_game_session<F, Fut>(mut self, callback: F) -> Self
    where
        F: Fn(UpdateGameSession) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        self.on_update_game_session = Some(Arc::new(move |update| Box::pin(callback(update))));
        self
    }

    /// `OnProcessTerminate`: the service asks the process to end by
    /// `get_termination_time()`; the game should end its game, call `process_ending`
    /// and exit. Without this callback the SDK calls `process_ending` and `destroy`
    /// itself, as the official SDKs do, but does not exit the process (they call
    /// `exit(0)`): a game server without the callback should watch for that.
    pub fn on_process_terminate<F, Fut>(mut self, callback: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        self.on_process_terminate = Some(Arc::new(move |()| Box::pin(callback())));
        self
    }

    /// `OnHealthCheck`: asked before each heartbeat; an answer later than the health
    /// check timeout (50 s) counts as unhealthy. Without it the process reports healthy.
    pub fn on_health_check<F, Fut>(mut self, callback: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = bool> + Send + 'static,
    {
        self.on_health_check = Some(Arc::new(move |()| Box::pin(callback())));
        self
    }
}
