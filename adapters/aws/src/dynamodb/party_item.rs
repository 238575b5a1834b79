//! The Parties table's items (shared/src/ports/parties.rs), derived, and their mapping
//! to [`Party`] and [`Invitation`]. Key: partition `partyId`, sort `sk`: the party itself
//! at `sk = party`, each invitation at `sk = invite#<playerId>` (TTL removes it once
//! expired).

use std::collections::BTreeMap;

use aws_sdk_dynamodb::types::AttributeValue;
use serde::{Deserialize, Serialize};

use super::item::{self, Item, Malformed, Stored};
use shared::domain::{EpochMillis, PlayerId};
use shared::party::OfflineParty;
use shared::party::{Invitation, MemberPresence, Party, PartyId, PartyMember};
use shared::ports::StoreError;

/// A party.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct PartyItem {
    party_id: PartyId,
    /// Always [`PARTY_SK`].
    sk: String,
    leader_id: PlayerId,
    /// 2–10.
    max_size: u32,
    /// Player id → member.
    members: BTreeMap<PlayerId, MemberAttributes>,
    /// One more per change; every write is conditional on it.
    version: u64,
    /// Epoch milliseconds.
    created_at: EpochMillis,
    /// Only while a member is offline: the `ByOfflineSince` index's key (the
    /// longest-offline member's time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sweep_shard: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    offline_since: Option<EpochMillis>,
}

impl Stored for PartyItem {
    const TABLE: &'static str = "Parties";
    const KEY: &'static [&'static str] = &[attr::PARTY_ID, attr::SK];
}

/// A member, in the party's `members` map.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct MemberAttributes {
    joined_at: EpochMillis,
    /// `online` or `offline` ([`MemberPresence::as_str`]).
    presence: String,
    /// Only when offline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    offline_since: Option<EpochMillis>,
}

/// An invitation.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct InvitationItem {
    party_id: PartyId,
    /// `invite#` and the invitee's id.
    sk: String,
    invitee: PlayerId,
    from: PlayerId,
    /// Epoch milliseconds.
    expires_at: EpochMillis,
    /// TTL (epoch seconds), just after `expiresAt`.
    #[serde(rename = "expireAt")]
    expire_at_secs: i64,
}

impl Stored for InvitationItem {
    const TABLE: &'static str = "Parties";
    const KEY: &'static [&'static str] = &[attr::PARTY_ID, attr::SK];
}

/// A `ByOfflineSince` key (KEYS_ONLY).
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct OfflineKey {
    party_id: PartyId,
    sk: String,
    sweep_shard: u32,
    offline_since: EpochMillis,
}

impl Stored for OfflineKey {
    const TABLE: &'static str = "Parties";
    const KEY: &'static [&'static str] = &[attr::PARTY_ID, attr::SK];
}

/// Attribute names the adapter's expressions and the table's key schema use: the
/// structs' field names (a test holds them equal).
pub(crate) mod attr {
    pub const PARTY_ID: &str = "partyId";
    pub const SK: &str = "sk";
    pub const LEADER_ID: &str = "leaderId";
    pub const VERSION: &str = "version";
    pub const SWEEP_SHARD: &str = "sweepShard";
    pub const OFFLINE_SINCE: &str = "offlineSince";
    pub const EXPIRES_AT: &str = "expiresAt";
    pub const EXPIRE_AT: &str = "expireAt";
}

/// The party item's sort key.
pub(crate) const PARTY_SK: &str = "party";
/// An invitation's sort key starts with this, then the invitee's id.
const INVITATION_SK_PREFIX: &str = "invite#";
/// How long DynamoDB keeps an invitation after it expired (reads skip it anyway).
const INVITATION_KEPT_AFTER_EXPIRY_SECS: i64 = 60;

fn key(party_id: &PartyId, sk: String) -> Item {
    Item::from([
        (
            attr::PARTY_ID.to_owned(),
            AttributeValue::S(party_id.to_string()),
        ),
        (attr::SK.to_owned(), AttributeValue::S(sk)),
    ])
}

pub(crate) fn party_key(party_id: &PartyId) -> Item {
    key(party_id, PARTY_SK.to_owned())
}

fn invitation_sk(invitee: &PlayerId) -> String {
    format!("{INVITATION_SK_PREFIX}{invitee}")
}

pub(crate) fn invitation_key(party_id: &PartyId, invitee: &PlayerId) -> Item {
    key(party_id, invitation_sk(invitee))
}

/// The party item; `shards` partitions the offline index.
pub(crate) fn party_to_item(party: &Party, shards: u32) -> Result<Item, StoreError> {
    let members = party
        .members
        .iter()
        .map(|member| {
            let offline_since = match member.presence {
                MemberPresence::Offline { since } => Some(since),
                MemberPresence::Online => None,
            };
            let attributes = MemberAttributes {
                joined_at: member.joined_at,
                presence: member.presence.as_str().to_owned(),
                offline_since,
            };
            (member.player_id.clone(), attributes)
        })
        .collect();
    let offline_since = party.offline_since();
    item::to_item(&PartyItem {
        party_id: party.party_id.clone(),
        sk: PARTY_SK.to_owned(),
        leader_id: party.leader_id.clone(),
        max_size: party.max_size,
        members,
        version: party.version,
        created_at: party.created_at,
        sweep_shard: offline_since.map(|_| party.party_id.sweep_shard(shards)),
        offline_since,
    })
}

impl TryFrom<PartyItem> for Party {
    type Error = Malformed;

    fn try_from(item: PartyItem) -> Result<Self, Malformed> {
        let members = item
            .members
            .into_iter()
            .map(|(player_id, member)| {
                let name = format!("members.{player_id}");
                let presence = match (member.presence.as_str(), member.offline_since) {
                    ("online", _) => MemberPresence::Online,
                    ("offline", Some(since)) => MemberPresence::Offline { since },
                    ("offline", None) => {
                        return Err(Malformed::new(format!("{name}.offlineSince"), "missing"));
                    }
                    (other, _) => {
                        return Err(Malformed::new(
                            format!("{name}.presence"),
                            format!("{other:?}: not online or offline"),
                        ));
                    }
                };
                Ok(PartyMember {
                    player_id,
                    joined_at: member.joined_at,
                    presence,
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut party = Party {
            party_id: item.party_id,
            leader_id: item.leader_id,
            max_size: item.max_size,
            members,
            version: item.version,
            created_at: item.created_at,
        };
        party.sort_members();
        Ok(party)
    }
}

pub(crate) fn invitation_to_item(invitation: &Invitation) -> Result<Item, StoreError> {
    item::to_item(&InvitationItem {
        party_id: invitation.party_id.clone(),
        sk: invitation_sk(&invitation.invitee),
        invitee: invitation.invitee.clone(),
        from: invitation.from.clone(),
        expires_at: invitation.expires_at,
        expire_at_secs: invitation.expires_at.div_euclid(1000) + INVITATION_KEPT_AFTER_EXPIRY_SECS,
    })
}

impl From<InvitationItem> for Invitation {
    fn from(item: InvitationItem) -> Self {
        Invitation {
            party_id: item.party_id,
            invitee: item.invitee,
            from: item.from,
            expires_at: item.expires_at,
        }
    }
}

impl From<OfflineKey> for OfflineParty {
    fn from(key: OfflineKey) -> Self {
        OfflineParty {
            party_id: key.party_id,
            offline_since: key.offline_since,
        }
    }
}

/// Maps the party item to the party it holds.
pub(crate) fn party_from_item(stored: &Item) -> Result<Party, StoreError> {
    item::read::<PartyItem, _>(stored.clone())
}

/// Maps an invitation item to the invitation it holds.
pub(crate) fn invitation_from_item(stored: &Item) -> Result<Invitation, StoreError> {
    item::read::<InvitationItem, _>(stored.clone())
}

/// An `ByOfflineSince` key (KEYS_ONLY: `partyId`, `sk`, `sweepShard`, `offlineSince`).
pub(crate) fn offline_from_key(stored: &Item) -> Result<OfflineParty, StoreError> {
    item::read::<OfflineKey, _>(stored.clone())
}

/// The `ExclusiveStartKey` that continues an `ByOfflineSince` query after `after`.
pub(crate) fn offline_index_key(shard: u32, after: &OfflineParty) -> Result<Item, StoreError> {
    item::to_item(&OfflineKey {
        party_id: after.party_id.clone(),
        sk: PARTY_SK.to_owned(),
        sweep_shard: shard,
        offline_since: after.offline_since,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::item::wire;
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

    fn invitation() -> Invitation {
        Invitation {
            party_id: PartyId::parse("party-1").unwrap(),
            invitee: player("bob"),
            from: player("alice"),
            expires_at: 1_795_323_600_500,
        }
    }

    #[test]
    fn given_a_party_an_invitation_and_an_index_key_when_written_then_they_have_the_attributes_the_hand_written_mapping_wrote()
     {
        // Captured from the hand-written mapping these structs replaced.
        let old_party = json!({
            "partyId": {"S": "party-1"}, "sk": {"S": "party"}, "leaderId": {"S": "alice"},
            "maxSize": {"N": "4"}, "version": {"N": "7"}, "createdAt": {"N": "10"},
            "members": {"M": {
                "alice": {"M": {"joinedAt": {"N": "10"}, "presence": {"S": "online"}}},
                "bob": {"M": {"joinedAt": {"N": "20"}, "presence": {"S": "offline"}, "offlineSince": {"N": "30"}}}
            }},
            "sweepShard": {"N": "1"}, "offlineSince": {"N": "30"}
        });
        assert_eq!(party().party_id.sweep_shard(4), 1);
        let written = party_to_item(&party(), 4).unwrap();
        assert_eq!(wire::to_json(&written), old_party);
        assert_eq!(
            party_from_item(&wire::from_json(old_party)).unwrap(),
            party()
        );

        let old_invitation = json!({
            "partyId": {"S": "party-1"}, "sk": {"S": "invite#bob"}, "invitee": {"S": "bob"},
            "from": {"S": "alice"}, "expiresAt": {"N": "1795323600500"},
            "expireAt": {"N": "1795323660"}
        });
        let invited = invitation_to_item(&invitation()).unwrap();
        assert_eq!(wire::to_json(&invited), old_invitation);
        assert_eq!(
            invitation_from_item(&wire::from_json(old_invitation)).unwrap(),
            invitation()
        );
        assert_eq!(invitation_key(&invitation().party_id, &player("bob")), {
            let mut key = invited.clone();
            key.retain(|name, _| name == attr::PARTY_ID || name == attr::SK);
            key
        });

        let old_key = json!({
            "partyId": {"S": "party-1"}, "sk": {"S": "party"}, "sweepShard": {"N": "1"},
            "offlineSince": {"N": "30"}
        });
        let after = offline_from_key(&written).unwrap();
        assert_eq!(
            wire::to_json(&offline_index_key(1, &after).unwrap()),
            old_key
        );
        assert_eq!(offline_from_key(&wire::from_json(old_key)).unwrap(), after);
        for name in [
            attr::LEADER_ID,
            attr::VERSION,
            attr::SWEEP_SHARD,
            attr::OFFLINE_SINCE,
        ] {
            assert!(written.contains_key(name), "{name}");
        }
        for name in [attr::EXPIRES_AT, attr::EXPIRE_AT] {
            assert!(invited.contains_key(name), "{name}");
        }
    }

    #[test]
    fn given_everyone_online_when_stored_then_the_party_is_not_in_the_offline_index() {
        let mut everyone_online = party();
        everyone_online.members[1].presence = MemberPresence::Online;
        let item = party_to_item(&everyone_online, 4).unwrap();
        assert!(!item.contains_key(attr::OFFLINE_SINCE));
        assert!(!item.contains_key(attr::SWEEP_SHARD));
        assert_eq!(party_from_item(&item).unwrap(), everyone_online);
    }

    #[test]
    fn given_a_corrupt_member_when_read_then_the_error_names_the_item_and_the_attribute() {
        for (bob, says) in [
            (
                json!({"joinedAt": {"N": "20"}, "presence": {"S": "away"}}),
                "Parties item: members.bob.presence: \"away\"",
            ),
            (
                json!({"joinedAt": {"S": "20"}, "presence": {"S": "online"}}),
                "Parties item: members.bob.joinedAt: ",
            ),
            (
                json!({"joinedAt": {"N": "20"}, "presence": {"S": "offline"}}),
                "Parties item: members.bob.offlineSince: missing",
            ),
        ] {
            let mut item = wire::to_json(&party_to_item(&party(), 4).unwrap());
            item["members"]["M"]["bob"] = json!({ "M": bob });
            match party_from_item(&wire::from_json(item)) {
                Err(StoreError::Corrupt { key, reason }) => {
                    assert_eq!(key, "partyId=party-1 sk=party");
                    assert!(reason.starts_with(says), "{reason}");
                }
                other => panic!("{other:?}"),
            }
        }
    }
}
