//! JWT validation: algorithm allow-list, no `crit` extension, key choice, signature,
//! `exp`/`nbf`/`iat` with leeway, the maximum lifetime (`exp - iat`), `iss`, `aud`, and
//! `sub` as the player id.
//!
//! Whatever the settings, a token whose `crit` header names any extension is refused
//! (none is understood; RFC 7515 §4.1.11), and so is one whose `iat` is in the future
//! beyond the leeway. Each refusal is one log line naming the claim or header, never the
//! token.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use shared::domain::PlayerId;

use crate::config::{JwtConfig, KeyConfig};
use crate::jwks::{JwksCache, KeyLookupError};
use crate::{CredentialError, DenyReason};

/// Where the verification key comes from; this also fixes the accepted algorithms.
enum Keys {
    Hs256(DecodingKey),
    /// An HS256 secret in Parameter Store that was not read: nothing verifies, ever
    /// (never an empty key).
    Hs256Unread,
    Jwks(JwksCache),
}

pub(crate) struct JwtValidator {
    keys: Keys,
    validation: Validation,
    /// Seconds of clock skew tolerated on `iat` (as jsonwebtoken does on `exp`, `nbf`).
    leeway: u64,
    /// The longest `exp - iat` accepted, in seconds.
    max_lifetime: Option<u64>,
}

/// The claims checked here rather than by jsonwebtoken (`exp` is checked there first:
/// present, a whole number, not past).
#[derive(serde::Deserialize)]
struct Claims {
    #[serde(default)]
    sub: Option<serde_json::Value>,
    #[serde(default)]
    iat: Option<serde_json::Value>,
    #[serde(default)]
    exp: Option<serde_json::Value>,
}

impl JwtValidator {
    /// `jwks` is used only when the configuration names a JWKS.
    pub(crate) fn new(config: &JwtConfig, jwks: JwksCache) -> Self {
        let keys = match &config.keys {
            KeyConfig::Hs256Secret(secret) if !secret.is_empty() => {
                Keys::Hs256(DecodingKey::from_secret(secret))
            }
            KeyConfig::Hs256Secret(_) | KeyConfig::Hs256Parameter { .. } => Keys::Hs256Unread,
            KeyConfig::Jwks { .. } => Keys::Jwks(jwks),
        };
        // The algorithm is set per token (after the allow-list check): jsonwebtoken
        // requires every listed algorithm to be of the key's family.
        let mut validation = Validation::new(Algorithm::HS256);
        validation.leeway = config.leeway.as_secs();
        validation.validate_exp = true;
        validation.validate_nbf = true;
        validation.validate_aud = true;
        validation.set_issuer(&[&config.issuer]);
        validation.set_audience(&[&config.audience]);
        validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        Self {
            keys,
            validation,
            leeway: config.leeway.as_secs(),
            max_lifetime: config.max_lifetime.map(|max| max.as_secs()),
        }
    }

    fn accepts(&self, alg: Algorithm) -> bool {
        match self.keys {
            Keys::Hs256(_) | Keys::Hs256Unread => alg == Algorithm::HS256,
            Keys::Jwks(_) => matches!(alg, Algorithm::RS256 | Algorithm::ES256),
        }
    }

    pub(crate) async fn warm_up(&self) {
        if let Keys::Jwks(cache) = &self.keys {
            cache.warm_up().await;
        }
    }

    /// The player the token identifies, or why it is refused.
    pub(crate) async fn validate(&self, token: &str) -> Result<PlayerId, DenyReason> {
        let invalid = |why| DenyReason::InvalidCredentials(why);
        let header =
            jsonwebtoken::decode_header(token).map_err(|_| invalid(header_problem(token)))?;
        if !self.accepts(header.alg) {
            return Err(invalid(CredentialError::UnsupportedAlgorithm(format!(
                "{:?}",
                header.alg
            ))));
        }
        // RFC 7515 §4.1.11: a recipient that does not understand every extension `crit`
        // lists must refuse the token. This one understands none.
        if let Some(extensions) = &header.crit {
            return Err(invalid(CredentialError::CriticalExtension(printable_list(
                extensions,
            ))));
        }
        let key = match &self.keys {
            Keys::Hs256(key) => key.clone(),
            Keys::Hs256Unread => return Err(DenyReason::KeysUnavailable),
            Keys::Jwks(cache) => match cache.key_for(header.alg, header.kid.as_deref()).await {
                Ok(key) => key,
                Err(KeyLookupError::Unavailable) => return Err(DenyReason::KeysUnavailable),
                Err(KeyLookupError::Rejected(why)) => return Err(invalid(why)),
            },
        };
        let mut validation = self.validation.clone();
        validation.algorithms = vec![header.alg];
        let data = jsonwebtoken::decode::<Claims>(token, &key, &validation)
            .map_err(|e| invalid(classify(e.kind())))?;
        self.check_issued_at(&data.claims).map_err(invalid)?;
        match data.claims.sub {
            Some(serde_json::Value::String(sub)) => {
                PlayerId::parse(sub).map_err(|e| invalid(CredentialError::InvalidPlayerId(e)))
            }
            Some(_) => Err(invalid(CredentialError::MalformedClaim("sub".to_owned()))),
            None => Err(invalid(CredentialError::MissingClaim("sub".to_owned()))),
        }
    }
}

impl JwtValidator {
    /// `iat`, when present, is not in the future (beyond the leeway); with a maximum
    /// lifetime it must be present, and `exp - iat` within the maximum.
    fn check_issued_at(&self, claims: &Claims) -> Result<(), CredentialError> {
        let malformed = |claim: &str| CredentialError::MalformedClaim(claim.to_owned());
        let iat = match &claims.iat {
            None => None,
            Some(value) => Some(value.as_u64().ok_or_else(|| malformed("iat"))?),
        };
        if let Some(iat) = iat {
            let now = jsonwebtoken::get_current_timestamp();
            if iat > now.saturating_add(self.leeway) {
                return Err(CredentialError::IssuedInTheFuture);
            }
        }
        if let Some(max) = self.max_lifetime {
            let Some(iat) = iat else {
                return Err(CredentialError::MissingClaim("iat".to_owned()));
            };
            // jsonwebtoken already required `exp` as a whole number.
            let exp = claims
                .exp
                .as_ref()
                .and_then(serde_json::Value::as_u64)
                .ok_or_else(|| malformed("exp"))?;
            if exp.saturating_sub(iat) > max {
                return Err(CredentialError::LifetimeTooLong);
            }
        }
        Ok(())
    }
}

/// Names from a token's header, fit for a log line: printable ASCII, 16 characters
/// each, at most 3, comma-separated.
fn printable_list(names: &[String]) -> String {
    if names.is_empty() {
        // RFC 7515 forbids it too.
        return "an empty list".to_owned();
    }
    let mut shown: Vec<String> = names.iter().take(3).map(|n| printable(n)).collect();
    if names.len() > 3 {
        shown.push("...".to_owned());
    }
    shown.join(", ")
}

fn printable(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_ascii_graphic())
        .take(16)
        .collect()
}

/// Why jsonwebtoken could not read the header: an `alg` it does not know (`none`,
/// `HS1`, ...) is an unsupported algorithm; anything else (bad base64 or JSON, a
/// malformed `kid`, ...) is a malformed token.
fn header_problem(token: &str) -> CredentialError {
    let header = token
        .split('.')
        .next()
        .and_then(|part| URL_SAFE_NO_PAD.decode(part.trim_end_matches('=')).ok())
        .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok());
    let alg = header
        .as_ref()
        .and_then(|header| header.get("alg"))
        .and_then(|a| a.as_str())
        .map(str::to_owned);
    let crit: Option<Vec<String>> = header.as_ref().and_then(|header| {
        let names = header.get("crit")?.as_array()?;
        Some(
            names
                .iter()
                .map(|n| n.as_str().unwrap_or("?").to_owned())
                .collect(),
        )
    });
    let three_parts = token.split('.').count() == 3;
    match (alg, crit) {
        // Only a short, printable name reaches the logs.
        (Some(alg), _) if three_parts && alg.parse::<Algorithm>().is_err() => {
            CredentialError::UnsupportedAlgorithm(printable(&alg))
        }
        // A header jsonwebtoken cannot represent because of an extension's own parameter
        // (RFC 7797's `"b64": false`, say): the extension is the reason to give.
        (_, Some(extensions)) if three_parts => {
            CredentialError::CriticalExtension(printable_list(&extensions))
        }
        _ => CredentialError::MalformedToken,
    }
}

fn classify(kind: &ErrorKind) -> CredentialError {
    match kind {
        ErrorKind::InvalidSignature => CredentialError::BadSignature,
        ErrorKind::ExpiredSignature => CredentialError::Expired,
        ErrorKind::ImmatureSignature => CredentialError::NotYetValid,
        ErrorKind::InvalidIssuer => CredentialError::WrongIssuer,
        ErrorKind::InvalidAudience => CredentialError::WrongAudience,
        ErrorKind::MissingRequiredClaim(claim) => CredentialError::MissingClaim(claim.clone()),
        ErrorKind::InvalidClaimFormat(claim) => CredentialError::MalformedClaim(claim.clone()),
        ErrorKind::InvalidAlgorithm
        | ErrorKind::MissingAlgorithm
        | ErrorKind::InvalidAlgorithmName => {
            CredentialError::UnsupportedAlgorithm("mismatch".to_owned())
        }
        ErrorKind::InvalidKeyFormat | ErrorKind::InvalidRsaKey(_) | ErrorKind::InvalidEcdsaKey => {
            CredentialError::KeyMismatch("the key is not usable for this token")
        }
        _ => CredentialError::MalformedToken,
    }
}
