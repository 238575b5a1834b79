//! The authorizer's settings (`functions/authorizer/src/config.rs` reads them), declared as
//! every other setting is (`super`).

use super::{Choice, Flag, Text, Whole};

pub const AUTH_MODE: Choice = Choice {
    variable: "AUTH_MODE",
    parameter: Some("AuthMode"),
    default: "jwt",
    values: &["jwt", "header"],
    meaning: "how players are identified: jwt (a token's sub) or header (the client names itself: development only, needs ALLOW_UNAUTHENTICATED=true, never Production)",
};
pub const ALLOW_UNAUTHENTICATED: Flag = Flag {
    variable: "ALLOW_UNAUTHENTICATED",
    parameter: Some("AllowUnauthenticated"),
    default: false,
    meaning: "true: AUTH_MODE=header may start (clients name themselves)",
};
pub const JWT_ISSUER: Text = Text {
    variable: "JWT_ISSUER",
    parameter: Some("JwtIssuer"),
    default: None,
    required: false,
    meaning: "the iss player tokens must carry (AUTH_MODE=jwt)",
};
pub const JWT_AUDIENCE: Text = Text {
    variable: "JWT_AUDIENCE",
    parameter: Some("JwtAudience"),
    default: None,
    required: false,
    meaning: "the aud player tokens must carry (AUTH_MODE=jwt)",
};
pub const JWKS_URL: Text = Text {
    variable: "JWKS_URL",
    parameter: Some("JwksUrl"),
    default: None,
    required: false,
    meaning: "the issuer's public keys, for RS256 and ES256 tokens (or the HS256 secret)",
};
pub const JWT_HS256_SECRET_PARAMETER: Text = Text {
    variable: "JWT_HS256_SECRET_PARAMETER",
    parameter: Some("JwtHs256SecretParameter"),
    default: None,
    required: false,
    meaning: "the Parameter Store SecureString holding the HS256 secret (or JWKS_URL); the local stack takes the secret itself, JWT_HS256_SECRET",
};
pub const JWT_LEEWAY_SECONDS: Whole<u64> = Whole {
    variable: "JWT_LEEWAY_SECONDS",
    parameter: None,
    default: 30,
    range: 0..=300,
    unit: Some("seconds"),
    meaning: "clock skew allowed on a token's exp, nbf and iat",
};
pub const JWT_MAX_LIFETIME_SECONDS: Whole<u64> = Whole {
    variable: "JWT_MAX_LIFETIME_SECONDS",
    parameter: Some("JwtMaxLifetimeSeconds"),
    default: 0,
    range: 0..=2_592_000,
    unit: Some("seconds"),
    meaning: "the longest token lifetime accepted, exp - iat; a token without iat is then refused (0: no limit)",
};
