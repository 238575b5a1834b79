//! `template.yaml` as JSON, with CloudFormation's short-form tags kept: `!Ref X` becomes
//! `{"Ref": "X"}`, `!GetAtt A.B` `{"Fn::GetAtt": "A.B"}`, `!Sub s` `{"Fn::Sub": s}`, `!If
//! [...]` `{"Fn::If": [...]}` (the long form CloudFormation itself uses), so a test can
//! tell a reference from a plain string. yaml-rust2's event parser does the YAML; this
//! only builds the tree.

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde_json::{Map, Number, Value};
use yaml_rust2::Yaml;
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser, Tag};
use yaml_rust2::scanner::{Marker, TScalarStyle};

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
        let mut builder = Builder::default();
        Parser::new_from_str(text)
            .load(&mut builder, false)
            .map_err(|e| e.to_string())?;
        if let Some(error) = builder.error {
            return Err(error);
        }
        builder
            .document
            .map(|root| Self { root })
            .ok_or_else(|| "the file holds no YAML document".to_owned())
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

// --- YAML events → JSON ---------------------------------------------------------------------

enum Node {
    Sequence {
        items: Vec<Value>,
        tag: Option<Tag>,
    },
    Mapping {
        entries: Map<String, Value>,
        key: Option<String>,
        tag: Option<Tag>,
    },
}

#[derive(Default)]
struct Builder {
    stack: Vec<Node>,
    document: Option<Value>,
    error: Option<String>,
}

impl Builder {
    fn add(&mut self, value: Value, mark: Marker) {
        match self.stack.last_mut() {
            None => self.document = Some(value),
            Some(Node::Sequence { items, .. }) => items.push(value),
            Some(Node::Mapping { entries, key, .. }) => match key.take() {
                None => {
                    *key = Some(match value {
                        Value::String(text) => text,
                        other => other.to_string(),
                    });
                }
                Some(name) => {
                    if let Some(_previous) = entries.insert(name.clone(), value) {
                        self.fail(format!("duplicate key {name:?}"), mark);
                    }
                }
            },
        }
    }

    fn fail(&mut self, message: String, mark: Marker) {
        self.error.get_or_insert_with(|| {
            format!(
                "{message} at line {}, column {}",
                mark.line(),
                mark.col() + 1
            )
        });
    }
}

impl MarkedEventReceiver for Builder {
    fn on_event(&mut self, event: Event, mark: Marker) {
        match event {
            Event::Scalar(text, style, _anchor, tag) => {
                let value = if style == TScalarStyle::Plain && tag.is_none() {
                    plain_scalar(&text)
                } else {
                    Value::String(text)
                };
                self.add(intrinsic(tag, value), mark);
            }
            Event::SequenceStart(_anchor, tag) => self.stack.push(Node::Sequence {
                items: Vec::new(),
                tag,
            }),
            Event::MappingStart(_anchor, tag) => self.stack.push(Node::Mapping {
                entries: Map::new(),
                key: None,
                tag,
            }),
            Event::SequenceEnd | Event::MappingEnd => {
                let value = match self.stack.pop() {
                    Some(Node::Sequence { items, tag }) => intrinsic(tag, Value::Array(items)),
                    Some(Node::Mapping { entries, tag, .. }) => {
                        intrinsic(tag, Value::Object(entries))
                    }
                    None => return self.fail("unbalanced YAML events".into(), mark),
                };
                self.add(value, mark);
            }
            Event::Alias(_) => self.fail("YAML aliases are not used in templates".into(), mark),
            Event::Nothing
            | Event::StreamStart
            | Event::StreamEnd
            | Event::DocumentStart
            | Event::DocumentEnd => {}
        }
    }
}

/// `!Ref` → `{"Ref": v}`, `!Condition` → `{"Condition": v}`, any other `!Name` →
/// `{"Fn::Name": v}`; untagged (or `!!` core-tagged) values are left as they are.
fn intrinsic(tag: Option<Tag>, value: Value) -> Value {
    match tag {
        Some(Tag { handle, suffix }) if handle == "!" => {
            let function = match suffix.as_str() {
                "Ref" | "Condition" => suffix,
                _ => format!("Fn::{suffix}"),
            };
            Value::Object(Map::from_iter([(function, value)]))
        }
        _ => value,
    }
}

/// A plain scalar as YAML 1.2 reads it: null, a boolean, a number or a string.
fn plain_scalar(text: &str) -> Value {
    match Yaml::from_str(text) {
        Yaml::Null => Value::Null,
        Yaml::Boolean(b) => Value::Bool(b),
        Yaml::Integer(i) => Value::Number(i.into()),
        Yaml::Real(real) => real
            .parse::<f64>()
            .ok()
            .and_then(Number::from_f64)
            .map_or_else(|| Value::String(text.to_owned()), Value::Number),
        _ => Value::String(text.to_owned()),
    }
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
