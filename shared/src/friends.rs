//! Friends: each relation between two players is two records, one per side
//! ([`Relation`], stored as the Friends table's items: `crate::ports::friends`), each
//! holding what its player sees ([`FriendState`]). The routes (`functions/friends`)
//! read both sides, compute the change with [`Pair::apply`] (a pure function), commit it
//! on condition both sides are still as read ([`FriendCommit`]; a side that moved:
//! read again and retry), then push a `friend` frame through the inbox to each side
//! whose view changed ([`friend_push`]).
//!
//! # The states, both sides
//!
//! | mine | theirs | meaning |
//! |---|---|---|
//! | none | none | strangers |
//! | `invited` | `invitation` | I invited them |
//! | `friends` | `friends` | friends |
//! | `blocked` | none or `invited` | I blocked them; they see nothing of it: an invitation they send while blocked stays `invited` on their side and reaches me only if I unblock |
//! | `blocked` | `blocked` | both blocked |
//!
//! # Blocking reveals nothing
//!
//! A blocked player is answered exactly as if there were no block: `addFriend` acks
//! `invited` (their side says so; the blocker's gets nothing), `sendMessage` counts the
//! blocker among the `queued` (nothing is appended to the blocker's inbox), and
//! `inviteToParty` acks the invitation (none is stored or pushed). Blocking ends a
//! friendship or an invitation exactly as `removeFriend` would: the blocked side is
//! pushed `removed`, which is also what a decline or an unfriend sends.
//!
//! # Limits
//!
//! [`MAX_FRIENDS`] relations in state `friends` per player, checked on both sides by the
//! commit that makes a friendship (the count is kept by the store: an item per player on
//! DynamoDB, written in the same transaction); invitations are counted by the
//! per-player rate limit (`crate::rate_limits`, `RATE_LIMIT_FRIEND_INVITES_PER_MINUTE`).

mod changes;

pub use changes::{ChangeError, Relations, page, read_pair};

use crate::domain::{EpochMillis, MessageId, PlayerId};
use crate::frames::{ErrorCode, ServerFrame};
use crate::messaging::{MessageKind, NewMessage, SYSTEM_SENDER};

pub use gamelift_sockets_protocol::friends::{
    FRIENDS_PAGE_SIZE, FriendEntry, FriendState, FriendUpdate, MAX_FRIENDS,
};

/// How many times a change is computed again when the other side moved meanwhile.
pub const CHANGE_ATTEMPTS: u32 = 5;

/// One side of a relation: what `player` sees of `other`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Relation {
    pub player: PlayerId,
    pub other: PlayerId,
    pub state: FriendState,
    /// When it reached this state (ms).
    pub since: EpochMillis,
}

/// Which of a player's relations a page holds: up to `limit` of `player`'s relations
/// (only those in `state`, when given) after the other player `after`, by the other's id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RelationQuery<'a> {
    pub player: &'a PlayerId,
    pub state: Option<FriendState>,
    pub after: Option<&'a PlayerId>,
    pub limit: u32,
}

/// A page of one player's relations, by the other's id.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RelationPage {
    pub relations: Vec<Relation>,
    /// Where the next page starts (after this id); `None`: this was the last page.
    pub next: Option<PlayerId>,
}

/// What a request does to a relation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Add,
    Remove,
    Block,
    Unblock,
    /// Both sides become `friends` at once, with no invitation: a studio's service
    /// importing a platform's friends (the backend API). A block on either side refuses it.
    Befriend,
}

/// Both sides of the relation between `me` and `them`, as read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pair {
    pub me: PlayerId,
    pub them: PlayerId,
    pub mine: Option<FriendState>,
    pub theirs: Option<FriendState>,
}

/// One side's write: `player`'s view of `other` must still be `expected`, and becomes
/// `after` (`None`: deleted). A write whose `after` equals `expected` only checks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SideWrite {
    pub player: PlayerId,
    pub other: PlayerId,
    pub expected: Option<FriendState>,
    pub after: Option<FriendState>,
}

impl SideWrite {
    /// How the write moves `player`'s count of friends: +1, 0 or -1.
    pub fn friends_delta(&self) -> i32 {
        let friends = |state: Option<FriendState>| i32::from(state == Some(Friends));
        friends(self.after) - friends(self.expected)
    }

    /// Whether it changes anything (else it only checks).
    pub fn changes(&self) -> bool {
        self.after != self.expected
    }
}

/// A change, all or nothing with its pushes: every write's side is still as expected,
/// no side that gains a friend would pass [`MAX_FRIENDS`], and each push is appended to
/// its recipient's inbox in the same transaction (so a change is never made untold).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FriendCommit {
    pub writes: Vec<SideWrite>,
    /// The `friend` frames, as inbox messages ([`friend_push`]).
    pub pushes: Vec<NewMessage>,
    /// The `since` of every side written.
    pub at: EpochMillis,
}

/// What a commit did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FriendCommitted {
    Done,
    /// A side was no longer as expected: nothing was written; read again.
    Moved,
    /// This player has [`MAX_FRIENDS`] friends already: nothing was written.
    Full(PlayerId),
}

/// A `friend` frame to push: `recipient` is told its relation with `about` became
/// `update`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Push {
    pub recipient: PlayerId,
    pub about: PlayerId,
    pub update: FriendUpdate,
}

/// A change computed from a [`Pair`]: the writes (none: nothing changes), the pushes,
/// and the caller's side after it (what the route acks).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    pub writes: Vec<SideWrite>,
    pub pushes: Vec<Push>,
    pub after: Option<FriendState>,
}

impl Change {
    /// Nothing to write (the relation is already as asked).
    pub fn is_empty(&self) -> bool {
        self.writes.is_empty()
    }

    /// The commit that makes the change at `at`, its pushes kept `ttl_secs`.
    pub fn commit(&self, at: EpochMillis, ttl_secs: i64) -> FriendCommit {
        FriendCommit {
            writes: self.writes.clone(),
            pushes: self
                .pushes
                .iter()
                .map(|push| friend_push(push, at, ttl_secs))
                .collect(),
            at,
        }
    }
}

/// Why a request cannot be done.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FriendRefusal {
    #[error("you cannot be your own friend or block yourself")]
    Yourself,
    #[error("you blocked {0}; unblockPlayer first")]
    YouBlocked(PlayerId),
    #[error("{0} blocked {1}; no friendship is made while the block stands")]
    Blocked(PlayerId, PlayerId),
    #[error("no player has the id {0}")]
    NoSuchPlayer(PlayerId),
    #[error("{0} has {MAX_FRIENDS} friends, the most allowed")]
    Full(PlayerId),
    #[error("the relation kept changing; retry")]
    Contended,
}

impl FriendRefusal {
    /// The error code a client is answered with.
    pub fn code(&self) -> ErrorCode {
        match self {
            Self::Yourself => ErrorCode::BadRequest,
            Self::NoSuchPlayer(_) => ErrorCode::NotFound,
            Self::YouBlocked(_) | Self::Blocked(..) | Self::Contended => ErrorCode::Conflict,
            Self::Full(_) => ErrorCode::Forbidden,
        }
    }
}

use FriendState::{Blocked, Friends, Invitation, Invited};

/// States a block or a removal deletes on the other side (a block they made stays).
fn ends(state: Option<FriendState>) -> bool {
    matches!(state, Some(Friends | Invited | Invitation))
}

impl Pair {
    fn write(&self, mine: bool, after: Option<FriendState>) -> SideWrite {
        let (player, other, expected) = if mine {
            (&self.me, &self.them, self.mine)
        } else {
            (&self.them, &self.me, self.theirs)
        };
        SideWrite {
            player: player.clone(),
            other: other.clone(),
            expected,
            after,
        }
    }

    fn push(&self, to_me: bool, update: FriendUpdate) -> Push {
        let (recipient, about) = if to_me {
            (&self.me, &self.them)
        } else {
            (&self.them, &self.me)
        };
        Push {
            recipient: recipient.clone(),
            about: about.clone(),
            update,
        }
    }

    /// What `action` by `me` does to the relation. A request that finds the relation
    /// already as it asks changes nothing and pushes nothing (its pushes went with the
    /// change that made it so).
    pub fn apply(&self, action: Action) -> Result<Change, FriendRefusal> {
        if self.me == self.them {
            return Err(FriendRefusal::Yourself);
        }
        let (writes, pushes, after) = match action {
            Action::Add => return self.add(),
            Action::Befriend => return self.befriend(),
            Action::Remove => {
                if self.mine == Some(Blocked) {
                    return Ok(self.unchanged());
                }
                self.ending(None)
            }
            Action::Block => {
                if self.mine == Some(Blocked) {
                    return Ok(self.unchanged());
                }
                self.ending(Some(Blocked))
            }
            Action::Unblock => {
                if self.mine != Some(Blocked) {
                    return Ok(self.unchanged());
                }
                // An invitation they sent while blocked reaches me now.
                if self.theirs == Some(Invited) {
                    let push = self.push(true, FriendUpdate::Invitation);
                    (
                        vec![self.write(true, Some(Invitation))],
                        vec![push],
                        Some(Invitation),
                    )
                } else {
                    (vec![self.write(true, None)], vec![], None)
                }
            }
        };
        Ok(Change {
            writes,
            pushes,
            after,
        })
    }

    fn unchanged(&self) -> Change {
        Change {
            writes: vec![],
            pushes: vec![],
            after: self.mine,
        }
    }

    /// `removeFriend` (`mine_after` none) or `blockPlayer` (`blocked`): each side that
    /// held a friendship or an invitation loses it and is told `removed`.
    #[allow(clippy::type_complexity)]
    fn ending(
        &self,
        mine_after: Option<FriendState>,
    ) -> (Vec<SideWrite>, Vec<Push>, Option<FriendState>) {
        let mut writes = vec![];
        let mut pushes = vec![];
        if self.mine != mine_after {
            writes.push(self.write(true, mine_after));
        }
        if ends(self.mine) {
            pushes.push(self.push(true, FriendUpdate::Removed));
        }
        if ends(self.theirs) {
            writes.push(self.write(false, None));
            pushes.push(self.push(false, FriendUpdate::Removed));
        }
        (writes, pushes, mine_after)
    }

    /// Both sides written `friends`, both told.
    fn friends(&self) -> Change {
        Change {
            writes: vec![
                self.write(true, Some(Friends)),
                self.write(false, Some(Friends)),
            ],
            pushes: vec![
                self.push(true, FriendUpdate::Friends),
                self.push(false, FriendUpdate::Friends),
            ],
            after: Some(Friends),
        }
    }

    fn befriend(&self) -> Result<Change, FriendRefusal> {
        match (self.mine, self.theirs) {
            (Some(Blocked), _) => Err(FriendRefusal::Blocked(self.me.clone(), self.them.clone())),
            (_, Some(Blocked)) => Err(FriendRefusal::Blocked(self.them.clone(), self.me.clone())),
            (Some(Friends), Some(Friends)) => Ok(self.unchanged()),
            _ => Ok(self.friends()),
        }
    }

    fn add(&self) -> Result<Change, FriendRefusal> {
        match (self.mine, self.theirs) {
            (Some(Blocked), _) => Err(FriendRefusal::YouBlocked(self.them.clone())),
            (Some(Friends), Some(Friends)) | (Some(Invited), Some(Invitation | Blocked)) => {
                Ok(self.unchanged())
            }
            // They invited me (or are already my friend): accepted.
            (_, Some(Invited | Friends)) => Ok(self.friends()),
            // They blocked me: my side says invited, theirs is not touched.
            (_, Some(Blocked)) => Ok(Change {
                writes: vec![self.write(true, Some(Invited))],
                pushes: vec![self.push(true, FriendUpdate::Invited)],
                after: Some(Invited),
            }),
            (_, None | Some(Invitation)) => Ok(Change {
                writes: vec![
                    self.write(true, Some(Invited)),
                    self.write(false, Some(Invitation)),
                ],
                pushes: vec![
                    self.push(true, FriendUpdate::Invited),
                    self.push(false, FriendUpdate::Invitation),
                ],
                after: Some(Invited),
            }),
        }
    }
}

/// The inbox message carrying `push` (a `friend` frame), made at `at`. Its id names the
/// relation, the update and `at`, so appending it again (a retried push) is a no-op.
pub fn friend_push(push: &Push, at: EpochMillis, ttl_secs: i64) -> NewMessage {
    let frame = ServerFrame::Friend {
        player_id: push.about.clone(),
        state: push.update,
    };
    NewMessage::new(
        MessageKind::Friend,
        MessageId::deterministic(&[
            "friend",
            push.about.as_str(),
            push.update.as_str(),
            &at.to_string(),
        ]),
        push.recipient.clone(),
        SYSTEM_SENDER,
        frame.to_json(),
        at,
        ttl_secs,
    )
}

#[cfg(test)]
mod tests;
