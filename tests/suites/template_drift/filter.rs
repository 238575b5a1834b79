//! Lambda event filtering (an event source mapping's `FilterCriteria`), evaluated the way
//! the service does for the operators a template here may use: a pattern object names
//! fields the record must have; a leaf is a list of alternatives, each a value (compared
//! exactly, so `"0"` is not `0`) or an operator (`anything-but`, `prefix`, `exists`,
//! `numeric`, `equals-ignore-case`). An operator it does not know fails the test
//! rather than guessing.

use serde_json::Value;

/// True if `record` passes `pattern` (one filter's pattern, parsed).
pub fn matches(pattern: &Value, record: &Value) -> bool {
    let Value::Object(fields) = pattern else {
        panic!("a filter pattern is a JSON object; this one is {pattern}");
    };
    fields
        .iter()
        .all(|(name, expected)| field_matches(expected, record.get(name)))
}

fn field_matches(expected: &Value, actual: Option<&Value>) -> bool {
    match expected {
        Value::Object(_) => actual.is_some_and(|actual| matches(expected, actual)),
        Value::Array(alternatives) => alternatives
            .iter()
            .any(|alternative| alternative_matches(alternative, actual)),
        other => panic!("a filter pattern's leaf is a list of alternatives, not {other}"),
    }
}

fn alternative_matches(alternative: &Value, actual: Option<&Value>) -> bool {
    // A list value matches when one of its elements does (as in Lambda's filtering).
    if let Some(Value::Array(values)) = actual {
        return values
            .iter()
            .any(|value| alternative_matches(alternative, Some(value)));
    }
    let Value::Object(operator) = alternative else {
        return actual == Some(alternative);
    };
    let [(name, argument)] = operator.iter().collect::<Vec<_>>()[..] else {
        panic!("a filter operator is an object with one entry, not {alternative}");
    };
    match name.as_str() {
        "exists" => argument.as_bool() == Some(actual.is_some()),
        "anything-but" => actual.is_some_and(|value| match argument {
            Value::Array(excluded) => !excluded.contains(value),
            Value::Object(_) => !alternative_matches(argument, Some(value)),
            excluded => excluded != value,
        }),
        "prefix" => match (argument, actual) {
            (Value::String(prefix), Some(Value::String(value))) => value.starts_with(prefix),
            _ => false,
        },
        "equals-ignore-case" => match (argument, actual) {
            (Value::String(expected), Some(Value::String(value))) => {
                value.eq_ignore_ascii_case(expected)
            }
            _ => false,
        },
        "numeric" => actual
            .and_then(Value::as_f64)
            .is_some_and(|value| numeric(argument, value)),
        other => panic!(
            "the filter uses the operator {other:?}, which this test's evaluator does not know: \
             teach tests/suites/template_drift/filter.rs what Lambda does with it"
        ),
    }
}

/// `["<", 10]`, `[">=", 1, "<", 5]`, `["=", 3]`.
fn numeric(conditions: &Value, value: f64) -> bool {
    let conditions = conditions
        .as_array()
        .unwrap_or_else(|| panic!("numeric takes a list, not {conditions}"));
    conditions.chunks(2).all(|pair| {
        let (Some(op), Some(bound)) = (pair[0].as_str(), pair.get(1).and_then(Value::as_f64))
        else {
            panic!("numeric takes operator/number pairs, not {conditions:?}");
        };
        match op {
            "<" => value < bound,
            "<=" => value <= bound,
            ">" => value > bound,
            ">=" => value >= bound,
            "=" => (value - bound).abs() < f64::EPSILON,
            other => panic!("unknown numeric operator {other:?}"),
        }
    })
}

#[test]
fn given_patterns_when_evaluated_then_they_match_as_lambda_filters_do() {
    use serde_json::json;
    let record = json!({"eventName": "INSERT", "dynamodb": {"Keys": {"seq": {"N": "7"}}}, "n": 5});
    let yes = [
        json!({"eventName": ["INSERT"]}),
        json!({"eventName": ["MODIFY", "INSERT"]}),
        json!({"dynamodb": {"Keys": {"seq": {"N": [{"anything-but": ["0"]}]}}}}),
        json!({"eventName": [{"prefix": "INS"}]}),
        json!({"n": [{"numeric": [">", 1, "<=", 5]}]}),
        json!({"missing": [{"exists": false}]}),
        json!({"eventName": [{"equals-ignore-case": "insert"}]}),
    ];
    let no = [
        json!({"eventName": ["REMOVE"]}),
        json!({"dynamodb": {"Keys": {"seq": {"N": [{"anything-but": ["7"]}]}}}}),
        json!({"dynamodb": {"Keys": {"seq": {"N": [7]}}}}),
        json!({"missing": ["x"]}),
        json!({"n": [{"numeric": ["<", 5]}]}),
        json!({"eventName": [{"exists": false}]}),
    ];
    for pattern in yes {
        assert!(matches(&pattern, &record), "{pattern} should match");
    }
    for pattern in no {
        assert!(!matches(&pattern, &record), "{pattern} should not match");
    }
}
