//! `resume`: the first thing a client sends after connecting (posting from inside
//! `$connect` is impossible: the connection is not open yet). Replies with the player's
//! state in one read. Later issues add the pending placement, the last game session and
//! the replay of undelivered messages.

use std::sync::Arc;

use async_trait::async_trait;
use serde::Serialize;
use serde_json::Value;
use shared::ports::PlayerStore;
use shared::protocol::ServerFrame;
use shared::websocket::{Caller, RouteEvent, RouteHandler, RouteResult, client_frame, reply};
use tracing::info;

pub struct ResumeHandler {
    players: Arc<dyn PlayerStore>,
}

/// The `resume` ack's fields (DESIGN §3).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResumeResult {
    pub player_id: String,
    pub resumed: bool,
    pub pending_messages: u32,
    pub placement: Option<Value>,
    pub game_session: Option<Value>,
}

impl ResumeHandler {
    pub fn new(players: Arc<dyn PlayerStore>) -> Self {
        Self { players }
    }
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
        // about to be closed.
        let resumed = record
            .as_ref()
            .is_some_and(|r| r.connection_id == caller.connection_id && r.resumed());
        info!(player_id = %caller.player_id, connection_id = %caller.connection_id, resumed, "resume");
        let result = ResumeResult {
            player_id: caller.player_id.to_string(),
            resumed,
            pending_messages: 0,
            placement: None,
            game_session: None,
        };
        Ok(reply(&ServerFrame::ack(&frame, result)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use shared::adapters::memory::InMemoryPlayerStore;
    use shared::domain::{ConnectionId, PlayerId};
    use shared::ports::NewConnection;
    use shared::testing::events::{parse_event, reply_frame, route_event};

    const T0: i64 = 1_795_323_600_000;

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

    #[tokio::test]
    async fn given_a_new_session_when_resuming_then_ack_with_player_id_and_not_resumed() {
        let players = Arc::new(InMemoryPlayerStore::new());
        connect(&players, "L0SM9cOFvHcCIhw=", T0).await;
        let raw = serde_json::from_str(include_str!("../../../events/resume.json")).unwrap();
        let response = ResumeHandler::new(players)
            .handle(parse_event(raw))
            .await
            .unwrap();
        assert_eq!(
            reply_frame(&response),
            json!({"type":"ack","route":"resume","requestId":"r-1","playerId":"alice","resumed":false,
                   "pendingMessages":0,"placement":null,"gameSession":null})
        );
    }

    #[tokio::test]
    async fn given_a_reconnect_within_grace_when_resuming_then_resumed_true() {
        let players = Arc::new(InMemoryPlayerStore::new());
        connect(&players, "c1", T0).await;
        let alice = PlayerId::parse("alice").unwrap();
        let c1 = ConnectionId::parse("c1").unwrap();
        players
            .disconnect(&alice, &c1, T0 + 10, T0 + 30_010)
            .await
            .unwrap();
        connect(&players, "c2", T0 + 20_000).await;
        let event = route_event(
            "resume",
            "alice",
            "c2",
            T0 + 20_000,
            Some(r#"{"route":"resume"}"#),
        );
        let frame = reply_frame(&ResumeHandler::new(players).handle(event).await.unwrap());
        assert_eq!(frame["resumed"], true);
    }

    #[tokio::test]
    async fn given_a_replaced_connection_when_resuming_then_resumed_false() {
        let players = Arc::new(InMemoryPlayerStore::new());
        connect(&players, "c1", T0).await;
        connect(&players, "c2", T0 + 1).await;
        let event = route_event("resume", "alice", "c1", T0, Some(r#"{"route":"resume"}"#));
        let frame = reply_frame(&ResumeHandler::new(players).handle(event).await.unwrap());
        assert_eq!(frame["resumed"], false);
        assert_eq!(frame["playerId"], "alice");
    }
}
