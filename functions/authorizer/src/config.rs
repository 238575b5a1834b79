//! The authorizer's settings (docs/architecture.md#configuration-surface): `AUTH_MODE`,
//! and in JWT mode the issuer, audience, key source and clock leeway. Read once at
//! init; a bad deployment fails on cold start with every problem listed.

use std::collections::HashMap;
use std::fmt;
use std::net::IpAddr;
use std::time::Duration;

use shared::config::{ConfigError, EnvReader};

/// Clock skew tolerated on `exp` and `nbf` unless `JWT_LEEWAY_SECONDS` says otherwise.
pub const DEFAULT_LEEWAY: Duration = Duration::from_secs(30);
/// The largest `JWT_LEEWAY_SECONDS` accepted.
pub const MAX_LEEWAY_SECONDS: u64 = 300;
/// The shortest HS256 secret accepted (RFC 7518 §3.2: at least the hash size, 256 bits).
pub const MIN_HS256_SECRET_BYTES: usize = 32;

/// The stage where `AUTH_MODE=header` is refused (the template's `Stage` value).
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

/// What the authorizer checks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AuthConfig {
    /// `AUTH_MODE=header` (development only; the template refuses it in Production).
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
    /// Clock skew tolerated on `exp` and `nbf`.
    pub leeway: Duration,
}

/// The verification key source. Exactly one is configured, and it decides the
/// algorithm allow-list: HS256 only with a secret, RS256/ES256 only with a JWKS.
#[derive(Clone, PartialEq, Eq)]
pub enum KeyConfig {
    /// `JWT_HS256_SECRET`: a shared HMAC secret (HS256 tokens only).
    Hs256Secret(Vec<u8>),
    /// `JWKS_URL`: the issuer's public keys (RS256 and ES256 tokens only).
    Jwks { url: String },
}

impl fmt::Debug for KeyConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // Never print the secret, not even in a debug dump of the settings.
            Self::Hs256Secret(secret) => {
                write!(f, "Hs256Secret([{} bytes redacted])", secret.len())
            }
            Self::Jwks { url } => f.debug_struct("Jwks").field("url", url).finish(),
        }
    }
}

impl AuthConfig {
    /// Reads the process environment; `AUTH_MODE` defaults to `jwt`.
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::from_reader(EnvReader::from_process(), AuthMode::Jwt)
    }

    /// Reads a map of variables (tests); `AUTH_MODE` defaults to `jwt`.
    pub fn from_map(vars: &HashMap<String, String>) -> Result<Self, ConfigError> {
        Self::from_reader(EnvReader::from_map(vars), AuthMode::Jwt)
    }

    /// Reads any variable source with a chosen default mode: the local stack uses
    /// `AuthConfig::from_reader(EnvReader::from_process(), AuthMode::Header)`.
    pub fn from_reader(
        mut env: EnvReader<'_>,
        default_mode: AuthMode,
    ) -> Result<Self, ConfigError> {
        let mode = match env.optional("AUTH_MODE") {
            None => Some(default_mode),
            Some(raw) => match raw.to_ascii_lowercase().as_str() {
                "jwt" => Some(AuthMode::Jwt),
                "header" => Some(AuthMode::Header),
                _ => {
                    env.problem(format!(
                        "AUTH_MODE={raw:?} is not one of \"jwt\", \"header\""
                    ));
                    None
                }
            },
        };
        // The template's Rules refuse this too; the function checks it again so that no
        // other way of deploying it (a console edit, another template) can open a
        // production stage to players who name themselves.
        if mode == Some(AuthMode::Header) {
            if let Some(stage) = env.optional("STAGE") {
                if stage.eq_ignore_ascii_case(PRODUCTION_STAGE) {
                    env.problem(format!(
                        "AUTH_MODE=header is refused when STAGE={stage}: clients would name \
                         themselves; use AUTH_MODE=jwt"
                    ));
                }
            }
        }
        let config = match mode {
            Some(AuthMode::Header) | None => Self::Header,
            Some(AuthMode::Jwt) => Self::Jwt(read_jwt(&mut env)),
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
        Self::Jwt(JwtConfig {
            issuer: issuer.into(),
            audience: audience.into(),
            keys: KeyConfig::Hs256Secret(secret.into()),
            leeway: DEFAULT_LEEWAY,
        })
    }

    /// JWT mode with RS256/ES256 keys from a JWKS. The URL is only used by
    /// [`crate::Authorizer::from_config`]; with [`crate::Authorizer::new`] the given
    /// key source is used instead.
    pub fn jwks(
        issuer: impl Into<String>,
        audience: impl Into<String>,
        url: impl Into<String>,
    ) -> Self {
        Self::Jwt(JwtConfig {
            issuer: issuer.into(),
            audience: audience.into(),
            keys: KeyConfig::Jwks { url: url.into() },
            leeway: DEFAULT_LEEWAY,
        })
    }

    /// The same settings with another clock leeway (no effect in header mode).
    pub fn with_leeway(mut self, leeway: Duration) -> Self {
        if let Self::Jwt(jwt) = &mut self {
            jwt.leeway = leeway;
        }
        self
    }

    pub fn mode(&self) -> AuthMode {
        match self {
            Self::Header => AuthMode::Header,
            Self::Jwt(_) => AuthMode::Jwt,
        }
    }
}

fn read_jwt(env: &mut EnvReader<'_>) -> JwtConfig {
    let issuer = env.required("JWT_ISSUER");
    let audience = env.required("JWT_AUDIENCE");
    let secret = env.optional("JWT_HS256_SECRET");
    let url = env.optional("JWKS_URL");
    let leeway = env.seconds_or(
        "JWT_LEEWAY_SECONDS",
        DEFAULT_LEEWAY.as_secs(),
        0..=MAX_LEEWAY_SECONDS,
    );
    let keys = match (secret, url) {
        (Some(_), Some(_)) => {
            env.problem("set exactly one of JWKS_URL and JWT_HS256_SECRET, not both");
            KeyConfig::Hs256Secret(Vec::new())
        }
        (None, None) => {
            env.problem("AUTH_MODE=jwt needs one of JWKS_URL or JWT_HS256_SECRET");
            KeyConfig::Hs256Secret(Vec::new())
        }
        (Some(secret), None) => {
            if secret.len() < MIN_HS256_SECRET_BYTES {
                // The length only: the value itself never reaches a log.
                env.problem(format!(
                    "JWT_HS256_SECRET is {} bytes long; it must be at least {MIN_HS256_SECRET_BYTES} bytes",
                    secret.len()
                ));
            }
            KeyConfig::Hs256Secret(secret.into_bytes())
        }
        (None, Some(url)) => {
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
    }
}

/// A JWKS URL must be `https://`, or `http://` to a loopback host (local development).
/// The error completes the sentence "JWKS_URL=... <error>".
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

    const SECRET: &str = "0123456789abcdef0123456789abcdef";

    #[test]
    fn given_no_auth_mode_when_read_then_jwt_is_the_default_and_leeway_is_30_s() {
        let config = AuthConfig::from_map(&vars(&[
            ("JWT_ISSUER", "https://issuer.example"),
            ("JWT_AUDIENCE", "game"),
            ("JWT_HS256_SECRET", SECRET),
        ]))
        .expect("valid");
        assert_eq!(
            config,
            AuthConfig::hs256("https://issuer.example", "game", SECRET)
        );
        assert_eq!(config.mode(), AuthMode::Jwt);
    }

    #[test]
    fn given_header_mode_when_read_then_no_jwt_variable_is_needed() {
        let config = AuthConfig::from_map(&vars(&[("AUTH_MODE", "Header")])).expect("valid");
        assert_eq!(config, AuthConfig::Header);
    }

    #[test]
    fn given_header_mode_on_the_production_stage_when_read_then_refused() {
        for stage in ["Production", "production"] {
            let err = AuthConfig::from_map(&vars(&[("AUTH_MODE", "header"), ("STAGE", stage)]))
                .unwrap_err();
            assert!(
                err.problems[0].contains("AUTH_MODE=header is refused when STAGE="),
                "{err}"
            );
        }
        for stage in ["Development", "Staging"] {
            let config = AuthConfig::from_map(&vars(&[("AUTH_MODE", "header"), ("STAGE", stage)]));
            assert_eq!(config.expect(stage), AuthConfig::Header);
        }
    }

    #[test]
    fn given_the_local_stack_default_when_auth_mode_is_unset_then_header_mode() {
        let empty = HashMap::new();
        let config =
            AuthConfig::from_reader(EnvReader::from_map(&empty), AuthMode::Header).expect("valid");
        assert_eq!(config.mode(), AuthMode::Header);
    }

    #[test]
    fn given_a_jwks_url_and_leeway_when_read_then_both_are_used() {
        let config = AuthConfig::from_map(&vars(&[
            ("JWT_ISSUER", "https://issuer.example"),
            ("JWT_AUDIENCE", "game"),
            ("JWKS_URL", "https://issuer.example/.well-known/jwks.json"),
            ("JWT_LEEWAY_SECONDS", "300"),
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
        );
    }

    #[test]
    fn given_jwt_mode_with_nothing_set_when_read_then_every_problem_is_listed() {
        let err = AuthConfig::from_map(&vars(&[("JWT_LEEWAY_SECONDS", "301")])).unwrap_err();
        let text = err.to_string();
        for expected in [
            "JWT_ISSUER is not set",
            "JWT_AUDIENCE is not set",
            "JWKS_URL or JWT_HS256_SECRET",
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
            ("JWT_HS256_SECRET", SECRET),
            ("JWKS_URL", "https://issuer.example/jwks.json"),
        ]))
        .unwrap_err();
        assert_eq!(
            err.problems,
            vec!["set exactly one of JWKS_URL and JWT_HS256_SECRET, not both".to_owned()]
        );
    }

    #[test]
    fn given_a_short_secret_when_read_then_its_length_is_named_but_not_its_value() {
        let err = AuthConfig::from_map(&vars(&[
            ("JWT_ISSUER", "i"),
            ("JWT_AUDIENCE", "a"),
            ("JWT_HS256_SECRET", "hunter2-but-longer"),
        ]))
        .unwrap_err();
        let text = err.to_string();
        assert!(text.contains("18 bytes long"), "{text}");
        assert!(text.contains("at least 32 bytes"), "{text}");
        assert!(!text.contains("hunter2"), "the secret leaked: {text}");
    }

    #[test]
    fn given_an_unknown_mode_when_read_then_it_is_refused() {
        let err = AuthConfig::from_map(&vars(&[("AUTH_MODE", "cookie")])).unwrap_err();
        assert_eq!(
            err.problems,
            vec!["AUTH_MODE=\"cookie\" is not one of \"jwt\", \"header\"".to_owned()]
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
