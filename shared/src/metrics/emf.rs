//! Reading EMF documents back: the checks of the embedded metric format specification
//! (<https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html>)
//! that CloudWatch applies before it extracts anything, and the values a document
//! carries. The tests of every function validate what it writes with [`validate`]; the
//! local console reads the same lines with [`samples`].

use serde_json::{Map, Value};

/// A MetricDirective's `Metrics` holds at most this many definitions.
pub const MAX_METRICS_PER_DIRECTIVE: usize = 100;
/// A DimensionSet holds at most this many keys.
pub const MAX_DIMENSIONS_PER_SET: usize = 30;
/// A metric's value array holds at most this many numbers.
pub const MAX_VALUES_PER_METRIC: usize = 100;
/// A CloudWatch Logs event (and so an EMF document) is at most 256 KB.
pub const MAX_DOCUMENT_BYTES: usize = 256 * 1024;

/// The units the specification's schema accepts.
const UNITS: &[&str] = &[
    "Seconds",
    "Microseconds",
    "Milliseconds",
    "Bytes",
    "Kilobytes",
    "Megabytes",
    "Gigabytes",
    "Terabytes",
    "Bits",
    "Kilobits",
    "Megabits",
    "Gigabits",
    "Terabits",
    "Percent",
    "Count",
    "Bytes/Second",
    "Kilobytes/Second",
    "Megabytes/Second",
    "Gigabytes/Second",
    "Terabytes/Second",
    "Bits/Second",
    "Kilobits/Second",
    "Megabits/Second",
    "Gigabits/Second",
    "Terabits/Second",
    "Count/Second",
    "None",
];

/// One metric of a document: its values with the document's dimension values.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    pub namespace: String,
    pub name: String,
    pub unit: Option<String>,
    /// `(key, value)` of its dimension set, in the set's order.
    pub dimensions: Vec<(String, String)>,
    pub values: Vec<f64>,
    pub timestamp: i64,
}

/// Every rule of the specification `line` breaks (empty: CloudWatch extracts it). A
/// document with no `_aws` is not EMF at all: one problem saying so.
pub fn validate(line: &str) -> Vec<String> {
    let mut problems = Vec::new();
    if line.len() > MAX_DOCUMENT_BYTES {
        problems.push(format!(
            "{} bytes: over the 256 KB of a log event",
            line.len()
        ));
    }
    let root: Map<String, Value> = match serde_json::from_str(line) {
        Ok(Value::Object(root)) => root,
        Ok(_) => return vec!["the document is not a JSON object".into()],
        Err(error) => return vec![format!("not JSON: {error}")],
    };
    let Some(aws) = root.get("_aws").and_then(Value::as_object) else {
        return vec!["no `_aws` object at the root".into()];
    };
    if !aws.get("Timestamp").is_some_and(Value::is_i64) {
        problems.push("`_aws.Timestamp` is not an integer of milliseconds".into());
    }
    let Some(directives) = aws.get("CloudWatchMetrics").and_then(Value::as_array) else {
        problems.push("`_aws.CloudWatchMetrics` is not an array".into());
        return problems;
    };
    for (d, directive) in directives.iter().enumerate() {
        let at = format!("CloudWatchMetrics[{d}]");
        let namespace = directive.get("Namespace").and_then(Value::as_str);
        if !namespace.is_some_and(|ns| (1..=255).contains(&ns.len())) {
            problems.push(format!(
                "{at}.Namespace is not a string of 1 to 255 characters"
            ));
        }
        match directive.get("Dimensions").and_then(Value::as_array) {
            Some(sets) if !sets.is_empty() => {
                for set in sets {
                    check_dimension_set(&root, set, &at, &mut problems);
                }
            }
            _ => problems.push(format!("{at}.Dimensions is not a non-empty array of sets")),
        }
        let Some(metrics) = directive.get("Metrics").and_then(Value::as_array) else {
            problems.push(format!("{at}.Metrics is not an array"));
            continue;
        };
        if metrics.len() > MAX_METRICS_PER_DIRECTIVE {
            problems.push(format!(
                "{at}.Metrics holds {} definitions (max 100)",
                metrics.len()
            ));
        }
        for definition in metrics {
            check_metric(&root, definition, &at, &mut problems);
        }
    }
    problems
}

fn check_dimension_set(
    root: &Map<String, Value>,
    set: &Value,
    at: &str,
    problems: &mut Vec<String>,
) {
    let Some(keys) = set.as_array() else {
        problems.push(format!("{at}: a DimensionSet is not an array"));
        return;
    };
    if keys.len() > MAX_DIMENSIONS_PER_SET {
        problems.push(format!(
            "{at}: a DimensionSet of {} keys (max 30)",
            keys.len()
        ));
    }
    for key in keys {
        match key.as_str() {
            Some(key) if root.get(key).is_some_and(Value::is_string) => {}
            Some(key) => problems.push(format!(
                "{at}: dimension {key:?} has no string value at the root"
            )),
            None => problems.push(format!("{at}: a dimension key is not a string")),
        }
    }
}

fn check_metric(
    root: &Map<String, Value>,
    definition: &Value,
    at: &str,
    problems: &mut Vec<String>,
) {
    let Some(name) = definition.get("Name").and_then(Value::as_str) else {
        problems.push(format!("{at}: a MetricDefinition has no Name"));
        return;
    };
    if let Some(unit) = definition.get("Unit")
        && !unit.as_str().is_some_and(|unit| UNITS.contains(&unit))
    {
        problems.push(format!(
            "{at}: {name}'s Unit {unit} is not a CloudWatch unit"
        ));
    }
    if let Some(resolution) = definition.get("StorageResolution")
        && !matches!(resolution.as_i64(), Some(1 | 60))
    {
        problems.push(format!("{at}: {name}'s StorageResolution is not 1 or 60"));
    }
    match root.get(name) {
        Some(Value::Number(_)) => {}
        Some(Value::Array(values)) if values.iter().all(Value::is_number) => {
            if values.len() > MAX_VALUES_PER_METRIC {
                problems.push(format!(
                    "{at}: {name} has {} values (max 100)",
                    values.len()
                ));
            }
            if values.is_empty() {
                problems.push(format!("{at}: {name}'s value array is empty"));
            }
        }
        Some(_) => problems.push(format!("{at}: {name}'s value is not a number or numbers")),
        None => problems.push(format!("{at}: {name} has no value at the root")),
    }
}

/// The metrics of a valid document, one sample per metric and dimension set; `None` for
/// a line that is not a valid EMF document.
pub fn samples(line: &str) -> Option<Vec<Sample>> {
    if !validate(line).is_empty() {
        return None;
    }
    let root: Map<String, Value> = serde_json::from_str(line).ok()?;
    let timestamp = root["_aws"]["Timestamp"].as_i64()?;
    let text = |key: &str| {
        root.get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let mut out = Vec::new();
    for directive in root["_aws"]["CloudWatchMetrics"].as_array()? {
        let namespace = directive["Namespace"].as_str()?.to_owned();
        for set in directive["Dimensions"].as_array()? {
            let dimensions: Vec<(String, String)> = set
                .as_array()?
                .iter()
                .filter_map(Value::as_str)
                .map(|key| (key.to_owned(), text(key)))
                .collect();
            for definition in directive["Metrics"].as_array()? {
                let name = definition["Name"].as_str()?.to_owned();
                let values = match &root[&name] {
                    Value::Array(values) => values.iter().filter_map(Value::as_f64).collect(),
                    value => value.as_f64().into_iter().collect(),
                };
                out.push(Sample {
                    namespace: namespace.clone(),
                    unit: definition
                        .get("Unit")
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                    name,
                    dimensions: dimensions.clone(),
                    values,
                    timestamp,
                });
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const VALID: &str = r#"{"_aws":{"Timestamp":1574109732004,"CloudWatchMetrics":[{"Namespace":"ns","Dimensions":[["Route"]],"Metrics":[{"Name":"Requests","Unit":"Count"},{"Name":"Lag","Unit":"Milliseconds"}]}]},"Route":"sendMessage","Requests":2,"Lag":[1.5,3]}"#;

    #[test]
    fn given_the_specifications_example_shape_then_it_is_valid_and_read_back() {
        assert_eq!(validate(VALID), Vec::<String>::new());
        let samples = samples(VALID).unwrap();
        assert_eq!(samples.len(), 2);
        assert_eq!(samples[0].name, "Requests");
        assert_eq!(
            samples[0].dimensions,
            vec![("Route".into(), "sendMessage".into())]
        );
        assert_eq!(samples[0].values, vec![2.0]);
        assert_eq!(samples[1].values, vec![1.5, 3.0]);
    }

    #[test]
    fn given_documents_breaking_each_rule_then_each_is_named() {
        let cases = [
            ("{}", "no `_aws`"),
            (r#"{"_aws":{"CloudWatchMetrics":[]}}"#, "Timestamp"),
            (
                r#"{"_aws":{"Timestamp":1,"CloudWatchMetrics":[{"Namespace":"n","Dimensions":[["D"]],"Metrics":[]}]}}"#,
                "dimension \"D\"",
            ),
            (
                r#"{"_aws":{"Timestamp":1,"CloudWatchMetrics":[{"Namespace":"n","Dimensions":[[]],"Metrics":[{"Name":"M"}]}]}}"#,
                "M has no value",
            ),
            (
                r#"{"_aws":{"Timestamp":1,"CloudWatchMetrics":[{"Namespace":"n","Dimensions":[[]],"Metrics":[{"Name":"M","Unit":"Parsecs"}]}]},"M":1}"#,
                "not a CloudWatch unit",
            ),
            (
                r#"{"_aws":{"Timestamp":1,"CloudWatchMetrics":[{"Namespace":"n","Dimensions":[],"Metrics":[]}]}}"#,
                "non-empty array of sets",
            ),
            (
                r#"{"_aws":{"Timestamp":1,"CloudWatchMetrics":[{"Namespace":"n","Dimensions":[[]],"Metrics":[{"Name":"M"}]}]},"M":"7"}"#,
                "not a number",
            ),
        ];
        for (line, says) in cases {
            let problems = validate(line);
            assert!(
                problems.iter().any(|p| p.contains(says)),
                "{line}: {problems:?}"
            );
            assert_eq!(samples(line), None);
        }
        let many: Vec<String> = (0..101).map(|i| format!(r#"{{"Name":"M{i}"}}"#)).collect();
        let values: Vec<String> = (0..101).map(|i| format!(r#""M{i}":1"#)).collect();
        let line = format!(
            r#"{{"_aws":{{"Timestamp":1,"CloudWatchMetrics":[{{"Namespace":"n","Dimensions":[[]],"Metrics":[{}]}}]}},{}}}"#,
            many.join(","),
            values.join(",")
        );
        assert!(validate(&line).iter().any(|p| p.contains("max 100")));
        let keys: Vec<String> = (0..31).map(|i| format!(r#""D{i}""#)).collect();
        let dims: Vec<String> = (0..31).map(|i| format!(r#""D{i}":"v""#)).collect();
        let line = format!(
            r#"{{"_aws":{{"Timestamp":1,"CloudWatchMetrics":[{{"Namespace":"n","Dimensions":[[{}]],"Metrics":[]}}]}},{}}}"#,
            keys.join(","),
            dims.join(",")
        );
        assert!(validate(&line).iter().any(|p| p.contains("max 30")));
    }
}
