//! The player endpoints: presence and game state (`GET /v1/players/{playerId}`,
//! `POST /v1/players:batchGet`) and ending a player's connection
//! (`DELETE /v1/players/{playerId}/connection`).
//!
//! Ending a connection reads the player (one GetItem): not online → `404`. Otherwise it
//! appends a `kick` item to the player's inbox whose frame,
//! `{"type":"disconnected_by_server","reason","connectionId"}`, names the connection
//! that was current. Whoever delivers that item posts the frame and then closes that
//! connection:
//!
//! - the stream consumer, if the connection is live (`on-message-inserted`: post, then
//!   `DeleteConnection`; the player's later items in the batch wait for their next
//!   `resume`; a throttled close retries the record, posting the frame again);
//! - `resume`, if the connection has not sent it yet (the kick is in its replay: post,
//!   then `DeleteConnection`, no hand-over, no ack).
//!
//! So the frame always comes before the close, on the same ordered path as every push,
//! and is replayable: a client that was still opening its socket gets it on `resume`. A
//! kick is never applied to another connection: a replay to a later connection (the
//! player came back before the kick was delivered, or resumes without a cursor) and a
//! live delivery to one skip it (`StoredMessage::kicks`), so a stale kick cannot end the
//! next session. Nothing is written to the player: the close is an ordinary one
//! (`$disconnect` marks them disconnected, within the grace period), so the player can
//! reconnect at once: it is not a ban.

use edge::websocket::RouteError;
use gamelift_sockets_protocol::backend_api::{
    BatchGetPlayersResponse, EndConnectionRequest, EndConnectionResponse, PlayerIdsBody, PlayerView,
};
use lambda_http::http::StatusCode;
use shared::domain::{MessageId, PlayerId, PresenceStatus};
use shared::errors::NotFoundDetail;
use shared::frames::{ErrorReply, ServerFrame};
use shared::messaging::{MessageKind, NewMessage};
use shared::players::PlayerRecord;

use crate::messages::sender;
use crate::{Answer, BackendApi, answer, store_refusal};

/// The `reason` when none is given.
pub const DEFAULT_REASON: &str = "disconnected by the server";

impl BackendApi {
    pub(crate) async fn get_player(&self, player: &PlayerId) -> Answer {
        let record = self
            .players
            .get(player)
            .await
            .map_err(|e| store_refusal(e, "retry"))?
            .ok_or_else(|| no_player(player))?;
        answer(StatusCode::OK, &view(&record, self.clock.now_millis()))
    }

    pub(crate) async fn batch_get_players(&self, body: PlayerIdsBody) -> Answer {
        let ids = body.player_ids;
        let records = self
            .lookup
            .get_many(&ids)
            .await
            .map_err(|e| store_refusal(e, "retry"))?;
        let now = self.clock.now_millis();
        let players: Vec<PlayerView> = ids
            .iter()
            .filter_map(|id| records.iter().find(|r| r.player_id == *id))
            .map(|record| view(record, now))
            .collect();
        let not_found: Vec<PlayerId> = ids
            .into_iter()
            .filter(|id| !records.iter().any(|r| r.player_id == *id))
            .collect();
        answer(
            StatusCode::OK,
            &BatchGetPlayersResponse { players, not_found },
        )
    }

    pub(crate) async fn end_connection(
        &self,
        player: &PlayerId,
        body: EndConnectionRequest,
    ) -> Answer {
        let reason = body
            .reason
            .map_or_else(|| DEFAULT_REASON.to_owned(), |r| r.into_string());
        let from = sender(body.from.as_ref());
        let nothing_done = "the connection was not ended; retry";
        let record = self
            .players
            .get(player)
            .await
            .map_err(|e| store_refusal(e, nothing_done))?
            .ok_or_else(|| no_player(player))?;
        if record.status != PresenceStatus::Online {
            return Err(ErrorReply::not_found(
                format!(
                    "{player} has no open connection (they are {})",
                    record.status.as_str()
                ),
                NotFoundDetail {
                    presence: Some(record.status),
                    ..NotFoundDetail::default()
                },
            )
            .into());
        }
        let now = self.clock.now_millis();
        let message_id = MessageId::generate(now);
        let payload = ServerFrame::DisconnectedByServer {
            reason,
            connection_id: record.connection_id.to_string(),
        }
        .to_json();
        let kick = NewMessage::new(
            MessageKind::Kick,
            message_id.clone(),
            player.clone(),
            from,
            payload,
            now,
            self.config.message_ttl_secs(),
        );
        self.messages
            .append(std::slice::from_ref(&kick))
            .await
            .map_err(|e| store_refusal(e, nothing_done))?;
        answer(
            StatusCode::ACCEPTED,
            &EndConnectionResponse {
                connection_id: record.connection_id.to_string(),
                message_id: message_id.to_string(),
            },
        )
    }
}

/// `not_found`, naming the player no one is.
pub(crate) fn no_player(player: &PlayerId) -> RouteError {
    ErrorReply::not_found(
        format!("no player has the id {player}"),
        NotFoundDetail {
            player_id: Some(player.clone()),
            ..NotFoundDetail::default()
        },
    )
    .into()
}

/// What the API tells about a player: presence (`online` is what watchers see: online,
/// or dropped within the reconnect grace), the connection's times, and game state.
fn view(record: &PlayerRecord, now: i64) -> PlayerView {
    PlayerView {
        player_id: record.player_id.clone(),
        status: record.status,
        online: record.watched_online(now),
        connected_since: (record.status == PresenceStatus::Online).then_some(record.connected_at),
        last_seen: record.last_seen,
        game_session: record.game_session.clone(),
        party_id: record.party_id.clone(),
        pending_placement_id: record.pending.as_ref().map(ToString::to_string),
        activity: record.watched_activity(now).cloned(),
    }
}
