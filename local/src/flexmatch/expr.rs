//! FlexMatch property expressions, the part rule sets use to measure players:
//! `teams[NAME|*].players.attributes[ATTRIBUTE]`, wrapped in `flatten(…)` and the
//! aggregates `avg`, `min`, `max`, `sum`, `count`; and number literals.
//!
//! `teams[*]…` is one list per team; an aggregate of it is one value per team (so
//! `avg(teams[*].players.attributes[skill])` is each team's average), an aggregate of a
//! flat list is one value.

use serde_json::Value;

#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Number(f64),
    /// `teams[team].players.attributes[attribute]`; `None`: every team.
    Attribute {
        team: Option<String>,
        attribute: String,
    },
    Call(Function, Box<Expr>),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Function {
    Flatten,
    Avg,
    Min,
    Max,
    Sum,
    Count,
}

/// A measured value.
#[derive(Clone, Debug, PartialEq)]
pub enum Scalar {
    Number(f64),
    Text(String),
}

impl Scalar {
    pub fn number(&self) -> Option<f64> {
        match self {
            Self::Number(n) => Some(*n),
            Self::Text(_) => None,
        }
    }
}

/// An expression's value: one list per team, or one flat list.
#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    PerTeam(Vec<Vec<Scalar>>),
    Flat(Vec<Scalar>),
}

impl Values {
    pub fn flat(self) -> Vec<Scalar> {
        match self {
            Self::PerTeam(teams) => teams.into_iter().flatten().collect(),
            Self::Flat(values) => values,
        }
    }
}

/// What an expression is evaluated on: each team's name and its players' attributes.
pub struct MatchView<'a> {
    pub teams: Vec<(&'a str, Vec<&'a serde_json::Map<String, Value>>)>,
}

impl Expr {
    pub fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        if let Ok(number) = text.parse::<f64>() {
            return Ok(Self::Number(number));
        }
        if let Some(open) = text.find('(')
            && text.ends_with(')')
            && !text[..open].contains('[')
        {
            let function = match text[..open].trim() {
                "flatten" => Function::Flatten,
                "avg" => Function::Avg,
                "min" => Function::Min,
                "max" => Function::Max,
                "sum" => Function::Sum,
                "count" => Function::Count,
                other => return Err(format!("function {other:?} is not supported")),
            };
            let inner = Self::parse(&text[open + 1..text.len() - 1])?;
            return Ok(Self::Call(function, Box::new(inner)));
        }
        let rest = text
            .strip_prefix("teams[")
            .ok_or_else(|| format!("{text:?} is not a supported property expression"))?;
        let (team, rest) = rest
            .split_once(']')
            .ok_or_else(|| format!("{text:?}: unclosed teams["))?;
        let attribute = rest
            .strip_prefix(".players.attributes[")
            .and_then(|r| r.strip_suffix(']'))
            .ok_or_else(|| format!("{text:?}: only teams[…].players.attributes[…] is supported"))?;
        Ok(Self::Attribute {
            team: (team != "*").then(|| team.to_owned()),
            attribute: attribute.to_owned(),
        })
    }

    pub fn eval(&self, view: &MatchView<'_>) -> Values {
        match self {
            Self::Number(n) => Values::Flat(vec![Scalar::Number(*n)]),
            Self::Attribute { team, attribute } => Values::PerTeam(
                view.teams
                    .iter()
                    .filter(|(name, _)| {
                        team.as_ref().is_none_or(|t| {
                            *name == t.as_str() || name.starts_with(&format!("{t}_"))
                        })
                    })
                    .map(|(_, players)| {
                        players
                            .iter()
                            .filter_map(|attrs| scalar(attrs.get(attribute.as_str())?))
                            .collect()
                    })
                    .collect(),
            ),
            Self::Call(Function::Flatten, inner) => Values::Flat(inner.eval(view).flat()),
            Self::Call(function, inner) => match inner.eval(view) {
                Values::PerTeam(teams) => Values::Flat(
                    teams
                        .iter()
                        .filter(|values| !values.is_empty() || *function == Function::Count)
                        .map(|values| aggregate(*function, values))
                        .collect(),
                ),
                Values::Flat(values) => Values::Flat(vec![aggregate(*function, &values)]),
            },
        }
    }
}

fn scalar(value: &Value) -> Option<Scalar> {
    match value {
        Value::Number(n) => n.as_f64().map(Scalar::Number),
        Value::String(s) => Some(Scalar::Text(s.clone())),
        _ => None,
    }
}

fn aggregate(function: Function, values: &[Scalar]) -> Scalar {
    let numbers: Vec<f64> = values.iter().filter_map(Scalar::number).collect();
    let result = match function {
        Function::Count => values.len() as f64,
        Function::Sum => numbers.iter().sum(),
        Function::Avg if numbers.is_empty() => 0.0,
        Function::Avg => numbers.iter().sum::<f64>() / numbers.len() as f64,
        Function::Min => numbers.iter().copied().fold(f64::INFINITY, f64::min),
        Function::Max => numbers.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        Function::Flatten => 0.0,
    };
    Scalar::Number(result)
}
