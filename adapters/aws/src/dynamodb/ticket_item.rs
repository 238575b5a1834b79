//! A matchmaking ticket as an item of the Placements table (`shared::ports::tickets`),
//! derived straight onto [`TicketRecord`]: keyed by its id in `placementId` (`mm-…`,
//! never a placement's), marked `kind = ticket`, with the placement item's attribute
//! names where they mean the same thing.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::item::{self, Item, Stored};
use super::placement_item::{attr, game_session};
use shared::domain::{EpochMillis, PlayerId};
use shared::matchmaking::TicketRecord;
use shared::matchmaking::{TicketId, TicketStatus};
use shared::placement::PlacedGameSession;
use shared::ports::StoreError;

/// A ticket's item but its `kind`: serde's remote derive for [`TicketRecord`] (see
/// `placement_item.rs`).
#[derive(Serialize, Deserialize)]
#[serde(remote = "TicketRecord", rename_all = "camelCase")]
struct TicketItem {
    /// Partition key: the ticket id.
    #[serde(rename = "placementId")]
    ticket_id: TicketId,
    requester_id: PlayerId,
    /// A list (L) of player ids, the requester first.
    player_ids: Vec<PlayerId>,
    configuration: String,
    status: TicketStatus,
    /// Epoch milliseconds: when the event that set `status` was emitted.
    status_at: EpochMillis,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    match_id: Option<String>,
    created_at: EpochMillis,
    updated_at: EpochMillis,
    /// Once COMPLETED.
    #[serde(flatten, with = "game_session")]
    game_session: Option<PlacedGameSession>,
    /// Once COMPLETED: player id → player session id.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    player_sessions: BTreeMap<PlayerId, String>,
    /// Epoch seconds (TTL).
    #[serde(rename = "expireAt")]
    expire_at_secs: i64,
}

#[derive(Serialize, Deserialize)]
#[serde(transparent)]
struct Ticket(#[serde(with = "TicketItem")] TicketRecord);

impl Stored for Ticket {
    const TABLE: &'static str = "Placements";
    const KEY: &'static [&'static str] = &[attr::PLACEMENT_ID];
}

impl From<Ticket> for TicketRecord {
    fn from(ticket: Ticket) -> Self {
        ticket.0
    }
}

/// `kind`, the attribute beside the ticket's that tells its item from a placement's
/// (which has none): a placement's item under the same id does not read as a ticket
/// (ticket ids and placement ids never meet).
#[derive(Serialize, Deserialize)]
struct Kind {
    kind: TicketKind,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum TicketKind {
    Ticket,
}

/// Attribute names the ticket's updates use (a test holds them to the struct's).
pub(crate) const STATUS_AT: &str = "statusAt";
pub(crate) const MATCH_ID: &str = "matchId";

pub(crate) fn key(ticket_id: &TicketId) -> Item {
    super::placement_item::key(ticket_id.as_str())
}

pub(crate) fn ticket_to_item(ticket: &TicketRecord) -> Result<Item, StoreError> {
    let mut written = item::to_item(&Ticket(ticket.clone()))?;
    written.extend(item::to_item(&Kind {
        kind: TicketKind::Ticket,
    })?);
    Ok(written)
}

/// Maps a ticket item to its record.
pub(crate) fn ticket_from_item(stored: &Item) -> Result<TicketRecord, StoreError> {
    item::decode::<Kind>(stored.clone())
        .map_err(|e| item::corrupt::<Ticket>(item::key_text::<Ticket>(stored), &e))?;
    item::read::<Ticket, _>(stored.clone())
}

#[cfg(test)]
mod tests {
    use aws_sdk_dynamodb::types::AttributeValue;
    use serde_json::json;

    use super::super::item::wire;
    use super::*;
    use shared::domain::PlayerId;
    use shared::placement::PlacedGameSession;

    fn player(name: &str) -> PlayerId {
        PlayerId::parse(name).unwrap()
    }

    fn queued() -> TicketRecord {
        TicketRecord::queued(
            TicketId::parse("mm-00000000-03e8-78a7-9345-0b3c9b09b381").unwrap(),
            player("alice"),
            vec![player("bob")],
            "ranked",
            1_000,
        )
    }

    #[test]
    fn given_tickets_when_written_then_they_have_the_attributes_the_hand_written_mapping_wrote() {
        // Captured from the hand-written mapping this struct replaced.
        let old_queued = json!({
            "placementId": {"S": "mm-00000000-03e8-78a7-9345-0b3c9b09b381"}, "kind": {"S": "ticket"},
            "requesterId": {"S": "alice"}, "playerIds": {"L": [{"S": "alice"}, {"S": "bob"}]},
            "configuration": {"S": "ranked"}, "status": {"S": "QUEUED"}, "statusAt": {"N": "1000"},
            "createdAt": {"N": "1000"}, "updatedAt": {"N": "1000"}, "expireAt": {"N": "604801"}
        });
        let ticket = queued();
        assert_eq!(wire::to_json(&ticket_to_item(&ticket).unwrap()), old_queued);
        assert_eq!(
            ticket_from_item(&wire::from_json(old_queued)).unwrap(),
            ticket
        );

        let old_completed = json!({
            "placementId": {"S": "mm-00000000-03e8-78a7-9345-0b3c9b09b381"}, "kind": {"S": "ticket"},
            "requesterId": {"S": "alice"}, "playerIds": {"L": [{"S": "alice"}, {"S": "bob"}]},
            "configuration": {"S": "ranked"}, "status": {"S": "COMPLETED"}, "statusAt": {"N": "2000"},
            "matchId": {"S": "match-1"}, "createdAt": {"N": "1000"}, "updatedAt": {"N": "1000"},
            "gameSessionArn": {"S": "arn:gs"}, "ipAddress": {"S": "10.0.0.1"},
            "dnsName": {"S": "host.example"}, "port": {"N": "7777"}, "region": {"S": "eu-west-1"},
            "playerSessions": {"M": {"alice": {"S": "psess-a"}}}, "expireAt": {"N": "604801"}
        });
        let completed = TicketRecord {
            status: TicketStatus::Completed,
            status_at: 2_000,
            match_id: Some("match-1".into()),
            game_session: Some(PlacedGameSession {
                game_session_arn: "arn:gs".into(),
                ip_address: "10.0.0.1".into(),
                dns_name: "host.example".into(),
                port: 7777,
                region: "eu-west-1".into(),
            }),
            player_sessions: BTreeMap::from([(player("alice"), "psess-a".to_owned())]),
            ..queued()
        };
        let written = ticket_to_item(&completed).unwrap();
        assert_eq!(wire::to_json(&written), old_completed);
        assert_eq!(
            ticket_from_item(&wire::from_json(old_completed)).unwrap(),
            completed
        );
        for name in [STATUS_AT, MATCH_ID] {
            assert!(written.contains_key(name), "{name}");
        }
    }

    #[test]
    fn given_a_placement_item_or_a_bad_status_when_read_then_it_is_not_a_ticket() {
        let mut item = ticket_to_item(&queued()).unwrap();
        item.remove("kind");
        assert!(matches!(
            ticket_from_item(&item),
            Err(StoreError::Corrupt { .. })
        ));
        let mut item = ticket_to_item(&queued()).unwrap();
        item.insert("status".to_owned(), AttributeValue::S("PENDING".into()));
        match ticket_from_item(&item) {
            Err(StoreError::Corrupt { key, reason }) => {
                assert_eq!(key, "placementId=mm-00000000-03e8-78a7-9345-0b3c9b09b381");
                assert!(reason.starts_with("Placements item: status: "), "{reason}");
            }
            other => panic!("{other:?}"),
        }
    }
}
