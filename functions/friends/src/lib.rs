//! The friend routes (shared/src/friends.rs): `addFriend`, `removeFriend`,
//! `blockPlayer`, `unblockPlayer` and `listFriends`, one function for all five;
//! `requestContext.routeKey` says which.
//!
//! A change reads both sides of the relation, computes it (`shared::friends::Pair`), and
//! commits it in ONE transaction with its `friend` frames appended to both inboxes (so
//! they reach each side live, or on `resume`, like every push). A side that moved
//! meanwhile: read again and computed again (up to `CHANGE_ATTEMPTS` times, then
//! `conflict`). A request that finds the relation as it asks writes nothing and acks.
//!
//! Blocking reveals nothing: a blocked player's `addFriend` is acked `invited` exactly as
//! if there were no block (only their side is written), and blocking ends a friendship
//! or an invitation with the `removed` frame an unfriend sends (`shared::friends`).
//!
//! Round trips (DynamoDB; `‖`: at once):
//!
//! | route | DynamoDB |
//! |---|---|
//! | `addFriend` | 1 rate-limit write ‖ 1 BatchGetItem (Players: the invitee is known; Friends: both sides), then 1 Query per frame pushed (2, at once) + 1 TransactWriteItems |
//! | `removeFriend`, `unblockPlayer` | 1 BatchGetItem, then up to 2 Queries (at once) + 1 TransactWriteItems (nothing more when there is nothing to change) |
//! | `blockPlayer` | 1 BatchGetItem (Players and Friends), then up to 2 Queries (at once) + 1 TransactWriteItems |
//! | `listFriends` | 1 Query (a page of up to 100 relations), then 1 BatchGetItem (Players: the friends' presence) when the page holds friends |

use std::sync::Arc;

use async_trait::async_trait;
use edge::websocket::{CallLimit, Reply, Request, Route, RouteError, Serves};
use shared::acks::{FriendAck, ListFriendsAck, RouteAck};
use shared::config::Config;
use shared::domain::PlayerId;
use shared::friends::{Action, CHANGE_ATTEMPTS, FriendCommitted, FriendRefusal, Pair};
use shared::ports::{Clock, FriendCommits, FriendReader, PlayerLookup, RecipientCheck};
use shared::rate_limits::Bucket;
use shared::requests::{ClientRequest, ListFriendsBody, Route as ClientRoute};
use tracing::info;

/// What a client is told did not happen when the store failed.
const NOTHING_CHANGED: &str = "nothing changed; retry";

fn store(err: shared::ports::StoreError) -> RouteError {
    RouteError::from_store(err, NOTHING_CHANGED)
}

shared::wired! {
    /// The friend routes as every deployment builds them.
    pub fn wire(w) -> pub struct FriendsHandler {
        config: Arc<Config> = w.config.clone(),
        /// A change naming a player who must exist reads both sides with them.
        checks: Arc<dyn RecipientCheck> = w.stores.recipient_check(),
        lookup: Arc<dyn PlayerLookup> = w.stores.player_lookup(),
        relations: Arc<dyn FriendReader> = w.stores.friend_reader(),
        commits: Arc<dyn FriendCommits> = w.stores.friend_commits(),
        /// `addFriend`s, against `RATE_LIMIT_FRIEND_INVITES_PER_MINUTE`.
        invites: CallLimit = CallLimit::new(
            w,
            Bucket::FriendInvite,
            w.config.rate_limits.friend_invites_per_minute,
            "friend invitations",
        ),
        clock: Arc<dyn Clock> = w.clock.clone(),
    }
}

impl FriendsHandler {
    /// Both sides of `me` and `them`, refused unless `them` is known (has a Players item).
    async fn pair_with_known(&self, me: &PlayerId, them: &PlayerId) -> Result<Pair, RouteError> {
        let checked = self
            .checks
            .check_pair(std::slice::from_ref(them), me, them)
            .await
            .map_err(store)?;
        if !checked.known.contains(them) {
            return Err(FriendRefusal::NoSuchPlayer(them.clone()).into());
        }
        Ok(checked.pair)
    }

    /// Both sides of `me` and `them` as they are now.
    async fn pair(&self, me: &PlayerId, them: &PlayerId) -> Result<Pair, RouteError> {
        let (mine, theirs) = self.relations.pair(me, them).await.map_err(store)?;
        Ok(Pair {
            me: me.clone(),
            them: them.clone(),
            mine: mine.map(|r| r.state),
            theirs: theirs.map(|r| r.state),
        })
    }

    /// `action` by `me` on their relation with `them`, committed with its pushes.
    async fn change(
        &self,
        me: &PlayerId,
        them: &PlayerId,
        action: Action,
    ) -> Result<FriendAck, RouteError> {
        if me == them {
            return Err(FriendRefusal::Yourself.into());
        }
        let spend = async {
            match action {
                Action::Add => self.invites.spend(me, "nobody was invited; retry").await,
                _ => Ok(()),
            }
        };
        // Inviting or blocking names a player who must exist; removing and unblocking
        // clean up whatever is there.
        let read = async {
            match action {
                Action::Add | Action::Block => self.pair_with_known(me, them).await,
                _ => self.pair(me, them).await,
            }
        };
        let (spent, pair) = tokio::join!(spend, read);
        spent?;
        let mut pair = pair?;
        for _ in 0..CHANGE_ATTEMPTS {
            let change = pair.apply(action)?;
            let ack = FriendAck {
                player_id: them.clone(),
                state: change.after,
            };
            if change.is_empty() {
                return Ok(ack);
            }
            let now = self.clock.now_millis();
            let commit = change.commit(now, self.config.message_ttl_secs());
            match self.commits.commit(&commit).await.map_err(store)? {
                FriendCommitted::Done => {
                    info!(player_id = %me, other = %them, ?action, state = ?change.after, "friend relation changed");
                    return Ok(ack);
                }
                FriendCommitted::Full(player) => return Err(FriendRefusal::Full(player).into()),
                FriendCommitted::Moved => pair = self.pair(me, them).await?,
            }
        }
        Err(FriendRefusal::Contended.into())
    }

    /// A page of `me`'s relations, friends with their presence and activity.
    async fn list(
        &self,
        me: &PlayerId,
        body: &ListFriendsBody,
    ) -> Result<ListFriendsAck, RouteError> {
        shared::friends::page(
            self.relations.as_ref(),
            self.lookup.as_ref(),
            self.clock.as_ref(),
            me,
            body,
        )
        .await
        .map_err(|e| RouteError::from_store(e, "retry"))
    }
}

#[async_trait]
impl Route for FriendsHandler {
    const SERVES: Serves = Serves {
        function: "friends",
        routes: &[
            ClientRoute::AddFriend,
            ClientRoute::RemoveFriend,
            ClientRoute::BlockPlayer,
            ClientRoute::UnblockPlayer,
            ClientRoute::ListFriends,
        ],
    };

    async fn answer(&self, request: &Request) -> Result<Reply, RouteError> {
        let me = &request.caller.player_id;
        let ack = match &request.frame {
            ClientRequest::AddFriend { body, .. } => {
                RouteAck::AddFriend(self.change(me, &body.player_id, Action::Add).await?)
            }
            ClientRequest::RemoveFriend { body, .. } => {
                RouteAck::RemoveFriend(self.change(me, &body.player_id, Action::Remove).await?)
            }
            ClientRequest::BlockPlayer { body, .. } => {
                RouteAck::BlockPlayer(self.change(me, &body.player_id, Action::Block).await?)
            }
            ClientRequest::UnblockPlayer { body, .. } => {
                RouteAck::UnblockPlayer(self.change(me, &body.player_id, Action::Unblock).await?)
            }
            ClientRequest::ListFriends { body, .. } => {
                RouteAck::ListFriends(self.list(me, body).await?)
            }
            _ => return Ok(Reply::WrongRoute),
        };
        Ok(Reply::Ack(ack))
    }
}

#[cfg(test)]
mod tests;
