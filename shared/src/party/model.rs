//! A party's state: its id, leader, members (with their presence) and version, the
//! invitations to it, and the view of it clients receive.

use crate::domain::{EpochMillis, PlayerId};
pub use gamelift_sockets_protocol::party::{
    MAX_PARTY_ID_LEN, MemberView, PartyId, PartyIdError, PartyView,
};

/// Whether a member is there, as the other members see it: `Online` while connected or
/// within the reconnect grace, `Offline` from when the sweeper took them offline (they
/// stay a member for `PARTY_OFFLINE_SECONDS` after that).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemberPresence {
    Online,
    Offline { since: EpochMillis },
}

impl MemberPresence {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Online => "online",
            Self::Offline { .. } => "offline",
        }
    }
}

/// One member of a party.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartyMember {
    pub player_id: PlayerId,
    pub joined_at: EpochMillis,
    pub presence: MemberPresence,
}

/// A party. Every change to it makes a new version (one more), written only if the
/// stored version is still the one the change was computed from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Party {
    pub party_id: PartyId,
    pub leader_id: PlayerId,
    /// 2 to `PARTY_MAX_SIZE` members.
    pub max_size: u32,
    /// Longest-standing first (by `joined_at`, then player id). Empty only in the last
    /// state of a disbanded party.
    pub members: Vec<PartyMember>,
    pub version: u64,
    pub created_at: EpochMillis,
}

impl Party {
    pub fn member(&self, player: &PlayerId) -> Option<&PartyMember> {
        self.members.iter().find(|m| m.player_id == *player)
    }

    pub fn is_member(&self, player: &PlayerId) -> bool {
        self.member(player).is_some()
    }

    pub fn is_full(&self) -> bool {
        self.members.len() >= self.max_size as usize
    }

    pub fn member_ids(&self) -> impl Iterator<Item = &PlayerId> {
        self.members.iter().map(|m| &m.player_id)
    }

    /// When the member who has been offline longest went offline (`None`: everyone is
    /// online): what the sweeper's index of parties is sorted on.
    pub fn offline_since(&self) -> Option<EpochMillis> {
        self.members
            .iter()
            .filter_map(|m| match m.presence {
                MemberPresence::Offline { since } => Some(since),
                MemberPresence::Online => None,
            })
            .min()
    }

    /// Members in the stored order: longest-standing first (what an adapter restores).
    pub fn sort_members(&mut self) {
        self.members
            .sort_by(|a, b| (a.joined_at, &a.player_id).cmp(&(b.joined_at, &b.player_id)));
    }

    /// The party as clients see it.
    pub fn view(&self) -> PartyView {
        PartyView {
            party_id: self.party_id.clone(),
            leader_id: self.leader_id.clone(),
            max_size: self.max_size,
            members: self
                .members
                .iter()
                .map(|m| MemberView {
                    player_id: m.player_id.clone(),
                    presence: m.presence.as_str().to_owned(),
                    joined_at: m.joined_at,
                })
                .collect(),
            version: self.version,
        }
    }
}

/// An invitation to join a party, until `expires_at`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invitation {
    pub party_id: PartyId,
    pub invitee: PlayerId,
    pub from: PlayerId,
    pub expires_at: EpochMillis,
}

impl Invitation {
    /// Whether it can still be taken up at `now`.
    pub fn is_live(&self, now: EpochMillis) -> bool {
        now < self.expires_at
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn given_player_id_characters_when_parsing_a_party_id_then_it_reads_back_unchanged() {
        for raw in ["p", "Party.1_a:b@c-d", &"x".repeat(128)] {
            assert_eq!(PartyId::parse(raw).unwrap().as_str(), raw);
        }
    }

    #[test]
    fn given_a_bad_party_id_when_parsed_then_the_error_says_what_is_wrong() {
        assert_eq!(PartyId::parse(""), Err(PartyIdError::Empty));
        assert_eq!(
            PartyId::parse("x".repeat(129)),
            Err(PartyIdError::TooLong { len: 129 })
        );
        let err = PartyId::parse("a/b").unwrap_err();
        assert_eq!(
            err,
            PartyIdError::ForbiddenCharacter {
                found: '/',
                position: 1
            }
        );
        assert_eq!(
            err.to_string(),
            "party id contains '/' at position 1; allowed are A-Z a-z 0-9 . _ : @ -"
        );
        assert!(serde_json::from_str::<PartyId>("\"a b\"").is_err());
    }

    #[test]
    fn given_generated_party_ids_then_each_differs_and_parses_back() {
        let a = PartyId::generate();
        let b = PartyId::generate();
        assert_ne!(a, b);
        assert_eq!(PartyId::parse(a.as_str()), Ok(a.clone()));
        assert!(a.sweep_shard(4) < 4);
        assert_eq!(a.sweep_shard(4), a.sweep_shard(4));
    }

    #[test]
    fn given_a_party_when_viewed_then_members_show_presence_and_the_version() {
        let player = |p: &str| PlayerId::parse(p).unwrap();
        let party = Party {
            party_id: PartyId::parse("p1").unwrap(),
            leader_id: player("alice"),
            max_size: 4,
            members: vec![
                PartyMember {
                    player_id: player("alice"),
                    joined_at: 1,
                    presence: MemberPresence::Online,
                },
                PartyMember {
                    player_id: player("bob"),
                    joined_at: 2,
                    presence: MemberPresence::Offline { since: 9 },
                },
            ],
            version: 3,
            created_at: 1,
        };
        assert_eq!(party.offline_since(), Some(9));
        assert_eq!(
            serde_json::to_value(party.view()).unwrap(),
            serde_json::json!({"partyId": "p1", "leaderId": "alice", "maxSize": 4,
                "members": [{"playerId": "alice", "presence": "online", "joinedAt": 1},
                            {"playerId": "bob", "presence": "offline", "joinedAt": 2}],
                "version": 3})
        );
    }
}
