//! A matchmaking ticket as an item of the Placements table (docs/architecture.md,
//! Matchmaking tickets): keyed by its id in `placementId` (`mm-…`, never a placement's),
//! marked `kind = ticket`, with the placement item's attribute names where they mean the
//! same thing.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;

use super::placement_item::{
    Item, Reader, attr, game_session_attributes, n, player_sessions_value, s,
};
use shared::domain::EpochMillis;
use shared::matchmaking::TicketRecord;
use shared::matchmaking::{TicketId, TicketStatus};
use shared::ports::StoreError;

pub(crate) const KIND: &str = "kind";
pub(crate) const TICKET_KIND: &str = "ticket";
pub(crate) const CONFIGURATION: &str = "configuration";
pub(crate) const STATUS_AT: &str = "statusAt";
pub(crate) const MATCH_ID: &str = "matchId";

pub(crate) fn key(ticket_id: &TicketId) -> Item {
    HashMap::from([(attr::PLACEMENT_ID.to_owned(), s(ticket_id.as_str()))])
}

pub(crate) fn ticket_to_item(ticket: &TicketRecord) -> Item {
    let mut item = HashMap::from([
        (attr::PLACEMENT_ID.to_owned(), s(ticket.ticket_id.as_str())),
        (KIND.to_owned(), s(TICKET_KIND)),
        (
            attr::REQUESTER_ID.to_owned(),
            s(ticket.requester_id.as_str()),
        ),
        (
            attr::PLAYER_IDS.to_owned(),
            AttributeValue::L(ticket.player_ids.iter().map(|p| s(p.as_str())).collect()),
        ),
        (CONFIGURATION.to_owned(), s(&ticket.configuration)),
        (attr::STATUS.to_owned(), s(ticket.status.as_str())),
        (STATUS_AT.to_owned(), n(ticket.status_at)),
        (attr::CREATED_AT.to_owned(), n(ticket.created_at)),
        (attr::UPDATED_AT.to_owned(), n(ticket.updated_at)),
        (attr::EXPIRE_AT.to_owned(), n(ticket.expire_at_secs)),
    ]);
    if let Some(match_id) = &ticket.match_id {
        item.insert(MATCH_ID.to_owned(), s(match_id));
    }
    if let Some(session) = &ticket.game_session {
        item.extend(
            game_session_attributes(session)
                .into_iter()
                .map(|(name, value)| (name.to_owned(), value)),
        );
    }
    if !ticket.player_sessions.is_empty() {
        item.insert(
            attr::PLAYER_SESSIONS.to_owned(),
            player_sessions_value(&ticket.player_sessions),
        );
    }
    item
}

/// Maps a ticket item to its record; a placement's item under the same id is corrupt
/// here (ticket ids and placement ids never meet).
pub(crate) fn ticket_from_item(item: &Item) -> Result<TicketRecord, StoreError> {
    let r = Reader::new(item);
    if r.opt_s(KIND)? != Some(TICKET_KIND) {
        return Err(r.corrupt(format!("{KIND} is not {TICKET_KIND:?}: not a ticket")));
    }
    let raw_id = r.req_s(attr::PLACEMENT_ID)?;
    let ticket_id =
        TicketId::parse(raw_id).map_err(|e| r.corrupt(format!("{}: {e}", attr::PLACEMENT_ID)))?;
    let status = r.req_s(attr::STATUS)?;
    let status = TicketStatus::parse(status).ok_or_else(|| {
        r.corrupt(format!(
            "{} is {status:?}, not a ticket status",
            attr::STATUS
        ))
    })?;
    Ok(TicketRecord {
        ticket_id,
        requester_id: r.player(attr::REQUESTER_ID, r.req_s(attr::REQUESTER_ID)?)?,
        player_ids: r.player_ids()?,
        configuration: r.req_s(CONFIGURATION)?.to_owned(),
        status,
        status_at: r.req_n::<EpochMillis>(STATUS_AT)?,
        match_id: r.opt_s(MATCH_ID)?.map(str::to_owned),
        created_at: r.req_n::<EpochMillis>(attr::CREATED_AT)?,
        updated_at: r.req_n::<EpochMillis>(attr::UPDATED_AT)?,
        game_session: r.game_session()?,
        player_sessions: r.player_sessions()?,
        expire_at_secs: r.req_n(attr::EXPIRE_AT)?,
    })
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use shared::domain::PlayerId;
    use shared::placement::PlacedGameSession;

    fn player(name: &str) -> PlayerId {
        PlayerId::parse(name).unwrap()
    }

    #[test]
    fn given_every_field_set_then_a_ticket_round_trips_through_its_item() {
        let mut ticket = TicketRecord::queued(
            TicketId::new_at(1_000),
            player("alice"),
            vec![player("bob")],
            "ranked",
            1_000,
        );
        assert_eq!(ticket_from_item(&ticket_to_item(&ticket)).unwrap(), ticket);
        ticket.status = TicketStatus::Completed;
        ticket.status_at = 2_000;
        ticket.match_id = Some("match-1".into());
        ticket.game_session = Some(PlacedGameSession {
            game_session_arn: "arn:gs".into(),
            ip_address: "10.0.0.1".into(),
            dns_name: "host.example".into(),
            port: 7777,
            region: "eu-west-1".into(),
        });
        ticket.player_sessions = BTreeMap::from([(player("alice"), "psess-a".to_owned())]);
        assert_eq!(ticket_from_item(&ticket_to_item(&ticket)).unwrap(), ticket);
    }

    #[test]
    fn given_a_placement_item_or_a_bad_status_then_it_is_not_read_as_a_ticket() {
        let ticket = TicketRecord::queued(TicketId::new_at(1), player("a"), vec![], "c", 1);
        let mut item = ticket_to_item(&ticket);
        item.remove(KIND);
        assert!(matches!(
            ticket_from_item(&item),
            Err(StoreError::Corrupt { .. })
        ));
        let mut item = ticket_to_item(&ticket);
        item.insert(attr::STATUS.to_owned(), s("PENDING"));
        assert!(matches!(
            ticket_from_item(&item),
            Err(StoreError::Corrupt { .. })
        ));
    }
}
