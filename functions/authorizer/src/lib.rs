//! The `$connect` REQUEST authorizer.
//!
//! `AUTH_MODE=jwt` (default): the token comes from `?token=` or `Authorization: Bearer`;
//! it must be signed with an accepted algorithm (HS256 with the configured secret, read
//! from Parameter Store when deployed, or RS256/ES256 with a key from the JWKS), name no
//! `crit` extension, be within `exp`/`nbf` and not issued in the future (`iat`, with
//! leeway), live no longer than `JWT_MAX_LIFETIME_SECONDS` if set, and carry the
//! configured `iss` and `aud`; the player id is its `sub`.
//! `AUTH_MODE=header` (development only, with `ALLOW_UNAUTHENTICATED=true`): the player
//! id comes from `?playerId=` or `X-Player-Id`.
//!
//! Every failure is a Deny, never an `Err`: a bad token, a missing one, or a JWKS
//! endpoint that is down. The local stack's gateway calls [`Authorizer::authorize`]
//! directly and maps [`DenyReason::http_status`] to the upgrade response.

pub mod config;
mod explain;
pub mod jwks;
mod jwt;
pub mod policy;
pub mod secret;

use std::sync::Arc;

use aws_lambda_events::apigw::{
    ApiGatewayCustomAuthorizerRequestTypeRequest, ApiGatewayCustomAuthorizerResponse,
};
use lambda_runtime::LambdaEvent;
use shared::domain::{PlayerId, PlayerIdError};

pub use config::{AuthConfig, AuthMode, JwtConfig, KeyConfig, Runtime};
pub use explain::PLAYER_ID_RULE;
pub use jwks::{HttpJwksFetcher, JwksCachePolicy, JwksError, JwksFetcher, StaticJwks};

use jwks::JwksCache;
use jwt::JwtValidator;

/// The query parameter that carries the JWT (browsers cannot set headers on a WebSocket).
pub const TOKEN_QUERY_PARAM: &str = "token";
/// The query parameter that names the player in header mode.
pub const PLAYER_ID_QUERY_PARAM: &str = "playerId";
/// The header that names the player in header mode.
pub const PLAYER_ID_HEADER: &str = "x-player-id";

/// The outcome of authorizing one connection attempt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    Allow(PlayerId),
    Deny(DenyReason),
}

/// Why a connection attempt is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DenyReason {
    /// No token (JWT mode) or no player id (header mode) was sent. HTTP 401.
    #[error("no credentials")]
    MissingCredentials,
    /// Credentials were sent and are not acceptable. HTTP 403.
    #[error("invalid credentials: {0}")]
    InvalidCredentials(CredentialError),
    /// The JWKS has never been fetched successfully (or the HS256 secret was never read
    /// from Parameter Store), so no token can be checked. HTTP 403, as API Gateway
    /// answers any Deny.
    #[error("the signing keys are unavailable")]
    KeysUnavailable,
}

impl DenyReason {
    /// The HTTP status API Gateway answers the upgrade with: 401 when no credentials
    /// were sent, 403 otherwise.
    pub fn http_status(&self) -> u16 {
        match self {
            Self::MissingCredentials => 401,
            Self::InvalidCredentials(_) | Self::KeysUnavailable => 403,
        }
    }

    /// A stable, short name for logs and metrics.
    pub fn code(&self) -> &'static str {
        match self {
            Self::MissingCredentials => "missing_credentials",
            Self::InvalidCredentials(_) => "invalid_credentials",
            Self::KeysUnavailable => "keys_unavailable",
        }
    }
}

/// What is wrong with the credentials that were sent. Safe to log: never contains the
/// token or the secret.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CredentialError {
    #[error("the token is not a well-formed JWT")]
    MalformedToken,
    #[error("the Authorization header does not use the Bearer scheme")]
    NotBearer,
    #[error("the {0} header is not valid text")]
    NotText(&'static str),
    #[error("the token's algorithm ({0}) is not accepted")]
    UnsupportedAlgorithm(String),
    #[error("no published key matches the token's kid")]
    UnknownKey,
    #[error("the token has no kid and several keys could verify it")]
    AmbiguousKey,
    #[error("the key cannot verify this token: {0}")]
    KeyMismatch(&'static str),
    #[error("the signature does not verify")]
    BadSignature,
    #[error("the token has expired")]
    Expired,
    #[error("the token is not valid yet (nbf)")]
    NotYetValid,
    #[error("the token was issued in the future (iat)")]
    IssuedInTheFuture,
    #[error("the token lives longer than the maximum lifetime (exp - iat)")]
    LifetimeTooLong,
    #[error("the token's crit header names extensions that are not understood ({0})")]
    CriticalExtension(String),
    #[error("the token's issuer is not the configured one")]
    WrongIssuer,
    #[error("the token's audience does not include the configured one")]
    WrongAudience,
    #[error("the {0} claim is missing")]
    MissingClaim(String),
    #[error("the {0} claim is malformed")]
    MalformedClaim(String),
    #[error("invalid player id: {0}")]
    InvalidPlayerId(PlayerIdError),
}

enum Mode {
    Header,
    Jwt(Box<JwtValidator>, explain::Expected),
}

/// The authorizer. Build it once per process; it keeps the JWKS between invocations.
pub struct Authorizer {
    mode: Mode,
}

impl Authorizer {
    /// With a given JWKS source (tests, the local stack). `keys` is consulted only when
    /// the configuration is JWT mode with a JWKS; otherwise pass [`StaticJwks::empty`].
    pub fn new(config: AuthConfig, keys: Arc<dyn JwksFetcher>) -> Self {
        Self::with_cache_policy(config, keys, JwksCachePolicy::default())
    }

    /// As [`Authorizer::new`], with another JWKS cache policy.
    pub fn with_cache_policy(
        config: AuthConfig,
        keys: Arc<dyn JwksFetcher>,
        policy: JwksCachePolicy,
    ) -> Self {
        let mode = match &config {
            AuthConfig::Header => Mode::Header,
            AuthConfig::Jwt(jwt) => Mode::Jwt(
                Box::new(JwtValidator::new(jwt, JwksCache::new(keys, policy))),
                explain::Expected {
                    issuer: jwt.issuer.clone(),
                    audience: jwt.audience.clone(),
                    leeway_seconds: jwt.leeway.as_secs(),
                    max_lifetime_seconds: jwt.max_lifetime.map(|max| max.as_secs()),
                    hs256: jwt.keys.is_hs256(),
                },
            ),
        };
        Self { mode }
    }

    /// Production wiring: in JWT mode with `JWKS_URL`, keys are fetched over HTTPS by
    /// [`HttpJwksFetcher`]. Fails only if that client cannot be built. An HS256 secret in
    /// Parameter Store must have been read first ([`secret::resolve`]): unread, every
    /// token is refused.
    pub fn from_config(config: AuthConfig) -> Result<Self, JwksError> {
        let keys: Arc<dyn JwksFetcher> = match &config {
            AuthConfig::Jwt(JwtConfig {
                keys: KeyConfig::Jwks { url },
                ..
            }) => Arc::new(HttpJwksFetcher::new(url)?),
            _ => Arc::new(StaticJwks::empty()),
        };
        Ok(Self::new(config, keys))
    }

    /// Fetches the JWKS ahead of the first request (call it during Lambda init). Never
    /// fails; without keys the first token triggers another attempt.
    pub async fn warm_up(&self) {
        if let Mode::Jwt(validator, _) = &self.mode {
            validator.warm_up().await;
        }
    }

    /// The Lambda handler: always an `Ok` policy, Allow or Deny. Logs one line per
    /// decision; a denial says what was wrong and what to do ([`Authorizer::explain`]).
    pub async fn handle(
        &self,
        event: LambdaEvent<ApiGatewayCustomAuthorizerRequestTypeRequest>,
    ) -> Result<ApiGatewayCustomAuthorizerResponse, lambda_runtime::Error> {
        let (request, context) = event.into_parts();
        let decision = self.authorize(&request).await;
        let stage = request.request_context.stage.as_deref().unwrap_or_default();
        let auth_mode = self.mode().as_str();
        match &decision {
            Decision::Allow(player) => {
                tracing::info!(player_id = %player, auth_mode, stage, "connection allowed");
            }
            Decision::Deny(reason) => {
                let status = reason.http_status();
                let detail = self.explain(&request, reason);
                if *reason == DenyReason::KeysUnavailable {
                    tracing::warn!(
                        reason = reason.code(),
                        status,
                        auth_mode,
                        stage,
                        "connection denied ({status}): {detail}"
                    );
                } else {
                    tracing::info!(
                        reason = reason.code(),
                        status,
                        auth_mode,
                        stage,
                        "connection denied ({status}): {detail}"
                    );
                }
            }
        }
        let method_arn = request.method_arn.as_deref().filter(|arn| !arn.is_empty());
        if method_arn.is_none() {
            tracing::warn!(
                aws_request_id = %context.request_id,
                "authorizer event has no methodArn; denying"
            );
        }
        Ok(policy::response(&decision, method_arn))
    }

    /// Decides one connection attempt (the local stack's gateway calls this on upgrade
    /// and logs the outcome itself). Logs nothing.
    pub async fn authorize(
        &self,
        request: &ApiGatewayCustomAuthorizerRequestTypeRequest,
    ) -> Decision {
        let result = match &self.mode {
            Mode::Header => player_from_header_mode(request),
            Mode::Jwt(validator, _) => authorize_jwt(validator, request).await,
        };
        match result {
            Ok(player) => Decision::Allow(player),
            Err(reason) => {
                shared::metrics::authorizer_denial(reason.code());
                Decision::Deny(reason)
            }
        }
    }

    /// What was wrong with `request`, refused for `reason`, and what to do: one sentence
    /// for a log line. Never contains the token, its claims' values, or the secret.
    pub fn explain(
        &self,
        request: &ApiGatewayCustomAuthorizerRequestTypeRequest,
        reason: &DenyReason,
    ) -> String {
        match &self.mode {
            Mode::Header => explain::header_mode(request, reason),
            Mode::Jwt(_, expected) => explain::jwt_mode(request, reason, expected),
        }
    }

    /// The mode this authorizer runs in.
    pub fn mode(&self) -> AuthMode {
        match self.mode {
            Mode::Header => AuthMode::Header,
            Mode::Jwt(..) => AuthMode::Jwt,
        }
    }
}

async fn authorize_jwt(
    validator: &JwtValidator,
    request: &ApiGatewayCustomAuthorizerRequestTypeRequest,
) -> Result<PlayerId, DenyReason> {
    let token = bearer_token(request)?;
    validator.validate(&token).await
}

/// The token from `?token=`, else from `Authorization: Bearer <token>` (scheme
/// case-insensitive). Empty counts as missing; another scheme is invalid.
fn bearer_token(
    request: &ApiGatewayCustomAuthorizerRequestTypeRequest,
) -> Result<String, DenyReason> {
    if let Some(token) = non_empty(request.query_string_parameters.first(TOKEN_QUERY_PARAM)) {
        return Ok(token.to_owned());
    }
    let Some(value) = request.headers.get(hyper::header::AUTHORIZATION) else {
        return Err(DenyReason::MissingCredentials);
    };
    let value = value
        .to_str()
        .map_err(|_| DenyReason::InvalidCredentials(CredentialError::NotText("Authorization")))?
        .trim();
    if value.is_empty() {
        return Err(DenyReason::MissingCredentials);
    }
    let (scheme, rest) = value.split_once(char::is_whitespace).unwrap_or((value, ""));
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(DenyReason::InvalidCredentials(CredentialError::NotBearer));
    }
    match non_empty(Some(rest)) {
        Some(token) => Ok(token.to_owned()),
        None => Err(DenyReason::MissingCredentials),
    }
}

/// Header mode: `?playerId=`, else the `X-Player-Id` header.
fn player_from_header_mode(
    request: &ApiGatewayCustomAuthorizerRequestTypeRequest,
) -> Result<PlayerId, DenyReason> {
    // Not trimmed: a player id with spaces around it is not a valid player id.
    let from_query = request
        .query_string_parameters
        .first(PLAYER_ID_QUERY_PARAM)
        .filter(|raw| !raw.is_empty());
    let raw = match from_query {
        Some(raw) => raw,
        None => match request.headers.get(PLAYER_ID_HEADER) {
            None => return Err(DenyReason::MissingCredentials),
            Some(value) => value.to_str().map_err(|_| {
                DenyReason::InvalidCredentials(CredentialError::NotText("X-Player-Id"))
            })?,
        },
    };
    if raw.is_empty() {
        return Err(DenyReason::MissingCredentials);
    }
    PlayerId::parse(raw)
        .map_err(|e| DenyReason::InvalidCredentials(CredentialError::InvalidPlayerId(e)))
}

fn non_empty(value: Option<&str>) -> Option<&str> {
    value.map(str::trim).filter(|v| !v.is_empty())
}

#[cfg(test)]
mod test_support;
#[cfg(test)]
mod tests;
