//! The local stack (docs/architecture.md#the-local-stack): one process that behaves
//! like the deployed API Gateway WebSocket API, calling the real handlers in-process.
//!
//! ```no_run
//! # async fn demo() -> Result<(), local::StartError> {
//! let mut settings = local::Settings::default();
//! settings.gateway.port = 0; // any free port
//! let stack = local::start(settings).await?;
//! println!("{}", stack.url()); // ws://127.0.0.1:PORT/Development
//! stack.shutdown().await;
//! # Ok(()) }
//! ```
//!
//! On the same port, [`console`] serves a page at `/console` that shows the stack and
//! drives it from a browser (docs/console.md).
//!
//! Layout: [`settings`] (every knob), [`banner`] (what start-up prints), [`routes`]
//! (route key → handler, in one place), [`gateway`] (the WebSocket emulation and the
//! connection registry), [`invoke_once`] (`local invoke`: one function, one event
//! file, like `sam local invoke`), [`sam_env`] (what the real `sam local invoke` gives a
//! function with `local/sam-env.json`), [`management`] (the `@connections` API), [`auth`] (the
//! `$connect` authorizer), [`storage`], [`stream`] (the Messages stream feeding
//! `on-message-inserted`, in memory or from DynamoDB Streams), [`gamelift`] (the GameLift simulator), [`gamelift_sdk`] (its server SDK 5
//! WebSocket, for real game servers) and [`placement_events`]
//! (its SNS topic → `on-placement-event`), [`stack`] (assembly, start, shutdown),
//! [`template`] (template.yaml as JSON), [`integration`] (routes API Gateway serves
//! without a function: the heartbeat's DynamoDB integration, from its mapping templates),
//! [`backend_api`] (the backend API on its own port, through `lambda_http`'s types),
//! [`ids`] (API Gateway-shaped ids, for the gateway, the stream and both APIs),
//! [`aws_api`] (GameLift and EventBridge on the stack's port, for functions run outside it).

pub mod auth;
pub mod aws_api;
pub mod backend_api;
pub mod banner;
pub mod console;
pub mod flexmatch;
pub mod gamelift;
pub mod gamelift_sdk;
pub mod gateway;
pub mod ids;
pub mod integration;
pub mod invoke;
pub mod invoke_once;
pub mod management;
pub mod placement_events;
pub mod routes;
pub mod sam_env;
mod schedules;
mod services;
pub mod settings;
pub mod stack;
mod start_error;
pub mod storage;
pub mod stream;
pub mod template;
pub mod time;

pub use gateway::registry::{ConnectionRegistry, LocalConnectionGateway};
pub use routes::{Dependencies, Routes};
pub use settings::{AuthMode, ReadError, Settings, SettingsError};
pub use stack::{LocalStack, RunningStack, StartError, start};
pub use stream::{StreamHandler, StreamStatsSnapshot};
