//! Each party route: read what the change is computed from, compute it (or the refusal)
//! with `shared::party`, commit it with its pushes.

use edge::websocket::{Request, RouteError};
use shared::acks::{InviteToPartyAck, PartyAck, PartyIdAck};
use shared::domain::PlayerId;
use shared::frames::ErrorCode;
use shared::party::{CHANGE_ATTEMPTS, Invitation, Party, PartyError, PartyId, PartyRefusal};
use shared::party::{Committed, InvitationWrite, PartyCommit, PartyCondition};
use shared::requests::{CreatePartyBody, PartyBody, PlayerBody};
use tracing::info;

use crate::{PartyHandler, refusal};

/// What a client is told did not happen when the store failed.
const NOTHING_CHANGED: &str = "nothing changed; retry";

fn store(err: shared::ports::StoreError) -> RouteError {
    RouteError::from_store(err, NOTHING_CHANGED)
}

impl PartyHandler {
    /// The party the caller is in, from their own item.
    async fn caller_party(&self, player: &PlayerId) -> Result<PartyId, RouteError> {
        self.players
            .get(player)
            .await
            .map_err(store)?
            .and_then(|record| record.party_id)
            .ok_or_else(|| RouteError::from(PartyRefusal::NotInParty))
    }

    /// The size a new party gets: the one asked for, within the stack's
    /// `PARTY_MAX_SIZE` (which it is when none is asked). Above it is `forbidden`: the
    /// request is well formed (2–10), this stack does not allow it.
    fn party_size(&self, body: &CreatePartyBody) -> Result<u32, RouteError> {
        let largest = self.config.parties.max_size;
        match body.max_size.map(|size| size.get()) {
            None => Ok(largest),
            Some(size) if size <= largest => Ok(size),
            Some(size) => Err(RouteError::new(
                ErrorCode::Forbidden,
                format!("`maxSize` is {size}; parties here hold at most {largest} players"),
            )),
        }
    }

    pub(crate) async fn create(
        &self,
        request: &Request,
        body: &CreatePartyBody,
    ) -> Result<PartyAck, RouteError> {
        let creator = &request.caller.player_id;
        let max_size = self.party_size(body)?;
        let now = self.parties.now();
        let change = Party::create(PartyId::generate(), creator, max_size, now);
        let committed = self
            .parties
            .commits()
            .commit(&self.parties.commit_of(&change, now))
            .await
            .map_err(store)?;
        match committed {
            Committed::Done => {
                info!(player_id = %creator, party_id = %change.after.party_id, max_size, "party created");
                Ok(PartyAck {
                    party: change.after.view(),
                })
            }
            Committed::InAnotherParty(party) => {
                Err(RouteError::from(PartyRefusal::AlreadyInParty(party)))
            }
            Committed::NoSuchPlayer => Err(RouteError::from(PartyRefusal::NoSuchPlayer(
                creator.clone(),
            ))),
            // A fresh random id that exists already, or an invitation write that is not
            // there: neither can happen.
            Committed::PartyMoved | Committed::InvitationGone => {
                Err(RouteError::from(PartyRefusal::Contended))
            }
        }
    }

    pub(crate) async fn invite(
        &self,
        request: &Request,
        body: &PlayerBody,
    ) -> Result<InviteToPartyAck, RouteError> {
        let inviter = &request.caller.player_id;
        let invitee = body.player_id.clone();
        if invitee == *inviter {
            return Err(RouteError::from(PartyRefusal::InviteYourself));
        }
        let (spent, party_id, blockers) = tokio::join!(
            self.invites.spend(inviter, "nobody was invited; retry"),
            self.caller_party(inviter),
            self.blocks
                .blockers(inviter, std::slice::from_ref(&invitee)),
        );
        spent?;
        let party_id = party_id?;
        let settings = self.config.parties;
        let ttl = i64::try_from(settings.invite_ttl.as_millis()).unwrap_or(i64::MAX);
        if !blockers.map_err(store)?.is_empty() {
            // Answered as if invited; nothing reaches the player who blocked the inviter.
            info!(player_id = %inviter, party_id = %party_id, "party invitation to a blocker dropped");
            return Ok(InviteToPartyAck {
                party_id,
                player_id: invitee,
                expires_at: self.parties.now().saturating_add(ttl),
            });
        }
        for _ in 0..CHANGE_ATTEMPTS {
            let party = self
                .parties
                .reader()
                .get(&party_id)
                .await
                .map_err(store)?
                .ok_or_else(|| RouteError::from(PartyRefusal::NotInParty))?;
            party
                .check_invite(inviter, &invitee, settings.invite_leader_only)
                .map_err(RouteError::from)?;
            let now = self.parties.now();
            let invitation = Invitation {
                party_id: party_id.clone(),
                invitee: invitee.clone(),
                from: inviter.clone(),
                expires_at: now.saturating_add(ttl),
            };
            let mut commit = PartyCommit::on(
                party_id.clone(),
                PartyCondition::AtVersion(party.version),
                now,
            );
            commit.invitation = Some(InvitationWrite::Put(invitation.clone()));
            commit.must_exist = Some(invitee.clone());
            commit.pushes = vec![self.parties.invite_push(&invitation, now)];
            match self
                .parties
                .commits()
                .commit(&commit)
                .await
                .map_err(store)?
            {
                Committed::Done => {
                    info!(player_id = %inviter, party_id = %party_id, invitee = %invitee, "invited to a party");
                    return Ok(InviteToPartyAck {
                        party_id,
                        player_id: invitee,
                        expires_at: invitation.expires_at,
                    });
                }
                Committed::NoSuchPlayer => {
                    return Err(RouteError::from(PartyRefusal::NoSuchPlayer(invitee)));
                }
                Committed::PartyMoved
                | Committed::InvitationGone
                | Committed::InAnotherParty(_) => {}
            }
        }
        Err(RouteError::from(PartyRefusal::Contended))
    }

    pub(crate) async fn join(
        &self,
        request: &Request,
        body: &PartyBody,
    ) -> Result<PartyAck, RouteError> {
        let player = &request.caller.player_id;
        let party_id = body.party_id.clone();
        for _ in 0..CHANGE_ATTEMPTS {
            let (party, invitation) = self
                .parties
                .reader()
                .get_with_invitation(&party_id, player)
                .await
                .map_err(store)?;
            let party = party
                .ok_or_else(|| RouteError::from(PartyRefusal::NoSuchParty(party_id.clone())))?;
            let now = self.parties.now();
            let change = party
                .join(player, invitation.as_ref(), now)
                .map_err(RouteError::from)?;
            let commit = self.parties.commit_of(&change, now);
            match self
                .parties
                .commits()
                .commit(&commit)
                .await
                .map_err(store)?
            {
                Committed::Done => {
                    info!(player_id = %player, party_id = %party_id, members = change.after.members.len(), "joined a party");
                    return Ok(PartyAck {
                        party: change.after.view(),
                    });
                }
                Committed::PartyMoved => {}
                Committed::InvitationGone => {
                    return Err(RouteError::from(PartyRefusal::NoInvitation(party_id)));
                }
                Committed::InAnotherParty(other) => {
                    return Err(RouteError::from(PartyRefusal::AlreadyInParty(other)));
                }
                Committed::NoSuchPlayer => {
                    return Err(RouteError::from(PartyRefusal::NoSuchPlayer(player.clone())));
                }
            }
        }
        Err(RouteError::from(PartyRefusal::Contended))
    }

    pub(crate) async fn decline(
        &self,
        request: &Request,
        body: &PartyBody,
    ) -> Result<PartyIdAck, RouteError> {
        let player = &request.caller.player_id;
        let party_id = body.party_id.clone();
        let (_, invitation) = self
            .parties
            .reader()
            .get_with_invitation(&party_id, player)
            .await
            .map_err(store)?;
        let now = self.parties.now();
        let Some(invitation) = invitation.filter(|i| i.is_live(now)) else {
            return Err(RouteError::from(PartyRefusal::NoInvitation(party_id)));
        };
        // Whatever became of the party, the invitation goes and its sender is told.
        let mut commit = PartyCommit::on(party_id.clone(), PartyCondition::Any, now);
        commit.invitation = Some(InvitationWrite::Take(player.clone()));
        commit.pushes = vec![self.parties.declined_push(&invitation, now)];
        match self
            .parties
            .commits()
            .commit(&commit)
            .await
            .map_err(store)?
        {
            Committed::Done => {
                info!(player_id = %player, party_id = %party_id, "declined a party invitation");
                Ok(PartyIdAck { party_id })
            }
            _ => Err(RouteError::from(PartyRefusal::NoInvitation(party_id))),
        }
    }

    pub(crate) async fn leave(&self, request: &Request) -> Result<PartyIdAck, RouteError> {
        let player = &request.caller.player_id;
        let party_id = self.caller_party(player).await?;
        let change = self
            .parties
            .apply(&party_id, |party, _| party.leave(player).map(Some))
            .await
            .map_err(|e| refusal(e, NOTHING_CHANGED))?;
        if let Some(change) = change {
            info!(player_id = %player, party_id = %party_id, change = ?change.kind, "left a party");
        }
        Ok(PartyIdAck { party_id })
    }

    pub(crate) async fn kick(
        &self,
        request: &Request,
        body: &PlayerBody,
    ) -> Result<PartyAck, RouteError> {
        self.leader_change(request, body, |party, leader, target| {
            party.kick(leader, target)
        })
        .await
    }

    pub(crate) async fn promote(
        &self,
        request: &Request,
        body: &PlayerBody,
    ) -> Result<PartyAck, RouteError> {
        self.leader_change(request, body, |party, leader, target| {
            party.promote(leader, target)
        })
        .await
    }

    /// A change the leader makes to a member (`playerId`); the ack carries the party after it.
    async fn leader_change(
        &self,
        request: &Request,
        body: &PlayerBody,
        change: impl Fn(&Party, &PlayerId, &PlayerId) -> Result<shared::party::Change, PartyRefusal>,
    ) -> Result<PartyAck, RouteError> {
        let leader = &request.caller.player_id;
        let target = body.player_id.clone();
        let party_id = self.caller_party(leader).await?;
        let changed = self
            .parties
            .apply(&party_id, |party, _| {
                change(party, leader, &target).map(Some)
            })
            .await
            .map_err(|e: PartyError| refusal(e, NOTHING_CHANGED))?;
        let Some(changed) = changed else {
            return Err(RouteError::from(PartyRefusal::Contended));
        };
        info!(player_id = %leader, party_id = %party_id, target = %target, change = ?changed.kind, "party changed by its leader");
        Ok(PartyAck {
            party: changed.after.view(),
        })
    }
}
