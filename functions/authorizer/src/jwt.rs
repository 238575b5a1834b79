//! JWT validation: algorithm allow-list, key choice, signature, `exp`/`nbf` with
//! leeway, `iss`, `aud`, and `sub` as the player id.

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
    Jwks(JwksCache),
}

pub(crate) struct JwtValidator {
    keys: Keys,
    validation: Validation,
}

#[derive(serde::Deserialize)]
struct Claims {
    #[serde(default)]
    sub: Option<serde_json::Value>,
}

impl JwtValidator {
    /// `jwks` is used only when the configuration names a JWKS.
    pub(crate) fn new(config: &JwtConfig, jwks: JwksCache) -> Self {
        let keys = match &config.keys {
            KeyConfig::Hs256Secret(secret) => Keys::Hs256(DecodingKey::from_secret(secret)),
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
        Self { keys, validation }
    }

    fn accepts(&self, alg: Algorithm) -> bool {
        match self.keys {
            Keys::Hs256(_) => alg == Algorithm::HS256,
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
        let key = match &self.keys {
            Keys::Hs256(key) => key.clone(),
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
        match data.claims.sub {
            Some(serde_json::Value::String(sub)) => {
                PlayerId::parse(sub).map_err(|e| invalid(CredentialError::InvalidPlayerId(e)))
            }
            Some(_) => Err(invalid(CredentialError::MalformedClaim("sub".to_owned()))),
            None => Err(invalid(CredentialError::MissingClaim("sub".to_owned()))),
        }
    }
}

/// Why jsonwebtoken could not read the header: an `alg` it does not know (`none`,
/// `HS1`, ...) is an unsupported algorithm; anything else (bad base64 or JSON, a
/// malformed `kid`, ...) is a malformed token.
fn header_problem(token: &str) -> CredentialError {
    let alg = token
        .split('.')
        .next()
        .and_then(|part| URL_SAFE_NO_PAD.decode(part.trim_end_matches('=')).ok())
        .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
        .and_then(|header| {
            header
                .get("alg")
                .and_then(|a| a.as_str())
                .map(str::to_owned)
        });
    match alg {
        // Only a short, printable name reaches the logs.
        Some(alg) if token.split('.').count() == 3 && alg.parse::<Algorithm>().is_err() => {
            let alg: String = alg
                .chars()
                .filter(|c| c.is_ascii_graphic())
                .take(16)
                .collect();
            CredentialError::UnsupportedAlgorithm(alg)
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
