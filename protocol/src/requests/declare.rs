//! The one declaration of the client routes (`client_routes!`, invoked in `requests.rs`):
//! each route's name (the only place its string is written), its request (the
//! [`ClientRequest`](super::ClientRequest) variant and the body type) and its ack type.
//! Every list of routes is derived from it: [`Route::ALL`](super::Route::ALL), the
//! variants of `ClientRequest` and of [`RouteAck`](crate::acks::RouteAck), reading a
//! frame's body into its route's type, and (outside this crate) the handlers' `Serves`,
//! the local stack's routing and `$default`'s `unknown_route` list.

/// Declares the routes: `Variant = "name" { body attributes, body: Type } -> AckType`,
/// or `Variant = "name"` for a route with no body and no answer (`ping`).
macro_rules! client_routes {
    ($(
        $(#[$attr:meta])*
        $variant:ident = $name:literal $({
            $(#[$body_attr:meta])*
            body: $body:ty $(,)?
        } -> $ack:ty)?
    ),* $(,)?) => {
        /// A route a client may send (besides API Gateway's own `$connect`,
        /// `$disconnect`, `$default`), by its name in frames ([`Route::as_str`]).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Route {
            $($variant),*
        }

        impl Route {
            /// Every route, in the order they are declared (the schema's order).
            pub const ALL: &'static [Route] = &[$(Route::$variant),*];

            /// The route's name in frames (and its route key in template.yaml).
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Route::$variant => $name),*
                }
            }

            /// `routes`' names, comma-separated (for messages that list them).
            pub fn list(routes: &[Route]) -> String {
                let names: Vec<&str> = routes.iter().map(|route| route.as_str()).collect();
                names.join(", ")
            }

            /// The route named `name`, if there is one.
            pub fn parse(name: &str) -> Option<Self> {
                Self::ALL.iter().copied().find(|route| route.as_str() == name)
            }
        }

        impl std::fmt::Display for Route {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        /// A request: `{"route", "requestId"?, "body"?}`, one variant per route. `requestId`
        /// (at most 64 characters) is echoed back on the `ack` or `error` that answers it. A body
        /// a route can go without may also be absent or `null` (read as `{}`).
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
        #[serde(tag = "route", rename_all_fields = "camelCase")]
        #[schemars(rename = "ClientFrame")]
        pub enum ClientRequest {
            $(
                $(#[$attr])*
                #[serde(rename = $name)]
                $variant $({
                    #[serde(default, skip_serializing_if = "Option::is_none")]
                    #[schemars(length(max = 64))]
                    request_id: Option<String>,
                    $(#[$body_attr])*
                    body: $body,
                })?,
            )*
        }

        impl ClientRequest {
            /// The route this request goes to.
            pub fn route(&self) -> Route {
                match self {
                    $(Self::$variant { .. } => Route::$variant),*
                }
            }

            /// The `requestId` the reply will echo, if any (never for a route without a
            /// body, which is never answered).
            pub fn request_id(&self) -> Option<&str> {
                match self {
                    $($(Self::$variant { request_id, .. } => {
                        let _: Option<&$body> = None;
                        request_id.as_deref()
                    })?)*
                    #[allow(unreachable_patterns)]
                    _ => None,
                }
            }

            fn request_id_slot(&mut self) -> Option<&mut Option<String>> {
                match self {
                    $($(Self::$variant { request_id, .. } => {
                        let _: Option<&$body> = None;
                        Some(request_id)
                    })?)*
                    #[allow(unreachable_patterns)]
                    _ => None,
                }
            }

            /// The request of `route` with `body` read into the route's type (a route
            /// without a body ignores it), or what is wrong with the body.
            fn read(
                route: Route,
                request_id: Option<String>,
                body: serde_json::Map<String, serde_json::Value>,
            ) -> Result<Self, String> {
                Ok(match route {
                    $(Route::$variant => client_routes!(
                        @request $variant, request_id, body $(, $body)?
                    ),)*
                })
            }

            /// The request of `route` with `body` (the body's JSON text) read straight
            /// into the route's type, or `None` where that fails: the caller then reads
            /// the frame the slow way, which says what is wrong.
            fn read_text(route: Route, request_id: Option<String>, body: &str) -> Option<Self> {
                Some(match route {
                    $(Route::$variant => client_routes!(
                        @request_text $variant, request_id, body $(, $body)?
                    ),)*
                })
            }
        }

        /// The fields of an `ack` frame, by the route it answers: what each route's reply
        /// carries besides `type`, `route` and `requestId`.
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
        #[serde(tag = "route")]
        // One is made per request and sent at once: not worth a box per ack.
        #[allow(clippy::large_enum_variant)]
        pub enum RouteAck {
            $($(
                #[serde(rename = $name)]
                $variant($ack),
            )?)*
        }

        impl RouteAck {
            /// The route this ack answers.
            pub fn route(&self) -> Route {
                match self {
                    $($(Self::$variant(ack) => {
                        let _: &$ack = ack;
                        Route::$variant
                    })?)*
                }
            }

            /// The ack's fields as they go out, in the ack type's field order.
            pub fn fields(&self) -> serde_json::Map<String, serde_json::Value> {
                let value = match self {
                    $($(Self::$variant(ack) => {
                        let ack: &$ack = ack;
                        serde_json::to_value(ack)
                    })?)*
                };
                match value {
                    Ok(serde_json::Value::Object(fields)) => fields,
                    _ => serde_json::Map::new(),
                }
            }
        }
    };
    (@request $variant:ident, $id:ident, $body_map:ident) => {
        Self::$variant
    };
    (@request_text $variant:ident, $id:ident, $text:ident) => {
        Self::$variant
    };
    (@request_text $variant:ident, $id:ident, $text:ident, $body:ty) => {
        Self::$variant {
            request_id: $id,
            body: serde_json::from_str::<$body>($text).ok()?,
        }
    };
    (@request $variant:ident, $id:ident, $body_map:ident, $body:ty) => {
        Self::$variant {
            request_id: $id,
            body: $crate::requests::body::read_body::<$body>($body_map)?,
        }
    };
}
