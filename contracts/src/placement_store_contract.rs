//! The `PlacementStore` and `PlacementOutcomes` contract, one test per scenario:
//! `contracts::placement_store_contract_tests!(factory)` expands to one `#[tokio::test]` per
//! scenario below, each on fresh [`PlacementStores`] (sharing one backend) from `factory`.

use std::sync::Arc;

use crate::Inboxes;

use crate::PlacementsTable;
use crate::PlayersTable;
use shared::domain::{EpochMillis, GameSession, PlacementStatus};
use shared::messaging::NewMessage;
use shared::pending::Reservation;
use shared::placement::{PlacementRecord, Settlement};
use shared::players::PlayerRecord;
use shared::ports::{PlacementOutcomes, StoreError};

use crate::fixtures::{
    self, T0, pending, placed_game_session, placement_id, placement_message, player,
};

/// The stores a scenario works on; `outcomes` must settle into these `placements`,
/// `players` and `messages`.
pub struct PlacementStores {
    pub placements: Arc<dyn PlacementsTable>,
    pub outcomes: Arc<dyn PlacementOutcomes>,
    pub players: Arc<dyn PlayersTable>,
    pub messages: Arc<dyn Inboxes>,
}

/// `name` connected on `c-<name>` at `at`.
async fn connect(stores: &PlacementStores, name: &str, at: EpochMillis) {
    fixtures::connected(&*stores.players, name, &format!("c-{name}"), at).await;
}

/// When the scenarios' placements end.
const SETTLED_AT: EpochMillis = T0 + 5_000;

fn message(id: &str, recipient: &str, status: PlacementStatus) -> NewMessage {
    placement_message(id, recipient, status, SETTLED_AT)
}

fn settlement(id: &str, status: PlacementStatus, players: &[&str]) -> Settlement {
    fixtures::settlement(id, status, players, SETTLED_AT)
}

/// Everything in `recipient`'s inbox, as it was appended (seqs left out).
async fn pending_messages(stores: &PlacementStores, recipient: &str) -> Vec<NewMessage> {
    fixtures::inbox(&*stores.messages, recipient, T0)
        .await
        .into_iter()
        .map(|m| NewMessage {
            message_id: m.message_id,
            recipient_id: m.recipient_id,
            sender_id: m.sender_id,
            kind: m.kind,
            payload: m.payload,
            created_at: m.created_at,
            expire_at_secs: m.expire_at_secs,
        })
        .collect()
}

/// What a read found, which must be there.
fn found<T>(read: Result<Option<T>, StoreError>) -> T {
    read.expect("store read").expect("found")
}

/// The player's record, which must be there.
async fn record(stores: &PlacementStores, name: &str) -> PlayerRecord {
    found(stores.players.get(&player(name)).await)
}

/// The placement, which must be there.
async fn stored_placement(stores: &PlacementStores, id: &str) -> PlacementRecord {
    found(stores.placements.get(&placement_id(id)).await)
}

/// As `sessionPlacementRequest` begins placement `id` for `players` (the first leads):
/// the leader's pending slot reserved, then the placement created, pending.
async fn begin(stores: &PlacementStores, id: &str, players: &[&str]) {
    let leader = player(players[0]);
    assert_eq!(
        stores.players.reserve(&leader, &pending(id)).await.unwrap(),
        Reservation::Reserved
    );
    let mut placement = PlacementRecord::pending(placement_id(id), leader, "eu-queue", T0);
    placement.player_ids = players.iter().map(|name| player(name)).collect();
    stores.placements.create(&placement).await.unwrap();
}

/// `players` connected and seated in [`placed_game_session`] by placement `p-1`, fulfilled.
async fn seated(stores: &PlacementStores, players: &[&str]) {
    for name in players {
        connect(stores, name, T0).await;
    }
    begin(stores, "p-1", players).await;
    let fulfilled = settlement("p-1", PlacementStatus::Fulfilled, players);
    assert!(stores.outcomes.settle(&fulfilled).await.unwrap());
}

/// A rejoin's new seat stored for `name`: whether it was written.
async fn rejoin(stores: &PlacementStores, name: &str, seat: &GameSession) -> bool {
    stores
        .players
        .update_game_session(&player(name), seat)
        .await
        .unwrap()
}

/// A refresh of `name`'s seat stored: whether it was written.
async fn refresh(stores: &PlacementStores, name: &str, seat: &GameSession) -> bool {
    stores
        .players
        .refresh_seat(&player(name), seat)
        .await
        .unwrap()
}

pub async fn given_a_new_placement_when_created_then_it_reads_back_pending_and_its_id_is_never_reused(
    stores: &PlacementStores,
) {
    assert_eq!(
        stores.placements.get(&placement_id("p-1")).await.unwrap(),
        None
    );
    let placement = PlacementRecord::pending(placement_id("p-1"), player("alice"), "eu-queue", T0);
    stores.placements.create(&placement).await.unwrap();
    assert_eq!(
        stores.placements.get(&placement_id("p-1")).await.unwrap(),
        Some(placement.clone())
    );
    assert_eq!(placement.player_ids, vec![player("alice")]);
    assert_eq!(placement.status, PlacementStatus::Pending);
    assert!(stores.placements.create(&placement).await.is_err());
}

pub async fn given_a_pending_placement_when_marked_failed_then_failed_once(
    stores: &PlacementStores,
) {
    let placement = PlacementRecord::pending(placement_id("p-1"), player("alice"), "eu-queue", T0);
    stores.placements.create(&placement).await.unwrap();
    // Once; then never again, nor for an unknown placement.
    for (id, at, marked) in [
        ("p-1", T0 + 1, true),
        ("p-1", T0 + 2, false),
        ("p-unknown", T0, false),
    ] {
        let result = stores.placements.mark_failed(&placement_id(id), at).await;
        assert_eq!(result.unwrap(), marked, "{id} at {at}");
    }
    let stored = stored_placement(stores, "p-1").await;
    assert_eq!(stored.status, PlacementStatus::Failed);
    assert_eq!(stored.updated_at, T0 + 1);
    // A failed placement is final: an event cannot settle it any more.
    let late = settlement("p-1", PlacementStatus::Failed, &["alice"]);
    assert!(!stores.outcomes.settle(&late).await.unwrap());
    assert!(pending_messages(stores, "alice").await.is_empty());
}

pub async fn given_a_pending_placement_when_fulfilled_then_placement_players_and_messages_change_together(
    stores: &PlacementStores,
) {
    connect(stores, "alice", T0).await;
    connect(stores, "bob", T0).await;
    begin(stores, "p-1", &["alice", "bob"]).await;

    let fulfilled = settlement("p-1", PlacementStatus::Fulfilled, &["alice", "bob"]);
    assert!(stores.outcomes.settle(&fulfilled).await.unwrap());

    let stored = stored_placement(stores, "p-1").await;
    assert_eq!(stored.status, PlacementStatus::Fulfilled);
    assert_eq!(stored.updated_at, T0 + 5_000);
    assert_eq!(stored.created_at, T0);
    assert_eq!(stored.game_session, Some(placed_game_session()));
    assert_eq!(
        stored
            .player_sessions
            .get(&player("bob"))
            .map(String::as_str),
        Some("psess-bob")
    );
    assert_eq!(stored.player_sessions.len(), 2);

    for name in ["alice", "bob"] {
        let record = record(stores, name).await;
        assert_eq!(record.pending, None, "{name}");
        assert_eq!(
            record.game_session,
            Some(placed_game_session().seat(format!("psess-{name}"))),
            "{name}: each player gets their own player session"
        );
        let messages = pending_messages(stores, name).await;
        assert_eq!(
            messages,
            vec![message("p-1", name, PlacementStatus::Fulfilled)]
        );
    }
    let alice = record(stores, "alice").await;
    assert_eq!(alice.last_request, Some(pending("p-1")));

    // The seat survives a reconnect, and a rejoin replaces it within the same game only.
    connect(stores, "alice", T0 + 10_000).await;
    let rejoined = placed_game_session().seat("psess-alice-2");
    assert!(rejoin(stores, "alice", &rejoined).await);
    let mut other_game = placed_game_session().seat("psess-alice-3");
    other_game.game_session_arn = "arn:aws:gamelift:eu-west-1::gamesession/fleet-1/gs-2".into();
    assert!(!rejoin(stores, "alice", &other_game).await);
    let alice = record(stores, "alice").await;
    assert_eq!(alice.game_session, Some(rejoined));
}

pub async fn given_a_settled_placement_when_the_same_outcome_comes_again_then_nothing_is_written(
    stores: &PlacementStores,
) {
    connect(stores, "alice", T0).await;
    begin(stores, "p-1", &["alice"]).await;
    let fulfilled = settlement("p-1", PlacementStatus::Fulfilled, &["alice"]);
    assert!(stores.outcomes.settle(&fulfilled).await.unwrap());
    // Then a new placement begins.
    assert_eq!(pending_messages(stores, "alice").await.len(), 1);
    stores
        .players
        .reserve(&player("alice"), &pending("p-2"))
        .await
        .unwrap();

    let mut duplicate = fulfilled.clone();
    duplicate.at = T0 + 9_000;
    assert!(!stores.outcomes.settle(&duplicate).await.unwrap());
    assert_eq!(
        pending_messages(stores, "alice").await.len(),
        1,
        "a duplicate appends nothing"
    );
    let stored = stored_placement(stores, "p-1").await;
    assert_eq!(stored.updated_at, T0 + 5_000);
    let alice = record(stores, "alice").await;
    assert_eq!(alice.pending, Some(pending("p-2")));
}

pub async fn given_a_cancelled_placement_when_a_late_fulfilled_event_lands_then_nothing_changes(
    stores: &PlacementStores,
) {
    connect(stores, "alice", T0).await;
    begin(stores, "p-1", &["alice"]).await;
    let cancelled = settlement("p-1", PlacementStatus::Cancelled, &["alice"]);
    assert!(stores.outcomes.settle(&cancelled).await.unwrap());
    let alice = record(stores, "alice").await;
    assert_eq!(alice.pending, None);
    assert_eq!(alice.game_session, None);

    let late = settlement("p-1", PlacementStatus::Fulfilled, &["alice"]);
    assert!(!stores.outcomes.settle(&late).await.unwrap());
    let stored = stored_placement(stores, "p-1").await;
    assert_eq!(stored.status, PlacementStatus::Cancelled);
    assert_eq!(stored.game_session, None);
    let alice = record(stores, "alice").await;
    assert_eq!(alice.game_session, None);
    assert_eq!(
        pending_messages(stores, "alice").await,
        vec![message("p-1", "alice", PlacementStatus::Cancelled)]
    );
}

pub async fn given_an_unknown_placement_when_settled_then_nothing_is_written(
    stores: &PlacementStores,
) {
    connect(stores, "alice", T0).await;
    let unknown = settlement("p-elsewhere", PlacementStatus::Fulfilled, &["alice"]);
    assert!(!stores.outcomes.settle(&unknown).await.unwrap());
    assert_eq!(
        stores
            .placements
            .get(&placement_id("p-elsewhere"))
            .await
            .unwrap(),
        None
    );
    let alice = record(stores, "alice").await;
    assert_eq!(alice.game_session, None);
    assert!(pending_messages(stores, "alice").await.is_empty());
}

pub async fn given_a_later_pending_placement_when_an_older_one_settles_then_the_later_one_stays(
    stores: &PlacementStores,
) {
    connect(stores, "alice", T0).await;
    stores
        .placements
        .create(&PlacementRecord::pending(
            placement_id("p-old"),
            player("alice"),
            "eu-queue",
            T0,
        ))
        .await
        .unwrap();
    stores
        .players
        .reserve(&player("alice"), &pending("p-new"))
        .await
        .unwrap();
    let timed_out = settlement("p-old", PlacementStatus::TimedOut, &["alice"]);
    assert!(stores.outcomes.settle(&timed_out).await.unwrap());
    let alice = record(stores, "alice").await;
    assert_eq!(alice.pending, Some(pending("p-new")));
    assert_eq!(
        stored_placement(stores, "p-old").await.status,
        PlacementStatus::TimedOut
    );
}

pub async fn given_more_players_than_one_transaction_takes_when_settled_then_every_one_is_settled_once(
    stores: &PlacementStores,
) {
    let names: Vec<String> = (0..120).map(|i| format!("many{i:03}")).collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut placement =
        PlacementRecord::pending(placement_id("p-big"), player("many000"), "eu-queue", T0);
    placement.player_ids = refs.iter().map(|n| player(n)).collect();
    stores.placements.create(&placement).await.unwrap();
    // Placed players who never connected: their game state waits for their first connect.
    let fulfilled = settlement("p-big", PlacementStatus::Fulfilled, &refs);
    assert!(stores.outcomes.settle(&fulfilled).await.unwrap());
    assert!(!stores.outcomes.settle(&fulfilled).await.unwrap());

    let stored = stored_placement(stores, "p-big").await;
    assert_eq!(stored.status, PlacementStatus::Fulfilled);
    assert_eq!(stored.player_sessions.len(), 120);
    for name in &refs {
        assert_eq!(
            pending_messages(stores, name).await,
            vec![message("p-big", name, PlacementStatus::Fulfilled)],
            "{name}"
        );
    }
    assert_eq!(stores.players.get(&player("many119")).await.unwrap(), None);
    connect(stores, "many119", T0 + 1).await;
    let last = record(stores, "many119").await;
    assert_eq!(
        last.game_session,
        Some(placed_game_session().seat("psess-many119"))
    );
}

pub async fn given_a_seated_player_when_their_game_is_reported_over_then_the_seat_goes_and_the_game_is_remembered_as_ended(
    stores: &PlacementStores,
) {
    seated(stores, &["alice", "bob"]).await;
    let arn = placed_game_session().game_session_arn;

    let other = "arn:aws:gamelift:eu-west-1::gamesession/fleet-1/other";
    // Another game: nothing changes. Then twice, or for a player with no item: nothing
    // to clear.
    for (name, game, applied) in [
        ("alice", other, false),
        ("alice", arn.as_str(), true),
        ("alice", arn.as_str(), false),
        ("ghost", arn.as_str(), false),
    ] {
        let ended = stores
            .players
            .end_game_session(&player(name), game)
            .await
            .unwrap();
        assert_eq!(ended, applied, "{name} ending {game}");
    }

    let alice = record(stores, "alice").await;
    assert_eq!(alice.game_session, None);
    assert_eq!(alice.ended_game_session.as_deref(), Some(arn.as_str()));
    let bob = record(stores, "bob").await;
    assert!(bob.game_session.is_some(), "bob's seat is his own: {bob:?}");
    assert_eq!(bob.ended_game_session, None);
}

/// One `#[tokio::test]` per scenario of this contract, each on `$factory().await` (an
/// async function returning fresh [`PlacementStores`]).
pub async fn given_a_refresh_and_a_rejoin_racing_when_the_stale_refresh_stores_last_then_it_loses_and_the_rejoined_seat_stays(
    stores: &PlacementStores,
) {
    // Given alice seated in gs-1 as psess-alice
    seated(stores, &["alice"]).await;
    let mut refreshed = placed_game_session().seat("psess-alice");
    refreshed.connection = Some(shared::domain::ConnectionDetails {
        endpoints: vec![shared::domain::ConnectionEndpoint {
            ip_address: "198.51.100.7".into(),
            port: 17_777,
        }],
        player_gateway_token: Some("pgt-stale".into()),
        expires_at: Some(T0 + 600_000),
    });

    // When a rejoin stores a new player session in the same game, and then the refresh
    // that read the old seat stores that seat's fresh details
    let rejoined = placed_game_session().seat("psess-alice-2");
    assert!(rejoin(stores, "alice", &rejoined).await);
    let stale = refresh(stores, "alice", &refreshed).await;

    // Then the stale write loses, and the rejoined seat stays
    assert!(!stale, "the old player session's details are refused");
    let alice = record(stores, "alice").await;
    assert_eq!(alice.game_session, Some(rejoined.clone()));
    // And a refresh of the seat she holds now is stored
    let mut current = refreshed;
    current.player_session_id = "psess-alice-2".into();
    assert!(refresh(stores, "alice", &current).await);
    let alice = record(stores, "alice").await;
    assert_eq!(alice.game_session, Some(current));
    // And a player with no seat (or no item) gets nothing written
    assert!(!refresh(stores, "ghost", &rejoined).await);
}

#[macro_export]
macro_rules! placement_store_contract_tests {
    ($factory:expr) => {
        $crate::contract_scenarios!(placement_store_contract, $factory, [
            given_a_new_placement_when_created_then_it_reads_back_pending_and_its_id_is_never_reused,
            given_a_pending_placement_when_marked_failed_then_failed_once,
            given_a_pending_placement_when_fulfilled_then_placement_players_and_messages_change_together,
            given_a_settled_placement_when_the_same_outcome_comes_again_then_nothing_is_written,
            given_a_cancelled_placement_when_a_late_fulfilled_event_lands_then_nothing_changes,
            given_an_unknown_placement_when_settled_then_nothing_is_written,
            given_a_later_pending_placement_when_an_older_one_settles_then_the_later_one_stays,
            given_more_players_than_one_transaction_takes_when_settled_then_every_one_is_settled_once,
            given_a_seated_player_when_their_game_is_reported_over_then_the_seat_goes_and_the_game_is_remembered_as_ended,
            given_a_refresh_and_a_rejoin_racing_when_the_stale_refresh_stores_last_then_it_loses_and_the_rejoined_seat_stays,
        ]);
    };
}
