//! The matchmaking routes (README: Client protocol, Matchmaking): `startMatchmaking`
//! (`start.rs`), `acceptMatch` and `stopMatchmaking` (`answer.rs`), and
//! `setMatchmakingAttributes` (`answer.rs`: a party member's own attributes for their
//! leader's tickets). Results are never
//! polled: every status change of a ticket is pushed to each of its players as a
//! `matchmaking` frame by `on-matchmaking-event`.
//!
//! A ticket takes its players' one pending-request slot (the Players item's
//! `pendingPlacementId`, which a queue placement also takes): a player has one live
//! ticket or one pending placement, never both, checked by the same conditional write
//! that reserves the slot. A conflict names what is pending (`ticketId` or
//! `placementId`); one left behind by a fault (ended, or never recorded long after it
//! was asked for) is cleared and the request goes on.
//!
//! # Matchmaking, in sequence
//!
//! A mermaid sequence diagram (paste it into any mermaid renderer to draw it):
//!
//! ```text
//! sequenceDiagram
//!   autonumber
//!   participant C as client
//!   participant G as API Gateway
//!   participant R as matchmaking
//!   participant FM as FlexMatch
//!   participant B as EventBridge (default bus)
//!   participant E as on-matchmaking-event
//!   participant P as Players
//!   participant PL as Placements (tickets)
//!   participant M as Messages (inboxes)
//!   participant D as on-message-inserted
//!
//!   C->>G: startMatchmaking(attributes, latencies, configuration)
//!   G->>R: invoke
//!   R->>P: UpdateItem rate limit; UpdateItem SET pendingPlacementId = ticket, condition none pending and no party
//!   alt a ticket or a placement is pending and still going
//!     R-->>C: error conflict, with its ticketId or placementId
//!   else recorded on the player (for a party's leader: every member, in one transaction)
//!     R->>PL: PutItem ticket QUEUED, condition new id
//!     R->>FM: StartMatchmaking(ticketId, players)
//!     alt GameLift refuses
//!       R->>PL: TransactWriteItems: ticket FAILED (condition as read), every player's slot cleared
//!       R-->>C: error (bad_request, unavailable, ...)
//!     else accepted
//!       R-->>C: ack ticketId, status QUEUED
//!     end
//!   end
//!   loop every FlexMatch event (Searching, PotentialMatchCreated, AcceptMatch..., Succeeded / TimedOut / Cancelled / Failed)
//!     FM-)B: GameLift Matchmaking Event
//!     B-)E: invoke (async, retries, then DLQ)
//!     E->>PL: GetItem ticket (its players, where it stands)
//!     Note over E: TicketStatus::may_follow: duplicate, late or out-of-order: stop here
//!     E->>M: read each player's inbox head
//!     E->>PL: TransactWriteItems across Placements, Players and Messages
//!     Note over P,M: one transaction: the ticket (condition status and statusAt as read),<br/>each player's matchmaking message at head + 1,<br/>when it ends: each player's slot cleared and (COMPLETED) seat set
//!     M-)D: stream INSERT per player
//!     D->>G: PostToConnection(matchmaking frame)
//!     G-->>C: matchmaking frame
//!   end
//!   opt REQUIRES_ACCEPTANCE
//!     C->>G: acceptMatch(ticketId, accept)
//!     G->>R: invoke
//!     R->>PL: GetItem ticket (yours, and requiring acceptance?)
//!     R->>FM: AcceptMatch
//!     R-->>C: ack
//!   end
//! ```

use std::sync::Arc;

use async_trait::async_trait;
use edge::websocket::{CallLimit, Reply, Request, Route, RouteError, Serves};
use shared::acks::RouteAck;
use shared::domain::PlayerId;
use shared::frames::ErrorCode;
use shared::matchmaking::{MatchmakingRequest, MatchmakingSettings, TicketId, TicketPushes};
use shared::pending::PendingRequests;
use shared::ports::{
    Clock, GameLiftError, Matchmaker, PlayerLookup, PlayerReader, Profiles, StoreError,
    TicketChanges, TicketReader, TicketRecorder,
};
use shared::rate_limits::Bucket;
use shared::requests::{ClientRequest, Route as ClientRoute};
use shared::telemetry::ErrorChain;
use shared::wiring::Wiring;
use tracing::{error, info, warn};

mod answer;
mod start;

pub const START_ROUTE: &str = ClientRoute::StartMatchmaking.as_str();
pub const ACCEPT_ROUTE: &str = ClientRoute::AcceptMatch.as_str();
pub const STOP_ROUTE: &str = ClientRoute::StopMatchmaking.as_str();
pub const ATTRIBUTES_ROUTE: &str = ClientRoute::SetMatchmakingAttributes.as_str();

/// What the routes use besides the settings and the clock.
pub struct Ports {
    /// The caller's (or their party's) pending-request slot, judging tickets and
    /// placements a fault left behind in it.
    pub pending: PendingRequests,
    /// `startMatchmaking`s, against the placement requests' limit.
    pub limit: CallLimit,
    /// `stopMatchmaking` without `ticketId`: the caller's pending ticket.
    pub player: Arc<dyn PlayerReader>,
    /// The party members' latencies and attributes.
    pub players: Arc<dyn PlayerLookup>,
    /// A member's own attributes (`setMatchmakingAttributes`).
    pub profiles: Arc<dyn Profiles>,
    pub tickets: Arc<dyn TicketReader>,
    pub recorder: Arc<dyn TicketRecorder>,
    /// A ticket GameLift refused ends FAILED (nothing pushed: the reply says it).
    pub changes: Arc<dyn TicketChanges>,
    pub matchmaker: Arc<dyn Matchmaker>,
}

/// The matchmaking routes as every deployment builds them: `startMatchmaking` counts
/// against the placement requests' rate limit.
pub fn wire(w: &Wiring) -> MatchmakingHandler {
    let settings = w.matchmaking.clone();
    // Without a configuration the routes answer `unavailable` before asking FlexMatch:
    // no matchmaker is built (and the role grants none).
    let matchmaker: Arc<dyn Matchmaker> = if settings.configurations.is_empty() {
        Arc::new(NotSetUp)
    } else {
        w.services.matchmaker()
    };
    MatchmakingHandler {
        settings,
        ports: Ports {
            pending: w
                .pending_requests()
                .judging_tickets(w.stores.ticket_reader()),
            limit: CallLimit::new(
                w,
                Bucket::Placement,
                w.config.rate_limits.placements_per_minute,
                "placement and matchmaking requests",
            ),
            player: w.stores.player_reader(),
            players: w.stores.player_lookup(),
            profiles: w.stores.profiles(),
            tickets: w.stores.ticket_reader(),
            recorder: w.stores.ticket_recorder(),
            changes: w.stores.ticket_changes(TicketPushes::Never),
            matchmaker,
        },
        clock: w.clock.clone(),
    }
}

/// The matchmaker of a stack with no matchmaking configuration: never asked (the
/// routes refuse first), and refusing if it were.
struct NotSetUp;

#[async_trait]
impl Matchmaker for NotSetUp {
    async fn start_matchmaking(&self, _: &MatchmakingRequest) -> Result<(), GameLiftError> {
        Err(not_set_up())
    }

    async fn accept_match(
        &self,
        _: &TicketId,
        _: &[PlayerId],
        _: bool,
    ) -> Result<(), GameLiftError> {
        Err(not_set_up())
    }

    async fn stop_matchmaking(&self, _: &TicketId) -> Result<(), GameLiftError> {
        Err(not_set_up())
    }
}

fn not_set_up() -> GameLiftError {
    GameLiftError::Unavailable("matchmaking is not set up here".into())
}

pub struct MatchmakingHandler {
    settings: MatchmakingSettings,
    ports: Ports,
    clock: Arc<dyn Clock>,
}

pub(crate) fn store_refusal(err: StoreError) -> RouteError {
    RouteError::from_store(err, NOTHING_CHANGED)
}

/// What a client is told when a store failed.
pub(crate) const NOTHING_CHANGED: &str = "nothing was changed; retry";

/// GameLift's refusal as the client's error.
pub(crate) fn gamelift_refusal(
    call: &str,
    ticket: &TicketId,
    refusal: &GameLiftError,
) -> RouteError {
    let message = match refusal {
        GameLiftError::Unavailable(source) | GameLiftError::OutcomeUnknown(source) => {
            warn!(ticket_id = %ticket, call, error = %ErrorChain(source.as_ref()), "GameLift unavailable");
            "GameLift is unavailable; retry".to_owned()
        }
        GameLiftError::Other(source) => {
            error!(ticket_id = %ticket, call, error = %ErrorChain(source.as_ref()), "GameLift call failed");
            format!("{call} failed")
        }
        refusal => {
            info!(ticket_id = %ticket, call, error = %ErrorChain(refusal), "GameLift refused");
            refusal.to_string()
        }
    };
    RouteError::new(refusal.code(), message)
}

#[async_trait]
impl Route for MatchmakingHandler {
    const SERVES: Serves = Serves {
        function: "matchmaking",
        routes: &[
            ClientRoute::StartMatchmaking,
            ClientRoute::AcceptMatch,
            ClientRoute::StopMatchmaking,
            ClientRoute::SetMatchmakingAttributes,
        ],
    };

    async fn answer(&self, request: &Request) -> Result<Reply, RouteError> {
        if self.settings.configurations.is_empty() {
            return Err(RouteError::new(
                ErrorCode::Unavailable,
                "matchmaking is not set up here: no matchmaking configuration is configured \
                 (MATCHMAKING_CONFIGURATIONS; locally, --matchmaking-rule-set)",
            ));
        }
        let ack = match &request.frame {
            ClientRequest::StartMatchmaking { body, .. } => {
                RouteAck::StartMatchmaking(self.start(request, body).await?)
            }
            ClientRequest::AcceptMatch { body, .. } => {
                RouteAck::AcceptMatch(self.accept(request, body).await?)
            }
            ClientRequest::StopMatchmaking { body, .. } => {
                RouteAck::StopMatchmaking(self.stop(request, body).await?)
            }
            ClientRequest::SetMatchmakingAttributes { body, .. } => {
                RouteAck::SetMatchmakingAttributes(self.set_attributes(request, body).await?)
            }
            _ => return Ok(Reply::WrongRoute),
        };
        Ok(Reply::Ack(ack))
    }
}

#[cfg(test)]
mod tests;
