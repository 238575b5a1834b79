//! [`EventBus`] in process: hands each event to a subscriber, the way the presence
//! bus's rule hands it to `on-presence-event`, or records it for tests to read. The
//! local stack subscribes the real handler; tests read what was published.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use tokio::sync::mpsc;

use shared::ports::{EventBus, EventBusError};
use shared::presence::PresenceEvent;

/// Receives every published event, in publishing order. It runs inside `publish`, so it
/// should hand the event on (spawn a task, send on a channel) rather than do the work.
pub type PresenceSubscriber = Arc<dyn Fn(PresenceEvent) + Send + Sync>;

/// Entries per PutEvents call, as on EventBridge.
const ENTRIES_PER_CALL: usize = 10;

#[derive(Default)]
pub struct InProcessEventBus {
    /// Only a bus without a subscriber records: a subscribed bus serves a long-running
    /// process (the local stack), where a record of every event would grow forever.
    published: Mutex<Vec<PresenceEvent>>,
    calls: AtomicUsize,
    failing: AtomicBool,
    subscriber: Option<PresenceSubscriber>,
}

impl InProcessEventBus {
    /// A bus nobody listens to (tests read [`Self::published`]).
    pub fn new() -> Self {
        Self::default()
    }

    /// A bus that calls `subscriber` with each published event and records nothing
    /// ([`Self::published`] stays empty; [`Self::put_events_calls`] still counts).
    pub fn with_subscriber(subscriber: impl Fn(PresenceEvent) + Send + Sync + 'static) -> Self {
        Self {
            subscriber: Some(Arc::new(subscriber)),
            ..Self::default()
        }
    }

    /// A bus that sends each published event on the returned channel (and, like
    /// [`Self::with_subscriber`], records nothing).
    pub fn with_channel() -> (Self, mpsc::UnboundedReceiver<PresenceEvent>) {
        let (sender, receiver) = mpsc::unbounded_channel();
        let bus = Self::with_subscriber(move |event| {
            // A closed receiver means nobody routes events any more: nothing to do.
            let _ = sender.send(event);
        });
        (bus, receiver)
    }

    /// Every event published so far, in order (always empty on a subscribed bus).
    pub fn published(&self) -> Vec<PresenceEvent> {
        self.lock().clone()
    }

    /// The events published so far, forgetting them.
    pub fn take(&self) -> Vec<PresenceEvent> {
        std::mem::take(&mut *self.lock())
    }

    /// The PutEvents calls EventBridge would have taken for everything published so far
    /// (`ceil(n / 10)` per `publish`).
    pub fn put_events_calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }

    /// While set, `publish` fails with [`EventBusError::Unavailable`] and delivers nothing.
    pub fn set_failing(&self, failing: bool) {
        self.failing.store(failing, Ordering::SeqCst);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<PresenceEvent>> {
        // Each update is one push: a poisoned lock holds no half-written state.
        self.published.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[async_trait]
impl EventBus for InProcessEventBus {
    async fn publish(&self, events: &[PresenceEvent]) -> Result<(), EventBusError> {
        if self.failing.load(Ordering::SeqCst) {
            return Err(EventBusError::Unavailable(
                "the in-process bus is set to fail".into(),
            ));
        }
        self.calls
            .fetch_add(events.len().div_ceil(ENTRIES_PER_CALL), Ordering::SeqCst);
        match &self.subscriber {
            Some(subscriber) => events.iter().cloned().for_each(|event| subscriber(event)),
            None => self.lock().extend_from_slice(events),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shared::domain::PlayerId;

    fn events(n: usize) -> Vec<PresenceEvent> {
        (0..n)
            .map(|i| PresenceEvent::connected(PlayerId::parse(format!("p{i}")).unwrap(), 7))
            .collect()
    }

    #[tokio::test]
    async fn given_a_subscriber_when_publishing_then_it_gets_every_event_in_order_and_none_is_retained()
     {
        let (bus, mut receiver) = InProcessEventBus::with_channel();
        bus.publish(&events(25)).await.unwrap();
        bus.publish(&[]).await.unwrap();
        let mut received = Vec::new();
        while let Ok(event) = receiver.try_recv() {
            received.push(event);
        }
        assert_eq!(received, events(25));
        assert_eq!(bus.put_events_calls(), 3, "ceil(25 / 10)");
        // The local stack's bus lives as long as the process: it must not keep events.
        assert!(bus.published().is_empty());
    }

    #[tokio::test]
    async fn given_no_subscriber_when_publishing_then_events_are_recorded_until_taken() {
        let bus = InProcessEventBus::new();
        bus.publish(&events(25)).await.unwrap();
        assert_eq!(bus.published(), events(25));
        assert_eq!(bus.put_events_calls(), 3, "ceil(25 / 10)");
        assert_eq!(bus.take(), events(25));
        assert!(bus.published().is_empty());
    }

    #[tokio::test]
    async fn given_a_failing_bus_when_publishing_then_unavailable_and_nothing_delivered() {
        let (bus, mut receiver) = InProcessEventBus::with_channel();
        bus.set_failing(true);
        assert!(matches!(
            bus.publish(&events(1)).await,
            Err(EventBusError::Unavailable(_))
        ));
        assert!(receiver.try_recv().is_err());
        assert_eq!(bus.put_events_calls(), 0);
        bus.set_failing(false);
        bus.publish(&events(1)).await.unwrap();
        assert_eq!(receiver.try_recv().ok(), events(1).pop());
    }
}
