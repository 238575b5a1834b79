//! What the matchmaking routes read besides the shared [`crate::config::Config`]:
//! which FlexMatch configurations a client may name.

use crate::config::{ConfigError, EnvReader, queue_names, settings};

/// `MATCHMAKING_CONFIGURATIONS` and `MATCHMAKING_CONFIGURATION`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MatchmakingSettings {
    /// The configurations a `startMatchmaking` may name, the default first. Empty:
    /// matchmaking is not set up, and its routes answer `unavailable`.
    pub configurations: Vec<String>,
    /// `startMatchmaking`s one player may send per minute, counted with their placement
    /// requests (`RATE_LIMIT_PLACEMENTS_PER_MINUTE`, which the function's shared
    /// configuration reads); 0 turns the limit off.
    pub requests_per_minute: u32,
}

impl MatchmakingSettings {
    /// Reads the process environment, reporting every problem at once.
    pub fn from_env() -> Result<Self, ConfigError> {
        let mut env = EnvReader::from_process();
        let settings = Self::read(&mut env);
        env.finish().map(|()| settings)
    }

    /// `MATCHMAKING_CONFIGURATIONS`: comma-separated configuration names (unset: no
    /// matchmaking). `MATCHMAKING_CONFIGURATION`: the default, which must be one of them
    /// (unset: the first); alone, it is the one configuration.
    pub fn read(env: &mut EnvReader<'_>) -> Self {
        let mut configurations = queue_names(
            &env.optional(settings::MATCHMAKING_CONFIGURATIONS.variable)
                .unwrap_or_default(),
        );
        if let Some(default) = env.optional(settings::MATCHMAKING_CONFIGURATION.variable) {
            if configurations.is_empty() {
                configurations.push(default);
            } else if let Some(at) = configurations.iter().position(|c| *c == default) {
                let default = configurations.remove(at);
                configurations.insert(0, default);
            } else {
                env.problem(format!(
                    "MATCHMAKING_CONFIGURATION={default:?} is not one of MATCHMAKING_CONFIGURATIONS ({})",
                    configurations.join(", ")
                ));
            }
        }
        Self {
            configurations,
            requests_per_minute: 0,
        }
    }

    /// One configuration, the default (the local stack's).
    pub fn single(name: impl Into<String>) -> Self {
        Self {
            configurations: vec![name.into()],
            requests_per_minute: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn read(pairs: &[(&str, &str)]) -> Result<MatchmakingSettings, ConfigError> {
        let vars: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let mut env = EnvReader::from_map(&vars);
        let settings = MatchmakingSettings::read(&mut env);
        env.finish().map(|()| settings)
    }

    #[test]
    fn given_nothing_set_then_matchmaking_is_off() {
        assert_eq!(read(&[]).unwrap().configurations, Vec::<String>::new());
    }

    #[test]
    fn given_a_default_then_it_comes_first_or_alone() {
        let settings = read(&[
            ("MATCHMAKING_CONFIGURATIONS", "casual, ranked ,casual"),
            ("MATCHMAKING_CONFIGURATION", "ranked"),
        ])
        .unwrap();
        assert_eq!(settings.configurations, vec!["ranked", "casual"]);
        let alone = read(&[("MATCHMAKING_CONFIGURATION", "duel")]).unwrap();
        assert_eq!(alone.configurations, vec!["duel"]);
    }

    #[test]
    fn given_a_default_outside_the_list_then_it_is_a_problem_naming_both() {
        let error = read(&[
            ("MATCHMAKING_CONFIGURATIONS", "casual"),
            ("MATCHMAKING_CONFIGURATION", "ranked"),
        ])
        .unwrap_err();
        assert!(
            error.problems[0]
                .contains("\"ranked\" is not one of MATCHMAKING_CONFIGURATIONS (casual)")
        );
    }
}
