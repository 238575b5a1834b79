//! What this project's metrics cost a month (docs/cost.md, "Observability"): the EMF log
//! lines every invocation writes (CloudWatch Logs ingestion), the custom metrics they
//! create (one per metric name and dimension values, prorated by the hour: a series
//! nobody writes in an hour is not billed for it), the alarms' metrics and the dashboard.
//!
//! Nothing is typed in: the bytes per invocation are measured (`tools/data/emf-bytes.json`,
//! written by what `local/tests/emf.rs` prints and checked by it), the invocations per
//! function are (c)'s bill, the custom metrics are `shared::metrics::catalogue`'s series
//! of the functions the bill invokes, and the alarm metrics and dashboards are counted in
//! `template.yaml`. Both shapes are priced: the default series, and `DetailedMetrics=true`.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use super::{Bill, Prices};

/// The measured EMF bytes per invocation, compiled in.
pub const BUNDLED_EMF_BYTES: &str = include_str!("../../data/emf-bytes.json");

/// `tools/data/emf-bytes.json`: bytes of EMF lines one invocation of each function writes
/// (its cold start's line left out: one per execution environment), by default and with
/// `DETAILED_METRICS=true`.
#[derive(Clone, Debug, Deserialize)]
pub struct EmfBytes {
    pub measured: String,
    pub functions: BTreeMap<String, f64>,
    #[serde(default)]
    pub detailed: BTreeMap<String, f64>,
}

impl EmfBytes {
    /// Each function's bytes in one shape.
    pub fn of(&self, detailed: bool) -> &BTreeMap<String, f64> {
        if detailed {
            &self.detailed
        } else {
            &self.functions
        }
    }
}

impl EmfBytes {
    pub fn parse(text: &str) -> Result<Self, String> {
        serde_json::from_str(text).map_err(|e| format!("the EMF bytes file: {e}"))
    }
}

/// What the template deploys that is billed per month: alarm metrics and dashboards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deployed {
    /// Metrics the alarms evaluate (a metric math alarm is billed per metric it reads).
    pub alarm_metrics: u32,
    pub alarms: u32,
    pub dashboards: u32,
}

impl Deployed {
    /// Counted in `template` (parsed as `local::template::parse` parses it).
    pub fn of(template: &Value) -> Self {
        let resources = template["Resources"].as_object().into_iter().flatten();
        let mut deployed = Self {
            alarm_metrics: 0,
            alarms: 0,
            dashboards: 0,
        };
        for (_, resource) in resources {
            match resource["Type"].as_str() {
                Some("AWS::CloudWatch::Alarm") => {
                    deployed.alarms += 1;
                    let properties = &resource["Properties"];
                    deployed.alarm_metrics += match properties["Metrics"].as_array() {
                        Some(queries) => queries
                            .iter()
                            .filter(|query| query.get("MetricStat").is_some())
                            .count() as u32,
                        None => 1,
                    };
                }
                Some("AWS::CloudWatch::Dashboard") => deployed.dashboards += 1,
                _ => {}
            }
        }
        deployed
    }

    /// The repository's template.
    pub fn bundled() -> Result<Self, String> {
        local::template::parse(local::template::TEMPLATE_YAML).map(|template| Self::of(&template))
    }
}

/// A month of metrics, priced.
#[derive(Clone, Debug, PartialEq)]
pub struct Observability {
    /// Priced with `DetailedMetrics=true` (else the default series only).
    pub detailed: bool,
    pub emf_gb: f64,
    /// The GB each function's lines come to, to say which writes most.
    pub emf_gb_by_function: BTreeMap<String, f64>,
    pub emf_usd: f64,
    pub custom_metrics: u32,
    pub custom_metrics_usd: f64,
    pub deployed: Deployed,
    pub alarms_usd: f64,
    pub dashboards_usd: f64,
}

impl Observability {
    pub fn total(&self) -> f64 {
        self.emf_usd + self.custom_metrics_usd + self.alarms_usd + self.dashboards_usd
    }

    /// The function whose EMF lines weigh most, and its share of all of them.
    pub fn largest_writer(&self) -> Option<(&str, f64)> {
        let (function, gb) = self
            .emf_gb_by_function
            .iter()
            .max_by(|a, b| a.1.total_cmp(b.1))?;
        (self.emf_gb > 0.0).then(|| (function.as_str(), gb / self.emf_gb))
    }
}

/// Custom metrics a month of `bill` keeps: the catalogue's steady-state series of every
/// metric some function `bill` invokes emits (with `detailed`, the detailed ones too). A
/// function the scenario never runs (matchmaking's, the backend API) writes none.
pub fn custom_metrics(bill: &Bill, detailed: bool) -> u32 {
    let invoked = |function: &str| {
        (bill.invocations.iter()).any(|((name, _), count)| *name == function && *count > 0.0)
    };
    (shared::metrics::catalogue::CATALOGUE.iter())
        .filter(|metric| metric.emitted_by.iter().any(|f| invoked(f)))
        .map(|metric| metric.series(detailed))
        .sum()
}

/// The metrics of a month whose Lambda invocations per function are `bill`'s, with
/// `DetailedMetrics` as `detailed` says.
pub fn price(
    bill: &Bill,
    emf: &EmfBytes,
    deployed: Deployed,
    prices: &Prices,
    detailed: bool,
) -> Result<Observability, String> {
    let bytes_of = emf.of(detailed);
    let mut emf_gb_by_function = BTreeMap::<String, f64>::new();
    for ((function, _), invocations) in &bill.invocations {
        // A function the file does not list writes no EMF line (the heartbeat, a ping).
        let bytes = invocations * bytes_of.get(*function).copied().unwrap_or_default();
        // A function billed under several features (the authorizer) is one writer.
        *emf_gb_by_function
            .entry((*function).to_owned())
            .or_default() += bytes / 1e9;
    }
    let emf_gb = emf_gb_by_function.values().sum::<f64>();
    let custom_metrics = custom_metrics(bill, detailed);
    Ok(Observability {
        detailed,
        emf_gb,
        emf_gb_by_function,
        emf_usd: emf_gb * prices.unit_price("cloudwatch_logs_ingestion_gb")?,
        custom_metrics,
        custom_metrics_usd: f64::from(custom_metrics)
            * prices.unit_price("cloudwatch_custom_metric_month")?,
        deployed,
        alarms_usd: f64::from(deployed.alarm_metrics)
            * prices.unit_price("cloudwatch_alarm_metric_month")?,
        dashboards_usd: f64::from(deployed.dashboards)
            * prices.unit_price("cloudwatch_dashboard_month")?,
    })
}
