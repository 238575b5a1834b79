//! Committing party changes: each change as one [`PartyCommit`] with a `party` message
//! for every member (before and after), so the pushes go through the inbox and its
//! stream like every other one; a change computed from a version that moved meanwhile
//! is computed again from the party read anew.

use std::sync::Arc;
use std::time::Duration;

use crate::domain::{EpochMillis, MessageId, PlayerId};
use crate::frames::ServerFrame;
use crate::messaging::{MessageKind, NewMessage, SYSTEM_SENDER, expire_at_secs};
use crate::ports::{Clock, PartyCommits, PartyReader, StoreError};

use super::{
    Change, ChangeKind, Committed, Invitation, InvitationWrite, MemberPresence, Party, PartyCommit,
    PartyCondition, PartyId, PartyRefusal, PartyWrite,
};

/// How many times a change is computed again when another one came first: each round
/// of a race lets one change through, and a party has at most 10 members (and the
/// sweeper) to race.
pub const CHANGE_ATTEMPTS: u32 = 12;

/// Why a party operation did not happen.
#[derive(Debug, thiserror::Error)]
pub enum PartyError {
    /// Refused: the request cannot be done (the client is told why).
    #[error("{0}")]
    Refused(PartyRefusal),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<PartyRefusal> for PartyError {
    fn from(refusal: PartyRefusal) -> Self {
        Self::Refused(refusal)
    }
}

/// Party changes and their pushes, over a party reader and the commits its function may
/// make.
#[derive(Clone)]
pub struct Parties {
    reader: Arc<dyn PartyReader>,
    commits: Arc<dyn PartyCommits>,
    clock: Arc<dyn Clock>,
    /// How long an undelivered party message is kept (`MESSAGE_TTL_SECONDS`).
    message_ttl_secs: i64,
}

impl Parties {
    pub fn new(
        reader: Arc<dyn PartyReader>,
        commits: Arc<dyn PartyCommits>,
        clock: Arc<dyn Clock>,
        message_ttl_secs: i64,
    ) -> Self {
        Self {
            reader,
            commits,
            clock,
            message_ttl_secs,
        }
    }

    pub fn reader(&self) -> &Arc<dyn PartyReader> {
        &self.reader
    }

    pub fn commits(&self) -> &Arc<dyn PartyCommits> {
        &self.commits
    }

    pub fn now(&self) -> EpochMillis {
        self.clock.now_millis()
    }

    /// The `party` message each recipient of `change` gets. Its id is the party, the
    /// version and the recipient: a retried commit of the same change appends nothing
    /// new, and a client drops a version it has seen.
    pub fn pushes(&self, change: &Change, now: EpochMillis) -> Vec<NewMessage> {
        let party = &change.after;
        let payload = ServerFrame::Party {
            party: party.view(),
            change: change.kind,
            player_id: change.subject.clone(),
        }
        .to_json();
        let version = party.version.to_string();
        change
            .recipients
            .iter()
            .map(|recipient| {
                let message_id = MessageId::deterministic(&[
                    "party",
                    party.party_id.as_str(),
                    &version,
                    recipient.as_str(),
                ]);
                NewMessage::new(
                    MessageKind::Party,
                    message_id,
                    recipient.clone(),
                    SYSTEM_SENDER,
                    payload.clone(),
                    now,
                    self.message_ttl_secs,
                )
            })
            .collect()
    }

    /// The invitee's `party_invite` message, kept as long as the invitation.
    pub fn invite_push(&self, invitation: &Invitation, now: EpochMillis) -> NewMessage {
        let frame = ServerFrame::PartyInvite {
            party_id: invitation.party_id.clone(),
            from: invitation.from.clone(),
            expires_at: invitation.expires_at,
        };
        let (from, to) = (&invitation.from, &invitation.invitee);
        let message = invitation_message(invitation, "party_invite", frame, from, to, now, 0);
        NewMessage {
            expire_at_secs: expire_at_secs(invitation.expires_at, 1),
            ..message
        }
    }

    /// The inviter's `party_invite_declined` message.
    pub fn declined_push(&self, invitation: &Invitation, now: EpochMillis) -> NewMessage {
        let frame = ServerFrame::PartyInviteDeclined {
            party_id: invitation.party_id.clone(),
            player_id: invitation.invitee.clone(),
        };
        let (from, to) = (&invitation.invitee, &invitation.from);
        let ttl_secs = self.message_ttl_secs;
        invitation_message(
            invitation,
            "party_invite_declined",
            frame,
            from,
            to,
            now,
            ttl_secs,
        )
    }

    /// The commit that writes `change` with its pushes: the party saved (or deleted),
    /// the joining player linked, the leaving one unlinked, a joiner's invitation used
    /// up.
    pub fn commit_of(&self, change: &Change, now: EpochMillis) -> PartyCommit {
        let condition = change
            .from_version
            .map_or(PartyCondition::Absent, PartyCondition::AtVersion);
        let mut commit = PartyCommit::on(change.after.party_id.clone(), condition, now);
        commit.write = Some(if change.disbands() {
            PartyWrite::Delete
        } else {
            PartyWrite::Save(change.after.clone())
        });
        match change.kind {
            ChangeKind::Created => commit.join = Some(change.subject.clone()),
            ChangeKind::Joined => {
                commit.join = Some(change.subject.clone());
                commit.invitation = Some(InvitationWrite::Take(change.subject.clone()));
            }
            ChangeKind::Left | ChangeKind::Kicked | ChangeKind::Disbanded => {
                commit.leave = vec![change.subject.clone()];
            }
            ChangeKind::Promoted | ChangeKind::Presence => {}
        }
        commit.pushes = self.pushes(change, now);
        commit
    }

    /// Reads the party, decides the change from it (`Ok(None)`: nothing to change) and
    /// commits it; when another change came first, reads and decides again.
    /// `NotInParty` when there is no such party (the caller's link was stale).
    pub async fn apply(
        &self,
        party_id: &PartyId,
        decide: impl Fn(&Party, EpochMillis) -> Result<Option<Change>, PartyRefusal>,
    ) -> Result<Option<Change>, PartyError> {
        for _ in 0..CHANGE_ATTEMPTS {
            let Some(party) = self.reader.get(party_id).await? else {
                return Err(PartyRefusal::NotInParty.into());
            };
            let now = self.now();
            let Some(change) = decide(&party, now)? else {
                return Ok(None);
            };
            match self.commits.commit(&self.commit_of(&change, now)).await? {
                Committed::Done => return Ok(Some(change)),
                Committed::PartyMoved => lost_a_race().await,
                Committed::InvitationGone => {
                    return Err(PartyRefusal::NoInvitation(party_id.clone()).into());
                }
                Committed::InAnotherParty(other) => {
                    return Err(PartyRefusal::AlreadyInParty(other).into());
                }
                Committed::NoSuchPlayer => {
                    return Err(PartyRefusal::NoSuchPlayer(change.subject.clone()).into());
                }
            }
        }
        Err(PartyRefusal::Contended.into())
    }

    /// `player`'s presence in their party becomes `presence` (and every member is
    /// told), unless it already is. The party after the change (or as read, when there
    /// was nothing to change); `None` when `player` is not in it.
    pub async fn set_presence(
        &self,
        party_id: &PartyId,
        player: &PlayerId,
        presence: MemberPresence,
    ) -> Result<Option<Party>, PartyError> {
        for _ in 0..CHANGE_ATTEMPTS {
            let Some(party) = self.reader.get(party_id).await? else {
                return Ok(None);
            };
            if !party.is_member(player) {
                return Ok(None);
            }
            let now = self.now();
            let Some(change) = party.set_presence(player, presence) else {
                return Ok(Some(party));
            };
            match self.commits.commit(&self.commit_of(&change, now)).await? {
                Committed::Done => return Ok(Some(change.after)),
                _ => lost_a_race().await,
            }
        }
        Err(PartyRefusal::Contended.into())
    }
}

/// A few jittered milliseconds after losing a race for a party's version, so that the
/// members still racing spread out.
async fn lost_a_race() {
    tokio::time::sleep(Duration::from_millis(fastrand::u64(1..=10))).await;
}

/// The `Party` message `frame` (of type `kind`) about `invitation`, from `from` to `to`,
/// kept `ttl_secs`: its id is the invitation's and the frame type's, so a change
/// computed again appends it once.
fn invitation_message(
    invitation: &Invitation,
    kind: &str,
    frame: ServerFrame,
    from: &PlayerId,
    to: &PlayerId,
    now: EpochMillis,
    ttl_secs: i64,
) -> NewMessage {
    let message_id = MessageId::deterministic(&[
        kind,
        invitation.party_id.as_str(),
        invitation.invitee.as_str(),
        &invitation.expires_at.to_string(),
    ]);
    let sender = from.to_string();
    NewMessage::new(
        MessageKind::Party,
        message_id,
        to.clone(),
        sender,
        frame.to_json(),
        now,
        ttl_secs,
    )
}
