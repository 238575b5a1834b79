//! The `TicketStore` contract, one test per scenario:
//! `contracts::ticket_store_contract_tests!(factory)` expands to one `#[tokio::test]` per
//! scenario below, each on fresh [`TicketStores`] (sharing one backend) from `factory`.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::Inboxes;

use crate::PlayersTable;
use crate::TicketsTable;
use crate::fixtures::{self, T0, placed_game_session, player};
use shared::domain::{EpochMillis, GameSession, MessageId};
use shared::matchmaking::{TicketChange, TicketPlayerChange, TicketRecord};
use shared::matchmaking::{TicketId, TicketStatus};
use shared::messaging::{MessageKind, NewMessage, StoredMessage};
use shared::pending::Pending;
use shared::pending::Reservation;

/// The stores a scenario works on; `tickets` must write into these `players` and
/// `messages`.
pub struct TicketStores {
    pub tickets: Arc<dyn TicketsTable>,
    pub players: Arc<dyn PlayersTable>,
    pub messages: Arc<dyn Inboxes>,
}

fn ticket_id() -> TicketId {
    TicketId::new_at(T0)
}

/// alice's (and bob's) ticket, recorded QUEUED and made their pending request.
async fn queued(stores: &TicketStores) -> TicketRecord {
    let ticket = TicketRecord::queued(
        ticket_id(),
        player("alice"),
        vec![player("bob")],
        "ranked",
        T0,
    );
    for name in ["alice", "bob"] {
        fixtures::connected(&*stores.players, name, &format!("c-{name}"), T0).await;
        let pending = Pending::of_ticket(&ticket.ticket_id).expect("our ticket");
        assert_eq!(
            stores
                .players
                .reserve(&player(name), &pending)
                .await
                .unwrap(),
            Reservation::Reserved
        );
    }
    stores.tickets.create(&ticket).await.unwrap();
    ticket
}

fn message(ticket: &TicketId, recipient: &str, status: TicketStatus) -> NewMessage {
    fixtures::system_message(
        MessageKind::Matchmaking,
        MessageId::deterministic(&["matchmaking", ticket.as_str(), status.as_str(), recipient]),
        recipient,
        format!(r#"{{"type":"matchmaking","ticketId":"{ticket}","status":"{status}"}}"#),
        T0,
    )
}

fn change(ticket: &TicketRecord, to: TicketStatus, at: EpochMillis, push: bool) -> TicketChange {
    let completed = to == TicketStatus::Completed;
    TicketChange {
        ticket_id: ticket.ticket_id.clone(),
        from: ticket.status,
        from_at: ticket.status_at,
        to,
        to_at: at,
        match_id: Some("match-1".into()),
        game_session: completed.then(placed_game_session),
        player_sessions: if completed {
            BTreeMap::from([
                (player("alice"), "psess-alice".to_owned()),
                (player("bob"), "psess-bob".to_owned()),
            ])
        } else {
            BTreeMap::new()
        },
        players: ["alice", "bob"]
            .into_iter()
            .map(|name| TicketPlayerChange {
                player_id: player(name),
                seat: completed.then(|| placed_game_session().seat(format!("psess-{name}"))),
                message: push.then(|| message(&ticket.ticket_id, name, to)),
            })
            .collect(),
        now: at + 3,
    }
}

/// What `recipient`'s inbox holds.
async fn inbox(stores: &TicketStores, recipient: &str) -> Vec<StoredMessage> {
    fixtures::inbox(&*stores.messages, recipient, T0).await
}

/// alice's (and bob's) [`queued`] ticket moved to `to` at `at` (pushing), which must
/// apply: the ticket as stored after.
async fn queued_then(stores: &TicketStores, to: TicketStatus, at: EpochMillis) -> TicketRecord {
    let ticket = queued(stores).await;
    let moved = change(&ticket, to, at, true);
    assert!(stores.tickets.advance(&moved).await.unwrap());
    stored(stores, &ticket).await
}

/// The ticket as stored, which must be there.
async fn stored(stores: &TicketStores, ticket: &TicketRecord) -> TicketRecord {
    stores
        .tickets
        .get(&ticket.ticket_id)
        .await
        .unwrap()
        .expect("the ticket is stored")
}

async fn seat_and_pending(stores: &TicketStores, name: &str) -> (Option<GameSession>, bool) {
    let record = stores
        .players
        .get(&player(name))
        .await
        .unwrap()
        .expect("a player item");
    (record.game_session, record.pending.is_some())
}

pub async fn given_a_new_ticket_when_created_then_it_reads_back_queued_and_its_id_is_never_reused(
    stores: &TicketStores,
) {
    assert_eq!(stores.tickets.get(&ticket_id()).await.unwrap(), None);
    let ticket = queued(stores).await;
    assert_eq!(
        stores.tickets.get(&ticket.ticket_id).await.unwrap(),
        Some(ticket.clone())
    );
    assert_eq!(ticket.status, TicketStatus::Queued);
    assert_eq!(ticket.player_ids, vec![player("alice"), player("bob")]);
    assert!(stores.tickets.create(&ticket).await.is_err());
}

pub async fn given_a_queued_ticket_when_searching_then_the_ticket_and_both_inboxes_change_together(
    stores: &TicketStores,
) {
    let stored = queued_then(stores, TicketStatus::Searching, T0 + 100).await;
    assert_eq!(stored.status, TicketStatus::Searching);
    assert_eq!(stored.status_at, T0 + 100);
    assert_eq!(stored.updated_at, T0 + 103);
    assert_eq!(stored.match_id.as_deref(), Some("match-1"));
    for name in ["alice", "bob"] {
        assert_eq!(inbox(stores, name).await.len(), 1, "{name}");
        assert_eq!(
            seat_and_pending(stores, name).await,
            (None, true),
            "{name}: still live"
        );
    }
}

pub async fn given_a_change_read_before_another_landed_when_applied_then_nothing_is_written(
    stores: &TicketStores,
) {
    let ticket = queued(stores).await;
    let searching = change(&ticket, TicketStatus::Searching, T0 + 100, true);
    assert!(stores.tickets.advance(&searching).await.unwrap());
    // The same change again (a duplicate event), and one decided on the QUEUED read.
    assert!(!stores.tickets.advance(&searching).await.unwrap());
    let stale = change(&ticket, TicketStatus::Placing, T0 + 200, true);
    assert!(!stores.tickets.advance(&stale).await.unwrap());
    let stored = stored(stores, &ticket).await;
    assert_eq!(stored.status, TicketStatus::Searching);
    assert_eq!(inbox(stores, "alice").await.len(), 1, "pushed once");
}

pub async fn given_a_live_ticket_when_completed_then_seats_are_set_pending_cleared_and_pushed(
    stores: &TicketStores,
) {
    let stored = queued_then(stores, TicketStatus::Completed, T0 + 500).await;
    assert_eq!(stored.status, TicketStatus::Completed);
    assert_eq!(stored.game_session, Some(placed_game_session()));
    assert_eq!(stored.player_sessions.len(), 2);
    for name in ["alice", "bob"] {
        let (seat, pending) = seat_and_pending(stores, name).await;
        assert_eq!(
            seat.map(|s| s.player_session_id),
            Some(format!("psess-{name}"))
        );
        assert!(!pending, "{name}: the ticket is no longer pending");
        assert_eq!(inbox(stores, name).await.len(), 1);
    }
}

pub async fn given_a_ticket_when_it_ends_without_a_push_then_pending_is_still_cleared(
    stores: &TicketStores,
) {
    let ticket = queued(stores).await;
    let failed = change(&ticket, TicketStatus::Failed, T0 + 10, false);
    assert!(stores.tickets.advance(&failed).await.unwrap());
    for name in ["alice", "bob"] {
        assert_eq!(
            seat_and_pending(stores, name).await,
            (None, false),
            "{name}"
        );
        assert!(inbox(stores, name).await.is_empty());
    }
}

pub async fn given_a_later_placement_pending_when_an_older_ticket_ends_then_the_placement_stays(
    stores: &TicketStores,
) {
    let ticket = queued(stores).await;
    // bob's ticket slot was cleared by a fault, and he placed since.
    let slot = Pending::of_ticket(&ticket.ticket_id).unwrap();
    stores.players.release(&player("bob"), &slot).await.unwrap();
    stores
        .players
        .reserve(&player("bob"), &fixtures::pending("p-later"))
        .await
        .unwrap();
    let cancelled = change(&ticket, TicketStatus::Cancelled, T0 + 10, true);
    assert!(stores.tickets.advance(&cancelled).await.unwrap());
    let bob = stores.players.get(&player("bob")).await.unwrap().unwrap();
    assert_eq!(bob.pending, Some(fixtures::pending("p-later")));
    assert_eq!(seat_and_pending(stores, "alice").await, (None, false));
}

pub async fn given_an_unknown_ticket_when_advanced_then_nothing_is_written(stores: &TicketStores) {
    let ticket = TicketRecord::queued(ticket_id(), player("alice"), vec![], "ranked", T0);
    let searching = change(&ticket, TicketStatus::Searching, T0 + 1, true);
    assert!(!stores.tickets.advance(&searching).await.unwrap());
    assert!(inbox(stores, "alice").await.is_empty());
}

/// Expands to one `#[tokio::test]` per contract scenario, each on fresh stores from
/// `$factory` (an async fn returning [`TicketStores`]).
#[macro_export]
macro_rules! ticket_store_contract_tests {
    ($factory:expr) => {
        $crate::contract_scenarios!(ticket_store_contract, $factory, [
            given_a_new_ticket_when_created_then_it_reads_back_queued_and_its_id_is_never_reused,
            given_a_queued_ticket_when_searching_then_the_ticket_and_both_inboxes_change_together,
            given_a_change_read_before_another_landed_when_applied_then_nothing_is_written,
            given_a_live_ticket_when_completed_then_seats_are_set_pending_cleared_and_pushed,
            given_a_ticket_when_it_ends_without_a_push_then_pending_is_still_cleared,
            given_a_later_placement_pending_when_an_older_ticket_ends_then_the_placement_stays,
            given_an_unknown_ticket_when_advanced_then_nothing_is_written,
        ]);
    };
}
