//! `sendMessage`: a player sends any JSON value to up to 100 players. The message (one
//! id, the same for every recipient) is appended to each recipient's inbox; delivery
//! happens from the table's stream (`on-message-inserted`) to recipients who are live,
//! and `resume` replays it to the others (docs/architecture.md#delivery).

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::json;
use shared::config::Config;
use shared::domain::MessageId;
use shared::ports::{Clock, MessageKind, MessageStore, NewMessage};
use shared::protocol::{ClientFrame, ErrorCode, ServerFrame, player_ids_field};
use shared::websocket::{
    Caller, Opened, Request, RouteError, RouteEvent, RouteHandler, RouteResult,
};
use tracing::debug;

/// The most a message may weigh, serialized (the README's protocol section).
pub const MAX_MESSAGE_BYTES: usize = 32 * 1024;

pub struct SendMessageHandler {
    config: Arc<Config>,
    messages: Arc<dyn MessageStore>,
    clock: Arc<dyn Clock>,
}

impl SendMessageHandler {
    pub fn new(
        config: Arc<Config>,
        messages: Arc<dyn MessageStore>,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self {
            config,
            messages,
            clock,
        }
    }

    fn build(&self, caller: &Caller, frame: &ClientFrame) -> Result<Vec<NewMessage>, RouteError> {
        let recipients =
            player_ids_field(&frame.body, "playerIds").map_err(RouteError::bad_request)?;
        let message = match frame.body.get("message") {
            None => {
                return Err(RouteError::bad_request("`message` is required"));
            }
            Some(message) => message,
        };
        let size = serde_json::to_vec(message).map_or(usize::MAX, |bytes| bytes.len());
        if size > MAX_MESSAGE_BYTES {
            return Err(RouteError::new(
                ErrorCode::PayloadTooLarge,
                format!("`message` is {size} bytes serialized; the maximum is {MAX_MESSAGE_BYTES}"),
            ));
        }
        let now = self.clock.now_millis();
        let expire_at_secs = (now / 1000) + self.config.message_ttl.as_secs() as i64;
        let message_id = MessageId::generate(now);
        let payload = ServerFrame::Message {
            message_id: message_id.to_string(),
            from: caller.player_id.to_string(),
            message: message.clone(),
            sent_at: now,
        }
        .to_json();
        Ok(recipients
            .into_iter()
            .map(|recipient_id| NewMessage {
                message_id: message_id.clone(),
                recipient_id,
                sender_id: caller.player_id.to_string(),
                kind: MessageKind::Chat,
                payload: payload.clone(),
                created_at: now,
                expire_at_secs,
            })
            .collect())
    }
}

#[async_trait]
impl RouteHandler for SendMessageHandler {
    async fn handle(&self, event: RouteEvent) -> RouteResult {
        let request = match Request::open(&event.payload)? {
            Opened::Request(request) => request,
            Opened::Refused(reply) => return Ok(reply),
        };
        let result = match self.build(&request.caller, &request.frame) {
            Ok(messages) => self
                .messages
                .append(&messages)
                .await
                .map(|_| {
                    debug!(player_id = %request.caller.player_id, queued = messages.len(), "message queued");
                    json!({ "queued": messages.len() })
                })
                .map_err(|e| {
                    RouteError::from_store(
                        e,
                        "the message may have reached some recipients but not all; retry",
                    )
                }),
            Err(refusal) => Err(refusal),
        };
        Ok(request.respond(result))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;
    use shared::adapters::memory::InMemoryMessageStore;
    use shared::ports::ManualClock;
    use shared::testing::events::{parse_event, reply_frame, route_event};

    use shared::testing::fixtures::T0;

    fn handler(messages: Arc<InMemoryMessageStore>) -> SendMessageHandler {
        SendMessageHandler::new(
            Arc::new(Config::for_local("Development")),
            messages,
            Arc::new(ManualClock::at(T0)),
        )
    }

    async fn send(messages: &Arc<InMemoryMessageStore>, body: Value) -> Value {
        reply_frame(&send_to(messages.clone(), body).await.unwrap())
    }

    async fn send_to(messages: Arc<dyn MessageStore>, body: Value) -> RouteResult {
        let text = json!({"route": "sendMessage", "requestId": "s1", "body": body}).to_string();
        let event = route_event("sendMessage", "alice", "c1", T0, Some(&text));
        SendMessageHandler::new(
            Arc::new(Config::for_local("Development")),
            messages,
            Arc::new(ManualClock::at(T0)),
        )
        .handle(event)
        .await
    }

    #[tokio::test]
    async fn given_the_store_unavailable_when_sending_then_an_unavailable_error_frame_and_ok() {
        {
            let case = "storage down";
            // Given a store that cannot take the writes
            let store = Arc::new(shared::testing::unavailable::Unavailable);

            // When alice sends to two players
            let result = send_to(
                store,
                json!({"playerIds": ["bob", "carol"], "message": {"text": "gg"}}),
            )
            .await;

            // Then she is told to retry (a protocol reply, not a Lambda fault: retrying
            // the invocation would not help her, and alarms stay meaningful).
            let response = result.unwrap_or_else(|e| panic!("{case}: Err({e})"));
            let frame = reply_frame(&response);
            assert_eq!(frame["type"], "error", "{case}");
            assert_eq!(frame["code"], "unavailable", "{case}");
            assert_eq!(frame["route"], "sendMessage", "{case}");
            assert_eq!(frame["requestId"], "s1", "{case}");
            assert!(
                frame["message"].as_str().unwrap().contains("retry"),
                "{case}: {frame}"
            );
        }
    }

    #[tokio::test]
    async fn given_duplicate_recipients_when_sending_then_one_copy_each_with_one_message_id_and_queued_counts_them_once()
     {
        let messages = Arc::new(InMemoryMessageStore::new());
        let ack = send(
            &messages,
            json!({"playerIds": ["bob", "carol", "bob"], "message": {"text": "gg"}}),
        )
        .await;
        assert_eq!(
            ack,
            json!({"type":"ack","route":"sendMessage","requestId":"s1","queued":2})
        );
        let stored = messages.all();
        let mut recipients: Vec<_> = stored.iter().map(|m| m.recipient_id.to_string()).collect();
        recipients.sort();
        assert_eq!(recipients, vec!["bob", "carol"]);
        assert_eq!(
            stored[0].message_id, stored[1].message_id,
            "one message, one id"
        );
        for m in &stored {
            let frame: Value = serde_json::from_str(&m.payload).unwrap();
            assert_eq!(frame["type"], "message");
            assert_eq!(frame["from"], "alice");
            assert_eq!(frame["message"], json!({"text": "gg"}));
            assert_eq!(frame["sentAt"], T0);
            assert_eq!(frame["messageId"], m.message_id.as_str());
            assert_eq!(m.expire_at_secs, T0 / 1000 + 86_400);
        }
    }

    #[tokio::test]
    async fn given_any_json_value_as_the_message_then_it_is_carried_as_is() {
        let messages = Arc::new(InMemoryMessageStore::new());
        for value in [json!("hi"), json!(42), json!(null), json!([1, {"a": true}])] {
            let ack = send(&messages, json!({"playerIds": ["bob"], "message": value})).await;
            assert_eq!(ack["type"], "ack", "{value}");
        }
        assert_eq!(messages.all().len(), 4);
    }

    #[tokio::test]
    async fn given_bad_input_then_a_precise_error_and_nothing_written() {
        let messages = Arc::new(InMemoryMessageStore::new());
        let too_many: Vec<String> = (0..101).map(|i| format!("p{i}")).collect();
        for (body, code, says) in [
            (
                json!({"message": 1}),
                "bad_request",
                "`playerIds` is required",
            ),
            (
                json!({"playerIds": "bob", "message": 1}),
                "bad_request",
                "`playerIds` must be an array",
            ),
            (
                json!({"playerIds": [], "message": 1}),
                "bad_request",
                "`playerIds` must name at least one",
            ),
            (
                json!({"playerIds": too_many, "message": 1}),
                "bad_request",
                "`playerIds` names 101",
            ),
            (
                json!({"playerIds": ["bob", "no/slash"], "message": 1}),
                "bad_request",
                "`playerIds[1]`",
            ),
            (
                json!({"playerIds": ["bob"]}),
                "bad_request",
                "`message` is required",
            ),
            (
                json!({"playerIds": ["bob"], "message": "x".repeat(MAX_MESSAGE_BYTES)}),
                "payload_too_large",
                "`message` is 32770 bytes",
            ),
        ] {
            let frame = send(&messages, body.clone()).await;
            assert_eq!(frame["code"], code, "{body}");
            assert!(
                frame["message"].as_str().unwrap().contains(says),
                "{body}: {frame}"
            );
        }
        assert!(messages.all().is_empty());
    }

    #[tokio::test]
    async fn given_a_message_of_exactly_32_kib_then_it_is_accepted() {
        let messages = Arc::new(InMemoryMessageStore::new());
        let ack = send(
            &messages,
            json!({"playerIds": ["bob"], "message": "x".repeat(MAX_MESSAGE_BYTES - 2)}),
        )
        .await;
        assert_eq!(ack["queued"], 1);
    }

    #[tokio::test]
    async fn the_sample_send_message_event_queues_for_each_distinct_recipient() {
        let messages = Arc::new(InMemoryMessageStore::new());
        let raw = serde_json::from_str(include_str!("../../../events/send-message.json")).unwrap();
        let frame = reply_frame(
            &handler(messages.clone())
                .handle(parse_event(raw))
                .await
                .unwrap(),
        );
        assert_eq!(frame["queued"], 2);
        assert_eq!(messages.all().len(), 2);
    }
}
