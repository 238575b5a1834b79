//! `template.yaml` as JSON, with CloudFormation's short-form tags kept: `!Ref X` becomes
//! `{"Ref": "X"}`, `!GetAtt A.B` `{"Fn::GetAtt": "A.B"}`, `!Sub s` `{"Fn::Sub": s}`, `!If
//! [...]` `{"Fn::If": [...]}` (the long form CloudFormation itself uses), so a test can
//! tell a reference from a plain string. The loader is the local stack's
//! (`local::template::parse`); this adds ways to walk the tree.

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde_json::{Map, Value};

/// The repository's `template.yaml`.
pub fn template_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../template.yaml")
}

/// A parsed template and ways to walk it. Every accessor panics with what it looked for,
/// so a template that changed shape fails with a message, not a `None` somewhere.
pub struct Template {
    root: Value,
}

impl Template {
    /// Reads and parses the repository's `template.yaml`.
    pub fn load() -> Self {
        let path = template_path();
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        Self::parse(&text).unwrap_or_else(|e| panic!("cannot parse {}: {e}", path.display()))
    }

    pub fn parse(text: &str) -> Result<Self, String> {
        local::template::parse(text).map(|root| Self { root })
    }

    pub fn root(&self) -> &Value {
        &self.root
    }

    pub fn resources(&self) -> &Map<String, Value> {
        self.root["Resources"]
            .as_object()
            .expect("template.yaml has a Resources mapping")
    }

    /// The resource `id`.
    pub fn resource(&self, id: &str) -> &Value {
        self.resources()
            .get(id)
            .unwrap_or_else(|| panic!("template.yaml has no resource {id}"))
    }

    /// The type of resource `id`.
    pub fn type_of(&self, id: &str) -> &str {
        self.resource(id)["Type"]
            .as_str()
            .unwrap_or_else(|| panic!("resource {id} has no Type"))
    }

    /// The properties of resource `id` (`Null` if it has none).
    pub fn properties(&self, id: &str) -> &Value {
        &self.resource(id)["Properties"]
    }

    /// `(logical id, resource)` of every resource of type `kind`, by logical id.
    pub fn of_type(&self, kind: &str) -> Vec<(&str, &Value)> {
        self.resources()
            .iter()
            .filter(|(_, resource)| resource["Type"] == kind)
            .map(|(id, resource)| (id.as_str(), resource))
            .collect()
    }

    /// The `BuildProperties.Binary` of the `AWS::Serverless::Function` `id`: the Rust
    /// binary `sam build` (cargo-lambda) deploys as that function.
    pub fn function_binary(&self, id: &str) -> &str {
        assert_eq!(
            self.type_of(id),
            "AWS::Serverless::Function",
            "{id} is not a function"
        );
        self.resource(id)["Metadata"]["BuildProperties"]["Binary"]
            .as_str()
            .unwrap_or_else(|| panic!("function {id} has no Metadata.BuildProperties.Binary"))
    }

    /// `Globals.Function.Environment.Variables`.
    pub fn global_variables(&self) -> &Map<String, Value> {
        self.root["Globals"]["Function"]["Environment"]["Variables"]
            .as_object()
            .expect("template.yaml has Globals.Function.Environment.Variables")
    }

    /// The function `id`'s own `Environment.Variables` (besides the Globals).
    pub fn own_variables(&self, id: &str) -> Map<String, Value> {
        self.properties(id)["Environment"]["Variables"]
            .as_object()
            .cloned()
            .unwrap_or_default()
    }

    /// Follows `!Ref X` / `!GetAtt X.Arn` / `!Sub "...${X.Arn}..."` to the one resource
    /// of type `kind` it names. `what` says what is being followed, for the panic.
    pub fn referenced(&self, value: &Value, kind: &str, what: &str) -> String {
        let named: Vec<String> = references(value)
            .into_iter()
            .filter(|id| self.resources().get(id).is_some_and(|r| r["Type"] == kind))
            .collect();
        match named.as_slice() {
            [one] => one.clone(),
            _ => panic!(
                "{what} should reference exactly one {kind}; it is {value} (found {named:?})"
            ),
        }
    }
}

/// Every resource or parameter name a value refers to (`Ref`, `Fn::GetAtt`, the
/// `${...}` of `Fn::Sub`), anywhere inside it.
pub fn references(value: &Value) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    collect_references(value, &mut found);
    found
}

fn collect_references(value: &Value, found: &mut BTreeSet<String>) {
    match value {
        Value::Object(object) if object.len() == 1 => {
            let (function, argument) = object.iter().next().expect("one entry");
            match (function.as_str(), argument) {
                ("Ref", Value::String(name)) => {
                    found.insert(name.clone());
                }
                ("Fn::GetAtt", Value::String(path)) => {
                    found.insert(path.split('.').next().unwrap_or(path).to_owned());
                }
                ("Fn::GetAtt", Value::Array(parts)) => {
                    if let Some(Value::String(name)) = parts.first() {
                        found.insert(name.clone());
                    }
                }
                ("Fn::Sub", Value::String(text)) => sub_names(text, found),
                ("Fn::Sub", Value::Array(parts)) => {
                    if let Some(Value::String(text)) = parts.first() {
                        sub_names(text, found);
                    }
                    for part in parts.iter().skip(1) {
                        collect_references(part, found);
                    }
                }
                _ => collect_references(argument, found),
            }
        }
        Value::Object(object) => object.values().for_each(|v| collect_references(v, found)),
        Value::Array(items) => items.iter().for_each(|v| collect_references(v, found)),
        _ => {}
    }
}

/// The names in `${Name}` / `${Name.Attribute}` of a `Fn::Sub` string (not `${!Literal}`).
fn sub_names(text: &str, found: &mut BTreeSet<String>) {
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        rest = &rest[start + 2..];
        let Some(end) = rest.find('}') else { break };
        let name = &rest[..end];
        if !name.starts_with('!') {
            found.insert(name.split('.').next().unwrap_or(name).to_owned());
        }
        rest = &rest[end + 1..];
    }
}

/// `X` when `value` is `{"Ref": "X"}`.
pub fn ref_name(value: &Value) -> Option<&str> {
    match value {
        Value::Object(object) if object.len() == 1 => object.get("Ref")?.as_str(),
        _ => None,
    }
}

/// A list property as strings (`AttributeName`s, `FunctionResponseTypes`, ...).
pub fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .map(|items| {
            items
                .iter()
                .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn given_short_form_tags_when_parsed_then_they_become_the_long_form() {
    let template = Template::parse(
        "A: !Ref Stage\nB: !GetAtt T.Arn\nC: !Sub \"x-${Game}\"\nD: !If [C, 1, \"2\"]\nE: plain\nF: 30\nG: true\n",
    )
    .expect("parses");
    let root = template.root();
    assert_eq!(root["A"], serde_json::json!({"Ref": "Stage"}));
    assert_eq!(root["B"], serde_json::json!({"Fn::GetAtt": "T.Arn"}));
    assert_eq!(root["C"], serde_json::json!({"Fn::Sub": "x-${Game}"}));
    assert_eq!(root["D"], serde_json::json!({"Fn::If": ["C", 1, "2"]}));
    assert_eq!(root["E"], "plain");
    assert_eq!(root["F"], 30);
    assert_eq!(root["G"], true);
    assert_eq!(
        references(&serde_json::json!({"Fn::Sub": "a${X.Arn}b${!Y}${Z}"})),
        BTreeSet::from(["X".to_owned(), "Z".to_owned()])
    );
    assert!(Template::parse("A: 1\nA: 2\n").is_err(), "duplicate keys");
}

/// A `!Sub` text with each `${name}` replaced by `value_of(name)`.
pub fn substitute(text: &str, mut value_of: impl FnMut(&str) -> String) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let end = rest[start..].find('}').expect("a closed ${...}") + start;
        out.push_str(&value_of(&rest[start + 2..end]));
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    out
}
