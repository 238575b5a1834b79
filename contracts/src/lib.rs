//! What tests share: the contract suites every adapter of a port must pass (run on the
//! in-memory adapters in `memory-adapters`, on DynamoDB Local in `tests/`), fakes of
//! the outside services (a recording gateway, GameLift, FlexMatch), a store that is
//! always unavailable, fixtures and API Gateway-shaped events. Tests only: no function
//! links it.
//!
//! # Where each guarantee is enforced
//!
//! The DynamoDB conditions below are the mechanism in production; the in-memory adapters
//! give the same answers under the same races, which the contract suites here check
//! against both.
//!
//! | guarantee | mechanism | code |
//! |---|---|---|
//! | At most one pending placement per player | `pendingPlacementId` is set by one UpdateItem conditional on `attribute_not_exists(pendingPlacementId)`; a conflict names the pending placement from the same write (ALL_OLD on condition failure). A pending placement left by a fault (record final, or never recorded after 60 s) is cleared on the next request | `BEGIN_PLACEMENT_CONDITION` in `adapters/aws/src/dynamodb/player_store.rs`; `clear_if_stale` in `functions/session-placement-request/src/lib.rs` |
//! | A placement is settled once | every status write is conditional on `status = PENDING`; the settlement is one transaction (placement, players, messages), so a duplicate or out-of-order event cancels it whole; large settlements continue by `settledChunks`; a refused request is marked FAILED before the player is cleared | `PENDING_CONDITION`, `placement_update` in `adapters/aws/src/dynamodb/placement_store.rs`; `settle` in `functions/on-placement-event/src/lib.rs`; `fail` in `functions/session-placement-request/src/lib.rs` |
//! | A late `$disconnect` never clobbers a newer connection | `$disconnect` (and `heartbeat`) write only under `connectionId = :connectionId AND status = online`; racing connects are ordered by `connectedAt` (`attribute_not_exists(connectedAt) OR connectedAt <= :connectedAt`); the older one writes nothing | `CURRENT_ONLINE_CONDITION`, `CONNECT_CONDITION` in `adapters/aws/src/dynamodb/player_store.rs`; `functions/disconnect/src/lib.rs` |
//! | Exactly one socket per player stays | the older of two racing connects writes nothing and its first frame gets `session_replaced` + close; a takeover closes the old socket at `$connect`, and again at the new socket's `resume` (the old one may still have been opening); a `heartbeat` from a socket that is not current is answered `session_replaced` and changes nothing (the client closes it; the sweeper does not track it) | `ConnectOutcome::Superseded` in `functions/connect/src/lib.rs`; `close_this`, `close_replaced` in `functions/resume/src/lib.rs`; the condition of `HeartbeatIntegration` in template.yaml |
//! | Presence converges | `$disconnect` is best effort, so `presence-timeout` runs every minute over the sparse `BySweepShard` index (only online and disconnected players are in it) and reads each one's `sweepAt`, asks API Gateway about each expired online player's socket (GetConnection: a `ping` within the timeout keeps it), marks each expired player offline, closes zombie sockets and publishes `presence.disconnected`; a page or player it cannot finish stays in the index for the next run | `functions/presence-timeout/src/lib.rs`; `PresenceTimeoutFunction` schedule and `BySweepShard` in `template.yaml` |
//! | A heartbeat wins a race with the sweeper; a ping keeps a player online | the sweeper's write is conditional on `sweepAt < now` on the item itself, not on what its index query saw: a heartbeat (or reconnect) that moved `sweepAt` forward meanwhile makes it fail, and the player is left alone; before it, an online player whose socket GetConnection shows active within the timeout is not touched (`Retired::Active`) | `MARK_OFFLINE_CONDITION`, `HEARTBEAT_UPDATE` in `adapters/aws/src/dynamodb/player_store.rs`; `Retired::StillHere` in `functions/presence-timeout/src/lib.rs` |
//! | A bad frame never closes the connection | a frame that does not parse, or a body field that is wrong, is answered with an `error` frame in a 200 reply, never a Lambda error; unmatched routes go to `$default`, which replies too. (Of all frames, only those over API Gateway's own size limits close a socket, with 1009.) | `UntypedRequest::parse` in `protocol/src/frames.rs`, `ClientRequest::from_frame` in `protocol/src/requests/body.rs`; `Request::open` in `edge/src/websocket/request.rs`, `untyped_request` in `edge/src/websocket/mod.rs`; `functions/default/src/lib.rs` |
//! | A frame `protocol/schema.json` allows is never refused as malformed, and one it refuses is never acked | every route's body is deserialized into the protocol crate's type, whose rules are its schema (what the schema cannot know is another code: `not_found` for a queue or configuration the stack lacks, `forbidden` for a `maxSize` over `PARTY_MAX_SIZE`; kicking or inviting yourself, and GameLift's refusal of an attribute for its rule set, stay `bad_request`: they are about who asks and the game, not the frame's shape); `heartbeat`'s body, read by API Gateway's template, has its own schema (`HeartbeatBody`: a cursor of at most 15 digits); the `client_frames` suite sends frames made from the schema, both ways, over a real socket | `protocol/src/requests.rs`, `requests/body.rs`; `tests/suites/client_frames.rs` |
//! | Every pushed frame reaches a client that comes back within the TTL | appends at consecutive seqs (conditional puts); live posts only to a connection after its hand-over and above its `liveFrom`; `resume` replays after the client's cursor, then hands over in a transaction that fails if the inbox moved; see `shared::messaging` | `adapters/aws/src/dynamodb/inbox.rs`, `message_store.rs`; `functions/on-message-inserted/src/lib.rs`; `functions/resume/src/lib.rs` |
//! | A party change is never lost, and never half-written | the party is written only on the version it was computed from, with the members' links and every member's push, in one transaction; the loser of a race computes its change again from the party as it now is | `DynamoPartyStore::commit` in `adapters/aws/src/dynamodb/party_store.rs`; `Parties::apply` in `shared/src/party/service.rs` |
//! | A player is in at most one party, and a party never exceeds its size | `partyId` is set only if absent, in the same transaction as the join, which is conditional on the version whose member count was checked | `JOIN_CONDITION` in `adapters/aws/src/dynamodb/party_store.rs`; `Party::join` in `shared/src/party/change.rs` |
//! | A backend kick's frame comes before the close, and never ends a later connection | the kick is an inbox item naming the connection; its deliverer (the stream consumer, or that connection's `resume`) posts it and then closes that connection; deliveries to any other connection skip it | `close_kicked` in `functions/on-message-inserted/src/lib.rs`; `post_all` in `functions/resume/src/lib.rs`; `StoredMessage::kicks` in `shared/src/ports/messages.rs` |
//! | A game reported over is `session_ended` without GameLift | the seat is removed and `endedGameSessionArn` set in one write conditional on the seat being in that game | `END_GAME_SESSION` in `adapters/aws/src/dynamodb/player_game_state.rs`; `rejoin` in `functions/rejoin-session/src/lib.rs` |
//! | A party is placed together, or not at all | every member's `pendingPlacementId` is set in one transaction that checks the party's version and leader; one pending placement fails it whole | `PartySlots::reserve_party` (`DynamoPartyStore`); `PendingRequests` in `shared/src/pending/service.rs` |

#![allow(clippy::unwrap_used, clippy::expect_used)] // Test support: a panic is the test failing, with its message.

pub mod events;
pub mod fake_gamelift;
pub mod fake_matchmaker;
pub mod fixtures;
pub mod friend_store_contract;
pub mod message_store_contract;
pub mod party_store_contract;
pub mod placement_store_contract;
pub mod player_store_contract;
pub mod rate_limiter_contract;
pub mod recording_gateway;
pub mod subscription_store_contract;
pub mod ticket_store_contract;
pub mod unavailable;

use shared::ports::{
    Activities, Blocks, Connections, FriendCommits, FriendReader, InboxReader, MessageStore,
    OfflineParties, PartyCommits, PartyReader, PartySlots, PendingSlots, PlacementReader,
    PlacementRecorder, PlayerLookup, PlayerReader, PresenceSweep, Profiles, RateLimiter, Seats,
    Subscriptions, TicketChanges, TicketReader, TicketRecorder, Watchers,
};

/// A trait that is the sum of its bounds, implemented for every type that has them all:
/// each list of ports is written once.
macro_rules! ports_of {
    ($(#[$doc:meta])* $name:ident: $first:ident $(+ $rest:ident)*) => {
        $(#[$doc])*
        pub trait $name: $first $(+ $rest)* {}

        impl<T> $name for T where T: $first $(+ $rest)* + ?Sized {}
    };
}

ports_of! {
    /// Every port one adapter of the Players table offers but the heartbeat (a deployed
    /// heartbeat is API Gateway's own UpdateItem, its contract run on the mapping
    /// template): what a contract scenario exercises together.
    PlayersTable: PlayerReader
        + PlayerLookup
        + Connections
        + PresenceSweep
        + PendingSlots
        + Seats
        + Profiles
        + Activities
        + RateLimiter
}

ports_of! {
    /// Every port of the Parties table.
    PartiesTable: PartyReader + PartyCommits + PartySlots + OfflineParties
}

ports_of! {
    /// Every port of the Placements table's placements.
    PlacementsTable: PlacementReader + PlacementRecorder
}

ports_of! {
    /// Every port of the Placements table's tickets.
    TicketsTable: TicketReader + TicketRecorder + TicketChanges
}

ports_of! {
    /// Every port of the Messages table's inboxes (the hand-over aside).
    Inboxes: MessageStore + InboxReader
}

ports_of! {
    /// Every port of the PresenceSubscriptions table.
    SubscriptionsTable: Subscriptions + Watchers
}

ports_of! {
    /// Every port of the Friends table.
    FriendsTable: FriendReader + FriendCommits + Blocks
}

/// Every port trait, for tests that call adapters directly: `use contracts::ports::*;`.
pub mod ports {
    pub use shared::ports::{
        Blocks, Clock, ConnectionGateway, ConnectionProbe, Connections, DeliveryHandover, EventBus,
        FriendCommits, FriendReader, Heartbeats, InboxReader, Matchmaker, MessageStore,
        OfflineParties, PartyCommits, PartyReader, PartySlots, PendingSlots, PlacementOutcomes,
        PlacementReader, PlacementRecorder, PlacementStarter, PlacementStopper, PlayerLookup,
        PlayerReader, PlayerSessions, PresenceSweep, Profiles, RateLimiter, Seats, Subscriptions,
        TicketChanges, TicketReader, TicketRecorder, Watchers,
    };
}

/// One `#[tokio::test]` per named scenario of a contract module, each run on
/// `$factory().await`: what every `*_contract_tests!` macro expands to.
#[doc(hidden)]
#[macro_export]
macro_rules! contract_scenarios {
    ($module:ident, $factory:expr, [$($scenario:ident),* $(,)?]) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $scenario() {
                $crate::$module::$scenario(&$factory().await).await;
            }
        )*
    };
}
