//! The hooks that feed the console from the parts of the stack that are not the
//! gateway: the Messages stream's consumer, the placement topic (SNS) and the presence
//! bus (EventBridge). Each records one feed event per delivery, then hands on unchanged.

use std::sync::Arc;

use async_trait::async_trait;
use aws_lambda_events::event::streams::DynamoDbEventResponse;
use lambda_runtime::LambdaEvent;
use on_message_inserted::{BatchRecord, StreamBatch};
use serde_json::Value;
use shared::presence::PresenceEvent;

use super::feed::{Entry, FeedKind, Hub};
use crate::gamelift::{EventSink, event_sink};
use crate::stream::StreamHandler;

/// `inner`, tapped: see [`TappedStream`].
pub fn tap_stream(
    inner: Arc<dyn StreamHandler>,
    hub: Arc<Hub>,
    clock: Arc<dyn shared::ports::Clock>,
) -> Arc<dyn StreamHandler> {
    Arc::new(TappedStream { inner, hub, clock })
}

/// Wraps the Messages stream's consumer: while a page watches, each batch is one feed
/// event (its recipients, what each record is, how the invocation went).
pub struct TappedStream {
    pub inner: Arc<dyn StreamHandler>,
    pub hub: Arc<Hub>,
    pub clock: Arc<dyn shared::ports::Clock>,
}

/// `(recipient, "kind from sender")` of a stream record, or the line of one that did
/// not parse.
fn describe(record: &BatchRecord) -> Result<(Option<String>, String), String> {
    let what = |kind: Option<&str>, sender: Option<&str>| {
        format!("{} from {}", kind.unwrap_or("item"), sender.unwrap_or("?"))
    };
    match record {
        BatchRecord::Record(record) => {
            let image = serde_json::to_value(&record.change.new_image).unwrap_or(Value::Null);
            let text = |name: &str| {
                image
                    .get(name)
                    .and_then(|v| v.get("S").or(Some(v)))
                    .and_then(Value::as_str)
            };
            let recipient = text("recipientId").map(str::to_owned);
            Ok((recipient, what(text("kind"), text("senderId"))))
        }
        BatchRecord::Inserted(inserted) => {
            let message = &inserted.message;
            let what = what(Some(message.kind.as_str()), Some(&message.sender_id));
            Ok((Some(message.recipient_id.as_str().to_owned()), what))
        }
        BatchRecord::Malformed(why) => Err(format!("malformed record: {why}")),
    }
}

#[async_trait]
impl StreamHandler for TappedStream {
    async fn handle(
        &self,
        event: LambdaEvent<StreamBatch>,
    ) -> Result<DynamoDbEventResponse, lambda_runtime::Error> {
        // Recorded only while a page watches: batches go by at the stack's full rate.
        if !self.hub.watching() {
            return self.inner.handle(event).await;
        }
        let mut players = Vec::new();
        let mut lines = Vec::new();
        for record in &event.payload.records {
            match describe(record) {
                Ok((recipient, what)) => {
                    lines.push(format!("{what} → {}", recipient.as_deref().unwrap_or("?")));
                    if let Some(recipient) = recipient
                        && !players.contains(&recipient)
                    {
                        players.push(recipient);
                    }
                }
                Err(line) => lines.push(line),
            }
        }
        let count = event.payload.records.len();
        let result = self.inner.handle(event).await;
        let outcome = match &result {
            Ok(response) if response.batch_item_failures.is_empty() => "ok".to_owned(),
            Ok(response) => format!("{} item failure(s)", response.batch_item_failures.len()),
            Err(error) => format!("failed: {error}"),
        };
        self.hub.record(
            FeedKind::Stream,
            self.clock.now_millis(),
            Entry {
                summary: format!(
                    "stream batch: {count} record{} → on-message-inserted ({outcome}){}",
                    if count == 1 { "" } else { "s" },
                    lines
                        .first()
                        .map_or(String::new(), |first| format!("; {first}"))
                ),
                detail: (!lines.is_empty()).then(|| lines.join("\n")),
                player_ids: players,
                connection_id: None,
            },
        );
        result
    }
}

/// Wraps the placement topic's delivery: each GameLift event is a feed event.
pub fn tap_sns(inner: EventSink, hub: Arc<Hub>) -> EventSink {
    event_sink(move |sns_event: Value| {
        let message = sns_event
            .pointer("/Records/0/Sns/Message")
            .and_then(Value::as_str)
            .and_then(|text| serde_json::from_str::<Value>(text).ok())
            .unwrap_or(Value::Null);
        let detail = message.get("detail").cloned().unwrap_or(Value::Null);
        let field = |name: &str| detail.get(name).and_then(Value::as_str).unwrap_or("?");
        let players: Vec<String> = detail
            .get("placedPlayerSessions")
            .and_then(Value::as_array)
            .map(|seats| {
                seats
                    .iter()
                    .filter_map(|s| s.get("playerId").and_then(Value::as_str))
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        hub.record(
            FeedKind::Sns,
            crate::time::now_millis(),
            Entry {
                summary: format!(
                    "SNS → on-placement-event: {} {}",
                    field("type"),
                    field("placementId")
                ),
                detail: Some(message.to_string()),
                player_ids: players,
                connection_id: None,
            },
        );
        inner(sns_event)
    })
}

/// A presence event as the bus rule delivers it to `on-presence-event`.
pub fn tap_presence(hub: &Hub, event: &PresenceEvent) {
    let detail_type = event.kind.detail_type();
    hub.record(
        FeedKind::EventBridge,
        event.at,
        Entry {
            summary: format!(
                "EventBridge {detail_type} {} → on-presence-event",
                event.player_id.as_str()
            ),
            detail: None,
            player_ids: vec![event.player_id.as_str().to_owned()],
            connection_id: None,
        },
    );
}

/// The FlexMatch simulator's EventBridge rule (→ `on-matchmaking-event`), tapped: every
/// event updates the console's tickets and, while a page watches, is a feed event naming
/// the ticket's players.
pub fn tap_matchmaking(
    handler: &Arc<on_matchmaking_event::MatchmakingEventHandler>,
    hub: Arc<Hub>,
) -> EventSink {
    let inner = crate::flexmatch::to_handler(handler.clone());
    event_sink(move |event: Value| {
        let at = crate::time::now_millis();
        let players = hub.tickets.apply(&event, at);
        let detail = &event["detail"];
        let ticket_ids: Vec<&str> = detail["tickets"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t["ticketId"].as_str())
            .collect();
        hub.record(
            FeedKind::EventBridge,
            at,
            Entry {
                summary: format!(
                    "EventBridge {} {} → on-matchmaking-event",
                    detail["type"].as_str().unwrap_or("?"),
                    ticket_ids.join(", ")
                ),
                detail: Some(event.to_string()),
                player_ids: players,
                connection_id: None,
            },
        );
        let inner = inner.clone();
        async move { inner(event).await }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stream::StreamRecord;
    use crate::stream::record::{local_stream_arn, sequence_number};
    use shared::domain::{MessageId, PlayerId, Seq};
    use shared::messaging::{MessageKind, StoredMessage};
    use shared::ports::ManualClock;

    /// Answers every batch with no failures.
    struct Consumer;

    #[async_trait]
    impl StreamHandler for Consumer {
        async fn handle(
            &self,
            _event: LambdaEvent<StreamBatch>,
        ) -> Result<DynamoDbEventResponse, lambda_runtime::Error> {
            Ok(DynamoDbEventResponse::default())
        }
    }

    fn insert(recipient: &str, n: u64) -> StreamRecord {
        let message = StoredMessage {
            seq: Seq::new(n).unwrap(),
            epoch: Seq::new(1).unwrap(),
            message_id: MessageId::generate(1_795_323_600_000),
            recipient_id: PlayerId::parse(recipient).unwrap(),
            sender_id: "alice".into(),
            kind: MessageKind::Chat,
            payload: "{}".into(),
            created_at: 1_795_323_600_000,
            expire_at_secs: 1_795_410_000,
            replay_until_secs: None,
        };
        let arn = local_stream_arn("Messages").into();
        StreamRecord::insert(message, sequence_number(n), arn)
    }

    #[tokio::test]
    async fn given_a_watched_stream_when_a_batch_of_typed_and_json_records_goes_by_then_each_line_names_kind_sender_and_recipient()
     {
        let hub = Arc::new(Hub::new());
        let _page = hub.subscribe();
        let tapped = tap_stream(
            Arc::new(Consumer),
            hub.clone(),
            Arc::new(ManualClock::at(5)),
        );
        let records = vec![
            insert("bob", 2).to_record(),
            BatchRecord::from_json(insert("carol", 3).to_value()),
            insert("bob", 4).to_record(),
            BatchRecord::Malformed("no".into()),
        ];
        let event = LambdaEvent::new(StreamBatch { records }, Default::default());

        tapped.handle(event).await.unwrap();

        let recorded = hub.recent();
        assert_eq!(recorded.len(), 1);
        assert_eq!(
            recorded[0].summary,
            "stream batch: 4 records → on-message-inserted (ok); chat from alice → bob"
        );
        assert_eq!(
            recorded[0].detail.as_deref(),
            Some(
                "chat from alice → bob\nchat from alice → carol\nchat from alice → bob\n\
                 malformed record: no"
            )
        );
        assert_eq!(recorded[0].player_ids, ["bob", "carol"]);
    }
}
