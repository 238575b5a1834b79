//! `resume`: the first thing a client sends after connecting (posting from inside
//! `$connect` is impossible: the connection is not open yet). Replies with the player's
//! state, then replays every undelivered message in order, deleting each once delivered.
//!
//! The ack is posted first (it announces `pendingMessages`, the count about to be
//! replayed), so this route returns no body of its own.

use std::sync::Arc;

use async_trait::async_trait;
use serde::Serialize;
use serde_json::Value;
use shared::domain::MessageId;
use shared::ports::{
    ConnectionGateway, GatewayError, MessageKind, MessageStore, PlayerRecord, PlayerStore,
    StoredMessage,
};
use shared::protocol::ServerFrame;
use shared::websocket::{
    Caller, RouteEvent, RouteHandler, RouteResult, client_frame, reply, status,
};
use tracing::{info, warn};

/// Messages read per query page.
const REPLAY_PAGE: u32 = 100;

pub struct ResumeHandler {
    players: Arc<dyn PlayerStore>,
    messages: Arc<dyn MessageStore>,
    gateway: Arc<dyn ConnectionGateway>,
}

/// The `resume` ack's fields (DESIGN §3).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResumeResult {
    pub player_id: String,
    pub resumed: bool,
    pub pending_messages: usize,
    pub placement: Option<Value>,
    pub game_session: Option<Value>,
}

impl ResumeHandler {
    pub fn new(
        players: Arc<dyn PlayerStore>,
        messages: Arc<dyn MessageStore>,
        gateway: Arc<dyn ConnectionGateway>,
    ) -> Self {
        Self {
            players,
            messages,
            gateway,
        }
    }

    /// Every undelivered message, oldest first. Presence messages are stale by now:
    /// they are returned separately, to be dropped.
    async fn undelivered(
        &self,
        caller: &Caller,
    ) -> Result<(Vec<StoredMessage>, Vec<MessageId>), lambda_runtime::Error> {
        let (mut replay, mut stale) = (Vec::new(), Vec::new());
        let mut after = None;
        loop {
            let page = self
                .messages
                .pending(&caller.player_id, after.as_ref(), REPLAY_PAGE)
                .await?;
            for message in page.messages {
                if message.kind == MessageKind::Presence {
                    stale.push(message.message_id);
                } else {
                    replay.push(message);
                }
            }
            match page.next {
                Some(next) => after = Some(next),
                None => return Ok((replay, stale)),
            }
        }
    }

    /// Posts the messages in order; stops at the first that cannot be posted (the
    /// socket is gone or throttled: the rest wait for the next resume).
    async fn replay(&self, caller: &Caller, messages: &[StoredMessage]) -> Vec<MessageId> {
        let mut delivered = Vec::with_capacity(messages.len());
        for message in messages {
            match self.post(caller, message.payload.as_bytes()).await {
                Ok(()) => delivered.push(message.message_id.clone()),
                Err(error) => {
                    warn!(player_id = %caller.player_id, message_id = %message.message_id, error = %error, "replay stopped; the rest stay queued");
                    break;
                }
            }
        }
        delivered
    }

    async fn post(&self, caller: &Caller, data: &[u8]) -> Result<(), GatewayError> {
        self.gateway
            .post(&caller.endpoint, &caller.connection_id, data)
            .await
    }
}

/// The ack's `placement`: the pending one, from the record already read.
fn pending_placement(record: &PlayerRecord) -> Option<Value> {
    let id = record.pending_placement_id.as_ref()?;
    Some(serde_json::json!({ "placementId": id, "status": "PENDING" }))
}

#[async_trait]
impl RouteHandler for ResumeHandler {
    async fn handle(&self, event: RouteEvent) -> RouteResult {
        let caller = Caller::from_event(&event.payload)?;
        let frame = match client_frame(&event.payload) {
            Ok(frame) => frame,
            Err(error_reply) => return Ok(error_reply),
        };
        let record = self.players.get(&caller.player_id).await?;
        // Only the connection that holds the record resumed anything; a replaced one is
        // about to be closed and gets no replay.
        let current = record
            .as_ref()
            .filter(|r| r.connection_id == caller.connection_id);
        let resumed = current.is_some_and(|r| r.resumed());
        let (replay, stale) = if current.is_some() {
            self.undelivered(&caller).await?
        } else {
            Default::default()
        };
        let ack = ServerFrame::ack(
            &frame,
            ResumeResult {
                player_id: caller.player_id.to_string(),
                resumed,
                pending_messages: replay.len(),
                placement: record.as_ref().and_then(pending_placement),
                game_session: record
                    .as_ref()
                    .and_then(|r| r.game_session.as_ref())
                    .and_then(|session| serde_json::to_value(session).ok()),
            },
        );
        if replay.is_empty() && stale.is_empty() {
            info!(player_id = %caller.player_id, connection_id = %caller.connection_id, resumed, "resume");
            return Ok(reply(&ack));
        }
        if let Err(error) = self.post(&caller, ack.to_json().as_bytes()).await {
            warn!(player_id = %caller.player_id, error = %error, "could not post the resume ack; nothing replayed");
            return Ok(status(200));
        }
        let mut done = self.replay(&caller, &replay).await;
        info!(player_id = %caller.player_id, connection_id = %caller.connection_id, resumed, replayed = done.len(), pending = replay.len(), "resume");
        done.extend(stale);
        self.messages.delete_all(&done).await?;
        Ok(status(200))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use shared::adapters::memory::{InMemoryMessageStore, InMemoryPlayerStore};
    use shared::domain::{ConnectionId, PlayerId};
    use shared::ports::NewConnection;
    use shared::testing::events::{parse_event, reply_frame, route_event};
    use shared::testing::recording_gateway::RecordingGateway;

    const T0: i64 = 1_795_323_600_000;

    struct World {
        players: Arc<InMemoryPlayerStore>,
        messages: Arc<InMemoryMessageStore>,
        gateway: Arc<RecordingGateway>,
        handler: ResumeHandler,
    }

    fn world() -> World {
        let players = Arc::new(InMemoryPlayerStore::new());
        let messages = Arc::new(InMemoryMessageStore::new());
        let gateway = Arc::new(RecordingGateway::new());
        let handler = ResumeHandler::new(players.clone(), messages.clone(), gateway.clone());
        World {
            players,
            messages,
            gateway,
            handler,
        }
    }

    async fn connect(players: &InMemoryPlayerStore, connection: &str, at: i64) {
        players
            .connect(&NewConnection {
                player_id: PlayerId::parse("alice").unwrap(),
                connection_id: ConnectionId::parse(connection).unwrap(),
                endpoint: "https://x/Development".into(),
                connected_at: at,
                now: at,
                heartbeat_deadline: at + 90_000,
                sweep_shard: 0,
                expire_at_secs: 0,
            })
            .await
            .unwrap();
    }

    fn queued(kind: MessageKind, n: i64) -> StoredMessage {
        StoredMessage {
            message_id: MessageId::generate(T0 + n),
            recipient_id: PlayerId::parse("alice").unwrap(),
            sender_id: "bob".into(),
            kind,
            payload: json!({"type": "message", "n": n}).to_string(),
            created_at: T0 + n,
            expire_at_secs: 0,
        }
    }

    fn resume(connection: &str) -> RouteEvent {
        route_event(
            "resume",
            "alice",
            connection,
            T0,
            Some(r#"{"route":"resume","requestId":"r-1"}"#),
        )
    }

    #[tokio::test]
    async fn given_a_new_session_when_resuming_then_ack_with_player_id_and_not_resumed() {
        let w = world();
        connect(&w.players, "L0SM9cOFvHcCIhw=", T0).await;
        let raw = serde_json::from_str(include_str!("../../../events/resume.json")).unwrap();
        let response = w.handler.handle(parse_event(raw)).await.unwrap();
        assert_eq!(
            reply_frame(&response),
            json!({"type":"ack","route":"resume","requestId":"r-1","playerId":"alice","resumed":false,
                   "pendingMessages":0,"placement":null,"gameSession":null})
        );
    }

    #[tokio::test]
    async fn given_a_pending_placement_and_a_last_game_when_resuming_then_both_are_in_the_ack() {
        use shared::adapters::memory::{InMemoryPlacementOutcomes, InMemoryPlacementStore};
        use shared::domain::PlacementStatus;
        use shared::ports::{
            PlacedGameSession, PlacementOutcomes, PlacementRecord, PlacementStore, SettledPlayer,
            Settlement,
        };

        let w = world();
        connect(&w.players, "c1", T0).await;
        let alice = PlayerId::parse("alice").unwrap();
        let frame = reply_frame(&w.handler.handle(resume("c1")).await.unwrap());
        assert_eq!(frame["placement"], Value::Null);
        assert_eq!(frame["gameSession"], Value::Null);

        // A first placement fulfilled (delivered), a second one pending.
        let placements = Arc::new(InMemoryPlacementStore::new());
        w.players
            .begin_placement(&alice, "p-1")
            .await
            .unwrap()
            .unwrap();
        placements
            .create(&PlacementRecord::pending("p-1", alice.clone(), "q", T0))
            .await
            .unwrap();
        let delivered = Arc::new(InMemoryMessageStore::new());
        let outcomes =
            InMemoryPlacementOutcomes::new(placements, w.players.clone(), delivered.clone());
        let game_session = PlacedGameSession {
            game_session_arn: "arn:gs".into(),
            ip_address: "10.0.0.1".into(),
            dns_name: "host.example".into(),
            port: 7777,
            region: "eu-west-1".into(),
        };
        let settled = outcomes
            .settle(&Settlement {
                placement_id: "p-1".into(),
                status: PlacementStatus::Fulfilled,
                game_session: Some(game_session),
                players: vec![SettledPlayer {
                    player_id: alice.clone(),
                    player_session_id: Some("psess-1".into()),
                    message: queued(MessageKind::Placement, 1),
                }],
                at: T0,
            })
            .await
            .unwrap();
        assert!(settled);
        w.players
            .begin_placement(&alice, "p-2")
            .await
            .unwrap()
            .unwrap();

        // Reconnect: the game state is still there.
        connect(&w.players, "c2", T0 + 1_000).await;
        let frame = reply_frame(&w.handler.handle(resume("c2")).await.unwrap());
        assert_eq!(
            frame["placement"],
            json!({"placementId": "p-2", "status": "PENDING"})
        );
        assert_eq!(
            frame["gameSession"],
            json!({"gameSessionArn": "arn:gs", "ipAddress": "10.0.0.1", "dnsName": "host.example",
                   "port": 7777, "region": "eu-west-1", "playerSessionId": "psess-1"})
        );
    }

    #[tokio::test]
    async fn given_a_reconnect_within_grace_when_resuming_then_resumed_true() {
        let w = world();
        connect(&w.players, "c1", T0).await;
        let alice = PlayerId::parse("alice").unwrap();
        let c1 = ConnectionId::parse("c1").unwrap();
        w.players
            .disconnect(&alice, &c1, T0 + 10, T0 + 30_010)
            .await
            .unwrap();
        connect(&w.players, "c2", T0 + 20_000).await;
        let frame = reply_frame(&w.handler.handle(resume("c2")).await.unwrap());
        assert_eq!(frame["resumed"], true);
    }

    #[tokio::test]
    async fn given_a_replaced_connection_when_resuming_then_resumed_false_and_nothing_replayed() {
        let w = world();
        connect(&w.players, "c1", T0).await;
        connect(&w.players, "c2", T0 + 1).await;
        w.messages
            .put_all(&[queued(MessageKind::Chat, 1)])
            .await
            .unwrap();
        let frame = reply_frame(&w.handler.handle(resume("c1")).await.unwrap());
        assert_eq!(frame["resumed"], false);
        assert_eq!(frame["pendingMessages"], 0);
        assert_eq!(w.messages.all().len(), 1);
    }

    #[tokio::test]
    async fn given_undelivered_messages_when_resuming_then_ack_first_then_each_in_order_and_deleted()
     {
        let w = world();
        connect(&w.players, "c1", T0).await;
        let chat: Vec<_> = (0..150).map(|n| queued(MessageKind::Chat, n)).collect();
        w.messages.put_all(&chat).await.unwrap();
        w.messages
            .put_all(&[queued(MessageKind::Presence, 500)])
            .await
            .unwrap();
        let response = w.handler.handle(resume("c1")).await.unwrap();
        assert!(response.body.is_none(), "the ack was posted, not returned");
        let posted = w.gateway.posted_to("c1");
        let ack: Value = serde_json::from_str(&posted[0]).unwrap();
        assert_eq!(ack["type"], "ack");
        assert_eq!(ack["requestId"], "r-1");
        assert_eq!(
            ack["pendingMessages"], 150,
            "presence messages are not replayed"
        );
        let replayed: Vec<_> = posted[1..].to_vec();
        assert_eq!(
            replayed,
            chat.iter().map(|m| m.payload.clone()).collect::<Vec<_>>()
        );
        assert!(
            w.messages.all().is_empty(),
            "delivered and stale messages are deleted"
        );

        // A second resume has nothing left to replay.
        let frame = reply_frame(&w.handler.handle(resume("c1")).await.unwrap());
        assert_eq!(frame["pendingMessages"], 0);
    }

    #[tokio::test]
    async fn given_the_socket_gone_midway_then_undelivered_messages_stay_queued() {
        let w = world();
        connect(&w.players, "c1", T0).await;
        w.messages
            .put_all(&[queued(MessageKind::Chat, 1), queued(MessageKind::Chat, 2)])
            .await
            .unwrap();
        w.gateway.mark_gone("c1");
        let response = w.handler.handle(resume("c1")).await.unwrap();
        assert_eq!(response.status_code, 200);
        assert_eq!(w.messages.all().len(), 2);
    }
}
