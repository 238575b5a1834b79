//! [`RecipientCheck`] on DynamoDB: a message's recipients looked up on Players and their
//! blocks of the sender read on Friends in one BatchGetItem, since BatchGetItem spans
//! tables (<https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchGetItem.html>):
//! each recipient's Players key and (recipient, sender) Friends key, 50 recipients a
//! call within its 100 keys. Read as [`PlayerLookup`](shared::ports::PlayerLookup) and
//! [`Blocks`](shared::ports::Blocks) read them (strongly consistent, whole items), so
//! the answers are theirs; the units are the same, one call is saved per message of up
//! to 50 recipients.

use std::collections::{HashMap, HashSet};

use async_trait::async_trait;
use aws_sdk_dynamodb::Client;

use super::batch::{BATCH_GET_LIMIT, get_tables, keys_and_attributes};
use super::friend_item::{key as friend_key, relation_from_item};
use super::player_item::{key as player_key, record_from_item};
use crate::calls::{AwsCall, Calls};
use shared::domain::PlayerId;
use shared::friends::FriendState;
use shared::ports::{CheckedRecipients, RecipientCheck, StoreError};

/// Recipients per call: two keys each.
const RECIPIENTS_PER_CALL: usize = BATCH_GET_LIMIT / 2;

/// The Players and Friends tables, read together.
#[derive(Clone, Debug)]
pub struct DynamoRecipientCheck {
    client: Client,
    players: String,
    friends: String,
}

impl DynamoRecipientCheck {
    pub fn new(client: Client, players: impl Into<String>, friends: impl Into<String>) -> Self {
        Self {
            client,
            players: players.into(),
            friends: friends.into(),
        }
    }
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
            let players = chunk.iter().map(|r| player_key(r)).collect();
            let sides = chunk
                .iter()
                .map(|r| friend_key(r, sender))
                .collect::<Result<Vec<_>, _>>()?;
            let mut items = get_tables(
                &self.client,
                HashMap::from([
                    (
                        self.players.clone(),
                        keys_and_attributes(players, true, None)?,
                    ),
                    (
                        self.friends.clone(),
                        keys_and_attributes(sides, true, None)?,
                    ),
                ]),
            )
            .await?;
            for item in items.remove(&self.players).unwrap_or_default() {
                checked
                    .known
                    .extend(record_from_item(&item)?.map(|p| p.player_id));
            }
            for item in items.remove(&self.friends).unwrap_or_default() {
                let side = relation_from_item(item)?;
                if side.state == FriendState::Blocked {
                    checked.blockers.push(side.player);
                }
            }
        }
        Ok(checked)
    }
}

impl Calls<dyn RecipientCheck> for DynamoRecipientCheck {
    fn calls(&self) -> Vec<AwsCall> {
        let mut calls = AwsCall::on_table(&self.players, &["BatchGetItem"]);
        calls.extend(AwsCall::on_table(&self.friends, &["BatchGetItem"]));
        calls
    }
}
