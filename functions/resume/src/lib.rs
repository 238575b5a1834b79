//! `resume`: the first thing a client sends after connecting (posting from inside
//! `$connect` is impossible: the connection is not open yet). Replies with the player's
//! state, then replays every undelivered message in order, deleting each once delivered.
//!
//! The ack is posted first (it announces `pendingMessages`, the count about to be
//! replayed), so this route returns no body of its own. Delivered messages are deleted
//! 25 at a time as the replay goes (one BatchWriteItem each, `ceil(D / 25)` in all), so
//! an invocation cut short (a Lambda timeout) replays at most 25 of them again.

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
/// Delivered messages deleted per `delete_all`: exactly one BatchWriteItem.
const DELETE_CHUNK: usize = 25;

pub struct ResumeHandler {
    players: Arc<dyn PlayerStore>,
    messages: Arc<dyn MessageStore>,
    gateway: Arc<dyn ConnectionGateway>,
}

/// The `resume` ack's fields (README.md#client-protocol-v1).
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

    /// Posts the messages in order, deleting them (and the `stale` ones) in full chunks
    /// of [`DELETE_CHUNK`] as it goes and the remainder at the end; stops at the first
    /// that cannot be posted (the socket is gone or throttled: the rest wait for the
    /// next resume). Returns how many were posted.
    async fn replay(
        &self,
        caller: &Caller,
        messages: &[StoredMessage],
        stale: Vec<MessageId>,
    ) -> Result<usize, lambda_runtime::Error> {
        let mut to_delete = stale;
        let mut posted = 0;
        for message in messages {
            if let Err(error) = self.post(caller, message.payload.as_bytes()).await {
                warn!(player_id = %caller.player_id, message_id = %message.message_id, error = %error, "replay stopped; the rest stay queued");
                break;
            }
            posted += 1;
            to_delete.push(message.message_id.clone());
            while to_delete.len() >= DELETE_CHUNK {
                let chunk: Vec<MessageId> = to_delete.drain(..DELETE_CHUNK).collect();
                self.messages.delete_all(&chunk).await?;
            }
        }
        if !to_delete.is_empty() {
            self.messages.delete_all(&to_delete).await?;
        }
        Ok(posted)
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
        let replayed = self.replay(&caller, &replay, stale).await?;
        info!(player_id = %caller.player_id, connection_id = %caller.connection_id, resumed, replayed, pending = replay.len(), "resume");
        Ok(status(200))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use super::*;
    use serde_json::json;
    use shared::adapters::memory::{InMemoryMessageStore, InMemoryPlayerStore};
    use shared::domain::{ConnectionId, PlayerId};
    use shared::ports::{ConnectionInfo, MessagePage, NewConnection, StoreError};
    use shared::testing::events::{parse_event, reply_frame, route_event};
    use shared::testing::recording_gateway::RecordingGateway;

    const T0: i64 = 1_795_323_600_000;

    struct World {
        players: Arc<InMemoryPlayerStore>,
        messages: Arc<InMemoryMessageStore>,
        gateway: Arc<RecordingGateway>,
        deletes: Arc<DeleteLog>,
        handler: ResumeHandler,
    }

    fn world() -> World {
        let players = Arc::new(InMemoryPlayerStore::new());
        let messages = Arc::new(InMemoryMessageStore::new());
        let gateway = Arc::new(RecordingGateway::new());
        let deletes = Arc::new(DeleteLog {
            inner: messages.clone(),
            gateway: gateway.clone(),
            log: Mutex::default(),
        });
        let handler = ResumeHandler::new(players.clone(), deletes.clone(), gateway.clone());
        World {
            players,
            messages,
            gateway,
            deletes,
            handler,
        }
    }

    impl World {
        /// A handler on the same stores posting through `gateway`.
        fn handler_with(&self, gateway: Arc<dyn ConnectionGateway>) -> ResumeHandler {
            ResumeHandler::new(self.players.clone(), self.deletes.clone(), gateway)
        }
    }

    /// The Messages table in memory, logging each `delete_all` as (ids deleted, posts
    /// the gateway had received by then), to see deletes interleave with the replay.
    struct DeleteLog {
        inner: Arc<InMemoryMessageStore>,
        gateway: Arc<RecordingGateway>,
        log: Mutex<Vec<(usize, usize)>>,
    }

    impl DeleteLog {
        fn calls(&self) -> Vec<(usize, usize)> {
            self.log.lock().unwrap().clone()
        }
    }

    #[async_trait]
    impl MessageStore for DeleteLog {
        async fn put_all(&self, messages: &[StoredMessage]) -> Result<(), StoreError> {
            self.inner.put_all(messages).await
        }

        async fn pending(
            &self,
            recipient: &PlayerId,
            after: Option<&MessageId>,
            limit: u32,
        ) -> Result<MessagePage, StoreError> {
            self.inner.pending(recipient, after, limit).await
        }

        async fn delete_all(&self, ids: &[MessageId]) -> Result<(), StoreError> {
            let posts = self.gateway.calls().len();
            self.log.lock().unwrap().push((ids.len(), posts));
            self.inner.delete_all(ids).await
        }
    }

    /// What a [`CutOffGateway`] does once its posts run out.
    #[derive(Clone, Copy)]
    enum Then {
        /// Answers 503.
        Fail,
        /// Never answers: the invocation runs out of time.
        Hang,
    }

    /// Passes the first `allowed` posts on to a [`RecordingGateway`], then [`Then`].
    struct CutOffGateway {
        inner: Arc<RecordingGateway>,
        allowed: usize,
        then: Then,
        posts: AtomicUsize,
    }

    impl CutOffGateway {
        fn new(inner: Arc<RecordingGateway>, allowed: usize, then: Then) -> Arc<Self> {
            Arc::new(Self {
                inner,
                allowed,
                then,
                posts: AtomicUsize::new(0),
            })
        }
    }

    #[async_trait]
    impl ConnectionGateway for CutOffGateway {
        async fn post(
            &self,
            endpoint: &str,
            connection: &ConnectionId,
            data: &[u8],
        ) -> Result<(), GatewayError> {
            if self.posts.fetch_add(1, Ordering::SeqCst) < self.allowed {
                return self.inner.post(endpoint, connection, data).await;
            }
            match self.then {
                Then::Fail => Err(GatewayError::Unavailable("503 Service Unavailable".into())),
                Then::Hang => std::future::pending().await,
            }
        }

        async fn delete(
            &self,
            endpoint: &str,
            connection: &ConnectionId,
        ) -> Result<(), GatewayError> {
            self.inner.delete(endpoint, connection).await
        }

        async fn get(
            &self,
            endpoint: &str,
            connection: &ConnectionId,
        ) -> Result<ConnectionInfo, GatewayError> {
            self.inner.get(endpoint, connection).await
        }
    }

    fn payloads(messages: &[StoredMessage]) -> Vec<String> {
        messages.iter().map(|m| m.payload.clone()).collect()
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
    async fn given_a_long_replay_then_delivered_messages_are_deleted_25_at_a_time_as_it_goes() {
        // Given 60 undelivered chat messages and a stale presence one
        let w = world();
        connect(&w.players, "c1", T0).await;
        let chat: Vec<_> = (0..60).map(|n| queued(MessageKind::Chat, n)).collect();
        w.messages.put_all(&chat).await.unwrap();
        w.messages
            .put_all(&[queued(MessageKind::Presence, 500)])
            .await
            .unwrap();

        // When alice resumes
        w.handler.handle(resume("c1")).await.unwrap();

        // Then ceil(61 / 25) deletes of at most 25 (one BatchWriteItem each), the first
        // two made mid-replay: after the ack and 24, then 49 messages were posted.
        assert_eq!(w.deletes.calls(), vec![(25, 25), (25, 50), (11, 61)]);
        assert_eq!(w.gateway.posted_to("c1")[1..], payloads(&chat));
        assert!(w.messages.all().is_empty());
    }

    #[tokio::test(start_paused = true)]
    async fn given_the_invocation_cut_short_midway_then_only_the_undeleted_tail_is_replayed_again()
    {
        // Given 60 undelivered messages, and a gateway that stops answering after the
        // ack and 53 of them (the Lambda times out mid-replay)
        let w = world();
        connect(&w.players, "c1", T0).await;
        let chat: Vec<_> = (0..60).map(|n| queued(MessageKind::Chat, n)).collect();
        w.messages.put_all(&chat).await.unwrap();
        let hanging = w.handler_with(CutOffGateway::new(w.gateway.clone(), 54, Then::Hang));

        // When the invocation is cut short
        let cut_short =
            tokio::time::timeout(Duration::from_secs(30), hanging.handle(resume("c1"))).await;
        assert!(cut_short.is_err(), "the replay never finished");

        // Then the two full chunks delivered are already gone: 3 delivered (not yet
        // deleted) and 7 undelivered remain
        assert_eq!(w.messages.all(), chat[50..].to_vec());

        // And the next resume replays just those 10, in order.
        w.handler.handle(resume("c1")).await.unwrap();
        let posted = w.gateway.posted_to("c1");
        let ack: Value = serde_json::from_str(&posted[54]).unwrap();
        assert_eq!(ack["pendingMessages"], 10);
        assert_eq!(posted[55..], payloads(&chat[50..]));
        assert!(w.messages.all().is_empty());
    }

    #[tokio::test]
    async fn given_the_gateway_failing_after_some_posts_then_the_delivered_are_gone_in_chunks_and_the_rest_stay()
     {
        // Given 60 undelivered messages, and a gateway failing after the ack and 30
        let w = world();
        connect(&w.players, "c1", T0).await;
        let chat: Vec<_> = (0..60).map(|n| queued(MessageKind::Chat, n)).collect();
        w.messages.put_all(&chat).await.unwrap();
        let failing = w.handler_with(CutOffGateway::new(w.gateway.clone(), 31, Then::Fail));

        // When alice resumes
        let response = failing.handle(resume("c1")).await.unwrap();

        // Then the 30 delivered are deleted (one chunk of 25 mid-replay, the remaining 5
        // when it stops) and the 30 undelivered wait for the next resume.
        assert_eq!(response.status_code, 200);
        assert_eq!(w.deletes.calls(), vec![(25, 26), (5, 31)]);
        assert_eq!(w.messages.all(), chat[30..].to_vec());
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
