//! The three designs of one scenario (bills from `seed` and `ours`), priced.

use std::collections::BTreeMap;

use super::measured::Measured;
use super::ours::ours;
use super::seed::seed;
use super::usage::{Bill, Feature, Line};
use super::{PresenceLiveness, Prices, Scenario};
use crate::counts::OperationCounts;

/// The columns of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Design {
    Seed,
    Before,
    After,
}

impl Design {
    pub fn label(self) -> &'static str {
        match self {
            Design::Seed => "(a) seed",
            Design::Before => "(b) before",
            Design::After => "(c) after",
        }
    }
}

/// One design's month, in dollars per feature and line.
#[derive(Clone, Debug)]
pub struct Priced {
    pub design: Design,
    pub bill: Bill,
    pub costs: BTreeMap<(Feature, Line), f64>,
}

impl Priced {
    pub fn cost(&self, feature: Feature, line: Line) -> f64 {
        self.costs
            .get(&(feature, line))
            .copied()
            .unwrap_or_default()
    }

    pub fn feature_total(&self, feature: Feature) -> f64 {
        self.costs
            .iter()
            .filter(|((f, _), _)| *f == feature)
            .map(|(_, cost)| cost)
            .sum()
    }

    pub fn total(&self) -> f64 {
        self.costs.values().sum()
    }
}

/// Prices a bill.
pub fn price(design: Design, bill: Bill, prices: &Prices) -> Result<Priced, String> {
    let mut costs = BTreeMap::new();
    for ((feature, line), quantity) in &bill.quantities {
        costs.insert(
            (*feature, *line),
            quantity * prices.unit_price(line.price_key())?,
        );
    }
    Ok(Priced {
        design,
        bill,
        costs,
    })
}

/// The three designs of `scenario`, priced.
pub fn price_all(
    scenario: &Scenario,
    prices: &Prices,
    before: &OperationCounts,
    after: &OperationCounts,
) -> Result<[Priced; 3], String> {
    scenario.validate()?;
    let before = Measured::new(before);
    let after = Measured::new(after);
    Ok([
        price(Design::Seed, seed(scenario, &before)?, prices)?,
        price(Design::Before, ours(scenario, &before)?, prices)?,
        price(Design::After, ours(scenario, &after)?, prices)?,
    ])
}

/// This project's presence cost over the seed's, for the same offline-detection bound
/// (both sweep every minute with the same timeout).
pub fn presence_ratio(priced: &[Priced; 3]) -> f64 {
    priced[2].feature_total(Feature::Presence) / priced[0].feature_total(Feature::Presence)
}

/// The presence ratio of `scenario` in each `PRESENCE_LIVENESS` mode of (c).
pub fn presence_ratios(
    scenario: &Scenario,
    prices: &Prices,
    before: &OperationCounts,
    after: &OperationCounts,
) -> Result<Vec<(PresenceLiveness, f64)>, String> {
    PresenceLiveness::ALL
        .into_iter()
        .map(|liveness| {
            let scenario = Scenario {
                liveness,
                ..scenario.clone()
            };
            let priced = price_all(&scenario, prices, before, after)?;
            Ok((liveness, presence_ratio(&priced)))
        })
        .collect()
}

/// The least a delivered message can cost: API Gateway's inbound message (shared by the
/// recipients) and one outbound message.
pub fn floor_per_delivery(scenario: &Scenario, prices: &Prices) -> Result<f64, String> {
    let message = prices.unit_price(Line::ApiGatewayMessages.price_key())?;
    Ok(message * (1.0 / scenario.recipients_per_message + 1.0))
}
