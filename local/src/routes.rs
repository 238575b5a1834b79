//! The route table: route key → the real handler, or (the heartbeat, the ping) the
//! integration API Gateway runs without one, wired in one place ([`Routes::wire`]); the Messages
//! stream's consumer is wired next to them in [`Routes::wire_stream`].

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use edge::websocket::{self, RouteHandler};
use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::Value;
use shared::requests::Route as ClientRoute;
use shared::wiring::Wiring;

use crate::integration::dynamodb::UpdateItem;
use crate::integration::{Integration, MockIntegration, UpdateItemIntegration};
use crate::stream::StreamHandler;

pub const CONNECT: &str = "$connect";
pub const DISCONNECT: &str = "$disconnect";
pub const DEFAULT: &str = "$default";

/// What the handlers are built from: the same wiring the Lambda functions get (each
/// function's own `wire` asks it for its ports), with the local adapters; and what API
/// Gateway's DynamoDB integration (the heartbeat route) calls.
#[derive(Clone)]
pub struct Dependencies {
    pub wiring: Wiring,
    pub update_item: Arc<dyn UpdateItem>,
}

impl std::ops::Deref for Dependencies {
    type Target = Wiring;

    fn deref(&self) -> &Wiring {
        &self.wiring
    }
}

/// One route: its key, the function name it stands for (logs, context ARN), its handler.
#[derive(Clone)]
pub struct Route {
    pub key: String,
    pub function: String,
    pub handler: Arc<dyn RouteHandler>,
}

/// What a frame is routed to.
#[derive(Clone, Copy)]
pub enum Selected<'a> {
    /// A route with a Lambda function.
    Function(&'a Route),
    /// A route API Gateway serves with an integration of its own (no function).
    Integration(&'a str, &'a Arc<dyn Integration>),
}

impl Selected<'_> {
    pub fn key(&self) -> &str {
        match self {
            Selected::Function(route) => &route.key,
            Selected::Integration(key, _) => key,
        }
    }
}

/// The route table of the WebSocket API.
#[derive(Clone, Default)]
pub struct Routes {
    routes: HashMap<String, Route>,
    integrations: HashMap<String, Arc<dyn Integration>>,
}

impl Routes {
    /// Every route of the deployed API (template.yaml), with the real handlers; the
    /// heartbeat route as template.yaml integrates it (a DynamoDB UpdateItem from its
    /// mapping templates, no handler). Fails only if the compiled-in template does not
    /// hold that integration as this code reads it.
    /// The backend API's handler (`backend-api`), served on its own port.
    pub fn wire_backend_api(deps: &Dependencies) -> Arc<backend_api::BackendApi> {
        Arc::new(backend_api::wire(deps))
    }

    pub fn wire(deps: &Dependencies) -> Result<Self, String> {
        let mut routes = Self::default();
        routes.insert(CONNECT, "connect", Arc::new(connect::wire(deps)));
        routes.insert(DISCONNECT, "disconnect", Arc::new(disconnect::wire(deps)));
        routes.insert(DEFAULT, "default", Arc::new(default::DefaultHandler::new()));
        routes.serve(resume::wire(deps));
        let template = crate::template::parse(crate::template::TEMPLATE_YAML)?;
        let timeout = deps.config.heartbeat_timeout.as_secs().to_string();
        let heartbeat = UpdateItemIntegration::from_template(
            &template,
            ClientRoute::Heartbeat.as_str(),
            &[
                ("PlayersTable", deps.config.players_table.as_str()),
                ("HeartbeatTimeoutSeconds", timeout.as_str()),
            ],
            deps.update_item.clone(),
        )?;
        routes.insert_integration(ClientRoute::Heartbeat.as_str(), Arc::new(heartbeat));
        let ping = MockIntegration::from_template(&template, ClientRoute::Ping.as_str())?;
        routes.insert_integration(ClientRoute::Ping.as_str(), Arc::new(ping));
        routes.serve(send_message::wire(deps));
        routes.serve(subscribe_presence::wire(deps));
        routes.serve(session_placement_request::wire(deps));
        routes.serve(party::wire(deps));
        routes.serve(friends::wire(deps));
        routes.serve(cancel_placement::wire(deps));
        routes.serve(rejoin_session::wire(deps));
        routes.serve(matchmaking::wire(deps));
        Ok(routes)
    }

    /// The consumer of the Messages stream (DynamoDB stream → `on-message-inserted`).
    pub fn wire_stream(deps: &Dependencies) -> Arc<dyn StreamHandler> {
        Arc::new(on_message_inserted::wire(deps))
    }

    /// `on-presence-event`, the target of the presence bus's rule.
    pub fn wire_presence_events(deps: &Dependencies) -> on_presence_event::PresenceEventHandler {
        on_presence_event::wire(deps)
    }

    /// `presence-timeout`, the scheduled sweeper.
    pub fn wire_presence_timeout(deps: &Dependencies) -> presence_timeout::PresenceTimeoutHandler {
        presence_timeout::wire(deps)
    }

    /// Adds (or replaces) the routes `handler` serves, as its function
    /// ([`websocket::Route::SERVES`]).
    pub fn serve<R: websocket::Route + 'static>(&mut self, handler: R) -> &mut Self {
        let handler: Arc<dyn RouteHandler> = Arc::new(handler);
        for route in R::SERVES.routes {
            self.insert(route.as_str(), R::SERVES.function, handler.clone());
        }
        self
    }

    /// Adds (or replaces) a route.
    pub fn insert(
        &mut self,
        key: impl Into<String>,
        function: impl Into<String>,
        handler: Arc<dyn RouteHandler>,
    ) -> &mut Self {
        let key = key.into();
        self.routes.insert(
            key.clone(),
            Route {
                key,
                function: function.into(),
                handler,
            },
        );
        self
    }

    /// Adds (or replaces) a route served by an integration instead of a function.
    pub fn insert_integration(
        &mut self,
        key: impl Into<String>,
        integration: Arc<dyn Integration>,
    ) -> &mut Self {
        let key = key.into();
        self.routes.remove(&key);
        self.integrations.insert(key, integration);
        self
    }

    /// The route `key` if a function serves it.
    pub fn get(&self, key: &str) -> Option<&Route> {
        self.routes.get(key)
    }

    /// The integration serving route `key`, if it is not a function.
    pub fn integration(&self, key: &str) -> Option<&Arc<dyn Integration>> {
        self.integrations.get(key)
    }

    /// The (first, by route key) route served by `function` (its binary name).
    pub fn by_function(&self, function: &str) -> Option<&Route> {
        self.keys()
            .into_iter()
            .filter_map(|key| self.routes.get(key))
            .find(|route| route.function == function)
    }

    /// Route keys (functions' and integrations'), sorted.
    pub fn keys(&self) -> Vec<&str> {
        let mut keys: Vec<&str> = self
            .routes
            .keys()
            .chain(self.integrations.keys())
            .map(String::as_str)
            .collect();
        keys.sort_unstable();
        keys
    }

    /// API Gateway's selection with `$request.body.route`: a text frame that is a JSON
    /// object whose `route` is a string naming a custom route goes there; anything else
    /// (binary, not JSON, no such route) goes to `$default`. `None`: no route matched
    /// and there is no `$default`.
    pub fn select(&self, text: Option<&str>) -> Option<Selected<'_>> {
        let key = text
            .and_then(selected_key)
            .filter(|key| !matches!(key.as_str(), CONNECT | DISCONNECT | DEFAULT));
        if let Some(key) = key {
            if let Some((key, integration)) = self.integrations.get_key_value(&key) {
                return Some(Selected::Integration(key, integration));
            }
            if let Some(route) = self.routes.get(&key) {
                return Some(Selected::Function(route));
            }
        }
        self.routes.get(DEFAULT).map(Selected::Function)
    }
}

/// `$request.body.route`: the `route` member of a JSON object frame when it is a string
/// (of duplicates the last, as a parsed object keeps). The rest of the frame is checked
/// to be JSON but not built: only the route is read, once per frame.
fn selected_key(text: &str) -> Option<String> {
    serde_json::from_str::<RouteMember>(text).ok()?.0
}

/// A frame object's `route`, if a string.
struct RouteMember(Option<String>);

/// A member name of a frame object: `route` or another (read borrowed, not kept).
#[derive(serde::Deserialize)]
#[serde(field_identifier, rename_all = "lowercase")]
enum MemberName {
    Route,
    #[serde(other)]
    Other,
}

impl<'de> Deserialize<'de> for RouteMember {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Members;
        impl<'de> Visitor<'de> for Members {
            type Value = RouteMember;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RouteMember, A::Error> {
                let mut route = None;
                while let Some(name) = map.next_key::<MemberName>()? {
                    match name {
                        MemberName::Route => {
                            route = match map.next_value::<Value>()? {
                                Value::String(key) => Some(key),
                                _ => None,
                            }
                        }
                        MemberName::Other => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(RouteMember(route))
            }
        }
        deserializer.deserialize_map(Members)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use async_trait::async_trait;
    use edge::websocket::{RouteEvent, RouteResult, status};

    struct Nop;

    #[async_trait]
    impl RouteHandler for Nop {
        async fn handle(&self, _event: RouteEvent) -> RouteResult {
            Ok(status(200))
        }
    }

    fn table() -> Routes {
        let mut routes = Routes::default();
        for key in [CONNECT, DISCONNECT, DEFAULT, "heartbeat"] {
            routes.insert(key, key, Arc::new(Nop));
        }
        routes
    }

    #[test]
    fn selection_follows_request_body_route() {
        let routes = table();
        let key = |text: Option<&str>| routes.select(text).map(|r| r.key().to_owned());
        assert_eq!(
            key(Some(r#"{"route":"heartbeat"}"#)).as_deref(),
            Some("heartbeat")
        );
        for text in [
            r#"{"route":"nope"}"#,
            r#"{"route":"$connect"}"#,
            r#"{"route":"$disconnect"}"#,
            r#"{"route":7}"#,
            r#"["heartbeat"]"#,
            "not json",
            r#"{"body":{}}"#,
            r#"{"body":{"route":"heartbeat"}}"#,
            r#"{"route":"heartbeat","route":null}"#,
            r#"{"route":"heartbeat"} trailing"#,
        ] {
            assert_eq!(key(Some(text)).as_deref(), Some(DEFAULT), "{text}");
        }
        assert_eq!(key(None).as_deref(), Some(DEFAULT));
        for text in [
            r#"{"body":{"x":[1,{"route":"nope"}]},"requestId":"r","route":"heartbeat"}"#,
            r#"{"route":7,"route":"heartbeat"}"#,
        ] {
            assert_eq!(key(Some(text)).as_deref(), Some("heartbeat"), "{text}");
        }
    }

    #[test]
    fn without_a_default_route_an_unmatched_frame_selects_nothing() {
        let mut routes = Routes::default();
        routes.insert("heartbeat", "heartbeat", Arc::new(Nop));
        assert!(routes.select(Some("x")).is_none());
        assert!(routes.select(Some(r#"{"route":"heartbeat"}"#)).is_some());
    }
}
