//! Pushed frames, handed on once: at-least-once delivery may bring one twice.

use gamelift_sockets_protocol::ServerFrame;
use gamelift_sockets_protocol::domain::PlacementStatus;
use gamelift_sockets_protocol::matchmaking::TicketStatus;
use serde_json::{Map, Value};

use super::Actor;
use crate::types::Event;

impl Actor {
    /// Starts after `cursor`: the first `resume` asks only for what came after it.
    pub(crate) fn starting_after(mut self, cursor: Option<u64>) -> Self {
        self.last_seq = cursor;
        self
    }

    /// Hands a pushed frame on once: by `seq`, then `messageId` or (`placementId`, `status`).
    pub(super) fn deliver(&mut self, frame: Map<String, Value>) {
        let seq = frame.get("seq").and_then(Value::as_u64);
        if let Some(seq) = seq {
            if !self.seqs.add(seq.to_string()) {
                return;
            }
            self.last_seq = Some(self.last_seq.map_or(seq, |last| last.max(seq)));
        }
        let value = Value::Object(frame);
        match serde_json::from_value::<ServerFrame>(value.clone()) {
            Ok(frame) => {
                let fresh = match &frame {
                    ServerFrame::Message { message_id, .. } => {
                        self.messages.add(message_id.clone())
                    }
                    ServerFrame::Placement {
                        placement_id,
                        status,
                        ..
                    } => self.placements.add(format!("{placement_id}\n{status}")),
                    _ => true,
                };
                if fresh {
                    // A seat, from a fulfilled placement or a completed match.
                    match &frame {
                        ServerFrame::Placement {
                            status: PlacementStatus::Fulfilled,
                            game_session: Some(seat),
                            ..
                        } => self.set_seat(Some(seat.clone())),
                        ServerFrame::Matchmaking {
                            status: TicketStatus::Completed,
                            detail,
                            ..
                        } => {
                            if let Some(matched) = &detail.game_session {
                                self.set_seat(Some(matched.seat.clone()));
                            }
                        }
                        _ => {}
                    }
                    self.emit(Event::Push { seq, frame });
                }
            }
            Err(_) => self.emit(Event::Unknown(value)),
        }
    }
}
