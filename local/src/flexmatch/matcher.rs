//! Forming a match from the tickets searching: the oldest ticket first, others added in
//! the order they came while the rules (as expanded for the oldest ticket's wait) still
//! pass, every ticket's players on one team, until every team has its minimum. So a
//! match forms as soon as the rules allow.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::expr::{MatchView, Scalar};
use super::rule_set::{Operation, Reference, Rule, RuleKind, RuleSet};

/// A player as the matcher sees them: attributes (defaults applied) and latencies.
#[derive(Clone, Debug, PartialEq)]
pub struct PoolPlayer {
    pub attributes: Map<String, Value>,
    pub latencies: BTreeMap<String, u32>,
}

/// A searching ticket.
#[derive(Clone, Debug, PartialEq)]
pub struct PoolTicket {
    pub players: Vec<PoolPlayer>,
    /// Seconds since it started.
    pub waited: f64,
}

/// A match: which tickets (indices into the pool), and each team's tickets.
#[derive(Clone, Debug, PartialEq)]
pub struct Formed {
    pub tickets: Vec<usize>,
    /// Team name → the tickets on it.
    pub teams: Vec<(String, Vec<usize>)>,
}

pub fn form(rule_set: &RuleSet, pool: &[PoolTicket]) -> Option<Formed> {
    for anchor in 0..pool.len() {
        let rules = rule_set.expanded(pool[anchor].waited);
        let mut teams: Vec<(String, Vec<usize>)> = rules
            .teams
            .iter()
            .map(|t| (t.name.clone(), Vec::new()))
            .collect();
        if !place(&rules, pool, &mut teams, anchor) {
            continue;
        }
        let mut tickets = vec![anchor];
        if complete(&rules, pool, &teams) {
            return Some(Formed { tickets, teams });
        }
        for other in (0..pool.len()).filter(|&i| i != anchor) {
            if place(&rules, pool, &mut teams, other) {
                tickets.push(other);
                if complete(&rules, pool, &teams) {
                    return Some(Formed { tickets, teams });
                }
            }
        }
    }
    None
}

/// A backfill: the match's current players (`seated`, by team) stay where they are and
/// the searching tickets of `pool` are added, oldest first, wherever the rules (expanded
/// for the backfill's wait) still pass and a team has room; `Some` once at least one
/// ticket joined and every team has its minimum. Returns each team's new tickets.
pub fn backfill(
    rule_set: &RuleSet,
    seated: &[(String, Vec<PoolPlayer>)],
    pool: &[PoolTicket],
    waited: f64,
) -> Option<Vec<(String, Vec<usize>)>> {
    let rules = rule_set.expanded(waited);
    // The current players as one pseudo-ticket per team, after the real ones.
    let mut all = pool.to_vec();
    let mut teams: Vec<(String, Vec<usize>)> = Vec::new();
    for team in &rules.teams {
        let players: Vec<PoolPlayer> = seated
            .iter()
            .filter(|(name, _)| *name == team.name)
            .flat_map(|(_, players)| players.iter().cloned())
            .collect();
        let mut tickets = Vec::new();
        if !players.is_empty() {
            tickets.push(all.len());
            all.push(PoolTicket { players, waited });
        }
        teams.push((team.name.clone(), tickets));
    }
    let mut added = false;
    for ticket in 0..pool.len() {
        added |= place(&rules, &all, &mut teams, ticket);
    }
    if !added || !complete(&rules, &all, &teams) {
        return None;
    }
    Some(
        teams
            .into_iter()
            .map(|(name, tickets)| {
                (
                    name,
                    tickets.into_iter().filter(|&t| t < pool.len()).collect(),
                )
            })
            .collect(),
    )
}

fn size(pool: &[PoolTicket], tickets: &[usize]) -> usize {
    tickets.iter().map(|&t| pool[t].players.len()).sum()
}

fn complete(rules: &RuleSet, pool: &[PoolTicket], teams: &[(String, Vec<usize>)]) -> bool {
    rules
        .teams
        .iter()
        .zip(teams)
        .all(|(team, (_, tickets))| size(pool, tickets) >= team.min_players as usize)
}

/// Puts `ticket` on the first team with room where every rule still passes.
fn place(
    rules: &RuleSet,
    pool: &[PoolTicket],
    teams: &mut [(String, Vec<usize>)],
    ticket: usize,
) -> bool {
    let players = pool[ticket].players.len();
    for index in 0..teams.len() {
        let room = rules.teams[index].max_players as usize;
        if size(pool, &teams[index].1) + players > room {
            continue;
        }
        teams[index].1.push(ticket);
        if rules.rules.iter().all(|rule| passes(rule, pool, teams)) {
            return true;
        }
        teams[index].1.pop();
    }
    false
}

fn passes(rule: &Rule, pool: &[PoolTicket], teams: &[(String, Vec<usize>)]) -> bool {
    let view = MatchView {
        teams: teams
            .iter()
            .map(|(name, tickets)| {
                (
                    name.as_str(),
                    tickets
                        .iter()
                        .flat_map(|&t| pool[t].players.iter().map(|p| &p.attributes))
                        .collect(),
                )
            })
            .collect(),
    };
    let players = || {
        teams
            .iter()
            .flat_map(|(_, tickets)| tickets.iter().flat_map(|&t| pool[t].players.iter()))
    };
    match &rule.kind {
        RuleKind::Comparison {
            measurement,
            reference,
            operation,
        } => {
            let values = measurement.eval(&view).flat();
            match reference {
                Some(reference) => {
                    let reference = resolve(reference, &view);
                    values.iter().all(|v| compare(v, operation, &reference))
                }
                None => match operation {
                    Operation::Eq => values.windows(2).all(|w| w[0] == w[1]),
                    Operation::Ne => values
                        .iter()
                        .enumerate()
                        .all(|(i, v)| !values[..i].contains(v)),
                    _ => true,
                },
            }
        }
        RuleKind::Distance {
            measurement,
            reference,
            max_distance,
            min_distance,
        } => {
            let values: Vec<f64> = measurement
                .eval(&view)
                .flat()
                .iter()
                .filter_map(Scalar::number)
                .collect();
            let within = |d: f64| {
                max_distance.is_none_or(|max| d <= max) && min_distance.is_none_or(|min| d >= min)
            };
            match reference.as_ref().map(|r| resolve(r, &view)) {
                Some(Scalar::Number(reference)) => {
                    values.iter().all(|v| within((v - reference).abs()))
                }
                Some(Scalar::Text(_)) => false,
                None if values.len() < 2 => true,
                None => {
                    let spread = values.iter().copied().fold(f64::NEG_INFINITY, f64::max)
                        - values.iter().copied().fold(f64::INFINITY, f64::min);
                    max_distance.is_none_or(|max| spread <= max)
                }
            }
        }
        RuleKind::Latency { max_latency } => {
            let all: Vec<&PoolPlayer> = players().collect();
            let regions: Vec<&String> = all.iter().flat_map(|p| p.latencies.keys()).collect();
            regions.iter().any(|region| {
                all.iter().all(|p| {
                    p.latencies
                        .get(*region)
                        .is_some_and(|ms| f64::from(*ms) <= *max_latency)
                })
            })
        }
        RuleKind::BatchDistance {
            attribute,
            max_distance,
        } => {
            let values: Vec<&Value> = players()
                .filter_map(|p| p.attributes.get(attribute))
                .collect();
            let numbers: Vec<f64> = values.iter().filter_map(|v| v.as_f64()).collect();
            if numbers.len() == values.len() && !numbers.is_empty() {
                let spread = numbers.iter().copied().fold(f64::NEG_INFINITY, f64::max)
                    - numbers.iter().copied().fold(f64::INFINITY, f64::min);
                max_distance.is_none_or(|max| spread <= max)
            } else {
                values.windows(2).all(|w| w[0] == w[1])
            }
        }
    }
}

fn resolve(reference: &Reference, view: &MatchView<'_>) -> Scalar {
    match reference {
        Reference::Number(n) => Scalar::Number(*n),
        Reference::Text(t) => Scalar::Text(t.clone()),
        // A reference is one value: the first the expression gives (NaN when none,
        // which no distance is within).
        Reference::Expr(expr) => expr
            .eval(view)
            .flat()
            .into_iter()
            .next()
            .unwrap_or(Scalar::Number(f64::NAN)),
    }
}

fn compare(value: &Scalar, operation: &Operation, reference: &Scalar) -> bool {
    use std::cmp::Ordering;
    let ordering = match (value, reference) {
        (Scalar::Number(a), Scalar::Number(b)) => a.partial_cmp(b),
        (Scalar::Text(a), Scalar::Text(b)) => Some(a.cmp(b)),
        _ => None,
    };
    let Some(ordering) = ordering else {
        return matches!(operation, Operation::Ne);
    };
    match operation {
        Operation::Eq => ordering == Ordering::Equal,
        Operation::Ne => ordering != Ordering::Equal,
        Operation::Lt => ordering == Ordering::Less,
        Operation::Le => ordering != Ordering::Greater,
        Operation::Gt => ordering == Ordering::Greater,
        Operation::Ge => ordering != Ordering::Less,
    }
}
