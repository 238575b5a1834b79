//! The friend types clients see: a relation's state from one player's side (in
//! `listFriends` and the friend routes' acks), what a `friend` frame reports, and the
//! limits. The relations and their rules live in the `shared` crate (`shared::friends`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::activity::Activity;
use crate::domain::{EpochMillis, PlayerId, PresenceStatus};

/// The most friends (relations in state `friends`) a player may have; an `addFriend`
/// that would pass it, on either side, is `forbidden`.
pub const MAX_FRIENDS: u32 = 500;

/// The most entries one `listFriends` page holds (one batched presence read a page).
pub const FRIENDS_PAGE_SIZE: u32 = 100;

/// A relation as one of its two players sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FriendState {
    /// Both invited each other: friends.
    Friends,
    /// You invited them; they have not answered.
    Invited,
    /// They invited you: `addFriend` accepts, `removeFriend` declines.
    Invitation,
    /// You blocked them (they are not told).
    Blocked,
}

impl FriendState {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Friends => "friends",
            Self::Invited => "invited",
            Self::Invitation => "invitation",
            Self::Blocked => "blocked",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        [
            Self::Friends,
            Self::Invited,
            Self::Invitation,
            Self::Blocked,
        ]
        .into_iter()
        .find(|state| state.as_str() == raw)
    }
}

/// What a `friend` frame says the relation became, from the recipient's side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FriendUpdate {
    /// You invited them (sent to your other sockets too).
    Invited,
    /// They invited you.
    Invitation,
    /// You are friends now.
    Friends,
    /// The friendship or invitation is gone (removed, declined, withdrawn).
    Removed,
}

impl FriendUpdate {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Invited => "invited",
            Self::Invitation => "invitation",
            Self::Friends => "friends",
            Self::Removed => "removed",
        }
    }
}

/// `listFriends`: one of your relations, with the friend's presence.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FriendEntry {
    pub player_id: PlayerId,
    pub state: FriendState,
    /// When the relation reached this state (ms).
    pub since: EpochMillis,
    /// `online` or `offline`, for friends only (absent for invitations and blocks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub presence: Option<PresenceStatus>,
    /// A friend's activity (`activity`, `details`), while they are online and set one.
    #[serde(flatten)]
    pub activity: Option<Activity>,
}
