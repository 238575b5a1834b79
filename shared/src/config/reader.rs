//! Reads variables from a source (the process environment, or a map in tests) into the
//! settings of [`super::settings`], collecting every problem instead of stopping at the
//! first one.

use std::collections::HashMap;
use std::fmt;
use std::ops::RangeInclusive;
use std::str::FromStr;
use std::time::Duration;

use super::settings::{Choice, Flag, Text, Whole};

/// What a numeric knob accepts, as every problem says it: "a whole number from 1 to 64",
/// or with a unit, "a whole number of seconds from 1 to 7200".
pub fn whole_number<T: fmt::Display>(range: &RangeInclusive<T>, unit: Option<&str>) -> String {
    let (low, high) = (range.start(), range.end());
    match unit {
        Some(unit) => format!("a whole number of {unit} from {low} to {high}"),
        None => format!("a whole number from {low} to {high}"),
    }
}

/// Every problem found while reading the environment, reported together.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct ConfigError {
    pub problems: Vec<String>,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid configuration: {}", self.problems.join("; "))
    }
}

type Lookup<'a> = Box<dyn Fn(&str) -> Option<String> + 'a>;

pub struct EnvReader<'a> {
    lookup: Lookup<'a>,
    problems: Vec<String>,
}

impl<'a> EnvReader<'a> {
    pub fn from_process() -> Self {
        Self::new(|name| std::env::var(name).ok())
    }

    pub fn from_map(vars: &'a HashMap<String, String>) -> Self {
        Self::new(move |name| vars.get(name).cloned())
    }

    pub fn new(lookup: impl Fn(&str) -> Option<String> + 'a) -> Self {
        Self {
            lookup: Box::new(lookup),
            problems: Vec::new(),
        }
    }

    /// The raw value, with surrounding whitespace removed; empty counts as unset.
    pub fn optional(&mut self, name: &str) -> Option<String> {
        (self.lookup)(name)
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty())
    }

    pub fn required(&mut self, name: &str) -> String {
        self.optional(name).unwrap_or_else(|| {
            self.problems.push(format!("{name} is not set"));
            String::new()
        })
    }

    /// A text setting: its value, or a problem when a required one is unset (the
    /// default, where there is one, is the local stack's and the template's, which set
    /// it: a function is always given it).
    pub fn text(&mut self, setting: &Text) -> String {
        if setting.required {
            self.required(setting.variable)
        } else {
            self.optional(setting.variable).unwrap_or_default()
        }
    }

    /// A whole-number setting: its value when in range, its default when unset; a value
    /// that does not parse, or is out of range, is a problem (and the default is used).
    pub fn whole<T>(&mut self, setting: &Whole<T>) -> T
    where
        T: Copy + PartialOrd + fmt::Display + FromStr,
    {
        let Some(raw) = self.optional(setting.variable) else {
            return setting.default;
        };
        match raw.parse::<T>() {
            Ok(value) => match setting.check(value) {
                None => value,
                Some(problem) => {
                    self.problems.push(problem);
                    setting.default
                }
            },
            Err(_) => {
                self.problems.push(format!(
                    "{}={raw:?} is not {}",
                    setting.variable,
                    setting.accepts()
                ));
                setting.default
            }
        }
    }

    /// A whole number of seconds (the setting's unit).
    pub fn seconds(&mut self, setting: &Whole<u64>) -> Duration {
        Duration::from_secs(self.whole(setting))
    }

    /// `true` or `false` (any case); unset is the default.
    pub fn flag(&mut self, setting: &Flag) -> bool {
        match self.optional(setting.variable) {
            None => setting.default,
            Some(raw) if raw.eq_ignore_ascii_case("true") => true,
            Some(raw) if raw.eq_ignore_ascii_case("false") => false,
            Some(raw) => {
                self.problems
                    .push(format!("{}={raw:?} is not true or false", setting.variable));
                setting.default
            }
        }
    }

    /// One of a choice's words (any case), as `T`; unset is the default.
    pub fn choice<T: FromStr>(&mut self, setting: &Choice) -> Option<T> {
        let raw = self.optional(setting.variable);
        let word = raw.as_deref().unwrap_or(setting.default);
        let known = setting
            .values
            .iter()
            .find(|value| value.eq_ignore_ascii_case(word));
        match known.and_then(|value| value.parse().ok()) {
            Some(value) => Some(value),
            None => {
                self.problems.push(format!(
                    "{}={word:?} is not {}",
                    setting.variable,
                    setting.accepts()
                ));
                None
            }
        }
    }

    pub fn problem(&mut self, message: impl Into<String>) {
        self.problems.push(message.into());
    }

    pub fn finish(self) -> Result<(), ConfigError> {
        if self.problems.is_empty() {
            Ok(())
        } else {
            Err(ConfigError {
                problems: self.problems,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::settings;

    fn reader(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn given_each_kind_of_setting_when_read_then_the_default_when_unset_and_a_problem_when_wrong() {
        let unset = reader(&[]);
        let mut env = EnvReader::from_map(&unset);
        assert_eq!(
            env.seconds(&settings::HEARTBEAT_TIMEOUT_SECONDS),
            Duration::from_secs(90)
        );
        assert!(!env.flag(&settings::PARTY_INVITE_LEADER_ONLY));
        assert_eq!(
            env.choice::<String>(&settings::AUTH_MODE).as_deref(),
            Some("jwt")
        );
        assert_eq!(env.text(&settings::JWKS_URL), "");
        assert_eq!(env.text(&settings::GAME), "");
        assert_eq!(env.finish().unwrap_err().problems, ["GAME is not set"]);

        let wrong = reader(&[
            ("HEARTBEAT_TIMEOUT_SECONDS", "7201"),
            ("PRESENCE_SHARDS", "many"),
            ("PARTY_INVITE_LEADER_ONLY", "yes"),
            ("AUTH_MODE", "JWT"),
            ("PRESENCE_LIVENESS", "pings"),
        ]);
        let mut env = EnvReader::from_map(&wrong);
        env.seconds(&settings::HEARTBEAT_TIMEOUT_SECONDS);
        env.whole(&settings::PRESENCE_SHARDS);
        env.flag(&settings::PARTY_INVITE_LEADER_ONLY);
        assert_eq!(
            env.choice::<String>(&settings::AUTH_MODE).as_deref(),
            Some("jwt")
        );
        assert_eq!(env.choice::<String>(&settings::PRESENCE_LIVENESS), None);
        assert_eq!(
            env.finish().unwrap_err().problems,
            [
                "HEARTBEAT_TIMEOUT_SECONDS=7201 is not a whole number of seconds from 1 to 7200",
                "PRESENCE_SHARDS=\"many\" is not a whole number from 1 to 64",
                "PARTY_INVITE_LEADER_ONLY=\"yes\" is not true or false",
                "PRESENCE_LIVENESS=\"pings\" is not heartbeat or connection-activity",
            ]
        );
    }
}
