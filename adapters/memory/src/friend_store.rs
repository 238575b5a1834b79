use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;

use shared::domain::{EpochMillis, PlayerId};
use shared::friends::{
    FriendCommit, FriendCommitted, FriendState, MAX_FRIENDS, Relation, RelationPage, RelationQuery,
};
use shared::ports::StoreError;
use shared::ports::{Blocks, FriendCommits, FriendReader};

use crate::InMemoryMessageStore;

/// The Friends table in memory: (player, other) → (state, since). The count of friends
/// DynamoDB keeps in an item is counted here from the relations themselves. A commit's
/// pushes go to `messages` under the same lock, as DynamoDB writes them in the same
/// transaction.
pub struct InMemoryFriendStore {
    items: Mutex<BTreeMap<(PlayerId, PlayerId), (FriendState, EpochMillis)>>,
    messages: Arc<InMemoryMessageStore>,
}

type Items = BTreeMap<(PlayerId, PlayerId), (FriendState, EpochMillis)>;

impl InMemoryFriendStore {
    pub fn new(messages: Arc<InMemoryMessageStore>) -> Self {
        Self {
            items: Mutex::default(),
            messages,
        }
    }

    fn items(&self) -> std::sync::MutexGuard<'_, Items> {
        // Each commit checks everything before writing anything: a poisoned lock holds
        // no half-applied change.
        self.items.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Every stored side as a relation (tests, the console).
    pub fn all(&self) -> Vec<Relation> {
        self.items()
            .iter()
            .map(|(key, value)| relation(key, value))
            .collect()
    }
}

fn relation(
    (player, other): &(PlayerId, PlayerId),
    (state, since): &(FriendState, EpochMillis),
) -> Relation {
    Relation {
        player: player.clone(),
        other: other.clone(),
        state: *state,
        since: *since,
    }
}

fn friends_of(items: &Items, player: &PlayerId) -> impl Iterator<Item = PlayerId> {
    items
        .iter()
        .filter(move |((p, _), (state, _))| p == player && *state == FriendState::Friends)
        .map(|((_, other), _)| other.clone())
}

#[async_trait]
impl FriendReader for InMemoryFriendStore {
    async fn relation(
        &self,
        player: &PlayerId,
        other: &PlayerId,
    ) -> Result<Option<Relation>, StoreError> {
        let key = (player.clone(), other.clone());
        Ok(self.items().get(&key).map(|value| relation(&key, value)))
    }

    async fn pair(
        &self,
        a: &PlayerId,
        b: &PlayerId,
    ) -> Result<(Option<Relation>, Option<Relation>), StoreError> {
        Ok((self.relation(a, b).await?, self.relation(b, a).await?))
    }

    async fn page(&self, query: RelationQuery<'_>) -> Result<RelationPage, StoreError> {
        let player = query.player;
        let items = self.items();
        let start = match query.after {
            Some(after) => Bound::Excluded((player.clone(), after.clone())),
            None => Bound::Unbounded,
        };
        let limit = usize::try_from(query.limit).unwrap_or(usize::MAX).max(1);
        // As a Query with a filter: `limit` items are read, those in `state` returned.
        // Without a cursor the range starts at the first key, which may be another
        // player's: skip to this player's first.
        let read: Vec<_> = items
            .range((start, Bound::Unbounded))
            .skip_while(|((p, _), _)| p < player)
            .take_while(|((p, _), _)| p == player)
            .take(limit + 1)
            .collect();
        let more = read.len() > limit;
        let read = &read[..read.len().min(limit)];
        Ok(RelationPage {
            next: more
                .then(|| read.last().map(|((_, other), _)| other.clone()))
                .flatten(),
            relations: read
                .iter()
                .filter(|(_, (s, _))| query.state.is_none_or(|wanted| *s == wanted))
                .map(|(key, value)| relation(key, value))
                .collect(),
        })
    }

    async fn friends(&self, player: &PlayerId) -> Result<Vec<PlayerId>, StoreError> {
        Ok(friends_of(&self.items(), player).collect())
    }
}

#[async_trait]
impl Blocks for InMemoryFriendStore {
    async fn blockers(
        &self,
        sender: &PlayerId,
        recipients: &[PlayerId],
    ) -> Result<Vec<PlayerId>, StoreError> {
        let items = self.items();
        Ok(recipients
            .iter()
            .filter(|recipient| {
                items
                    .get(&((*recipient).clone(), sender.clone()))
                    .is_some_and(|(state, _)| *state == FriendState::Blocked)
            })
            .cloned()
            .collect())
    }
}

#[async_trait]
impl FriendCommits for InMemoryFriendStore {
    async fn commit(&self, commit: &FriendCommit) -> Result<FriendCommitted, StoreError> {
        let mut items = self.items();
        for write in &commit.writes {
            let key = (write.player.clone(), write.other.clone());
            if items.get(&key).map(|(state, _)| *state) != write.expected {
                return Ok(FriendCommitted::Moved);
            }
        }
        for write in commit.writes.iter().filter(|w| w.friends_delta() > 0) {
            let count = friends_of(&items, &write.player).count();
            if count >= usize::try_from(MAX_FRIENDS).unwrap_or(usize::MAX) {
                return Ok(FriendCommitted::Full(write.player.clone()));
            }
        }
        for write in commit.writes.iter().filter(|w| w.changes()) {
            let key = (write.player.clone(), write.other.clone());
            match write.after {
                Some(state) => items.insert(key, (state, commit.at)),
                None => items.remove(&key),
            };
        }
        self.messages.append_now(&commit.pushes);
        Ok(FriendCommitted::Done)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn store() -> InMemoryFriendStore {
        InMemoryFriendStore::new(Arc::new(InMemoryMessageStore::new()))
    }

    contracts::friend_store_contract_tests!(store);
}
