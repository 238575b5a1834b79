//! `heartbeat`: proves the player is still there (protocol pings do not reach Lambda,
//! so clients send this route) and pushes the heartbeat deadline the sweeper checks.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::json;
use shared::config::Config;
use shared::ports::{Clock, PlayerStore};
use shared::protocol::ServerFrame;
use shared::websocket::{Caller, RouteEvent, RouteHandler, RouteResult, client_frame, reply};
use tracing::{debug, info};

pub struct HeartbeatHandler {
    config: Arc<Config>,
    players: Arc<dyn PlayerStore>,
    clock: Arc<dyn Clock>,
}

impl HeartbeatHandler {
    pub fn new(config: Arc<Config>, players: Arc<dyn PlayerStore>, clock: Arc<dyn Clock>) -> Self {
        Self {
            config,
            players,
            clock,
        }
    }
}

#[async_trait]
impl RouteHandler for HeartbeatHandler {
    async fn handle(&self, event: RouteEvent) -> RouteResult {
        let caller = Caller::from_event(&event.payload)?;
        let frame = match client_frame(&event.payload) {
            Ok(frame) => frame,
            Err(error_reply) => return Ok(error_reply),
        };
        let now = self.clock.now_millis();
        let deadline = now + self.config.heartbeat_timeout.as_millis() as i64;
        let refreshed = self
            .players
            .heartbeat(&caller.player_id, &caller.connection_id, now, deadline)
            .await?;
        if refreshed {
            debug!(player_id = %caller.player_id, connection_id = %caller.connection_id, "heartbeat");
        } else {
            // Replaced or swept meanwhile: this socket is being closed; the ack is harmless.
            info!(player_id = %caller.player_id, connection_id = %caller.connection_id, "heartbeat from a connection that is no longer current");
        }
        Ok(reply(&ServerFrame::ack(
            &frame,
            json!({ "serverTime": now }),
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shared::adapters::memory::InMemoryPlayerStore;
    use shared::domain::{ConnectionId, PlayerId};
    use shared::ports::{ManualClock, NewConnection};
    use shared::testing::events::{parse_event, reply_frame, route_event};

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
        HeartbeatHandler::new(
            Arc::new(Config::for_local("Development")),
            players,
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
    async fn given_a_replaced_connection_when_heartbeating_then_ack_but_nothing_written() {
        let players = Arc::new(InMemoryPlayerStore::new());
        alice_online(&players).await;
        let event = route_event(
            "heartbeat",
            "alice",
            "stale",
            T0,
            Some(r#"{"route":"heartbeat"}"#),
        );
        let frame = reply_frame(
            &handler(players.clone(), T0 + 1)
                .handle(event)
                .await
                .unwrap(),
        );
        assert_eq!(frame["type"], "ack");
        let record = players
            .get(&PlayerId::parse("alice").unwrap())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(record.last_seen, T0);
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
