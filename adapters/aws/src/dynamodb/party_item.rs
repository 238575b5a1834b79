//! The Parties table's items (docs/architecture.md#parties) and their mapping to
//! [`Party`] and [`Invitation`]. Key: partition `partyId`, sort `sk`: the party itself
//! at `sk = party`, each invitation at `sk = invite#<playerId>` (TTL removes it once
//! expired).
//!
//! | attribute | type | item | meaning |
//! |---|---|---|---|
//! | `leaderId` | S | party | the leader |
//! | `maxSize` | N | party | 2–10 |
//! | `members` | M | party | player id → `{joinedAt N, presence S, offlineSince N?}` |
//! | `version` | N | party | one more per change; every write is conditional on it |
//! | `createdAt` | N | party | epoch ms |
//! | `sweepShard`, `offlineSince` | N, N | party | only while a member is offline: the `ByOfflineSince` index's key (the longest-offline member's time) |
//! | `invitee`, `from`, `expiresAt` | S, S, N | invitation | who is invited, by whom, until when (epoch ms) |
//! | `expireAt` | N | invitation | TTL (epoch s), just after `expiresAt` |

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;

use shared::domain::{EpochMillis, PlayerId};
use shared::party::OfflineParty;
use shared::party::{Invitation, MemberPresence, Party, PartyId, PartyMember};
use shared::ports::StoreError;

pub(crate) type Item = HashMap<String, AttributeValue>;

/// Attribute names of the Parties table.
pub(crate) mod attr {
    pub const PARTY_ID: &str = "partyId";
    pub const SK: &str = "sk";
    pub const LEADER_ID: &str = "leaderId";
    pub const MAX_SIZE: &str = "maxSize";
    pub const MEMBERS: &str = "members";
    pub const VERSION: &str = "version";
    pub const CREATED_AT: &str = "createdAt";
    pub const SWEEP_SHARD: &str = "sweepShard";
    pub const OFFLINE_SINCE: &str = "offlineSince";
    pub const INVITEE: &str = "invitee";
    pub const FROM: &str = "from";
    pub const EXPIRES_AT: &str = "expiresAt";
    pub const EXPIRE_AT: &str = "expireAt";
    /// Attributes of a member's map.
    pub const JOINED_AT: &str = "joinedAt";
    pub const PRESENCE: &str = "presence";
}

/// The party item's sort key.
pub(crate) const PARTY_SK: &str = "party";
/// An invitation's sort key starts with this, then the invitee's id.
const INVITATION_SK_PREFIX: &str = "invite#";
/// How long DynamoDB keeps an invitation after it expired (reads skip it anyway).
const INVITATION_KEPT_AFTER_EXPIRY_SECS: i64 = 60;

pub(crate) fn s(value: impl Into<String>) -> AttributeValue {
    AttributeValue::S(value.into())
}

pub(crate) fn n(value: impl ToString) -> AttributeValue {
    AttributeValue::N(value.to_string())
}

pub(crate) fn party_key(party_id: &PartyId) -> Item {
    HashMap::from([
        (attr::PARTY_ID.to_owned(), s(party_id.as_str())),
        (attr::SK.to_owned(), s(PARTY_SK)),
    ])
}

pub(crate) fn invitation_key(party_id: &PartyId, invitee: &PlayerId) -> Item {
    HashMap::from([
        (attr::PARTY_ID.to_owned(), s(party_id.as_str())),
        (
            attr::SK.to_owned(),
            s(format!("{INVITATION_SK_PREFIX}{invitee}")),
        ),
    ])
}

/// The party item; `shards` partitions the offline index.
pub(crate) fn party_to_item(party: &Party, shards: u32) -> Item {
    let members = party
        .members
        .iter()
        .map(|member| {
            let mut fields = HashMap::from([
                (attr::JOINED_AT.to_owned(), n(member.joined_at)),
                (attr::PRESENCE.to_owned(), s(member.presence.as_str())),
            ]);
            if let MemberPresence::Offline { since } = member.presence {
                fields.insert(attr::OFFLINE_SINCE.to_owned(), n(since));
            }
            (member.player_id.to_string(), AttributeValue::M(fields))
        })
        .collect();
    let mut item = party_key(&party.party_id);
    item.extend([
        (attr::LEADER_ID.to_owned(), s(party.leader_id.as_str())),
        (attr::MAX_SIZE.to_owned(), n(party.max_size)),
        (attr::MEMBERS.to_owned(), AttributeValue::M(members)),
        (attr::VERSION.to_owned(), n(party.version)),
        (attr::CREATED_AT.to_owned(), n(party.created_at)),
    ]);
    if let Some(since) = party.offline_since() {
        item.insert(
            attr::SWEEP_SHARD.to_owned(),
            n(party.party_id.sweep_shard(shards)),
        );
        item.insert(attr::OFFLINE_SINCE.to_owned(), n(since));
    }
    item
}

pub(crate) fn invitation_to_item(invitation: &Invitation) -> Item {
    let mut item = invitation_key(&invitation.party_id, &invitation.invitee);
    item.extend([
        (attr::INVITEE.to_owned(), s(invitation.invitee.as_str())),
        (attr::FROM.to_owned(), s(invitation.from.as_str())),
        (attr::EXPIRES_AT.to_owned(), n(invitation.expires_at)),
        (
            attr::EXPIRE_AT.to_owned(),
            n(invitation.expires_at.div_euclid(1000) + INVITATION_KEPT_AFTER_EXPIRY_SECS),
        ),
    ]);
    item
}

/// Reads one item; every mistake is a [`StoreError::Corrupt`] naming the item and the
/// attribute.
struct Reader<'a> {
    item: &'a Item,
    key: String,
}

impl<'a> Reader<'a> {
    fn new(item: &'a Item) -> Self {
        let part = |name: &str| match item.get(name) {
            Some(AttributeValue::S(value)) => value.clone(),
            _ => "<missing>".to_owned(),
        };
        let key = format!(
            "{}={} {}={}",
            attr::PARTY_ID,
            part(attr::PARTY_ID),
            attr::SK,
            part(attr::SK)
        );
        Self { item, key }
    }

    fn corrupt(&self, reason: impl Into<String>) -> StoreError {
        StoreError::Corrupt {
            key: self.key.clone(),
            reason: reason.into(),
        }
    }

    fn s(&self, name: &str) -> Result<&'a str, StoreError> {
        match self.item.get(name) {
            Some(AttributeValue::S(value)) => Ok(value),
            None => Err(self.corrupt(format!("{name} is missing"))),
            Some(other) => Err(self.corrupt(format!("{name} is {other:?}, not a string"))),
        }
    }

    fn n<T: std::str::FromStr>(&self, name: &str) -> Result<T, StoreError> {
        match self.item.get(name) {
            Some(AttributeValue::N(raw)) => raw
                .parse()
                .map_err(|_| self.corrupt(format!("{name} is {raw:?}, out of range"))),
            None => Err(self.corrupt(format!("{name} is missing"))),
            Some(other) => Err(self.corrupt(format!("{name} is {other:?}, not a number"))),
        }
    }

    fn player(&self, name: &str, raw: &str) -> Result<PlayerId, StoreError> {
        PlayerId::parse(raw).map_err(|e| self.corrupt(format!("{name}: {e}")))
    }

    fn party_id(&self) -> Result<PartyId, StoreError> {
        let name = attr::PARTY_ID;
        PartyId::parse(self.s(name)?).map_err(|e| self.corrupt(format!("{name}: {e}")))
    }

    fn member(&self, id: &str, value: &AttributeValue) -> Result<PartyMember, StoreError> {
        let name = format!("{}.{id}", attr::MEMBERS);
        let AttributeValue::M(fields) = value else {
            return Err(self.corrupt(format!("{name} is {value:?}, not a map")));
        };
        let field = Reader {
            item: fields,
            key: self.key.clone(),
        };
        let in_map = |e: StoreError| match e {
            StoreError::Corrupt { key, reason } => StoreError::Corrupt {
                key,
                reason: format!("{name}.{reason}"),
            },
            other => other,
        };
        let presence = match field.s(attr::PRESENCE).map_err(in_map)? {
            "online" => MemberPresence::Online,
            "offline" => MemberPresence::Offline {
                since: field.n(attr::OFFLINE_SINCE).map_err(in_map)?,
            },
            other => {
                return Err(self.corrupt(format!(
                    "{name}.{} is {other:?}, not online or offline",
                    attr::PRESENCE
                )));
            }
        };
        Ok(PartyMember {
            player_id: self.player(&name, id)?,
            joined_at: field.n(attr::JOINED_AT).map_err(in_map)?,
            presence,
        })
    }
}

/// Maps the party item to the party it holds.
pub(crate) fn party_from_item(item: &Item) -> Result<Party, StoreError> {
    let r = Reader::new(item);
    let members = match item.get(attr::MEMBERS) {
        Some(AttributeValue::M(members)) => members
            .iter()
            .map(|(id, value)| r.member(id, value))
            .collect::<Result<Vec<_>, _>>()?,
        None => return Err(r.corrupt(format!("{} is missing", attr::MEMBERS))),
        Some(other) => {
            return Err(r.corrupt(format!("{} is {other:?}, not a map", attr::MEMBERS)));
        }
    };
    let mut party = Party {
        party_id: r.party_id()?,
        leader_id: r.player(attr::LEADER_ID, r.s(attr::LEADER_ID)?)?,
        max_size: r.n(attr::MAX_SIZE)?,
        members,
        version: r.n(attr::VERSION)?,
        created_at: r.n(attr::CREATED_AT)?,
    };
    party.sort_members();
    Ok(party)
}

/// Maps an invitation item to the invitation it holds.
pub(crate) fn invitation_from_item(item: &Item) -> Result<Invitation, StoreError> {
    let r = Reader::new(item);
    Ok(Invitation {
        party_id: r.party_id()?,
        invitee: r.player(attr::INVITEE, r.s(attr::INVITEE)?)?,
        from: r.player(attr::FROM, r.s(attr::FROM)?)?,
        expires_at: r.n::<EpochMillis>(attr::EXPIRES_AT)?,
    })
}

/// An `ByOfflineSince` key (KEYS_ONLY: `partyId`, `sk`, `sweepShard`, `offlineSince`).
pub(crate) fn offline_from_key(item: &Item) -> Result<OfflineParty, StoreError> {
    let r = Reader::new(item);
    Ok(OfflineParty {
        party_id: r.party_id()?,
        offline_since: r.n(attr::OFFLINE_SINCE)?,
    })
}

/// The `ExclusiveStartKey` that continues an `ByOfflineSince` query after `after`.
pub(crate) fn offline_index_key(shard: u32, after: &OfflineParty) -> Item {
    let mut key = party_key(&after.party_id);
    key.insert(attr::SWEEP_SHARD.to_owned(), n(shard));
    key.insert(attr::OFFLINE_SINCE.to_owned(), n(after.offline_since));
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    fn player(name: &str) -> PlayerId {
        PlayerId::parse(name).unwrap()
    }

    fn party() -> Party {
        Party {
            party_id: PartyId::parse("party-1").unwrap(),
            leader_id: player("alice"),
            max_size: 4,
            members: vec![
                PartyMember {
                    player_id: player("alice"),
                    joined_at: 10,
                    presence: MemberPresence::Online,
                },
                PartyMember {
                    player_id: player("bob"),
                    joined_at: 20,
                    presence: MemberPresence::Offline { since: 30 },
                },
            ],
            version: 7,
            created_at: 10,
        }
    }

    #[test]
    fn given_a_party_when_stored_then_it_reads_back_and_is_in_the_offline_index_while_someone_is_offline()
     {
        let item = party_to_item(&party(), 4);
        assert_eq!(party_from_item(&item).unwrap(), party());
        assert_eq!(item[attr::OFFLINE_SINCE], n(30));
        assert_eq!(item[attr::SWEEP_SHARD], n(party().party_id.sweep_shard(4)));
        let key = offline_index_key(1, &offline_from_key(&item).unwrap());
        assert_eq!(offline_from_key(&key).unwrap().offline_since, 30);

        let mut everyone_online = party();
        everyone_online.members[1].presence = MemberPresence::Online;
        let item = party_to_item(&everyone_online, 4);
        assert!(!item.contains_key(attr::OFFLINE_SINCE));
        assert!(!item.contains_key(attr::SWEEP_SHARD));
    }

    #[test]
    fn given_an_invitation_when_stored_then_it_reads_back_and_expires_after_its_end() {
        let invitation = Invitation {
            party_id: PartyId::parse("party-1").unwrap(),
            invitee: player("bob"),
            from: player("alice"),
            expires_at: 1_795_323_600_500,
        };
        let item = invitation_to_item(&invitation);
        assert_eq!(item[attr::SK], s("invite#bob"));
        assert_eq!(item[attr::EXPIRE_AT], n(1_795_323_660_i64));
        assert_eq!(invitation_from_item(&item).unwrap(), invitation);
    }

    #[test]
    fn given_a_corrupt_member_then_the_error_names_the_item_and_the_attribute() {
        let mut item = party_to_item(&party(), 4);
        let AttributeValue::M(mut members) = item[attr::MEMBERS].clone() else {
            unreachable!()
        };
        members.insert(
            "bob".into(),
            AttributeValue::M(HashMap::from([
                (attr::JOINED_AT.to_owned(), n(20)),
                (attr::PRESENCE.to_owned(), s("away")),
            ])),
        );
        item.insert(attr::MEMBERS.into(), AttributeValue::M(members));
        match party_from_item(&item) {
            Err(StoreError::Corrupt { key, reason }) => {
                assert_eq!(key, "partyId=party-1 sk=party");
                assert!(reason.starts_with("members.bob.presence"), "{reason}");
            }
            other => panic!("{other:?}"),
        }
    }
}
