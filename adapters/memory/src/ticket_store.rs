//! The ticket ports ([`TicketReader`], [`TicketRecorder`], [`TicketChanges`]) in memory, with the DynamoDB adapter's semantics: the ticket's check
//! and write, and every player's update, happen under the tickets lock (nothing else can
//! change the ticket meanwhile); the messages are then appended through
//! [`InMemoryMessageStore`], whose observer (the local stack's stream feeder) sees them
//! like stream INSERTs.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use async_trait::async_trait;

use super::message_store::InMemoryMessageStore;
use super::player_store::InMemoryPlayerStore;
use shared::matchmaking::TicketId;
use shared::matchmaking::{TicketChange, TicketRecord};
use shared::messaging::NewMessage;
use shared::pending::Pending;
use shared::ports::MessageStore;
use shared::ports::StoreError;
use shared::ports::{TicketChanges, TicketReader, TicketRecorder};

pub struct InMemoryTicketStore {
    items: Mutex<HashMap<TicketId, TicketRecord>>,
    players: Arc<InMemoryPlayerStore>,
    messages: Arc<InMemoryMessageStore>,
}

impl InMemoryTicketStore {
    pub fn new(players: Arc<InMemoryPlayerStore>, messages: Arc<InMemoryMessageStore>) -> Self {
        Self {
            items: Mutex::default(),
            players,
            messages,
        }
    }

    fn items(&self) -> MutexGuard<'_, HashMap<TicketId, TicketRecord>> {
        // Every update replaces whole values: a poisoned lock is safe to keep using.
        self.items.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[async_trait]
impl TicketReader for InMemoryTicketStore {
    async fn get(&self, ticket_id: &TicketId) -> Result<Option<TicketRecord>, StoreError> {
        Ok(self.items().get(ticket_id).cloned())
    }
}

#[async_trait]
impl TicketRecorder for InMemoryTicketStore {
    async fn create(&self, ticket: &TicketRecord) -> Result<(), StoreError> {
        crate::insert_new(&mut self.items(), "ticket", &ticket.ticket_id, ticket)
    }
}

#[async_trait]
impl TicketChanges for InMemoryTicketStore {
    async fn advance(&self, change: &TicketChange) -> Result<bool, StoreError> {
        let messages: Vec<NewMessage> = {
            let mut items = self.items();
            let Some(ticket) = items.get_mut(&change.ticket_id) else {
                return Ok(false);
            };
            if ticket.status != change.from || ticket.status_at != change.from_at {
                return Ok(false);
            }
            ticket.status = change.to;
            ticket.status_at = change.to_at;
            ticket.match_id = change.match_id.clone();
            ticket.updated_at = change.now;
            if change.game_session.is_some() {
                ticket.game_session = change.game_session.clone();
                ticket.player_sessions = change.player_sessions.clone();
            }
            if change.to.is_final()
                && let Some(pending) = Pending::of_ticket(&change.ticket_id)
            {
                for player in &change.players {
                    self.players
                        .settle_placement(&player.player_id, &pending, player.seat.clone());
                }
            }
            change
                .players
                .iter()
                .filter_map(|p| p.message.clone())
                .collect()
        };
        if !messages.is_empty() {
            self.messages.append(&messages).await?;
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MemoryStores;
    use contracts::ticket_store_contract::TicketStores;

    async fn stores() -> TicketStores {
        let tables = MemoryStores::new(InMemoryMessageStore::new(), 1);
        TicketStores {
            tickets: tables.tickets,
            players: tables.players,
            messages: tables.messages,
        }
    }

    contracts::ticket_store_contract_tests!(stores);
}
