//! [`RecipientCheck`] on DynamoDB: a message's recipients looked up on Players and their
//! blocks of the sender read on Friends in one BatchGetItem, since BatchGetItem spans
//! tables (<https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchGetItem.html>):
//! each recipient's Players key and (recipient, sender) Friends key, 50 recipients a
//! call within its 100 keys. Read as [`PlayerLookup`](shared::ports::PlayerLookup) and
//! [`Blocks`](shared::ports::Blocks) read them (strongly consistent, whole items), so
//! the answers are theirs; the units are the same, one call is saved per message of up
//! to 50 recipients. A friend change's reads are one call the same way: the players it
//! names on Players and both sides of the relation on Friends.

use std::collections::{HashMap, HashSet};

use async_trait::async_trait;

use super::batch::{BATCH_GET_LIMIT, get_tables, keys_and_attributes};
use super::friend_item::{key as friend_key, relation_from_item};
use super::player_item::{key as player_key, record_from_item};
use crate::calls::{AwsCall, Calls};
use shared::domain::PlayerId;
use shared::friends::{FriendState, Pair};
use shared::ports::{CheckedPair, CheckedRecipients, RecipientCheck, StoreError};

/// Recipients per call: two keys each.
const RECIPIENTS_PER_CALL: usize = BATCH_GET_LIMIT / 2;

table_store! {
    /// The Players and Friends tables, read together.
    DynamoRecipientCheck { players, friends }
}

#[async_trait]
impl RecipientCheck for DynamoRecipientCheck {
    async fn check(
        &self,
        sender: &PlayerId,
        recipients: &[PlayerId],
    ) -> Result<CheckedRecipients, StoreError> {
        let mut seen = HashSet::new();
        let unique: Vec<&PlayerId> = recipients.iter().filter(|r| seen.insert(*r)).collect();
        let mut checked = CheckedRecipients::default();
        for chunk in unique.chunks(RECIPIENTS_PER_CALL) {
            let sides = chunk
                .iter()
                .map(|r| friend_key(r, sender))
                .collect::<Result<Vec<_>, _>>()?;
            let (known, sides) = self.read_both(chunk, sides).await?;
            checked.known.extend(known);
            checked.blockers.extend(
                sides
                    .into_iter()
                    .filter(|side| side.state == FriendState::Blocked)
                    .map(|side| side.player),
            );
        }
        Ok(checked)
    }

    async fn check_pair(
        &self,
        players: &[PlayerId],
        me: &PlayerId,
        them: &PlayerId,
    ) -> Result<CheckedPair, StoreError> {
        let mut seen = HashSet::new();
        let unique: Vec<&PlayerId> = players.iter().filter(|p| seen.insert(*p)).collect();
        let (known, sides) = self
            .read_both(&unique, vec![friend_key(me, them)?, friend_key(them, me)?])
            .await?;
        let side_of = |player: &PlayerId| {
            sides
                .iter()
                .find(|side| side.player == *player)
                .map(|side| side.state)
        };
        Ok(CheckedPair {
            known,
            pair: Pair {
                me: me.clone(),
                them: them.clone(),
                mine: side_of(me),
                theirs: side_of(them),
            },
        })
    }
}

impl DynamoRecipientCheck {
    /// The Players items of `players` and the Friends items at `sides`, in one
    /// BatchGetItem (strongly consistent, whole items).
    async fn read_both(
        &self,
        players: &[&PlayerId],
        sides: Vec<super::item::Item>,
    ) -> Result<(Vec<PlayerId>, Vec<shared::friends::Relation>), StoreError> {
        let mut tables = HashMap::from([(
            self.friends.clone(),
            keys_and_attributes(sides, true, None)?,
        )]);
        // BatchGetItem refuses a table with no keys.
        if !players.is_empty() {
            let keys = players.iter().map(|p| player_key(p)).collect();
            tables.insert(self.players.clone(), keys_and_attributes(keys, true, None)?);
        }
        let mut items = get_tables(&self.client, tables).await?;
        let mut known = Vec::new();
        for item in items.remove(&self.players).unwrap_or_default() {
            known.extend(record_from_item(&item)?.map(|p| p.player_id));
        }
        let relations = items
            .remove(&self.friends)
            .unwrap_or_default()
            .into_iter()
            .map(relation_from_item)
            .collect::<Result<_, _>>()?;
        Ok((known, relations))
    }
}

impl Calls<dyn RecipientCheck> for DynamoRecipientCheck {
    fn calls(&self) -> Vec<AwsCall> {
        let mut calls = AwsCall::on_table(&self.players, &["BatchGetItem"]);
        calls.extend(AwsCall::on_table(&self.friends, &["BatchGetItem"]));
        calls
    }
}
