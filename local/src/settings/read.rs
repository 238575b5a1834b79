//! Reading the settings as `cargo run -p local` does: each knob from its flag, else its
//! environment variable (blank counts as unset, as the functions read it), else its
//! default. Every bad value is reported, not just the first, each by the name the user
//! wrote it under (`HEARTBEAT_TIMEOUT_SECONDS` when it came from the environment,
//! `--heartbeat-timeout-seconds` when from the command line), saying what is accepted.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};

use clap::builder::ValueParser;
use clap::error::ErrorKind;
use clap::{Arg, Command, CommandFactory, FromArgMatches};
use serde_json::Value;

use super::values::accepted;
use super::{Settings, SettingsError};

/// Where a knob's value came from; a knob absent from [`Origins`] has its default.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Its environment variable.
    Environment,
    /// Its flag (`--name`, as written here).
    CommandLine(String),
}

/// Where each knob's value came from, by variable name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Origins(BTreeMap<String, Origin>);

impl Origins {
    pub fn get(&self, variable: &str) -> Option<&Origin> {
        self.0.get(variable)
    }

    pub fn insert(&mut self, variable: impl Into<String>, origin: Origin) {
        self.0.insert(variable.into(), origin);
    }

    /// How the user wrote the knob: its flag if it came from the command line, else its
    /// variable.
    pub fn name(&self, variable: &str) -> String {
        match self.0.get(variable) {
            Some(Origin::CommandLine(flag)) => flag.clone(),
            _ => variable.to_owned(),
        }
    }

    /// `problem` (which names knobs by variable) with each knob given on the command
    /// line named by its flag instead.
    pub fn as_written(&self, problem: &str) -> String {
        let mut written = String::with_capacity(problem.len());
        let mut word = String::new();
        let flush = |word: &mut String, written: &mut String| {
            written.push_str(&self.name(word));
            word.clear();
        };
        for c in problem.chars() {
            if c.is_ascii_alphanumeric() || c == '_' {
                word.push(c);
            } else {
                flush(&mut word, &mut written);
                written.push(c);
            }
        }
        flush(&mut word, &mut written);
        written
    }
}

/// Why [`Settings::read`] gave no settings.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// `--help`, `--version`, an unknown flag, a flag without its value: clap's own
    /// answer ([`clap::Error::exit`] prints it and exits as clap does).
    #[error(transparent)]
    Usage(#[from] clap::Error),
    /// Bad values, every one listed.
    #[error(transparent)]
    Invalid(#[from] SettingsError),
}

impl Settings {
    /// Reads `args` (the first is the program name) and the variables `env` gives, then
    /// checks the whole set ([`Settings::validate`]). On failure every problem is listed.
    pub fn read<I, T>(args: I, env: impl Fn(&str) -> Option<OsString>) -> Result<Self, ReadError>
    where
        I: IntoIterator<Item = T>,
        T: Into<OsString>,
    {
        let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
        let command = Self::command();
        // The command line first, every value kept as written (checked below, all of them).
        let as_written = command
            .clone()
            .mut_args(|arg| {
                arg.env(None)
                    .default_value(None)
                    .value_parser(ValueParser::os_string())
            })
            .try_get_matches_from(&args)
            .map_err(|error| help_from(&command, &args, error))?;
        let mut problems = Vec::new();
        let mut origins = Origins::default();
        let mut valid = vec![OsString::from("local")];
        for arg in command.get_arguments() {
            let (Some(long), Some(variable)) = (arg.get_long(), arg.get_env()) else {
                continue;
            };
            let variable = variable.to_string_lossy().into_owned();
            let (value, origin) = match as_written.get_one::<OsString>(arg.get_id().as_str()) {
                Some(value) => (value.clone(), Origin::CommandLine(format!("--{long}"))),
                None => match env(&variable).filter(|v| !v.to_string_lossy().trim().is_empty()) {
                    Some(value) => (value, Origin::Environment),
                    None => continue,
                },
            };
            origins.insert(variable.as_str(), origin);
            let flag = flag_with_value(long, &value);
            match check(arg, &flag) {
                Ok(()) => valid.push(flag),
                Err(accepted) => {
                    let value = if arg.is_hide_env_values_set() {
                        "(redacted)".to_owned()
                    } else {
                        format!("{:?}", value.to_string_lossy())
                    };
                    let name = origins.name(&variable);
                    problems.push(format!("{name}={value} is not {accepted}"));
                }
            }
        }
        // The values that parsed, typed; a bad one is left at its default, so that the
        // checks of the whole set still run and report everything else.
        let matches = command
            .mut_args(|arg| arg.env(None))
            .try_get_matches_from(valid)?;
        let mut settings = Self::from_arg_matches(&matches)?;
        settings.origins = origins;
        if let Err(invalid) = settings.validate() {
            problems.extend(invalid.problems);
        }
        if problems.is_empty() {
            Ok(settings)
        } else {
            Err(SettingsError { problems }.into())
        }
    }

    /// Every setting, one `NAME=value (where it came from)` line each, in `--help`'s
    /// order; secrets redacted.
    /// `local --help`, as text.
    pub fn long_help() -> String {
        Self::command().render_long_help().to_string()
    }

    pub fn summary(&self) -> Vec<String> {
        let values = match serde_json::to_value(self) {
            Ok(Value::Object(values)) => values,
            _ => serde_json::Map::new(),
        };
        Self::command()
            .get_arguments()
            .filter_map(|arg| {
                let variable = arg.get_env()?.to_string_lossy().into_owned();
                let value = match values.get(arg.get_id().as_str()) {
                    None | Some(Value::Null) => "(unset)".to_owned(),
                    Some(_) if arg.is_hide_env_values_set() => "(set, redacted)".to_owned(),
                    Some(Value::String(text)) => text.clone(),
                    Some(other) => other.to_string(),
                };
                let origin = match self.origins.get(&variable) {
                    None => "default".to_owned(),
                    Some(Origin::Environment) => "environment".to_owned(),
                    Some(Origin::CommandLine(flag)) => flag.clone(),
                };
                Some(format!("{variable}={value} ({origin})"))
            })
            .collect()
    }
}

/// `--help` and `--version` as the whole command answers them (with each knob's
/// default, variable and possible values); any other usage error as it is.
fn help_from(command: &Command, args: &[OsString], error: clap::Error) -> clap::Error {
    let help = matches!(
        error.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
    );
    match command.clone().try_get_matches_from(args) {
        Err(full) if help && full.kind() == error.kind() => full,
        _ => error,
    }
}

/// `--long=value`: one argument, whatever the value looks like (`-1`, `--x`, empty).
fn flag_with_value(long: &str, value: &OsStr) -> OsString {
    let mut flag = OsString::from(format!("--{long}="));
    flag.push(value);
    flag
}

/// Parses one knob's value with its own parser, alone; `Err` says what is accepted.
fn check(arg: &Arg, flag: &OsStr) -> Result<(), String> {
    let alone = Command::new("local")
        .no_binary_name(true)
        .disable_help_flag(true)
        .disable_version_flag(true)
        .arg(arg.clone().env(None).default_value(None));
    match alone.try_get_matches_from([flag]) {
        Ok(_) => Ok(()),
        Err(error) => Err(accepted(arg, &error)),
    }
}
