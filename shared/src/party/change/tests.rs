use super::*;

fn player(name: &str) -> PlayerId {
    PlayerId::parse(name).unwrap()
}

fn party_id() -> PartyId {
    PartyId::parse("party-1").unwrap()
}

fn invitation(to: &str, expires_at: EpochMillis) -> Invitation {
    Invitation {
        party_id: party_id(),
        invitee: player(to),
        from: player("alice"),
        expires_at,
    }
}

/// alice (leader, joined at 10), bob (20), carol (30); room for `max_size`.
fn trio(max_size: u32) -> Party {
    let mut party = Party::create(party_id(), &player("alice"), max_size, 10).after;
    for (name, at) in [("bob", 20), ("carol", 30)] {
        party = party
            .join(&player(name), Some(&invitation(name, 1_000)), at)
            .unwrap()
            .after;
    }
    party
}

fn names(party: &Party) -> Vec<&str> {
    party.member_ids().map(PlayerId::as_str).collect()
}

#[test]
fn given_a_creator_when_a_party_is_created_then_they_lead_it_alone_at_version_1() {
    let change = Party::create(party_id(), &player("alice"), 4, 10);
    assert_eq!(change.kind, ChangeKind::Created);
    assert_eq!(change.from_version, None);
    assert_eq!(change.after.version, 1);
    assert_eq!(change.after.leader_id, player("alice"));
    assert_eq!(names(&change.after), ["alice"]);
    assert_eq!(change.recipients, [player("alice")]);
}

#[test]
fn given_a_live_invitation_when_joining_then_the_member_is_added_and_everyone_is_told() {
    let party = Party::create(party_id(), &player("alice"), 4, 10).after;
    let change = party
        .join(&player("bob"), Some(&invitation("bob", 100)), 50)
        .unwrap();
    assert_eq!(change.kind, ChangeKind::Joined);
    assert_eq!(change.subject, player("bob"));
    assert_eq!(change.from_version, Some(1));
    assert_eq!(change.after.version, 2);
    assert_eq!(names(&change.after), ["alice", "bob"]);
    assert_eq!(change.recipients, [player("alice"), player("bob")]);
}

#[test]
fn given_no_live_invitation_when_joining_then_not_found() {
    let party = Party::create(party_id(), &player("alice"), 4, 10).after;
    for invitation in [
        None,
        Some(invitation("bob", 50)),    // expired at 50
        Some(invitation("carol", 100)), // someone else's
    ] {
        let refused = party
            .join(&player("bob"), invitation.as_ref(), 50)
            .unwrap_err();
        assert_eq!(refused, PartyRefusal::NoInvitation(party_id()));
        assert_eq!(refused.code(), ErrorCode::NotFound);
    }
}

#[test]
fn given_a_full_party_when_joining_or_inviting_then_conflict() {
    let party = trio(3);
    let refused = party
        .join(&player("dave"), Some(&invitation("dave", 1_000)), 40)
        .unwrap_err();
    assert_eq!(refused, PartyRefusal::Full { max_size: 3 });
    assert_eq!(refused.code(), ErrorCode::Conflict);
    assert_eq!(
        party.check_invite(&player("bob"), &player("dave"), false),
        Err(PartyRefusal::Full { max_size: 3 })
    );
}

#[test]
fn given_invitations_then_members_invite_non_members_and_leader_only_is_a_setting() {
    let party = trio(8);
    assert_eq!(
        party.check_invite(&player("bob"), &player("dave"), false),
        Ok(())
    );
    assert_eq!(
        party.check_invite(&player("bob"), &player("dave"), true),
        Err(PartyRefusal::NotLeader {
            leader: player("alice")
        })
    );
    assert_eq!(
        party.check_invite(&player("alice"), &player("bob"), false),
        Err(PartyRefusal::AlreadyMember(player("bob")))
    );
    assert_eq!(
        party.check_invite(&player("alice"), &player("alice"), false),
        Err(PartyRefusal::InviteYourself)
    );
    assert_eq!(
        party.check_invite(&player("eve"), &player("dave"), false),
        Err(PartyRefusal::NotInParty)
    );
}

#[test]
fn given_the_leader_leaves_then_the_longest_standing_member_leads() {
    let change = trio(8).leave(&player("alice")).unwrap();
    assert_eq!(change.kind, ChangeKind::Left);
    assert_eq!(change.after.leader_id, player("bob"));
    assert_eq!(names(&change.after), ["bob", "carol"]);
    assert_eq!(
        change.recipients,
        [player("alice"), player("bob"), player("carol")],
        "the one who left is told too"
    );
}

#[test]
fn given_the_last_member_leaves_then_the_party_is_disbanded() {
    let party = Party::create(party_id(), &player("alice"), 4, 10).after;
    let change = party.leave(&player("alice")).unwrap();
    assert_eq!(change.kind, ChangeKind::Disbanded);
    assert!(change.disbands());
    assert_eq!(change.after.version, 2);
    assert_eq!(change.recipients, [player("alice")]);
}

#[test]
fn given_a_non_leader_when_kicking_or_promoting_then_forbidden() {
    let party = trio(8);
    for refused in [
        party.kick(&player("bob"), &player("carol")).unwrap_err(),
        party.promote(&player("bob"), &player("carol")).unwrap_err(),
    ] {
        assert_eq!(
            refused,
            PartyRefusal::NotLeader {
                leader: player("alice")
            }
        );
        assert_eq!(refused.code(), ErrorCode::Forbidden);
    }
}

#[test]
fn given_the_leader_when_kicking_then_the_member_is_removed_and_told() {
    let party = trio(8);
    let change = party.kick(&player("alice"), &player("bob")).unwrap();
    assert_eq!(change.kind, ChangeKind::Kicked);
    assert_eq!(change.subject, player("bob"));
    assert_eq!(names(&change.after), ["alice", "carol"]);
    assert!(change.recipients.contains(&player("bob")));
    assert_eq!(
        party.kick(&player("alice"), &player("dave")),
        Err(PartyRefusal::NotMember(player("dave")))
    );
    assert_eq!(
        party.kick(&player("alice"), &player("alice")),
        Err(PartyRefusal::KickYourself)
    );
}

#[test]
fn given_the_leader_when_promoting_then_the_member_leads() {
    let party = trio(8);
    let change = party.promote(&player("alice"), &player("carol")).unwrap();
    assert_eq!(change.kind, ChangeKind::Promoted);
    assert_eq!(change.after.leader_id, player("carol"));
    assert_eq!(change.after.version, party.version + 1);
    assert_eq!(
        party.promote(&player("alice"), &player("alice")),
        Err(PartyRefusal::AlreadyLeader(player("alice")))
    );
    assert_eq!(
        party.promote(&player("alice"), &player("dave")),
        Err(PartyRefusal::NotMember(player("dave")))
    );
}

#[test]
fn given_a_presence_change_then_only_a_real_change_makes_a_version() {
    let party = trio(8);
    assert_eq!(
        party.set_presence(&player("bob"), MemberPresence::Online),
        None
    );
    let offline = party
        .set_presence(&player("bob"), MemberPresence::Offline { since: 500 })
        .unwrap();
    assert_eq!(offline.kind, ChangeKind::Presence);
    assert_eq!(offline.after.offline_since(), Some(500));
    assert_eq!(
        offline
            .after
            .set_presence(&player("bob"), MemberPresence::Offline { since: 900 }),
        None,
        "offline stays offline since the first time"
    );
    let back = offline
        .after
        .set_presence(&player("bob"), MemberPresence::Online)
        .unwrap();
    assert_eq!(back.after.offline_since(), None);
    assert_eq!(back.after.version, party.version + 2);
    assert_eq!(
        party.set_presence(&player("dave"), MemberPresence::Online),
        None
    );
}

#[test]
fn given_offline_members_then_the_longest_offline_past_the_limit_goes_first() {
    let party = trio(8)
        .set_presence(&player("carol"), MemberPresence::Offline { since: 100 })
        .unwrap()
        .after
        .set_presence(&player("bob"), MemberPresence::Offline { since: 200 })
        .unwrap()
        .after;
    assert_eq!(party.longest_offline_past(150, 120), None);
    assert_eq!(party.longest_offline_past(220, 120), Some(&player("carol")));
    assert_eq!(party.longest_offline_past(400, 120), Some(&player("carol")));
}

#[test]
fn given_a_member_joining_at_an_earlier_clock_then_they_still_stand_last() {
    let party = Party::create(party_id(), &player("alice"), 4, 100).after;
    let change = party
        .join(&player("bob"), Some(&invitation("bob", 1_000)), 50)
        .unwrap();
    assert_eq!(names(&change.after), ["alice", "bob"]);
    let change = change.after.leave(&player("alice")).unwrap();
    assert_eq!(change.after.leader_id, player("bob"));
}
