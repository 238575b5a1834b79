//! A route with a client frame, opened into a typed [`Request`] and answered in one
//! step ([`Route`]): every such handler follows one failure contract, written once.

use async_trait::async_trait;
use aws_lambda_events::apigw::{ApiGatewayProxyResponse, ApiGatewayWebsocketProxyRequest};
use tracing::{error, warn};

use shared::frames::{ErrorCode, ServerFrame};
use shared::requests::{ClientRequest, Route as ClientRoute, RouteAck};
use shared::telemetry::ErrorChain;

use super::{
    Caller, CallerError, RouteError, RouteEvent, RouteHandler, RouteResult, client_request, reply,
    status,
};

/// A client's request on a route: who sent it (from the authorizer context, never the
/// body) and the frame, typed: its body already read into the route's type. Every route
/// with a client frame is a [`Route`], opened with [`Request::open`] and answered in
/// the same step, so they all follow one failure contract: a bad frame (one its
/// route's type does not read) or a refused request is an `error` frame carrying the
/// route and `requestId`; a dependency that fails is `unavailable` (safe to retry) and a
/// fault is `internal`, both logged with their whole cause; only an API wired wrong (no
/// authorizer context, a route sent to the wrong function) is a Lambda error.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    pub caller: Caller,
    pub frame: ClientRequest,
}

/// A frame of a route the function it reached does not serve: the API is wired wrong.
#[derive(Debug, thiserror::Error)]
#[error("{function} was invoked for route {route:?}; it serves {}", ClientRoute::list(.serves))]
pub struct WrongRoute {
    pub function: &'static str,
    pub route: &'static str,
    pub serves: &'static [ClientRoute],
}

/// A function that serves client frames: its name, and the routes it serves (the local
/// stack routes them to it; a frame of another route reaching it is a wiring fault).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Serves {
    pub function: &'static str,
    pub routes: &'static [ClientRoute],
}

/// What a [`Route`] answers a request with, besides a refusal.
#[derive(Clone, Debug, PartialEq)]
// One per request, moved once to the reply: not worth a box.
#[allow(clippy::large_enum_variant)]
pub enum Reply {
    /// An `ack` carrying these fields (the ones of the request's route).
    Ack(RouteAck),
    /// Nothing goes back (the socket is gone, or was told already).
    Silent,
    /// Not a route this function serves: the API is wired wrong, a Lambda error
    /// naming [`Route::SERVES`], never a frame.
    WrongRoute,
}

/// A route with a client frame. [`RouteHandler`] is implemented for every one by the
/// same step: open the event ([`Request::open`]: a bad frame gets its `error` reply and
/// nothing else runs), [`Route::answer`] the typed request, and reply with the ack,
/// nothing, or the refusal's `error` frame (logged when it is not the client's mistake).
#[async_trait]
pub trait Route: Send + Sync {
    /// This function and its routes.
    const SERVES: Serves;

    async fn answer(&self, request: &Request) -> Result<Reply, RouteError>;
}

#[async_trait]
impl<R: Route> RouteHandler for R {
    async fn handle(&self, event: RouteEvent) -> RouteResult {
        let request = match Request::open(&event.payload)? {
            Opened::Request(request) => request,
            Opened::Refused(reply) => return Ok(reply),
        };
        let answer = if R::SERVES.routes.contains(&request.frame.route()) {
            self.answer(&request).await
        } else {
            Ok(Reply::WrongRoute)
        };
        let answer = match answer {
            Ok(Reply::Ack(ack)) if ack.route() != request.frame.route() => Err(RouteError::new(
                ErrorCode::Internal,
                "a server error; retry",
            )
            .caused_by(WrongAck(ack.route()))),
            answer => answer,
        };
        if matches!(answer, Ok(Reply::Ack(_) | Reply::Silent)) {
            // Answered; a refusal is counted by `refuse`, a wrong route is no request.
            shared::metrics::request(request.frame.route().as_str(), None);
        }
        Ok(match answer {
            Ok(Reply::Ack(ack)) => reply(&ServerFrame::ack(&request.frame, &ack)),
            Ok(Reply::Silent) => status(200),
            Ok(Reply::WrongRoute) => {
                return Err(WrongRoute {
                    function: R::SERVES.function,
                    route: request.frame.route().as_str(),
                    serves: R::SERVES.routes,
                }
                .into());
            }
            Err(refusal) => request.refuse(refusal),
        })
    }
}

/// A handler answered with the ack of another route than the request's: a bug, answered
/// `internal`.
#[derive(Debug, thiserror::Error)]
#[error("the handler answered with the ack of {0}")]
struct WrongAck(ClientRoute);

/// What [`Request::open`] found in a route event: a request to handle, or the reply a
/// bad frame gets instead.
#[derive(Clone, Debug)]
pub enum Opened {
    /// A well-formed frame from an authorized caller: the route handles it.
    Request(Request),
    /// A bad frame: this `error` reply is the answer, and the route does nothing else.
    Refused(ApiGatewayProxyResponse),
}

impl Request {
    /// The request of a route event, or the `error` reply a bad frame gets. `Err` only
    /// when the event itself is wrong (a fault in how the API is wired).
    pub fn open(event: &ApiGatewayWebsocketProxyRequest) -> Result<Opened, CallerError> {
        let caller = Caller::from_event(event)?;
        Ok(match client_request(event) {
            Ok(frame) => Opened::Request(Self { caller, frame }),
            Err(reply) => {
                shared::metrics::request(route_of(event), Some(ErrorCode::BadRequest));
                Opened::Refused(reply)
            }
        })
    }

    /// The `error` frame of `refusal`, logged first when it is not the client's mistake.
    pub fn refuse(&self, refusal: RouteError) -> ApiGatewayProxyResponse {
        self.log(&refusal);
        shared::metrics::request(self.frame.route().as_str(), Some(refusal.code()));
        reply(&refusal.into_frame(&self.frame))
    }

    /// Logs a refusal that is the server's or a dependency's doing, with its whole cause.
    pub fn log(&self, refusal: &RouteError) {
        let (player, connection, route) = (
            self.caller.player_id.as_str(),
            self.caller.connection_id.as_str(),
            self.frame.route().as_str(),
        );
        let cause = refusal
            .cause()
            .map(|cause| ErrorChain(cause).to_string())
            .unwrap_or_default();
        match refusal.code() {
            ErrorCode::Unavailable => {
                warn!(player_id = player, connection_id = connection, route, error = %cause, "{}", refusal.message())
            }
            ErrorCode::Internal => {
                error!(player_id = player, connection_id = connection, route, error = %cause, "{}", refusal.message())
            }
            _ => {}
        }
    }
}

/// The route API Gateway matched (its `routeKey`), as one of the protocol's names:
/// a metric's `Route` takes no value a client made up.
fn route_of(event: &ApiGatewayWebsocketProxyRequest) -> &'static str {
    let key = event
        .request_context
        .route_key
        .as_deref()
        .unwrap_or_default();
    ClientRoute::parse(key).map_or("$default", ClientRoute::as_str)
}
