//! Frames that break the schema: a valid frame with one thing changed (a value of the
//! wrong JSON type, a number out of range, a string too long, empty or off its pattern,
//! a field removed, an array or a map grown past its limit, a key off its pattern). The
//! caller keeps only the mutants the schema itself refuses.

use rand::Rng;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use serde_json::{Map, Value, json};

/// Characters that break every pattern here at some position.
const OFF_PATTERN: &[&str] = &[" ", "/", "é", "A", "_", ".", "😀"];

/// Where a value sits in a frame: object keys and array indices from the root.
#[derive(Clone, Debug)]
enum Step {
    Key(String),
    Index(usize),
}

/// Every place in `value`, the root first.
fn places(value: &Value, at: Vec<Step>, out: &mut Vec<Vec<Step>>) {
    out.push(at.clone());
    match value {
        Value::Object(object) => {
            for (key, inner) in object {
                let mut next = at.clone();
                next.push(Step::Key(key.clone()));
                places(inner, next, out);
            }
        }
        Value::Array(items) => {
            for (index, inner) in items.iter().enumerate() {
                let mut next = at.clone();
                next.push(Step::Index(index));
                places(inner, next, out);
            }
        }
        _ => {}
    }
}

fn at<'v>(value: &'v mut Value, path: &[Step]) -> &'v mut Value {
    path.iter().fold(value, |value, step| match step {
        Step::Key(key) => &mut value[key.as_str()],
        Step::Index(index) => &mut value[*index],
    })
}

/// `frame` with one random thing changed; it may still be valid (the caller checks).
pub fn mutate(frame: &Value, rng: &mut StdRng) -> Value {
    let mut mutant = frame.clone();
    let mut all = Vec::new();
    places(frame, Vec::new(), &mut all);
    // Not the root itself: a frame that is not an object never reaches a route. Mostly
    // the body, where the routes' own types are.
    let in_body: Vec<Vec<Step>> = all
        .iter()
        .filter(|path| matches!(path.first(), Some(Step::Key(key)) if key == "body"))
        .cloned()
        .collect();
    let pool = if !in_body.is_empty() && rng.random_bool(0.8) {
        &in_body[..]
    } else {
        &all[1..]
    };
    let path = pool.choose(rng).cloned().unwrap_or_default();
    let (parent_path, last) = match path.split_last() {
        Some((last, parent)) => (parent.to_vec(), Some(last.clone())),
        None => (Vec::new(), None),
    };
    let target = at(&mut mutant, &path);
    match rng.random_range(0..9) {
        0 | 1 => *target = wrong_type(target, rng),
        2 => {
            if let Value::Number(n) = target {
                let n = n.as_f64().unwrap_or(0.0);
                let out = [-1.0, -0.5, n + 0.5, 11.0, 10_000.5, 1e15, 1e16, 1e30];
                *target = json!(out.choose(rng).copied().unwrap_or(-1.0));
            } else {
                *target = wrong_type(target, rng);
            }
        }
        3 => {
            if let Value::String(text) = target {
                *text = "x".repeat(2_100 + text.len());
            }
        }
        4 => {
            if let Value::String(text) = target {
                let bad = OFF_PATTERN.choose(rng).copied().unwrap_or(" ");
                let position = rng.random_range(0..=text.chars().count());
                let (head, tail): (String, String) = (
                    text.chars().take(position).collect(),
                    text.chars().skip(position).collect(),
                );
                *text = format!("{head}{bad}{tail}");
            }
        }
        5 => {
            if let Value::String(text) = target {
                text.clear();
            }
        }
        6 => {
            // A field removed (a required one, sometimes).
            if let (Some(Step::Key(key)), Value::Object(parent)) =
                (last, at(&mut mutant, &parent_path))
            {
                parent.remove(&key);
            }
        }
        7 => grow(target, rng),
        _ => {
            // A key off its pattern (a map's key, or a misspelt field).
            if let Value::Object(object) = target {
                let key = object.keys().next().cloned().unwrap_or_else(|| "k".into());
                let value = object.get(&key).cloned().unwrap_or(json!(1));
                let bad = OFF_PATTERN.choose(rng).copied().unwrap_or(" ");
                object.insert(format!("{key}{bad}"), value);
            }
        }
    }
    mutant
}

/// A value of another JSON type than `value`.
fn wrong_type(value: &Value, rng: &mut StdRng) -> Value {
    let others: Vec<Value> = [
        Value::Null,
        json!(true),
        json!(7),
        json!(-1.5),
        json!("x"),
        json!([]),
        json!({}),
    ]
    .into_iter()
    .filter(|other| std::mem::discriminant(other) != std::mem::discriminant(value))
    .collect();
    others.choose(rng).cloned().unwrap_or(Value::Null)
}

/// An array or an object grown past every limit here (100 items, 32 entries).
fn grow(value: &mut Value, rng: &mut StdRng) {
    match value {
        Value::Array(items) => {
            let item = items.first().cloned().unwrap_or(json!("p"));
            items.resize(101, item);
        }
        Value::Object(object) => {
            let item = object.values().next().cloned().unwrap_or(json!(1));
            let more: Map<String, Value> = (0..33)
                .map(|i| (format!("k-{i}-{}", rng.random_range(0..10)), item.clone()))
                .collect();
            object.extend(more);
        }
        other => *other = wrong_type(other, rng),
    }
}
