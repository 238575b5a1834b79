//! `resume`: the first thing a client sends after connecting (posting from inside
//! `$connect` is impossible: the connection is not open until it returns). It answers
//! with the player's state, replays every frame of their inbox after the client's
//! cursor, in seq order, and then hands the connection over to live delivery, so that
//! nothing falls between the replay and the stream (shared/src/messaging/mod.rs):
//!
//! 1. one GetItem: is this connection the player's current one? (If not, it was
//!    replaced or given up: it is told so and closed.) If it took over a connection
//!    that was still online, that one is closed again here, in case it was still
//!    opening when `$connect` tried. For a party member, one GetItem of the party, for
//!    the ack; one the sweeper took offline is back (`presence`: one Query per member
//!    and one transaction, pushed to every member like any party change, this one's
//!    push included in the replay below).
//! 2. one Query of the inbox, newest first, down to the cursor (or, for a client that
//!    sends none, down to what it last acknowledged and the old connection's last sign
//!    of life);
//! 3. each frame after the cursor, posted in order; only the latest presence change of
//!    each player is replayed (earlier ones are stale); a backend kick of this very
//!    connection is posted and the socket closed, a kick of an earlier one skipped;
//! 4. one TransactWriteItems: this connection goes live from the head the replay
//!    reached, only if no message came after it meanwhile; if one did, the replay goes
//!    on from there and the hand-over is tried again;
//! 5. the ack, as the route's reply: `pendingMessages` (how many frames were just
//!    replayed), `cursor` (the head the client now has everything up to) and
//!    `keepAlive` (what the client's timer sends, and how often: the stack's
//!    `PRESENCE_LIVENESS` and timeout decide). Receiving it means the socket is live.
//!
//! A dependency that fails is answered with an `unavailable` error frame instead of the
//! ack: send `resume` again.

use std::collections::HashSet;
use std::sync::Arc;

use async_trait::async_trait;
use edge::websocket::{Reply, Request, Route, RouteError, Serves, tell_and_close};
use serde_json::Value;
use shared::acks::{PlacementAck, ResumeAck, RouteAck, TicketAck};
use shared::domain::{EpochMillis, PlacementStatus, Seq};
use shared::frames::{DisconnectReason, ServerFrame};
use shared::keep_alive::KeepAlive;
use shared::messaging::{Handover, HandoverOutcome, MessageKind, ReplayFrom, StoredMessage};
use shared::party::{CommitScope, MemberPresence, Parties, PartyError, PartyView};
use shared::pending::Pending;
use shared::players::{Liveness, PlayerRecord};
use shared::ports::{Clock, ConnectionGateway, DeliveryHandover, InboxReader, PlayerReader};
use shared::requests::{ClientRequest, Route as ClientRoute};
use shared::telemetry::ErrorChain;
use tracing::{info, warn};

#[cfg(test)]
mod tests;

/// For a client that reports no cursor, messages created this long before its old
/// connection's last sign of life are replayed too: frames posted just before a socket
/// dies may never have reached the client.
pub const CURSORLESS_REPLAY_MARGIN_MS: EpochMillis = 10_000;

/// How many times the hand-over is tried while messages keep arriving.
pub const HANDOVER_ATTEMPTS: u32 = 10;

shared::wired! {
    /// `resume` as every deployment builds it: a member back from offline is online again
    /// in their party ([`CommitScope::Presence`]).
    pub fn wire(w) -> pub struct ResumeHandler {
        /// What every ack tells the client's timer (`Config::keep_alive`).
        keep_alive: KeepAlive = w.keep_alive,
        players: Arc<dyn PlayerReader> = w.stores.player_reader(),
        messages: Arc<dyn InboxReader> = w.stores.inbox_reader(),
        handover: Arc<dyn DeliveryHandover> = w.stores.delivery_handover(),
        parties: Parties = w.parties(CommitScope::Presence),
        gateway: Arc<dyn ConnectionGateway> = w.services.connection_gateway(),
        clock: Arc<dyn Clock> = w.clock.clone(),
    }
}

/// Why a resume stopped early.
enum Stop {
    /// Answered with this `error` frame.
    Refused(RouteError),
    /// The socket cannot be written to any more: nothing else to say.
    SocketGone,
}

impl From<RouteError> for Stop {
    fn from(refusal: RouteError) -> Self {
        Self::Refused(refusal)
    }
}

impl ResumeHandler {
    /// The player's party for the ack; a member the sweeper took offline is online
    /// again (every member is told). `None` when the player is in no party.
    async fn party(&self, record: &PlayerRecord) -> Result<Option<PartyView>, RouteError> {
        let Some(party_id) = &record.party_id else {
            return Ok(None);
        };
        let party = self
            .parties
            .set_presence(party_id, &record.player_id, MemberPresence::Online)
            .await
            .map_err(|error| match error {
                PartyError::Store(err) => {
                    RouteError::from_store(err, "nothing was replayed; send resume again")
                }
                PartyError::Refused(refusal) => RouteError::new(
                    shared::frames::ErrorCode::Unavailable,
                    format!("{refusal}; send resume again"),
                ),
            })?;
        Ok(party.map(|party| party.view()))
    }

    /// Replays and hands over; the ack to reply with, or `None` when this socket was
    /// closed instead (not the player's current one).
    async fn resume(
        &self,
        request: &Request,
        cursor: Option<Seq>,
    ) -> Result<Option<ResumeAck>, Stop> {
        let caller = &request.caller;
        let record =
            self.players.get(&caller.player_id).await.map_err(|e| {
                RouteError::from_store(e, "nothing was replayed; send resume again")
            })?;
        let liveness = Liveness::of(record.as_ref(), &caller.connection_id);
        let Some(record) = record.filter(|_| liveness == Liveness::Current) else {
            self.close_this(request, liveness).await;
            return Ok(None);
        };
        if record.took_over() {
            self.close_replaced(&record).await;
        }
        // Before the inbox is read: a presence change's own push is then in the replay.
        let party = self.party(&record).await?;

        let now = self.clock.now_millis();
        // Already live and no cursor: everything since the hand-over was posted to this
        // very socket, which is still open (it just sent this frame), or is about to be
        // by the stream; a new hand-over would skip what the stream has not posted yet.
        let already_live = cursor.is_none() && record.is_live();
        let from = match cursor {
            Some(cursor) => ReplayFrom::after(cursor),
            None if already_live => ReplayFrom::after(Seq::MAX),
            None => cursorless_start(&record),
        };
        let read = self.read(request, &from, now).await?;
        let ack = |replayed: usize, head: Option<Seq>| ResumeAck {
            player_id: caller.player_id.clone(),
            connection_id: caller.connection_id.to_string(),
            resumed: record.resumed(),
            pending_messages: replayed as u64,
            cursor: head,
            placement: pending_placement(&record),
            matchmaking: live_ticket(&record),
            game_session: record.game_session.clone(),
            party: party.clone(),
            keep_alive: self.keep_alive,
        };
        if already_live {
            return Ok(Some(ack(0, read.head)));
        }
        let mut replayed = self
            .post_all(request, &latest_presence_only(read.messages))
            .await?;

        let (mut head, mut epoch) = (read.head, read.epoch);
        for _ in 0..HANDOVER_ATTEMPTS {
            let handover = Handover {
                player: caller.player_id.clone(),
                connection: caller.connection_id.clone(),
                head,
                epoch,
                // What the client reported, or (without a cursor) what it was sent.
                acked: cursor.or(head),
            };
            let outcome = self.handover.go_live(&handover).await.map_err(|e| {
                RouteError::from_store(e, "you are not receiving live messages; send resume again")
            })?;
            match outcome {
                HandoverOutcome::Live => {
                    info!(player_id = %caller.player_id, connection_id = %caller.connection_id, resumed = record.resumed(), replayed, head = ?head, "live");
                    return Ok(Some(ack(replayed, head)));
                }
                HandoverOutcome::NotCurrent => {
                    // Replaced (or swept) while replaying.
                    let record = self.players.get(&caller.player_id).await.ok().flatten();
                    self.close_this(
                        request,
                        Liveness::of(record.as_ref(), &caller.connection_id),
                    )
                    .await;
                    return Ok(None);
                }
                HandoverOutcome::InboxMoved => {
                    let more = self
                        .read(
                            request,
                            &ReplayFrom {
                                after: head,
                                created_since: None,
                            },
                            now,
                        )
                        .await?;
                    replayed += self
                        .post_all(request, &latest_presence_only(more.messages))
                        .await?;
                    (head, epoch) = (more.head, more.epoch);
                }
            }
        }
        Err(Stop::Refused(RouteError::new(
            shared::frames::ErrorCode::Unavailable,
            "messages kept arriving while your inbox was replayed; send resume again",
        )))
    }

    async fn read(
        &self,
        request: &Request,
        from: &ReplayFrom,
        now: EpochMillis,
    ) -> Result<shared::messaging::InboxRead, RouteError> {
        self.messages
            .read(&request.caller.player_id, from, now)
            .await
            .map_err(|e| {
                RouteError::from_store(e, "your inbox could not be read; send resume again")
            })
    }

    /// Posts the frames in order; returns how many. A backend kick of this connection
    /// is posted and then the socket closed (the replay stops there); a kick of an
    /// earlier connection is skipped: it must not end this one.
    async fn post_all(&self, request: &Request, messages: &[StoredMessage]) -> Result<usize, Stop> {
        let caller = &request.caller;
        let mut posted = 0;
        for message in messages {
            match message.kicks() {
                Some(target) if target == caller.connection_id.as_str() => {
                    self.post(request, message.frame().as_bytes()).await?;
                    info!(player_id = %caller.player_id, connection_id = %caller.connection_id, "connection ended by the backend (replayed)");
                    if let Err(error) = self
                        .gateway
                        .delete(&caller.endpoint, &caller.connection_id)
                        .await
                    {
                        warn!(player_id = %caller.player_id, error = %ErrorChain(&error), "could not close a kicked connection");
                    }
                    return Err(Stop::SocketGone);
                }
                Some(_) => continue,
                None => {
                    self.post(request, message.frame().as_bytes()).await?;
                    posted += 1;
                }
            }
        }
        Ok(posted)
    }

    async fn post(&self, request: &Request, data: &[u8]) -> Result<(), Stop> {
        let caller = &request.caller;
        match self
            .gateway
            .post(&caller.endpoint, &caller.connection_id, data)
            .await
        {
            Ok(()) => Ok(()),
            Err(error) => {
                // Gone, throttled or failing: the client's next resume replays the rest.
                warn!(player_id = %caller.player_id, connection_id = %caller.connection_id, error = %ErrorChain(&error), "replay stopped");
                Err(Stop::SocketGone)
            }
        }
    }

    /// This connection is not the player's current one: says why, and closes it.
    async fn close_this(&self, request: &Request, liveness: Liveness) {
        let caller = &request.caller;
        let frame = match liveness {
            Liveness::Replaced => ServerFrame::SessionReplaced,
            Liveness::Gone | Liveness::Current => ServerFrame::Disconnected {
                reason: DisconnectReason::ConnectionLost,
            },
        };
        info!(player_id = %caller.player_id, connection_id = %caller.connection_id, ?liveness, "resume on a connection that is not current; closing it");
        tell_and_close(
            self.gateway.as_ref(),
            &caller.endpoint,
            &caller.connection_id,
            &frame,
        )
        .await;
    }

    /// Closes the connection this one took over, again: `$connect` could not if it was
    /// still opening then (API Gateway answers 410 until its own `$connect` returns).
    async fn close_replaced(&self, record: &PlayerRecord) {
        let (Some(old), Some(endpoint)) =
            (&record.previous_connection_id, &record.previous_endpoint)
        else {
            return;
        };
        tell_and_close(
            self.gateway.as_ref(),
            endpoint,
            old,
            &ServerFrame::SessionReplaced,
        )
        .await;
    }
}

/// Where a replay starts for a client that reports no cursor: after what its player
/// last acknowledged, and not before its old connection's last sign of life (minus a
/// margin). A player who never connected gets everything.
fn cursorless_start(record: &PlayerRecord) -> ReplayFrom {
    ReplayFrom {
        after: record.acked_seq,
        created_since: record
            .previous_last_seen
            .map(|seen| seen - CURSORLESS_REPLAY_MARGIN_MS),
    }
}

/// The frames to replay: every one but presence changes, of which only each player's
/// latest is kept (the earlier ones are stale); order is kept.
pub fn latest_presence_only(messages: Vec<StoredMessage>) -> Vec<StoredMessage> {
    let mut seen = HashSet::new();
    let mut kept: Vec<StoredMessage> = messages
        .into_iter()
        .rev()
        .filter(|m| m.kind != MessageKind::Presence || seen.insert(presence_subject(m)))
        .collect();
    kept.reverse();
    kept
}

/// The player a presence frame is about.
fn presence_subject(message: &StoredMessage) -> String {
    serde_json::from_str::<Value>(&message.payload)
        .ok()
        .and_then(|frame| frame.get("playerId")?.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// The ack's `placement`: the pending one, from the record already read (a live
/// matchmaking ticket takes the same slot: it is `matchmaking` instead).
fn pending_placement(record: &PlayerRecord) -> Option<PlacementAck> {
    let id = record.pending.as_ref().and_then(Pending::placement)?;
    Some(PlacementAck {
        placement_id: id.clone(),
        status: PlacementStatus::Pending,
    })
}

/// The ack's `matchmaking`: the live ticket, from the record already read.
fn live_ticket(record: &PlayerRecord) -> Option<TicketAck> {
    let ticket = record.pending.as_ref().and_then(Pending::ticket)?;
    Some(TicketAck {
        ticket_id: ticket.clone(),
    })
}

#[async_trait]
impl Route for ResumeHandler {
    const SERVES: Serves = Serves {
        function: "resume",
        routes: &[ClientRoute::Resume],
    };

    async fn answer(&self, request: &Request) -> Result<Reply, RouteError> {
        let ClientRequest::Resume { body, .. } = &request.frame else {
            return Ok(Reply::WrongRoute);
        };
        match self.resume(request, body.cursor).await {
            Ok(Some(ack)) => Ok(Reply::Ack(RouteAck::Resume(ack))),
            Ok(None) | Err(Stop::SocketGone) => Ok(Reply::Silent),
            Err(Stop::Refused(refusal)) => Err(refusal),
        }
    }
}
