//! The Friends table's contract, one test per scenario:
//! `contracts::friend_store_contract_tests!(factory)` expands to one `#[tokio::test]` per
//! scenario below, each on a fresh store from `factory`. Changes are made as the routes
//! make them: both sides read, the change computed by `shared::friends`, committed.

use futures_util::future::join_all;
use shared::domain::PlayerId;
use shared::friends::{
    Action, FriendCommit, FriendCommitted, FriendState, MAX_FRIENDS, Pair, Relation, RelationQuery,
    SideWrite,
};

use crate::FriendsTable;
use crate::fixtures::{T0, player};
use shared::ports::{FriendCommits, FriendReader};

/// Reads both sides of `me` and `them`, applies `action` by `me` and commits it at `at`:
/// what the store answered.
pub async fn act(
    store: &impl FriendsTable,
    me: &str,
    them: &str,
    action: Action,
    at: i64,
) -> FriendCommitted {
    act_on(store, store, me, them, action, at).await
}

/// [`act`] on the Friends ports as a function is wired with them (the local stack's).
pub async fn act_on(
    reader: &(impl FriendReader + ?Sized),
    commits: &(impl FriendCommits + ?Sized),
    me: &str,
    them: &str,
    action: Action,
    at: i64,
) -> FriendCommitted {
    let (me, them) = (player(me), player(them));
    let (mine, theirs) = reader.pair(&me, &them).await.expect("pair");
    let pair = Pair {
        me,
        them,
        mine: mine.map(|r| r.state),
        theirs: theirs.map(|r| r.state),
    };
    let change = pair.apply(action).expect("a change");
    if change.is_empty() {
        return FriendCommitted::Done;
    }
    commits
        .commit(&change.commit(at, 60))
        .await
        .expect("commit")
}

/// [`act`], which must be committed.
pub async fn done(store: &impl FriendsTable, me: &str, them: &str, action: Action, at: i64) {
    assert_eq!(
        act(store, me, them, action, at).await,
        FriendCommitted::Done,
        "{me} {action:?} {them}"
    );
}

/// `player`'s view of `other`.
pub async fn state(store: &impl FriendsTable, player_id: &str, other: &str) -> Option<FriendState> {
    store
        .relation(&player(player_id), &player(other))
        .await
        .expect("relation")
        .map(|r| r.state)
}

/// `a` and `b` made friends (an invitation, then one back).
pub async fn befriend(store: &impl FriendsTable, a: &str, b: &str) {
    done(store, a, b, Action::Add, T0).await;
    done(store, b, a, Action::Add, T0 + 1).await;
}

fn ids(names: &[&str]) -> Vec<PlayerId> {
    names.iter().map(|name| player(name)).collect()
}

pub async fn given_no_relation_when_read_then_nothing_is_there(store: &impl FriendsTable) {
    assert_eq!(state(store, "alice", "bob").await, None);
    assert_eq!(
        store.pair(&player("alice"), &player("bob")).await.unwrap(),
        (None, None)
    );
    let page = store
        .page(RelationQuery {
            player: &player("alice"),
            state: None,
            after: None,
            limit: 10,
        })
        .await
        .unwrap();
    assert!(page.relations.is_empty() && page.next.is_none());
    assert!(store.friends(&player("alice")).await.unwrap().is_empty());
}

pub async fn given_an_invitation_then_each_side_reads_its_own_state_and_since(
    store: &impl FriendsTable,
) {
    done(store, "alice", "bob", Action::Add, T0).await;
    let (mine, theirs) = store.pair(&player("alice"), &player("bob")).await.unwrap();
    assert_eq!(
        mine,
        Some(Relation {
            player: player("alice"),
            other: player("bob"),
            state: FriendState::Invited,
            since: T0,
        })
    );
    assert_eq!(
        theirs.map(|r| (r.state, r.since)),
        Some((FriendState::Invitation, T0))
    );
    done(store, "bob", "alice", Action::Add, T0 + 5).await;
    assert_eq!(
        store
            .relation(&player("bob"), &player("alice"))
            .await
            .unwrap()
            .map(|r| (r.state, r.since)),
        Some((FriendState::Friends, T0 + 5))
    );
    assert_eq!(
        store.friends(&player("alice")).await.unwrap(),
        ids(&["bob"])
    );
    assert_eq!(
        store.friends(&player("bob")).await.unwrap(),
        ids(&["alice"])
    );
}

pub async fn given_a_side_that_moved_when_committing_then_nothing_is_written(
    store: &impl FriendsTable,
) {
    // Computed from "strangers", but bob invited alice meanwhile.
    let stale = Pair {
        me: player("alice"),
        them: player("bob"),
        mine: None,
        theirs: None,
    }
    .apply(Action::Add)
    .unwrap();
    done(store, "bob", "alice", Action::Add, T0).await;
    let committed = store.commit(&stale.commit(T0 + 1, 60)).await.unwrap();
    assert_eq!(committed, FriendCommitted::Moved);
    assert_eq!(
        state(store, "alice", "bob").await,
        Some(FriendState::Invitation)
    );
    assert_eq!(
        state(store, "bob", "alice").await,
        Some(FriendState::Invited)
    );
    // A check-only write of a side that is not as expected fails the commit too.
    let check = SideWrite {
        player: player("bob"),
        other: player("alice"),
        expected: None,
        after: None,
    };
    let committed = store
        .commit(&FriendCommit {
            writes: vec![check],
            pushes: vec![],
            at: T0 + 2,
        })
        .await
        .unwrap();
    assert_eq!(committed, FriendCommitted::Moved);
}

pub async fn given_removals_and_blocks_then_the_sides_are_deleted_or_kept_as_designed(
    store: &impl FriendsTable,
) {
    befriend(store, "alice", "bob").await;
    done(store, "alice", "bob", Action::Block, T0 + 2).await;
    assert_eq!(
        state(store, "alice", "bob").await,
        Some(FriendState::Blocked)
    );
    assert_eq!(state(store, "bob", "alice").await, None);
    assert!(store.friends(&player("bob")).await.unwrap().is_empty());
    // bob, blocked, invites: only his side says so.
    done(store, "bob", "alice", Action::Add, T0 + 3).await;
    assert_eq!(
        state(store, "bob", "alice").await,
        Some(FriendState::Invited)
    );
    assert_eq!(
        state(store, "alice", "bob").await,
        Some(FriendState::Blocked)
    );
    // Unblocking delivers it; declining removes both sides.
    done(store, "alice", "bob", Action::Unblock, T0 + 4).await;
    assert_eq!(
        state(store, "alice", "bob").await,
        Some(FriendState::Invitation)
    );
    done(store, "alice", "bob", Action::Remove, T0 + 5).await;
    assert_eq!(
        store.pair(&player("alice"), &player("bob")).await.unwrap(),
        (None, None)
    );
}

pub async fn given_relations_when_paged_then_each_comes_once_by_id_and_the_filter_holds(
    store: &impl FriendsTable,
) {
    for other in ["b1", "b2", "b3", "b4", "b5"] {
        befriend(store, "alice", other).await;
    }
    for other in ["c1", "c2"] {
        done(store, "alice", other, Action::Add, T0).await;
    }
    done(store, "d1", "alice", Action::Add, T0).await;
    done(store, "alice", "e1", Action::Block, T0).await;
    // Someone else's relations are not alice's.
    befriend(store, "zed", "b1").await;

    let mut seen = vec![];
    let mut after: Option<PlayerId> = None;
    loop {
        let page = store
            .page(RelationQuery {
                player: &player("alice"),
                state: None,
                after: after.as_ref(),
                limit: 3,
            })
            .await
            .unwrap();
        assert!(page.relations.len() <= 3);
        seen.extend(
            page.relations
                .iter()
                .map(|r| (r.other.to_string(), r.state)),
        );
        match page.next {
            Some(next) => after = Some(next),
            None => break,
        }
    }
    let others: Vec<&str> = seen.iter().map(|(o, _)| o.as_str()).collect();
    assert_eq!(
        others,
        ["b1", "b2", "b3", "b4", "b5", "c1", "c2", "d1", "e1"]
    );
    assert_eq!(seen[5].1, FriendState::Invited);
    assert_eq!(seen[7].1, FriendState::Invitation);
    assert_eq!(seen[8].1, FriendState::Blocked);

    let mut invited = vec![];
    let mut after: Option<PlayerId> = None;
    loop {
        let page = store
            .page(RelationQuery {
                player: &player("alice"),
                state: Some(FriendState::Invited),
                after: after.as_ref(),
                limit: 3,
            })
            .await
            .unwrap();
        assert!(
            page.relations
                .iter()
                .all(|r| r.state == FriendState::Invited)
        );
        invited.extend(page.relations.into_iter().map(|r| r.other.to_string()));
        match page.next {
            Some(next) => after = Some(next),
            None => break,
        }
    }
    assert_eq!(invited, ["c1", "c2"]);
    let mut friends = store.friends(&player("alice")).await.unwrap();
    friends.sort();
    assert_eq!(friends, ids(&["b1", "b2", "b3", "b4", "b5"]));
}

pub async fn given_blocks_then_blockers_names_only_recipients_who_blocked_the_sender(
    store: &impl FriendsTable,
) {
    done(store, "bob", "mallory", Action::Block, T0).await;
    done(store, "carol", "mallory", Action::Block, T0).await;
    done(store, "dave", "eve", Action::Block, T0).await;
    befriend(store, "erin", "mallory").await;
    let mut recipients = ids(&["bob", "carol", "dave", "erin", "nobody"]);
    recipients.extend((0..150).map(|i| player(&format!("p{i:03}"))));
    let mut blockers = store
        .blockers(&player("mallory"), &recipients)
        .await
        .unwrap();
    blockers.sort();
    assert_eq!(blockers, ids(&["bob", "carol"]));
    assert!(
        store
            .blockers(&player("bob"), &ids(&["mallory"]))
            .await
            .unwrap()
            .is_empty()
    );
    assert!(
        store
            .blockers(&player("mallory"), &[])
            .await
            .unwrap()
            .is_empty()
    );
}

pub async fn given_max_friends_then_one_more_is_full_on_that_side_until_one_is_removed(
    store: &impl FriendsTable,
) {
    let others: Vec<String> = (0..MAX_FRIENDS).map(|i| format!("f{i:04}")).collect();
    // A few at once: each writes alice's count and inbox, so more would only contend.
    for chunk in others.chunks(4) {
        join_all(chunk.iter().map(|other| befriend(store, "alice", other))).await;
    }
    assert_eq!(store.friends(&player("alice")).await.unwrap().len(), 500);
    done(store, "bob", "alice", Action::Add, T0).await;
    // alice accepting would be her 501st friend: refused, nothing written.
    assert_eq!(
        act(store, "alice", "bob", Action::Add, T0 + 2).await,
        FriendCommitted::Full(player("alice"))
    );
    assert_eq!(
        state(store, "alice", "bob").await,
        Some(FriendState::Invitation)
    );
    done(store, "alice", "f0000", Action::Remove, T0 + 3).await;
    done(store, "alice", "bob", Action::Add, T0 + 4).await;
    assert_eq!(
        state(store, "bob", "alice").await,
        Some(FriendState::Friends)
    );
    // Blocking a friend frees a place too.
    done(store, "alice", "f0001", Action::Block, T0 + 5).await;
    done(store, "carol", "alice", Action::Add, T0 + 6).await;
    done(store, "alice", "carol", Action::Add, T0 + 7).await;
    assert_eq!(store.friends(&player("alice")).await.unwrap().len(), 500);
}

/// Expands to one `#[tokio::test]` per scenario, each on `$factory().await`.
#[macro_export]
macro_rules! friend_store_contract_tests {
    ($factory:expr) => {
        $crate::contract_scenarios!(
            friend_store_contract,
            $factory,
            [
                given_no_relation_when_read_then_nothing_is_there,
                given_an_invitation_then_each_side_reads_its_own_state_and_since,
                given_a_side_that_moved_when_committing_then_nothing_is_written,
                given_removals_and_blocks_then_the_sides_are_deleted_or_kept_as_designed,
                given_relations_when_paged_then_each_comes_once_by_id_and_the_filter_holds,
                given_blocks_then_blockers_names_only_recipients_who_blocked_the_sender,
                given_max_friends_then_one_more_is_full_on_that_side_until_one_is_removed,
            ]
        );
    };
}
