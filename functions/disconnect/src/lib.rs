//! `$disconnect`: starts the player's reconnect grace period, but only if this
//! connection is still theirs: a late `$disconnect` of a replaced connection must never
//! clobber the newer one (shared/src/players.rs). API Gateway
//! delivers `$disconnect` best-effort; the presence sweeper is what guarantees presence
//! converges.

use std::sync::Arc;

use async_trait::async_trait;
use edge::websocket::{Caller, RouteEvent, RouteHandler, RouteResult, status};
use shared::config::Config;
use shared::ports::{Clock, Connections};
use shared::telemetry::ErrorChain;
use tracing::{info, warn};

shared::wired! {
    /// `$disconnect` as every deployment builds it.
    pub fn wire(w) -> pub struct DisconnectHandler {
        config: Arc<Config> = w.config.clone(),
        players: Arc<dyn Connections> = w.stores.connections(),
        clock: Arc<dyn Clock> = w.clock.clone(),
    }
}

#[async_trait]
impl RouteHandler for DisconnectHandler {
    async fn handle(&self, event: RouteEvent) -> RouteResult {
        let caller = Caller::from_event(&event.payload)?;
        let now = self.clock.now_millis();
        let grace_until = now + self.config.reconnect_grace.as_millis() as i64;
        let applied = match self
            .players
            .disconnect(&caller.player_id, &caller.connection_id, now, grace_until)
            .await
        {
            Ok(applied) => applied,
            Err(err) => {
                // Nobody hears a $disconnect's answer; the sweeper converges presence.
                warn!(player_id = %caller.player_id, connection_id = %caller.connection_id, error = %ErrorChain(&err), "the disconnect could not be recorded; the sweeper will take the player offline");
                return Ok(status(200));
            }
        };
        let ctx = &event.payload.request_context;
        info!(
            player_id = %caller.player_id,
            connection_id = %caller.connection_id,
            close_code = ctx.disconnect_status_code,
            reason = ctx.disconnect_reason.as_deref(),
            grace_until,
            applied,
            "disconnected{}",
            if applied { "" } else { " (not the current connection: nothing to do)" }
        );
        Ok(status(200))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use contracts::events::{parse_event, route_event};
    use contracts::fixtures::connected;
    use contracts::ports::*;
    use memory_adapters::InMemoryPlayerStore;
    use memory_adapters::test_wiring::TestWiring;
    use shared::domain::{PlayerId, PresenceStatus};

    const T0: i64 = 1_795_323_600_000;

    fn alice() -> PlayerId {
        PlayerId::parse("alice").unwrap()
    }

    async fn online(players: &InMemoryPlayerStore, connection: &str, at: i64) {
        connected(players, "alice", connection, at).await;
    }

    /// The handler as `wire` builds it, its clock at `now`.
    fn handler(w: &TestWiring, now: i64) -> DisconnectHandler {
        w.clock.set(now);
        wire(&w.wiring())
    }

    #[tokio::test]
    async fn given_the_current_connection_when_it_disconnects_then_the_grace_period_starts() {
        let w = TestWiring::new();
        let players = w.tables.players.clone();
        online(&players, "L0SM9cOFvHcCIhw=", T0).await;
        let raw = serde_json::from_str(include_str!("../../../events/disconnect.json")).unwrap();
        let response = handler(&w, T0 + 60_000)
            .handle(parse_event(raw))
            .await
            .unwrap();
        assert_eq!(response.status_code, 200);
        let record = players.get(&alice()).await.unwrap().unwrap();
        assert_eq!(record.status, PresenceStatus::Disconnected);
        assert_eq!(record.sweep_at, Some(T0 + 60_000 + 30_000));
    }

    #[tokio::test]
    async fn given_a_newer_connection_when_the_old_disconnect_arrives_late_then_nothing_changes() {
        let w = TestWiring::new();
        let players = w.tables.players.clone();
        online(&players, "old", T0).await;
        online(&players, "new", T0 + 5).await;
        let response = handler(&w, T0 + 10)
            .handle(route_event("$disconnect", "alice", "old", T0, None))
            .await
            .unwrap();
        assert_eq!(response.status_code, 200);
        let record = players.get(&alice()).await.unwrap().unwrap();
        assert_eq!(record.connection_id.as_str(), "new");
        assert_eq!(record.status, PresenceStatus::Online);
    }

    #[tokio::test]
    async fn given_no_record_when_a_disconnect_arrives_then_it_succeeds_and_writes_nothing() {
        let w = TestWiring::new();
        let players = w.tables.players.clone();
        let response = handler(&w, T0)
            .handle(route_event("$disconnect", "alice", "c1", T0, None))
            .await
            .unwrap();
        assert_eq!(response.status_code, 200);
        assert_eq!(players.get(&alice()).await.unwrap(), None);
    }
}
