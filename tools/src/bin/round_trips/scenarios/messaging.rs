//! Messaging rows: sendMessage to 1, 25 and 100 (first and later messages), its
//! refusals, delivery from the stream, and resume replaying what waited.

use std::sync::Arc;

use contracts::events::{route_event, stream_insert};
use edge::websocket::RouteHandler;
use on_message_inserted::StreamBatch;
use serde_json::{Value, json};
use shared::domain::MessageId;
use shared::messaging::{MessageKind, NewMessage, ReplayFrom};
use shared::ports::{InboxReader, MessageStore};
use shared::requests::Route;
use shared::wiring::Wiring;

use super::{Error, World, player};
use crate::{Bench, client_event, lambda_event, now};

impl World {
    pub(super) async fn messaging(&self, bench: &mut Bench) -> Result<(), Error> {
        // The recipients have connected once (messages go only to known players).
        for n in [1usize, 25, 100] {
            for i in 0..n {
                let name = format!("peer{n}-{i}");
                bench
                    .route(
                        self.connect
                            .handle(route_event("$connect", &name, &name, now(), None)),
                    )
                    .await?;
            }
        }
        bench.reset();
        for (round, suffix) in [
            ("first message to each inbox", "_first"),
            ("later messages", ""),
        ] {
            for n in [1usize, 25, 100] {
                let ids: Vec<String> = (0..n).map(|i| format!("peer{n}-{i}")).collect();
                bench
                    .route(self.send.handle(client_event(
                        Route::SendMessage,
                        "alice",
                        "c3",
                        json!({"playerIds": ids, "message": {"hi": 1}}),
                    )))
                    .await?;
                let floor = if suffix.is_empty() {
                    "1 rate-limit write ‖ ceil(N / 50) BatchGetItem (each recipient's Players and Friends keys: known? blocked?) + N queries + N conditional writes"
                } else {
                    "1 rate-limit write (2 in a new minute) ‖ ceil(N / 50) BatchGetItem (each recipient's Players and Friends keys: known? blocked?) + N queries + N transactions (the epoch item with the message)"
                };
                bench.row(
                    &format!("send_message_{n}{suffix}"),
                    &format!("sendMessage to {n}, {round}"),
                    floor,
                );
            }
        }

        // Refusals: over a limit, and an id nobody has.
        let mut strict = (*self.config).clone();
        strict.rate_limits.messages_per_minute = 1;
        let strict_send = send_message::wire(&Wiring {
            config: Arc::new(strict),
            ..self.wiring.clone()
        });
        let to_peer = || {
            client_event(
                Route::SendMessage,
                "alice",
                "c3",
                json!({"playerIds": ["peer1-0"], "message": {"hi": 1}}),
            )
        };
        strict_send.handle(to_peer()).await?;
        bench.reset();
        bench.route(strict_send.handle(to_peer())).await?;
        bench.row(
            "send_message_rate_limited",
            "sendMessage over the rate limit (rate_limited)",
            "1 failed conditional write (its old item says why) ‖ 1 BatchGetItem (Players and Friends), nothing stored",
        );
        bench
            .route(self.send.handle(client_event(
                Route::SendMessage,
                "alice",
                "c3",
                json!({"playerIds": ["peer1-0", "nobody"], "message": {"hi": 1}}),
            )))
            .await?;
        bench.row(
            "send_message_not_found",
            "sendMessage to an id nobody has (not_found)",
            "1 rate-limit write ‖ 1 BatchGetItem (Players and Friends), nothing stored",
        );

        // Delivery: 100 recipients live (connected and resumed), one message each.
        for i in 0..100 {
            self.live(bench, &format!("peer{i}"), &format!("p{i}"))
                .await?;
        }
        let batch: Vec<NewMessage> = (0..100)
            .map(|i| chat("alice", &format!("peer{i}"), i))
            .collect();
        self.messages.append(&batch).await?;
        let mut stored = Vec::with_capacity(batch.len());
        for m in &batch {
            let inbox = self
                .messages
                .read(&m.recipient_id, &ReplayFrom::EVERYTHING, now())
                .await?;
            stored.extend(inbox.messages.into_iter().last());
        }
        bench.reset();
        let records: Vec<Value> = stored
            .iter()
            .enumerate()
            .map(|(i, m)| stream_insert(m, &format!("{}", 1000 + i)))
            .collect();
        let one: StreamBatch = serde_json::from_value(json!({"Records": [records[0].clone()]}))?;
        bench.invoke(self.deliver.handle(lambda_event(one))).await?;
        bench.row(
            "deliver_1",
            "on-message-inserted, 1 record, 1 live recipient",
            "1 read, no writes (+1 post)",
        );
        let all: StreamBatch = serde_json::from_value(json!({"Records": records}))?;
        bench.invoke(self.deliver.handle(lambda_event(all))).await?;
        bench.row(
            "deliver_100",
            "on-message-inserted, 100 records, 100 live recipients",
            "1 read, no writes (+100 posts)",
        );

        // Replay: 30 messages waiting for a player who was away.
        let waiting: Vec<NewMessage> = (0..30).map(|i| chat("peer1", "alice", i)).collect();
        self.messages.append(&waiting).await?;
        // She comes back on a new socket (a socket already live replays nothing without a
        // cursor: everything reached it).
        self.connect
            .handle(route_event("$connect", "alice", "c4", now(), None))
            .await?;
        bench.reset();
        bench
            .route(
                self.resume
                    .handle(client_event(Route::Resume, "alice", "c4", json!({}))),
            )
            .await?;
        bench.row(
            "resume_replay_30",
            "resume, replaying 30 messages",
            "1 read + ceil((30 - 10) / 100) + 1 queries + 1 hand-over transaction (+30 posts, and the taken-over socket told and closed again)",
        );
        Ok(())
    }
}

/// Chat message `n` from `sender` to `recipient`, written now and kept an hour: set-up
/// for the rows that deliver or replay it.
fn chat(sender: &str, recipient: &str, n: usize) -> NewMessage {
    let payload = json!({"type": "message", "n": n}).to_string();
    NewMessage::new(
        MessageKind::Chat,
        MessageId::generate(now()),
        player(recipient),
        sender,
        payload,
        now(),
        3600,
    )
}
