//! The FlexMatch simulator's knobs (`local/src/flexmatch`): the rule set file, the
//! configuration's name, acceptance and the request timeout.

use std::ops::RangeInclusive;
use std::time::Duration;

use serde::Serialize;
use shared::config::ConfigError;

use super::Settings;
use super::values::seconds;
use crate::flexmatch::FlexMatchSettings;
use crate::flexmatch::rule_set::RuleSet;

pub const DEFAULT_MATCHMAKING_CONFIGURATION: &str = "default";
/// GameLift's own default request timeout is longer; two minutes suits a local game.
pub const DEFAULT_MATCHMAKING_TIMEOUT_SECONDS: u64 = 120;
/// GameLift accepts up to 43 200 s (12 hours).
pub const MATCHMAKING_TIMEOUT_SECONDS_RANGE: RangeInclusive<u64> = 1..=43_200;
/// GameLift accepts an acceptance timeout of 1–600 s; 0 here: acceptance not required.
pub const ACCEPTANCE_TIMEOUT_SECONDS_RANGE: RangeInclusive<u64> = 0..=600;

#[derive(Clone, Debug, PartialEq, Eq, clap::Args, Serialize)]
#[command(next_help_heading = "FlexMatch simulator")]
pub struct MatchmakingFlags {
    /// A FlexMatch rule set JSON file (e.g. local/rule-sets/duel.json). Unset: no
    /// matchmaking (its routes answer `unavailable`).
    #[arg(long, env = "MATCHMAKING_RULE_SET")]
    pub matchmaking_rule_set: Option<String>,

    /// The simulated matchmaking configuration's name (the one startMatchmaking uses).
    #[arg(long, env = "MATCHMAKING_CONFIGURATION", default_value = DEFAULT_MATCHMAKING_CONFIGURATION)]
    pub matchmaking_configuration: String,

    /// Seconds players have to acceptMatch a proposed match (0: acceptance not required).
    #[arg(long, env = "SIM_ACCEPTANCE_TIMEOUT_SECONDS", default_value_t = 0,
          value_parser = seconds(ACCEPTANCE_TIMEOUT_SECONDS_RANGE))]
    pub sim_acceptance_timeout_seconds: u64,

    /// A ticket still searching this long after it started times out.
    #[arg(long, env = "SIM_MATCHMAKING_TIMEOUT_SECONDS",
          default_value_t = DEFAULT_MATCHMAKING_TIMEOUT_SECONDS,
          value_parser = seconds(MATCHMAKING_TIMEOUT_SECONDS_RANGE))]
    pub sim_matchmaking_timeout_seconds: u64,
}

impl Settings {
    /// The FlexMatch simulator's settings, its rule set file read and checked; `None`
    /// when no rule set is given (matchmaking off).
    pub fn flexmatch_settings(&self) -> Result<Option<FlexMatchSettings>, ConfigError> {
        let flags = &self.matchmaking;
        let Some(path) = flags.matchmaking_rule_set.as_deref() else {
            return Ok(None);
        };
        let problem = |message: String| ConfigError {
            problems: vec![message],
        };
        let text = std::fs::read_to_string(path)
            .map_err(|e| problem(format!("MATCHMAKING_RULE_SET={path:?} cannot be read: {e}")))?;
        let rule_set = RuleSet::parse(&text)
            .map_err(|e| problem(format!("MATCHMAKING_RULE_SET={path:?}: {e}")))?;
        let queue = shared::config::queue_names(&self.placement.game_session_queues)
            .into_iter()
            .next()
            .unwrap_or_default();
        Ok(Some(FlexMatchSettings {
            rule_set,
            configuration: flags.matchmaking_configuration.clone(),
            acceptance_timeout: (flags.sim_acceptance_timeout_seconds > 0)
                .then(|| Duration::from_secs(flags.sim_acceptance_timeout_seconds)),
            request_timeout: Duration::from_secs(flags.sim_matchmaking_timeout_seconds),
            queue,
            region: self.simulator.sim_region.clone(),
            account_id: self.simulator.sim_account_id.clone(),
        }))
    }
}
