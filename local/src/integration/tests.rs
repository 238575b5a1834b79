//! The heartbeat's mapping templates, as template.yaml has them, rendered by this
//! renderer on the cases `scripts/check-mapping-templates.py` renders with a real
//! Velocity engine: both must give the cases' expected renderings.

use serde_json::{Value, json};

use super::route_templates;
use super::velocity::{Scope, Template};

const CASES: &str = include_str!("../../../tests/mapping-templates/cases.json");

fn as_value(rendered: &str) -> Value {
    let text = rendered.trim();
    if text.is_empty() {
        json!("")
    } else {
        serde_json::from_str(text).unwrap_or_else(|e| json!(format!("not JSON ({e}): {text}")))
    }
}

fn merged_context(cases: &Value, case: &Value) -> Value {
    let mut context = cases["context"].clone();
    if let (Some(base), Some(extra)) = (context.as_object_mut(), case["context"].as_object()) {
        base.extend(extra.clone());
    }
    context
}

#[test]
fn given_the_heartbeat_templates_of_template_yaml_when_rendered_then_every_case_gives_its_expected_rendering()
 {
    let cases: Value = serde_json::from_str(CASES).unwrap();
    let values: Vec<(&str, &str)> = cases["values"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str().unwrap()))
        .collect();
    let template = crate::template::parse(crate::template::TEMPLATE_YAML).unwrap();
    let templates = route_templates(&template, cases["route"].as_str().unwrap(), &values).unwrap();
    let request = Template::parse(&templates.request).unwrap();
    let mut failures = Vec::new();
    for case in cases["requests"].as_array().unwrap() {
        let context = merged_context(&cases, case);
        let payload = match &case["frame"] {
            Value::String(text) => serde_json::from_str(text).unwrap_or(Value::Null),
            frame => frame.clone(),
        };
        let got = as_value(&request.render(&mut Scope::new(&payload, &context)).unwrap());
        if got != case["expected"] {
            failures.push(format!("request {}: {got}", case["name"]));
        }
    }
    for case in cases["responses"].as_array().unwrap() {
        let context = merged_context(&cases, case);
        let key = case["key"].as_str().unwrap();
        let Some((_, text)) = templates.responses.iter().find(|(k, _)| k == key) else {
            failures.push(format!(
                "response {}: no integration response {key}",
                case["name"]
            ));
            continue;
        };
        let template = Template::parse(text).unwrap();
        let got = as_value(
            &template
                .render(&mut Scope::new(&case["body"], &context))
                .unwrap(),
        );
        if got != case["expected"] {
            failures.push(format!("response {}: {got}", case["name"]));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
