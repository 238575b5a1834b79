//! Getting a live socket back: after a loss, reconnect with backoff (or give up); before
//! API Gateway's 2-hour limit, roll over to a new socket once the old one's replies are in;
//! and the deadlines the actor's short tick checks (reconnect, rollover, `resume` ack, the
//! seat's refresh).

use std::time::Duration;

use futures_util::SinkExt;
use tokio::time::Instant;

use super::Actor;
use crate::dedupe::backoff;
use crate::types::{ConnectionState, Event, StopReason};

impl Actor {
    /// The current socket is gone: fail what was sent on it and reconnect.
    pub(super) async fn lost(&mut self) {
        if let Some(conn) = self.current.take() {
            self.fail_pending(conn.id);
        }
        // A rollover under way has nothing left to replace.
        if let Some(task) = self
            .opening_candidate
            .take()
            .and_then(|id| self.tasks.remove(&id))
        {
            task.abort();
        }
        if let Some(mut candidate) = self.candidate.take() {
            let _ = candidate.sink.close().await;
        }
        self.rolling = None;
        self.rollover_at = None;
        self.schedule_reconnect().await;
    }

    pub(super) async fn schedule_reconnect(&mut self) {
        if self
            .config
            .max_attempts
            .is_some_and(|max| self.attempt >= max)
        {
            return self.stop(StopReason::GaveUp).await;
        }
        let delay = backoff(
            self.config.reconnect_initial,
            self.config.reconnect_max,
            self.attempt,
        );
        self.attempt += 1;
        self.reconnect_at = Some(Instant::now() + delay);
        self.emit(Event::State(ConnectionState::Reconnecting {
            attempt: self.attempt,
            delay,
        }));
    }

    pub(super) async fn rollover_failed(&mut self) {
        self.rolling = None;
        let Some(conn) = self.current.as_mut() else {
            return;
        };
        conn.retiring = false;
        if conn.closed {
            return self.lost().await;
        }
        // The old socket still works: try again a little later.
        let retry = (self.config.rollover_after / 10).min(Duration::from_secs(30));
        self.rollover_at = Some(Instant::now() + retry);
        self.flush_queue().await;
    }

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
