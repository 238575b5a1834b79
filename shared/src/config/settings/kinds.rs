//! The kinds of setting ([`Whole`], [`Text`], [`Flag`], [`Choice`]) and what each says
//! of itself ([`Described`]); the settings themselves are declared in `settings.rs`.

use std::fmt;
use std::ops::RangeInclusive;

/// A whole number in a range: a count, or a duration in `unit`s.
#[derive(Debug)]
pub struct Whole<T: 'static> {
    pub variable: &'static str,
    /// The template parameter whose value the variable is (`!Ref`), if any.
    pub parameter: Option<&'static str>,
    pub default: T,
    pub range: RangeInclusive<T>,
    /// `seconds`, or none for a count.
    pub unit: Option<&'static str>,
    pub meaning: &'static str,
}

impl<T: Copy + PartialOrd + fmt::Display> Whole<T> {
    /// What it accepts, as every problem says it: "a whole number of seconds from 1 to
    /// 7200", "a whole number from 1 to 64".
    pub fn accepts(&self) -> String {
        super::super::reader::whole_number(&self.range, self.unit)
    }

    /// The problem with `value`, if it is out of range.
    pub fn check(&self, value: T) -> Option<String> {
        (!self.range.contains(&value))
            .then(|| format!("{}={value} is not {}", self.variable, self.accepts()))
    }
}

/// Text: a name, a URL, a list.
#[derive(Debug)]
pub struct Text {
    pub variable: &'static str,
    pub parameter: Option<&'static str>,
    /// What the local stack (and, where it has the parameter, the template) uses when it
    /// is not given.
    pub default: Option<&'static str>,
    /// A function refuses to start without it (the template always sets it).
    pub required: bool,
    pub meaning: &'static str,
}

/// `true` or `false`.
#[derive(Debug)]
pub struct Flag {
    pub variable: &'static str,
    pub parameter: Option<&'static str>,
    pub default: bool,
    pub meaning: &'static str,
}

/// One of a few words.
#[derive(Debug)]
pub struct Choice {
    pub variable: &'static str,
    pub parameter: Option<&'static str>,
    pub default: &'static str,
    pub values: &'static [&'static str],
    pub meaning: &'static str,
}

impl Choice {
    /// "heartbeat or connection-activity".
    pub fn accepts(&self) -> String {
        match self.values.split_last() {
            Some((last, [])) => (*last).to_owned(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        }
    }
}

/// One setting, whatever its kind, for listings and the tests that compare them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Described {
    pub variable: &'static str,
    pub parameter: Option<&'static str>,
    /// The default as the template and the docs write it; `None`: none (required, or
    /// the template decides).
    pub default: Option<String>,
    pub minimum: Option<String>,
    pub maximum: Option<String>,
    /// The only values accepted, if it is a choice or a flag.
    pub allowed: Vec<String>,
    pub accepts: String,
    pub meaning: &'static str,
}

impl<T: Copy + PartialOrd + fmt::Display> Whole<T> {
    pub fn describe(&self) -> Described {
        Described {
            variable: self.variable,
            parameter: self.parameter,
            default: Some(self.default.to_string()),
            minimum: Some(self.range.start().to_string()),
            maximum: Some(self.range.end().to_string()),
            allowed: Vec::new(),
            accepts: self.accepts(),
            meaning: self.meaning,
        }
    }
}

impl Text {
    pub fn describe(&self) -> Described {
        Described {
            variable: self.variable,
            parameter: self.parameter,
            default: self.default.map(str::to_owned),
            minimum: None,
            maximum: None,
            allowed: Vec::new(),
            accepts: "text".to_owned(),
            meaning: self.meaning,
        }
    }
}

impl Flag {
    pub fn describe(&self) -> Described {
        Described {
            variable: self.variable,
            parameter: self.parameter,
            default: Some(self.default.to_string()),
            minimum: None,
            maximum: None,
            allowed: vec!["true".to_owned(), "false".to_owned()],
            accepts: "true or false".to_owned(),
            meaning: self.meaning,
        }
    }
}

impl Choice {
    pub fn describe(&self) -> Described {
        Described {
            variable: self.variable,
            parameter: self.parameter,
            default: Some(self.default.to_owned()),
            minimum: None,
            maximum: None,
            allowed: self.values.iter().map(|v| (*v).to_owned()).collect(),
            accepts: self.accepts(),
            meaning: self.meaning,
        }
    }
}
