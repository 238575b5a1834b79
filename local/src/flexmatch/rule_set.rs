//! A FlexMatch rule set file, read and checked once at start-up: `playerAttributes`
//! (with defaults), `teams` (with `quantity`), rules of the types the simulator
//! evaluates (`comparison`, `distance`, `latency`, `batchDistance`) and `expansions` of
//! their values. Anything else the simulator cannot honour is refused, naming it, rather
//! than silently matching differently from GameLift.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use super::expr::Expr;

/// The rule types the simulator evaluates.
pub const SUPPORTED_RULE_TYPES: &[&str] = &["comparison", "distance", "latency", "batchDistance"];

#[derive(Clone, Debug, PartialEq)]
pub enum AttributeType {
    Number,
    String,
    StringList,
    StringNumberMap,
}

#[derive(Clone, Debug, PartialEq)]
pub struct PlayerAttribute {
    pub name: String,
    pub kind: AttributeType,
    pub default: Option<Value>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Team {
    pub name: String,
    pub min_players: u32,
    pub max_players: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Operation {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// A reference: a literal or a property expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Reference {
    Number(f64),
    Text(String),
    Expr(Expr),
}

#[derive(Clone, Debug, PartialEq)]
pub enum RuleKind {
    Comparison {
        measurement: Expr,
        reference: Option<Reference>,
        operation: Operation,
    },
    Distance {
        measurement: Expr,
        reference: Option<Reference>,
        max_distance: Option<f64>,
        min_distance: Option<f64>,
    },
    Latency {
        max_latency: f64,
    },
    BatchDistance {
        attribute: String,
        max_distance: Option<f64>,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Rule {
    pub name: String,
    pub kind: RuleKind,
}

/// `rules[NAME].PROPERTY` or `teams[NAME].PROPERTY`, stepped over the wait time.
#[derive(Clone, Debug, PartialEq)]
pub struct Expansion {
    pub target: Target,
    /// (seconds waited, value), by seconds.
    pub steps: Vec<(f64, f64)>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Target {
    Rule { rule: String, property: String },
    Team { team: String, property: String },
}

#[derive(Clone, Debug, PartialEq)]
pub struct RuleSet {
    pub name: String,
    pub attributes: Vec<PlayerAttribute>,
    /// Every team, `quantity` expanded (`NAME_1`, `NAME_2`, …).
    pub teams: Vec<Team>,
    pub rules: Vec<Rule>,
    pub expansions: Vec<Expansion>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawRuleSet {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    player_attributes: Vec<RawAttribute>,
    #[serde(default)]
    teams: Vec<RawTeam>,
    #[serde(default)]
    rules: Vec<serde_json::Map<String, Value>>,
    #[serde(default)]
    expansions: Vec<RawExpansion>,
}

#[derive(Deserialize)]
struct RawAttribute {
    name: String,
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    default: Option<Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawTeam {
    name: String,
    min_players: u32,
    max_players: u32,
    #[serde(default)]
    quantity: Option<u32>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawExpansion {
    target: String,
    steps: Vec<RawStep>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawStep {
    wait_time_seconds: f64,
    value: f64,
}

impl RuleSet {
    /// Reads and checks a rule set's JSON text; the error names what is wrong.
    pub fn parse(text: &str) -> Result<Self, String> {
        let raw: RawRuleSet =
            serde_json::from_str(text).map_err(|e| format!("not a FlexMatch rule set: {e}"))?;
        let attributes = raw
            .player_attributes
            .into_iter()
            .map(|a| {
                let kind = match a.kind.as_str() {
                    "number" => AttributeType::Number,
                    "string" => AttributeType::String,
                    "string_list" => AttributeType::StringList,
                    "string_number_map" => AttributeType::StringNumberMap,
                    other => {
                        return Err(format!(
                            "player attribute {}: unknown type {other:?}",
                            a.name
                        ));
                    }
                };
                Ok(PlayerAttribute {
                    name: a.name,
                    kind,
                    default: a.default,
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        if raw.teams.is_empty() {
            return Err("the rule set defines no team".to_owned());
        }
        let mut teams = Vec::new();
        for team in raw.teams {
            if team.min_players > team.max_players || team.max_players == 0 {
                return Err(format!(
                    "team {}: minPlayers {} and maxPlayers {} are not 0 < min ≤ max",
                    team.name, team.min_players, team.max_players
                ));
            }
            match team.quantity.unwrap_or(1) {
                0 => return Err(format!("team {}: quantity must be at least 1", team.name)),
                1 => teams.push(Team {
                    name: team.name,
                    min_players: team.min_players,
                    max_players: team.max_players,
                }),
                n => teams.extend((1..=n).map(|i| Team {
                    name: format!("{}_{i}", team.name),
                    min_players: team.min_players,
                    max_players: team.max_players,
                })),
            }
        }
        let rules = raw.rules.iter().map(rule).collect::<Result<Vec<_>, _>>()?;
        let expansions = raw
            .expansions
            .into_iter()
            .map(|e| {
                let target = target(&e.target, &rules, &teams)?;
                let mut steps: Vec<(f64, f64)> = e
                    .steps
                    .iter()
                    .map(|s| (s.wait_time_seconds, s.value))
                    .collect();
                steps.sort_by(|a, b| a.0.total_cmp(&b.0));
                Ok(Expansion { target, steps })
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(Self {
            name: raw.name.unwrap_or_else(|| "rule-set".to_owned()),
            attributes,
            teams,
            rules,
            expansions,
        })
    }

    /// The most players a match holds.
    pub fn max_players(&self) -> u32 {
        self.teams.iter().map(|t| t.max_players).sum()
    }

    /// The rule set as it stands after `waited` seconds: every expansion's last step
    /// reached applied.
    pub fn expanded(&self, waited: f64) -> Self {
        let mut expanded = self.clone();
        for expansion in &self.expansions {
            let Some(value) = expansion
                .steps
                .iter()
                .rev()
                .find(|(after, _)| *after <= waited)
                .map(|(_, value)| *value)
            else {
                continue;
            };
            match &expansion.target {
                Target::Team { team, property } => {
                    for t in expanded
                        .teams
                        .iter_mut()
                        .filter(|t| t.name == *team || t.name.starts_with(&format!("{team}_")))
                    {
                        match property.as_str() {
                            "minPlayers" => t.min_players = value as u32,
                            _ => t.max_players = value as u32,
                        }
                    }
                }
                Target::Rule { rule, property } => {
                    for r in expanded.rules.iter_mut().filter(|r| r.name == *rule) {
                        set_property(&mut r.kind, property, value);
                    }
                }
            }
        }
        expanded
    }
}

fn set_property(kind: &mut RuleKind, property: &str, value: f64) {
    match (kind, property) {
        (RuleKind::Distance { max_distance, .. }, "maxDistance")
        | (RuleKind::BatchDistance { max_distance, .. }, "maxDistance") => {
            *max_distance = Some(value)
        }
        (RuleKind::Distance { min_distance, .. }, "minDistance") => *min_distance = Some(value),
        (RuleKind::Latency { max_latency }, "maxLatency") => *max_latency = value,
        (
            RuleKind::Comparison { reference, .. } | RuleKind::Distance { reference, .. },
            "referenceValue",
        ) => *reference = Some(Reference::Number(value)),
        _ => {}
    }
}

fn rule(raw: &serde_json::Map<String, Value>) -> Result<Rule, String> {
    let name = raw
        .get("name")
        .and_then(Value::as_str)
        .ok_or("a rule has no name")?
        .to_owned();
    let kind = raw.get("type").and_then(Value::as_str).unwrap_or_default();
    let number = |field: &str| raw.get(field).and_then(Value::as_f64);
    let measurement = || -> Result<Expr, String> {
        let text = match raw.get("measurements") {
            Some(Value::Array(items)) if items.len() == 1 => items[0].as_str(),
            Some(Value::String(text)) => Some(text.as_str()),
            _ => None,
        }
        .ok_or_else(|| format!("rule {name}: `measurements` must be one property expression"))?;
        Expr::parse(text).map_err(|e| format!("rule {name}: measurements {text:?}: {e}"))
    };
    let reference = || -> Result<Option<Reference>, String> {
        Ok(match raw.get("referenceValue") {
            None | Some(Value::Null) => None,
            Some(Value::Number(n)) => n.as_f64().map(Reference::Number),
            Some(Value::String(text)) => Some(match Expr::parse(text) {
                Ok(expr) => Reference::Expr(expr),
                Err(_) => Reference::Text(text.clone()),
            }),
            Some(other) => {
                return Err(format!(
                    "rule {name}: referenceValue {other} is not supported"
                ));
            }
        })
    };
    let kind = match kind {
        "comparison" => RuleKind::Comparison {
            measurement: measurement()?,
            reference: reference()?,
            operation: match raw.get("operation").and_then(Value::as_str) {
                Some("=") => Operation::Eq,
                Some("!=") => Operation::Ne,
                Some("<") => Operation::Lt,
                Some("<=") => Operation::Le,
                Some(">") => Operation::Gt,
                Some(">=") => Operation::Ge,
                other => return Err(format!("rule {name}: unknown operation {other:?}")),
            },
        },
        "distance" => RuleKind::Distance {
            measurement: measurement()?,
            reference: reference()?,
            max_distance: number("maxDistance"),
            min_distance: number("minDistance"),
        },
        "latency" => {
            if raw.contains_key("maxDistance") {
                return Err(format!(
                    "rule {name}: the local FlexMatch simulator supports a latency rule's maxLatency only, not maxDistance"
                ));
            }
            RuleKind::Latency {
                max_latency: number("maxLatency")
                    .ok_or_else(|| format!("rule {name}: a latency rule needs maxLatency"))?,
            }
        }
        "batchDistance" => RuleKind::BatchDistance {
            attribute: raw
                .get("batchAttribute")
                .and_then(Value::as_str)
                .ok_or_else(|| format!("rule {name}: a batchDistance rule needs batchAttribute"))?
                .to_owned(),
            max_distance: number("maxDistance"),
        },
        other => {
            return Err(format!(
                "rule {name}: rule type {other:?} is not supported by the local FlexMatch simulator (it supports {})",
                SUPPORTED_RULE_TYPES.join(", ")
            ));
        }
    };
    Ok(Rule { name, kind })
}

fn target(raw: &str, rules: &[Rule], teams: &[Team]) -> Result<Target, String> {
    let bad =
        || format!("expansion target {raw:?} is not rules[NAME].PROPERTY or teams[NAME].PROPERTY");
    let (head, property) = raw.split_once("].").ok_or_else(bad)?;
    let property = property.to_owned();
    if let Some(rule) = head.strip_prefix("rules[") {
        if !rules.iter().any(|r| r.name == rule) {
            return Err(format!("expansion target {raw:?}: no rule {rule}"));
        }
        if !["maxDistance", "minDistance", "maxLatency", "referenceValue"]
            .contains(&property.as_str())
        {
            return Err(format!(
                "expansion target {raw:?}: property {property} cannot be expanded here"
            ));
        }
        return Ok(Target::Rule {
            rule: rule.to_owned(),
            property,
        });
    }
    if let Some(team) = head.strip_prefix("teams[") {
        if !teams
            .iter()
            .any(|t| t.name == team || t.name.starts_with(&format!("{team}_")))
        {
            return Err(format!("expansion target {raw:?}: no team {team}"));
        }
        if !["minPlayers", "maxPlayers"].contains(&property.as_str()) {
            return Err(format!(
                "expansion target {raw:?}: property {property} cannot be expanded"
            ));
        }
        return Ok(Target::Team {
            team: team.to_owned(),
            property,
        });
    }
    Err(bad())
}

/// Attribute defaults by name (what a player who did not send one gets).
pub fn defaults(rule_set: &RuleSet) -> BTreeMap<String, Value> {
    rule_set
        .attributes
        .iter()
        .filter_map(|a| Some((a.name.clone(), a.default.clone()?)))
        .collect()
}
