//! The `RateLimiter` contract, one test per scenario:
//! `contracts::rate_limiter_contract_tests!(factory)` expands to one `#[tokio::test]` per
//! scenario below, each on a fresh store from `factory` (a store that is both the
//! `PlayerStore` holding the players' items and their `RateLimiter`).

use crate::PlayersTable;
use crate::fixtures::{T0, new_connection, player};
use shared::domain::EpochMillis;
use shared::ports::RateLimiter;
use shared::rate_limits::{Bucket, Exceeded, Quota, Spent, WINDOW_MS};

/// A window start: T0 is a whole minute.
const W: EpochMillis = T0;

const FIVE_CALLS: Quota = Quota { calls: 5, units: 0 };

async fn connected(store: &impl PlayersTable, name: &str) {
    store
        .connect(&new_connection(name, &format!("c-{name}"), T0 - 1_000))
        .await
        .expect("connect");
}

async fn spend(
    store: &impl RateLimiter,
    name: &str,
    bucket: Bucket,
    quota: Quota,
    units: u32,
    now: EpochMillis,
) -> Spent {
    store
        .spend(&player(name), bucket, quota, units, now)
        .await
        .expect("spend")
}

fn allowed_count(outcomes: &[Spent]) -> usize {
    outcomes.iter().filter(|s| **s == Spent::Allowed).count()
}

pub async fn calls_within_the_limit_pass_and_the_next_is_told_when_the_window_ends(
    store: &impl PlayersTable,
) {
    connected(store, "alice").await;
    for i in 0..5 {
        let outcome = spend(store, "alice", Bucket::SendMessage, FIVE_CALLS, 1, W + i).await;
        assert_eq!(outcome, Spent::Allowed, "call {i}");
    }
    let refused = spend(
        store,
        "alice",
        Bucket::SendMessage,
        FIVE_CALLS,
        1,
        W + 20_000,
    )
    .await;
    assert_eq!(
        refused,
        Spent::Limited {
            exceeded: Exceeded::Calls { limit: 5 },
            retry_after_ms: 40_000
        }
    );
}

pub async fn a_call_that_would_cross_the_unit_limit_is_refused_and_counts_nothing(
    store: &impl PlayersTable,
) {
    connected(store, "alice").await;
    let quota = Quota {
        calls: 0,
        units: 150,
    };
    assert_eq!(
        spend(store, "alice", Bucket::SendMessage, quota, 100, W).await,
        Spent::Allowed
    );
    assert_eq!(
        spend(store, "alice", Bucket::SendMessage, quota, 100, W + 1).await,
        Spent::Limited {
            exceeded: Exceeded::Units { limit: 150 },
            retry_after_ms: WINDOW_MS - 1
        }
    );
    // The refused 100 were not counted: 50 still fit, and then nothing.
    assert_eq!(
        spend(store, "alice", Bucket::SendMessage, quota, 50, W + 2).await,
        Spent::Allowed
    );
    assert!(matches!(
        spend(store, "alice", Bucket::SendMessage, quota, 1, W + 3).await,
        Spent::Limited { .. }
    ));
}

pub async fn a_new_window_starts_from_zero(store: &impl PlayersTable) {
    connected(store, "alice").await;
    for i in 0..5 {
        spend(store, "alice", Bucket::SendMessage, FIVE_CALLS, 1, W + i).await;
    }
    assert!(matches!(
        spend(
            store,
            "alice",
            Bucket::SendMessage,
            FIVE_CALLS,
            1,
            W + WINDOW_MS - 1
        )
        .await,
        Spent::Limited { .. }
    ));
    let next: Vec<Spent> = futures_util::future::join_all((0..5).map(|i| {
        spend(
            store,
            "alice",
            Bucket::SendMessage,
            FIVE_CALLS,
            1,
            W + WINDOW_MS + i,
        )
    }))
    .await;
    assert_eq!(allowed_count(&next), 5, "{next:?}");
}

pub async fn limits_are_per_player_and_per_bucket(store: &impl PlayersTable) {
    connected(store, "alice").await;
    connected(store, "bob").await;
    let one = Quota { calls: 1, units: 0 };
    assert_eq!(
        spend(store, "alice", Bucket::SendMessage, one, 1, W).await,
        Spent::Allowed
    );
    assert!(matches!(
        spend(store, "alice", Bucket::SendMessage, one, 1, W + 1).await,
        Spent::Limited { .. }
    ));
    assert_eq!(
        spend(store, "bob", Bucket::SendMessage, one, 1, W + 2).await,
        Spent::Allowed,
        "bob is unaffected"
    );
    assert_eq!(
        spend(store, "alice", Bucket::Placement, one, 0, W + 3).await,
        Spent::Allowed,
        "another bucket is unaffected"
    );
}

pub async fn concurrent_calls_never_pass_more_than_the_limit(store: &impl PlayersTable) {
    connected(store, "alice").await;
    let outcomes: Vec<Spent> = futures_util::future::join_all(
        (0..20).map(|i| spend(store, "alice", Bucket::SendMessage, FIVE_CALLS, 1, W + i)),
    )
    .await;
    assert_eq!(allowed_count(&outcomes), 5, "{outcomes:?}");
}

pub async fn with_the_quota_off_everything_passes(store: &impl PlayersTable) {
    connected(store, "alice").await;
    let off = Quota { calls: 0, units: 0 };
    for i in 0..50 {
        assert_eq!(
            spend(store, "alice", Bucket::SendMessage, off, 100, W + i).await,
            Spent::Allowed
        );
    }
}

pub async fn a_player_without_an_item_is_allowed_and_no_item_is_created(store: &impl PlayersTable) {
    assert_eq!(
        spend(store, "ghost", Bucket::SendMessage, FIVE_CALLS, 1, W).await,
        Spent::Allowed
    );
    assert!(
        store.get(&player("ghost")).await.expect("get").is_none(),
        "no partial player item"
    );
}

pub async fn spending_leaves_the_players_record_as_it_was(store: &impl PlayersTable) {
    connected(store, "alice").await;
    let before = store.get(&player("alice")).await.expect("get");
    spend(store, "alice", Bucket::SendMessage, FIVE_CALLS, 3, W).await;
    let after = store.get(&player("alice")).await.expect("get");
    assert_eq!(before, after);
}

#[macro_export]
macro_rules! rate_limiter_contract_tests {
    ($factory:expr) => {
        $crate::contract_scenarios!(
            rate_limiter_contract,
            $factory,
            [
                calls_within_the_limit_pass_and_the_next_is_told_when_the_window_ends,
                a_call_that_would_cross_the_unit_limit_is_refused_and_counts_nothing,
                a_new_window_starts_from_zero,
                limits_are_per_player_and_per_bucket,
                concurrent_calls_never_pass_more_than_the_limit,
                with_the_quota_off_everything_passes,
                a_player_without_an_item_is_allowed_and_no_item_is_created,
                spending_leaves_the_players_record_as_it_was,
            ]
        );
    };
}
