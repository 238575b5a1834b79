//! What may happen to a party, as pure functions of its state: each change makes the
//! next version (one more) or is refused with a [`PartyRefusal`] saying why. The store
//! then writes the new state only if the stored version is still the old one.

use std::fmt;

use super::model::{Invitation, MemberPresence, Party, PartyId, PartyMember};
use crate::domain::{EpochMillis, PlayerId};
use crate::frames::ErrorCode;
pub use gamelift_sockets_protocol::party::ChangeKind;

/// One change: the party after it (`after.members` is empty when it was disbanded), who
/// it is about, and who is told (everyone who was or is a member).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    pub kind: ChangeKind,
    /// The member who created, joined, left, was kicked, was promoted, or whose presence
    /// changed (for `disbanded`: the last one to leave).
    pub subject: PlayerId,
    /// The version it was computed from (`None`: a new party).
    pub from_version: Option<u64>,
    pub after: Party,
    /// Members before and after, each once: the `party` frame goes to each.
    pub recipients: Vec<PlayerId>,
}

impl Change {
    fn new(kind: ChangeKind, subject: &PlayerId, before: Option<&Party>, after: Party) -> Self {
        let mut recipients: Vec<PlayerId> = before
            .map(|b| b.member_ids().cloned().collect())
            .unwrap_or_default();
        for id in after.member_ids() {
            if !recipients.contains(id) {
                recipients.push(id.clone());
            }
        }
        Self {
            kind,
            subject: subject.clone(),
            from_version: before.map(|b| b.version),
            after,
            recipients,
        }
    }

    /// True when the change leaves nobody in the party (it is deleted).
    pub fn disbands(&self) -> bool {
        self.after.members.is_empty()
    }
}

/// Why a party request was refused; each maps to one protocol error code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PartyRefusal {
    /// The caller is in no party.
    NotInParty,
    /// The caller is in a party already (the id, when known).
    AlreadyInParty(Option<PartyId>),
    NoSuchParty(PartyId),
    /// No live invitation to this party for the caller.
    NoInvitation(PartyId),
    Full {
        max_size: u32,
    },
    /// The player named is a member already.
    AlreadyMember(PlayerId),
    /// Only the leader may do this.
    NotLeader {
        leader: PlayerId,
    },
    /// The player named is not in the caller's party.
    NotMember(PlayerId),
    /// The caller is not a member of the party named.
    NotYourParty(PartyId),
    AlreadyLeader(PlayerId),
    KickYourself,
    InviteYourself,
    /// No player has this id (never connected, or gone for 30 days).
    NoSuchPlayer(PlayerId),
    /// The party changed while the request was handled, again and again.
    Contended,
}

impl PartyRefusal {
    pub fn code(&self) -> ErrorCode {
        match self {
            Self::NotInParty
            | Self::NoSuchParty(_)
            | Self::NoInvitation(_)
            | Self::NotMember(_)
            | Self::NoSuchPlayer(_) => ErrorCode::NotFound,
            Self::AlreadyInParty(_)
            | Self::Full { .. }
            | Self::AlreadyMember(_)
            | Self::AlreadyLeader(_)
            | Self::Contended => ErrorCode::Conflict,
            Self::NotLeader { .. } | Self::NotYourParty(_) => ErrorCode::Forbidden,
            Self::KickYourself | Self::InviteYourself => ErrorCode::BadRequest,
        }
    }
}

impl fmt::Display for PartyRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotInParty => write!(f, "you are not in a party"),
            Self::AlreadyInParty(Some(party)) => {
                write!(f, "you are already in party {party}; leave it first")
            }
            Self::AlreadyInParty(None) => write!(f, "you are already in a party; leave it first"),
            Self::NoSuchParty(party) => write!(f, "no party has the id {party}"),
            Self::NoInvitation(party) => write!(
                f,
                "you have no live invitation to party {party}: ask a member to invite you"
            ),
            Self::Full { max_size } => write!(f, "the party is full ({max_size} members)"),
            Self::AlreadyMember(player) => write!(f, "{player} is in the party already"),
            Self::NotLeader { leader } => {
                write!(f, "only the party's leader ({leader}) may do this")
            }
            Self::NotMember(player) => write!(f, "{player} is not in your party"),
            Self::NotYourParty(party) => write!(f, "you are not a member of party {party}"),
            Self::AlreadyLeader(player) => write!(f, "{player} is the leader already"),
            Self::KickYourself => write!(f, "you cannot kick yourself: send leaveParty"),
            Self::InviteYourself => write!(f, "you cannot invite yourself"),
            Self::NoSuchPlayer(player) => write!(f, "no player has the id {player}"),
            Self::Contended => write!(
                f,
                "the party kept changing while your request was handled; retry"
            ),
        }
    }
}

impl Party {
    /// A new party of one: `creator`, its leader.
    pub fn create(
        party_id: PartyId,
        creator: &PlayerId,
        max_size: u32,
        now: EpochMillis,
    ) -> Change {
        let party = Party {
            party_id,
            leader_id: creator.clone(),
            max_size,
            members: vec![PartyMember {
                player_id: creator.clone(),
                joined_at: now,
                presence: MemberPresence::Online,
            }],
            version: 1,
            created_at: now,
        };
        Change::new(ChangeKind::Created, creator, None, party)
    }

    /// The next version, for a change made to this one.
    fn next(&self) -> Party {
        Party {
            version: self.version + 1,
            ..self.clone()
        }
    }

    /// Whether `inviter` may invite `invitee` now (an invitation does not change the
    /// party itself, only what may join it).
    pub fn check_invite(
        &self,
        inviter: &PlayerId,
        invitee: &PlayerId,
        leader_only: bool,
    ) -> Result<(), PartyRefusal> {
        if !self.is_member(inviter) {
            return Err(PartyRefusal::NotInParty);
        }
        if inviter == invitee {
            return Err(PartyRefusal::InviteYourself);
        }
        if leader_only && self.leader_id != *inviter {
            return Err(PartyRefusal::NotLeader {
                leader: self.leader_id.clone(),
            });
        }
        if self.is_member(invitee) {
            return Err(PartyRefusal::AlreadyMember(invitee.clone()));
        }
        if self.is_full() {
            return Err(PartyRefusal::Full {
                max_size: self.max_size,
            });
        }
        Ok(())
    }

    /// `player` joins with `invitation` (which must be theirs, to this party, and live).
    pub fn join(
        &self,
        player: &PlayerId,
        invitation: Option<&Invitation>,
        now: EpochMillis,
    ) -> Result<Change, PartyRefusal> {
        if self.is_member(player) {
            return Err(PartyRefusal::AlreadyInParty(Some(self.party_id.clone())));
        }
        let live = invitation
            .is_some_and(|i| i.invitee == *player && i.party_id == self.party_id && i.is_live(now));
        if !live {
            return Err(PartyRefusal::NoInvitation(self.party_id.clone()));
        }
        if self.is_full() {
            return Err(PartyRefusal::Full {
                max_size: self.max_size,
            });
        }
        let mut after = self.next();
        after.members.push(PartyMember {
            player_id: player.clone(),
            // Never before a member already there: "longest-standing" stays an order.
            joined_at: self
                .members
                .iter()
                .map(|m| m.joined_at)
                .max()
                .map_or(now, |last| now.max(last)),
            presence: MemberPresence::Online,
        });
        after.sort_members();
        Ok(Change::new(ChangeKind::Joined, player, Some(self), after))
    }

    /// `player` leaves (or is removed). A leaving leader hands over to the
    /// longest-standing member; the last member leaving disbands the party.
    pub fn leave(&self, player: &PlayerId) -> Result<Change, PartyRefusal> {
        self.remove(player, ChangeKind::Left)
    }

    fn remove(&self, player: &PlayerId, kind: ChangeKind) -> Result<Change, PartyRefusal> {
        if !self.is_member(player) {
            return Err(if kind == ChangeKind::Kicked {
                PartyRefusal::NotMember(player.clone())
            } else {
                PartyRefusal::NotInParty
            });
        }
        let mut after = self.next();
        after.members.retain(|m| m.player_id != *player);
        let Some(first) = after.members.first() else {
            return Ok(Change::new(
                ChangeKind::Disbanded,
                player,
                Some(self),
                after,
            ));
        };
        if after.leader_id == *player {
            after.leader_id = first.player_id.clone();
        }
        Ok(Change::new(kind, player, Some(self), after))
    }

    /// The leader `by` removes `target`.
    pub fn kick(&self, by: &PlayerId, target: &PlayerId) -> Result<Change, PartyRefusal> {
        self.leader_check(by)?;
        if by == target {
            return Err(PartyRefusal::KickYourself);
        }
        self.remove(target, ChangeKind::Kicked)
    }

    /// The leader `by` makes `target` the leader.
    pub fn promote(&self, by: &PlayerId, target: &PlayerId) -> Result<Change, PartyRefusal> {
        self.leader_check(by)?;
        if !self.is_member(target) {
            return Err(PartyRefusal::NotMember(target.clone()));
        }
        if self.leader_id == *target {
            return Err(PartyRefusal::AlreadyLeader(target.clone()));
        }
        let mut after = self.next();
        after.leader_id = target.clone();
        Ok(Change::new(ChangeKind::Promoted, target, Some(self), after))
    }

    /// Whether `player` may act as the leader: a member, and the leader.
    pub fn leader_check(&self, player: &PlayerId) -> Result<(), PartyRefusal> {
        if !self.is_member(player) {
            return Err(PartyRefusal::NotInParty);
        }
        if self.leader_id != *player {
            return Err(PartyRefusal::NotLeader {
                leader: self.leader_id.clone(),
            });
        }
        Ok(())
    }

    /// `player`'s presence becomes `presence`; `None` when it already is (or they are
    /// not a member): nothing to change.
    pub fn set_presence(&self, player: &PlayerId, presence: MemberPresence) -> Option<Change> {
        let current = self.member(player)?.presence;
        let same = matches!(
            (current, presence),
            (MemberPresence::Online, MemberPresence::Online)
                | (
                    MemberPresence::Offline { .. },
                    MemberPresence::Offline { .. }
                )
        );
        if same {
            return None;
        }
        let mut after = self.next();
        for member in &mut after.members {
            if member.player_id == *player {
                member.presence = presence;
            }
        }
        Some(Change::new(ChangeKind::Presence, player, Some(self), after))
    }

    /// The member who has been offline longest, if that is at least `offline_ms` at
    /// `now`: the next one the sweeper removes.
    pub fn longest_offline_past(&self, now: EpochMillis, offline_ms: i64) -> Option<&PlayerId> {
        self.members
            .iter()
            .filter_map(|m| match m.presence {
                MemberPresence::Offline { since } if now - since >= offline_ms => {
                    Some((since, &m.player_id))
                }
                _ => None,
            })
            .min()
            .map(|(_, player)| player)
    }
}

#[cfg(test)]
mod tests;
