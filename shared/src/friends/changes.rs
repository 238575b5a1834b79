//! Carrying a change out against the store, and reading a page of relations with the
//! friends' presence: what the `friends` function's routes and the backend API both do,
//! written once here over the ports.

use gamelift_sockets_protocol::acks::ListFriendsAck;
use gamelift_sockets_protocol::requests::ListFriendsBody;

use crate::domain::PlayerId;
use crate::ports::{Clock, FriendCommits, FriendReader, PlayerLookup, StoreError};
use crate::presence::watched_status;

use super::{
    Action, CHANGE_ATTEMPTS, FRIENDS_PAGE_SIZE, FriendCommitted, FriendEntry, FriendRefusal,
    FriendState, Pair, RelationQuery,
};

/// Why a change was not made: refused by the rules, or the store failed (nothing was
/// written either way).
#[derive(Debug, thiserror::Error)]
pub enum ChangeError {
    #[error(transparent)]
    Refused(#[from] FriendRefusal),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Both sides of `me` and `them` as they are now.
pub async fn read_pair(
    reader: &dyn FriendReader,
    me: &PlayerId,
    them: &PlayerId,
) -> Result<Pair, StoreError> {
    let (mine, theirs) = reader.pair(me, them).await?;
    Ok(Pair {
        me: me.clone(),
        them: them.clone(),
        mine: mine.map(|r| r.state),
        theirs: theirs.map(|r| r.state),
    })
}

/// The store a change is carried out against.
#[derive(Clone, Copy)]
pub struct Relations<'a> {
    pub reader: &'a dyn FriendReader,
    pub commits: &'a dyn FriendCommits,
    pub clock: &'a dyn Clock,
    /// How long the pushes stay in the inboxes.
    pub ttl_secs: i64,
}

impl Relations<'_> {
    /// `action` by `pair.me` on `pair` (as just read), committed with its pushes; a side
    /// that moved meanwhile is read again and the change computed again, up to
    /// [`CHANGE_ATTEMPTS`] times. Answers `pair.me`'s side after it (what is acked); a
    /// relation already as asked writes nothing.
    pub async fn carry_out(
        &self,
        mut pair: Pair,
        action: Action,
    ) -> Result<Option<FriendState>, ChangeError> {
        for _ in 0..CHANGE_ATTEMPTS {
            let change = pair.apply(action)?;
            if change.is_empty() {
                return Ok(change.after);
            }
            let commit = change.commit(self.clock.now_millis(), self.ttl_secs);
            match self.commits.commit(&commit).await? {
                FriendCommitted::Done => return Ok(change.after),
                FriendCommitted::Full(player) => return Err(FriendRefusal::Full(player).into()),
                FriendCommitted::Moved => {
                    pair = read_pair(self.reader, &pair.me, &pair.them).await?
                }
            }
        }
        Err(FriendRefusal::Contended.into())
    }
}

/// A page of `player`'s relations as `listFriends` answers it: friends with their
/// presence (one batched read of the page's friends), invitations and blocks without.
pub async fn page(
    reader: &dyn FriendReader,
    lookup: &dyn PlayerLookup,
    clock: &dyn Clock,
    player: &PlayerId,
    body: &ListFriendsBody,
) -> Result<ListFriendsAck, StoreError> {
    let page = reader
        .page(RelationQuery {
            player,
            state: body.state,
            after: body.cursor.as_ref(),
            limit: FRIENDS_PAGE_SIZE,
        })
        .await?;
    let friends: Vec<PlayerId> = page
        .relations
        .iter()
        .filter(|r| r.state == FriendState::Friends)
        .map(|r| r.other.clone())
        .collect();
    let records = if friends.is_empty() {
        Vec::new()
    } else {
        lookup.get_many(&friends).await?
    };
    let now = clock.now_millis();
    let entries = page
        .relations
        .into_iter()
        .map(|relation| {
            // Presence (and, beside it, the friend's activity) is shown to friends only.
            let friend = relation.state == FriendState::Friends;
            let record = records.iter().find(|r| r.player_id == relation.other);
            let presence = friend.then(|| watched_status(record, now));
            let activity = record
                .filter(|_| friend)
                .and_then(|r| r.watched_activity(now).cloned());
            FriendEntry {
                player_id: relation.other,
                state: relation.state,
                since: relation.since,
                presence,
                activity,
            }
        })
        .collect();
    Ok(ListFriendsAck {
        friends: entries,
        cursor: page.next,
    })
}
