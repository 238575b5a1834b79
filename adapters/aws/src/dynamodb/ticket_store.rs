//! The ticket ports on DynamoDB: tickets are items of the Placements table
//! (`ticket_item.rs`), and a change is ONE `TransactWriteItems` across the Placements,
//! Players and Messages tables, holding:
//! - the ticket's update, conditional on its `status` and `statusAt` being as read: the
//!   only condition that can fail for a reason other than a racing inbox write, so a
//!   duplicate or racing event cancels the whole of it and writes (and pushes) nothing;
//! - when the ticket ends, per player a condition-free update: `DELETE
//!   pendingPlacementId :ticket` (removes it only if it is still this ticket) and, when
//!   COMPLETED, `SET gameSession`;
//! - per player with a message, the message appended to their inbox (as a placement's
//!   settlement does: at the inbox's next seq, conditional on that seq being free;
//!   retried with the inboxes read again when another writer took it).
//!
//! A ticket holds at most [`MAX_TICKET_PLAYERS`] players: 1 + 3 × 32 = 97 writes, within
//! DynamoDB's 100 per transaction.

use std::collections::HashMap;

use async_trait::async_trait;
use aws_sdk_dynamodb::types::{TransactWriteItem, Update};

use super::inbox::{self, Slot};
use super::item::{n, s};
use super::message_store::{Transacted, transact};
use super::placement_item::{attr, game_session_attributes, player_sessions_value};
use super::placement_store::{put_new, read_consistent};
use super::player_item::{game_session_value, pending_value};
use super::ticket_item::{MATCH_ID, STATUS_AT, key, ticket_from_item, ticket_to_item};
use crate::calls::{AwsCall, Calls};
use shared::domain::PLAYER_RETENTION_SECONDS;
use shared::matchmaking::TicketId;
use shared::matchmaking::{
    MAX_TICKET_PLAYERS, TicketChange, TicketPlayerChange, TicketPushes, TicketRecord,
};
use shared::pending::Pending;
use shared::ports::{StoreError, TicketChanges, TicketReader, TicketRecorder};

const AS_READ: &str = "#status = :from AND statusAt = :fromAt";

table_store! {
    /// Tickets in the Placements table, changed together with the Players and Messages
    /// tables.
    DynamoTicketStore {
        placements_table,
        players_table,
        messages_table;
        /// Whether its changes may push frames (what its function's role grants).
        pushes: TicketPushes = TicketPushes::ToPlayers,
    }
}

impl DynamoTicketStore {
    /// The same store, its changes pushing frames only as `pushes` says.
    pub fn pushing(mut self, pushes: TicketPushes) -> Self {
        self.pushes = pushes;
        self
    }

    fn ticket_update(&self, change: &TicketChange) -> Result<Update, StoreError> {
        let mut names = HashMap::from([("#status".to_owned(), attr::STATUS.to_owned())]);
        let mut values = HashMap::from([
            (":from".to_owned(), s(change.from.as_str())),
            (":fromAt".to_owned(), n(change.from_at)),
            (":to".to_owned(), s(change.to.as_str())),
            (":toAt".to_owned(), n(change.to_at)),
            (":now".to_owned(), n(change.now)),
        ]);
        let mut sets = vec![
            "#status = :to".to_owned(),
            format!("{STATUS_AT} = :toAt"),
            format!("{} = :now", attr::UPDATED_AT),
        ];
        let mut removes = Vec::new();
        match &change.match_id {
            Some(match_id) => {
                sets.push(format!("{MATCH_ID} = :matchId"));
                values.insert(":matchId".into(), s(match_id));
            }
            None => removes.push(MATCH_ID),
        }
        if let Some(session) = &change.game_session {
            for (name, value) in game_session_attributes(session)? {
                sets.push(format!("#{name} = :{name}"));
                names.insert(format!("#{name}"), name.clone());
                values.insert(format!(":{name}"), value);
            }
            sets.push(format!("{} = :playerSessions", attr::PLAYER_SESSIONS));
            values.insert(
                ":playerSessions".into(),
                player_sessions_value(&change.player_sessions)?,
            );
        }
        let mut expression = format!("SET {}", sets.join(", "));
        if !removes.is_empty() {
            expression.push_str(&format!(" REMOVE {}", removes.join(", ")));
        }
        Update::builder()
            .table_name(&self.placements_table)
            .set_key(Some(key(&change.ticket_id)))
            .update_expression(expression)
            .condition_expression(AS_READ)
            .set_expression_attribute_names(Some(names))
            .set_expression_attribute_values(Some(values))
            .build()
            .map_err(build_error)
    }

    /// A player's condition-free update when the ticket ends: the pending request
    /// removed if it is this ticket's, the seat stored when COMPLETED.
    fn player_update(
        &self,
        change: &TicketChange,
        player: &TicketPlayerChange,
    ) -> Result<Option<Update>, StoreError> {
        let Some(pending) = Pending::of_ticket(&change.ticket_id) else {
            return Ok(None);
        };
        let mut values = HashMap::from([
            (":ticket".to_owned(), pending_value(&pending)?),
            (
                ":expireAt".to_owned(),
                n(change.now / 1000 + PLAYER_RETENTION_SECONDS),
            ),
        ]);
        let update = match &player.seat {
            Some(seat) => {
                values.insert(":gameSession".into(), game_session_value(seat)?);
                "DELETE pendingPlacementId :ticket \
                 SET gameSession = :gameSession, expireAt = if_not_exists(expireAt, :expireAt)"
            }
            None => {
                "DELETE pendingPlacementId :ticket \
                 SET expireAt = if_not_exists(expireAt, :expireAt)"
            }
        };
        Update::builder()
            .table_name(&self.players_table)
            .key("playerId", s(player.player_id.as_str()))
            .update_expression(update)
            .set_expression_attribute_values(Some(values))
            .build()
            .map(Some)
            .map_err(build_error)
    }
}

#[async_trait]
impl TicketReader for DynamoTicketStore {
    async fn get(&self, ticket_id: &TicketId) -> Result<Option<TicketRecord>, StoreError> {
        read_consistent(&self.client, &self.placements_table, key(ticket_id))
            .await?
            .as_ref()
            .map(ticket_from_item)
            .transpose()
    }
}

impl Calls<dyn TicketReader> for DynamoTicketStore {
    fn calls(&self) -> Vec<AwsCall> {
        AwsCall::on_table(&self.placements_table, &["GetItem"])
    }
}

#[async_trait]
impl TicketRecorder for DynamoTicketStore {
    async fn create(&self, ticket: &TicketRecord) -> Result<(), StoreError> {
        if ticket.player_ids.len() > MAX_TICKET_PLAYERS {
            return Err(StoreError::Other(
                format!(
                    "ticket {} holds {} players; at most {MAX_TICKET_PLAYERS}",
                    ticket.ticket_id,
                    ticket.player_ids.len()
                )
                .into(),
            ));
        }
        let item = ticket_to_item(ticket)?;
        put_new(
            &self.client,
            &self.placements_table,
            item,
            "ticket",
            &ticket.ticket_id,
        )
        .await
    }
}

impl Calls<dyn TicketRecorder> for DynamoTicketStore {
    fn calls(&self) -> Vec<AwsCall> {
        AwsCall::on_table(&self.placements_table, &["PutItem"])
    }
}

#[async_trait]
impl TicketChanges for DynamoTicketStore {
    async fn advance(&self, change: &TicketChange) -> Result<bool, StoreError> {
        if change.pushes() && self.pushes == TicketPushes::Never {
            return Err(StoreError::Other(
                format!(
                    "a change of ticket {} pushes frames; this function may not write inboxes",
                    change.ticket_id
                )
                .into(),
            ));
        }
        let pushed: Vec<_> = change
            .players
            .iter()
            .filter_map(|p| p.message.as_ref())
            .collect();
        let mut attempt = 0;
        loop {
            attempt += 1;
            let tops = futures_util::future::try_join_all(pushed.iter().map(|message| {
                inbox::top(&self.client, &self.messages_table, &message.recipient_id)
            }))
            .await?;
            let mut items = Vec::with_capacity(1 + 3 * change.players.len());
            items.push(
                TransactWriteItem::builder()
                    .update(self.ticket_update(change)?)
                    .build(),
            );
            if change.to.is_final() {
                for player in &change.players {
                    if let Some(update) = self.player_update(change, player)? {
                        items.push(TransactWriteItem::builder().update(update).build());
                    }
                }
            }
            for (message, top) in pushed.iter().zip(&tops) {
                let slot = Slot::of(top, message);
                items.extend(inbox::writes(&self.messages_table, message, slot)?);
            }
            let reasons = match transact(&self.client, items).await? {
                Transacted::Committed => return Ok(true),
                Transacted::ConditionFailed(reasons) => Some(reasons),
                Transacted::Conflict => None,
            };
            // The ticket's own condition: it changed since it was read (or is gone).
            if let Some(Some(_)) = reasons.as_ref().and_then(|r| r.first()) {
                return Ok(false);
            }
            if attempt >= inbox::APPEND_ATTEMPTS {
                return Err(StoreError::Unavailable(
                    format!(
                        "changing ticket {}: inboxes still contended after {attempt} attempts",
                        change.ticket_id
                    )
                    .into(),
                ));
            }
            tokio::time::sleep(inbox::backoff(attempt)).await;
        }
    }
}

impl Calls<dyn TicketChanges> for DynamoTicketStore {
    /// One transaction: the ticket, each player's slot and seat, and (when it may push)
    /// each player's frame after the inboxes' heads are read.
    fn calls(&self) -> Vec<AwsCall> {
        let mut calls = AwsCall::on_table(&self.placements_table, &["UpdateItem"]);
        calls.extend(AwsCall::on_table(&self.players_table, &["UpdateItem"]));
        if self.pushes == TicketPushes::ToPlayers {
            calls.extend(inbox::append_calls(&self.messages_table));
        }
        calls
    }
}

fn build_error(err: aws_sdk_dynamodb::error::BuildError) -> StoreError {
    StoreError::Other(Box::new(err))
}
