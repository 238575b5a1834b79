//! `joinFriendGame`: a seat in the game a friend is seated in. GameLift lets a player
//! into a running game with CreatePlayerSession when the game session is ACTIVE, has a
//! free slot and its player session creation policy is ACCEPT_ALL
//! (<https://docs.aws.amazon.com/gameliftservers/latest/apireference/API_CreatePlayerSession.html>);
//! the seat is made and stored as `rejoinSession`'s is ([`RejoinSessionHandler::seat_in`]),
//! and becomes the caller's own (a later `rejoinSession` comes back to it).
//!
//! Round trips: 1 conditional UpdateItem (the per-player limit,
//! `RATE_LIMIT_PLACEMENTS_PER_MINUTE`: it costs a GameLift call, as a placement does;
//! none with it off), 1 GetItem (Friends: the caller's side of the relation), 1 GetItem
//! (Players: the friend's seat), CreatePlayerSession, with `PLAYER_GATEWAY` enabled or
//! required 1 GetPlayerConnectionDetails, and 1 UpdateItem (the caller's seat).
//!
//! Refusals, each before anything is created: not friends (no relation, an invitation,
//! a block) `forbidden`, without saying which; the friend seated nowhere `not_found`;
//! then GameLift's answer: GameSessionFullException `session_full`;
//! InvalidGameSessionStatusException (the game is over, or its server took it to DENY_ALL:
//! GameLift answers both alike) and a game session GameLift no longer knows
//! `session_ended`, naming the game.

use edge::websocket::RouteError;
use shared::domain::{GameSession, PlayerId};
use shared::errors::{ForbiddenDetail, NotFoundDetail, SessionEndedDetail};
use shared::frames::{ErrorCode, ErrorReply};
use shared::friends::FriendState;
use shared::ports::GameLiftError;
use tracing::info;

use crate::{RejoinSessionHandler, gamelift_failure, store_refusal};

impl RejoinSessionHandler {
    /// A new seat for `player` in the game `friend` is seated in, stored as theirs.
    pub(crate) async fn join_friend(
        &self,
        player: &PlayerId,
        friend: &PlayerId,
    ) -> Result<GameSession, RouteError> {
        if friend == player {
            return Err(RouteError::new(
                ErrorCode::BadRequest,
                "`playerId` is you: rejoin your own game with rejoinSession",
            ));
        }
        self.refresh_limit
            .spend(player, "you did not join; retry")
            .await?;
        let relation = self
            .friends
            .relation(player, friend)
            .await
            .map_err(store_refusal)?;
        if relation.is_none_or(|r| r.state != FriendState::Friends) {
            return Err(ErrorReply::forbidden(
                format!("you and {friend} are not friends: only a friend's game can be joined"),
                ForbiddenDetail {
                    player_id: Some(friend.clone()),
                },
            )
            .into());
        }
        let record = self.players.get(friend).await.map_err(store_refusal)?;
        let Some(game) = record.and_then(|r| r.game_session) else {
            return Err(ErrorReply::not_found(
                format!("{friend} is in no game"),
                NotFoundDetail {
                    player_id: Some(friend.clone()),
                    ..NotFoundDetail::default()
                },
            )
            .into());
        };
        let seat = self
            .seat_in(player, &game)
            .await
            .map_err(|refusal| join_refusal(player, friend, &game, refusal))?;
        self.seats
            .take_seat(player, &seat)
            .await
            .map_err(store_refusal)?;
        info!(player_id = %player, friend = %friend, game_session_arn = %seat.game_session_arn, "joined a friend's game");
        Ok(seat)
    }
}

/// GameLift's refusal of a seat in the friend's game, as the joiner is told it.
fn join_refusal(
    player: &PlayerId,
    friend: &PlayerId,
    game: &GameSession,
    refusal: GameLiftError,
) -> RouteError {
    let arn = &game.game_session_arn;
    let refused = |code, says: String| {
        info!(player_id = %player, friend = %friend, game_session_arn = %arn, gamelift = %says, "a friend's game refused a player");
        let detail = SessionEndedDetail {
            game_session_arn: Some(arn.clone()),
            player_id: Some(friend.clone()),
        };
        RouteError::from(match code {
            ErrorCode::SessionFull => ErrorReply::session_full(says, detail),
            _ => ErrorReply::session_ended(says, detail),
        })
    };
    match refusal {
        GameLiftError::SessionFull { message } => refused(
            ErrorCode::SessionFull,
            format!("{friend}'s game is full: {message}"),
        ),
        GameLiftError::SessionEnded { message } | GameLiftError::NotFound { message } => refused(
            ErrorCode::SessionEnded,
            format!("{friend}'s game has ended or takes no new players: {message}"),
        ),
        other => gamelift_failure(player, arn, other),
    }
}

#[cfg(test)]
mod tests;
