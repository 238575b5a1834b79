//! Frames made from protocol/schema.json itself: a small generator for the subset of
//! JSON Schema the Rust types emit (`$ref`, `oneOf`/`anyOf`, `type` and type lists,
//! `const`/`enum`, `properties`/`required`, `additionalProperties`, `propertyNames`,
//! `maxProperties`, `items`/`minItems`/`maxItems`, `minLength`/`maxLength`, `pattern`,
//! `minimum`/`maximum`). A keyword it does not know fails the test, so a new constraint
//! in the schema cannot go unexercised by accident. Values favour the edges (empty,
//! longest, smallest, largest) because that is where a server and a schema disagree.

use rand::Rng;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use serde_json::{Map, Number, Value, json};

/// Keywords that only document.
const ANNOTATIONS: &[&str] = &["description", "default", "format", "title"];

/// Characters for strings without a pattern: ASCII, JSON's escapes, and characters of
/// two, three and four bytes (lengths are counted in characters).
const CHARS: &[char] = &[
    'a', 'Z', '0', '9', '-', '_', ' ', '.', ':', '/', '"', '\\', '\n', 'é', 'ß', '中', '😀',
];

pub struct Generator<'a> {
    defs: &'a Map<String, Value>,
    pub rng: StdRng,
}

impl<'a> Generator<'a> {
    pub fn new(schema: &'a Value, rng: StdRng) -> Self {
        let defs = schema["$defs"].as_object().expect("the schema has $defs");
        Self { defs, rng }
    }

    /// The schema a `$ref` names.
    pub fn resolve(&self, node: &'a Value) -> &'a Value {
        match node.get("$ref").and_then(Value::as_str) {
            Some(reference) => {
                let name = reference
                    .strip_prefix("#/$defs/")
                    .unwrap_or_else(|| panic!("a $ref outside $defs: {reference}"));
                self.resolve(&self.defs[name])
            }
            None => node,
        }
    }

    /// A value `node` accepts.
    pub fn value(&mut self, node: &'a Value, depth: u32) -> Value {
        let node = self.resolve(node);
        let Some(object) = node.as_object() else {
            return self.any(depth);
        };
        for keyword in object.keys() {
            let known = ANNOTATIONS.contains(&keyword.as_str())
                || matches!(
                    keyword.as_str(),
                    "type"
                        | "const"
                        | "enum"
                        | "oneOf"
                        | "anyOf"
                        | "properties"
                        | "required"
                        | "additionalProperties"
                        | "propertyNames"
                        | "maxProperties"
                        | "items"
                        | "minItems"
                        | "maxItems"
                        | "minLength"
                        | "maxLength"
                        | "pattern"
                        | "minimum"
                        | "maximum"
                );
            assert!(known, "the generator does not know `{keyword}` (in {node})");
        }
        if let Some(constant) = object.get("const") {
            return constant.clone();
        }
        if let Some(Value::Array(options)) = object.get("enum") {
            return options
                .choose(&mut self.rng)
                .cloned()
                .unwrap_or(Value::Null);
        }
        if let Some(Value::Array(branches)) = object.get("oneOf").or_else(|| object.get("anyOf")) {
            let branch = self.pick(branches, |branch| branch["type"] == "null");
            return self.value(branch, depth);
        }
        let kind = match object.get("type") {
            Some(Value::String(kind)) => kind.clone(),
            Some(Value::Array(kinds)) => self
                .pick(kinds, |kind| kind == "null")
                .as_str()
                .unwrap_or("null")
                .to_owned(),
            // No type and no constraint: any JSON.
            _ if object.keys().all(|k| ANNOTATIONS.contains(&k.as_str())) => {
                return self.any(depth);
            }
            _ => "object".to_owned(),
        };
        match kind.as_str() {
            "null" => Value::Null,
            "boolean" => Value::Bool(self.rng.random()),
            "integer" => self.integer(object),
            "number" => self.number(object),
            "string" => Value::String(self.string(object)),
            "array" => self.array(object, depth),
            "object" => self.object(object, depth),
            other => panic!("the generator does not know type {other:?}"),
        }
    }

    /// One of `options`, a `null` one (`is_null`) seldom: a field's value is what is
    /// worth trying, and `null` is one frame in ten.
    fn pick<'o>(&mut self, options: &'o [Value], is_null: impl Fn(&Value) -> bool) -> &'o Value {
        let (nulls, values): (Vec<&Value>, Vec<&Value>) = options.iter().partition(|o| is_null(o));
        let pool = if values.is_empty() || (!nulls.is_empty() && self.rng.random_bool(0.1)) {
            nulls
        } else {
            values
        };
        pool.choose(&mut self.rng).copied().expect("an option")
    }

    fn integer(&mut self, node: &Map<String, Value>) -> Value {
        let min = node
            .get("minimum")
            .and_then(Value::as_i64)
            .unwrap_or(-1_000);
        let max = node
            .get("maximum")
            .and_then(Value::as_f64)
            .map_or(1_000_000, |max| max as i64);
        let value = match self.rng.random_range(0..10) {
            0 => min,
            1 => max,
            // Small ones too, where a wide range would almost never give them.
            2 => self.rng.random_range(min..=max.min(min.saturating_add(10))),
            _ => self.rng.random_range(min..=max),
        };
        json!(value)
    }

    fn number(&mut self, node: &Map<String, Value>) -> Value {
        let min = node.get("minimum").and_then(Value::as_f64).unwrap_or(-1e6);
        let max = node.get("maximum").and_then(Value::as_f64).unwrap_or(1e6);
        let value = match self.rng.random_range(0..10) {
            0 => min,
            1 => max,
            2 => (self.rng.random_range(min..=max) * 100.0).round() / 100.0,
            3 => self.rng.random_range(min..=max).round(),
            _ => self.rng.random_range(min..=max),
        };
        let value = value.clamp(min, max);
        // A whole number goes out as an integer literal, as clients write them.
        if value.fract() == 0.0 && value.abs() < 1e15 {
            json!(value as i64)
        } else {
            Value::Number(Number::from_f64(value).expect("a finite number"))
        }
    }

    /// A string within the node's length and pattern.
    pub fn string(&mut self, node: &Map<String, Value>) -> String {
        let min = node.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
        let max = node
            .get("maxLength")
            .and_then(Value::as_u64)
            .map(|m| m as usize);
        if let Some(pattern) = node.get("pattern").and_then(Value::as_str) {
            return self.matching(pattern, min, max.unwrap_or(64));
        }
        let max = max.unwrap_or(min + 24);
        let len = match self.rng.random_range(0..10) {
            0 => min,
            1 => max,
            _ => self.rng.random_range(min..=max.min(min + 24)),
        };
        (0..len)
            .map(|_| *CHARS.choose(&mut self.rng).expect("a character"))
            .collect()
    }

    /// A string matching `pattern` (anchored `^…$`, as every pattern here is) of
    /// `min`..=`max` characters.
    fn matching(&mut self, pattern: &str, min: usize, max: usize) -> String {
        let body = pattern
            .strip_prefix('^')
            .and_then(|p| p.strip_suffix('$'))
            .unwrap_or_else(|| panic!("an unanchored pattern: {pattern}"));
        let repeat = u32::try_from(max).unwrap_or(u32::MAX);
        let generator = rand_regex::Regex::compile(body, repeat)
            .unwrap_or_else(|e| panic!("pattern {pattern}: {e}"));
        for _ in 0..1_000 {
            let text: String = self.rng.sample(&generator);
            if (min..=max).contains(&text.chars().count()) {
                return text;
            }
        }
        panic!("no string of {min}..={max} characters matches {pattern}")
    }

    fn array(&mut self, node: &'a Map<String, Value>, depth: u32) -> Value {
        let min = node.get("minItems").and_then(Value::as_u64).unwrap_or(0) as usize;
        let max = node
            .get("maxItems")
            .and_then(Value::as_u64)
            .map_or(min + 4, |m| m as usize);
        let len = match self.rng.random_range(0..10) {
            0 => max,
            _ => self.rng.random_range(min..=max.min(min + 4)),
        };
        let items = node.get("items").unwrap_or(&Value::Bool(true));
        Value::Array((0..len).map(|_| self.value(items, depth + 1)).collect())
    }

    fn object(&mut self, node: &'a Map<String, Value>, depth: u32) -> Value {
        let mut object = Map::new();
        let required: Vec<&str> = node
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if let Some(Value::Object(properties)) = node.get("properties") {
            for (name, property) in properties {
                if required.contains(&name.as_str()) || self.rng.random_bool(0.8) {
                    let value = self.value(property, depth + 1);
                    object.insert(name.clone(), value);
                }
            }
        }
        match node.get("additionalProperties") {
            // A map: its keys from `propertyNames`, at most `maxProperties`.
            Some(values @ Value::Object(_)) => {
                let most = node
                    .get("maxProperties")
                    .and_then(Value::as_u64)
                    .unwrap_or(6) as usize;
                let count = match self.rng.random_range(0..10) {
                    0 => most,
                    _ => self.rng.random_range(0..=most.min(4)),
                };
                let names = node.get("propertyNames").and_then(Value::as_object);
                let empty = Map::new();
                for _ in 0..count * 4 {
                    if object.len() >= count {
                        break;
                    }
                    let name = self.string(names.unwrap_or(&empty));
                    let value = self.value(values, depth + 1);
                    object.insert(name, value);
                }
            }
            Some(Value::Bool(false)) => {}
            // Unknown fields: the server ignores them, and the schema allows them.
            _ => {
                if self.rng.random_bool(0.15) {
                    let value = self.any(depth + 1);
                    object.insert(format!("extra{}", self.rng.random_range(0..100)), value);
                }
            }
        }
        Value::Object(object)
    }

    /// Any JSON value, small.
    pub fn any(&mut self, depth: u32) -> Value {
        let leaf = depth >= 3;
        match self.rng.random_range(0..if leaf { 5 } else { 7 }) {
            0 => Value::Null,
            1 => Value::Bool(self.rng.random()),
            2 => json!(self.rng.random_range(-1_000_000..1_000_000)),
            3 => json!(self.rng.random_range(-1e3..1e3)),
            4 => Value::String(self.string(&Map::new())),
            5 => Value::Array(
                (0..self.rng.random_range(0..4))
                    .map(|_| self.any(depth + 1))
                    .collect(),
            ),
            _ => Value::Object(
                (0..self.rng.random_range(0..4))
                    .map(|i| (format!("k{i}"), self.any(depth + 1)))
                    .collect(),
            ),
        }
    }
}
