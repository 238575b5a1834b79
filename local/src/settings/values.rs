//! How a numeric knob's value is read: a whole number within the range the knob
//! accepts. A refusal says what is accepted ("a whole number of seconds from 1 to
//! 7200", as the Lambda functions say it), both in clap's own error and to
//! [`super::read`], which names the variable or flag the value came from.

use std::ffi::OsStr;
use std::fmt::Display;
use std::ops::RangeInclusive;
use std::str::FromStr;

use clap::builder::TypedValueParser;
use clap::error::{ContextKind, ContextValue, ErrorKind};

/// A whole number within `range`, optionally of a unit ("seconds").
#[derive(Clone, Debug)]
pub struct Whole<T> {
    range: RangeInclusive<T>,
    unit: Option<&'static str>,
}

/// A whole number within `range`.
pub fn whole<T>(range: RangeInclusive<T>) -> Whole<T> {
    Whole { range, unit: None }
}

/// A whole number of seconds within `range`.
pub fn seconds(range: RangeInclusive<u64>) -> Whole<u64> {
    Whole {
        range,
        unit: Some("seconds"),
    }
}

/// A whole number of milliseconds within `range`.
pub fn millis(range: RangeInclusive<u64>) -> Whole<u64> {
    Whole {
        range,
        unit: Some("milliseconds"),
    }
}

impl<T: Display> Whole<T> {
    /// What is accepted, e.g. "a whole number of seconds from 1 to 7200".
    pub fn accepted(&self) -> String {
        shared::config::whole_number(&self.range, self.unit)
    }
}

impl<T> TypedValueParser for Whole<T>
where
    T: FromStr + PartialOrd + Display + Clone + Send + Sync + 'static,
{
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<T, clap::Error> {
        let parsed = value
            .to_str()
            .and_then(|text| text.parse::<T>().ok())
            .filter(|number| self.range.contains(number));
        parsed.ok_or_else(|| refusal(cmd, arg, value, self.accepted()))
    }
}

/// clap's "invalid value" error, carrying what is accepted: shown as a tip by clap, and
/// read back by [`accepted`].
fn refusal(
    cmd: &clap::Command,
    arg: Option<&clap::Arg>,
    value: &OsStr,
    accepted: String,
) -> clap::Error {
    let mut error = clap::Error::new(ErrorKind::ValueValidation).with_cmd(cmd);
    if let Some(arg) = arg {
        error.insert(
            ContextKind::InvalidArg,
            ContextValue::String(arg.to_string()),
        );
    }
    error.insert(
        ContextKind::InvalidValue,
        ContextValue::String(value.to_string_lossy().into_owned()),
    );
    error.insert(
        ContextKind::Suggested,
        ContextValue::StyledStrs(vec![format!("expected {accepted}").into()]),
    );
    error.insert(ContextKind::Custom, ContextValue::String(accepted));
    error
}

/// What `arg` accepts, from the error its parser gave: the [`Whole`] parsers say it;
/// an enumeration lists its values; anything else says what went wrong.
pub fn accepted(arg: &clap::Arg, error: &clap::Error) -> String {
    if let Some(ContextValue::String(accepted)) = error.get(ContextKind::Custom) {
        return accepted.clone();
    }
    let values: Vec<String> = arg
        .get_possible_values()
        .iter()
        .map(|value| format!("{:?}", value.get_name()))
        .collect();
    if values.is_empty() {
        format!("accepted ({})", error.kind())
    } else {
        format!("one of {}", values.join(", "))
    }
}
