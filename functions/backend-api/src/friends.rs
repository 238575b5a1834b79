//! A player's friends, for a studio's services: `POST /v1/players/{playerId}/friends:list`
//! (a page, exactly as the player's `listFriends` answers it), `PUT
//! /v1/players/{playerId}/friends/{friendId}` (both sides become `friends` at once, with no
//! invitation: a platform's friends imported) and `DELETE` on the same path (as the
//! player's `removeFriend`). The rules and the commit are `shared::friends`'s, the same the
//! `friends` function follows: each side is pushed its `friend` frame through its inbox,
//! in the change's transaction, live or on `resume`.
//!
//! A trusted caller is told plainly what the socket hides from a blocked player: a
//! friendship refused by a block is `409` naming who blocked whom. No rate limit (the
//! callers are the studio's signed servers).

use gamelift_sockets_protocol::backend_api::{FriendAck, ListFriendsBody};
use lambda_http::http::StatusCode;
use shared::domain::PlayerId;
use shared::friends::{self, Action, Relations};
use shared::messaging::recipients;

use crate::{Answer, BackendApi, answer, store_refusal};

impl BackendApi {
    pub(crate) fn relations(&self) -> Relations<'_> {
        Relations {
            reader: self.relations.as_ref(),
            commits: self.friend_commits.as_ref(),
            clock: self.clock.as_ref(),
            ttl_secs: self.config.message_ttl_secs(),
        }
    }

    pub(crate) async fn list_friends(&self, player: &PlayerId, body: ListFriendsBody) -> Answer {
        let page = friends::page(
            self.relations.as_ref(),
            self.lookup.as_ref(),
            self.clock.as_ref(),
            player,
            &body,
        )
        .await
        .map_err(|e| store_refusal(e, "retry"))?;
        answer(StatusCode::OK, &page)
    }

    pub(crate) async fn add_friendship(&self, player: &PlayerId, friend: &PlayerId) -> Answer {
        let both = [player.clone(), friend.clone()];
        let checked = self
            .checks
            .check_pair(&both, player, friend)
            .await
            .map_err(|e| store_refusal(e, "no friendship was made; retry"))?;
        recipients::all_known(&both, checked.known).map_err(|e| {
            edge::websocket::RouteError::from_recipients(e, "no friendship was made; retry")
        })?;
        changed(
            friend,
            self.relations()
                .carry_out(checked.pair, Action::Befriend)
                .await,
        )
    }

    pub(crate) async fn remove_friendship(&self, player: &PlayerId, friend: &PlayerId) -> Answer {
        let pair = friends::read_pair(self.relations.as_ref(), player, friend)
            .await
            .map_err(|e| store_refusal(e, "nothing was removed; retry"))?;
        changed(
            friend,
            self.relations().carry_out(pair, Action::Remove).await,
        )
    }
}

/// The player's side of the relation with `friend` after a change, as the socket acks it.
fn changed(
    friend: &PlayerId,
    after: Result<Option<friends::FriendState>, friends::ChangeError>,
) -> Answer {
    let ack = FriendAck {
        player_id: friend.clone(),
        state: after?,
    };
    answer(StatusCode::OK, &ack)
}
