//! The Players ports' contract, one test per scenario: `contracts::player_store_contract_tests!(factory)`
//! expands to one `#[tokio::test]` per scenario below, each on a fresh store from `factory`.

use std::sync::Arc;

use crate::PlayersTable;
use shared::activity::Activity;
use shared::domain::{ConnectionId, EpochMillis, PlayerId, PresenceStatus, Seq};
use shared::pending::Reservation;
use shared::players::{ConnectOutcome, Liveness, NewConnection};
use shared::ports::Heartbeats;

use crate::fixtures::{T0, pending, seat};

const HEARTBEAT: EpochMillis = 90_000;
const GRACE: EpochMillis = 30_000;

fn player(name: &str) -> PlayerId {
    PlayerId::parse(name).expect("valid test player id")
}

fn conn(id: &str) -> ConnectionId {
    ConnectionId::parse(id).expect("valid test connection id")
}

fn connection(p: &str, c: &str, at: EpochMillis) -> NewConnection {
    let player_id = player(p);
    NewConnection {
        sweep_shard: player_id.sweep_shard(4),
        player_id,
        connection_id: conn(c),
        endpoint: format!("https://api.example/{c}"),
        connected_at: at,
        now: at,
        heartbeat_deadline: at + HEARTBEAT,
        expire_at_secs: at / 1000 + 86_400,
    }
}

pub async fn given_no_pending_placement_when_beginning_then_pending_and_a_second_conflicts_naming_it(
    store: &impl PlayersTable,
) {
    store.connect(&connection("alice", "c1", T0)).await.unwrap();
    assert_eq!(
        store
            .reserve(&player("alice"), &pending("p-1"))
            .await
            .unwrap(),
        Reservation::Reserved
    );
    assert_eq!(
        store
            .reserve(&player("alice"), &pending("p-2"))
            .await
            .unwrap(),
        Reservation::Taken(pending("p-1"))
    );
    let record = store.get(&player("alice")).await.unwrap().unwrap();
    assert_eq!(record.pending, Some(pending("p-1")));
    assert_eq!(record.last_request, Some(pending("p-1")));
    assert_eq!(record.game_session, None);

    // Game state survives reconnects (a `$connect` writes connection fields only).
    store
        .connect(&connection("alice", "c2", T0 + 1))
        .await
        .unwrap();
    let record = store.get(&player("alice")).await.unwrap().unwrap();
    assert_eq!(record.connection_id, conn("c2"));
    assert_eq!(record.pending, Some(pending("p-1")));
}

pub async fn given_a_pending_placement_then_only_its_own_id_abandons_it(store: &impl PlayersTable) {
    store.connect(&connection("alice", "c1", T0)).await.unwrap();
    store
        .reserve(&player("alice"), &pending("p-1"))
        .await
        .unwrap();
    store
        .release(&player("alice"), &pending("p-0"))
        .await
        .unwrap();
    let record = store.get(&player("alice")).await.unwrap().unwrap();
    assert_eq!(record.pending, Some(pending("p-1")));

    store
        .release(&player("alice"), &pending("p-1"))
        .await
        .unwrap();
    let record = store.get(&player("alice")).await.unwrap().unwrap();
    assert_eq!(record.pending, None);
    assert_eq!(record.last_request, Some(pending("p-1")));
    assert_eq!(
        store
            .reserve(&player("alice"), &pending("p-2"))
            .await
            .unwrap(),
        Reservation::Reserved
    );

    // No item: nothing to abandon, and nothing is created.
    store
        .release(&player("ghost"), &pending("p-1"))
        .await
        .unwrap();
    assert_eq!(store.get(&player("ghost")).await.unwrap(), None);
}

pub async fn given_game_state_written_before_the_first_connect_then_the_connect_keeps_it(
    store: &impl PlayersTable,
) {
    assert_eq!(
        store
            .reserve(&player("bob"), &pending("p-1"))
            .await
            .unwrap(),
        Reservation::Reserved
    );
    // An item holding game state only is no connection record.
    assert_eq!(store.get(&player("bob")).await.unwrap(), None);
    assert_eq!(
        store
            .reserve(&player("bob"), &pending("p-2"))
            .await
            .unwrap(),
        Reservation::Taken(pending("p-1"))
    );
    let outcome = store.connect(&connection("bob", "c1", T0)).await.unwrap();
    assert_eq!(outcome, ConnectOutcome::New);
    let record = store.get(&player("bob")).await.unwrap().unwrap();
    assert_eq!(record.pending, Some(pending("p-1")));
}

pub async fn given_no_game_session_when_updating_it_then_nothing_is_written(
    store: &impl PlayersTable,
) {
    store.connect(&connection("alice", "c1", T0)).await.unwrap();
    let session = seat();
    assert!(
        !store
            .update_game_session(&player("alice"), &session)
            .await
            .unwrap()
    );
    assert!(
        !store
            .update_game_session(&player("ghost"), &session)
            .await
            .unwrap()
    );
    let record = store.get(&player("alice")).await.unwrap().unwrap();
    assert_eq!(record.game_session, None);
    assert_eq!(store.get(&player("ghost")).await.unwrap(), None);
}

pub async fn given_matchmaking_attributes_then_they_are_stored_replaced_and_kept_over_a_reconnect(
    store: &impl PlayersTable,
) {
    use shared::matchmaking::{AttributeValue, Attributes};
    let attributes: Attributes = [
        ("skill".to_owned(), AttributeValue::Number(1200.5)),
        ("mode".to_owned(), AttributeValue::String("duel".into())),
        (
            "maps".to_owned(),
            AttributeValue::StringList(vec!["a".into(), "b".into()]),
        ),
        (
            "roles".to_owned(),
            AttributeValue::StringNumberMap([("tank".to_owned(), 1.0)].into()),
        ),
    ]
    .into();
    assert!(
        !store
            .set_matchmaking_attributes(&player("alice"), &attributes)
            .await
            .unwrap(),
        "no item: nothing written"
    );
    store.connect(&connection("alice", "c1", T0)).await.unwrap();
    assert!(
        store
            .set_matchmaking_attributes(&player("alice"), &attributes)
            .await
            .unwrap()
    );
    let record = store.get(&player("alice")).await.unwrap().unwrap();
    assert_eq!(record.matchmaking_attributes, attributes);
    store
        .disconnect(&player("alice"), &conn("c1"), T0 + 1, T0 + 30_000)
        .await
        .unwrap();
    store
        .connect(&connection("alice", "c2", T0 + 2))
        .await
        .unwrap();
    let record = store.get(&player("alice")).await.unwrap().unwrap();
    assert_eq!(
        record.matchmaking_attributes, attributes,
        "not connection state"
    );
    store
        .set_matchmaking_attributes(&player("alice"), &Attributes::new())
        .await
        .unwrap();
    let record = store.get(&player("alice")).await.unwrap().unwrap();
    assert!(record.matchmaking_attributes.is_empty());
}

pub async fn given_no_record_when_connecting_then_a_new_online_session(store: &impl PlayersTable) {
    assert_eq!(store.get(&player("alice")).await.unwrap(), None);
    let outcome = store.connect(&connection("alice", "c1", T0)).await.unwrap();
    assert_eq!(outcome, ConnectOutcome::New);
    let record = store.get(&player("alice")).await.unwrap().expect("record");
    assert_eq!(record.connection_id, conn("c1"));
    assert_eq!(record.endpoint, "https://api.example/c1");
    assert_eq!(record.status, PresenceStatus::Online);
    assert_eq!(record.connected_at, T0);
    assert_eq!(record.last_seen, T0);
    assert_eq!(record.sweep_at, Some(T0 + HEARTBEAT));
    assert!(!record.resumed());
}

pub async fn given_a_disconnect_within_grace_when_reconnecting_then_resumed(
    store: &impl PlayersTable,
) {
    store.connect(&connection("alice", "c1", T0)).await.unwrap();
    assert!(
        store
            .disconnect(
                &player("alice"),
                &conn("c1"),
                T0 + 1_000,
                T0 + 1_000 + GRACE
            )
            .await
            .unwrap()
    );
    let outcome = store
        .connect(&connection("alice", "c2", T0 + 1_000 + GRACE))
        .await
        .unwrap();
    assert_eq!(outcome, ConnectOutcome::Resumed);
    let record = store.get(&player("alice")).await.unwrap().expect("record");
    assert_eq!(record.connection_id, conn("c2"));
    assert_eq!(record.status, PresenceStatus::Online);
    assert!(record.resumed(), "{record:?}");
}

pub async fn given_the_grace_period_over_when_reconnecting_then_new(store: &impl PlayersTable) {
    store.connect(&connection("alice", "c1", T0)).await.unwrap();
    store
        .disconnect(
            &player("alice"),
            &conn("c1"),
            T0 + 1_000,
            T0 + 1_000 + GRACE,
        )
        .await
        .unwrap();
    // The sweeper has not run yet: the record still says disconnected.
    let outcome = store
        .connect(&connection("alice", "c2", T0 + 1_001 + GRACE))
        .await
        .unwrap();
    assert_eq!(outcome, ConnectOutcome::New);
    let record = store.get(&player("alice")).await.unwrap().expect("record");
    assert!(!record.resumed());
}

pub async fn given_online_elsewhere_when_connecting_then_take_over_the_old_connection(
    store: &impl PlayersTable,
) {
    store.connect(&connection("alice", "c1", T0)).await.unwrap();
    let outcome = store
        .connect(&connection("alice", "c2", T0 + 5))
        .await
        .unwrap();
    assert_eq!(
        outcome,
        ConnectOutcome::TakeOver {
            old_connection: conn("c1"),
            old_endpoint: "https://api.example/c1".into(),
        }
    );
    let record = store.get(&player("alice")).await.unwrap().expect("record");
    assert_eq!(record.connection_id, conn("c2"));
    assert!(!record.resumed());
}

pub async fn given_an_offline_player_when_connecting_then_new(store: &impl PlayersTable) {
    store.connect(&connection("alice", "c1", T0)).await.unwrap();
    let swept = store
        .mark_offline(&player("alice"), T0 + HEARTBEAT + 1)
        .await
        .unwrap();
    assert!(swept.is_some());
    let outcome = store
        .connect(&connection("alice", "c2", T0 + HEARTBEAT + 2))
        .await
        .unwrap();
    assert_eq!(outcome, ConnectOutcome::New);
}

pub async fn given_a_newer_connection_when_an_older_connect_lands_then_superseded(
    store: &impl PlayersTable,
) {
    store
        .connect(&connection("alice", "new", T0 + 10))
        .await
        .unwrap();
    let outcome = store
        .connect(&connection("alice", "old", T0))
        .await
        .unwrap();
    assert_eq!(outcome, ConnectOutcome::Superseded);
    let record = store.get(&player("alice")).await.unwrap().expect("record");
    assert_eq!(
        record.connection_id,
        conn("new"),
        "the older connect wrote nothing"
    );
}

pub async fn given_a_takeover_when_the_old_disconnect_lands_late_then_the_new_connection_is_untouched(
    store: &impl PlayersTable,
) {
    store.connect(&connection("alice", "c1", T0)).await.unwrap();
    store
        .connect(&connection("alice", "c2", T0 + 5))
        .await
        .unwrap();
    let applied = store
        .disconnect(&player("alice"), &conn("c1"), T0 + 6, T0 + 6 + GRACE)
        .await
        .unwrap();
    assert!(!applied, "a late $disconnect of c1 must not apply");
    let record = store.get(&player("alice")).await.unwrap().expect("record");
    assert_eq!(record.connection_id, conn("c2"));
    assert_eq!(record.status, PresenceStatus::Online);
    assert_eq!(record.sweep_at, Some(T0 + 5 + HEARTBEAT));
}

pub async fn given_the_current_connection_when_disconnecting_then_disconnected_with_grace(
    store: &impl PlayersTable,
) {
    store.connect(&connection("alice", "c1", T0)).await.unwrap();
    assert!(
        store
            .disconnect(&player("alice"), &conn("c1"), T0 + 7, T0 + 7 + GRACE)
            .await
            .unwrap()
    );
    let record = store.get(&player("alice")).await.unwrap().expect("record");
    assert_eq!(record.status, PresenceStatus::Disconnected);
    assert_eq!(record.sweep_at, Some(T0 + 7 + GRACE));
    assert!(record.within_grace(T0 + 7 + GRACE));
    assert!(!record.within_grace(T0 + 8 + GRACE));
    // A second $disconnect (API Gateway retries) changes nothing.
    assert!(
        !store
            .disconnect(&player("alice"), &conn("c1"), T0 + 9, T0 + 9 + GRACE)
            .await
            .unwrap()
    );
    assert_eq!(
        store.get(&player("alice")).await.unwrap().unwrap().sweep_at,
        Some(T0 + 7 + GRACE)
    );
}

pub async fn given_a_heartbeat_then_only_the_current_online_connection_is_refreshed(
    stores: &HeartbeatStores,
) {
    stores
        .players
        .connect(&connection("alice", "c1", T0))
        .await
        .unwrap();
    let cursor = Seq::new(41).unwrap();
    assert_eq!(
        stores
            .heartbeats
            .heartbeat(
                &player("alice"),
                &conn("c1"),
                T0 + 50,
                T0 + 50 + HEARTBEAT,
                Some(cursor)
            )
            .await
            .unwrap(),
        Liveness::Current
    );
    let record = stores.players.get(&player("alice")).await.unwrap().unwrap();
    assert_eq!(record.last_seen, T0 + 50);
    assert_eq!(record.sweep_at, Some(T0 + 50 + HEARTBEAT));
    assert_eq!(record.acked_seq, Some(cursor), "the cursor is remembered");
    stores
        .heartbeats
        .heartbeat(
            &player("alice"),
            &conn("c1"),
            T0 + 55,
            T0 + 55 + HEARTBEAT,
            None,
        )
        .await
        .unwrap();
    let record = stores.players.get(&player("alice")).await.unwrap().unwrap();
    assert_eq!(
        record.acked_seq,
        Some(cursor),
        "no cursor leaves it as it was"
    );

    assert_eq!(
        stores
            .heartbeats
            .heartbeat(
                &player("alice"),
                &conn("other"),
                T0 + 60,
                T0 + 60 + HEARTBEAT,
                Some(Seq::new(99).unwrap())
            )
            .await
            .unwrap(),
        Liveness::Replaced,
        "a stale connection's heartbeat must not apply, and says it was replaced"
    );
    let record = stores.players.get(&player("alice")).await.unwrap().unwrap();
    assert_eq!(record.acked_seq, Some(cursor));
    assert_eq!(
        stores
            .heartbeats
            .heartbeat(
                &player("nobody"),
                &conn("c1"),
                T0 + 60,
                T0 + 60 + HEARTBEAT,
                None
            )
            .await
            .unwrap(),
        Liveness::Gone,
        "a heartbeat for an unknown player must not create a record"
    );
    assert_eq!(stores.players.get(&player("nobody")).await.unwrap(), None);

    stores
        .players
        .disconnect(&player("alice"), &conn("c1"), T0 + 70, T0 + 70 + GRACE)
        .await
        .unwrap();
    assert_eq!(
        stores
            .heartbeats
            .heartbeat(
                &player("alice"),
                &conn("c1"),
                T0 + 80,
                T0 + 80 + HEARTBEAT,
                None
            )
            .await
            .unwrap(),
        Liveness::Gone,
        "a heartbeat after $disconnect must not bring the player back online"
    );
    let record = stores.players.get(&player("alice")).await.unwrap().unwrap();
    assert_eq!(record.status, PresenceStatus::Disconnected);
}

/// Player ids that land in `shard` of 4.
fn players_in_shard(shard: u32, count: usize) -> Vec<String> {
    (0..)
        .map(|i| format!("p{i}"))
        .filter(|p| player(p).sweep_shard(4) == shard)
        .take(count)
        .collect()
}

pub async fn given_players_due_when_listing_expired_then_only_due_players_of_the_shard_page_by_page(
    stores: &HeartbeatStores,
) {
    let shard = 1;
    let mine = players_in_shard(shard, 4);
    let other = players_in_shard(2, 1);
    for (i, p) in mine.iter().enumerate() {
        let at = T0 + 3 - i as i64;
        stores
            .players
            .connect(&connection(p, &format!("c-{p}"), at))
            .await
            .unwrap();
    }
    stores
        .players
        .connect(&connection(&other[0], "c-other", T0))
        .await
        .unwrap();
    // mine[0] heartbeats: no longer due, though still tracked (still in the index).
    stores
        .heartbeats
        .heartbeat(
            &player(&mine[0]),
            &conn(&format!("c-{}", mine[0])),
            T0 + 10,
            T0 + 10 + 10 * HEARTBEAT,
            None,
        )
        .await
        .unwrap();

    // Pages of 2 tracked players: every one of the shard's 4 is read once, the due ones
    // returned, and the last page says there is no more.
    let now = T0 + HEARTBEAT + 100;
    let mut due = Vec::new();
    let mut after = None;
    let mut pages = 0;
    loop {
        let page = stores
            .players
            .expired(shard, now, 2, after.as_ref())
            .await
            .unwrap();
        pages += 1;
        assert!(page.players.len() <= 2, "a page reads at most its limit");
        due.extend(page.players.into_iter().map(|p| p.player_id.to_string()));
        match page.next {
            Some(next) => after = Some(next),
            None => break,
        }
        assert!(pages < 10, "paging never ends");
    }
    due.sort();
    let mut expected = vec![mine[1].clone(), mine[2].clone(), mine[3].clone()];
    expected.sort();
    assert_eq!(due, expected);
    assert!((2..=3).contains(&pages), "{pages} pages for 4 players by 2");

    assert!(
        stores
            .players
            .expired(shard, T0, 10, None)
            .await
            .unwrap()
            .players
            .is_empty()
    );
}

pub async fn given_an_expired_player_when_marking_offline_then_it_leaves_the_index(
    store: &impl PlayersTable,
) {
    let alice = players_in_shard(0, 1).remove(0);
    store.connect(&connection(&alice, "c1", T0)).await.unwrap();
    let now = T0 + HEARTBEAT + 1;
    let before = store
        .mark_offline(&player(&alice), now)
        .await
        .unwrap()
        .expect("expired, so swept");
    assert_eq!(
        before.status,
        PresenceStatus::Online,
        "the old record is returned"
    );
    assert_eq!(before.connection_id, conn("c1"));
    let record = store.get(&player(&alice)).await.unwrap().unwrap();
    assert_eq!(record.status, PresenceStatus::Offline);
    assert_eq!(record.sweep_at, None);
    assert!(
        store
            .expired(0, now + 1, 10, None)
            .await
            .unwrap()
            .players
            .is_empty()
    );
    assert_eq!(
        store.mark_offline(&player(&alice), now + 2).await.unwrap(),
        None
    );
    assert_eq!(
        store.mark_offline(&player("ghost"), now).await.unwrap(),
        None
    );
}

pub async fn given_an_activity_then_only_the_online_connection_sets_it_and_going_offline_clears_it(
    store: &impl PlayersTable,
) {
    let alice = players_in_shard(0, 1).remove(0);
    let activity: Activity = serde_json::from_value(
        serde_json::json!({"activity": "ranked, map Dust, 3–1", "details": {"map": "dust", "score": [3, 1.5]}}),
    )
    .expect("a valid activity");
    store.connect(&connection(&alice, "c1", T0)).await.unwrap();
    assert!(
        !store
            .set_activity(&player(&alice), &conn("c0"), Some(&activity))
            .await
            .unwrap(),
        "another connection sets nothing"
    );
    assert!(
        store
            .set_activity(&player(&alice), &conn("c1"), Some(&activity))
            .await
            .unwrap()
    );
    let record = store.get(&player(&alice)).await.unwrap().unwrap();
    assert_eq!(record.activity, Some(activity.clone()), "stored as given");

    // A reconnect keeps it (only going offline ends it); a dropped connection sets nothing.
    store
        .connect(&connection(&alice, "c2", T0 + 1))
        .await
        .unwrap();
    let record = store.get(&player(&alice)).await.unwrap().unwrap();
    assert_eq!(record.activity, Some(activity.clone()));
    store
        .disconnect(&player(&alice), &conn("c2"), T0 + 2, T0 + 2 + GRACE)
        .await
        .unwrap();
    assert!(
        !store
            .set_activity(&player(&alice), &conn("c2"), None)
            .await
            .unwrap()
    );
    assert!(
        !store
            .set_activity(&player("ghost"), &conn("c1"), Some(&activity))
            .await
            .unwrap()
    );

    // Swept offline: the activity goes with the same write.
    store
        .mark_offline(&player(&alice), T0 + 3 + GRACE)
        .await
        .unwrap()
        .expect("swept");
    let record = store.get(&player(&alice)).await.unwrap().unwrap();
    assert_eq!(record.activity, None);

    // Cleared by the player: none stored.
    store
        .connect(&connection(&alice, "c3", T0 + GRACE + 4))
        .await
        .unwrap();
    store
        .set_activity(&player(&alice), &conn("c3"), Some(&activity))
        .await
        .unwrap();
    assert!(
        store
            .set_activity(&player(&alice), &conn("c3"), None)
            .await
            .unwrap()
    );
    let record = store.get(&player(&alice)).await.unwrap().unwrap();
    assert_eq!(record.activity, None);
}

pub async fn given_a_seat_in_another_game_when_taken_then_it_replaces_the_seat_and_the_ended_game(
    store: &impl PlayersTable,
) {
    let alice = player("alice");
    store.connect(&connection("alice", "c1", T0)).await.unwrap();
    let seat = |arn: &str, session: &str| shared::domain::GameSession {
        game_session_arn: arn.into(),
        ip_address: "10.0.0.1".into(),
        dns_name: "host.example".into(),
        port: 7777,
        region: "us-east-1".into(),
        player_session_id: session.into(),
        connection: None,
        connection_unavailable: false,
    };
    store
        .take_seat(&alice, &seat("arn:gs-1", "psess-1"))
        .await
        .unwrap();
    assert!(store.end_game_session(&alice, "arn:gs-1").await.unwrap());
    store
        .take_seat(&alice, &seat("arn:gs-2", "psess-2"))
        .await
        .unwrap();
    let record = store.get(&alice).await.unwrap().unwrap();
    assert_eq!(record.game_session, Some(seat("arn:gs-2", "psess-2")));
    assert_eq!(record.ended_game_session, None);
    // A player with no item yet: the seat is kept for their first connect.
    store
        .take_seat(&player("bob"), &seat("arn:gs-2", "psess-3"))
        .await
        .unwrap();
    store.connect(&connection("bob", "c2", T0)).await.unwrap();
    let bob = store.get(&player("bob")).await.unwrap().unwrap();
    assert_eq!(bob.game_session, Some(seat("arn:gs-2", "psess-3")));
}

pub async fn given_a_heartbeat_that_lands_while_the_sweeper_acts_then_the_heartbeat_wins(
    stores: &HeartbeatStores,
) {
    let alice = players_in_shard(3, 1).remove(0);
    stores
        .players
        .connect(&connection(&alice, "c1", T0))
        .await
        .unwrap();
    let now = T0 + HEARTBEAT + 1;
    let due = stores.players.expired(3, now, 10, None).await.unwrap();
    assert_eq!(due.players.len(), 1, "the sweeper sees alice as due");
    // The heartbeat lands between the sweeper's query and its conditional write.
    assert_eq!(
        stores
            .heartbeats
            .heartbeat(&player(&alice), &conn("c1"), now, now + HEARTBEAT, None)
            .await
            .unwrap(),
        Liveness::Current
    );
    assert_eq!(
        stores
            .players
            .mark_offline(&player(&alice), now)
            .await
            .unwrap(),
        None
    );
    let record = stores.players.get(&player(&alice)).await.unwrap().unwrap();
    assert_eq!(record.status, PresenceStatus::Online);
    assert_eq!(record.sweep_at, Some(now + HEARTBEAT));
}

pub async fn given_a_reconnect_that_lands_while_the_sweeper_acts_then_the_reconnect_wins(
    store: &impl PlayersTable,
) {
    store.connect(&connection("alice", "c1", T0)).await.unwrap();
    store
        .disconnect(&player("alice"), &conn("c1"), T0 + 1, T0 + 1 + GRACE)
        .await
        .unwrap();
    let now = T0 + 2 + GRACE;
    store
        .connect(&connection("alice", "c2", now))
        .await
        .unwrap();
    assert_eq!(
        store.mark_offline(&player("alice"), now).await.unwrap(),
        None
    );
    assert_eq!(
        store.get(&player("alice")).await.unwrap().unwrap().status,
        PresenceStatus::Online
    );
}

pub async fn given_many_players_when_reading_them_together_then_only_existing_ones_return(
    store: &impl PlayersTable,
) {
    // More than one batch of 100, with duplicates and unknown players mixed in.
    let names: Vec<String> = (0..130).map(|i| format!("many{i}")).collect();
    for name in names.iter().step_by(2) {
        store
            .connect(&connection(name, &format!("c-{name}"), T0))
            .await
            .unwrap();
    }
    let mut wanted: Vec<PlayerId> = names.iter().map(|n| player(n)).collect();
    wanted.push(player("many0"));
    let mut found: Vec<String> = store
        .get_many(&wanted)
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.player_id.to_string())
        .collect();
    found.sort();
    let mut expected: Vec<String> = names.iter().step_by(2).cloned().collect();
    expected.sort();
    assert_eq!(found, expected);
    assert!(store.get_many(&[]).await.unwrap().is_empty());
}

pub async fn given_a_new_connection_then_it_remembers_the_one_it_replaced_and_keeps_delivery_state(
    stores: &HeartbeatStores,
) {
    stores
        .players
        .connect(&connection("bob", "c1", T0))
        .await
        .unwrap();
    let first = stores.players.get(&player("bob")).await.unwrap().unwrap();
    assert_eq!(first.previous_connection_id, None);
    assert_eq!(first.previous_endpoint, None);
    assert_eq!(first.previous_last_seen, None);
    assert!(!first.is_live(), "not live before its hand-over");
    stores
        .heartbeats
        .heartbeat(
            &player("bob"),
            &conn("c1"),
            T0 + 5,
            T0 + 5 + HEARTBEAT,
            Some(Seq::new(12).unwrap()),
        )
        .await
        .unwrap();

    // A takeover: c1 is still online when c2 connects.
    stores
        .players
        .connect(&connection("bob", "c2", T0 + 9))
        .await
        .unwrap();
    let second = stores.players.get(&player("bob")).await.unwrap().unwrap();
    assert_eq!(second.previous_connection_id, Some(conn("c1")));
    assert_eq!(
        second.previous_endpoint.as_deref(),
        Some(first.endpoint.as_str())
    );
    assert_eq!(second.previous_last_seen, Some(T0 + 5));
    assert_eq!(second.previous_status, Some(PresenceStatus::Online));
    assert!(second.took_over());
    assert_eq!(
        second.acked_seq,
        Some(Seq::new(12).unwrap()),
        "kept across connects"
    );
    assert!(!second.is_live());
}

/// One `#[tokio::test]` per scenario of this contract, each on `$factory().await` (an
/// async function returning a fresh store of every [`PlayersTable`] port).
#[macro_export]
macro_rules! player_store_contract_tests {
    ($factory:expr) => {
        $crate::contract_scenarios!(player_store_contract, $factory, [
            given_no_record_when_connecting_then_a_new_online_session,
            given_matchmaking_attributes_then_they_are_stored_replaced_and_kept_over_a_reconnect,
            given_a_disconnect_within_grace_when_reconnecting_then_resumed,
            given_the_grace_period_over_when_reconnecting_then_new,
            given_online_elsewhere_when_connecting_then_take_over_the_old_connection,
            given_an_offline_player_when_connecting_then_new,
            given_a_newer_connection_when_an_older_connect_lands_then_superseded,
            given_a_takeover_when_the_old_disconnect_lands_late_then_the_new_connection_is_untouched,
            given_the_current_connection_when_disconnecting_then_disconnected_with_grace,
            given_an_expired_player_when_marking_offline_then_it_leaves_the_index,
            given_an_activity_then_only_the_online_connection_sets_it_and_going_offline_clears_it,
            given_a_seat_in_another_game_when_taken_then_it_replaces_the_seat_and_the_ended_game,
            given_a_reconnect_that_lands_while_the_sweeper_acts_then_the_reconnect_wins,
            given_many_players_when_reading_them_together_then_only_existing_ones_return,
            given_no_pending_placement_when_beginning_then_pending_and_a_second_conflicts_naming_it,
            given_a_pending_placement_then_only_its_own_id_abandons_it,
            given_game_state_written_before_the_first_connect_then_the_connect_keeps_it,
            given_no_game_session_when_updating_it_then_nothing_is_written,
        ]);
    };
}

/// A Players store and what records heartbeats on it: in memory, the same store; on
/// DynamoDB, the heartbeat route's mapping template as API Gateway runs it.
pub struct HeartbeatStores {
    pub players: Arc<dyn PlayersTable>,
    pub heartbeats: Arc<dyn Heartbeats>,
}

/// One `#[tokio::test]` per heartbeat scenario, each on `$factory().await` (an async
/// function returning fresh [`HeartbeatStores`]).
#[macro_export]
macro_rules! heartbeat_contract_tests {
    ($factory:expr) => {
        $crate::contract_scenarios!(player_store_contract, $factory, [
            given_a_heartbeat_then_only_the_current_online_connection_is_refreshed,
            given_players_due_when_listing_expired_then_only_due_players_of_the_shard_page_by_page,
            given_a_heartbeat_that_lands_while_the_sweeper_acts_then_the_heartbeat_wins,
            given_a_new_connection_then_it_remembers_the_one_it_replaced_and_keeps_delivery_state,
        ]);
    };
}
