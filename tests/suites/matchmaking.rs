//! Matchmaking end to end over real WebSockets: `startMatchmaking` → the local FlexMatch
//! simulator (a real rule set file) → its EventBridge events → `on-matchmaking-event` →
//! the Messages table → its stream → `on-message-inserted` → `matchmaking` frames pushed
//! to every player of the ticket (no polling); acceptance, timeouts, stop, parties,
//! conflicts and bad input. In memory, and (with `DYNAMODB_ENDPOINT` set) on DynamoDB
//! Local.

use std::time::Duration;

use contracts::fixtures::assert_refused;
use local::Settings;
use serde_json::{Value, json};
use tests::dynamodb::unique_table_name;
use tests::player::Player;
use tests::stack::TestStack;

/// The rule set shipped with the repository: 1v1, skill within 100 of the average,
/// a region under 150 ms for both.
const DUEL: &str = include_str!("../../local/rule-sets/duel.json");

/// One team of three.
const SQUAD: &str = r#"{"name": "squad", "ruleLanguageVersion": "1.0",
  "playerAttributes": [{"name": "skill", "type": "number", "default": 10}],
  "teams": [{"name": "squad", "minPlayers": 3, "maxPlayers": 3}], "rules": []}"#;

#[derive(Clone, Copy)]
enum Storage {
    Memory,
    DynamoDb,
}

/// The stack with `rule_set` (written to a file, as a developer would give it),
/// acceptance after `acceptance` seconds (0: not required) and tickets timing out after
/// `timeout` seconds; `None` when DynamoDB Local is asked for and not there.
async fn stack(
    storage: Storage,
    rule_set: &str,
    acceptance: u64,
    timeout: u64,
    adjust: impl FnOnce(&mut Settings),
) -> Option<TestStack> {
    let path = std::env::temp_dir().join(format!("{}.json", unique_table_name("rule-set")));
    std::fs::write(&path, rule_set).unwrap();
    let mut dynamodb = true;
    let stack = TestStack::start_with(|s| {
        s.simulator.sim_server_startup_ms = 0;
        s.simulator.sim_placement_delay_ms = 100;
        s.matchmaking.matchmaking_rule_set = Some(path.to_string_lossy().into_owned());
        s.matchmaking.sim_acceptance_timeout_seconds = acceptance;
        s.matchmaking.sim_matchmaking_timeout_seconds = timeout;
        adjust(s);
        if let Storage::DynamoDb = storage {
            match tests::dynamodb::endpoint_or_skip() {
                Some(endpoint) => tests::dynamodb::use_fresh_tables(&mut s.storage, endpoint),
                None => dynamodb = false,
            }
        }
    })
    .await;
    if dynamodb {
        Some(stack)
    } else {
        stack.shutdown().await;
        None
    }
}

fn duel_body(skill: u32) -> Value {
    json!({"attributes": {"skill": skill}, "latencies": {"local": 20}})
}

/// The seat of a COMPLETED frame, checked whole.
fn seat(frame: &Value) -> &Value {
    let seat = &frame["gameSession"];
    assert!(
        seat["gameSessionArn"]
            .as_str()
            .unwrap()
            .starts_with("arn:aws:gamelift:"),
        "{frame}"
    );
    assert!(
        seat["playerSessionId"]
            .as_str()
            .unwrap()
            .starts_with("psess-"),
        "{frame}"
    );
    assert!(seat["port"].as_u64().is_some(), "{frame}");
    assert!(!seat["matchId"].as_str().unwrap().is_empty(), "{frame}");
    assert!(seat["team"].is_string(), "{frame}");
    seat
}

async fn two_solo_players_are_matched_one_on_one(stack: &TestStack) {
    let mut alice = Player::online(stack, "alice").await;
    let mut bob = Player::online(stack, "bob").await;
    let a = alice.start(duel_body(1000)).await;
    alice.status(&a, "SEARCHING").await;
    let b = bob.start(duel_body(1050)).await;
    bob.status(&b, "SEARCHING").await;
    let alice_done = alice.status(&a, "COMPLETED").await;
    let bob_done = bob.status(&b, "COMPLETED").await;
    let (sa, sb) = (seat(&alice_done), seat(&bob_done));
    assert_eq!(sa["gameSessionArn"], sb["gameSessionArn"], "the same game");
    assert_eq!(sa["matchId"], sb["matchId"]);
    assert_ne!(
        sa["playerSessionId"], sb["playerSessionId"],
        "each their own seat"
    );
    assert_ne!(sa["team"], sb["team"], "red and blue");
    // resume shows the game; rejoinSession gives a new seat in it.
    let ack = alice.client.resume(None).await;
    assert_eq!(ack["matchmaking"], Value::Null, "nothing live: {ack}");
    assert_eq!(
        ack["gameSession"]["gameSessionArn"], sa["gameSessionArn"],
        "{ack}"
    );
    // The game is full (a match's game holds its rule set's players): alice's client
    // crashed and the server removed her seat; she takes a new one in the same game.
    stack
        .stack()
        .simulator()
        .remove_player_session(sa["playerSessionId"].as_str().unwrap())
        .unwrap();
    let rejoined = alice.ok("rejoinSession", json!({})).await;
    assert_eq!(
        rejoined["gameSession"]["gameSessionArn"],
        sa["gameSessionArn"]
    );
    assert_ne!(
        rejoined["gameSession"]["playerSessionId"],
        sa["playerSessionId"]
    );
}

#[tokio::test]
async fn given_two_solo_players_then_they_are_matched_into_one_game_each_with_their_own_seat() {
    let stack = stack(Storage::Memory, DUEL, 0, 120, |_| {}).await.unwrap();
    two_solo_players_are_matched_one_on_one(&stack).await;
    stack.shutdown().await;
}

#[tokio::test]
async fn given_dynamodb_local_then_two_solo_players_are_matched_into_one_game() {
    let Some(stack) = stack(Storage::DynamoDb, DUEL, 0, 120, |_| {}).await else {
        return;
    };
    two_solo_players_are_matched_one_on_one(&stack).await;
    stack.shutdown().await;
}

async fn acceptance(stack: &TestStack) {
    let mut alice = Player::online(stack, "alice").await;
    let mut bob = Player::online(stack, "bob").await;
    let a = alice.start(duel_body(1000)).await;
    alice.status(&a, "SEARCHING").await;
    let b = bob.start(duel_body(1000)).await;
    bob.status(&b, "SEARCHING").await;
    let proposed = alice.status(&a, "REQUIRES_ACCEPTANCE").await;
    assert_eq!(proposed["acceptanceTimeout"], 30, "{proposed}");
    assert_eq!(proposed["players"], json!(["bob"]), "{proposed}");
    bob.status(&b, "REQUIRES_ACCEPTANCE").await;
    alice
        .ok("acceptMatch", json!({"ticketId": a, "accept": true}))
        .await;
    bob.ok("acceptMatch", json!({"ticketId": b, "accept": true}))
        .await;
    seat(&alice.status(&a, "COMPLETED").await);
    seat(&bob.status(&b, "COMPLETED").await);

    // Next round: carol rejects; her ticket is cancelled, dave's searches again.
    let mut carol = Player::online(stack, "carol").await;
    let mut dave = Player::online(stack, "dave").await;
    let c = carol.start(duel_body(1000)).await;
    carol.status(&c, "SEARCHING").await;
    let d = dave.start(duel_body(1000)).await;
    dave.status(&d, "SEARCHING").await;
    carol.status(&c, "REQUIRES_ACCEPTANCE").await;
    dave.status(&d, "REQUIRES_ACCEPTANCE").await;
    dave.ok("acceptMatch", json!({"ticketId": d, "accept": true}))
        .await;
    carol
        .ok("acceptMatch", json!({"ticketId": c, "accept": false}))
        .await;
    carol.status(&c, "CANCELLED").await;
    dave.status(&d, "SEARCHING").await;
    // Answering a ticket no longer awaiting acceptance is a conflict.
    let late = dave
        .ask("acceptMatch", json!({"ticketId": d, "accept": true}))
        .await;
    assert_eq!(late["code"], "conflict", "{late}");
    // carol is free again: she may start another ticket.
    carol.start(duel_body(1000)).await;
}

#[tokio::test]
async fn given_acceptance_required_then_accepting_completes_and_a_rejection_cancels_only_the_rejecter()
 {
    let stack = stack(Storage::Memory, DUEL, 30, 120, |_| {}).await.unwrap();
    acceptance(&stack).await;
    stack.shutdown().await;
}

#[tokio::test]
async fn given_dynamodb_local_and_acceptance_required_then_accept_and_reject_work_alike() {
    let Some(stack) = stack(Storage::DynamoDb, DUEL, 30, 120, |_| {}).await else {
        return;
    };
    acceptance(&stack).await;
    stack.shutdown().await;
}

async fn timed_out(storage: Storage) {
    let Some(stack) = stack(storage, DUEL, 0, 1, |_| {}).await else {
        return;
    };
    let mut alice = Player::online(&stack, "alice").await;
    let a = alice.start(duel_body(1000)).await;
    alice.status(&a, "SEARCHING").await;
    let timed_out = alice.status(&a, "TIMED_OUT").await;
    assert!(
        timed_out["reason"].as_str().unwrap().contains("timing out"),
        "{timed_out}"
    );
    // Free again.
    alice.start(duel_body(1000)).await;
    stack.shutdown().await;
}

async fn stopped(storage: Storage) {
    let Some(stack) = stack(storage, DUEL, 0, 120, |_| {}).await else {
        return;
    };
    let mut alice = Player::online(&stack, "alice").await;
    let a = alice.start(duel_body(1000)).await;
    alice.status(&a, "SEARCHING").await;
    let resumed = alice.client.resume(None).await;
    assert_eq!(
        resumed["matchmaking"],
        json!({"ticketId": a}),
        "resume reports it: {resumed}"
    );
    let stopped = alice.ok("stopMatchmaking", json!({})).await;
    assert_eq!(stopped["ticketId"], a.as_str());
    alice.status(&a, "CANCELLED").await;
    let again = alice.ask("stopMatchmaking", json!({})).await;
    assert_eq!(again["code"], "not_found", "{again}");
    stack.shutdown().await;
}

async fn party_team(storage: Storage) {
    let Some(stack) = stack(storage, SQUAD, 0, 120, |_| {}).await else {
        return;
    };
    let mut alice = Player::online(&stack, "alice").await;
    let mut bob = Player::online(&stack, "bob").await;
    let mut carol = Player::online(&stack, "carol").await;
    let created = alice.ok("createParty", json!({})).await;
    let party = created["party"]["partyId"].as_str().unwrap().to_owned();
    alice.ok("inviteToParty", json!({"playerId": "bob"})).await;
    bob.ok("joinParty", json!({"partyId": party})).await;
    let member = bob.ask("startMatchmaking", json!({})).await;
    assert_eq!(member["code"], "forbidden", "only the leader: {member}");
    let ticket = alice.start(json!({"attributes": {"skill": 12}})).await;
    alice.status(&ticket, "SEARCHING").await;
    bob.status(&ticket, "SEARCHING").await;
    let solo = carol.start(json!({})).await;
    carol.status(&solo, "SEARCHING").await;
    let a = seat(&alice.status(&ticket, "COMPLETED").await).clone();
    let b = seat(&bob.status(&ticket, "COMPLETED").await).clone();
    let c = seat(&carol.status(&solo, "COMPLETED").await).clone();
    assert_eq!(a["gameSessionArn"], c["gameSessionArn"]);
    assert_eq!(b["gameSessionArn"], c["gameSessionArn"]);
    assert_eq!(
        (&a["team"], &b["team"], &c["team"]),
        (&json!("squad"), &json!("squad"), &json!("squad"))
    );
    let sessions = [
        &a["playerSessionId"],
        &b["playerSessionId"],
        &c["playerSessionId"],
    ];
    assert!(sessions[0] != sessions[1] && sessions[1] != sessions[2] && sessions[0] != sessions[2]);
    stack.shutdown().await;
}

async fn distance(storage: Storage) {
    let Some(stack) = stack(storage, DUEL, 0, 120, |_| {}).await else {
        return;
    };
    let mut alice = Player::online(&stack, "alice").await;
    let mut bob = Player::online(&stack, "bob").await;
    let a = alice.start(duel_body(1000)).await;
    let b = bob.start(duel_body(3000)).await;
    alice.status(&a, "SEARCHING").await;
    bob.status(&b, "SEARCHING").await;
    assert_eq!(
        alice.next_matchmaking(Duration::from_millis(1_500)).await,
        None,
        "not matched with bob"
    );
    let mut carol = Player::online(&stack, "carol").await;
    let c = carol.start(duel_body(1080)).await;
    carol.status(&c, "SEARCHING").await;
    let alice_done = alice.status(&a, "COMPLETED").await;
    let carol_done = carol.status(&c, "COMPLETED").await;
    assert_eq!(
        seat(&alice_done)["gameSessionArn"],
        seat(&carol_done)["gameSessionArn"]
    );
    assert_eq!(
        bob.next_matchmaking(Duration::from_millis(300)).await,
        None,
        "bob still searching"
    );
    stack.shutdown().await;
}

async fn conflicts(storage: Storage) {
    // No capacity: a placement stays pending.
    let Some(stack) = stack(storage, DUEL, 0, 120, |s| s.simulator.sim_fleet_servers = 0).await
    else {
        return;
    };
    let mut alice = Player::online(&stack, "alice").await;
    let placed = alice.ok("sessionPlacementRequest", json!({})).await;
    let refused = alice.ask("startMatchmaking", json!({})).await;
    assert_eq!(refused["code"], "conflict", "{refused}");
    assert_eq!(refused["placementId"], placed["placementId"], "{refused}");
    let mut bob = Player::online(&stack, "bob").await;
    let ticket = bob.start(duel_body(1000)).await;
    let refused = bob.ask("sessionPlacementRequest", json!({})).await;
    assert_eq!(refused["code"], "conflict", "{refused}");
    assert_eq!(refused["ticketId"], ticket.as_str(), "{refused}");
    stack.shutdown().await;
}

async fn bad_input(storage: Storage) {
    let Some(stack) = stack(storage, DUEL, 0, 120, |_| {}).await else {
        return;
    };
    let mut alice = Player::online(&stack, "alice").await;
    for (body, code, says) in [
        // Well formed, but not a configuration of this stack.
        (
            json!({"configuration": "ranked"}),
            "not_found",
            "not a known matchmaking configuration; use one of: default",
        ),
        // Well formed, but not what the rule set declares: GameLift's refusal.
        (
            json!({"attributes": {"skill": "high"}}),
            "bad_request",
            "attribute skill must be of type Number",
        ),
        (
            json!({"attributes": {"skill": [1]}}),
            "bad_request",
            "`attributes.skill[0]` must be a string",
        ),
        (
            json!({"attributes": 5}),
            "bad_request",
            "`attributes` must be an object",
        ),
        (
            json!({"latencies": {"local": -5}}),
            "bad_request",
            "must be from 0 to 10000",
        ),
        (
            json!({"latencies": "fast"}),
            "bad_request",
            "`latencies` must be an object",
        ),
    ] {
        let reply = alice.ask("startMatchmaking", body.clone()).await;
        assert_refused(&reply, code, says);
    }
    let nothing = alice
        .ask(
            "acceptMatch",
            json!({"ticketId": "mm-nope", "accept": true}),
        )
        .await;
    assert_eq!(nothing["code"], "not_found", "{nothing}");
    stack.shutdown().await;
}

#[tokio::test]
async fn given_no_rule_set_then_the_matchmaking_routes_are_unavailable_saying_why() {
    let stack = TestStack::start().await;
    let mut alice = Player::online(&stack, "alice").await;
    let reply = alice.ask("startMatchmaking", json!({})).await;
    assert_refused(&reply, "unavailable", "--matchmaking-rule-set");
    stack.shutdown().await;
}

#[test]
fn given_a_rule_type_the_simulator_cannot_honour_then_start_up_fails_naming_it() {
    let rule_set = r#"{"teams": [{"name": "a", "minPlayers": 1, "maxPlayers": 2}],
        "rules": [{"name": "Sorted", "type": "absoluteSort", "sortDirection": "ascending",
                   "sortAttribute": "skill"}]}"#;
    let path = std::env::temp_dir().join(format!("{}.json", unique_table_name("bad-rule-set")));
    std::fs::write(&path, rule_set).unwrap();
    let mut settings = Settings::default();
    settings.matchmaking.matchmaking_rule_set = Some(path.to_string_lossy().into_owned());
    let problems = settings.validate().unwrap_err().problems.join("; ");
    assert!(
        problems.contains("rule type \"absoluteSort\" is not supported"),
        "{problems}"
    );
}

#[tokio::test]
async fn given_a_player_alone_in_a_two_player_rule_set_then_the_ticket_times_out() {
    timed_out(Storage::Memory).await;
}

#[tokio::test]
async fn given_dynamodb_local_a_player_alone_in_a_two_player_rule_set_then_the_ticket_times_out() {
    timed_out(Storage::DynamoDb).await;
}

#[tokio::test]
async fn given_a_searching_ticket_when_stopped_then_cancelled_is_pushed_and_stop_again_is_not_found()
 {
    stopped(Storage::Memory).await;
}

#[tokio::test]
async fn given_dynamodb_local_a_searching_ticket_when_stopped_then_cancelled_is_pushed_and_stop_again_is_not_found()
 {
    stopped(Storage::DynamoDb).await;
}

#[tokio::test]
async fn given_a_party_of_two_and_a_solo_player_then_they_make_one_team_of_three() {
    party_team(Storage::Memory).await;
}

#[tokio::test]
async fn given_dynamodb_local_a_party_of_two_and_a_solo_player_then_they_make_one_team_of_three() {
    party_team(Storage::DynamoDb).await;
}

#[tokio::test]
async fn given_a_skill_distance_rule_then_far_apart_players_stay_apart_and_close_ones_match() {
    distance(Storage::Memory).await;
}

#[tokio::test]
async fn given_dynamodb_local_a_skill_distance_rule_then_far_apart_players_stay_apart_and_close_ones_match()
 {
    distance(Storage::DynamoDb).await;
}

#[tokio::test]
async fn given_a_pending_placement_or_a_live_ticket_then_each_conflicts_with_the_other() {
    conflicts(Storage::Memory).await;
}

#[tokio::test]
async fn given_dynamodb_local_a_pending_placement_or_a_live_ticket_then_each_conflicts_with_the_other()
 {
    conflicts(Storage::DynamoDb).await;
}

#[tokio::test]
async fn given_bad_input_then_each_is_a_typed_error() {
    bad_input(Storage::Memory).await;
}

#[tokio::test]
async fn given_dynamodb_local_bad_input_then_each_is_a_typed_error() {
    bad_input(Storage::DynamoDb).await;
}

/// Acceptance in 3 s: alice accepts, bob never answers; his ticket is cancelled and hers
/// searches again. (1 s, FlexMatch's least, left too little room for alice's accept on a
/// loaded machine: her ticket was sometimes cancelled first.)
async fn acceptance_times_out(storage: Storage) {
    let Some(stack) = stack(storage, DUEL, 3, 120, |_| {}).await else {
        return;
    };
    let mut alice = Player::online(&stack, "alice").await;
    let mut bob = Player::online(&stack, "bob").await;
    let a = alice.start(duel_body(1000)).await;
    alice.status(&a, "SEARCHING").await;
    let b = bob.start(duel_body(1000)).await;
    bob.status(&b, "SEARCHING").await;
    let proposed = alice.status(&a, "REQUIRES_ACCEPTANCE").await;
    assert_eq!(proposed["acceptanceTimeout"], 3, "{proposed}");
    bob.status(&b, "REQUIRES_ACCEPTANCE").await;
    alice
        .ok("acceptMatch", json!({"ticketId": a, "accept": true}))
        .await;
    bob.status(&b, "CANCELLED").await;
    alice.status(&a, "SEARCHING").await;
    stack.shutdown().await;
}

#[tokio::test]
async fn given_a_player_who_never_answers_then_their_ticket_is_cancelled_and_the_others_search_again()
 {
    acceptance_times_out(Storage::Memory).await;
}

#[tokio::test]
async fn given_dynamodb_local_a_player_who_never_answers_then_their_ticket_is_cancelled_and_the_others_search_again()
 {
    acceptance_times_out(Storage::DynamoDb).await;
}
