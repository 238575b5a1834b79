//! `on-presence-event`: the presence bus's rule target. For a `presence.connected`,
//! `presence.disconnected` or `presence.activity` event it looks up who watches the
//! player (one Query per page of watchers) and, at once, the player's friends (one Query
//! on Friends) and which of them are online (one BatchGetItem on Players per 100
//! friends), and appends one `presence` message to each watcher's and each online
//! friend's inbox (an activity event's frame carries the activity): friends see each
//! other without subscribing; a friend who also subscribed is told once.
//! Delivery then happens like any message, from the Messages stream
//! (`on-message-inserted`); presence messages are short-lived, and `resume` replays only
//! the latest one about each player.
//!
//! An event that is not a presence event (unknown detail-type, malformed detail) is
//! logged and skipped: retrying it would never help.
//!
//! EventBridge delivers at least once and retries a failed invocation, so each message
//! id is derived from the event and the watcher ([`presence_message_id`]): an append
//! whose id is already the newest of that inbox writes nothing, so a retry does not
//! deliver the same change twice.
//!
//! # Round trips: the floor
//!
//! A change of a player with `F` online friends and `W` watchers is, on DynamoDB:
//! one Query of the watchers ‖ one Query of the friends (one page per 1 MB: a player at
//! `MAX_FRIENDS` has ~40 KB), then their Players items, 100 per BatchGetItem, then one
//! append per recipient, each a Query of the inbox's head and a conditional PutItem
//! (measured for 200 friends in BENCHMARKS.md, `presence_event_200_friends`: 202 Query,
//! 2 BatchGetItem, 200 PutItem). That is the floor of this design, each part for a
//! reason:
//!
//! - The appends stay. Subscribers get `presence` frames through their inbox, and so do
//!   friends: the README's delivery guarantee ("every presence change reaches you" on a
//!   `resume` within the frame's 60 s TTL, in `seq` order, replayed as state) needs the
//!   frame stored, which a bare PostToConnection is not (a socket still opening, silent
//!   or replaced would lose it).
//! - Each append's Query stays: the message goes at the head's `seq` + 1, and that head
//!   is known only by reading it (the gapless seq is what `resume`'s hand-over checks:
//!   `adapters/aws/src/dynamodb/inbox.rs`). Nothing read before it holds it (the
//!   Players item's `liveFrom` is the head at the last hand-over, not now), and it cannot
//!   be batched: BatchGetItem and TransactGetItems need the whole key, and the `seq` is
//!   what is unknown; a Query reads one partition.
//! - Each append's write stays a PutItem: BatchWriteItem takes no condition (the seq must
//!   be free), and a TransactWriteItems of up to 100 Puts would save round trips at twice
//!   the write units per item (what DynamoDB bills), and one racing append on any inbox
//!   would cancel all 100.
//! - The Players reads stay strongly consistent: a friend whose `$connect` committed
//!   before the read is told of the change (by push or replay), and one who connects after
//!   it reads the change in `listFriends`; an eventually consistent read could miss a
//!   friend who connected a moment ago, who then learns of the change neither way.
//!   Players items are under 4 KB, so a projection would not lower the units.
//!
//! Appends run 16 inboxes at once (`CONCURRENT_INBOXES` in the message store), so 200
//! friends take 13 waves of a Query and a PutItem after the reads, not 400 round trips.
//!
//! # Presence, in sequence
//!
//! A mermaid sequence diagram (paste it into any mermaid renderer to draw it):
//!
//! ```text
//! sequenceDiagram
//!   autonumber
//!   participant K as connect
//!   participant X as schedule (every minute)
//!   participant T as presence-timeout
//!   participant P as Players
//!   participant G as API Gateway
//!   participant B as presence bus
//!   participant E as on-presence-event
//!   participant W as PresenceSubscriptions
//!   participant F as Friends
//!   participant M as Messages (inboxes)
//!   participant D as on-message-inserted
//!
//!   Note over K: a $connect that is a new session
//!   K->>B: PutEvents presence.connected
//!   X->>T: scheduled event
//!   loop each shard of BySweepShard, a page of 100 tracked players at a time
//!     T->>P: Query sweepShard (keys)
//!     T->>P: BatchGetItem their sweepAt (eventually consistent)
//!     loop each player whose sweepAt is before now
//!       T->>P: UpdateItem status offline, condition sweepAt still before now, ALL_OLD
//!       opt it was online (a zombie)
//!         T->>G: PostToConnection(disconnected, heartbeat_timeout), DeleteConnection
//!       end
//!     end
//!   end
//!   T->>B: PutEvents presence.disconnected (10 per call)
//!   B-)E: PresenceEventsRule
//!   par the watchers, and the online friends
//!     E->>W: Query targetId (the watchers)
//!   and
//!     E->>F: Query playerId (the friends), then BatchGetItem their Players items
//!   end
//!   E->>M: append one presence message to each watcher's and online friend's inbox
//!   M-)D: stream INSERT per watcher
//!   D->>P: BatchGetItem watchers
//!   D->>G: PostToConnection(presence frame) to live connections
//! ```

use std::sync::Arc;

use aws_lambda_events::event::eventbridge::EventBridgeEvent;
use lambda_runtime::LambdaEvent;
use serde::Serialize;
use serde_json::Value;
use shared::domain::PresenceStatus;
use shared::domain::{MessageId, PlayerId};
use shared::frames::ServerFrame;
use shared::messaging::{MessageKind, NewMessage, SYSTEM_SENDER};
use shared::ports::{Clock, FriendReader, MessageStore, PlayerLookup, StoreError, Watchers};
use shared::presence::{PresenceEvent, watched_status};
use shared::wiring::Wiring;
use tracing::{info, warn};

/// How long an undelivered presence message is kept (DynamoDB TTL): it is only useful
/// to a watcher who is connected right now.
pub const PRESENCE_MESSAGE_TTL_SECONDS: i64 = 60;

/// The id of the presence message `watcher` gets for `event`: the same for every
/// delivery of the event. Player ids cannot contain `#`, so the parts cannot run into
/// each other.
pub fn presence_message_id(event: &PresenceEvent, watcher: &PlayerId) -> MessageId {
    MessageId::deterministic(&[
        "presence",
        event.player_id.as_str(),
        event.detail_type(),
        &event.at.to_string(),
        watcher.as_str(),
    ])
}

/// What one invocation did (the function's result, for logs and tests).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    /// Presence messages written, one per watcher.
    pub notified: usize,
    /// True when the event was not a presence event and was skipped.
    pub skipped: bool,
}

/// `on-presence-event` as every deployment builds it.
pub fn wire(w: &Wiring) -> PresenceEventHandler {
    PresenceEventHandler {
        subscriptions: w.stores.watchers(),
        friends: w.stores.friend_reader(),
        players: w.stores.player_lookup(),
        messages: w.stores.message_store(),
        clock: w.clock.clone(),
    }
}

pub struct PresenceEventHandler {
    subscriptions: Arc<dyn Watchers>,
    friends: Arc<dyn FriendReader>,
    players: Arc<dyn PlayerLookup>,
    messages: Arc<dyn MessageStore>,
    clock: Arc<dyn Clock>,
}

impl PresenceEventHandler {
    /// The player's friends who are online now (or within their grace period: a
    /// resume replays what they missed).
    async fn online_friends(
        &self,
        player: &PlayerId,
        now: shared::domain::EpochMillis,
    ) -> Result<Vec<PlayerId>, StoreError> {
        let friends = self.friends.friends(player).await?;
        if friends.is_empty() {
            return Ok(friends);
        }
        let records = self.players.get_many(&friends).await?;
        Ok(records
            .iter()
            .filter(|record| watched_status(Some(record), now) == PresenceStatus::Online)
            .map(|record| record.player_id.clone())
            .collect())
    }

    /// The Lambda entry point: one bus event.
    pub async fn handle(
        &self,
        event: LambdaEvent<EventBridgeEvent<Value>>,
    ) -> Result<Outcome, lambda_runtime::Error> {
        let bus_event = event.payload;
        let presence = match PresenceEvent::from_bus(&bus_event.detail_type, &bus_event.detail) {
            Ok(presence) => presence,
            Err(error) => {
                warn!(
                    event_id = bus_event.id.as_deref().unwrap_or_default(),
                    source = %bus_event.source,
                    detail_type = %bus_event.detail_type,
                    error = %shared::telemetry::ErrorChain(&error),
                    "skipping a bus event that is not a presence event"
                );
                return Ok(Outcome {
                    notified: 0,
                    skipped: true,
                });
            }
        };
        let notified = self.notify(&presence).await?;
        Ok(Outcome {
            notified,
            skipped: false,
        })
    }

    /// Writes one presence message per current watcher and online friend of the event's
    /// player (each once); returns how many. The local stack calls this directly with
    /// the events its in-process bus carries.
    pub async fn notify(&self, event: &PresenceEvent) -> Result<usize, StoreError> {
        let now = self.clock.now_millis();
        let (watchers, friends) = tokio::join!(
            self.subscriptions.watchers(&event.player_id, now),
            self.online_friends(&event.player_id, now),
        );
        let mut watchers = watchers?;
        for friend in friends? {
            if !watchers.contains(&friend) {
                watchers.push(friend);
            }
        }
        if watchers.is_empty() {
            info!(player_id = %event.player_id, change = event.detail_type(), "no watchers");
            return Ok(0);
        }
        let payload = ServerFrame::Presence {
            player_id: event.player_id.to_string(),
            status: event.kind.status().to_owned(),
            activity: event.activity.clone(),
            at: event.at,
        }
        .to_json();
        let messages: Vec<NewMessage> = watchers
            .into_iter()
            .map(|recipient_id| {
                NewMessage::new(
                    MessageKind::Presence,
                    presence_message_id(event, &recipient_id),
                    recipient_id,
                    SYSTEM_SENDER,
                    payload.clone(),
                    now,
                    PRESENCE_MESSAGE_TTL_SECONDS,
                )
            })
            .collect();
        self.messages.append(&messages).await?;
        shared::metrics::presence_fanout(messages.len());
        info!(
            player_id = %event.player_id,
            change = event.detail_type(),
            watchers = messages.len(),
            "presence messages written"
        );
        Ok(messages.len())
    }
}

#[cfg(test)]
mod tests;
