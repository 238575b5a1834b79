//! The authorizer's settings (each declared in `shared::config::settings`): `AUTH_MODE`
//! (and the `ALLOW_UNAUTHENTICATED` opt-in header mode needs), and in JWT mode the
//! issuer, audience, key source, clock leeway and maximum token lifetime. Read once at
//! init; a bad deployment fails on cold start with every problem listed.
//!
//! - `AUTH_MODE=header` starts only with `ALLOW_UNAUTHENTICATED=true`, and never when
//!   `STAGE` is `Production` (the template's rules refuse both too); the local stack's
//!   default is `header` and it opts in itself.
//! - In jwt mode, exactly one of `JWKS_URL` (RS256/ES256 only, https) and
//!   `JWT_HS256_SECRET_PARAMETER` (the name or path of an SSM Parameter Store SecureString
//!   holding the HS256 secret, at least 32 bytes: `secret.rs`). The template grants
//!   `ssm:GetParameter` on that parameter only and `kms:Decrypt` through SSM for it only.
//!   `JWT_HS256_SECRET` (the secret itself) is the local stack's only: the Lambda function
//!   refuses it, since deployed a secret is never an environment variable.

use std::collections::HashMap;
use std::fmt;
use std::net::IpAddr;
use std::time::Duration;

use shared::config::{ConfigError, EnvReader, settings};

/// Clock skew tolerated on `exp`, `nbf` and `iat` unless `JWT_LEEWAY_SECONDS` says
/// otherwise (its declaration: `shared::config::settings::JWT_LEEWAY_SECONDS`).
pub const DEFAULT_LEEWAY: Duration = Duration::from_secs(settings::JWT_LEEWAY_SECONDS.default);
/// The shortest HS256 secret accepted (RFC 7518 §3.2: at least the hash size, 256 bits).
pub const MIN_HS256_SECRET_BYTES: usize = 32;

/// The stage where `AUTH_MODE=header` is always refused (the template's `Stage` value).
pub const PRODUCTION_STAGE: &str = "Production";

/// How identities are established.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AuthMode {
    /// A signed JWT; the player id is its `sub`. The default.
    Jwt,
    /// Development only: the client names itself (`?playerId=` or `X-Player-Id`).
    Header,
}

impl AuthMode {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Jwt => "jwt",
            Self::Header => "header",
        }
    }
}

/// Where the authorizer runs, which decides its defaults and where an HS256 secret may
/// come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Runtime {
    /// The Lambda function: `AUTH_MODE` defaults to `jwt`, and an HS256 secret is read
    /// from Parameter Store (`JWT_HS256_SECRET_PARAMETER`, a SecureString), never from
    /// an environment variable: `JWT_HS256_SECRET` is refused.
    Lambda,
    /// The local stack, in-process: `AUTH_MODE` defaults to `header`, and the HS256
    /// secret is `JWT_HS256_SECRET` (there is no Parameter Store on a laptop).
    LocalStack,
}

impl Runtime {
    fn default_mode(self) -> AuthMode {
        match self {
            Self::Lambda => AuthMode::Jwt,
            Self::LocalStack => AuthMode::Header,
        }
    }
}

/// What the authorizer checks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AuthConfig {
    /// `AUTH_MODE=header` (development only; needs `ALLOW_UNAUTHENTICATED=true`, and is
    /// refused in Production whatever it says).
    Header,
    /// `AUTH_MODE=jwt`.
    Jwt(JwtConfig),
}

/// Token validation settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JwtConfig {
    /// The exact `iss` a token must carry.
    pub issuer: String,
    /// A value the token's `aud` (a string or an array) must contain.
    pub audience: String,
    /// Where the verification keys come from; this also fixes the accepted algorithms.
    pub keys: KeyConfig,
    /// Clock skew tolerated on `exp`, `nbf` and `iat`.
    pub leeway: Duration,
    /// `JWT_MAX_LIFETIME_SECONDS`: the longest `exp - iat` accepted (a token without
    /// `iat` is then refused). None: no limit.
    pub max_lifetime: Option<Duration>,
}

/// The verification key source. Exactly one is configured, and it decides the
/// algorithm allow-list: HS256 only with a secret, RS256/ES256 only with a JWKS.
#[derive(Clone, PartialEq, Eq)]
pub enum KeyConfig {
    /// A shared HMAC secret (HS256 tokens only): `JWT_HS256_SECRET` on the local stack,
    /// or the value of `JWT_HS256_SECRET_PARAMETER` once read
    /// ([`crate::secret::resolve`]).
    Hs256Secret(Vec<u8>),
    /// `JWT_HS256_SECRET_PARAMETER`: the name of the SecureString holding the HS256
    /// secret, not read yet. An authorizer built with it unread refuses every token.
    Hs256Parameter { name: String },
    /// `JWKS_URL`: the issuer's public keys (RS256 and ES256 tokens only).
    Jwks { url: String },
}

impl KeyConfig {
    /// HS256, whether the secret is read yet or not.
    pub fn is_hs256(&self) -> bool {
        matches!(self, Self::Hs256Secret(_) | Self::Hs256Parameter { .. })
    }
}

impl fmt::Debug for KeyConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // Never print the secret, not even in a debug dump of the settings.
            Self::Hs256Secret(secret) => {
                write!(f, "Hs256Secret([{} bytes redacted])", secret.len())
            }
            Self::Hs256Parameter { name } => f
                .debug_struct("Hs256Parameter")
                .field("name", name)
                .finish(),
            Self::Jwks { url } => f.debug_struct("Jwks").field("url", url).finish(),
        }
    }
}

impl AuthConfig {
    /// Reads the process environment, as the Lambda function does.
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::from_reader(EnvReader::from_process(), Runtime::Lambda)
    }

    /// Reads a map of variables as the Lambda function does (tests).
    pub fn from_map(vars: &HashMap<String, String>) -> Result<Self, ConfigError> {
        Self::from_reader(EnvReader::from_map(vars), Runtime::Lambda)
    }

    /// Reads any variable source for a runtime: the local stack uses
    /// `AuthConfig::from_reader(<its settings>, Runtime::LocalStack)`.
    pub fn from_reader(mut env: EnvReader<'_>, runtime: Runtime) -> Result<Self, ConfigError> {
        let mode = match env.optional(settings::AUTH_MODE.variable) {
            None => Some(runtime.default_mode()),
            Some(raw) => match raw.to_ascii_lowercase().as_str() {
                "jwt" => Some(AuthMode::Jwt),
                "header" => Some(AuthMode::Header),
                _ => {
                    env.problem(format!(
                        "{}={raw:?} is not {}",
                        settings::AUTH_MODE.variable,
                        settings::AUTH_MODE.accepts()
                    ));
                    None
                }
            },
        };
        let allow_unauthenticated = read_allow_unauthenticated(&mut env);
        // The template's Rules refuse both too; the function checks them again so that no
        // other way of deploying it (a console edit, another template) can open a stage
        // to players who name themselves without saying so, or open Production at all.
        if mode == Some(AuthMode::Header) {
            let stage = env.optional(settings::STAGE.variable);
            if let Some(stage) = stage.filter(|s| s.eq_ignore_ascii_case(PRODUCTION_STAGE)) {
                env.problem(format!(
                    "AUTH_MODE=header is refused when STAGE={stage}: clients would name \
                     themselves; use AUTH_MODE=jwt"
                ));
            } else if allow_unauthenticated != Some(true) {
                env.problem(
                    "AUTH_MODE=header lets any client claim any player id, so it needs \
                     ALLOW_UNAUTHENTICATED=true (the template's AllowUnauthenticated=true) \
                     to start; set it on purpose, or use AUTH_MODE=jwt",
                );
            }
        }
        let config = match mode {
            Some(AuthMode::Header) | None => Self::Header,
            Some(AuthMode::Jwt) => Self::Jwt(read_jwt(&mut env, runtime)),
        };
        env.finish()?;
        Ok(config)
    }

    /// Development mode: the client names itself. Never deploy this to production.
    pub fn header() -> Self {
        Self::Header
    }

    /// JWT mode with an HS256 shared secret (tests, the local stack). Unlike
    /// [`AuthConfig::from_env`] this does not check the secret's length.
    pub fn hs256(
        issuer: impl Into<String>,
        audience: impl Into<String>,
        secret: impl Into<Vec<u8>>,
    ) -> Self {
        Self::jwt(issuer, audience, KeyConfig::Hs256Secret(secret.into()))
    }

    /// JWT mode with RS256/ES256 keys from a JWKS. The URL is only used by
    /// [`crate::Authorizer::from_config`]; with [`crate::Authorizer::new`] the given
    /// key source is used instead.
    pub fn jwks(
        issuer: impl Into<String>,
        audience: impl Into<String>,
        url: impl Into<String>,
    ) -> Self {
        Self::jwt(issuer, audience, KeyConfig::Jwks { url: url.into() })
    }

    fn jwt(issuer: impl Into<String>, audience: impl Into<String>, keys: KeyConfig) -> Self {
        Self::Jwt(JwtConfig {
            issuer: issuer.into(),
            audience: audience.into(),
            keys,
            leeway: DEFAULT_LEEWAY,
            max_lifetime: None,
        })
    }

    /// The same settings with another clock leeway (no effect in header mode).
    pub fn with_leeway(mut self, leeway: Duration) -> Self {
        if let Self::Jwt(jwt) = &mut self {
            jwt.leeway = leeway;
        }
        self
    }

    /// The same settings with a maximum token lifetime (no effect in header mode).
    pub fn with_max_lifetime(mut self, max_lifetime: Option<Duration>) -> Self {
        if let Self::Jwt(jwt) = &mut self {
            jwt.max_lifetime = max_lifetime;
        }
        self
    }

    pub fn mode(&self) -> AuthMode {
        match self {
            Self::Header => AuthMode::Header,
            Self::Jwt(_) => AuthMode::Jwt,
        }
    }

    /// The Parameter Store name of an HS256 secret still to be read at init, if any.
    pub fn secret_parameter(&self) -> Option<&str> {
        match self {
            Self::Jwt(JwtConfig {
                keys: KeyConfig::Hs256Parameter { name },
                ..
            }) => Some(name),
            _ => None,
        }
    }
}

/// `ALLOW_UNAUTHENTICATED`: `true` or `false` (any case); unset is `false`; `None` when
/// it is neither (a problem).
fn read_allow_unauthenticated(env: &mut EnvReader<'_>) -> Option<bool> {
    let valid = env
        .optional(settings::ALLOW_UNAUTHENTICATED.variable)
        .is_none_or(|raw| raw.eq_ignore_ascii_case("true") || raw.eq_ignore_ascii_case("false"));
    let allow = env.flag(&settings::ALLOW_UNAUTHENTICATED);
    valid.then_some(allow)
}

fn read_jwt(env: &mut EnvReader<'_>, runtime: Runtime) -> JwtConfig {
    let issuer = env.required(settings::JWT_ISSUER.variable);
    let audience = env.required(settings::JWT_AUDIENCE.variable);
    let secret = env.optional("JWT_HS256_SECRET");
    let parameter = match runtime {
        Runtime::Lambda => env.optional(settings::JWT_HS256_SECRET_PARAMETER.variable),
        Runtime::LocalStack => None,
    };
    let url = env.optional(settings::JWKS_URL.variable);
    let leeway = env.seconds(&settings::JWT_LEEWAY_SECONDS);
    let max_lifetime = read_max_lifetime(env);
    let (secret_name, hs256) = match runtime {
        Runtime::Lambda => ("JWT_HS256_SECRET_PARAMETER", parameter.is_some()),
        Runtime::LocalStack => ("JWT_HS256_SECRET", secret.is_some()),
    };
    let secret_in_lambda = runtime == Runtime::Lambda && secret.is_some();
    if secret_in_lambda {
        // Only its presence is named: the value never reaches a log.
        env.problem(
            "JWT_HS256_SECRET is set, but the deployed authorizer reads the HS256 secret \
             from Parameter Store only (a secret in an environment variable is readable by \
             anyone who can read the function's configuration): put it in a SecureString \
             parameter and name it with JWT_HS256_SECRET_PARAMETER (JwtHs256SecretParameter)",
        );
    }
    let keys = match (hs256, url) {
        (true, Some(_)) => {
            env.problem(format!(
                "set exactly one of JWKS_URL and {secret_name}, not both"
            ));
            KeyConfig::Hs256Secret(Vec::new())
        }
        (false, None) => {
            // A secret in the Lambda's environment was just refused, saying what to use.
            if !secret_in_lambda {
                env.problem(format!(
                    "AUTH_MODE=jwt needs one of JWKS_URL or {secret_name}"
                ));
            }
            KeyConfig::Hs256Secret(Vec::new())
        }
        (true, None) => match (secret, parameter) {
            (_, Some(name)) => {
                if let Err(why) = check_parameter_name(&name) {
                    env.problem(format!("JWT_HS256_SECRET_PARAMETER={name:?} {why}"));
                }
                KeyConfig::Hs256Parameter { name }
            }
            (secret, None) => {
                let secret = secret.unwrap_or_default();
                if secret.len() < MIN_HS256_SECRET_BYTES {
                    // The length only: the value itself never reaches a log.
                    env.problem(format!(
                        "JWT_HS256_SECRET is {} bytes long; it must be at least {MIN_HS256_SECRET_BYTES} bytes",
                        secret.len()
                    ));
                }
                KeyConfig::Hs256Secret(secret.into_bytes())
            }
        },
        (false, Some(url)) => {
            if let Err(why) = check_jwks_url(&url) {
                env.problem(format!("JWKS_URL={url:?} {why}"));
            }
            KeyConfig::Jwks { url }
        }
    };
    JwtConfig {
        issuer,
        audience,
        keys,
        leeway,
        max_lifetime,
    }
}

/// `JWT_MAX_LIFETIME_SECONDS`: unset or 0 is no limit.
fn read_max_lifetime(env: &mut EnvReader<'_>) -> Option<Duration> {
    let max = env.seconds(&settings::JWT_MAX_LIFETIME_SECONDS);
    (!max.is_zero()).then_some(max)
}

/// A Parameter Store name as GetParameter takes it: `name` or a path `/a/b/name`, of
/// `A-Z a-z 0-9 _ . -` (an ARN is not accepted: the template grants this one
/// parameter of the stack's own account and region). The error completes the sentence
/// `JWT_HS256_SECRET_PARAMETER=... <error>`.
pub(crate) fn check_parameter_name(name: &str) -> Result<(), String> {
    let bare = name.strip_prefix('/').unwrap_or(name);
    let valid_part = |part: &str| {
        !part.is_empty()
            && part
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c))
    };
    if name.len() > 1011 {
        return Err("is longer than 1011 characters".to_owned());
    }
    if !name.starts_with('/') && name.contains('/') {
        return Err("is a path that does not start with /".to_owned());
    }
    if !bare.split('/').all(valid_part) {
        return Err(
            "is not a parameter name (`name` or `/path/to/name`, of A-Z a-z 0-9 _ . -)".to_owned(),
        );
    }
    Ok(())
}

/// A JWKS URL must be `https://`, or `http://` to a loopback host (local development).
/// The error completes the sentence `JWKS_URL=... <error>`.
pub(crate) fn check_jwks_url(raw: &str) -> Result<hyper::Uri, String> {
    let uri: hyper::Uri = raw.parse().map_err(|e| format!("is not a URL ({e})"))?;
    let Some(host) = uri.host().filter(|h| !h.is_empty()) else {
        return Err("has no host".to_owned());
    };
    match uri.scheme_str() {
        Some("https") => Ok(uri),
        Some("http") if is_loopback(host) => Ok(uri),
        Some("http") => Err(
            "must use https (plain http is allowed only for localhost and loopback addresses)"
                .to_owned(),
        ),
        _ => Err("must be an https:// URL".to_owned()),
    }
}

fn is_loopback(host: &str) -> bool {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    bare.eq_ignore_ascii_case("localhost")
        || bare.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    /// As the local stack reads its settings.
    fn local(pairs: &[(&str, &str)]) -> Result<AuthConfig, ConfigError> {
        let vars = vars(pairs);
        AuthConfig::from_reader(EnvReader::from_map(&vars), Runtime::LocalStack)
    }

    const SECRET: &str = "0123456789abcdef0123456789abcdef";
    const PARAMETER: &str = "/gamelift-sockets/Development/jwt-hs256-secret";

    #[test]
    fn given_no_auth_mode_when_read_then_jwt_is_the_default_and_leeway_is_30_s() {
        let config = AuthConfig::from_map(&vars(&[
            ("JWT_ISSUER", "https://issuer.example"),
            ("JWT_AUDIENCE", "game"),
            ("JWT_HS256_SECRET_PARAMETER", PARAMETER),
        ]))
        .expect("valid");
        assert_eq!(
            config,
            AuthConfig::jwt(
                "https://issuer.example",
                "game",
                KeyConfig::Hs256Parameter {
                    name: PARAMETER.into()
                }
            )
        );
        assert_eq!(config.mode(), AuthMode::Jwt);
        assert_eq!(config.secret_parameter(), Some(PARAMETER));
    }

    #[test]
    fn given_the_local_stack_and_a_secret_when_read_then_the_secret_is_used_in_process() {
        let config = local(&[
            ("AUTH_MODE", "jwt"),
            ("JWT_ISSUER", "https://issuer.example"),
            ("JWT_AUDIENCE", "game"),
            ("JWT_HS256_SECRET", SECRET),
            // Not the local stack's: it has no Parameter Store, and never asks.
            ("JWT_HS256_SECRET_PARAMETER", PARAMETER),
        ])
        .expect("valid");
        assert_eq!(
            config,
            AuthConfig::hs256("https://issuer.example", "game", SECRET)
        );
        assert_eq!(config.secret_parameter(), None);
    }

    #[test]
    fn given_a_secret_in_the_lambda_environment_when_read_then_refused_pointing_at_parameter_store()
    {
        let err = AuthConfig::from_map(&vars(&[
            ("JWT_ISSUER", "i"),
            ("JWT_AUDIENCE", "a"),
            ("JWT_HS256_SECRET", SECRET),
        ]))
        .unwrap_err();
        let text = err.to_string();
        assert_eq!(err.problems.len(), 1, "{text}");
        assert!(text.contains("JWT_HS256_SECRET is set"), "{text}");
        assert!(text.contains("JWT_HS256_SECRET_PARAMETER"), "{text}");
        assert!(!text.contains(SECRET), "the secret leaked: {text}");
    }

    #[test]
    fn given_header_mode_with_the_opt_in_when_read_then_no_jwt_variable_is_needed() {
        for allow in ["true", "TRUE", "True"] {
            let config = AuthConfig::from_map(&vars(&[
                ("AUTH_MODE", "Header"),
                ("ALLOW_UNAUTHENTICATED", allow),
            ]))
            .expect("valid");
            assert_eq!(config, AuthConfig::Header);
        }
    }

    #[test]
    fn given_header_mode_without_the_opt_in_when_read_then_refused_at_start_up() {
        for pairs in [
            vec![("AUTH_MODE", "header")],
            vec![("AUTH_MODE", "header"), ("ALLOW_UNAUTHENTICATED", "false")],
            vec![("AUTH_MODE", "header"), ("ALLOW_UNAUTHENTICATED", "")],
            vec![("AUTH_MODE", "header"), ("STAGE", "Development")],
        ] {
            let err = AuthConfig::from_map(&vars(&pairs)).unwrap_err();
            assert_eq!(err.problems.len(), 1, "{pairs:?}: {err}");
            assert!(
                err.problems[0].contains("needs ALLOW_UNAUTHENTICATED=true"),
                "{err}"
            );
        }
        // The local stack too: it passes the opt-in itself (settings::auth_config).
        assert!(local(&[]).is_err());
        assert_eq!(
            local(&[("ALLOW_UNAUTHENTICATED", "true")]).expect("valid"),
            AuthConfig::Header
        );
    }

    #[test]
    fn given_a_malformed_opt_in_when_read_then_refused_naming_it() {
        let err = AuthConfig::from_map(&vars(&[
            ("AUTH_MODE", "header"),
            ("ALLOW_UNAUTHENTICATED", "yes"),
        ]))
        .unwrap_err();
        assert_eq!(
            err.problems[0],
            "ALLOW_UNAUTHENTICATED=\"yes\" is not true or false"
        );
    }

    #[test]
    fn given_the_opt_in_in_jwt_mode_when_read_then_it_changes_nothing() {
        let config = AuthConfig::from_map(&vars(&[
            ("ALLOW_UNAUTHENTICATED", "true"),
            ("JWT_ISSUER", "i"),
            ("JWT_AUDIENCE", "a"),
            ("JWKS_URL", "https://issuer.example/jwks.json"),
        ]))
        .expect("valid");
        assert_eq!(config.mode(), AuthMode::Jwt);
    }

    #[test]
    fn given_header_mode_on_the_production_stage_when_read_then_refused_even_with_the_opt_in() {
        for stage in ["Production", "production"] {
            let err = AuthConfig::from_map(&vars(&[
                ("AUTH_MODE", "header"),
                ("ALLOW_UNAUTHENTICATED", "true"),
                ("STAGE", stage),
            ]))
            .unwrap_err();
            assert_eq!(err.problems.len(), 1, "{err}");
            assert!(
                err.problems[0].contains("AUTH_MODE=header is refused when STAGE="),
                "{err}"
            );
        }
        for stage in ["Development", "Staging"] {
            let config = AuthConfig::from_map(&vars(&[
                ("AUTH_MODE", "header"),
                ("ALLOW_UNAUTHENTICATED", "true"),
                ("STAGE", stage),
            ]));
            assert_eq!(config.expect(stage), AuthConfig::Header);
        }
    }

    #[test]
    fn given_the_local_stack_default_when_auth_mode_is_unset_then_header_mode() {
        let config = local(&[("ALLOW_UNAUTHENTICATED", "true")]).expect("valid");
        assert_eq!(config.mode(), AuthMode::Header);
    }

    #[test]
    fn given_a_jwks_url_leeway_and_max_lifetime_when_read_then_all_are_used() {
        let config = AuthConfig::from_map(&vars(&[
            ("JWT_ISSUER", "https://issuer.example"),
            ("JWT_AUDIENCE", "game"),
            ("JWKS_URL", "https://issuer.example/.well-known/jwks.json"),
            ("JWT_LEEWAY_SECONDS", "300"),
            ("JWT_MAX_LIFETIME_SECONDS", "3600"),
        ]))
        .expect("valid");
        assert_eq!(
            config,
            AuthConfig::jwks(
                "https://issuer.example",
                "game",
                "https://issuer.example/.well-known/jwks.json"
            )
            .with_leeway(Duration::from_secs(300))
            .with_max_lifetime(Some(Duration::from_secs(3600)))
        );
    }

    #[test]
    fn given_a_max_lifetime_of_zero_or_out_of_range_when_read_then_off_or_refused() {
        let base = [
            ("JWT_ISSUER", "i"),
            ("JWT_AUDIENCE", "a"),
            ("JWKS_URL", "https://issuer.example/jwks.json"),
        ];
        let with = |value: &'static str| {
            let mut pairs = base.to_vec();
            pairs.push(("JWT_MAX_LIFETIME_SECONDS", value));
            AuthConfig::from_map(&vars(&pairs))
        };
        match with("0").expect("0 is no limit") {
            AuthConfig::Jwt(jwt) => assert_eq!(jwt.max_lifetime, None),
            other => panic!("{other:?}"),
        }
        for bad in ["2592001", "-1", "an hour"] {
            let err = with(bad).unwrap_err();
            assert!(
                err.problems[0].starts_with("JWT_MAX_LIFETIME_SECONDS="),
                "{err}"
            );
            assert!(err.problems[0].contains("from 0 to 2592000"), "{err}");
        }
    }

    #[test]
    fn given_jwt_mode_with_nothing_set_when_read_then_every_problem_is_listed() {
        let err = AuthConfig::from_map(&vars(&[("JWT_LEEWAY_SECONDS", "301")])).unwrap_err();
        let text = err.to_string();
        for expected in [
            "JWT_ISSUER is not set",
            "JWT_AUDIENCE is not set",
            "JWKS_URL or JWT_HS256_SECRET_PARAMETER",
            "JWT_LEEWAY_SECONDS=301",
        ] {
            assert!(text.contains(expected), "missing {expected:?} in {text}");
        }
        assert_eq!(err.problems.len(), 4, "{text}");
    }

    #[test]
    fn given_both_key_sources_when_read_then_it_is_refused() {
        let err = AuthConfig::from_map(&vars(&[
            ("JWT_ISSUER", "i"),
            ("JWT_AUDIENCE", "a"),
            ("JWT_HS256_SECRET_PARAMETER", PARAMETER),
            ("JWKS_URL", "https://issuer.example/jwks.json"),
        ]))
        .unwrap_err();
        assert_eq!(
            err.problems,
            vec!["set exactly one of JWKS_URL and JWT_HS256_SECRET_PARAMETER, not both".to_owned()]
        );
        let err = local(&[
            ("AUTH_MODE", "jwt"),
            ("JWT_ISSUER", "i"),
            ("JWT_AUDIENCE", "a"),
            ("JWT_HS256_SECRET", SECRET),
            ("JWKS_URL", "https://issuer.example/jwks.json"),
        ])
        .unwrap_err();
        assert_eq!(
            err.problems,
            vec!["set exactly one of JWKS_URL and JWT_HS256_SECRET, not both".to_owned()]
        );
    }

    #[test]
    fn given_a_short_secret_on_the_local_stack_when_read_then_its_length_is_named_but_not_its_value()
     {
        let err = local(&[
            ("AUTH_MODE", "jwt"),
            ("JWT_ISSUER", "i"),
            ("JWT_AUDIENCE", "a"),
            ("JWT_HS256_SECRET", "hunter2-but-longer"),
        ])
        .unwrap_err();
        let text = err.to_string();
        assert!(text.contains("18 bytes long"), "{text}");
        assert!(text.contains("at least 32 bytes"), "{text}");
        assert!(!text.contains("hunter2"), "the secret leaked: {text}");
    }

    #[test]
    fn given_parameter_names_when_checked_then_names_and_paths_pass_and_arns_do_not() {
        for ok in [
            "jwt-secret",
            "/gamelift-sockets/Production/jwt_hs256.secret",
            "/a",
        ] {
            assert!(check_parameter_name(ok).is_ok(), "{ok} should pass");
        }
        for bad in [
            "a/b",
            "/",
            "/a//b",
            "/a/",
            "arn:aws:ssm:eu-west-1:111122223333:parameter/jwt",
            "with space",
            &"x".repeat(1012),
        ] {
            assert!(check_parameter_name(bad).is_err(), "{bad:.40} should fail");
        }
        let err = AuthConfig::from_map(&vars(&[
            ("JWT_ISSUER", "i"),
            ("JWT_AUDIENCE", "a"),
            ("JWT_HS256_SECRET_PARAMETER", "secrets/jwt"),
        ]))
        .unwrap_err();
        assert_eq!(
            err.problems,
            vec![
                "JWT_HS256_SECRET_PARAMETER=\"secrets/jwt\" is a path that does not start with /"
                    .to_owned()
            ]
        );
    }

    #[test]
    fn given_an_unknown_mode_when_read_then_it_is_refused() {
        let err = AuthConfig::from_map(&vars(&[("AUTH_MODE", "cookie")])).unwrap_err();
        assert_eq!(
            err.problems,
            vec!["AUTH_MODE=\"cookie\" is not jwt or header".to_owned()]
        );
    }

    #[test]
    fn given_jwks_urls_when_checked_then_only_https_or_loopback_http_pass() {
        for ok in [
            "https://issuer.example/.well-known/jwks.json",
            "http://localhost:8080/jwks.json",
            "http://127.0.0.1:9000/jwks",
            "http://127.8.9.10/jwks",
            "http://[::1]:9000/jwks",
        ] {
            assert!(check_jwks_url(ok).is_ok(), "{ok} should pass");
        }
        for bad in [
            "http://issuer.example/jwks.json",
            "http://10.0.0.1/jwks",
            "ftp://issuer.example/jwks.json",
            "issuer.example/jwks.json",
            "not a url",
        ] {
            assert!(check_jwks_url(bad).is_err(), "{bad} should fail");
        }
    }

    #[test]
    fn given_a_plain_http_jwks_url_when_read_then_the_problem_says_https() {
        let err = AuthConfig::from_map(&vars(&[
            ("JWT_ISSUER", "i"),
            ("JWT_AUDIENCE", "a"),
            ("JWKS_URL", "http://issuer.example/jwks.json"),
        ]))
        .unwrap_err();
        assert_eq!(err.problems.len(), 1);
        assert!(err.problems[0].contains("must use https"), "{err}");
    }

    #[test]
    fn given_a_secret_when_debug_printed_then_it_is_redacted() {
        let config = AuthConfig::hs256("i", "a", SECRET);
        let text = format!("{config:?}");
        assert!(!text.contains(SECRET), "{text}");
        assert!(text.contains("32 bytes redacted"), "{text}");
    }
}
