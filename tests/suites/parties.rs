//! Parties end to end over real WebSockets (shared/src/party/mod.rs): every party
//! change is pushed through the inbox and its stream (or replayed on `resume`), versions
//! grow by one, a party survives a drop, a member gone past `PARTY_OFFLINE_SECONDS` is
//! removed by the sweeper, two joins racing for the last seat leave one winner, and the
//! leader's placement seats the whole party in one game. Each scenario runs in memory
//! and (with `DYNAMODB_ENDPOINT` set) on DynamoDB Local.

use local::Settings;
use serde_json::{Value, json};
use shared::domain::PresenceStatus;
use shared::ports::ManualClock;
use tests::player::Player;
use tests::stack::TestStack;

/// Placements fulfilled 200 ms after they are asked for, on a fleet ready at once.
fn fast_fleet(settings: &mut Settings) {
    settings.simulator.sim_server_startup_ms = 0;
    settings.simulator.sim_placement_delay_ms = 200;
}

/// The stack on DynamoDB Local, fresh tables; `false` (skipped) without `DYNAMODB_ENDPOINT`.
fn on_dynamodb(settings: &mut Settings) -> bool {
    let Some(endpoint) = tests::dynamodb::endpoint_or_skip() else {
        return false;
    };
    tests::dynamodb::use_fresh_tables(&mut settings.storage, endpoint);
    true
}

/// Which storage a scenario runs on.
#[derive(Clone, Copy)]
enum Storage {
    Memory,
    DynamoDb,
}

/// The stack for a scenario, adjusted; `None` when DynamoDB Local is not there.
async fn stack(
    storage: Storage,
    clock: Option<ManualClock>,
    adjust: impl FnOnce(&mut Settings),
) -> Option<TestStack> {
    let mut dynamodb = true;
    let adjust = |s: &mut Settings| {
        fast_fleet(s);
        adjust(s);
        if let Storage::DynamoDb = storage {
            dynamodb = on_dynamodb(s);
        }
    };
    let stack = match clock {
        Some(clock) => TestStack::start_with_clock(adjust, clock).await,
        None => TestStack::start_with(adjust).await,
    };
    if dynamodb {
        Some(stack)
    } else {
        stack.shutdown().await;
        None
    }
}

fn members(party: &Value) -> Vec<&str> {
    party["members"]
        .as_array()
        .unwrap_or_else(|| panic!("no members in {party}"))
        .iter()
        .map(|m| m["playerId"].as_str().unwrap())
        .collect()
}

fn party_id(reply: &Value) -> String {
    reply["party"]["partyId"].as_str().unwrap().to_owned()
}

// --- A party's whole life ----------------------------------------------------------------

/// Create, invite an offline player who gets it on `resume`, join, chat, kick, promote,
/// the leader leaves (hand-over), the last one leaves (disbanded); then a replay from the
/// start brings every frame again, each version once.
async fn a_partys_whole_life(stack: &TestStack) {
    // dave has connected once and is offline.
    let dave = Player::online(stack, "dave").await;
    dave.client.close().await;
    stack
        .wait_for_status("dave", PresenceStatus::Disconnected)
        .await;
    let mut alice = Player::online(stack, "alice").await;
    let mut bob = Player::online(stack, "bob").await;
    let mut carol = Player::online(stack, "carol").await;

    let created = alice.ok("createParty", json!({"maxSize": 4})).await;
    let id = party_id(&created);
    assert_eq!(created["party"]["version"], 1);
    assert_eq!(
        alice.party("created", "alice").await["party"],
        created["party"]
    );

    alice.ok("inviteToParty", json!({"playerId": "bob"})).await;
    alice.ok("inviteToParty", json!({"playerId": "dave"})).await;
    let invite = bob.push().await;
    assert_eq!(invite["type"], "party_invite", "{invite}");
    assert_eq!(invite["partyId"], id.as_str());
    assert_eq!(invite["from"], "alice");
    let joined = bob.ok("joinParty", json!({"partyId": id})).await;
    assert_eq!(members(&joined["party"]), ["alice", "bob"]);
    for player in [&mut alice, &mut bob] {
        assert_eq!(player.party("joined", "bob").await["party"]["version"], 2);
    }

    alice
        .ok("inviteToParty", json!({"playerId": "carol"}))
        .await;
    assert_eq!(carol.push().await["type"], "party_invite");
    carol.ok("joinParty", json!({"partyId": id})).await;
    for player in [&mut alice, &mut bob, &mut carol] {
        player.party("joined", "carol").await;
    }

    // dave, offline when invited, finds the invitation in his replay.
    let (mut dave, ack) = Player::back(stack, "dave", None).await;
    assert_eq!(ack["party"], Value::Null);
    let invite = dave.push().await;
    assert_eq!(invite["type"], "party_invite", "replayed: {invite}");
    assert_eq!(invite["partyId"], id.as_str());
    let joined = dave.ok("joinParty", json!({"partyId": id})).await;
    assert_eq!(members(&joined["party"]), ["alice", "bob", "carol", "dave"]);
    for player in [&mut alice, &mut bob, &mut carol, &mut dave] {
        assert_eq!(player.party("joined", "dave").await["party"]["version"], 4);
    }
    // Full: a fifth is refused.
    let full = alice
        .ask("inviteToParty", json!({"playerId": "erin"}))
        .await;
    assert_eq!(full["code"], "conflict", "{full}");

    // Party chat reaches every other member, with the party's id.
    let sent = bob
        .ok(
            "sendMessage",
            json!({"partyId": id, "message": {"text": "gg"}}),
        )
        .await;
    assert_eq!(sent["queued"], 3);
    for player in [&mut alice, &mut carol, &mut dave] {
        let message = player.push().await;
        assert_eq!(message["type"], "message", "{message}");
        assert_eq!(message["partyId"], id.as_str());
        assert_eq!(message["from"], "bob");
    }

    // The leader kicks carol: she is told too, and is in no party any more.
    let kicked = alice
        .ok("kickFromParty", json!({"playerId": "carol"}))
        .await;
    assert_eq!(members(&kicked["party"]), ["alice", "bob", "dave"]);
    for player in [&mut alice, &mut bob, &mut carol, &mut dave] {
        player.party("kicked", "carol").await;
    }
    assert_eq!(carol.client.resume(None).await["party"], Value::Null);

    // A member may not kick; the leader promotes bob.
    let refused = dave.ask("kickFromParty", json!({"playerId": "bob"})).await;
    assert_eq!(refused["code"], "forbidden", "{refused}");
    alice
        .ok("promotePartyLeader", json!({"playerId": "bob"}))
        .await;
    for player in [&mut alice, &mut bob, &mut dave] {
        let frame = player.party("promoted", "bob").await;
        assert_eq!(frame["party"]["leaderId"], "bob");
    }

    // The leader leaves: the longest-standing member (alice) leads again.
    bob.ok("leaveParty", json!({})).await;
    for player in [&mut alice, &mut bob, &mut dave] {
        let frame = player.party("left", "bob").await;
        assert_eq!(frame["party"]["leaderId"], "alice");
    }
    dave.ok("leaveParty", json!({})).await;
    for player in [&mut alice, &mut dave] {
        player.party("left", "dave").await;
    }
    // The last one leaves: disbanded.
    alice.ok("leaveParty", json!({})).await;
    let last = alice.party("disbanded", "alice").await;
    assert_eq!(last["party"]["members"], json!([]));
    assert_eq!(last["party"]["version"], 9);
    assert_eq!(alice.client.resume(None).await["party"], Value::Null);
    let again = alice.ask("leaveParty", json!({})).await;
    assert_eq!(again["code"], "not_found", "{again}");

    // A client replaying from the start gets every frame again (at least once): dropping
    // the versions it has seen leaves each change once, in order.
    let (mut replayed, _) = Player::back(stack, "alice", Some(0)).await;
    let versions: Vec<u64> = std::iter::from_fn(|| replayed.pushes.pop_front())
        .filter(|f| f["type"] == "party")
        .filter_map(|f| f["party"]["version"].as_u64())
        .collect();
    assert_eq!(versions, (1..=9).collect::<Vec<u64>>());
}

#[tokio::test]
async fn given_players_when_a_party_is_made_used_and_left_then_every_change_reaches_every_member_in_order()
 {
    let stack = stack(Storage::Memory, None, |_| {}).await.unwrap();
    a_partys_whole_life(&stack).await;
    stack.shutdown().await;
}

#[tokio::test]
async fn given_dynamodb_local_when_a_party_is_made_used_and_left_then_every_change_reaches_every_member_in_order()
 {
    let Some(stack) = stack(Storage::DynamoDb, None, |_| {}).await else {
        return;
    };
    a_partys_whole_life(&stack).await;
    stack.shutdown().await;
}

// --- Drops --------------------------------------------------------------------------------

/// alice leads, bob is a member; the ids and both players.
async fn pair(stack: &TestStack) -> (Player, Player, String) {
    let mut alice = Player::online(stack, "alice").await;
    let mut bob = Player::online(stack, "bob").await;
    let id = party_id(&alice.ok("createParty", json!({})).await);
    alice.ok("inviteToParty", json!({"playerId": "bob"})).await;
    assert_eq!(bob.push().await["type"], "party_invite");
    bob.ok("joinParty", json!({"partyId": id})).await;
    alice.party("created", "alice").await;
    alice.party("joined", "bob").await;
    bob.party("joined", "bob").await;
    (alice, bob, id)
}

async fn a_drop_within_the_grace_changes_nothing(stack: &TestStack) {
    let (mut alice, bob, id) = pair(stack).await;
    let cursor = bob.client.cursor();
    bob.client.vanish();
    stack
        .wait_for_status("bob", PresenceStatus::Disconnected)
        .await;

    let (mut bob, ack) = Player::back(stack, "bob", cursor).await;
    assert_eq!(ack["resumed"], true, "{ack}");
    assert_eq!(ack["party"]["partyId"], id.as_str());
    assert_eq!(ack["party"]["version"], 2, "nothing changed: {ack}");
    assert_eq!(ack["party"]["members"][1]["presence"], "online");
    assert!(bob.pushes.is_empty(), "nothing to replay: {:?}", bob.pushes);

    // The next thing alice hears of is her own promotion of bob, at the next version: no
    // `left` or `presence` came between.
    alice
        .ok("promotePartyLeader", json!({"playerId": "bob"}))
        .await;
    let frame = alice.party("promoted", "bob").await;
    assert_eq!(frame["party"]["version"], 3);
    assert_eq!(bob.party("promoted", "bob").await["party"]["version"], 3);
}

#[tokio::test]
async fn given_a_member_who_drops_and_resumes_within_the_grace_then_the_party_is_unchanged() {
    let stack = stack(Storage::Memory, None, |_| {}).await.unwrap();
    a_drop_within_the_grace_changes_nothing(&stack).await;
    stack.shutdown().await;
}

#[tokio::test]
async fn given_dynamodb_local_and_a_member_who_drops_and_resumes_within_the_grace_then_the_party_is_unchanged()
 {
    let Some(stack) = stack(Storage::DynamoDb, None, |_| {}).await else {
        return;
    };
    a_drop_within_the_grace_changes_nothing(&stack).await;
    stack.shutdown().await;
}

const GRACE_MS: i64 = 30_000;
const PARTY_OFFLINE_MS: i64 = 120_000;

/// Time is the stack's manual clock; the sweeper runs every second of real time. alice
/// never times out (a two-hour heartbeat timeout), bob drops for good.
async fn a_member_away_too_long_is_removed(stack: &TestStack, clock: &ManualClock) {
    let (mut alice, bob, _) = pair(stack).await;
    let cursor = bob.client.cursor();
    bob.client.vanish();
    stack
        .wait_for_status("bob", PresenceStatus::Disconnected)
        .await;

    // Past the grace: the sweeper takes bob offline, and the party shows it.
    clock.advance(GRACE_MS + 1);
    let offline = alice.party("presence", "bob").await;
    assert_eq!(offline["party"]["members"][1]["presence"], "offline");
    assert_eq!(offline["party"]["members"].as_array().unwrap().len(), 2);

    // Past PARTY_OFFLINE_SECONDS: removed, and alice is told he left.
    clock.advance(PARTY_OFFLINE_MS);
    let left = alice.party("left", "bob").await;
    assert_eq!(members(&left["party"]), ["alice"]);

    // bob, back, finds out from his replay; he is in no party.
    let (mut bob, ack) = Player::back(stack, "bob", cursor).await;
    assert_eq!(ack["party"], Value::Null, "{ack}");
    bob.party("presence", "bob").await;
    bob.party("left", "bob").await;
}

fn keep_alice_alive(settings: &mut Settings) {
    settings.presence.heartbeat_timeout_seconds = 7_200;
    settings.presence.sweep_interval_seconds = 1;
}

#[tokio::test]
async fn given_a_member_away_past_party_offline_seconds_then_the_sweeper_removes_them_and_the_others_are_told()
 {
    let clock = ManualClock::at(shared::ports::Clock::now_millis(
        &shared::ports::SystemClock,
    ));
    let stack = stack(Storage::Memory, Some(clock.clone()), keep_alice_alive)
        .await
        .unwrap();
    a_member_away_too_long_is_removed(&stack, &clock).await;
    stack.shutdown().await;
}

#[tokio::test]
async fn given_dynamodb_local_and_a_member_away_past_party_offline_seconds_then_the_sweeper_removes_them()
 {
    let clock = ManualClock::at(shared::ports::Clock::now_millis(
        &shared::ports::SystemClock,
    ));
    let Some(stack) = stack(Storage::DynamoDb, Some(clock.clone()), keep_alice_alive).await else {
        return;
    };
    a_member_away_too_long_is_removed(&stack, &clock).await;
    stack.shutdown().await;
}

// --- Races --------------------------------------------------------------------------------

/// A party of two with one seat left; bob and carol, both invited, join at once.
async fn two_joins_race_for_the_last_seat(stack: &TestStack) {
    let mut alice = Player::online(stack, "alice").await;
    let mut bob = Player::online(stack, "bob").await;
    let mut carol = Player::online(stack, "carol").await;
    let id = party_id(&alice.ok("createParty", json!({"maxSize": 2})).await);
    alice.ok("inviteToParty", json!({"playerId": "bob"})).await;
    alice
        .ok("inviteToParty", json!({"playerId": "carol"}))
        .await;

    let join = json!({"route": "joinParty", "body": {"partyId": id}});
    tokio::join!(
        bob.client.send_json(join.clone()),
        carol.client.send_json(join)
    );
    let (for_bob, for_carol) = tokio::join!(bob.reply("joinParty"), carol.reply("joinParty"));
    let replies = [&for_bob, &for_carol];
    let acks = replies.iter().filter(|r| r["type"] == "ack").count();
    assert_eq!(acks, 1, "exactly one wins: {replies:?}");
    let lost = replies.iter().find(|r| r["type"] == "error").unwrap();
    assert_eq!(lost["code"], "conflict", "{lost}");
    let won = replies.iter().find(|r| r["type"] == "ack").unwrap();
    assert_eq!(won["party"]["members"].as_array().unwrap().len(), 2);
    assert_eq!(won["party"]["version"], 2);
    alice.party("created", "alice").await;
    let joined = alice.push().await;
    assert_eq!(joined["change"], "joined");
    assert_eq!(joined["party"], won["party"]);
}

#[tokio::test]
async fn given_two_joins_racing_for_the_last_seat_then_exactly_one_wins() {
    let stack = stack(Storage::Memory, None, |_| {}).await.unwrap();
    two_joins_race_for_the_last_seat(&stack).await;
    stack.shutdown().await;
}

#[tokio::test]
async fn given_dynamodb_local_and_two_joins_racing_for_the_last_seat_then_exactly_one_wins() {
    let Some(stack) = stack(Storage::DynamoDb, None, |_| {}).await else {
        return;
    };
    two_joins_race_for_the_last_seat(&stack).await;
    stack.shutdown().await;
}

/// carol leaves while alice promotes bob, at the same instant: both changes land, one
/// after the other, and every member sees consecutive versions.
async fn two_members_act_at_once(stack: &TestStack) {
    let mut alice = Player::online(stack, "alice").await;
    let mut bob = Player::online(stack, "bob").await;
    let mut carol = Player::online(stack, "carol").await;
    let id = party_id(&alice.ok("createParty", json!({})).await);
    for player in [&mut bob, &mut carol] {
        alice
            .ok("inviteToParty", json!({"playerId": player.name}))
            .await;
        player.ok("joinParty", json!({"partyId": id})).await;
    }
    tokio::join!(
        carol
            .client
            .send_json(json!({"route": "leaveParty", "body": {}})),
        alice
            .client
            .send_json(json!({"route": "promotePartyLeader", "body": {"playerId": "bob"}})),
    );
    let (left, promoted) =
        tokio::join!(carol.reply("leaveParty"), alice.reply("promotePartyLeader"));
    assert_eq!(left["type"], "ack", "{left}");
    assert_eq!(promoted["type"], "ack", "{promoted}");
    let mut versions = Vec::new();
    while versions.last() != Some(&5) {
        let frame = bob.push().await;
        if frame["type"] == "party" {
            versions.push(frame["party"]["version"].as_u64().unwrap());
            if versions.len() == 4 {
                assert_eq!(frame["party"]["leaderId"], "bob", "{frame}");
                assert_eq!(members(&frame["party"]), ["alice", "bob"], "{frame}");
            }
        }
    }
    assert_eq!(versions, [2, 3, 4, 5], "joined, joined, then both changes");
}

#[tokio::test]
async fn given_two_members_acting_at_the_same_instant_then_both_changes_land_in_consecutive_versions()
 {
    let stack = stack(Storage::Memory, None, |_| {}).await.unwrap();
    two_members_act_at_once(&stack).await;
    stack.shutdown().await;
}

#[tokio::test]
async fn given_dynamodb_local_and_two_members_acting_at_the_same_instant_then_both_changes_land() {
    let Some(stack) = stack(Storage::DynamoDb, None, |_| {}).await else {
        return;
    };
    two_members_act_at_once(&stack).await;
    stack.shutdown().await;
}

// --- Placement ----------------------------------------------------------------------------

async fn the_leader_places_a_party_of_three(stack: &TestStack) {
    let mut alice = Player::online(stack, "alice").await;
    let mut bob = Player::online(stack, "bob").await;
    let mut carol = Player::online(stack, "carol").await;
    let id = party_id(&alice.ok("createParty", json!({})).await);
    for player in [&mut bob, &mut carol] {
        alice
            .ok("inviteToParty", json!({"playerId": player.name}))
            .await;
        player.ok("joinParty", json!({"partyId": id})).await;
    }
    bob.ok("setPlacementLatencies", json!({"latencies": {"local": 25}}))
        .await;

    let forbidden = bob.ask("sessionPlacementRequest", json!({})).await;
    assert_eq!(forbidden["code"], "forbidden", "{forbidden}");

    let ack = alice.ok("sessionPlacementRequest", json!({})).await;
    let placement_id = ack["placementId"].as_str().unwrap().to_owned();
    let mut seats = Vec::new();
    for player in [&mut alice, &mut bob, &mut carol] {
        let frame = loop {
            let frame = player.push().await;
            if frame["type"] == "placement" {
                break frame;
            }
        };
        assert_eq!(frame["placementId"], placement_id.as_str(), "{frame}");
        assert_eq!(frame["status"], "FULFILLED", "{frame}");
        seats.push(frame["gameSession"].clone());
    }
    let games: std::collections::BTreeSet<&str> = seats
        .iter()
        .map(|s| s["gameSessionArn"].as_str().unwrap())
        .collect();
    assert_eq!(games.len(), 1, "one game: {seats:?}");
    let sessions: std::collections::BTreeSet<&str> = seats
        .iter()
        .map(|s| s["playerSessionId"].as_str().unwrap())
        .collect();
    assert_eq!(sessions.len(), 3, "a seat each: {seats:?}");
    let placements = stack.stack().simulator().snapshot().placements;
    assert_eq!(placements.len(), 1, "one StartGameSessionPlacement");
}

#[tokio::test]
async fn given_a_party_of_three_when_the_leader_places_then_three_frames_seat_three_players_in_one_game()
 {
    let stack = stack(Storage::Memory, None, |_| {}).await.unwrap();
    the_leader_places_a_party_of_three(&stack).await;
    stack.shutdown().await;
}

#[tokio::test]
async fn given_dynamodb_local_and_a_party_of_three_when_the_leader_places_then_one_game_seats_all_three()
 {
    let Some(stack) = stack(Storage::DynamoDb, None, |_| {}).await else {
        return;
    };
    the_leader_places_a_party_of_three(&stack).await;
    stack.shutdown().await;
}

/// A party of three whose leader cancels the party's pending placement: every member is
/// told CANCELLED, and nothing stays pending (the leader can place again).
async fn the_leader_cancels_for_the_party(stack: &TestStack) {
    let mut alice = Player::online(stack, "alice").await;
    let mut bob = Player::online(stack, "bob").await;
    let mut carol = Player::online(stack, "carol").await;
    let id = party_id(&alice.ok("createParty", json!({})).await);
    for player in [&mut bob, &mut carol] {
        alice
            .ok("inviteToParty", json!({"playerId": player.name}))
            .await;
        player.ok("joinParty", json!({"partyId": id})).await;
    }
    let ack = alice.ok("sessionPlacementRequest", json!({})).await;
    let placement_id = ack["placementId"].as_str().unwrap().to_owned();

    let pending = bob.ask("sessionPlacementRequest", json!({})).await;
    assert_eq!(pending["code"], "forbidden", "{pending}");
    alice
        .ok("cancelPlacement", json!({"placementId": placement_id}))
        .await;

    for player in [&mut alice, &mut bob, &mut carol] {
        let frame = loop {
            let frame = player.push().await;
            if frame["type"] == "placement" {
                break frame;
            }
        };
        assert_eq!(frame["placementId"], placement_id.as_str(), "{frame}");
        assert_eq!(frame["status"], "CANCELLED", "{}: {frame}", player.name);
    }
    let again = alice.ok("sessionPlacementRequest", json!({})).await;
    assert_ne!(again["placementId"], placement_id.as_str(), "{again}");
}

#[tokio::test]
async fn given_a_partys_pending_placement_when_the_leader_cancels_then_every_member_is_told_cancelled()
 {
    // Placements take 1.5 s: long enough to cancel one.
    let stack = stack(Storage::Memory, None, |s| {
        s.simulator.sim_placement_delay_ms = 1_500;
    })
    .await
    .unwrap();
    the_leader_cancels_for_the_party(&stack).await;
    stack.shutdown().await;
}

// --- Bad input ------------------------------------------------------------------------------

#[tokio::test]
async fn given_bad_input_on_each_party_route_then_a_typed_error_and_the_socket_stays_usable() {
    let stack = stack(Storage::Memory, None, |_| {}).await.unwrap();
    let mut alice = Player::online(&stack, "alice").await;
    for (route, body, code) in [
        ("createParty", json!({"maxSize": 1}), "bad_request"),
        ("createParty", json!({"maxSize": 11}), "bad_request"),
        ("inviteToParty", json!({}), "bad_request"),
        ("inviteToParty", json!({"playerId": "a b"}), "bad_request"),
        ("inviteToParty", json!({"playerId": "bob"}), "not_found"),
        ("joinParty", json!({"partyId": 7}), "bad_request"),
        ("joinParty", json!({"partyId": "nope"}), "not_found"),
        (
            "declinePartyInvite",
            json!({"partyId": "nope"}),
            "not_found",
        ),
        ("leaveParty", json!({}), "not_found"),
        ("kickFromParty", json!({"playerId": "bob"}), "not_found"),
        ("promotePartyLeader", json!({}), "bad_request"),
        (
            "setPlacementLatencies",
            json!({"latencies": "fast"}),
            "bad_request",
        ),
        (
            "sendMessage",
            json!({"partyId": "nope", "message": 1}),
            "not_found",
        ),
    ] {
        let reply = alice.ask(route, body.clone()).await;
        assert_eq!(reply["type"], "error", "{route} {body}: {reply}");
        assert_eq!(reply["code"], code, "{route} {body}: {reply}");
    }
    let created = alice.ok("createParty", json!({"maxSize": 2})).await;
    assert_eq!(created["party"]["maxSize"], 2);
    stack.shutdown().await;
}
