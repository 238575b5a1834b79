//! The dashboard and the alarms against what the functions emit: every metric of the
//! stack's namespace that a widget, a SEARCH expression or an alarm names is a metric of
//! `shared::metrics::catalogue`, with the catalogue's dimension keys (so no widget waits
//! for a metric nobody writes: `local/tests/emf.rs` checks each function writes what the
//! catalogue says), every catalogue metric is on the dashboard, and the dashboard's alarm
//! widget shows every alarm of the template.

use std::collections::BTreeSet;

use serde_json::Value;
use shared::metrics::catalogue::{self, CATALOGUE};

use super::assert_no_problems;
use super::cfn::Template;

const ALARM: &str = "AWS::CloudWatch::Alarm";
const DASHBOARD: &str = "AWS::CloudWatch::Dashboard";
/// The stack's namespace, as the template writes it (`shared::metrics::namespace`).
const NAMESPACE: &str = "GameLiftSockets/${Game}/${Stage}";

/// `name` with `dimensions` is a catalogue metric with those keys (in any order): its
/// default set, or (`detail_too`) its detailed one.
fn check(
    name: &str,
    dimensions: &[String],
    at: &str,
    detail_too: bool,
    problems: &mut Vec<String>,
) {
    let Some(metric) = catalogue::metric(name) else {
        problems.push(format!("{at}: {name} is no metric any function emits"));
        return;
    };
    let got: BTreeSet<&str> = dimensions.iter().map(String::as_str).collect();
    let sets = (metric.default.iter())
        .chain(metric.detailed.iter().filter(|_| detail_too))
        .map(|series| {
            series
                .dimensions
                .iter()
                .copied()
                .collect::<BTreeSet<&str>>()
        });
    let sets: Vec<BTreeSet<&str>> = sets.collect();
    if !sets.contains(&got) {
        problems.push(format!(
            "{at}: {name} with dimensions {got:?}; it is emitted with {sets:?}{}",
            if detail_too {
                ""
            } else {
                " by default (an alarm must not wait for DetailedMetrics)"
            }
        ));
    }
}

fn sub_text(value: &Value) -> Option<&str> {
    value.as_str().or_else(|| value["Fn::Sub"].as_str())
}

/// The template's alarms on the namespace: `(alarm, metric, dimension keys)`.
fn alarm_metrics(template: &Template) -> Vec<(String, String, Vec<String>)> {
    let mut found = Vec::new();
    for (id, alarm) in template.of_type(ALARM) {
        let properties = &alarm["Properties"];
        let mut stats = vec![properties.clone()];
        for query in properties["Metrics"].as_array().into_iter().flatten() {
            let metric = &query["MetricStat"]["Metric"];
            if !metric.is_null() {
                stats.push(metric.clone());
            }
        }
        for stat in stats {
            if sub_text(&stat["Namespace"]) != Some(NAMESPACE) {
                continue;
            }
            let keys = (stat["Dimensions"].as_array().into_iter().flatten())
                .filter_map(|d| d["Name"].as_str().map(str::to_owned))
                .collect();
            let name = stat["MetricName"].as_str().unwrap_or_default().to_owned();
            found.push((id.to_owned(), name, keys));
        }
    }
    found
}

/// The dashboard's body, its `${...}` replaced by stand-ins (numbers where the JSON wants
/// a number).
fn dashboard_body(template: &Template) -> Value {
    let dashboards = template.of_type(DASHBOARD);
    assert_eq!(dashboards.len(), 1, "template.yaml has one dashboard");
    let text = sub_text(&dashboards[0].1["Properties"]["DashboardBody"])
        .expect("the DashboardBody is a !Sub text");
    let out = super::cfn::substitute(text, |name| match name {
        "DeliveryLagAlarmMilliseconds" => "2000".to_owned(),
        _ => name.to_owned(),
    });
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("the dashboard body is not JSON: {e}"))
}

/// `(metric, dimension keys)` of `SEARCH('{"namespace",Key,...} MetricName="Name"', ...)`.
fn search_terms(expression: &str) -> Option<(String, String, Vec<String>)> {
    let schema = expression.split_once("SEARCH('{")?.1.split_once('}')?.0;
    let mut parts = schema
        .split(',')
        .map(|p| p.trim().trim_matches('"').to_owned());
    let namespace = parts.next()?;
    let keys = parts.collect();
    let name = expression.split_once("MetricName=\"")?.1.split_once('"')?.0;
    Some((namespace, name.to_owned(), keys))
}

#[test]
fn given_the_dashboard_and_alarms_then_every_metric_of_the_namespace_they_name_is_one_a_function_emits()
 {
    let template = Template::load();
    let mut problems = Vec::new();
    let stack_namespace = "GameLiftSockets/Game/Stage";
    for (alarm, name, keys) in alarm_metrics(&template) {
        check(
            &name,
            &keys,
            &format!("alarm {alarm}"),
            false,
            &mut problems,
        );
    }
    let body = dashboard_body(&template);
    let mut on_dashboard = BTreeSet::new();
    let mut alarms_shown = BTreeSet::new();
    for widget in body["widgets"].as_array().expect("widgets") {
        let properties = &widget["properties"];
        let title = properties["title"].as_str().unwrap_or("a widget");
        for alarm in properties["alarms"].as_array().into_iter().flatten() {
            alarms_shown.insert(
                alarm
                    .as_str()
                    .unwrap_or_default()
                    .trim_end_matches(".Arn")
                    .to_owned(),
            );
        }
        for entry in properties["metrics"].as_array().into_iter().flatten() {
            let at = format!("widget {title:?}");
            if let Some(expression) = entry[0]["expression"].as_str() {
                let Some((namespace, name, keys)) = search_terms(expression) else {
                    problems.push(format!(
                        "{at}: an expression that is no SEARCH: {expression}"
                    ));
                    continue;
                };
                if namespace == stack_namespace {
                    check(&name, &keys, &at, true, &mut problems);
                    on_dashboard.insert(name);
                }
                continue;
            }
            let items = entry.as_array().expect("a metric entry is an array");
            if items[0].as_str() != Some(stack_namespace) {
                continue;
            }
            let name = items[1].as_str().unwrap_or_default();
            let keys: Vec<String> = items[2..]
                .iter()
                .take_while(|item| item.is_string())
                .step_by(2)
                .filter_map(|item| item.as_str().map(str::to_owned))
                .collect();
            check(name, &keys, &at, true, &mut problems);
            on_dashboard.insert(name.to_owned());
        }
    }
    for metric in CATALOGUE {
        if !on_dashboard.contains(metric.name) {
            problems.push(format!("{} is emitted but on no widget", metric.name));
        }
    }
    for (alarm, _) in template.of_type(ALARM) {
        if !alarms_shown.contains(alarm) {
            problems.push(format!("the alarm widget does not show {alarm}"));
        }
    }
    assert_no_problems(
        "the dashboard or an alarm names a metric the functions do not emit",
        &problems,
    );
}

#[test]
fn given_every_alarm_then_it_says_what_it_means_and_notifies_the_alarm_topic() {
    let template = Template::load();
    let mut problems = Vec::new();
    for (id, alarm) in template.of_type(ALARM) {
        let properties = &alarm["Properties"];
        let description = sub_text(&properties["AlarmDescription"]).unwrap_or_default();
        if description.len() < 120 || !description.contains("first") && !description.contains("See")
        {
            problems.push(format!(
                "{id}'s description does not say what to look at first"
            ));
        }
        for actions in ["AlarmActions", "OKActions"] {
            let text = properties[actions].to_string();
            if !text.contains("HasAlarmTopic") || !text.contains("AlarmTopicArn") {
                problems.push(format!("{id}'s {actions} do not notify AlarmTopicArn"));
            }
        }
    }
    assert_no_problems(
        "an alarm that tells the on-call engineer too little",
        &problems,
    );
}

#[test]
fn given_search_expressions_then_their_terms_are_read() {
    let expression =
        r#"SEARCH('{"GameLiftSockets/Game/Stage",Route,Code} MetricName="Refusals"', 'Sum', 60)"#;
    assert_eq!(
        search_terms(expression),
        Some((
            "GameLiftSockets/Game/Stage".to_owned(),
            "Refusals".to_owned(),
            vec!["Route".to_owned(), "Code".to_owned()]
        ))
    );
}

#[test]
fn given_the_catalogue_then_operations_md_lists_every_metric_with_its_unit_dimensions_and_series() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/operations.md");
    let text = std::fs::read_to_string(path).unwrap();
    let mut problems = Vec::new();
    for metric in CATALOGUE {
        let Some(row) = text
            .lines()
            .find(|line| line.starts_with(&format!("| `{}` |", metric.name)))
        else {
            problems.push(format!("docs/operations.md has no row for {}", metric.name));
            continue;
        };
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let keys = |dimensions: &[&str]| {
            if dimensions.is_empty() {
                "none".to_owned()
            } else {
                (dimensions.iter())
                    .map(|d| format!("`{d}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        };
        // "`Code`; detailed: `Route`, `Code`" and "5 + 30": the default set and its series,
        // then what DetailedMetrics adds.
        let mut dimensions = metric
            .default
            .map_or_else(|| "—".to_owned(), |d| keys(d.dimensions));
        let mut series = metric.default.map_or(0, |d| d.count).to_string();
        if let Some(detailed) = metric.detailed {
            dimensions.push_str(&format!("; detailed: {}", keys(detailed.dimensions)));
            series.push_str(&format!(" + {}", detailed.count));
        }
        let want = vec![metric.unit.to_owned(), dimensions, series];
        let got: Vec<String> = cells
            .iter()
            .skip(2)
            .take(3)
            .map(|c| (*c).to_owned())
            .collect();
        if got != want {
            problems.push(format!(
                "docs/operations.md says {} is {got:?}; the catalogue says {want:?}",
                metric.name
            ));
        }
    }
    for detailed in [false, true] {
        let total = format!("**{}**", catalogue::custom_metrics(detailed));
        if !text.contains(&total) {
            problems.push(format!(
                "docs/operations.md does not give the total {total}"
            ));
        }
    }
    assert_no_problems("docs/operations.md and the catalogue disagree", &problems);
}
