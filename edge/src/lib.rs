//! The edge: where the events Lambda invokes a function with meet the domain (`shared`).
//! The domain crate knows no Lambda type; this crate turns them into its types and back:
//!
//! - [`websocket`]: an API Gateway WebSocket route event opened into a typed request
//!   from a known caller, answered in one step ([`websocket::Route`]), and the domain's
//!   errors mapped to protocol errors ([`websocket::RouteError`]);
//! - [`gamelift_events`]: GameLift's events (placements, FlexMatch) taken out of the SNS
//!   or EventBridge envelope they arrive in, one parser for both functions that read them.
//!
//! No AWS SDK: the adapters that call AWS are `aws-adapters`.

pub mod gamelift_events;
pub mod websocket;
