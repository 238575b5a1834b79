//! What a game server reports about its game session:
//! `POST /v1/game-sessions/{gameSessionId}/ended {"playerIds": [...]}` and
//! `POST /v1/game-sessions/{gameSessionId}/players/{playerId}/left`.
//!
//! Each player whose seat is in that game loses it (one conditional write each:
//! `gameSession` removed, `endedGameSessionArn` set), so `rejoinSession` answers
//! `session_ended` at once instead of asking GameLift, and `resume` no longer reports
//! the seat. A player whose seat is elsewhere (placed in a newer game meanwhile) is left
//! alone. Both are idempotent: a retried call changes nothing more.
//!
//! The write is `REMOVE gameSession SET endedGameSessionArn = :arn`, on condition
//! `gameSession.gameSessionArn = :arn` (`DynamoPlayerStore::end_game_session`).
//! `rejoinSession` reads the player anyway (one GetItem): no seat and an
//! `endedGameSessionArn` is `session_ended` at once, with no GameLift call; the `resume`
//! ack and `GET /v1/players/{id}` show no `gameSession`.
//!
//! `ended` names the players: nothing indexes players by game session (an index on a
//! nested map attribute is impossible, and one more attribute on every settlement and
//! rejoin was not worth it for what the server already knows: its player sessions).
//!
//! Why GameLift's own events cannot feed these calls instead: GameLift sends EventBridge
//! (and SNS) events for matchmaking, queue placements and fleets only; a game session
//! that ends, or a player session that completes, produces none. CloudTrail records
//! `TerminateGameSession` only when someone calls that API (a forced or graceful
//! termination from outside), not a game that ends by itself (`ProcessEnding` is a
//! server SDK call), and its record names no players. So the game server calls the API
//! when its match ends (before `ProcessEnding`) and when a player leaves (after
//! `RemovePlayerSession`); without those calls `rejoinSession` still answers
//! `session_ended`, from GameLift's refusal, one CreatePlayerSession call later.

use futures_util::stream::{self, StreamExt};
use gamelift_sockets_protocol::backend_api::{
    GameSessionEndedResponse, PlayerIdsBody, PlayerLeftResponse,
};
use lambda_http::http::StatusCode;
use shared::domain::PlayerId;
use shared::errors::ConflictDetail;
use shared::frames::ErrorReply;

use crate::players::no_player;
use crate::{Answer, BackendApi, answer, store_refusal};

/// How many players' seats are cleared at once.
const CONCURRENCY: usize = 16;

impl BackendApi {
    pub(crate) async fn game_session_ended(&self, game: &str, body: PlayerIdsBody) -> Answer {
        let players = body.player_ids;
        let outcomes: Vec<(PlayerId, Result<bool, shared::ports::StoreError>)> =
            stream::iter(players)
                .map(|player| async move {
                    let ended = self.seats.end_game_session(&player, game).await;
                    (player, ended)
                })
                .buffered(CONCURRENCY)
                .collect()
                .await;
        let mut cleared = Vec::new();
        let mut not_seated = Vec::new();
        for (player, outcome) in outcomes {
            match outcome.map_err(|e| {
                store_refusal(
                    e,
                    "some players' seats may be cleared and others not; retry",
                )
            })? {
                true => cleared.push(player),
                false => not_seated.push(player),
            }
        }
        answer(
            StatusCode::OK,
            &GameSessionEndedResponse {
                game_session_id: game.to_owned(),
                cleared,
                not_seated,
            },
        )
    }

    pub(crate) async fn player_left(&self, game: &str, player: &PlayerId) -> Answer {
        let retry = "retry";
        if self
            .seats
            .end_game_session(player, game)
            .await
            .map_err(|e| store_refusal(e, retry))?
        {
            return answer(StatusCode::OK, &PlayerLeftResponse { cleared: true });
        }
        // Nothing cleared: already done (a retry), or the seat is not in this game.
        let record = self
            .players
            .get(player)
            .await
            .map_err(|e| store_refusal(e, retry))?;
        match record {
            None => Err(no_player(player)),
            Some(r)
                if r.ended_game_session.as_deref() == Some(game) && r.game_session.is_none() =>
            {
                answer(StatusCode::OK, &PlayerLeftResponse { cleared: false })
            }
            Some(r) => Err(ErrorReply::conflict(
                format!("{player}'s game session is not {game}"),
                ConflictDetail {
                    current_game_session_id: Some(r.game_session.map(|s| s.game_session_arn)),
                    ..ConflictDetail::default()
                },
            )
            .into()),
        }
    }
}
