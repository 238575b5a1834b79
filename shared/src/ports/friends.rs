//! The Friends table: each side of a relation as its own item, and each player's count
//! of friends. The records and the rules are `crate::friends`'s.
//!
//! # The items
//!
//! Key: partition `playerId` (S), sort `otherId` (S). No index, no stream (a change's
//! `friend` frames are inbox messages appended after it commits), no TTL: a relation
//! lasts until a player ends it. Item layout: `adapters/aws/src/dynamodb/friend_item.rs`.
//!
//! | item | `otherId` | attributes |
//! |---|---|---|
//! | a relation, from `playerId`'s side | the other player's id | `state` (S: `friends`, `invited`, `invitation`, `blocked`), `since` (N, ms: when it reached this state) |
//! | the player's count of friends | `#count` | `friends` (N): how many of the player's relations are `friends`, written in the transaction of every change that makes or ends a friendship, conditional on staying within `MAX_FRIENDS` |
//!
//! Player ids cannot hold `#`, and `#` sorts before every character they can hold, so the
//! count item is never taken for a relation and a player's relations are the Query
//! `otherId > "#count"` (or after a page's cursor).
//!
//! # What each read costs
//!
//! - A relation: one strongly consistent GetItem ([`FriendReader::relation`]); both
//!   sides: one strongly consistent BatchGetItem of two keys ([`FriendReader::pair`]);
//!   both sides and whether the players named exist, for a change that names a player
//!   who must exist (`addFriend`, `blockPlayer`, the backend API's friendship): one
//!   BatchGetItem holding the two Friends keys and the Players keys
//!   ([`RecipientCheck::check_pair`]).
//! - A `listFriends` page: one strongly consistent Query of up to `FRIENDS_PAGE_SIZE`
//!   (100) items (a `state` filter is a FilterExpression: it reads the same items and
//!   may return fewer, never a wrong page), then the friends' presence in one
//!   BatchGetItem on Players (up to 100 keys).
//! - A player's friends (the presence fan-out): one Query per 1 MB of relations (a
//!   player at `MAX_FRIENDS` has about 40 KB), `state = friends` filtered.
//! - Who of a message's recipients blocked its sender ([`Blocks`]): one BatchGetItem of
//!   the (recipient, sender) items, 100 keys a call.
//! - Both of `sendMessage`'s checks, which recipients are players and which blocked the
//!   sender ([`RecipientCheck`]): one BatchGetItem holding each recipient's Players key
//!   and their (recipient, sender) Friends key, 50 recipients a call (BatchGetItem takes
//!   100 keys across tables).
//!
//! A change is one TransactWriteItems: each side written (or checked) on condition it is
//! still as read, and each count that moves updated on condition it stays within
//! `MAX_FRIENDS`.

use std::sync::Arc;

use async_trait::async_trait;

use crate::domain::PlayerId;
use crate::friends::{
    FriendCommit, FriendCommitted, Pair, Relation, RelationPage, RelationQuery, read_pair,
};

use super::{PlayerLookup, StoreError};

/// Reads of relations.
#[async_trait]
pub trait FriendReader: Send + Sync {
    /// `player`'s side of their relation with `other` (strongly consistent; `None`: none).
    async fn relation(
        &self,
        player: &PlayerId,
        other: &PlayerId,
    ) -> Result<Option<Relation>, StoreError>;

    /// Both sides at once, `a`'s then `b`'s, in one consistent read.
    async fn pair(
        &self,
        a: &PlayerId,
        b: &PlayerId,
    ) -> Result<(Option<Relation>, Option<Relation>), StoreError>;

    /// The relations `query` asks for, and where the next page starts.
    async fn page(&self, query: RelationQuery<'_>) -> Result<RelationPage, StoreError>;

    /// Every friend of `player` (state `friends`), by id: the presence fan-out and
    /// "are we friends" checks that need them all.
    async fn friends(&self, player: &PlayerId) -> Result<Vec<PlayerId>, StoreError>;
}

/// Blocks, as the routes that carry something to a player check them.
#[async_trait]
pub trait Blocks: Send + Sync {
    /// Those of `recipients` who blocked `sender`, in no particular order.
    async fn blockers(
        &self,
        sender: &PlayerId,
        recipients: &[PlayerId],
    ) -> Result<Vec<PlayerId>, StoreError>;
}

/// What [`RecipientCheck`] found of a message's recipients.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CheckedRecipients {
    /// Those who are players (have a Players item), in no particular order.
    pub known: Vec<PlayerId>,
    /// Those who blocked the sender, in no particular order.
    pub blockers: Vec<PlayerId>,
}

/// What [`RecipientCheck::check_pair`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckedPair {
    /// Those of the players asked about who are players, in no particular order.
    pub known: Vec<PlayerId>,
    /// The relation, from both sides.
    pub pair: Pair,
}

/// The reads on Players and Friends a route needs before it stores anything, as one: a
/// store that can read both tables at once (DynamoDB's BatchGetItem spans tables) makes
/// one round trip where [`PlayerLookup`] and [`Blocks`] (or [`FriendReader::pair`])
/// would make two.
#[async_trait]
pub trait RecipientCheck: Send + Sync {
    /// Which of `recipients` are players and which blocked `sender` (strongly
    /// consistent, each recipient once however often named): a message's checks.
    async fn check(
        &self,
        sender: &PlayerId,
        recipients: &[PlayerId],
    ) -> Result<CheckedRecipients, StoreError>;

    /// Which of `players` (at most two) are players, and the relation of `me` and `them`
    /// from both sides (strongly consistent): a friend change's reads.
    async fn check_pair(
        &self,
        players: &[PlayerId],
        me: &PlayerId,
        them: &PlayerId,
    ) -> Result<CheckedPair, StoreError>;
}

/// [`RecipientCheck`] as its separate reads, made at once: what a store that cannot read
/// two tables in one call answers with (the memory stores, which have no round trips to
/// save).
pub struct SeparateReads {
    pub players: Arc<dyn PlayerLookup>,
    pub blocks: Arc<dyn Blocks>,
    pub relations: Arc<dyn FriendReader>,
}

#[async_trait]
impl RecipientCheck for SeparateReads {
    async fn check(
        &self,
        sender: &PlayerId,
        recipients: &[PlayerId],
    ) -> Result<CheckedRecipients, StoreError> {
        let (players, blockers) = tokio::join!(
            self.players.known(recipients),
            self.blocks.blockers(sender, recipients),
        );
        Ok(CheckedRecipients {
            known: players?,
            blockers: blockers?,
        })
    }

    async fn check_pair(
        &self,
        players: &[PlayerId],
        me: &PlayerId,
        them: &PlayerId,
    ) -> Result<CheckedPair, StoreError> {
        let (found, pair) = tokio::join!(
            self.players.known(players),
            read_pair(self.relations.as_ref(), me, them),
        );
        Ok(CheckedPair {
            known: found?,
            pair: pair?,
        })
    }
}

/// Writing a change.
#[async_trait]
pub trait FriendCommits: Send + Sync {
    /// Applies the change all or nothing (`crate::friends::FriendCommit`).
    async fn commit(&self, commit: &FriendCommit) -> Result<FriendCommitted, StoreError>;
}
