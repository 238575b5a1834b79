//! The settings table (`shared::config::settings`) against template.yaml: every setting a
//! template parameter sets has that parameter's Default, MinValue, MaxValue and
//! AllowedValues, and reaches the functions as its variable; every variable a parameter
//! sets is in the table. So a range or a default is written once, in Rust, and the
//! template cannot drift from it.

use std::collections::BTreeMap;

use serde_json::Value;
use shared::config::settings::{Described, catalogue};

use super::cfn::{Template, ref_name};
use super::{FUNCTION, assert_no_problems};

/// A parameter's property as the template writes it (numbers and text alike); `""` is
/// none, as the functions read an empty variable as unset.
fn text(value: &Value) -> Option<String> {
    match value {
        Value::Null => None,
        Value::String(s) if s.is_empty() => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

/// Variable → the parameter it is `!Ref`, in the Globals or any function's own variables.
fn variables_set_by_parameters(template: &Template) -> BTreeMap<String, String> {
    let mut set = BTreeMap::new();
    let mut add = |variables: &serde_json::Map<String, Value>| {
        for (variable, value) in variables {
            if let Some(parameter) = ref_name(value)
                && template.root()["Parameters"].get(parameter).is_some()
            {
                set.insert(variable.clone(), parameter.to_owned());
            }
        }
    };
    add(template.global_variables());
    for (id, _) in template.of_type(FUNCTION) {
        add(&template.own_variables(id));
    }
    set
}

fn parameter_problems(template: &Template, setting: &Described, parameter: &str) -> Vec<String> {
    let declared = &template.root()["Parameters"][parameter];
    if declared.is_null() {
        return vec![format!(
            "{} is set by the parameter {parameter}, which template.yaml does not declare",
            setting.variable
        )];
    }
    let mut problems = Vec::new();
    let mut compare = |property: &str, template_value: Option<String>, table: Option<&String>| {
        if template_value.as_ref() != table {
            problems.push(format!(
                "{parameter}'s {property} is {template_value:?}; {} says {table:?}",
                setting.variable
            ));
        }
    };
    compare(
        "Default",
        text(&declared["Default"]),
        setting.default.as_ref(),
    );
    compare(
        "MinValue",
        text(&declared["MinValue"]),
        setting.minimum.as_ref(),
    );
    compare(
        "MaxValue",
        text(&declared["MaxValue"]),
        setting.maximum.as_ref(),
    );
    if !setting.allowed.is_empty() {
        let mut allowed: Vec<String> = declared["AllowedValues"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(text)
            .collect();
        let mut expected = setting.allowed.clone();
        allowed.sort();
        expected.sort();
        if allowed != expected {
            problems.push(format!(
                "{parameter}'s AllowedValues are {allowed:?}; {} accepts {expected:?}",
                setting.variable
            ));
        }
    }
    problems
}

#[test]
fn given_each_setting_a_parameter_sets_when_compared_with_the_template_then_default_range_and_values_agree()
 {
    let template = Template::load();
    let set = variables_set_by_parameters(&template);
    let mut problems = Vec::new();
    for setting in catalogue() {
        let Some(parameter) = setting.parameter else {
            continue;
        };
        problems.extend(parameter_problems(&template, &setting, parameter));
        match set.get(setting.variable) {
            Some(by) if by == parameter => {}
            Some(by) => problems.push(format!(
                "{} is set from {by}, but the table says {parameter}",
                setting.variable
            )),
            None => problems.push(format!(
                "no function gets {} from {parameter} (Environment: {}: !Ref {parameter})",
                setting.variable, setting.variable
            )),
        }
    }
    assert_no_problems(
        "template.yaml disagrees with shared::config::settings",
        &problems,
    );
}

#[test]
fn given_every_variable_a_parameter_sets_then_the_settings_table_declares_it_with_that_parameter() {
    let template = Template::load();
    let table: BTreeMap<&str, Option<&str>> = catalogue()
        .into_iter()
        .map(|s| (s.variable, s.parameter))
        .collect();
    let problems: Vec<String> = variables_set_by_parameters(&template)
        .into_iter()
        .filter(|(variable, parameter)| {
            table.get(variable.as_str()) != Some(&Some(parameter.as_str()))
        })
        .map(|(variable, parameter)| {
            format!(
                "{variable} is set from {parameter}: declare it in shared::config::settings (and its catalogue) with parameter Some({parameter:?})"
            )
        })
        .collect();
    assert_no_problems(
        "a template parameter sets a variable the settings table does not declare",
        &problems,
    );
}
