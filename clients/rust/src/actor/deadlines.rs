//! The deadlines the actor's short tick checks: a reconnect, a rollover, a `resume` ack
//! that does not come, the seat's refresh.

use futures_util::SinkExt;
use tokio::time::Instant;

use super::Actor;

impl Actor {
    pub(super) async fn on_tick(&mut self) {
        let now = Instant::now();
        if self.reconnect_at.is_some_and(|at| at <= now) {
            self.reconnect_at = None;
            self.open(false);
        }
        let live = self.current.as_ref().is_some_and(|c| c.live);
        if live && self.rolling.is_none() && self.rollover_at.is_some_and(|at| at <= now) {
            self.rollover_at = None;
            self.rolling = Some(now);
        }
        if let (Some(started), None, false) = (
            self.rolling,
            &self.candidate,
            self.opening_candidate.is_some(),
        ) {
            // The server closes the old socket once the new one connects: let its replies in.
            let current = self.current.as_ref().map(|c| c.id);
            let busy = self
                .pending
                .values()
                .any(|p| p.conn.is_some() && p.conn == current);
            if !busy || now - started > self.config.request_timeout {
                if let Some(conn) = self.current.as_mut() {
                    conn.retiring = true;
                }
                self.open(true);
            }
        }
        if live {
            self.refresh_seat_if_due(now).await;
        }
        for slot in [&mut self.current, &mut self.candidate] {
            if let Some(conn) = slot
                .as_mut()
                .filter(|c| !c.live && c.resume_deadline <= now)
            {
                // No `resume` ack in time: close it; its close reconnects.
                conn.resume_deadline = now + self.config.request_timeout;
                let _ = conn.sink.close().await;
            }
        }
    }
}
