use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

use async_trait::async_trait;

use super::player_store::InMemoryPlayerStore;
use shared::domain::{EpochMillis, PlayerId, Seq};
use shared::messaging::{
    Handover, HandoverOutcome, InboxRead, NewMessage, ReplayFrom, StoredMessage,
};
use shared::ports::StoreError;
use shared::ports::{DeliveryHandover, InboxReader, MessageStore};

/// Observes every append, as a DynamoDB stream does; the local stack feeds the real
/// `on-message-inserted` handler from it. Called while the inbox is locked, so that the
/// observer sees one inbox's messages in seq order (a stream's order within a partition
/// key); it must only queue, never block. It gets its own copy of the stored message
/// (the stream's record is one).
pub trait InsertObserver: Send + Sync {
    fn inserted(&self, message: StoredMessage);
}

/// Every this many appends to an inbox, expired messages anywhere in it are dropped (the
/// oldest ones are dropped on every append).
const PURGE_EVERY: u32 = 256;

/// One player's inbox. Unlike a DynamoDB inbox, whose newest item can expire and be
/// deleted (and the next append then starts a new epoch), this one remembers its head
/// for as long as the process runs, so it keeps one epoch.
struct Inbox {
    epoch: Seq,
    head: Seq,
    items: VecDeque<StoredMessage>,
    appends_since_purge: u32,
}

impl Inbox {
    fn purge(&mut self, now: EpochMillis) {
        while self.items.front().is_some_and(|m| m.expired(now)) {
            self.items.pop_front();
        }
        self.appends_since_purge += 1;
        if self.appends_since_purge >= PURGE_EVERY {
            self.appends_since_purge = 0;
            self.items.retain(|m| !m.expired(now));
        }
    }
}

/// The Messages table in memory: one ordered inbox per recipient, expired messages
/// dropped as new ones arrive (DynamoDB's TTL, done eagerly so that a long-running local
/// stack does not grow without bound).
#[derive(Default)]
pub struct InMemoryMessageStore {
    inboxes: Mutex<HashMap<PlayerId, Inbox>>,
    observer: Option<Box<dyn InsertObserver>>,
}

impl InMemoryMessageStore {
    pub fn new() -> Self {
        Self::default()
    }

    /// A store that reports each appended message to `observer`.
    pub fn with_observer(observer: impl InsertObserver + 'static) -> Self {
        Self {
            inboxes: Mutex::default(),
            observer: Some(Box::new(observer)),
        }
    }

    fn inboxes(&self) -> MutexGuard<'_, HashMap<PlayerId, Inbox>> {
        // Every update is a single push or pop: a panic cannot leave an inbox half-written.
        self.inboxes.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Every stored message, by recipient then seq (tests).
    pub fn all(&self) -> Vec<StoredMessage> {
        let inboxes = self.inboxes();
        let mut all: Vec<StoredMessage> = inboxes
            .values()
            .flat_map(|inbox| inbox.items.iter().cloned())
            .collect();
        all.sort_by(|a, b| (&a.recipient_id, a.seq).cmp(&(&b.recipient_id, b.seq)));
        all
    }

    /// Appends at once (no `.await`): for a caller holding locks of its own, such as a
    /// party's commit. Returns how many were appended.
    pub(crate) fn append_now(&self, messages: &[NewMessage]) -> usize {
        let mut inboxes = self.inboxes();
        messages
            .iter()
            .filter(|message| self.append_locked(&mut inboxes, message))
            .count()
    }

    /// Appends with the inboxes already locked; false for a duplicate of the newest.
    fn append_locked(&self, inboxes: &mut HashMap<PlayerId, Inbox>, message: &NewMessage) -> bool {
        let inbox = inboxes
            .entry(message.recipient_id.clone())
            .or_insert_with(|| {
                let epoch = Seq::epoch_start(message.created_at);
                Inbox {
                    epoch,
                    // One before the epoch: the first message gets the epoch's own seq.
                    head: Seq::new(epoch.get().saturating_sub(1)).unwrap_or(Seq::ZERO),
                    items: VecDeque::new(),
                    appends_since_purge: 0,
                }
            });
        if inbox
            .items
            .back()
            .is_some_and(|newest| newest.message_id == message.message_id)
        {
            return false;
        }
        inbox.purge(message.created_at);
        inbox.head = inbox.head.next();
        let stored = message.clone().at(inbox.head, inbox.epoch);
        if let Some(observer) = &self.observer {
            observer.inserted(stored.clone());
        }
        inbox.items.push_back(stored);
        true
    }

    /// The inbox's head and epoch, as a read reports them.
    fn position(inbox: Option<&Inbox>) -> (Option<Seq>, Option<Seq>) {
        match inbox {
            Some(inbox) if inbox.head >= inbox.epoch => (Some(inbox.head), Some(inbox.epoch)),
            _ => (None, None),
        }
    }
}

#[async_trait]
impl MessageStore for InMemoryMessageStore {
    async fn append(&self, messages: &[NewMessage]) -> Result<usize, StoreError> {
        let mut inboxes = self.inboxes();
        Ok(messages
            .iter()
            .filter(|message| self.append_locked(&mut inboxes, message))
            .count())
    }
}

#[async_trait]
impl InboxReader for InMemoryMessageStore {
    async fn read(
        &self,
        recipient: &PlayerId,
        from: &ReplayFrom,
        now: EpochMillis,
    ) -> Result<InboxRead, StoreError> {
        let inboxes = self.inboxes();
        let inbox = inboxes.get(recipient);
        let (head, epoch) = Self::position(inbox);
        let newest_first: Vec<StoredMessage> = inbox
            .map(|inbox| {
                inbox
                    .items
                    .iter()
                    .rev()
                    .take_while(|m| !from.passed(m))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default();
        Ok(InboxRead {
            messages: from.select(newest_first, now),
            head,
            epoch,
        })
    }
}

/// [`DeliveryHandover`] across the in-memory Players and Messages tables: the inbox is
/// checked and the player updated under the inboxes' lock, so no append can fall between.
pub struct InMemoryDeliveryHandover {
    players: Arc<InMemoryPlayerStore>,
    messages: Arc<InMemoryMessageStore>,
}

impl InMemoryDeliveryHandover {
    pub fn new(players: Arc<InMemoryPlayerStore>, messages: Arc<InMemoryMessageStore>) -> Self {
        Self { players, messages }
    }
}

#[async_trait]
impl DeliveryHandover for InMemoryDeliveryHandover {
    async fn go_live(&self, handover: &Handover) -> Result<HandoverOutcome, StoreError> {
        let inboxes = self.messages.inboxes();
        let (head, epoch) = InMemoryMessageStore::position(inboxes.get(&handover.player));
        if head != handover.head || epoch != handover.epoch {
            return Ok(HandoverOutcome::InboxMoved);
        }
        let live = self.players.set_live(
            &handover.player,
            &handover.connection,
            handover.head.unwrap_or(Seq::ZERO),
            handover.acked,
        );
        drop(inboxes);
        Ok(if live {
            HandoverOutcome::Live
        } else {
            HandoverOutcome::NotCurrent
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use shared::domain::MessageId;
    use shared::messaging::MessageKind;

    mod contract {
        use super::*;
        use crate::MemoryStores;
        use contracts::message_store_contract::{Subject, TtlDeletion};

        struct Ttl(Arc<InMemoryMessageStore>);

        #[async_trait]
        impl TtlDeletion for Ttl {
            async fn delete_expired(&self, recipient: &PlayerId, now: EpochMillis, at_most: usize) {
                let mut inboxes = self.0.inboxes();
                let Some(inbox) = inboxes.get_mut(recipient) else {
                    return;
                };
                let mut deleted = 0;
                inbox.items = std::mem::take(&mut inbox.items)
                    .into_iter()
                    .rev()
                    .filter(|m| {
                        let delete = deleted < at_most && m.expired(now);
                        deleted += usize::from(delete);
                        !delete
                    })
                    .rev()
                    .collect();
            }
        }

        async fn subject() -> Subject {
            let tables = MemoryStores::new(InMemoryMessageStore::new(), 1);
            Subject {
                handover: tables.handover,
                ttl: Arc::new(Ttl(tables.messages.clone())),
                players: tables.players,
                messages: tables.messages,
            }
        }

        contracts::message_store_contract_tests!(subject);
    }

    /// The (recipient, seq) of every message the observer was told about.
    #[derive(Clone, Default)]
    struct Inserts(Arc<Mutex<Vec<(String, u64)>>>);

    impl InsertObserver for Inserts {
        fn inserted(&self, message: StoredMessage) {
            self.0
                .lock()
                .unwrap()
                .push((message.recipient_id.to_string(), message.seq.get()));
        }
    }

    fn message(to: &str, id: &str, created_at: i64, ttl_secs: i64) -> NewMessage {
        NewMessage {
            message_id: MessageId::deterministic(&[id]),
            recipient_id: PlayerId::parse(to).unwrap(),
            sender_id: "system".into(),
            kind: MessageKind::Chat,
            payload: "{}".into(),
            created_at,
            expire_at_secs: created_at / 1000 + ttl_secs,
        }
    }

    #[tokio::test]
    async fn given_appends_then_the_observer_sees_each_once_in_seq_order_per_recipient() {
        let inserts = Inserts::default();
        let store = InMemoryMessageStore::with_observer(inserts.clone());
        let t0 = 1_795_323_600_000;
        let appended = store
            .append(&[
                message("bob", "m1", t0, 60),
                message("carol", "m2", t0, 60),
                message("bob", "m3", t0, 60),
            ])
            .await
            .unwrap();
        // A retry of the last append to bob writes nothing.
        let again = store.append(&[message("bob", "m3", t0, 60)]).await.unwrap();
        assert_eq!((appended, again), (3, 0));
        let first = Seq::epoch_start(t0).get();
        assert_eq!(
            *inserts.0.lock().unwrap(),
            vec![
                ("bob".into(), first),
                ("carol".into(), first),
                ("bob".into(), first + 1)
            ]
        );
    }

    #[tokio::test]
    async fn given_expired_messages_when_more_arrive_then_they_are_dropped_and_the_seq_keeps_growing()
     {
        let store = InMemoryMessageStore::new();
        let t0 = 1_795_323_600_000;
        store.append(&[message("bob", "old", t0, 1)]).await.unwrap();
        let later = t0 + 5_000;
        store
            .append(&[message("bob", "new", later, 60)])
            .await
            .unwrap();
        let all = store.all();
        assert_eq!(all.len(), 1, "the expired message is gone");
        assert_eq!(all[0].seq, Seq::epoch_start(t0).next());
        let bob = PlayerId::parse("bob").unwrap();
        let read = store
            .read(&bob, &ReplayFrom::EVERYTHING, later)
            .await
            .unwrap();
        assert_eq!(read.head, Some(all[0].seq));
        assert_eq!(read.epoch, Some(Seq::epoch_start(t0)));
    }
}
