//! The `SubscriptionStore` contract, one test per scenario:
//! `contracts::subscription_store_contract_tests!(factory)` expands to one `#[tokio::test]` per
//! scenario below, each on a fresh store from `factory`.

use crate::SubscriptionsTable;
use shared::domain::{EpochMillis, PlayerId};

use crate::fixtures::T0;
/// `expireAt` of the subscriptions the scenarios make: two hours after T0.
const EXPIRE: i64 = T0 / 1000 + 7200;

fn player(name: &str) -> PlayerId {
    PlayerId::parse(name).expect("valid test player id")
}

fn players(names: &[&str]) -> Vec<PlayerId> {
    names.iter().map(|name| player(name)).collect()
}

/// `watcher` subscribed to `targets` until `expire_at_secs`.
async fn subscribe(
    store: &impl SubscriptionsTable,
    watcher: &str,
    targets: &[&str],
    expire_at_secs: i64,
) {
    store
        .subscribe(&player(watcher), &players(targets), expire_at_secs)
        .await
        .expect("subscribe");
}

/// `watcher` unsubscribed from `targets`.
async fn unsubscribe(store: &impl SubscriptionsTable, watcher: &str, targets: &[&str]) {
    store
        .unsubscribe(&player(watcher), &players(targets))
        .await
        .expect("unsubscribe");
}

/// Whether `target` has no watcher at `now`.
async fn unwatched(store: &impl SubscriptionsTable, target: &str, now: EpochMillis) -> bool {
    watchers_of(store, target, now).await.is_empty()
}

/// Watchers sorted by id, as text (the port returns them in no particular order).
pub async fn watchers_of(
    store: &impl SubscriptionsTable,
    target: &str,
    now: EpochMillis,
) -> Vec<String> {
    let mut watchers: Vec<String> = store
        .watchers(&player(target), now)
        .await
        .expect("watchers")
        .iter()
        .map(ToString::to_string)
        .collect();
    watchers.sort();
    watchers
}

pub async fn given_subscriptions_when_listing_watchers_then_only_the_targets_own_watchers(
    store: &impl SubscriptionsTable,
) {
    subscribe(store, "bob", &["alice", "carol"], EXPIRE).await;
    subscribe(store, "dave", &["alice"], EXPIRE).await;
    assert_eq!(watchers_of(store, "alice", T0).await, vec!["bob", "dave"]);
    assert_eq!(watchers_of(store, "carol", T0).await, vec!["bob"]);
    assert!(unwatched(store, "bob", T0).await);
    assert!(unwatched(store, "nobody", T0).await);
}

pub async fn given_a_repeated_subscription_then_it_is_listed_once_until_the_later_expiry(
    store: &impl SubscriptionsTable,
) {
    subscribe(store, "bob", &["alice"], EXPIRE).await;
    subscribe(store, "bob", &["alice"], EXPIRE + 600).await;
    assert_eq!(watchers_of(store, "alice", T0).await, vec!["bob"]);
    // Past the first expiry, before the second.
    let later = (EXPIRE + 300) * 1000;
    assert_eq!(watchers_of(store, "alice", later).await, vec!["bob"]);
    assert!(unwatched(store, "alice", (EXPIRE + 600) * 1000).await);
}

pub async fn given_an_expired_subscription_not_yet_deleted_then_it_is_not_listed(
    store: &impl SubscriptionsTable,
) {
    subscribe(store, "bob", &["alice"], EXPIRE).await;
    subscribe(store, "carol", &["alice"], EXPIRE + 1).await;
    // The last millisecond before `expireAt` still counts; `expireAt` itself does not.
    assert_eq!(
        watchers_of(store, "alice", EXPIRE * 1000 - 1).await,
        vec!["bob", "carol"]
    );
    assert_eq!(
        watchers_of(store, "alice", EXPIRE * 1000).await,
        vec!["carol"]
    );
    assert!(unwatched(store, "alice", (EXPIRE + 1) * 1000).await);
}

pub async fn given_an_unsubscribe_then_only_the_named_subscriptions_of_that_watcher_go(
    store: &impl SubscriptionsTable,
) {
    subscribe(store, "bob", &["alice", "carol", "erin"], EXPIRE).await;
    subscribe(store, "dave", &["alice"], EXPIRE).await;
    // "frank" was never watched: removing it is not an error.
    unsubscribe(store, "bob", &["alice", "carol", "frank"]).await;
    assert_eq!(watchers_of(store, "alice", T0).await, vec!["dave"]);
    assert!(unwatched(store, "carol", T0).await);
    assert_eq!(watchers_of(store, "erin", T0).await, vec!["bob"]);
    // Again: already gone is fine.
    unsubscribe(store, "bob", &["alice"]).await;
}

pub async fn given_more_than_25_targets_then_every_subscription_is_written_and_removed(
    store: &impl SubscriptionsTable,
) {
    let targets: Vec<PlayerId> = (0..60).map(|i| player(&format!("p{i:02}"))).collect();
    store
        .subscribe(&player("bob"), &targets, EXPIRE)
        .await
        .unwrap();
    for target in &targets {
        assert_eq!(
            watchers_of(store, target.as_str(), T0).await,
            vec!["bob"],
            "{target}"
        );
    }
    store.unsubscribe(&player("bob"), &targets).await.unwrap();
    for target in &targets {
        assert!(
            watchers_of(store, target.as_str(), T0).await.is_empty(),
            "{target}"
        );
    }
}

pub async fn given_many_watchers_of_one_target_then_every_one_is_listed(
    store: &impl SubscriptionsTable,
) {
    let mut expected = Vec::new();
    for i in 0..30 {
        let watcher = format!("w{i:02}");
        // Every third one has expired: pages may come back filtered down to nothing.
        let expire = if i % 3 == 0 { T0 / 1000 - 1 } else { EXPIRE };
        subscribe(store, &watcher, &["alice"], expire).await;
        if i % 3 != 0 {
            expected.push(watcher);
        }
    }
    assert_eq!(watchers_of(store, "alice", T0).await, expected);
}

pub async fn given_a_player_watching_themselves_then_they_are_their_own_watcher(
    store: &impl SubscriptionsTable,
) {
    subscribe(store, "alice", &["alice"], EXPIRE).await;
    assert_eq!(watchers_of(store, "alice", T0).await, vec!["alice"]);
}

pub async fn given_nothing_to_write_or_remove_then_nothing_fails(store: &impl SubscriptionsTable) {
    subscribe(store, "bob", &[], EXPIRE).await;
    unsubscribe(store, "bob", &[]).await;
    assert!(unwatched(store, "bob", T0).await);
}

/// One `#[tokio::test]` per scenario of this contract, each on `$factory().await` (an
/// async function returning a fresh [`Subscriptions`](shared::ports::Subscriptions) and [`Watchers`](shared::ports::Watchers) store).
#[macro_export]
macro_rules! subscription_store_contract_tests {
    ($factory:expr) => {
        $crate::contract_scenarios!(
            subscription_store_contract,
            $factory,
            [
                given_subscriptions_when_listing_watchers_then_only_the_targets_own_watchers,
                given_a_repeated_subscription_then_it_is_listed_once_until_the_later_expiry,
                given_an_expired_subscription_not_yet_deleted_then_it_is_not_listed,
                given_an_unsubscribe_then_only_the_named_subscriptions_of_that_watcher_go,
                given_more_than_25_targets_then_every_subscription_is_written_and_removed,
                given_many_watchers_of_one_target_then_every_one_is_listed,
                given_a_player_watching_themselves_then_they_are_their_own_watcher,
                given_nothing_to_write_or_remove_then_nothing_fails,
            ]
        );
    };
}
