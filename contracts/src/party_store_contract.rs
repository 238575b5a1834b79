//! The `PartyStore` contract, one test per scenario: `contracts::party_store_contract_tests!(factory)`
//! expands to one `#[tokio::test]` per scenario below, each on fresh [`PartyStores`]
//! (sharing one backend) from `factory`.

use std::sync::Arc;

use crate::Inboxes;

use crate::PartiesTable;
use crate::PlayersTable;
use crate::fixtures::{T0, new_connection, pending, player};
use shared::domain::{EpochMillis, PlayerId};
use shared::messaging::{MessageKind, ReplayFrom};
use shared::party::{Change, Invitation, MemberPresence, Parties, Party, PartyId};
use shared::party::{Committed, InvitationWrite, OfflineParty, PartyCommit, PartyCondition};
use shared::pending::PartyReservation;
use shared::pending::Reservation;
use shared::ports::ManualClock;

/// The stores a scenario works on; `parties` must link players in `players` and append
/// to `messages`.
pub struct PartyStores {
    pub parties: Arc<dyn PartiesTable>,
    pub players: Arc<dyn PlayersTable>,
    pub messages: Arc<dyn Inboxes>,
}

impl PartyStores {
    /// The partitions of the offline index the stores are built with.
    pub const SHARDS: u32 = 4;

    fn service(&self) -> Parties {
        Parties::new(
            self.parties.clone(),
            self.parties.clone(),
            Arc::new(ManualClock::at(T0)),
            86_400,
        )
    }

    async fn connect(&self, names: &[&str]) {
        for name in names {
            self.players
                .connect(&new_connection(name, &format!("c-{name}"), T0 - 1_000))
                .await
                .expect("connect");
        }
    }

    async fn commit_change(&self, change: &Change) -> Committed {
        let commit = self.service().commit_of(change, T0);
        self.parties.commit(&commit).await.expect("commit")
    }

    async fn invite(&self, party: &Party, to: &str, expires_at: EpochMillis) -> Invitation {
        let invitation = Invitation {
            party_id: party.party_id.clone(),
            invitee: player(to),
            from: party.leader_id.clone(),
            expires_at,
        };
        let mut commit = PartyCommit::on(
            party.party_id.clone(),
            PartyCondition::AtVersion(party.version),
            T0,
        );
        commit.invitation = Some(InvitationWrite::Put(invitation.clone()));
        commit.must_exist = Some(player(to));
        commit.pushes = vec![self.service().invite_push(&invitation, T0)];
        assert_eq!(self.parties.commit(&commit).await.unwrap(), Committed::Done);
        invitation
    }

    /// A party led by `names[0]` with every other name joined (each invited first).
    async fn party_of(&self, id: &str, names: &[&str]) -> Party {
        self.connect(names).await;
        let created = Party::create(party(id), &player(names[0]), 8, T0);
        assert_eq!(self.commit_change(&created).await, Committed::Done);
        let mut current = created.after;
        for name in &names[1..] {
            let invitation = self.invite(&current, name, T0 + 60_000).await;
            let joined = current.join(&player(name), Some(&invitation), T0).unwrap();
            assert_eq!(self.commit_change(&joined).await, Committed::Done);
            current = joined.after;
        }
        current
    }

    async fn link_of(&self, name: &str) -> Option<PartyId> {
        self.players
            .get(&player(name))
            .await
            .unwrap()
            .expect("a record")
            .party_id
    }

    /// The party frames in `name`'s inbox, as (change, version) pairs.
    async fn party_frames(&self, name: &str) -> Vec<(String, u64)> {
        let read = self
            .messages
            .read(&player(name), &ReplayFrom::EVERYTHING, T0)
            .await
            .unwrap();
        read.messages
            .iter()
            .filter(|m| m.kind == MessageKind::Party)
            .filter_map(|m| {
                let frame: serde_json::Value = serde_json::from_str(&m.payload).ok()?;
                let change = frame["change"]
                    .as_str()
                    .unwrap_or(frame["type"].as_str().unwrap_or_default());
                Some((
                    change.to_owned(),
                    frame["party"]["version"].as_u64().unwrap_or(0),
                ))
            })
            .collect()
    }
}

fn party(id: &str) -> PartyId {
    PartyId::parse(id).expect("valid test party id")
}

fn names(party: &Party) -> Vec<&str> {
    party.member_ids().map(PlayerId::as_str).collect()
}

pub async fn given_a_new_party_when_created_then_it_reads_back_and_its_creator_is_linked_and_told(
    stores: &PartyStores,
) {
    stores.connect(&["alice"]).await;
    let created = Party::create(party("pc-1"), &player("alice"), 4, T0);
    assert_eq!(stores.commit_change(&created).await, Committed::Done);

    let stored = stores.parties.get(&party("pc-1")).await.unwrap();
    assert_eq!(stored, Some(created.after.clone()));
    assert_eq!(stores.link_of("alice").await, Some(party("pc-1")));
    assert_eq!(
        stores.party_frames("alice").await,
        vec![("created".to_owned(), 1)]
    );
    // The same id again (a retried create) writes nothing.
    assert_eq!(stores.commit_change(&created).await, Committed::PartyMoved);
}

pub async fn given_a_player_in_a_party_when_creating_another_then_nothing_is_written(
    stores: &PartyStores,
) {
    stores.party_of("pa-1", &["alice"]).await;
    let second = Party::create(party("pa-2"), &player("alice"), 4, T0);
    assert_eq!(
        stores.commit_change(&second).await,
        Committed::InAnotherParty(Some(party("pa-1")))
    );
    assert_eq!(stores.parties.get(&party("pa-2")).await.unwrap(), None);
    assert_eq!(stores.link_of("alice").await, Some(party("pa-1")));
    assert_eq!(stores.party_frames("alice").await.len(), 1);
}

pub async fn given_an_invitation_when_the_invitee_joins_then_party_link_invitation_and_pushes_change_together(
    stores: &PartyStores,
) {
    let party_state = stores.party_of("pj-1", &["alice"]).await;
    stores.connect(&["bob"]).await;
    let invitation = stores.invite(&party_state, "bob", T0 + 60_000).await;
    let (read, held) = stores
        .parties
        .get_with_invitation(&party("pj-1"), &player("bob"))
        .await
        .unwrap();
    assert_eq!(read.as_ref(), Some(&party_state));
    assert_eq!(held, Some(invitation.clone()));
    assert_eq!(
        stores.party_frames("bob").await,
        vec![("party_invite".to_owned(), 0)]
    );

    let joined = party_state
        .join(&player("bob"), Some(&invitation), T0)
        .unwrap();
    assert_eq!(stores.commit_change(&joined).await, Committed::Done);
    let stored = stores.parties.get(&party("pj-1")).await.unwrap().unwrap();
    assert_eq!(names(&stored), ["alice", "bob"]);
    assert_eq!(stored.version, 2);
    assert_eq!(stores.link_of("bob").await, Some(party("pj-1")));
    let (_, held) = stores
        .parties
        .get_with_invitation(&party("pj-1"), &player("bob"))
        .await
        .unwrap();
    assert_eq!(held, None, "the invitation is used up");
    assert_eq!(
        stores.party_frames("alice").await,
        vec![("created".to_owned(), 1), ("joined".to_owned(), 2)]
    );
    assert_eq!(
        stores.party_frames("bob").await,
        vec![("party_invite".to_owned(), 0), ("joined".to_owned(), 2)]
    );
}

pub async fn given_an_invitation_to_an_id_nobody_has_when_committed_then_nothing_is_written(
    stores: &PartyStores,
) {
    let party_state = stores.party_of("pn-1", &["alice"]).await;
    let invitation = Invitation {
        party_id: party("pn-1"),
        invitee: player("nobody"),
        from: player("alice"),
        expires_at: T0 + 60_000,
    };
    let mut commit = PartyCommit::on(party("pn-1"), PartyCondition::AtVersion(1), T0);
    commit.invitation = Some(InvitationWrite::Put(invitation.clone()));
    commit.must_exist = Some(player("nobody"));
    commit.pushes = vec![stores.service().invite_push(&invitation, T0)];
    assert_eq!(
        stores.parties.commit(&commit).await.unwrap(),
        Committed::NoSuchPlayer
    );
    let (_, held) = stores
        .parties
        .get_with_invitation(&party_state.party_id, &player("nobody"))
        .await
        .unwrap();
    assert_eq!(held, None);
    let inbox = stores
        .messages
        .read(&player("nobody"), &ReplayFrom::EVERYTHING, T0)
        .await
        .unwrap();
    assert!(inbox.messages.is_empty());
}

pub async fn given_two_joins_computed_from_one_version_when_committed_at_once_then_exactly_one_wins(
    stores: &PartyStores,
) {
    let party_state = stores.party_of("pr-1", &["alice"]).await;
    stores.connect(&["bob", "carol"]).await;
    let bob = stores.invite(&party_state, "bob", T0 + 60_000).await;
    let carol = stores.invite(&party_state, "carol", T0 + 60_000).await;
    let joins = [
        party_state.join(&player("bob"), Some(&bob), T0).unwrap(),
        party_state
            .join(&player("carol"), Some(&carol), T0)
            .unwrap(),
    ];
    let (first, second) = tokio::join!(
        stores.commit_change(&joins[0]),
        stores.commit_change(&joins[1])
    );
    let outcomes = [first, second];
    assert_eq!(
        outcomes.iter().filter(|o| **o == Committed::Done).count(),
        1,
        "{outcomes:?}"
    );
    assert!(outcomes.contains(&Committed::PartyMoved), "{outcomes:?}");
    let stored = stores.parties.get(&party("pr-1")).await.unwrap().unwrap();
    assert_eq!(stored.version, 2);
    assert_eq!(stored.members.len(), 2);
    let linked = [
        stores.link_of("bob").await.is_some(),
        stores.link_of("carol").await.is_some(),
    ];
    assert_eq!(linked.iter().filter(|l| **l).count(), 1, "{linked:?}");
    assert_eq!(
        stores.party_frames("alice").await.len(),
        2,
        "created, then one join"
    );
}

pub async fn given_an_expired_invitation_when_joining_then_nothing_is_written(
    stores: &PartyStores,
) {
    let party_state = stores.party_of("pe-1", &["alice"]).await;
    stores.connect(&["bob"]).await;
    let invitation = stores.invite(&party_state, "bob", T0 + 10).await;
    // Computed while it was live, committed once it is not.
    let joined = party_state
        .join(&player("bob"), Some(&invitation), T0)
        .unwrap();
    let late = stores.service().commit_of(&joined, T0 + 10);
    assert_eq!(
        stores.parties.commit(&late).await.unwrap(),
        Committed::InvitationGone
    );
    assert_eq!(stores.link_of("bob").await, None);
    let stored = stores.parties.get(&party("pe-1")).await.unwrap().unwrap();
    assert_eq!(stored.version, 1);
}

pub async fn given_members_when_the_leader_then_the_last_leave_then_the_party_is_handed_over_and_deleted(
    stores: &PartyStores,
) {
    let party_state = stores.party_of("pl-1", &["alice", "bob"]).await;
    let left = party_state.leave(&player("alice")).unwrap();
    assert_eq!(stores.commit_change(&left).await, Committed::Done);
    assert_eq!(stores.link_of("alice").await, None);
    let stored = stores.parties.get(&party("pl-1")).await.unwrap().unwrap();
    assert_eq!(stored.leader_id, player("bob"));

    let last = stored.leave(&player("bob")).unwrap();
    assert!(last.disbands());
    assert_eq!(stores.commit_change(&last).await, Committed::Done);
    assert_eq!(stores.parties.get(&party("pl-1")).await.unwrap(), None);
    assert_eq!(stores.link_of("bob").await, None);
    assert_eq!(
        stores.party_frames("bob").await,
        vec![
            ("party_invite".to_owned(), 0),
            ("joined".to_owned(), 2),
            ("left".to_owned(), 3),
            ("disbanded".to_owned(), 4)
        ]
    );
    // Creating a party again works once out of it.
    let again = Party::create(party("pl-2"), &player("bob"), 4, T0);
    assert_eq!(stores.commit_change(&again).await, Committed::Done);
}

pub async fn given_a_declined_invitation_when_taken_then_it_is_gone_and_the_inviter_is_told_even_if_the_party_is_not_there(
    stores: &PartyStores,
) {
    let party_state = stores.party_of("pd-1", &["alice"]).await;
    stores.connect(&["bob"]).await;
    let invitation = stores.invite(&party_state, "bob", T0 + 60_000).await;
    // The party is disbanded meanwhile; the invitation is still there to decline.
    let gone = party_state.leave(&player("alice")).unwrap();
    assert_eq!(stores.commit_change(&gone).await, Committed::Done);

    let mut decline = PartyCommit::on(party("pd-1"), PartyCondition::Any, T0);
    decline.invitation = Some(InvitationWrite::Take(player("bob")));
    decline.pushes = vec![stores.service().declined_push(&invitation, T0)];
    assert_eq!(
        stores.parties.commit(&decline).await.unwrap(),
        Committed::Done
    );
    assert_eq!(
        stores.parties.commit(&decline).await.unwrap(),
        Committed::InvitationGone,
        "declined twice"
    );
    assert_eq!(
        stores.party_frames("alice").await.last(),
        Some(&("party_invite_declined".to_owned(), 0))
    );
}

pub async fn given_a_party_when_its_placement_begins_then_every_member_is_pending_or_none_is(
    stores: &PartyStores,
) {
    let party_state = stores.party_of("pp-1", &["alice", "bob", "carol"]).await;
    // dave, in no party, places alone; a member may not.
    stores.connect(&["dave"]).await;
    assert_eq!(
        stores
            .players
            .reserve(&player("dave"), &pending("p-dave"))
            .await
            .unwrap(),
        Reservation::Reserved
    );
    assert_eq!(
        stores
            .players
            .reserve(&player("carol"), &pending("p-solo"))
            .await
            .unwrap(),
        Reservation::InParty(party("pp-1")),
        "a member places only through the leader"
    );

    let began = stores
        .parties
        .reserve_party(&party_state, &pending("p-party"))
        .await
        .unwrap();
    assert_eq!(began, PartyReservation::Reserved);
    for name in ["alice", "bob", "carol"] {
        let record = stores.players.get(&player(name)).await.unwrap().unwrap();
        assert_eq!(record.pending, Some(pending("p-party")), "{name}");
    }
    let again = stores
        .parties
        .reserve_party(&party_state, &pending("p-again"))
        .await
        .unwrap();
    assert_eq!(
        again,
        PartyReservation::Taken {
            player: player("alice"),
            pending: pending("p-party")
        }
    );
    let bob = stores.players.get(&player("bob")).await.unwrap().unwrap();
    assert_eq!(bob.pending, Some(pending("p-party")));

    let promoted = party_state
        .promote(&player("alice"), &player("bob"))
        .unwrap();
    assert_eq!(stores.commit_change(&promoted).await, Committed::Done);
    assert_eq!(
        stores
            .parties
            .reserve_party(&party_state, &pending("p-stale"))
            .await
            .unwrap(),
        PartyReservation::PartyMoved,
        "read before the promotion"
    );
}

pub async fn given_offline_members_then_the_offline_index_lists_their_parties_longest_offline_first(
    stores: &PartyStores,
) {
    let mut expected: Vec<(u32, OfflineParty)> = Vec::new();
    for (i, since) in [(0, T0 - 5_000), (1, T0 - 9_000), (2, T0 - 1_000), (3, T0)] {
        let id = format!("po-{i}");
        let names = [format!("lead{i}"), format!("member{i}")];
        let state = stores
            .party_of(&id, &[names[0].as_str(), names[1].as_str()])
            .await;
        let offline = state
            .set_presence(&player(&names[1]), MemberPresence::Offline { since })
            .unwrap();
        assert_eq!(stores.commit_change(&offline).await, Committed::Done);
        let party_id = party(&id);
        expected.push((
            party_id.sweep_shard(PartyStores::SHARDS),
            OfflineParty {
                party_id,
                offline_since: since,
            },
        ));
    }
    // Online again: out of the index.
    let state = stores.parties.get(&party("po-3")).await.unwrap().unwrap();
    let back = state
        .set_presence(&player("member3"), MemberPresence::Online)
        .unwrap();
    assert_eq!(stores.commit_change(&back).await, Committed::Done);

    let before = T0 - 1_000;
    let mut found = Vec::new();
    for shard in 0..PartyStores::SHARDS {
        let mut after = None;
        loop {
            let page = stores
                .parties
                .offline(shard, before, 1, after.as_ref())
                .await
                .unwrap();
            for listed in &page.parties {
                assert_eq!(listed.party_id.sweep_shard(PartyStores::SHARDS), shard);
            }
            found.extend(page.parties);
            match page.next {
                Some(next) => after = Some(next),
                None => break,
            }
        }
    }
    found.sort_by_key(|p| p.offline_since);
    let mut want: Vec<OfflineParty> = expected
        .into_iter()
        .map(|(_, p)| p)
        .filter(|p| p.offline_since <= before)
        .collect();
    want.sort_by_key(|p| p.offline_since);
    assert_eq!(found, want);
}

/// One `#[tokio::test]` per scenario of this contract, each on `$factory().await` (an
/// async function returning fresh [`PartyStores`]).
#[macro_export]
macro_rules! party_store_contract_tests {
    ($factory:expr) => {
        $crate::contract_scenarios!(party_store_contract, $factory, [
            given_a_new_party_when_created_then_it_reads_back_and_its_creator_is_linked_and_told,
            given_a_player_in_a_party_when_creating_another_then_nothing_is_written,
            given_an_invitation_when_the_invitee_joins_then_party_link_invitation_and_pushes_change_together,
            given_an_invitation_to_an_id_nobody_has_when_committed_then_nothing_is_written,
            given_two_joins_computed_from_one_version_when_committed_at_once_then_exactly_one_wins,
            given_an_expired_invitation_when_joining_then_nothing_is_written,
            given_members_when_the_leader_then_the_last_leave_then_the_party_is_handed_over_and_deleted,
            given_a_declined_invitation_when_taken_then_it_is_gone_and_the_inviter_is_told_even_if_the_party_is_not_there,
            given_a_party_when_its_placement_begins_then_every_member_is_pending_or_none_is,
            given_offline_members_then_the_offline_index_lists_their_parties_longest_offline_first,
        ]);
    };
}
