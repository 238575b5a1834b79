//! The part of Velocity (the template language of API Gateway's mapping templates) that
//! template.yaml's mapping templates use, so the local stack renders the deployed text
//! itself: text, `$ref` / `$!ref` references with properties and method calls,
//! `#set`, `#if` / `#elseif` / `#else` / `#end`, and expressions with `&&`, `||`, `!`,
//! `==`, `!=`, `<`, `<=`, `>`, `>=`, string (`'raw'`, `"interpolated"`), integer and
//! boolean literals. Anything else is a parse error naming the position, not a guess.
//!
//! What the references reach is API Gateway's: `$input.json(path)`, `$input.path(path)`
//! (JSONPath `$` and `$.a.b` only), `$util.escapeJavaScript(text)`, `$context.…`, and on
//! strings `matches`, `startsWith`, `endsWith`, `contains`, `length`. A reference that
//! resolves to nothing renders as its own text (`$x`), or as nothing when quiet (`$!x`),
//! as Velocity does. Whitespace is kept as written (no line gobbling), so requests are
//! compared as JSON values, not as text.

use std::collections::HashMap;

use serde_json::Value;

use parse::{Parser, Stop};

mod parse;

/// A parsed template.
#[derive(Clone, Debug)]
pub struct Template {
    nodes: Vec<Node>,
}

#[derive(Clone, Debug)]
enum Node {
    Text(String),
    Reference {
        reference: Reference,
        source: String,
    },
    Set(String, Expr),
    If(Vec<(Expr, Vec<Node>)>, Vec<Node>),
}

#[derive(Clone, Debug)]
struct Reference {
    quiet: bool,
    name: String,
    /// `.property` (no arguments) or `.method(arguments)`.
    parts: Vec<(String, Option<Vec<Expr>>)>,
}

#[derive(Clone, Debug)]
enum Expr {
    Literal(V),
    Interpolated(Vec<Node>),
    Reference(Reference),
    Not(Box<Expr>),
    Binary(Box<Expr>, Op, Box<Expr>),
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    Or,
    And,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// A value while rendering.
#[derive(Clone, Debug, PartialEq)]
pub enum V {
    Null,
    Bool(bool),
    Int(i64),
    Str(String),
    /// A JSON value from the context or the payload (an object, an array, a number
    /// that is not an integer).
    Json(Value),
    Input,
    Util,
}

impl V {
    fn from_json(value: &Value) -> Self {
        match value {
            Value::Null => V::Null,
            Value::Bool(b) => V::Bool(*b),
            Value::String(s) => V::Str(s.clone()),
            Value::Number(n) => n.as_i64().map_or_else(|| V::Json(value.clone()), V::Int),
            other => V::Json(other.clone()),
        }
    }

    fn truthy(&self) -> bool {
        !matches!(self, V::Null | V::Bool(false))
    }

    fn text(&self) -> Option<String> {
        match self {
            V::Null | V::Input | V::Util => None,
            V::Bool(b) => Some(b.to_string()),
            V::Int(i) => Some(i.to_string()),
            V::Str(s) => Some(s.clone()),
            V::Json(v) => Some(v.to_string()),
        }
    }
}

/// What a template is rendered against: the payload (`$input`) and `$context`.
pub struct Scope<'a> {
    pub payload: &'a Value,
    pub context: &'a Value,
    variables: HashMap<String, V>,
}

impl<'a> Scope<'a> {
    pub fn new(payload: &'a Value, context: &'a Value) -> Self {
        Self {
            payload,
            context,
            variables: HashMap::new(),
        }
    }
}

/// The value at a JSONPath of the forms `$` and `$.a.b.c`; `None` when absent.
fn json_path<'v>(root: &'v Value, path: &str) -> Result<Option<&'v Value>, String> {
    let rest = path
        .strip_prefix('$')
        .ok_or_else(|| format!("JSONPath {path:?} does not start with $"))?;
    let mut current = root;
    for part in rest.split('.').skip(1) {
        match current.get(part) {
            Some(next) => current = next,
            None => return Ok(None),
        }
    }
    Ok(Some(current))
}

/// `$util.escapeJavaScript`: JavaScript string rules, as API Gateway's (Apache Commons
/// Lang's `escapeJavaScript`): `'` `"` `\` `/` escaped, control characters by name or
/// `\uXXXX`, everything outside printable ASCII as `\uXXXX` (UTF-16 units).
pub fn escape_java_script(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\'' | '"' | '\\' | '/' => {
                out.push('\\');
                out.push(c);
            }
            '\u{8}' => out.push_str("\\b"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            ' '..='~' => out.push(c),
            _ => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04X}"));
                }
            }
        }
    }
    out
}

impl Template {
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut parser = Parser { src: text, pos: 0 };
        let (nodes, stop) = parser.nodes(false)?;
        match stop {
            Stop::Eof => Ok(Self { nodes }),
            Stop::Else | Stop::ElseIf(_) | Stop::End | Stop::Quote => Err(format!(
                "#else, #elseif or #end without #if at byte {}",
                parser.pos
            )),
        }
    }

    pub fn render(&self, scope: &mut Scope<'_>) -> Result<String, String> {
        let mut out = String::new();
        render_nodes(&self.nodes, scope, &mut out)?;
        Ok(out)
    }
}

fn render_nodes(nodes: &[Node], scope: &mut Scope<'_>, out: &mut String) -> Result<(), String> {
    for node in nodes {
        match node {
            Node::Text(text) => out.push_str(text),
            Node::Reference { reference, source } => {
                match evaluate_reference(reference, scope)?.text() {
                    Some(text) => out.push_str(&text),
                    None if reference.quiet => {}
                    None => out.push_str(source),
                }
            }
            Node::Set(name, expr) => {
                let value = evaluate(expr, scope)?;
                scope.variables.insert(name.clone(), value);
            }
            Node::If(branches, otherwise) => {
                let mut taken = None;
                for (condition, body) in branches {
                    if evaluate(condition, scope)?.truthy() {
                        taken = Some(body);
                        break;
                    }
                }
                render_nodes(taken.unwrap_or(otherwise), scope, out)?;
            }
        }
    }
    Ok(())
}

fn evaluate(expr: &Expr, scope: &mut Scope<'_>) -> Result<V, String> {
    Ok(match expr {
        Expr::Literal(v) => v.clone(),
        Expr::Interpolated(nodes) => {
            let mut out = String::new();
            render_nodes(nodes, scope, &mut out)?;
            V::Str(out)
        }
        Expr::Reference(reference) => evaluate_reference(reference, scope)?,
        Expr::Not(inner) => V::Bool(!evaluate(inner, scope)?.truthy()),
        Expr::Binary(left, op, right) => {
            let l = evaluate(left, scope)?;
            match op {
                Op::Or if l.truthy() => return Ok(V::Bool(true)),
                Op::And if !l.truthy() => return Ok(V::Bool(false)),
                _ => {}
            }
            let r = evaluate(right, scope)?;
            match op {
                Op::Or | Op::And => V::Bool(r.truthy()),
                Op::Eq => V::Bool(equal(&l, &r)),
                Op::Ne => V::Bool(!equal(&l, &r)),
                Op::Lt | Op::Le | Op::Gt | Op::Ge => {
                    let (V::Int(a), V::Int(b)) = (&l, &r) else {
                        return Err(format!("cannot compare {l:?} and {r:?}"));
                    };
                    V::Bool(match op {
                        Op::Lt => a < b,
                        Op::Le => a <= b,
                        Op::Gt => a > b,
                        _ => a >= b,
                    })
                }
            }
        }
    })
}

/// Velocity's `==`: values of one kind compare as they are, others by their text.
fn equal(a: &V, b: &V) -> bool {
    match (a, b) {
        (V::Null, V::Null) => true,
        (V::Null, _) | (_, V::Null) => false,
        _ => a == b || a.text() == b.text(),
    }
}

fn evaluate_reference(reference: &Reference, scope: &mut Scope<'_>) -> Result<V, String> {
    let mut value = match reference.name.as_str() {
        "input" => V::Input,
        "util" => V::Util,
        "context" => V::Json(scope.context.clone()),
        name => scope.variables.get(name).cloned().unwrap_or(V::Null),
    };
    for (name, arguments) in &reference.parts {
        let arguments = match arguments {
            Some(list) => Some(
                list.iter()
                    .map(|a| evaluate(a, scope))
                    .collect::<Result<Vec<_>, _>>()?,
            ),
            None => None,
        };
        value = step(&value, name, arguments.as_deref(), scope)?;
    }
    Ok(value)
}

/// One `.name` or `.name(arguments)` on `value`.
fn step(value: &V, name: &str, arguments: Option<&[V]>, scope: &Scope<'_>) -> Result<V, String> {
    let text_argument = |i: usize| -> Result<String, String> {
        arguments
            .and_then(|a| a.get(i))
            .and_then(V::text)
            .ok_or_else(|| format!(".{name}() needs a string argument"))
    };
    Ok(match (value, arguments) {
        (V::Json(json), None) => json.get(name).map_or(V::Null, V::from_json),
        (V::Input, Some(_)) if name == "json" => {
            match json_path(scope.payload, &text_argument(0)?)? {
                Some(found) => V::Str(found.to_string()),
                None => V::Null,
            }
        }
        (V::Input, Some(_)) if name == "path" => {
            json_path(scope.payload, &text_argument(0)?)?.map_or(V::Null, V::from_json)
        }
        (V::Util, Some(_)) if name == "escapeJavaScript" => {
            V::Str(escape_java_script(&text_argument(0)?))
        }
        (V::Str(s), Some(_)) => match name {
            // Java's `String.matches`: the whole string, not a part of it.
            "matches" => {
                let pattern = text_argument(0)?;
                let regex = regex_lite::Regex::new(&format!("^(?:{pattern})$"))
                    .map_err(|e| format!("bad regular expression {pattern:?}: {e}"))?;
                V::Bool(regex.is_match(s))
            }
            "startsWith" => V::Bool(s.starts_with(&text_argument(0)?)),
            "endsWith" => V::Bool(s.ends_with(&text_argument(0)?)),
            "contains" => V::Bool(s.contains(&text_argument(0)?)),
            "length" => V::Int(s.chars().count() as i64),
            _ => V::Null,
        },
        _ => V::Null,
    })
}

#[cfg(test)]
mod tests;
