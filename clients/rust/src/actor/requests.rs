//! Requests: sent at once when live, held while (re)connecting or rolling over, matched
//! to their replies by `requestId`.

use serde_json::{Map, Value, json};
use tokio_tungstenite::tungstenite::Message;

use futures_util::SinkExt;
use gamelift_sockets_protocol::domain::Seq;
use gamelift_sockets_protocol::{ClientRequest, ErrorReply, KeepAliveRoute, Route};

use super::{Actor, Pending, Reply};
use crate::types::{ClientError, StopReason};

impl Actor {
    /// The timer's sign of life, asking for no reply, as the server's `keepAlive` says.
    /// `heartbeat`: every tick is a heartbeat (with the cursor, if any), the only frame
    /// that keeps the player online there. `ping`: a `ping` costs one inbound message and
    /// nothing else (API Gateway takes it: no function, no write), a `heartbeat` a
    /// database write, worth it only to record a new cursor; so a `heartbeat` with the
    /// cursor when a push was handled since the cursor was last reported (a reload's
    /// `resume` without cursor then replays at most one interval of frames), a `ping`
    /// otherwise. Without a `keepAlive` the config's `ping_when_idle` chooses.
    pub(super) async fn beat(&mut self) {
        self.pending.retain(|_, p| !p.reply.is_closed());
        let idle_route = match self.keep_alive {
            Some(keep_alive) => keep_alive.route,
            None if self.config.ping_when_idle => KeepAliveRoute::Ping,
            None => KeepAliveRoute::Heartbeat,
        };
        let Some(conn) = self.current.as_mut().filter(|c| c.live) else {
            return;
        };
        let fresh = self
            .last_seq
            .filter(|seq| self.reported_seq.is_none_or(|reported| *seq > reported));
        let report = match idle_route {
            KeepAliveRoute::Heartbeat => fresh.or(self.last_seq),
            KeepAliveRoute::Ping => fresh,
        };
        let frame = match report {
            Some(cursor) => {
                json!({"route": Route::Heartbeat.as_str(), "body": {"cursor": cursor}})
            }
            None => json!({"route": idle_route.as_str()}),
        };
        if conn
            .sink
            .send(Message::text(frame.to_string()))
            .await
            .is_ok()
            && report.is_some()
        {
            self.reported_seq = report;
        }
    }

    pub(super) async fn on_request(&mut self, frame: ClientRequest, reply: Reply) {
        let request_id = self.next_id().to_string();
        let route = frame.route();
        let frame = frame.with_request_id(request_id.clone());
        let live = self.current.as_ref().is_some_and(|c| c.live);
        let pending = Pending {
            route,
            frame,
            conn: None,
            reply,
        };
        if self.stopped {
            let _ = pending
                .reply
                .send(Err(ClientError::Closed(StopReason::ClosedByClient)));
        } else if live && self.rolling.is_none() {
            self.pending.insert(request_id.clone(), pending);
            self.transmit(&request_id).await;
        } else if self.rolling.is_some() || self.config.queue_while_reconnecting {
            self.pending.insert(request_id.clone(), pending);
            self.queue.push(request_id);
        } else {
            let _ = pending.reply.send(Err(ClientError::NotConnected));
        }
    }

    async fn transmit(&mut self, request_id: &str) {
        let (Some(conn), Some(pending)) = (self.current.as_mut(), self.pending.get_mut(request_id))
        else {
            return;
        };
        pending.conn = Some(conn.id);
        // A heartbeat reports the cursor as of when it is sent (unless it names its own).
        let mut reports = None;
        if let ClientRequest::Heartbeat { body, .. } = &mut pending.frame {
            if body.cursor.is_none() {
                body.cursor = self.last_seq.and_then(|seq| Seq::new(seq).ok());
            }
            reports = body.cursor.map(Seq::get);
        }
        let text = pending.frame.to_json();
        if conn.sink.send(Message::text(text)).await.is_err() {
            if let Some(pending) = self.pending.remove(request_id) {
                let route = pending.route;
                let _ = pending.reply.send(Err(ClientError::ConnectionLost {
                    route: route.as_str(),
                }));
            }
        } else if reports.is_some() {
            self.reported_seq = reports;
        }
    }

    pub(super) async fn flush_queue(&mut self) {
        if !self.current.as_ref().is_some_and(|c| c.live) || self.rolling.is_some() {
            return;
        }
        for request_id in std::mem::take(&mut self.queue) {
            self.transmit(&request_id).await;
        }
    }

    /// Requests sent on `conn` and still unanswered: their replies are gone with it.
    pub(super) fn fail_pending(&mut self, conn: u64) {
        let lost: Vec<String> = self
            .pending
            .iter()
            .filter(|(_, p)| p.conn == Some(conn))
            .map(|(id, _)| id.clone())
            .collect();
        for id in lost {
            if let Some(pending) = self.pending.remove(&id) {
                let route = pending.route;
                let _ = pending.reply.send(Err(ClientError::ConnectionLost {
                    route: route.as_str(),
                }));
            }
        }
    }

    pub(super) fn on_reply(&mut self, ok: bool, mut frame: Map<String, Value>) {
        let Some(request_id) = frame.get("requestId").and_then(Value::as_str) else {
            return;
        };
        let Some(pending) = self.pending.remove(request_id) else {
            return;
        };
        frame.remove("type");
        if ok {
            // Answers that carry the player's seat (a new one: a friend's game is another).
            match pending.route {
                Route::RejoinSession | Route::JoinFriendGame => {
                    self.set_seat(super::seat::seat_of(&frame).flatten());
                }
                Route::RefreshConnectionDetails => self.seat_refreshed(&frame),
                _ => {}
            }
        }
        let result = if ok {
            Ok(frame)
        } else {
            let route = frame
                .get("route")
                .and_then(Value::as_str)
                .map_or_else(|| pending.route.as_str().to_owned(), str::to_owned);
            let frame = Value::Object(frame);
            // A code this version does not know (a newer server) is kept, whole, in the text.
            let reply = serde_json::from_value(frame.clone()).unwrap_or_else(|error| {
                ErrorReply::internal(format!(
                    "an error this client cannot read ({error}): {frame}"
                ))
            });
            Err(ClientError::Server {
                route,
                reply: Box::new(reply),
            })
        };
        let _ = pending.reply.send(result);
    }
}
