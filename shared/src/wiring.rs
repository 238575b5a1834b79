//! What a function is built from: each function's `wire(&Wiring)` asks for the narrow
//! ports its handler uses, and nothing else, from [`Stores`] and [`Services`]. The
//! same `wire` builds the function in Lambda (`aws-adapters`, which also records the
//! AWS calls each port it builds can make: tests/suites/template_drift/calls_grants.rs compares them
//! with the function's role), in the local stack (memory or DynamoDB Local, the
//! simulators) and in the tools.

use std::sync::Arc;

use crate::config::Config;
use crate::keep_alive::KeepAlive;
use crate::matchmaking::{MatchmakingSettings, TicketPushes};
use crate::party::{CommitScope, Parties};
use crate::pending::PendingRequests;
use crate::ports::{
    Activities, Blocks, Clock, ConnectionGateway, ConnectionProbe, Connections, DeliveryHandover,
    EventBus, FriendCommits, FriendReader, InboxReader, Matchmaker, MessageStore, OfflineParties,
    PartyCommits, PartyReader, PartySlots, PendingSlots, PlacementOutcomes, PlacementReader,
    PlacementRecorder, PlacementStarter, PlacementStopper, PlayerConnections, PlayerLookup,
    PlayerReader, PlayerSessions, PresenceSweep, Profiles, RateLimiter, RecipientCheck, Seats,
    SeparateReads, Subscriptions, TicketChanges, TicketReader, TicketRecorder, Watchers,
};
use crate::seats::SeatConnector;

/// The tables' ports, one per concern (`crate::ports`). An implementation builds each
/// adapter when asked, so a function gets (and its role needs) only what it asks for.
pub trait Stores: Send + Sync {
    fn player_reader(&self) -> Arc<dyn PlayerReader>;
    fn player_lookup(&self) -> Arc<dyn PlayerLookup>;
    fn connections(&self) -> Arc<dyn Connections>;
    fn presence_sweep(&self) -> Arc<dyn PresenceSweep>;
    fn pending_slots(&self) -> Arc<dyn PendingSlots>;
    fn seats(&self) -> Arc<dyn Seats>;
    fn profiles(&self) -> Arc<dyn Profiles>;
    fn activities(&self) -> Arc<dyn Activities>;
    fn rate_limiter(&self) -> Arc<dyn RateLimiter>;
    fn message_store(&self) -> Arc<dyn MessageStore>;
    fn inbox_reader(&self) -> Arc<dyn InboxReader>;
    fn delivery_handover(&self) -> Arc<dyn DeliveryHandover>;
    fn placement_reader(&self) -> Arc<dyn PlacementReader>;
    fn placement_recorder(&self) -> Arc<dyn PlacementRecorder>;
    fn placement_outcomes(&self) -> Arc<dyn PlacementOutcomes>;
    fn ticket_reader(&self) -> Arc<dyn TicketReader>;
    fn ticket_recorder(&self) -> Arc<dyn TicketRecorder>;
    fn ticket_changes(&self, pushes: TicketPushes) -> Arc<dyn TicketChanges>;
    fn party_reader(&self) -> Arc<dyn PartyReader>;
    fn party_commits(&self, scope: CommitScope) -> Arc<dyn PartyCommits>;
    fn party_slots(&self) -> Arc<dyn PartySlots>;
    fn offline_parties(&self) -> Arc<dyn OfflineParties>;
    fn subscriptions(&self) -> Arc<dyn Subscriptions>;
    fn watchers(&self) -> Arc<dyn Watchers>;
    fn friend_reader(&self) -> Arc<dyn FriendReader>;
    fn friend_commits(&self) -> Arc<dyn FriendCommits>;
    fn blocks(&self) -> Arc<dyn Blocks>;
    /// `sendMessage`'s two checks of its recipients, and a friend change's reads; by
    /// default the reads above at once, which a store that reads both tables in one call
    /// replaces.
    fn recipient_check(&self) -> Arc<dyn RecipientCheck> {
        Arc::new(SeparateReads {
            players: self.player_lookup(),
            blocks: self.blocks(),
            relations: self.friend_reader(),
        })
    }
}

/// The outside services' ports.
pub trait Services: Send + Sync {
    fn connection_gateway(&self) -> Arc<dyn ConnectionGateway>;
    fn connection_probe(&self) -> Arc<dyn ConnectionProbe>;
    fn event_bus(&self) -> Arc<dyn EventBus>;
    fn placement_starter(&self) -> Arc<dyn PlacementStarter>;
    fn placement_stopper(&self) -> Arc<dyn PlacementStopper>;
    fn player_sessions(&self) -> Arc<dyn PlayerSessions>;
    /// GetPlayerConnectionDetails; built only through [`Wiring::seat_connector`], when
    /// `PLAYER_GATEWAY` asks GameLift.
    fn player_connections(&self) -> Arc<dyn PlayerConnections>;
    fn matchmaker(&self) -> Arc<dyn Matchmaker>;
}

/// [`Services`] from one gateway (the `@connections` API or a stand-in), one event bus,
/// one GameLift and one matchmaker, each port the one object behind it: what the local
/// stack and the tools wire.
pub struct ServiceSet<G, L> {
    pub gateway: Arc<G>,
    pub events: Arc<dyn EventBus>,
    pub gamelift: Arc<L>,
    pub matchmaker: Arc<dyn Matchmaker>,
}

impl<G, L> Services for ServiceSet<G, L>
where
    G: ConnectionGateway + ConnectionProbe + 'static,
    L: PlacementStarter + PlacementStopper + PlayerSessions + PlayerConnections + 'static,
{
    fn connection_gateway(&self) -> Arc<dyn ConnectionGateway> {
        self.gateway.clone()
    }
    fn connection_probe(&self) -> Arc<dyn ConnectionProbe> {
        self.gateway.clone()
    }
    fn event_bus(&self) -> Arc<dyn EventBus> {
        self.events.clone()
    }
    fn placement_starter(&self) -> Arc<dyn PlacementStarter> {
        self.gamelift.clone()
    }
    fn placement_stopper(&self) -> Arc<dyn PlacementStopper> {
        self.gamelift.clone()
    }
    fn player_sessions(&self) -> Arc<dyn PlayerSessions> {
        self.gamelift.clone()
    }
    fn player_connections(&self) -> Arc<dyn PlayerConnections> {
        self.gamelift.clone()
    }
    fn matchmaker(&self) -> Arc<dyn Matchmaker> {
        self.matchmaker.clone()
    }
}

/// Everything a function's `wire` may ask for.
#[derive(Clone)]
pub struct Wiring {
    pub config: Arc<Config>,
    pub stores: Arc<dyn Stores>,
    pub services: Arc<dyn Services>,
    pub clock: Arc<dyn Clock>,
    /// What `resume` tells clients' timers: the configuration's (the local stack's is
    /// behind its own idle timeout).
    pub keep_alive: KeepAlive,
    /// The FlexMatch configurations a `startMatchmaking` may name (none: matchmaking is
    /// off, and its routes call nothing).
    pub matchmaking: MatchmakingSettings,
}

impl Wiring {
    /// Party changes and their pushes, committing only what `scope` holds.
    pub fn parties(&self, scope: CommitScope) -> Parties {
        Parties::new(
            self.stores.party_reader(),
            self.stores.party_commits(scope),
            self.clock.clone(),
            self.config.message_ttl_secs(),
        )
    }

    /// Seats' connection details as `PLAYER_GATEWAY` says: GameLift's
    /// GetPlayerConnectionDetails is built (and so must be granted) only when the mode
    /// asks it; disabled, seats carry the game server's address and nothing is called.
    pub fn seat_connector(&self) -> SeatConnector {
        let mode = self.config.player_gateway;
        if mode.asks_gamelift() {
            SeatConnector::new(mode, self.services.player_connections())
        } else {
            SeatConnector::disabled()
        }
    }

    /// A player's (or their party's) pending-request slot, judging only the queue
    /// placements a fault left behind in it (see [`PendingRequests`]).
    pub fn pending_requests(&self) -> PendingRequests {
        PendingRequests::new(
            self.stores.pending_slots(),
            self.stores.party_slots(),
            self.stores.party_reader(),
            self.stores.placement_reader(),
            self.clock.clone(),
        )
    }
}

/// A function's handler and its `wire(&Wiring)` in one declaration: each field is
/// written once, its type beside what `wire` builds it from (`field: Type = expr`), so
/// the struct and its wiring cannot drift apart.
///
/// ```
/// # use std::sync::Arc;
/// # use shared::ports::Clock;
/// shared::wired! {
///     /// The handler as every deployment builds it.
///     pub fn wire(w) -> pub struct Handler {
///         clock: Arc<dyn Clock> = w.clock.clone(),
///     }
/// }
/// ```
#[macro_export]
macro_rules! wired {
    (
        $(#[$wire_meta:meta])*
        $wire_vis:vis fn wire($w:ident) -> $(#[$meta:meta])* $vis:vis struct $name:ident {
            $($(#[$field_meta:meta])* $field:ident: $ty:ty = $init:expr),* $(,)?
        }
    ) => {
        $(#[$meta])*
        $vis struct $name {
            $($(#[$field_meta])* $field: $ty,)*
        }

        $(#[$wire_meta])*
        $wire_vis fn wire($w: &$crate::wiring::Wiring) -> $name {
            $name {
                $($field: $init,)*
            }
        }
    };
}
