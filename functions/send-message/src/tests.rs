use super::*;
use contracts::events::{parse_event, reply_frame, route_event};
use contracts::fixtures::{T0, assert_refused, connected, malformed_send_message_bodies};
use edge::websocket::{RouteHandler, RouteResult};
use memory_adapters::test_wiring::TestWiring;
use serde_json::json;
use shared::config::RateLimits;
use shared::messaging::recipients::MAX_MESSAGE_FIELD_BYTES;

/// Alice sends; bob, carol and p0..p119 have connected once (their items exist).
struct World(TestWiring);

impl std::ops::Deref for World {
    type Target = TestWiring;

    fn deref(&self) -> &TestWiring {
        &self.0
    }
}

fn world() -> World {
    world_with(RateLimits::DEFAULT)
}

fn world_with(limits: RateLimits) -> World {
    let mut w = TestWiring::new();
    w.config.rate_limits = limits;
    World(w)
}

impl World {
    async fn known(&self, names: &[&str]) {
        for name in names {
            connected(
                &*self.tables.players,
                name,
                &format!("c-{name}"),
                T0 - 60_000,
            )
            .await;
        }
    }

    async fn everyone(&self) -> &Self {
        self.known(&["alice", "bob", "carol"]).await;
        let many: Vec<String> = (0..120).map(|i| format!("p{i}")).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        self.known(&many).await;
        self
    }

    fn handler(&self) -> SendMessageHandler {
        wire(&self.wiring())
    }

    async fn send_as(&self, sender: &str, body: Value) -> Value {
        let text = json!({"route": "sendMessage", "requestId": "s1", "body": body}).to_string();
        let event = route_event("sendMessage", sender, "c1", T0, Some(&text));
        reply_frame(&self.handler().handle(event).await.unwrap())
    }

    async fn send(&self, body: Value) -> Value {
        self.send_as("alice", body).await
    }
}

async fn send_to(messages: Arc<dyn MessageStore>, body: Value) -> RouteResult {
    let mut w = world();
    w.0.replace(messages);
    w.everyone().await;
    let text = json!({"route": "sendMessage", "requestId": "s1", "body": body}).to_string();
    let event = route_event("sendMessage", "alice", "c1", T0, Some(&text));
    w.handler().handle(event).await
}

#[tokio::test]
async fn given_the_store_unavailable_when_sending_then_an_unavailable_error_frame_and_ok() {
    {
        let case = "storage down";
        // Given a store that cannot take the writes
        let store = Arc::new(contracts::unavailable::Unavailable);

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
        assert_refused(&frame, "unavailable", "retry");
        assert_eq!(frame["route"], "sendMessage", "{case}");
        assert_eq!(frame["requestId"], "s1", "{case}");
    }
}

#[tokio::test]
async fn given_duplicate_recipients_when_sending_then_one_copy_each_with_one_message_id_and_queued_counts_them_once()
 {
    let w = world();
    w.everyone().await;
    let messages = &w.tables.messages;
    let ack = w
        .send(json!({"playerIds": ["bob", "carol", "bob"], "message": {"text": "gg"}}))
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
    let w = world();
    w.everyone().await;
    let messages = &w.tables.messages;
    for value in [json!("hi"), json!(42), json!(null), json!([1, {"a": true}])] {
        let ack = w
            .send(json!({"playerIds": ["bob"], "message": value}))
            .await;
        assert_eq!(ack["type"], "ack", "{value}");
    }
    assert_eq!(messages.all().len(), 4);
}

#[tokio::test]
async fn given_bad_input_then_a_precise_error_and_nothing_written() {
    let w = world();
    w.everyone().await;
    let messages = &w.tables.messages;
    let too_large = json!({"playerIds": ["bob"], "message": "x".repeat(MAX_MESSAGE_FIELD_BYTES)});
    let malformed = malformed_send_message_bodies()
        .into_iter()
        .map(|(body, says)| (body, "bad_request", says));
    for (body, code, says) in
        malformed.chain([(too_large, "payload_too_large", "`message` is 32770 bytes")])
    {
        assert_refused(&w.send(body).await, code, says);
    }
    assert!(messages.all().is_empty());
}

#[tokio::test]
async fn given_a_message_of_exactly_32_kib_then_it_is_accepted() {
    let w = world();
    w.everyone().await;
    let ack = w
        .send(json!({"playerIds": ["bob"], "message": "x".repeat(MAX_MESSAGE_FIELD_BYTES - 2)}))
        .await;
    assert_eq!(ack["queued"], 1);
}

#[tokio::test]
async fn the_sample_send_message_event_queues_for_each_distinct_recipient() {
    let w = world();
    w.everyone().await;
    let raw = serde_json::from_str(include_str!("../../../events/send-message.json")).unwrap();
    let frame = reply_frame(&w.handler().handle(parse_event(raw)).await.unwrap());
    assert_eq!(frame["queued"], 2);
    assert_eq!(w.tables.messages.all().len(), 2);
}

#[tokio::test]
async fn given_an_id_no_player_has_then_not_found_names_it_and_nothing_is_stored_for_anyone() {
    let w = world();
    w.everyone().await;
    let frame = w
        .send(json!({"playerIds": ["bob", "nobody", "carol", "ghost"], "message": 1}))
        .await;
    assert_refused(&frame, "not_found", "nothing was sent");
    assert_eq!(frame["playerIds"], json!(["nobody", "ghost"]), "{frame}");
    assert!(w.tables.messages.all().is_empty());
}

#[tokio::test]
async fn given_a_sender_over_the_message_limit_then_rate_limited_with_retry_after_and_others_unaffected()
 {
    // Given a limit of 3 messages a minute
    let w = world_with(RateLimits {
        messages_per_minute: 3,
        ..RateLimits::DEFAULT
    });
    w.everyone().await;
    w.clock.set(T0 + 15_000);
    for _ in 0..3 {
        assert_eq!(
            w.send(json!({"playerIds": ["bob"], "message": 1})).await["type"],
            "ack"
        );
    }
    // When alice sends a fourth within the minute
    let frame = w.send(json!({"playerIds": ["bob"], "message": 1})).await;
    // Then she is told to wait until the window ends, and nothing was stored
    assert_refused(&frame, "rate_limited", "3 messages a minute");
    assert_eq!(frame["retryAfterMs"], 45_000, "{frame}");
    assert_eq!(frame["route"], "sendMessage", "{frame}");
    assert_eq!(w.tables.messages.all().len(), 3);
    // And bob, who sent nothing, still can
    assert_eq!(
        w.send_as("bob", json!({"playerIds": ["alice"], "message": 1}))
            .await["type"],
        "ack"
    );
    // And the next minute alice can again
    w.clock.set(T0 + 60_000);
    assert_eq!(
        w.send(json!({"playerIds": ["bob"], "message": 1})).await["type"],
        "ack"
    );
}

#[tokio::test]
async fn given_a_burst_of_100_recipient_messages_then_the_recipient_limit_caps_it() {
    // Given the default limits: 120 messages, 600 recipients a minute
    let w = world();
    w.everyone().await;
    let hundred: Vec<String> = (0..100).map(|i| format!("p{i}")).collect();
    let mut acked = 0;
    let mut refused = None;
    for _ in 0..10 {
        let frame = w.send(json!({"playerIds": hundred, "message": 1})).await;
        if frame["type"] == "ack" {
            acked += 1;
        } else {
            refused = Some(frame);
            break;
        }
    }
    assert_eq!(acked, 6, "600 recipients a minute");
    let refused = refused.unwrap();
    assert_refused(&refused, "rate_limited", "600 recipients a minute");
    assert_eq!(w.tables.messages.all().len(), 600);
}

#[tokio::test]
async fn given_more_recipients_than_a_minute_allows_then_bad_request_not_a_wait() {
    let w = world_with(RateLimits {
        recipients_per_minute: 50,
        ..RateLimits::DEFAULT
    });
    w.everyone().await;
    let many: Vec<String> = (0..51).map(|i| format!("p{i}")).collect();
    let frame = w.send(json!({"playerIds": many, "message": 1})).await;
    assert_refused(&frame, "bad_request", "at most 50 a minute");
}

#[tokio::test]
async fn given_the_limits_off_then_a_sender_is_never_limited() {
    let w = world_with(RateLimits::OFF);
    w.everyone().await;
    for _ in 0..200 {
        assert_eq!(
            w.send(json!({"playerIds": ["bob"], "message": 1})).await["type"],
            "ack"
        );
    }
}

mod party_chat {
    use super::*;
    use contracts::fixtures::frames;
    use shared::party::PartyId;

    /// alice leads a party of alice, bob and carol; its id.
    async fn party(w: &World) -> PartyId {
        w.party_of(&["alice", "bob", "carol"], 8, T0).await.party_id
    }

    async fn chat_frames(w: &World, name: &str) -> Vec<Value> {
        frames(&*w.tables.messages, name, MessageKind::Chat, T0).await
    }

    #[tokio::test]
    async fn given_a_member_when_sending_to_the_party_then_every_other_member_gets_it_with_the_party_id()
     {
        let w = world();
        w.everyone().await;
        let party_id = party(&w).await;
        let ack = w
            .send_as(
                "bob",
                json!({"partyId": party_id, "message": {"text": "gg"}}),
            )
            .await;
        assert_eq!(ack["type"], "ack", "{ack}");
        assert_eq!(ack["queued"], 2);
        for name in ["alice", "carol"] {
            let frames = chat_frames(&w, name).await;
            assert_eq!(frames.len(), 1, "{name}");
            assert_eq!(frames[0]["partyId"], "party-1");
            assert_eq!(frames[0]["from"], "bob");
            assert_eq!(frames[0]["message"], json!({"text": "gg"}));
        }
        assert!(chat_frames(&w, "bob").await.is_empty(), "not to the sender");
    }

    #[tokio::test]
    async fn given_a_player_outside_the_party_when_sending_to_it_then_forbidden_and_nothing_sent() {
        let w = world();
        w.everyone().await;
        let party_id = party(&w).await;
        let reply = w
            .send_as("p1", json!({"partyId": party_id, "message": "hi"}))
            .await;
        assert_eq!(reply["code"], "forbidden", "{reply}");
        assert!(chat_frames(&w, "alice").await.is_empty());
        let reply = w
            .send_as("p1", json!({"partyId": "no-such-party", "message": "hi"}))
            .await;
        assert_eq!(reply["code"], "not_found", "{reply}");
    }

    #[tokio::test]
    async fn given_bad_party_chat_input_then_bad_request_names_the_field() {
        let w = world();
        w.everyone().await;
        party(&w).await;
        for (body, says) in [
            (
                json!({"partyId": "party-1", "playerIds": ["bob"], "message": 1}),
                "not both",
            ),
            (
                json!({"partyId": 7, "message": 1}),
                "`partyId` must be a string",
            ),
            (
                json!({"partyId": "a/b", "message": 1}),
                "`partyId` is not a party id",
            ),
            (json!({"partyId": "party-1"}), "`message` is required"),
        ] {
            let reply = w.send_as("alice", body.clone()).await;
            assert_eq!(reply["code"], "bad_request", "{body}: {reply}");
            let message = reply["message"].as_str().unwrap();
            assert!(message.contains(says), "{body}: {message}");
        }
    }
}

#[tokio::test]
async fn given_a_recipient_who_blocked_the_sender_then_it_gets_nothing_and_the_ack_cannot_tell() {
    use contracts::friend_store_contract::act;
    use shared::friends::{Action, FriendCommitted};
    use shared::messaging::MessageKind;

    let w = world();
    w.everyone().await;
    let friends = &*w.tables.friends;
    assert_eq!(
        act(friends, "bob", "alice", Action::Block, T0).await,
        FriendCommitted::Done
    );
    let blocked_before = w.tables.messages.all().len();
    let ack = w
        .send(json!({"playerIds": ["bob", "carol"], "message": {"text": "gg"}}))
        .await;
    // Exactly the ack of a message that reached both.
    assert_eq!(
        ack,
        json!({"type":"ack","route":"sendMessage","requestId":"s1","queued":2})
    );
    let chat: Vec<String> = w.tables.messages.all()[blocked_before..]
        .iter()
        .filter(|m| m.kind == MessageKind::Chat)
        .map(|m| m.recipient_id.to_string())
        .collect();
    assert_eq!(chat, vec!["carol"]);
    // bob's own messages to alice still go: the block is bob's.
    let reply = w
        .send_as(
            "bob",
            json!({"playerIds": ["alice"], "message": {"text": "hi"}}),
        )
        .await;
    assert_eq!(reply["queued"], 1);
    assert!(
        w.tables
            .messages
            .all()
            .iter()
            .any(|m| m.recipient_id.as_str() == "alice")
    );
}
