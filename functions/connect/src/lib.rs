//! `$connect`: records the player's connection in one conditional write and decides
//! between a new session, a resume within the grace period, and a takeover of a
//! connection the player still holds elsewhere (in sequence: below; the states:
//! `shared::players`). A new session publishes
//! `presence.connected` to the presence bus; a resume or a takeover publishes nothing
//! (watchers never saw the player leave).
//!
//! # Connect and resume, in sequence
//!
//! A mermaid sequence diagram (paste it into any mermaid renderer to draw it):
//!
//! ```text
//! sequenceDiagram
//!   autonumber
//!   participant C as client
//!   participant G as API Gateway
//!   participant A as authorizer
//!   participant K as connect
//!   participant P as Players
//!   participant R as resume
//!   participant M as Messages (inbox)
//!   participant D as on-message-inserted
//!
//!   C->>G: WebSocket upgrade (token, or playerId in header mode)
//!   G->>A: $connect REQUEST authorizer
//!   A-->>G: Allow, context playerId
//!   G->>K: $connect
//!   K->>P: UpdateItem connection fields, copy previous*, condition connectedAt not newer, ALL_OLD
//!   P-->>K: the replaced item: new session, resume or takeover
//!   alt takeover (the player was online elsewhere)
//!     K->>G: PostToConnection(old connection, session_replaced)
//!     K->>G: DeleteConnection(old connection)
//!   else new session
//!     K->>K: publish presence.connected
//!   else resumed within the grace period
//!     Note over K: nothing published
//!   end
//!   K-->>G: 200 (also when a later connection already holds the record: that socket is replaced at its first frame)
//!   G-->>C: 101, upgrade completes
//!   C->>G: resume, cursor optional
//!   G->>R: resume
//!   R->>P: GetItem (consistent read)
//!   alt this connection is not the player's current one (replaced, or given up)
//!     R->>G: PostToConnection(session_replaced or disconnected), DeleteConnection(this one)
//!   else the connect was a takeover
//!     R->>G: PostToConnection(session_replaced), DeleteConnection(previousConnectionId), again
//!   end
//!   R->>M: Query inbox, newest first
//!   loop every frame after the cursor, oldest first
//!     R->>G: PostToConnection(frame, with seq)
//!     G-->>C: frame
//!   end
//!   R->>P: TransactWriteItems hand-over: this connection live from the newest seq replayed, condition no newer inbox item
//!   alt a newer item was appended meanwhile
//!     R->>M: Query the new items
//!     R->>G: PostToConnection(each new frame)
//!     R->>P: retry the hand-over
//!   end
//!   R-->>G: route response: ack (pendingMessages = frames replayed)
//!   G-->>C: ack
//!   Note over M,D: from now on new inbox items reach the client live
//!   M-)D: stream INSERT (seq > 0)
//!   D->>P: BatchGetItem recipients
//!   D->>G: PostToConnection(frame) to the live connection
//!   G-->>C: frame
//! ```

use std::sync::Arc;

use async_trait::async_trait;
use edge::websocket::{Caller, RouteEvent, RouteHandler, RouteResult, status, tell_and_close};
use shared::config::Config;
use shared::domain::PLAYER_RETENTION_SECONDS;
use shared::frames::ServerFrame;
use shared::players::{ConnectOutcome, NewConnection};
use shared::ports::{Clock, ConnectionGateway, Connections, EventBus, StoreError};
use shared::presence::PresenceEvent;
use shared::telemetry::ErrorChain;
use tracing::{error, info, warn};

shared::wired! {
    /// `$connect` as every deployment builds it.
    pub fn wire(w) -> pub struct ConnectHandler {
        config: Arc<Config> = w.config.clone(),
        players: Arc<dyn Connections> = w.stores.connections(),
        gateway: Arc<dyn ConnectionGateway> = w.services.connection_gateway(),
        clock: Arc<dyn Clock> = w.clock.clone(),
        events: Arc<dyn EventBus> = w.services.event_bus(),
    }
}

impl ConnectHandler {
    /// Tells the presence bus about a new session. A failure must not refuse the
    /// connection: watchers miss one `online`, and the ack of their next subscribe (or
    /// the player's next session) is right again.
    async fn announce(&self, caller: &Caller, at: shared::domain::EpochMillis) {
        let event = PresenceEvent::connected(caller.player_id.clone(), at);
        if let Err(err) = self.events.publish(std::slice::from_ref(&event)).await {
            error!(player_id = %caller.player_id, connection_id = %caller.connection_id, error = %ErrorChain(&err), "could not publish presence.connected");
        }
    }
}

#[async_trait]
impl RouteHandler for ConnectHandler {
    async fn handle(&self, event: RouteEvent) -> RouteResult {
        let caller = Caller::from_event(&event.payload)?;
        let now = self.clock.now_millis();
        let connection = NewConnection {
            player_id: caller.player_id.clone(),
            connection_id: caller.connection_id.clone(),
            endpoint: caller.endpoint.clone(),
            connected_at: if caller.connected_at > 0 {
                caller.connected_at
            } else {
                now
            },
            now,
            heartbeat_deadline: self.config.heartbeat_deadline(now),
            sweep_shard: caller.player_id.sweep_shard(self.config.presence_shards),
            expire_at_secs: now / 1000 + PLAYER_RETENTION_SECONDS,
        };
        let outcome = match self.players.connect(&connection).await {
            Ok(outcome) => outcome,
            Err(err) => {
                // No frame can be sent yet: the handshake fails with a status the client
                // can act on (503: try again), and the log keeps the cause.
                let code = match err {
                    StoreError::Unavailable(_) => 503,
                    _ => 500,
                };
                warn!(player_id = %caller.player_id, connection_id = %caller.connection_id, status = code, error = %ErrorChain(&err), "connect refused: the connection could not be recorded");
                shared::metrics::other_request(
                    "$connect",
                    Some(if code == 503 {
                        "unavailable"
                    } else {
                        "internal"
                    }),
                );
                return Ok(status(code));
            }
        };
        let span = (caller.player_id.as_str(), caller.connection_id.as_str());
        match &outcome {
            ConnectOutcome::New => {
                info!(player_id = span.0, connection_id = span.1, "new session");
                self.announce(&caller, now).await;
            }
            ConnectOutcome::Resumed => info!(
                player_id = span.0,
                connection_id = span.1,
                "session resumed"
            ),
            ConnectOutcome::TakeOver {
                old_connection,
                old_endpoint,
            } => {
                info!(player_id = span.0, connection_id = span.1, old_connection_id = %old_connection, "taking over the session");
                // If the old socket is itself still opening this finds it gone; the new
                // connection's `resume` closes it again.
                tell_and_close(
                    self.gateway.as_ref(),
                    old_endpoint,
                    old_connection,
                    &ServerFrame::SessionReplaced,
                )
                .await;
            }
            ConnectOutcome::Superseded => {
                // Opened at the same moment as a later connection that holds the session
                // already: accepted, so that the socket can be told why it closes. It is
                // never live; its first frame (`resume`) gets `session_replaced` and the
                // close.
                info!(
                    player_id = span.0,
                    connection_id = span.1,
                    "a later connection holds the session; this one will be replaced"
                );
            }
        }
        shared::metrics::other_request("$connect", None);
        Ok(status(200))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use contracts::events::{parse_event, route_event};
    use contracts::ports::*;
    use contracts::recording_gateway::{GatewayCall, RecordingGateway};
    use memory_adapters::test_wiring::TestWiring;
    use memory_adapters::{InMemoryPlayerStore, InProcessEventBus};
    use shared::domain::{PlayerId, PresenceStatus};
    use shared::ports::ManualClock;
    use shared::presence::PresenceEvent;

    const T0: i64 = 1_700_000_000_000;

    struct World {
        players: Arc<InMemoryPlayerStore>,
        gateway: Arc<RecordingGateway>,
        clock: ManualClock,
        bus: Arc<InProcessEventBus>,
        handler: ConnectHandler,
    }

    fn world() -> World {
        let w = TestWiring::new().at(T0);
        World {
            handler: wire(&w.wiring()),
            players: w.tables.players.clone(),
            gateway: w.gateway.clone(),
            clock: w.clock.clone(),
            bus: w.bus.clone(),
        }
    }

    fn alice() -> PlayerId {
        PlayerId::parse("alice").unwrap()
    }

    #[tokio::test]
    async fn given_a_new_player_when_connecting_then_accepted_and_online_with_a_heartbeat_deadline()
    {
        let w = world();
        let response = w
            .handler
            .handle(route_event("$connect", "alice", "c1", T0, None))
            .await
            .unwrap();
        assert_eq!(response.status_code, 200);
        let record = w.players.get(&alice()).await.unwrap().unwrap();
        assert_eq!(record.status, PresenceStatus::Online);
        assert_eq!(record.sweep_at, Some(T0 + 90_000));
        assert_eq!(
            record.endpoint,
            "https://abcdef1234.execute-api.us-east-1.amazonaws.com/Development"
        );
        assert!(w.gateway.calls().is_empty());
    }

    #[tokio::test]
    async fn given_alice_online_elsewhere_when_she_connects_then_the_old_socket_is_told_and_closed()
    {
        let w = world();
        w.handler
            .handle(route_event("$connect", "alice", "c1", T0, None))
            .await
            .unwrap();
        w.clock.advance(10);
        let response = w
            .handler
            .handle(route_event("$connect", "alice", "c2", T0 + 10, None))
            .await
            .unwrap();
        assert_eq!(response.status_code, 200);
        let endpoint =
            "https://abcdef1234.execute-api.us-east-1.amazonaws.com/Development".to_string();
        assert_eq!(
            w.gateway.calls(),
            vec![
                GatewayCall::Post {
                    endpoint: endpoint.clone(),
                    connection: "c1".into(),
                    data: r#"{"type":"session_replaced"}"#.into()
                },
                GatewayCall::Delete {
                    endpoint,
                    connection: "c1".into()
                },
            ]
        );
        assert_eq!(
            w.players
                .get(&alice())
                .await
                .unwrap()
                .unwrap()
                .connection_id
                .as_str(),
            "c2"
        );
    }

    #[tokio::test]
    async fn given_the_old_socket_already_gone_when_taking_over_then_the_new_connection_is_still_accepted()
     {
        let w = world();
        w.handler
            .handle(route_event("$connect", "alice", "c1", T0, None))
            .await
            .unwrap();
        w.gateway.mark_gone("c1");
        let response = w
            .handler
            .handle(route_event("$connect", "alice", "c2", T0 + 10, None))
            .await
            .unwrap();
        assert_eq!(response.status_code, 200);
    }

    #[tokio::test]
    async fn given_a_later_connection_holds_the_record_when_an_older_connect_lands_then_it_is_accepted_but_not_recorded()
     {
        let w = world();
        w.handler
            .handle(route_event("$connect", "alice", "new", T0 + 50, None))
            .await
            .unwrap();
        let response = w
            .handler
            .handle(route_event("$connect", "alice", "old", T0, None))
            .await
            .unwrap();
        // Accepted, so that its first frame can be answered with session_replaced.
        assert_eq!(response.status_code, 200);
        assert_eq!(
            w.players
                .get(&alice())
                .await
                .unwrap()
                .unwrap()
                .connection_id
                .as_str(),
            "new"
        );
    }

    #[tokio::test]
    async fn given_no_authorizer_context_when_connecting_then_it_is_a_fault_not_a_reply() {
        let w = world();
        let mut event = route_event("$connect", "alice", "c1", T0, None);
        event.payload.request_context.authorizer.fields.clear();
        let error = w.handler.handle(event).await.unwrap_err();
        assert!(error.to_string().contains("authorizer"), "{error}");
    }

    async fn connect(w: &World, connection: &str, at: i64) -> i64 {
        w.clock.set(at);
        w.handler
            .handle(route_event("$connect", "alice", connection, at, None))
            .await
            .unwrap()
            .status_code
    }

    #[tokio::test]
    async fn given_a_new_session_when_connecting_then_presence_connected_is_published_once() {
        let w = world();
        assert_eq!(connect(&w, "c1", T0).await, 200);
        assert_eq!(
            w.bus.published(),
            vec![PresenceEvent::connected(alice(), T0)]
        );
    }

    #[tokio::test]
    async fn given_a_reconnect_within_grace_then_resumed_without_a_presence_event_and_after_grace_a_new_one()
     {
        let w = world();
        connect(&w, "c1", T0).await;
        let grace = w.handler.config.reconnect_grace.as_millis() as i64;
        assert!(
            w.players
                .disconnect(
                    &alice(),
                    &shared::domain::ConnectionId::parse("c1").unwrap(),
                    T0 + 10,
                    T0 + 10 + grace
                )
                .await
                .unwrap()
        );
        assert_eq!(connect(&w, "c2", T0 + 10 + grace).await, 200);
        assert_eq!(w.bus.take(), vec![PresenceEvent::connected(alice(), T0)]);

        assert!(
            w.players
                .disconnect(
                    &alice(),
                    &shared::domain::ConnectionId::parse("c2").unwrap(),
                    T0 + 20 + grace,
                    T0 + 20 + 2 * grace
                )
                .await
                .unwrap()
        );
        let late = T0 + 21 + 2 * grace;
        assert_eq!(connect(&w, "c3", late).await, 200);
        assert_eq!(w.bus.take(), vec![PresenceEvent::connected(alice(), late)]);
    }

    #[tokio::test]
    async fn given_a_takeover_or_a_superseded_connect_then_no_presence_event() {
        let w = world();
        connect(&w, "c1", T0).await;
        w.bus.take();
        assert_eq!(connect(&w, "c2", T0 + 10).await, 200);
        assert_eq!(connect(&w, "old", T0 + 5).await, 200);
        assert!(w.bus.published().is_empty());
    }

    #[tokio::test]
    async fn given_the_presence_bus_down_when_a_new_session_connects_then_it_is_still_accepted() {
        let w = world();
        w.bus.set_failing(true);
        assert_eq!(connect(&w, "c1", T0).await, 200);
        let record = w.players.get(&alice()).await.unwrap().unwrap();
        assert_eq!(record.status, PresenceStatus::Online);
    }

    #[tokio::test]
    async fn given_the_storage_is_down_when_connecting_then_the_handshake_fails_with_503_not_a_lambda_error()
     {
        let mut w = TestWiring::new().at(T0);
        w.replace::<dyn Connections>(Arc::new(contracts::unavailable::Unavailable));
        let handler = wire(&w.wiring());
        let response = handler
            .handle(route_event("$connect", "alice", "c1", T0, None))
            .await
            .unwrap();
        assert_eq!(response.status_code, 503);
    }

    #[tokio::test]
    async fn the_sample_connect_event_is_accepted() {
        let w = world();
        let raw = serde_json::from_str(include_str!("../../../events/connect.json")).unwrap();
        let response = w.handler.handle(parse_event(raw)).await.unwrap();
        assert_eq!(response.status_code, 200);
        let record = w.players.get(&alice()).await.unwrap().unwrap();
        assert_eq!(record.connection_id.as_str(), "L0SM9cOFvHcCIhw=");
    }
}
