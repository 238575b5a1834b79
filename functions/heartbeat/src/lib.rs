//! `heartbeat`: proves the player is still there (protocol pings do not reach Lambda,
//! so clients send this route) and pushes the heartbeat deadline the sweeper checks.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::json;
use shared::config::Config;
use shared::ports::{Clock, ConnectionGateway, Liveness, PlayerStore};
use shared::protocol::{DisconnectReason, ServerFrame, cursor_field};
use shared::websocket::{
    Opened, Request, RouteError, RouteEvent, RouteHandler, RouteResult, status, tell_and_close,
};
use tracing::{debug, info};

pub struct HeartbeatHandler {
    config: Arc<Config>,
    players: Arc<dyn PlayerStore>,
    gateway: Arc<dyn ConnectionGateway>,
    clock: Arc<dyn Clock>,
}

impl HeartbeatHandler {
    pub fn new(
        config: Arc<Config>,
        players: Arc<dyn PlayerStore>,
        gateway: Arc<dyn ConnectionGateway>,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self {
            config,
            players,
            gateway,
            clock,
        }
    }
}

#[async_trait]
impl RouteHandler for HeartbeatHandler {
    async fn handle(&self, event: RouteEvent) -> RouteResult {
        let request = match Request::open(&event.payload)? {
            Opened::Request(request) => request,
            Opened::Refused(reply) => return Ok(reply),
        };
        let cursor = match cursor_field(&request.frame.body) {
            Ok(cursor) => cursor,
            Err(message) => return Ok(request.refuse(RouteError::bad_request(message))),
        };
        let caller = &request.caller;
        let now = self.clock.now_millis();
        let deadline = now + self.config.heartbeat_timeout.as_millis() as i64;
        let liveness = match self
            .players
            .heartbeat(
                &caller.player_id,
                &caller.connection_id,
                now,
                deadline,
                cursor,
            )
            .await
        {
            Ok(liveness) => liveness,
            Err(err) => {
                return Ok(request.refuse(RouteError::from_store(
                    err,
                    "the heartbeat was not recorded; send the next one",
                )));
            }
        };
        let goodbye = match liveness {
            Liveness::Current => {
                debug!(player_id = %caller.player_id, connection_id = %caller.connection_id, "heartbeat");
                return Ok(request.respond(Ok(json!({ "serverTime": now }))));
            }
            // Another connection took over (maybe opened at the same moment as this one).
            Liveness::Replaced => ServerFrame::SessionReplaced,
            // Swept, or reported gone: this socket no longer counts for presence.
            Liveness::Gone => ServerFrame::Disconnected {
                reason: DisconnectReason::ConnectionLost,
            },
        };
        info!(player_id = %caller.player_id, connection_id = %caller.connection_id, ?liveness, "heartbeat from a connection that is not current; closing it");
        tell_and_close(
            self.gateway.as_ref(),
            &caller.endpoint,
            &caller.connection_id,
            &goodbye,
        )
        .await;
        Ok(status(200))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shared::adapters::memory::InMemoryPlayerStore;
    use shared::domain::{ConnectionId, PlayerId};
    use shared::ports::{ManualClock, NewConnection};
    use shared::testing::events::{parse_event, reply_frame, route_event};
    use shared::testing::recording_gateway::{GatewayCall, RecordingGateway};

    const T0: i64 = 1_795_323_600_000;

    async fn alice_online(players: &InMemoryPlayerStore) {
        players
            .connect(&NewConnection {
                player_id: PlayerId::parse("alice").unwrap(),
                connection_id: ConnectionId::parse("L0SM9cOFvHcCIhw=").unwrap(),
                endpoint: "https://x/Development".into(),
                connected_at: T0,
                now: T0,
                heartbeat_deadline: T0 + 90_000,
                sweep_shard: 0,
                expire_at_secs: 0,
            })
            .await
            .unwrap();
    }

    fn handler(players: Arc<InMemoryPlayerStore>, now: i64) -> HeartbeatHandler {
        handler_with(players, Arc::new(RecordingGateway::new()), now)
    }

    fn handler_with(
        players: Arc<dyn PlayerStore>,
        gateway: Arc<RecordingGateway>,
        now: i64,
    ) -> HeartbeatHandler {
        HeartbeatHandler::new(
            Arc::new(Config::for_local("Development")),
            players,
            gateway,
            Arc::new(ManualClock::at(now)),
        )
    }

    #[tokio::test]
    async fn given_an_online_player_when_heartbeating_then_ack_with_server_time_and_a_later_deadline()
     {
        let players = Arc::new(InMemoryPlayerStore::new());
        alice_online(&players).await;
        let raw = serde_json::from_str(include_str!("../../../events/heartbeat.json")).unwrap();
        let response = handler(players.clone(), T0 + 5_000)
            .handle(parse_event(raw))
            .await
            .unwrap();
        assert_eq!(
            reply_frame(&response),
            json!({"type":"ack","route":"heartbeat","requestId":"hb-1","serverTime":T0 + 5_000})
        );
        let record = players
            .get(&PlayerId::parse("alice").unwrap())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(record.sweep_at, Some(T0 + 5_000 + 90_000));
        assert_eq!(record.last_seen, T0 + 5_000);
    }

    #[tokio::test]
    async fn given_a_replaced_connection_when_heartbeating_then_it_is_told_and_closed_and_nothing_written()
     {
        // Given alice's current connection is another one (this socket lost a race or
        // was taken over)
        let players = Arc::new(InMemoryPlayerStore::new());
        alice_online(&players).await;
        let gateway = Arc::new(RecordingGateway::new());
        let event = route_event(
            "heartbeat",
            "alice",
            "stale",
            T0,
            Some(r#"{"route":"heartbeat"}"#),
        );

        // When the stale socket heartbeats
        let response = handler_with(players.clone(), gateway.clone(), T0 + 1)
            .handle(event)
            .await
            .unwrap();

        // Then it gets session_replaced and is closed, not acked
        assert_eq!(response.body, None);
        assert_eq!(
            gateway.posted_to("stale"),
            vec![r#"{"type":"session_replaced"}"#.to_owned()]
        );
        assert!(gateway.calls().iter().any(|c| matches!(c,
            GatewayCall::Delete { connection, .. } if connection == "stale")));
        let record = players
            .get(&PlayerId::parse("alice").unwrap())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(record.last_seen, T0);
    }

    #[tokio::test]
    async fn given_a_swept_connection_when_heartbeating_then_it_is_told_it_was_lost_and_closed() {
        let players = Arc::new(InMemoryPlayerStore::new());
        alice_online(&players).await;
        players
            .mark_offline(&PlayerId::parse("alice").unwrap(), T0 + 100_000)
            .await
            .unwrap();
        let gateway = Arc::new(RecordingGateway::new());
        let event = route_event(
            "heartbeat",
            "alice",
            "L0SM9cOFvHcCIhw=",
            T0,
            Some(r#"{"route":"heartbeat"}"#),
        );
        handler_with(players, gateway.clone(), T0 + 100_001)
            .handle(event)
            .await
            .unwrap();
        assert_eq!(
            gateway.posted_to("L0SM9cOFvHcCIhw="),
            vec![r#"{"type":"disconnected","reason":"connection_lost"}"#.to_owned()]
        );
    }

    #[tokio::test]
    async fn given_a_cursor_when_heartbeating_then_it_is_remembered_and_a_bad_one_is_refused() {
        let players = Arc::new(InMemoryPlayerStore::new());
        alice_online(&players).await;
        let event = route_event(
            "heartbeat",
            "alice",
            "L0SM9cOFvHcCIhw=",
            T0,
            Some(r#"{"route":"heartbeat","body":{"cursor":42}}"#),
        );
        handler(players.clone(), T0 + 1)
            .handle(event)
            .await
            .unwrap();
        let record = players
            .get(&PlayerId::parse("alice").unwrap())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(record.acked_seq.map(|s| s.get()), Some(42));

        let bad = route_event(
            "heartbeat",
            "alice",
            "L0SM9cOFvHcCIhw=",
            T0,
            Some(r#"{"route":"heartbeat","requestId":"h","body":{"cursor":"x"}}"#),
        );
        let frame = reply_frame(&handler(players.clone(), T0 + 2).handle(bad).await.unwrap());
        assert_eq!(frame["code"], "bad_request");
        assert_eq!(frame["requestId"], "h");
    }

    #[tokio::test]
    async fn given_the_storage_is_down_when_heartbeating_then_an_unavailable_frame_not_a_lambda_error()
     {
        let event = route_event(
            "heartbeat",
            "alice",
            "c1",
            T0,
            Some(r#"{"route":"heartbeat","requestId":"h1"}"#),
        );
        let response = handler_with(
            Arc::new(shared::testing::unavailable::Unavailable),
            Arc::new(RecordingGateway::new()),
            T0,
        )
        .handle(event)
        .await
        .unwrap();
        let frame = reply_frame(&response);
        assert_eq!(frame["code"], "unavailable");
        assert_eq!(frame["route"], "heartbeat");
        assert_eq!(frame["requestId"], "h1");
    }

    #[tokio::test]
    async fn given_a_malformed_heartbeat_frame_then_bad_request_and_nothing_written() {
        let players = Arc::new(InMemoryPlayerStore::new());
        alice_online(&players).await;
        let event = route_event(
            "heartbeat",
            "alice",
            "L0SM9cOFvHcCIhw=",
            T0,
            Some(r#"{"route":"heartbeat","body":"x"}"#),
        );
        let frame = reply_frame(
            &handler(players.clone(), T0 + 1)
                .handle(event)
                .await
                .unwrap(),
        );
        assert_eq!(frame["code"], "bad_request");
        assert_eq!(frame["route"], "heartbeat");
        let record = players
            .get(&PlayerId::parse("alice").unwrap())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(record.last_seen, T0);
    }
}
