//! `ServerParameters`, the `GAMELIFT_SDK_*` variables that override them (environment
//! first, as Go `server/server_state.go` `init` and C++ do), and the timings.

use std::path::PathBuf;
use std::time::Duration;

use crate::error::GameLiftError;

/// The names of the variables read by `ServerParameters::resolve`.
pub mod env {
    pub const WEBSOCKET_URL: &str = "GAMELIFT_SDK_WEBSOCKET_URL";
    pub const PROCESS_ID: &str = "GAMELIFT_SDK_PROCESS_ID";
    pub const HOST_ID: &str = "GAMELIFT_SDK_HOST_ID";
    pub const FLEET_ID: &str = "GAMELIFT_SDK_FLEET_ID";
    pub const AUTH_TOKEN: &str = "GAMELIFT_SDK_AUTH_TOKEN";
    pub const REGION: &str = "GAMELIFT_REGION";
    pub const ACCESS_KEY: &str = "GAMELIFT_ACCESS_KEY";
    pub const SECRET_KEY: &str = "GAMELIFT_SECRET_KEY";
    pub const SESSION_TOKEN: &str = "GAMELIFT_SESSION_TOKEN";
    pub const TOOL_NAME: &str = "GAMELIFT_SDK_TOOL_NAME";
    pub const TOOL_VERSION: &str = "GAMELIFT_SDK_TOOL_VERSION";
    /// Go's tuning variables, as Go durations (`3s`, `500ms`).
    pub const HEALTHCHECK_INTERVAL: &str = "HEALTHCHECK_INTERVAL";
    pub const HEALTHCHECK_MAX_JITTER: &str = "HEALTHCHECK_MAX_JITTER";
    pub const HEALTHCHECK_TIMEOUT: &str = "HEALTHCHECK_TIMEOUT";
    pub const SERVICE_CALL_TIMEOUT: &str = "SERVICE_CALL_TIMEOUT";
}

/// Go replaces this process id by a random UUID (`common/env.go`).
const MANAGED_RESOURCE: &str = "ManagedResource";

/// Where and who the process is. Empty strings are unset, as in the official SDKs; each
/// field is overridden by its variable when that is set.
#[derive(Clone, Debug, Default)]
pub struct ServerParameters {
    /// `GAMELIFT_SDK_WEBSOCKET_URL`: `ws://…` or `wss://…`.
    pub web_socket_url: String,
    /// `GAMELIFT_SDK_PROCESS_ID`.
    pub process_id: String,
    /// `GAMELIFT_SDK_HOST_ID`: the compute name, sent as `ComputeId`.
    pub host_id: String,
    /// `GAMELIFT_SDK_FLEET_ID`.
    pub fleet_id: String,
    /// `GAMELIFT_SDK_AUTH_TOKEN`. When set, the SigV4 fields are ignored.
    pub auth_token: String,
    /// `GAMELIFT_REGION`: with the keys below, signs the query with SigV4 instead.
    pub aws_region: String,
    /// `GAMELIFT_ACCESS_KEY`.
    pub access_key: String,
    /// `GAMELIFT_SECRET_KEY`.
    pub secret_key: String,
    /// `GAMELIFT_SESSION_TOKEN`, optional.
    pub session_token: String,
    /// A PEM file of certificates trusted for `wss://` besides the platform's roots
    /// (e.g. the local stack's self-signed one). `SSL_CERT_FILE` works too, as in Go.
    pub ca_certificate_file: Option<PathBuf>,
    /// Intervals and timeouts; the defaults are the official SDKs'.
    pub timing: Timing,
}

/// Intervals and timeouts. Go's variables (`HEALTHCHECK_INTERVAL`,
/// `HEALTHCHECK_MAX_JITTER`, `HEALTHCHECK_TIMEOUT`, `SERVICE_CALL_TIMEOUT`) override them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timing {
    /// Between heartbeats: 60 s.
    pub heartbeat_interval: Duration,
    /// Each interval is shortened or lengthened by up to this: 10 s.
    pub heartbeat_max_jitter: Duration,
    /// How long `on_health_check` may take before the heartbeat says unhealthy: 50 s.
    pub health_check_timeout: Duration,
    /// Every call but ActivateServerProcess: 20 s.
    pub call_timeout: Duration,
    /// ActivateServerProcess (ProcessReady): 6 s, as Go.
    pub activate_timeout: Duration,
    /// Retries of a connect or reconnect.
    pub reconnect: Backoff,
    /// How long the old socket is still read after a RefreshConnection: 5 s, as Go.
    pub refresh_grace: Duration,
}

impl Default for Timing {
    fn default() -> Self {
        Self {
            heartbeat_interval: Duration::from_secs(60),
            heartbeat_max_jitter: Duration::from_secs(10),
            health_check_timeout: Duration::from_secs(50),
            call_timeout: Duration::from_secs(20),
            activate_timeout: Duration::from_secs(6),
            reconnect: Backoff::default(),
            refresh_grace: Duration::from_secs(5),
        }
    }
}

/// Capped doubling delays between connection attempts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Backoff {
    /// The delay before the first retry: 4 s (C++ `GeometricBackoffRetryStrategy`).
    pub first: Duration,
    /// The cap: 32 s.
    pub max: Duration,
    /// Retries after the first attempt: 7.
    pub retries: u32,
}

impl Default for Backoff {
    fn default() -> Self {
        Self {
            first: Duration::from_secs(4),
            max: Duration::from_secs(32),
            retries: 7,
        }
    }
}

impl Backoff {
    /// The delay before retry `n` (0-based).
    pub fn delay(&self, n: u32) -> Duration {
        self.first
            .saturating_mul(2u32.saturating_pow(n.min(16)))
            .min(self.max)
    }
}

/// How the upgrade is authorised.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Auth {
    Token(String),
    SigV4(crate::sigv4::Credentials),
}

/// Parameters checked and merged with the environment.
#[derive(Clone, Debug)]
pub(crate) struct Resolved {
    pub url: String,
    pub process_id: String,
    pub host_id: String,
    pub fleet_id: String,
    pub auth: Auth,
    pub ca_certificate_file: Option<PathBuf>,
    pub timing: Timing,
    pub tool_name: Option<String>,
    pub tool_version: Option<String>,
}

impl ServerParameters {
    /// Parameters from the `GAMELIFT_SDK_*` variables alone (Go's
    /// `InitSDKFromEnvironment`).
    pub fn from_environment() -> Self {
        Self::default()
    }

    /// Merges the variables `env` gives (they win) and checks the result, naming the
    /// field and variable of anything missing or wrong.
    pub(crate) fn resolve(
        &self,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Resolved, GameLiftError> {
        let var = |name: &str, own: &str| {
            env(name)
                .filter(|v| !v.is_empty())
                .unwrap_or(own.to_owned())
        };
        let url = var(env::WEBSOCKET_URL, &self.web_socket_url);
        let mut process_id = var(env::PROCESS_ID, &self.process_id);
        let host_id = var(env::HOST_ID, &self.host_id);
        let fleet_id = var(env::FLEET_ID, &self.fleet_id);
        let auth_token = var(env::AUTH_TOKEN, &self.auth_token);
        let region = var(env::REGION, &self.aws_region);
        let missing = |field: &str, name: &str| {
            GameLiftError::Config(format!(
                "{field} is required (set {name} or ServerParameters::{field})"
            ))
        };
        if url.is_empty() {
            return Err(missing("web_socket_url", env::WEBSOCKET_URL));
        }
        if !(url.starts_with("ws://") || url.starts_with("wss://")) {
            return Err(GameLiftError::Config(format!(
                "web_socket_url must start with ws:// or wss:// ({}), got {url:?}",
                env::WEBSOCKET_URL
            )));
        }
        if process_id.is_empty() {
            return Err(missing("process_id", env::PROCESS_ID));
        }
        if process_id == MANAGED_RESOURCE {
            process_id = uuid::Uuid::new_v4().to_string();
        }
        if fleet_id.is_empty() {
            return Err(missing("fleet_id", env::FLEET_ID));
        }
        if host_id.is_empty() {
            return Err(missing("host_id", env::HOST_ID));
        }
        let auth = if !auth_token.is_empty() {
            // The token wins: Go drops the SigV4 settings when one is set.
            Auth::Token(auth_token)
        } else if !region.is_empty() {
            let access_key = var(env::ACCESS_KEY, &self.access_key);
            let secret_key = var(env::SECRET_KEY, &self.secret_key);
            if access_key.is_empty() {
                return Err(missing("access_key", env::ACCESS_KEY));
            }
            if secret_key.is_empty() {
                return Err(missing("secret_key", env::SECRET_KEY));
            }
            let session_token = var(env::SESSION_TOKEN, &self.session_token);
            Auth::SigV4(crate::sigv4::Credentials {
                region,
                access_key,
                secret_key,
                session_token: Some(session_token).filter(|t| !t.is_empty()),
            })
        } else {
            return Err(GameLiftError::Config(format!(
                "no authorization: set auth_token ({}) or aws_region with access_key and secret_key ({}, {}, {})",
                env::AUTH_TOKEN,
                env::REGION,
                env::ACCESS_KEY,
                env::SECRET_KEY
            )));
        };
        let mut timing = self.timing.clone();
        for (name, slot) in [
            (env::HEALTHCHECK_INTERVAL, &mut timing.heartbeat_interval),
            (
                env::HEALTHCHECK_MAX_JITTER,
                &mut timing.heartbeat_max_jitter,
            ),
            (env::HEALTHCHECK_TIMEOUT, &mut timing.health_check_timeout),
            (env::SERVICE_CALL_TIMEOUT, &mut timing.call_timeout),
        ] {
            if let Some(text) = env(name).filter(|v| !v.is_empty()) {
                *slot = parse_go_duration(&text).ok_or_else(|| {
                    GameLiftError::Config(format!(
                        "{name}={text:?} is not a duration such as 3s, 500ms or 1m30s"
                    ))
                })?;
            }
        }
        if timing.heartbeat_interval.is_zero() {
            return Err(GameLiftError::Config(format!(
                "the heartbeat interval must be above zero ({})",
                env::HEALTHCHECK_INTERVAL
            )));
        }
        Ok(Resolved {
            url,
            process_id,
            host_id,
            fleet_id,
            auth,
            ca_certificate_file: self.ca_certificate_file.clone(),
            timing,
            tool_name: env(env::TOOL_NAME).filter(|v| !v.is_empty()),
            tool_version: env(env::TOOL_VERSION).filter(|v| !v.is_empty()),
        })
    }
}

/// Reads a Go duration (`300ms`, `3s`, `1m30s`, `1.5s`); units ns, us, µs, ms, s, m, h.
pub(crate) fn parse_go_duration(text: &str) -> Option<Duration> {
    let mut rest = text.trim();
    if rest == "0" {
        return Some(Duration::ZERO);
    }
    let mut total = 0f64;
    while !rest.is_empty() {
        let number_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let number: f64 = rest[..number_len].parse().ok()?;
        rest = &rest[number_len..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let seconds = match &rest[..unit_len] {
            "ns" => 1e-9,
            "us" | "µs" => 1e-6,
            "ms" => 1e-3,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            _ => return None,
        };
        rest = &rest[unit_len..];
        total += number * seconds;
    }
    Duration::try_from_secs_f64(total).ok()
}

#[cfg(test)]
mod tests;
