//! `template.yaml`, compiled in, as JSON with CloudFormation's short-form tags kept:
//! `!Ref X` becomes `{"Ref": "X"}`, `!GetAtt A.B` `{"Fn::GetAtt": "A.B"}`, `!Sub s`
//! `{"Fn::Sub": s}`, `!If [...]` `{"Fn::If": [...]}` (the long form CloudFormation itself
//! uses), so a reader can tell a reference from a plain string. yaml-rust2's event
//! parser does the YAML; this only builds the tree.
//!
//! One loader for every reader of the template: the template drift tests, and the tools
//! that take figures from it (`round_trips` renders the stage's access log format).

use serde_json::{Map, Number, Value};
use yaml_rust2::Yaml;
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser, Tag};
use yaml_rust2::scanner::{Marker, TScalarStyle};

/// The repository's `template.yaml`, as it was when this crate was built.
pub const TEMPLATE_YAML: &str = include_str!("../../template.yaml");

/// Parses a CloudFormation template written in YAML (short-form tags allowed) into JSON.
pub fn parse(text: &str) -> Result<Value, String> {
    let mut builder = Builder::default();
    Parser::new_from_str(text)
        .load(&mut builder, false)
        .map_err(|e| e.to_string())?;
    if let Some(error) = builder.error {
        return Err(error);
    }
    builder
        .document
        .ok_or_else(|| "the file holds no YAML document".to_owned())
}

/// The text of `Fn::Sub` with its `${Name}` replaced by `values` (`${!Literal}` becomes
/// `${Literal}`, as CloudFormation does); a name `values` lacks is an error.
pub fn substitute(text: &str, values: &[(&str, &str)]) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after
            .find('}')
            .ok_or_else(|| format!("unclosed ${{ in Fn::Sub text: {after:.40}"))?;
        let name = &after[..end];
        if let Some(literal) = name.strip_prefix('!') {
            out.push_str("${");
            out.push_str(literal);
            out.push('}');
        } else {
            let value = values
                .iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| *value)
                .ok_or_else(|| format!("Fn::Sub names ${{{name}}}, which has no local value"))?;
            out.push_str(value);
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn given_short_form_tags_when_parsed_then_they_become_the_long_form() {
        let root = parse(
            "A: !Ref Stage\nB: !GetAtt T.Arn\nC: !Sub \"x-${Game}\"\nD: !If [C, 1, \"2\"]\nE: plain\nF: 30\nG: true\n",
        )
        .unwrap();
        assert_eq!(root["A"], json!({"Ref": "Stage"}));
        assert_eq!(root["B"], json!({"Fn::GetAtt": "T.Arn"}));
        assert_eq!(root["C"], json!({"Fn::Sub": "x-${Game}"}));
        assert_eq!(root["D"], json!({"Fn::If": ["C", 1, "2"]}));
        assert_eq!(root["E"], "plain");
        assert_eq!(root["F"], 30);
        assert_eq!(root["G"], true);
        assert!(parse("A: 1\nA: 2\n").is_err(), "duplicate keys");
    }

    #[test]
    fn the_compiled_in_template_parses() {
        let root = parse(TEMPLATE_YAML).unwrap();
        assert!(root["Resources"].is_object());
    }

    #[test]
    fn substitute_replaces_names_keeps_escaped_literals_and_refuses_unknown_names() {
        assert_eq!(
            substitute("a ${X} b ${!Y} $c ${X}0", &[("X", "1")]).unwrap(),
            "a 1 b ${Y} $c 10"
        );
        assert!(substitute("${Nope}", &[]).unwrap_err().contains("Nope"));
        assert!(substitute("${X", &[("X", "1")]).is_err());
    }
}
