//! The inbox contract ([`MessageStore`](shared::ports::MessageStore) and
//! [`DeliveryHandover`]), one test per scenario:
//! `contracts::message_store_contract_tests!(factory)` expands to one `#[tokio::test]` per
//! scenario below, each on a fresh [`Subject`] from `factory`.

use std::sync::Arc;

use async_trait::async_trait;

use crate::Inboxes;

use crate::PlayersTable;
use crate::fixtures::{T0, connection_of};
use shared::domain::{ConnectionId, EpochMillis, MessageId, PlayerId, Seq};
use shared::messaging::{Handover, HandoverOutcome, MessageKind, NewMessage, ReplayFrom};
use shared::ports::DeliveryHandover;

/// The stores a scenario works on; `handover` must span `players` and `messages`.
pub struct Subject {
    pub messages: Arc<dyn Inboxes>,
    pub players: Arc<dyn PlayersTable>,
    pub handover: Arc<dyn DeliveryHandover>,
    /// What deletes expired items from `messages` (DynamoDB's TTL), run when a scenario asks.
    pub ttl: Arc<dyn TtlDeletion>,
}

/// The store's TTL deletion, run on demand with the scenario's clock (DynamoDB Local does
/// not enforce TTL).
#[async_trait]
pub trait TtlDeletion: Send + Sync {
    /// Deletes at most `at_most` of `recipient`'s inbox items whose TTL has passed at
    /// `now`, newest first: the worst order for an inbox, and one DynamoDB may take, as it
    /// documents no order.
    async fn delete_expired(&self, recipient: &PlayerId, now: EpochMillis, at_most: usize);
}

/// A time far in the future for reads (every message below expires long before it
/// would, so a read at `LATER` sees nothing but the head).
const LATER: i64 = T0 + 10 * 86_400_000;

fn player(name: &str) -> PlayerId {
    PlayerId::parse(name).expect("valid test id")
}

/// Message `n` to `recipient`, created at `T0 + n` ms, kept a day.
pub fn message(recipient: &str, n: i64) -> NewMessage {
    NewMessage {
        message_id: MessageId::deterministic(&["m", &n.to_string()]),
        recipient_id: player(recipient),
        sender_id: "alice".into(),
        kind: MessageKind::Chat,
        payload: format!(r#"{{"type":"message","n":{n}}}"#),
        created_at: T0 + n,
        expire_at_secs: (T0 + n) / 1000 + 86_400,
    }
}

fn seqs(read: &shared::messaging::InboxRead) -> Vec<u64> {
    read.messages.iter().map(|m| m.seq.get()).collect()
}

fn ns(read: &shared::messaging::InboxRead) -> Vec<String> {
    read.messages
        .iter()
        .map(|m| m.message_id.to_string())
        .collect()
}

pub async fn appends_to_an_inbox_get_consecutive_seqs_from_its_epoch_in_order(s: &Subject) {
    let appended = s
        .messages
        .append(&[message("bob", 1), message("carol", 2), message("bob", 3)])
        .await
        .unwrap();
    assert_eq!(appended, 3);
    let bob = s
        .messages
        .read(&player("bob"), &ReplayFrom::EVERYTHING, T0)
        .await
        .unwrap();
    let epoch = Seq::epoch_start(T0 + 1);
    assert_eq!(bob.epoch, Some(epoch));
    assert_eq!(seqs(&bob), vec![epoch.get(), epoch.get() + 1]);
    assert_eq!(ns(&bob), vec!["m#1", "m#3"]);
    assert_eq!(bob.head, Some(epoch.next()));
    assert_eq!(bob.messages[0], message("bob", 1).at(epoch, epoch));
    let carol = s
        .messages
        .read(&player("carol"), &ReplayFrom::EVERYTHING, T0)
        .await
        .unwrap();
    assert_eq!(ns(&carol), vec!["m#2"]);
    assert_eq!(carol.epoch, Some(Seq::epoch_start(T0 + 2)));
}

pub async fn a_read_after_a_seq_or_since_a_time_returns_only_what_follows(s: &Subject) {
    let batch: Vec<NewMessage> = (1..=5).map(|n| message("bob", n * 10)).collect();
    s.messages.append(&batch).await.unwrap();
    let all = s
        .messages
        .read(&player("bob"), &ReplayFrom::EVERYTHING, T0)
        .await
        .unwrap();
    let third = all.messages[2].seq;
    let after = s
        .messages
        .read(&player("bob"), &ReplayFrom::after(third), T0)
        .await
        .unwrap();
    assert_eq!(ns(&after), vec!["m#40", "m#50"]);
    assert_eq!(
        after.head, all.head,
        "the head is the inbox's, not the replay's"
    );
    let since = ReplayFrom {
        after: None,
        created_since: Some(T0 + 20),
    };
    let since = s.messages.read(&player("bob"), &since, T0).await.unwrap();
    assert_eq!(ns(&since), vec!["m#20", "m#30", "m#40", "m#50"]);
    let both = ReplayFrom {
        after: Some(third),
        created_since: Some(T0 + 50),
    };
    let both = s.messages.read(&player("bob"), &both, T0).await.unwrap();
    assert_eq!(ns(&both), vec!["m#50"]);
    let past_the_head = s
        .messages
        .read(&player("bob"), &ReplayFrom::after(all.head.unwrap()), T0)
        .await
        .unwrap();
    assert!(past_the_head.messages.is_empty());
    assert_eq!(past_the_head.head, all.head);
    assert_eq!(past_the_head.epoch, all.epoch);
}

pub async fn expired_messages_are_not_replayed_but_the_head_still_counts_them(s: &Subject) {
    s.messages.append(&[message("bob", 1)]).await.unwrap();
    let read = s
        .messages
        .read(&player("bob"), &ReplayFrom::EVERYTHING, LATER)
        .await
        .unwrap();
    assert!(read.messages.is_empty());
    assert_eq!(read.head, Some(Seq::epoch_start(T0 + 1)));
}

/// Message `n` to `recipient`, created at `at`, kept a day.
fn message_at(recipient: &str, n: i64, at: EpochMillis) -> NewMessage {
    NewMessage {
        created_at: at,
        expire_at_secs: at / 1000 + 86_400,
        ..message(recipient, n)
    }
}

pub async fn items_deleted_by_ttl_newest_first_never_make_a_seq_handed_out_twice(s: &Subject) {
    // Given a chat message kept a day, then a presence frame delivered for a minute, both
    // seen by bob's client.
    let presence = NewMessage {
        kind: MessageKind::Presence,
        expire_at_secs: (T0 + 2) / 1000 + 60,
        ..message("bob", 2)
    };
    s.messages
        .append(&[message("bob", 1), presence])
        .await
        .unwrap();
    let bob = player("bob");
    let seen = s
        .messages
        .read(&bob, &ReplayFrom::EVERYTHING, T0 + 2)
        .await
        .unwrap();
    assert_eq!(ns(&seen), vec!["m#1", "m#2"]);
    // When TTL has deleted, five minutes on, everything it may, and a message arrives,
    let later = T0 + 5 * 60_000;
    s.ttl.delete_expired(&bob, later, usize::MAX).await;
    s.messages
        .append(&[message_at("bob", 3, later)])
        .await
        .unwrap();
    // then a replay after what the client saw holds it (its seq is above the frame's).
    let after = s
        .messages
        .read(&bob, &ReplayFrom::after(seen.head.unwrap()), later)
        .await
        .unwrap();
    assert_eq!(ns(&after), vec!["m#3"]);
    // When, three days on, everything has expired but TTL has deleted only the newest
    // item so far, and a message arrives,
    let days = T0 + 3 * 86_400_000;
    s.ttl.delete_expired(&bob, days, 1).await;
    s.messages
        .append(&[message_at("bob", 4, days)])
        .await
        .unwrap();
    // then it too is replayed after the last seq the client saw.
    let last = s
        .messages
        .read(&bob, &ReplayFrom::after(after.head.unwrap()), days)
        .await
        .unwrap();
    assert_eq!(ns(&last), vec!["m#4"]);
    assert!(last.head > after.head);
}

pub async fn an_inbox_that_never_had_a_message_reads_empty_with_no_head(s: &Subject) {
    let read = s
        .messages
        .read(&player("dave"), &ReplayFrom::EVERYTHING, T0)
        .await
        .unwrap();
    assert!(read.messages.is_empty());
    assert_eq!((read.head, read.epoch), (None, None));
    assert_eq!(s.messages.append(&[]).await.unwrap(), 0);
}

pub async fn a_retried_append_of_the_newest_message_writes_nothing(s: &Subject) {
    s.messages
        .append(&[message("bob", 1), message("bob", 2)])
        .await
        .unwrap();
    let again = s.messages.append(&[message("bob", 2)]).await.unwrap();
    assert_eq!(again, 0);
    let read = s
        .messages
        .read(&player("bob"), &ReplayFrom::EVERYTHING, T0)
        .await
        .unwrap();
    assert_eq!(ns(&read), vec!["m#1", "m#2"]);
}

pub async fn concurrent_appends_to_one_inbox_all_land_on_distinct_consecutive_seqs(s: &Subject) {
    let writers: Vec<_> = (0..8)
        .map(|w| {
            let store = s.messages.clone();
            tokio::spawn(async move {
                for i in 0..5 {
                    let n = 100 * (w + 1) + i;
                    store.append(&[message("bob", n)]).await.unwrap();
                }
            })
        })
        .collect();
    for writer in writers {
        writer.await.unwrap();
    }
    let read = s
        .messages
        .read(&player("bob"), &ReplayFrom::EVERYTHING, T0)
        .await
        .unwrap();
    let epoch = read.epoch.unwrap().get();
    assert_eq!(seqs(&read), (epoch..epoch + 40).collect::<Vec<_>>());
    for w in 1..=8 {
        let mine: Vec<i64> = read
            .messages
            .iter()
            .filter_map(|m| {
                let n: i64 = m.message_id.as_str().strip_prefix("m#")?.parse().ok()?;
                (n / 100 == w).then_some(n)
            })
            .collect();
        let expected: Vec<i64> = (0..5).map(|i| 100 * w + i).collect();
        assert_eq!(mine, expected, "each writer's messages keep their order");
    }
}

pub async fn more_than_a_page_of_messages_is_read_whole_and_in_order(s: &Subject) {
    let batch: Vec<NewMessage> = (1..=230).map(|n| message("bob", n)).collect();
    assert_eq!(s.messages.append(&batch).await.unwrap(), 230);
    let read = s
        .messages
        .read(&player("bob"), &ReplayFrom::EVERYTHING, T0)
        .await
        .unwrap();
    assert_eq!(read.messages.len(), 230);
    assert!(
        read.messages
            .windows(2)
            .all(|w| w[0].seq.next() == w[1].seq)
    );
    let tail = s
        .messages
        .read(
            &player("bob"),
            &ReplayFrom::after(read.messages[199].seq),
            T0,
        )
        .await
        .unwrap();
    assert_eq!(tail.messages.len(), 30);
}

/// Connects `name` on `c-<name>` and returns the connection.
async fn online(s: &Subject, name: &str) -> ConnectionId {
    let connection = connection_of(name);
    s.players
        .connect(&crate::fixtures::new_connection(
            name,
            connection.as_str(),
            T0,
        ))
        .await
        .unwrap();
    connection
}

pub async fn a_hand_over_on_an_unmoved_inbox_makes_the_connection_live_from_its_head(s: &Subject) {
    let connection = online(s, "bob").await;
    s.messages
        .append(&[message("bob", 1), message("bob", 2)])
        .await
        .unwrap();
    let read = s
        .messages
        .read(&player("bob"), &ReplayFrom::EVERYTHING, T0)
        .await
        .unwrap();
    let outcome = s
        .handover
        .go_live(&Handover {
            player: player("bob"),
            connection: connection.clone(),
            head: read.head,
            epoch: read.epoch,
            acked: Some(Seq::new(7).unwrap()),
        })
        .await
        .unwrap();
    assert_eq!(outcome, HandoverOutcome::Live);
    let record = s.players.get(&player("bob")).await.unwrap().unwrap();
    assert!(record.is_live());
    assert_eq!(record.live_from, read.head);
    assert_eq!(record.acked_seq, Some(Seq::new(7).unwrap()));
    assert!(
        !record.delivers_live(read.head.unwrap()),
        "replayed already"
    );
    assert!(record.delivers_live(read.head.unwrap().next()));
}

pub async fn a_hand_over_fails_when_a_message_arrived_after_the_read(s: &Subject) {
    let connection = online(s, "bob").await;
    s.messages.append(&[message("bob", 1)]).await.unwrap();
    let read = s
        .messages
        .read(&player("bob"), &ReplayFrom::EVERYTHING, T0)
        .await
        .unwrap();
    s.messages.append(&[message("bob", 2)]).await.unwrap();
    let handover = Handover {
        player: player("bob"),
        connection,
        head: read.head,
        epoch: read.epoch,
        acked: None,
    };
    assert_eq!(
        s.handover.go_live(&handover).await.unwrap(),
        HandoverOutcome::InboxMoved
    );
    let record = s.players.get(&player("bob")).await.unwrap().unwrap();
    assert!(!record.is_live(), "nothing written");
}

pub async fn a_hand_over_on_an_empty_inbox_fails_once_a_first_message_arrived(s: &Subject) {
    let connection = online(s, "bob").await;
    let read = s
        .messages
        .read(&player("bob"), &ReplayFrom::EVERYTHING, T0)
        .await
        .unwrap();
    s.messages.append(&[message("bob", 1)]).await.unwrap();
    let mut handover = Handover {
        player: player("bob"),
        connection,
        head: read.head,
        epoch: read.epoch,
        acked: None,
    };
    assert_eq!(
        s.handover.go_live(&handover).await.unwrap(),
        HandoverOutcome::InboxMoved
    );
    let again = s
        .messages
        .read(&player("bob"), &ReplayFrom::EVERYTHING, T0)
        .await
        .unwrap();
    (handover.head, handover.epoch) = (again.head, again.epoch);
    assert_eq!(
        s.handover.go_live(&handover).await.unwrap(),
        HandoverOutcome::Live
    );
}

pub async fn a_hand_over_of_a_connection_that_is_not_current_fails_and_writes_nothing(s: &Subject) {
    let first = online(s, "bob").await;
    s.players
        .connect(&crate::fixtures::new_connection("bob", "c-bob-2", T0 + 1))
        .await
        .unwrap();
    let read = s
        .messages
        .read(&player("bob"), &ReplayFrom::EVERYTHING, T0)
        .await
        .unwrap();
    let outcome = s
        .handover
        .go_live(&Handover {
            player: player("bob"),
            connection: first,
            head: read.head,
            epoch: read.epoch,
            acked: Some(Seq::new(3).unwrap()),
        })
        .await
        .unwrap();
    assert_eq!(outcome, HandoverOutcome::NotCurrent);
    let record = s.players.get(&player("bob")).await.unwrap().unwrap();
    assert_eq!(record.live_connection_id, None);
    assert_eq!(record.acked_seq, None);
    let nobody = s
        .handover
        .go_live(&Handover {
            player: player("nobody"),
            connection: connection_of("nobody"),
            head: None,
            epoch: None,
            acked: None,
        })
        .await
        .unwrap();
    assert_eq!(nobody, HandoverOutcome::NotCurrent);
}

/// One `#[tokio::test]` per scenario of this contract, each on `$factory().await` (an
/// async function returning a [`Subject`]).
#[macro_export]
macro_rules! message_store_contract_tests {
    ($factory:expr) => {
        $crate::contract_scenarios!(
            message_store_contract,
            $factory,
            [
                appends_to_an_inbox_get_consecutive_seqs_from_its_epoch_in_order,
                a_read_after_a_seq_or_since_a_time_returns_only_what_follows,
                expired_messages_are_not_replayed_but_the_head_still_counts_them,
                items_deleted_by_ttl_newest_first_never_make_a_seq_handed_out_twice,
                an_inbox_that_never_had_a_message_reads_empty_with_no_head,
                a_retried_append_of_the_newest_message_writes_nothing,
                concurrent_appends_to_one_inbox_all_land_on_distinct_consecutive_seqs,
                more_than_a_page_of_messages_is_read_whole_and_in_order,
                a_hand_over_on_an_unmoved_inbox_makes_the_connection_live_from_its_head,
                a_hand_over_fails_when_a_message_arrived_after_the_read,
                a_hand_over_on_an_empty_inbox_fails_once_a_first_message_arrived,
                a_hand_over_of_a_connection_that_is_not_current_fails_and_writes_nothing,
            ]
        );
    };
}
