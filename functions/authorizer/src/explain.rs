//! Why a connection attempt was refused and what to do about it, in one sentence for the
//! logs (the Lambda's CloudWatch log and the local stack's console). It never contains
//! the token, a claim's value from the token, or the secret: only which credential or
//! claim was wrong, and the expected values the stack is configured with.

use crate::{
    CredentialError, DenyReason, PLAYER_ID_HEADER, PLAYER_ID_QUERY_PARAM, TOKEN_QUERY_PARAM,
};
use aws_lambda_events::apigw::ApiGatewayCustomAuthorizerRequestTypeRequest;

/// The rule every player id follows (shared::domain::PlayerId), as the logs state it.
pub const PLAYER_ID_RULE: &str = "a player id is 1-128 characters of A-Z a-z 0-9 . _ : @ -";

/// What a JWT-mode stack expects of a token (never the key itself).
#[derive(Clone, Debug)]
pub(crate) struct Expected {
    pub issuer: String,
    pub audience: String,
    pub leeway_seconds: u64,
    /// JWT_MAX_LIFETIME_SECONDS, if set.
    pub max_lifetime_seconds: Option<u64>,
    /// true: HS256 with the shared secret; false: RS256/ES256 from JWKS_URL.
    pub hs256: bool,
}

/// The explanation for `reason`, refusing `request`, on a header-mode stack.
pub(crate) fn header_mode(
    request: &ApiGatewayCustomAuthorizerRequestTypeRequest,
    reason: &DenyReason,
) -> String {
    match reason {
        DenyReason::MissingCredentials if sends_a_token(request) => format!(
            "no player id, but a token: this stack is in header mode (AUTH_MODE=header), which \
             ignores ?{TOKEN_QUERY_PARAM}= and Authorization; name the player with \
             ?{PLAYER_ID_QUERY_PARAM}=<id> or an X-Player-Id header, or run the stack with \
             AUTH_MODE=jwt to use tokens"
        ),
        DenyReason::MissingCredentials => format!(
            "no player id: this stack is in header mode (AUTH_MODE=header); connect with \
             ?{PLAYER_ID_QUERY_PARAM}=<id> or an X-Player-Id header ({PLAYER_ID_RULE})"
        ),
        DenyReason::InvalidCredentials(CredentialError::InvalidPlayerId(why)) => {
            format!("invalid player id ({why}): {PLAYER_ID_RULE}")
        }
        DenyReason::InvalidCredentials(why) => format!("{why}: send the player id as plain text"),
        DenyReason::KeysUnavailable => reason.to_string(),
    }
}

/// The explanation for `reason`, refusing `request`, on a JWT-mode stack.
pub(crate) fn jwt_mode(
    request: &ApiGatewayCustomAuthorizerRequestTypeRequest,
    reason: &DenyReason,
    expected: &Expected,
) -> String {
    let why = match reason {
        DenyReason::MissingCredentials if names_a_player(request) => {
            return format!(
                "no token, but a player id: this stack is in jwt mode (AUTH_MODE=jwt), which \
                 ignores ?{PLAYER_ID_QUERY_PARAM}= and X-Player-Id; send a JWT as \
                 ?{TOKEN_QUERY_PARAM}=<JWT> or an Authorization: Bearer <JWT> header (its sub \
                 is the player id), or run the stack with AUTH_MODE=header"
            );
        }
        DenyReason::MissingCredentials => {
            return format!(
                "no token: this stack is in jwt mode (AUTH_MODE=jwt); send a JWT as \
                 ?{TOKEN_QUERY_PARAM}=<JWT> or an Authorization: Bearer <JWT> header"
            );
        }
        DenyReason::KeysUnavailable if expected.hs256 => {
            return "the HS256 secret was not read from Parameter Store \
                    (JWT_HS256_SECRET_PARAMETER), so no token can be checked: the \
                    authorizer reads it at start-up, and its start-up log says why it could not"
                .to_owned();
        }
        DenyReason::KeysUnavailable => {
            return "the signing keys could not be fetched from JWKS_URL, so no token can be \
                    checked: make sure the URL is right and reachable from the authorizer"
                .to_owned();
        }
        DenyReason::InvalidCredentials(why) => why,
    };
    let keys = if expected.hs256 {
        "HS256 signed with the shared secret (JWT_HS256_SECRET_PARAMETER's value deployed, \
         JWT_HS256_SECRET locally: the same bytes, at least 32)"
    } else {
        "RS256 or ES256 signed by a key published at JWKS_URL"
    };
    let Expected {
        issuer,
        audience,
        leeway_seconds,
        max_lifetime_seconds,
        ..
    } = expected;
    match why {
        CredentialError::MalformedToken => {
            "the token is not a well-formed JWT (three base64url parts joined by dots): check \
             that it was not cut, quoted or URL-escaped on its way"
                .to_owned()
        }
        CredentialError::NotBearer => {
            "the Authorization header does not use the Bearer scheme: send \
             `Authorization: Bearer <JWT>`"
                .to_owned()
        }
        CredentialError::NotText(header) => {
            format!("the {header} header is not valid text: send the token as plain ASCII")
        }
        CredentialError::UnsupportedAlgorithm(alg) => {
            format!("the token's alg is {alg}; this stack accepts only {keys}")
        }
        CredentialError::UnknownKey
        | CredentialError::AmbiguousKey
        | CredentialError::KeyMismatch(_) => {
            format!("{why}: the token's kid must name a signing key published at JWKS_URL")
        }
        CredentialError::BadSignature => {
            format!("the token's signature does not verify: it must be {keys}")
        }
        CredentialError::Expired => format!(
            "the token's exp claim is in the past (expired, beyond the {leeway_seconds} s \
             leeway): mint a new token"
        ),
        CredentialError::NotYetValid => format!(
            "the token's nbf claim is in the future (beyond the {leeway_seconds} s leeway): \
             check the clock of whatever minted it"
        ),
        CredentialError::IssuedInTheFuture => format!(
            "the token's iat claim is in the future (beyond the {leeway_seconds} s leeway): \
             check the clock of whatever minted it"
        ),
        CredentialError::LifetimeTooLong => format!(
            "the token's exp is more than JWT_MAX_LIFETIME_SECONDS={} s after its iat claim \
             (it lives too long): mint shorter-lived tokens",
            max_lifetime_seconds.unwrap_or_default()
        ),
        CredentialError::CriticalExtension(names) => format!(
            "the token's crit header names extensions ({names}) that this stack does not \
             understand, so it must refuse the token (RFC 7515 4.1.11): mint it without crit"
        ),
        CredentialError::WrongIssuer => format!(
            "the token's iss claim is not {issuer:?} (JWT_ISSUER): mint it with exactly that \
             issuer, trailing slash included"
        ),
        CredentialError::WrongAudience => format!(
            "the token's aud claim does not contain {audience:?} (JWT_AUDIENCE): mint it for \
             that audience"
        ),
        CredentialError::MissingClaim(claim) if claim == "iat" => format!(
            "the token has no iat claim, which JWT_MAX_LIFETIME_SECONDS={} requires: mint it \
             with iat (when it was issued)",
            max_lifetime_seconds.unwrap_or_default()
        ),
        CredentialError::MissingClaim(claim) => format!(
            "the token has no {claim} claim: a token needs sub (the player id), iss, aud and exp"
        ),
        CredentialError::MalformedClaim(claim) => format!(
            "the token's {claim} claim is malformed: sub, iss and aud are strings (aud may be \
             a list), exp, nbf and iat are whole numbers of seconds since the epoch"
        ),
        CredentialError::InvalidPlayerId(why) => {
            format!("the token's sub claim is not a valid player id ({why}): {PLAYER_ID_RULE}")
        }
    }
}

/// A token in the query string or an Authorization header.
fn sends_a_token(request: &ApiGatewayCustomAuthorizerRequestTypeRequest) -> bool {
    request
        .query_string_parameters
        .first(TOKEN_QUERY_PARAM)
        .is_some_and(|t| !t.trim().is_empty())
        || request
            .headers
            .get(hyper::header::AUTHORIZATION)
            .is_some_and(|v| !v.as_bytes().trim_ascii().is_empty())
}

/// A player id in the query string or the X-Player-Id header.
fn names_a_player(request: &ApiGatewayCustomAuthorizerRequestTypeRequest) -> bool {
    request
        .query_string_parameters
        .first(PLAYER_ID_QUERY_PARAM)
        .is_some_and(|p| !p.is_empty())
        || request
            .headers
            .get(PLAYER_ID_HEADER)
            .is_some_and(|v| !v.is_empty())
}
