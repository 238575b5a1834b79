//! Assembling and running the stack: settings → stores, authorizer, GameLift simulator,
//! route table, the Messages stream's consumer → one HTTP server on `127.0.0.1:{port}`
//! serving the WebSocket API and the `@connections` API, the stream feeding
//! `on-message-inserted`, the simulator's placement events feeding `on-placement-event`,
//! and the presence bus and sweeper; and, on ports of their own, the server SDK 5
//! WebSocket game servers connect to (`local::gamelift_sdk`). Once serving, it is a [`RunningStack`] (`running`).

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::routing::{get, post};
use axum::serve::ListenerExt;
use shared::ports::SystemClock;
use shared::wiring::Wiring;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::auth::{ConnectAuthorizer, RealAuthorizer};
use crate::backend_api;
use crate::gamelift::Simulator;
use crate::gateway::registry::{ConnectionRegistry, LocalConnectionGateway};
use crate::gateway::{self, Gateway, Tracker};
use crate::management;
use crate::placement_events;
use crate::routes::{Dependencies, Routes};
use crate::settings::{Settings, SettingsError};
use crate::storage;
use crate::stream::{MessageStream, StreamHandler};

pub use crate::start_error::StartError;

mod running;

pub use running::RunningStack;

/// The stack, assembled but not serving yet: change the route table or the authorizer
/// here (tests, later features), then [`LocalStack::start`].
pub struct LocalStack {
    settings: Settings,
    dependencies: Dependencies,
    registry: Arc<ConnectionRegistry>,
    routes: Routes,
    on_placement_event: Arc<on_placement_event::PlacementEventHandler>,
    on_matchmaking_event: Arc<on_matchmaking_event::MatchmakingEventHandler>,
    authorizer: Arc<dyn ConnectAuthorizer>,
    /// Where the console's taps record (`local::console`).
    hub: Arc<crate::console::Hub>,
    storage: String,
    stream: MessageStream,
    stream_handler: Arc<dyn StreamHandler>,
    simulator: Arc<Simulator>,
    simulator_task: JoinHandle<()>,
    /// The FlexMatch simulator's task, when a rule set was given.
    flexmatch_task: Option<JoinHandle<()>>,
}

impl LocalStack {
    /// Validates the settings (every problem listed), opens the stores (creating the
    /// tables on DynamoDB), builds the authorizer and wires the routes.
    pub async fn build(settings: Settings) -> Result<Self, StartError> {
        Self::build_with_clock(settings, Arc::new(SystemClock)).await
    }

    /// As [`LocalStack::build`], on `clock` instead of the system's: the handlers, the
    /// sweeper and the gateway's timestamps (`connectedAt`, `requestTimeEpoch`) all read
    /// it, so tests can move time past a grace period instead of waiting for it. (The
    /// gateway's idle and duration timers, and the simulator's, stay on real time.)
    pub async fn build_with_clock(
        settings: Settings,
        clock: Arc<dyn shared::ports::Clock>,
    ) -> Result<Self, StartError> {
        settings.validate()?;
        let authorizer =
            RealAuthorizer::from_settings(&settings).map_err(StartError::Authorizer)?;
        authorizer.warm_up().await;
        let config = settings.config().map_err(|e| SettingsError {
            problems: e.problems,
        })?;
        let simulator_settings = settings.simulator_settings().map_err(|e| SettingsError {
            problems: e.problems,
        })?;
        let flexmatch_settings = settings.flexmatch_settings().map_err(|e| SettingsError {
            problems: e.problems,
        })?;
        let config = Arc::new(config);
        let storage = storage::open(&settings, &config).await?;
        let stores = storage.stores;
        let registry = Arc::new(ConnectionRegistry::new());
        let (bus, presence_events) = memory_adapters::InProcessEventBus::with_channel();
        // The queue's notification target: the SNS topic, to which on-placement-event
        // is subscribed. Built from the stores alone (as its `wire` does), before the
        // simulator it is the target of, which it asks for connection details once
        // started (`LateConnections`).
        let connections = Arc::new(placement_events::LateConnections::default());
        let on_placement_event = Arc::new(on_placement_event::seated(
            config.clone(),
            &*stores,
            clock.clone(),
            shared::seats::SeatConnector::new(config.player_gateway, connections.clone()),
        ));
        let hub = Arc::new(crate::console::Hub::new());
        shared::metrics::set_detailed(config.detailed_metrics);
        // The recorder the functions install in Lambda, namespaced as the deployed stack
        // of this game and stage (unless one is: one per process); the console attaches
        // to it when the stack starts serving.
        shared::metrics::install(
            &shared::metrics::namespace(&config.game, &config.stage),
            false,
        );
        let (simulator, simulator_task) = Simulator::start(
            simulator_settings,
            crate::console::taps::tap_sns(
                placement_events::to_handler(on_placement_event.clone()),
                hub.clone(),
            ),
        );
        connections.set(simulator.clone());
        // Likewise the FlexMatch simulator's rule target.
        let on_matchmaking_event = Arc::new(on_matchmaking_event::seated(
            config.clone(),
            &*stores,
            clock.clone(),
            shared::seats::SeatConnector::new(config.player_gateway, simulator.clone()),
        ));
        let rule = crate::console::taps::tap_matchmaking(&on_matchmaking_event, hub.clone());
        let (matchmaker, matchmaking, flexmatch_task) =
            crate::flexmatch::wire(flexmatch_settings, &simulator, rule);
        let dependencies = Dependencies {
            wiring: Wiring {
                keep_alive: config.keep_alive_behind(settings.idle_timeout()),
                config,
                stores,
                services: Arc::new(crate::services::LocalServices {
                    gateway: Arc::new(LocalConnectionGateway::new(registry.clone())),
                    events: Arc::new(bus),
                    gamelift: simulator.clone(),
                    matchmaker,
                }),
                clock,
                matchmaking,
            },
            update_item: storage.update_item,
        };
        crate::schedules::spawn_presence(
            &dependencies,
            presence_events,
            settings.presence.sweep_interval_seconds,
            hub.clone(),
        );
        let routes = Routes::wire(&dependencies).map_err(StartError::Template)?;
        let stream_handler = Routes::wire_stream(&dependencies);
        Ok(Self {
            settings,
            dependencies,
            registry,
            routes,
            on_placement_event,
            on_matchmaking_event,
            authorizer: Arc::new(authorizer),
            hub,
            storage: storage.description,
            stream: storage.stream,
            stream_handler,
            simulator,
            simulator_task,
            flexmatch_task,
        })
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The ports the handlers were built with.
    pub fn dependencies(&self) -> &Dependencies {
        &self.dependencies
    }

    /// The connection registry (what `@connections` and the handlers' gateway reach).
    pub fn connections(&self) -> &Arc<ConnectionRegistry> {
        &self.registry
    }

    /// The route table, as wired.
    pub fn routes(&self) -> &Routes {
        &self.routes
    }

    /// `on-placement-event`, as the placement topic invokes it.
    pub fn placement_event_handler(&self) -> &Arc<on_placement_event::PlacementEventHandler> {
        &self.on_placement_event
    }

    /// `on-matchmaking-event`, as the configuration's EventBridge rule invokes it.
    pub fn matchmaking_event_handler(&self) -> &Arc<on_matchmaking_event::MatchmakingEventHandler> {
        &self.on_matchmaking_event
    }

    /// What the stack's storage is: "in memory" or "DynamoDB at {endpoint}".
    pub fn storage(&self) -> &str {
        &self.storage
    }

    /// The route table, to add or wrap routes before starting.
    pub fn routes_mut(&mut self) -> &mut Routes {
        &mut self.routes
    }

    pub fn set_authorizer(&mut self, authorizer: Arc<dyn ConnectAuthorizer>) {
        self.authorizer = authorizer;
    }

    /// What consumes the Messages stream (the real `on-message-inserted`).
    pub fn stream_handler(&self) -> &Arc<dyn StreamHandler> {
        &self.stream_handler
    }

    /// The GameLift simulator the placement routes talk to.
    pub fn simulator(&self) -> &Arc<Simulator> {
        &self.simulator
    }

    /// Replaces (or wraps) the Messages stream's consumer before starting.
    pub fn set_stream_handler(&mut self, handler: Arc<dyn StreamHandler>) {
        self.stream_handler = handler;
    }

    /// Binds `{bind address}:{port}` (127.0.0.1 by default) and serves until
    /// [`RunningStack::shutdown`].
    pub async fn start(mut self) -> Result<RunningStack, StartError> {
        let addr = SocketAddr::from((
            self.settings.gateway.bind_address,
            self.settings.gateway.port,
        ));
        let listener = TcpListener::bind(addr)
            .await
            .map_err(|source| StartError::Bind { addr, source })?;
        let addr = listener
            .local_addr()
            .map_err(|source| StartError::Bind { addr, source })?;

        let (shutdown_tx, shutdown_rx) = watch::channel(false);
        // The console sees each batch; the consumer (real or a test's) runs as it was.
        self.stream_handler = crate::console::taps::tap_stream(
            self.stream_handler,
            self.hub.clone(),
            self.dependencies.clock.clone(),
        );

        // The stream is read before anything is served: nothing written through the
        // stack is missed (DynamoDB: its LATEST iterators are taken here).
        let stream = self
            .stream
            .start(self.stream_handler, shutdown_rx.clone())
            .await?;
        let (backend_api_addr, backend_api_server) =
            backend_api::listen(&self.settings, &self.dependencies, shutdown_rx.clone()).await?;
        // Game servers' own WebSocket (server SDK 5), on ports of its own.
        let game_servers = crate::gamelift_sdk::start(
            self.settings.gateway.bind_address,
            (
                self.settings.gamelift_sdk_port(),
                self.settings.gamelift_sdk_tls_port(),
            ),
            self.simulator.clone(),
            self.hub.clone(),
            shutdown_rx.clone(),
        )
        .await?;
        let tracker = Tracker::new();
        let stage = self.settings.stage.clone();
        let gateway = Arc::new(Gateway {
            stage: stage.clone(),
            domain_name: addr.to_string(),
            routes: Arc::new(self.routes),
            authorizer: self.authorizer,
            registry: self.registry.clone(),
            idle_timeout: self.settings.idle_timeout(),
            max_connection_duration: self.settings.max_connection_duration(),
            last_active_counts_sent_frames: self.settings.gateway.last_active_counts_sent_frames,
            clock: self.dependencies.clock.clone(),
            shutdown: shutdown_rx.clone(),
            tracker: tracker.clone(),
            tap: self.hub.clone(),
        });
        crate::console::metrics::attach(&self.hub.metrics);
        let console = crate::console::Console::new(
            self.hub,
            self.registry.clone(),
            &self.dependencies,
            self.simulator.clone(),
            game_servers.servers.clone(),
            crate::console::Console::describe(&self.settings, &self.storage, stream.description()),
            shutdown_rx.clone(),
        );
        let app = crate::console::mount(router(&stage, gateway), console, &stage);
        let app = crate::aws_api::mount(app, &self.dependencies);

        // Frames go out as soon as they are written (no Nagle delay behind a client's
        // delayed ACK): pushed messages are latency-bound.
        let listener = listener.tap_io(|tcp| {
            if let Err(error) = tcp.set_nodelay(true) {
                tracing::debug!(%error, "cannot set TCP_NODELAY");
            }
        });
        let stop = shutdown_rx;
        let server = tokio::spawn(async move {
            let serve = axum::serve(
                listener,
                app.into_make_service_with_connect_info::<SocketAddr>(),
            )
            .with_graceful_shutdown(gateway::shutting_down(stop));
            if let Err(error) = serve.await {
                tracing::error!(%error, "the server stopped");
            }
        });
        // The banner (`local::banner`) says where and how; this adds the stream's knobs.
        tracing::debug!(%addr, stage, storage = %self.storage, stream = stream.description(), "local stack listening");

        Ok(RunningStack {
            addr,
            backend_api_addr,
            backend_api_server,
            stage,
            storage: self.storage,
            registry: self.registry,
            dependencies: self.dependencies,
            shutdown: shutdown_tx,
            tracker,
            server,
            stream,
            simulator: self.simulator,
            simulator_task: self.simulator_task,
            flexmatch_task: self.flexmatch_task,
            game_servers,
        })
    }
}

/// The HTTP routes: the WebSocket API at `/{stage}`, the management API under
/// `/{stage}/@connections/`, and API Gateway's 403 for anything else.
fn router(stage: &str, gateway: Arc<Gateway>) -> Router {
    Router::new()
        .route(
            &format!("/{stage}"),
            get(gateway::upgrade).fallback(gateway::stage_method_not_allowed),
        )
        .route(
            &format!("/{stage}/@connections/{{id}}"),
            post(management::post)
                .get(management::get)
                .delete(management::delete)
                .fallback(gateway::forbidden),
        )
        .fallback(gateway::unknown_path)
        .with_state(gateway)
}

/// Builds and starts the stack.
pub async fn start(settings: Settings) -> Result<RunningStack, StartError> {
    LocalStack::build(settings).await?.start().await
}
