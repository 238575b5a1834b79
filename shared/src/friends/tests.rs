use super::*;

fn p(name: &str) -> PlayerId {
    PlayerId::parse(name).unwrap()
}

fn pair(mine: Option<FriendState>, theirs: Option<FriendState>) -> Pair {
    Pair {
        me: p("alice"),
        them: p("bob"),
        mine,
        theirs,
    }
}

/// The writes as (player, expected, after), and the pushes as (recipient, update).
#[allow(clippy::type_complexity)]
fn summary(
    change: &Change,
) -> (
    Vec<(&str, Option<FriendState>, Option<FriendState>)>,
    Vec<(&str, FriendUpdate)>,
) {
    (
        change
            .writes
            .iter()
            .map(|w| (w.player.as_str(), w.expected, w.after))
            .collect(),
        change
            .pushes
            .iter()
            .map(|push| (push.recipient.as_str(), push.update))
            .collect(),
    )
}

#[test]
fn given_strangers_when_one_adds_the_other_then_invited_and_invitation_both_pushed() {
    let change = pair(None, None).apply(Action::Add).unwrap();
    assert_eq!(change.after, Some(Invited));
    assert_eq!(
        summary(&change),
        (
            vec![
                ("alice", None, Some(Invited)),
                ("bob", None, Some(Invitation))
            ],
            vec![
                ("alice", FriendUpdate::Invited),
                ("bob", FriendUpdate::Invitation)
            ]
        )
    );
}

#[test]
fn given_an_invitation_when_added_back_then_both_are_friends_and_told() {
    let change = pair(Some(Invitation), Some(Invited))
        .apply(Action::Add)
        .unwrap();
    assert_eq!(change.after, Some(Friends));
    assert_eq!(
        summary(&change),
        (
            vec![
                ("alice", Some(Invitation), Some(Friends)),
                ("bob", Some(Invited), Some(Friends))
            ],
            vec![
                ("alice", FriendUpdate::Friends),
                ("bob", FriendUpdate::Friends)
            ]
        )
    );
    assert!(change.writes.iter().all(|w| w.friends_delta() == 1));
}

#[test]
fn given_a_block_by_them_when_adding_then_only_my_side_says_invited_as_if_not_blocked() {
    let blocked = pair(None, Some(Blocked)).apply(Action::Add).unwrap();
    let free = pair(None, None).apply(Action::Add).unwrap();
    assert_eq!(blocked.after, free.after);
    assert_eq!(
        summary(&blocked),
        (
            vec![("alice", None, Some(Invited))],
            vec![("alice", FriendUpdate::Invited)]
        )
    );
}

#[test]
fn given_my_block_when_adding_then_refused() {
    assert_eq!(
        pair(Some(Blocked), None).apply(Action::Add),
        Err(FriendRefusal::YouBlocked(p("bob")))
    );
}

#[test]
fn given_myself_when_acting_then_refused() {
    let me = Pair {
        me: p("alice"),
        them: p("alice"),
        mine: None,
        theirs: None,
    };
    for action in [Action::Add, Action::Remove, Action::Block, Action::Unblock] {
        assert_eq!(me.apply(action), Err(FriendRefusal::Yourself));
    }
}

#[test]
fn given_a_pending_invitation_or_a_friendship_when_added_again_then_nothing_changes() {
    for (mine, theirs) in [
        (Invited, Invitation),
        (Invited, Blocked),
        (Friends, Friends),
    ] {
        let change = pair(Some(mine), Some(theirs)).apply(Action::Add).unwrap();
        assert!(change.is_empty() && change.pushes.is_empty());
        assert_eq!(change.after, Some(mine));
    }
}

#[test]
fn given_a_change_when_committed_then_its_pushes_are_friend_messages_at_that_time() {
    let change = pair(None, None).apply(Action::Add).unwrap();
    let commit = change.commit(5_000, 60);
    assert_eq!(commit.at, 5_000);
    assert_eq!(commit.writes, change.writes);
    let recipients: Vec<&str> = commit
        .pushes
        .iter()
        .map(|m| m.recipient_id.as_str())
        .collect();
    assert_eq!(recipients, ["alice", "bob"]);
    assert!(commit.pushes.iter().all(|m| m.created_at == 5_000));
}

#[test]
fn given_friends_when_removed_then_both_sides_go_and_both_are_told_removed() {
    let change = pair(Some(Friends), Some(Friends))
        .apply(Action::Remove)
        .unwrap();
    assert_eq!(change.after, None);
    assert_eq!(
        summary(&change),
        (
            vec![("alice", Some(Friends), None), ("bob", Some(Friends), None)],
            vec![
                ("alice", FriendUpdate::Removed),
                ("bob", FriendUpdate::Removed)
            ]
        )
    );
    assert!(change.writes.iter().all(|w| w.friends_delta() == -1));
}

#[test]
fn given_nothing_or_my_block_when_removed_then_nothing_changes() {
    for mine in [None, Some(Blocked)] {
        let change = pair(mine, None).apply(Action::Remove).unwrap();
        assert!(change.writes.is_empty() && change.pushes.is_empty());
        assert_eq!(change.after, mine);
    }
}

#[test]
fn given_my_invitation_to_someone_who_blocked_me_when_withdrawn_then_only_my_side_goes() {
    let change = pair(Some(Invited), Some(Blocked))
        .apply(Action::Remove)
        .unwrap();
    assert_eq!(
        summary(&change),
        (
            vec![("alice", Some(Invited), None)],
            vec![("alice", FriendUpdate::Removed)]
        )
    );
}

#[test]
fn given_friends_when_blocked_then_the_blocked_side_sees_removed_as_for_an_unfriend() {
    let block = pair(Some(Friends), Some(Friends))
        .apply(Action::Block)
        .unwrap();
    let unfriend = pair(Some(Friends), Some(Friends))
        .apply(Action::Remove)
        .unwrap();
    assert_eq!(block.after, Some(Blocked));
    let to_bob = |c: &Change| -> Vec<Push> {
        c.pushes
            .iter()
            .filter(|push| push.recipient == p("bob"))
            .cloned()
            .collect()
    };
    assert_eq!(to_bob(&block), to_bob(&unfriend));
    assert_eq!(
        summary(&block).0,
        vec![
            ("alice", Some(Friends), Some(Blocked)),
            ("bob", Some(Friends), None)
        ]
    );
}

#[test]
fn given_a_block_of_someone_who_blocked_me_then_their_block_stays() {
    let change = pair(None, Some(Blocked)).apply(Action::Block).unwrap();
    assert_eq!(
        summary(&change),
        (vec![("alice", None, Some(Blocked))], vec![])
    );
}

#[test]
fn given_an_invitation_sent_while_blocked_when_unblocked_then_it_reaches_me() {
    let change = pair(Some(Blocked), Some(Invited))
        .apply(Action::Unblock)
        .unwrap();
    assert_eq!(change.after, Some(Invitation));
    assert_eq!(
        summary(&change),
        (
            vec![("alice", Some(Blocked), Some(Invitation))],
            vec![("alice", FriendUpdate::Invitation)]
        )
    );
    let plain = pair(Some(Blocked), None).apply(Action::Unblock).unwrap();
    assert_eq!(plain.after, None);
    assert_eq!(
        summary(&plain),
        (vec![("alice", Some(Blocked), None)], vec![])
    );
    let not_blocked = pair(Some(Friends), Some(Friends))
        .apply(Action::Unblock)
        .unwrap();
    assert!(not_blocked.writes.is_empty());
    assert_eq!(not_blocked.after, Some(Friends));
}

#[test]
fn given_a_push_when_made_into_a_message_then_it_is_a_friend_frame_with_a_stable_id() {
    let push = Push {
        recipient: p("bob"),
        about: p("alice"),
        update: FriendUpdate::Invitation,
    };
    let message = friend_push(&push, 1_000, 60);
    assert_eq!(message.recipient_id, p("bob"));
    assert_eq!(message.kind, MessageKind::Friend);
    assert_eq!(
        message.payload,
        r#"{"type":"friend","playerId":"alice","state":"invitation"}"#
    );
    assert_eq!(friend_push(&push, 1_000, 60).message_id, message.message_id);
    assert_ne!(friend_push(&push, 1_001, 60).message_id, message.message_id);
}

#[test]
fn given_any_relation_but_a_block_when_befriended_then_both_sides_are_friends_and_told() {
    for (mine, theirs) in [
        (None, None),
        (Some(Invited), Some(Invitation)),
        (Some(Invitation), Some(Invited)),
    ] {
        let change = pair(mine, theirs).apply(Action::Befriend).unwrap();
        assert_eq!(change.after, Some(Friends));
        assert_eq!(
            summary(&change),
            (
                vec![
                    ("alice", mine, Some(Friends)),
                    ("bob", theirs, Some(Friends))
                ],
                vec![
                    ("alice", FriendUpdate::Friends),
                    ("bob", FriendUpdate::Friends)
                ]
            ),
            "{mine:?} {theirs:?}"
        );
    }
    assert!(
        pair(Some(Friends), Some(Friends))
            .apply(Action::Befriend)
            .unwrap()
            .is_empty()
    );
}

#[test]
fn given_a_block_either_way_when_befriended_then_refused_naming_who_blocked_whom() {
    assert_eq!(
        pair(Some(Blocked), None).apply(Action::Befriend),
        Err(FriendRefusal::Blocked(p("alice"), p("bob")))
    );
    let refusal = pair(Some(Invited), Some(Blocked))
        .apply(Action::Befriend)
        .unwrap_err();
    assert_eq!(refusal, FriendRefusal::Blocked(p("bob"), p("alice")));
    assert_eq!(refusal.code(), ErrorCode::Conflict);
}
