//! The rule set reader and the matcher on their own: what each rule type lets through,
//! expansions over time, and what is refused at start-up.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::matcher::{PoolPlayer, PoolTicket, backfill, form};
use super::rule_set::{RuleKind, RuleSet};

fn rule_set(rules: Value, teams: Value) -> RuleSet {
    RuleSet::parse(
        &json!({"name": "t", "playerAttributes": [
                    {"name": "skill", "type": "number", "default": 10},
                    {"name": "mode", "type": "string", "default": "duel"}],
                "teams": teams, "rules": rules})
        .to_string(),
    )
    .unwrap()
}

fn duel(rules: Value) -> RuleSet {
    rule_set(
        rules,
        json!([{"name": "red", "minPlayers": 1, "maxPlayers": 1},
               {"name": "blue", "minPlayers": 1, "maxPlayers": 1}]),
    )
}

fn player(attributes: Value, latencies: &[(&str, u32)]) -> PoolPlayer {
    let Value::Object(attributes) = attributes else {
        unreachable!()
    };
    PoolPlayer {
        attributes: attributes.into_iter().collect::<Map<_, _>>(),
        latencies: latencies
            .iter()
            .map(|(r, ms)| ((*r).to_owned(), *ms))
            .collect::<BTreeMap<_, _>>(),
    }
}

fn solo(skill: f64) -> PoolTicket {
    PoolTicket {
        players: vec![player(
            json!({"skill": skill, "mode": "duel"}),
            &[("eu", 30)],
        )],
        waited: 0.0,
    }
}

#[test]
fn given_the_shipped_example_then_it_reads_with_its_rules_and_expansions() {
    let example = RuleSet::parse(include_str!("../../rule-sets/duel.json")).unwrap();
    assert_eq!(example.teams.len(), 2);
    assert_eq!(example.rules.len(), 2);
    assert_eq!(example.max_players(), 2);
    let later = example.expanded(45.0);
    let RuleKind::Distance { max_distance, .. } = &later.rules[0].kind else {
        panic!("FairSkill is a distance rule")
    };
    assert_eq!(*max_distance, Some(250.0));
}

#[test]
fn given_an_unsupported_rule_type_or_a_bad_file_then_it_is_refused_naming_it() {
    for (text, says) in [
        (
            json!({"teams": [{"name": "a", "minPlayers": 1, "maxPlayers": 1}],
                   "rules": [{"name": "c", "type": "collection"}]}),
            "rule type \"collection\" is not supported",
        ),
        (json!({"teams": []}), "defines no team"),
        (
            json!({"teams": [{"name": "a", "minPlayers": 3, "maxPlayers": 2}]}),
            "not 0 < min ≤ max",
        ),
        (
            json!({"teams": [{"name": "a", "minPlayers": 1, "maxPlayers": 2}],
                   "rules": [{"name": "l", "type": "latency", "maxLatency": 50, "maxDistance": 10}]}),
            "maxLatency only",
        ),
        (
            json!({"teams": [{"name": "a", "minPlayers": 1, "maxPlayers": 2}],
                   "expansions": [{"target": "rules[nope].maxDistance", "steps": []}]}),
            "no rule nope",
        ),
    ] {
        let error = RuleSet::parse(&text.to_string()).unwrap_err();
        assert!(error.contains(says), "{text}: {error}");
    }
}

#[test]
fn given_teams_with_a_quantity_then_each_copy_is_a_team() {
    let set = rule_set(
        json!([]),
        json!([{"name": "squad", "minPlayers": 2, "maxPlayers": 2, "quantity": 3}]),
    );
    let names: Vec<&str> = set.teams.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, vec!["squad_1", "squad_2", "squad_3"]);
}

#[test]
fn given_two_solo_players_and_no_rules_then_they_make_a_match_on_opposite_teams() {
    let formed = form(&duel(json!([])), &[solo(1.0), solo(2.0)]).unwrap();
    assert_eq!(formed.tickets, vec![0, 1]);
    assert_eq!(formed.teams[0], ("red".to_owned(), vec![0]));
    assert_eq!(formed.teams[1], ("blue".to_owned(), vec![1]));
    assert_eq!(
        form(&duel(json!([])), &[solo(1.0)]),
        None,
        "one player is no match"
    );
}

#[test]
fn given_a_distance_rule_then_far_apart_players_wait_until_an_expansion_allows_them() {
    let mut set = RuleSet::parse(
        &json!({"teams": [{"name": "red", "minPlayers": 1, "maxPlayers": 1},
                          {"name": "blue", "minPlayers": 1, "maxPlayers": 1}],
                "rules": [{"name": "fair", "type": "distance",
                           "measurements": ["avg(teams[*].players.attributes[skill])"],
                           "referenceValue": "avg(flatten(teams[*].players.attributes[skill]))",
                           "maxDistance": 50}],
                "expansions": [{"target": "rules[fair].maxDistance",
                                "steps": [{"waitTimeSeconds": 10, "value": 1000}]}]})
        .to_string(),
    )
    .unwrap();
    let pool = [solo(1000.0), solo(1300.0)];
    assert_eq!(form(&set, &pool), None, "150 from the average each");
    let close = [solo(1000.0), solo(1080.0)];
    assert!(form(&set, &close).is_some(), "40 from the average each");
    let waited = [
        PoolTicket {
            waited: 12.0,
            ..solo(1000.0)
        },
        solo(1300.0),
    ];
    assert!(
        form(&set, &waited).is_some(),
        "the oldest ticket waited past the step"
    );
    set.expansions.clear();
    assert_eq!(form(&set, &waited), None);
}

#[test]
fn given_a_latency_rule_then_players_need_a_region_fast_for_all() {
    let set = duel(json!([{"name": "fast", "type": "latency", "maxLatency": 100}]));
    let near = |region: &str, ms: u32| PoolTicket {
        players: vec![player(json!({"skill": 1}), &[(region, ms)])],
        waited: 0.0,
    };
    assert!(form(&set, &[near("eu", 50), near("eu", 90)]).is_some());
    assert_eq!(
        form(&set, &[near("eu", 50), near("us", 50)]),
        None,
        "no shared region"
    );
    assert_eq!(
        form(&set, &[near("eu", 50), near("eu", 150)]),
        None,
        "too slow"
    );
    let silent = PoolTicket {
        players: vec![player(json!({"skill": 1}), &[])],
        waited: 0.0,
    };
    assert_eq!(
        form(&set, &[near("eu", 50), silent]),
        None,
        "no latency, no match"
    );
}

#[test]
fn given_batch_distance_and_comparison_rules_then_each_keeps_unlike_players_apart() {
    let batch = duel(json!([{"name": "b", "type": "batchDistance", "batchAttribute": "mode"}]));
    let mode = |m: &str| PoolTicket {
        players: vec![player(json!({"skill": 1, "mode": m}), &[])],
        waited: 0.0,
    };
    assert!(form(&batch, &[mode("duel"), mode("duel")]).is_some());
    assert_eq!(form(&batch, &[mode("duel"), mode("race")]), None);
    let at_least = duel(json!([{"name": "c", "type": "comparison",
        "measurements": ["flatten(teams[*].players.attributes[skill])"],
        "referenceValue": 5, "operation": ">="}]));
    assert!(form(&at_least, &[solo(6.0), solo(9.0)]).is_some());
    assert_eq!(form(&at_least, &[solo(6.0), solo(2.0)]), None);
}

#[test]
fn given_a_party_ticket_then_its_players_stay_on_one_team() {
    let set = rule_set(
        json!([]),
        json!([{"name": "squad", "minPlayers": 3, "maxPlayers": 3}]),
    );
    let party = PoolTicket {
        players: vec![solo(1.0).players[0].clone(), solo(2.0).players[0].clone()],
        waited: 0.0,
    };
    let formed = form(&set, &[party, solo(3.0)]).unwrap();
    assert_eq!(formed.teams, vec![("squad".to_owned(), vec![0, 1])]);
    let too_big = PoolTicket {
        players: vec![solo(1.0).players[0].clone(); 4],
        waited: 0.0,
    };
    assert_eq!(form(&set, &[too_big]), None, "no team has room for four");
}

#[test]
fn given_a_backfill_of_a_red_player_then_a_searching_ticket_fills_blue_only_if_the_rules_pass_with_the_red_player()
 {
    let set = duel(json!([{"name": "fair", "type": "distance",
        "measurements": ["avg(teams[*].players.attributes[skill])"],
        "referenceValue": "avg(flatten(teams[*].players.attributes[skill]))",
        "maxDistance": 50}]));
    let seated = vec![("red".to_owned(), solo(1000.0).players)];
    let filled = backfill(&set, &seated, &[solo(1300.0), solo(1040.0)], 0.0);
    assert_eq!(
        filled,
        Some(vec![
            ("red".to_owned(), vec![]),
            ("blue".to_owned(), vec![1])
        ]),
        "1300 is too far from the seated 1000; 1040 takes the open blue slot"
    );
    assert_eq!(
        backfill(&set, &seated, &[solo(1300.0)], 0.0),
        None,
        "nobody fits"
    );
    let full = vec![
        ("red".to_owned(), solo(1000.0).players),
        ("blue".to_owned(), solo(1000.0).players),
    ];
    assert_eq!(
        backfill(&set, &full, &[solo(1000.0)], 0.0),
        None,
        "no open slot"
    );
}
