//! What the tools' tests share: the local stack, started in-process on a free port.
#![allow(dead_code)] // Each test file uses what it needs.

use local::{AuthMode, RunningStack, Settings};

/// The local stack on `settings`, on a free port of 127.0.0.1.
pub async fn started(mut settings: Settings) -> RunningStack {
    settings.gateway.port = 0;
    local::start(settings)
        .await
        .unwrap_or_else(|e| panic!("the local stack did not start: {e}"))
}

/// JWT mode: tokens signed with the HS256 `secret`, for `issuer` and `audience`.
pub fn jwt(settings: &mut Settings, issuer: &str, audience: &str, secret: &str) {
    settings.auth.auth_mode = AuthMode::Jwt;
    settings.auth.jwt_issuer = Some(issuer.to_owned());
    settings.auth.jwt_audience = Some(audience.to_owned());
    settings.auth.jwt_hs256_secret = Some(secret.to_owned());
}
