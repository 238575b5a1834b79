//! The `$connect` authorizer as the gateway calls it: a REQUEST authorizer event in, an
//! Allow (with the principal and context API Gateway passes to every route) or a Deny
//! (401 or 403, as API Gateway answers the upgrade) out.

use async_trait::async_trait;
use aws_lambda_events::apigw::ApiGatewayCustomAuthorizerRequestTypeRequest;
use edge::websocket::PLAYER_ID_CONTEXT_KEY;
use serde_json::{Map, Value};

use crate::settings::Settings;

/// What the authorizer decided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AuthDecision {
    /// The authorizer context (`requestContext.authorizer` of every later event).
    Allow { context: Map<String, Value> },
    /// Credentials are missing: API Gateway answers 401. `why`: what was wrong and what
    /// to do, for the one log line of the refusal (never the token or the secret).
    Unauthorized { why: String },
    /// Credentials are present but invalid: API Gateway answers 403.
    Forbidden { why: String },
}

impl AuthDecision {
    /// Allow `player_id`: context `{"playerId": id, "principalId": id}`.
    pub fn allow(player_id: &str) -> Self {
        let mut context = Map::new();
        context.insert(PLAYER_ID_CONTEXT_KEY.to_owned(), Value::from(player_id));
        context.insert("principalId".to_owned(), Value::from(player_id));
        Self::Allow { context }
    }
}

#[async_trait]
pub trait ConnectAuthorizer: Send + Sync {
    async fn authorize(
        &self,
        request: &ApiGatewayCustomAuthorizerRequestTypeRequest,
    ) -> AuthDecision;
}

/// The real authorizer, called in-process.
pub struct RealAuthorizer {
    inner: authorizer::Authorizer,
}

impl RealAuthorizer {
    pub fn new(inner: authorizer::Authorizer) -> Self {
        Self { inner }
    }

    /// Builds the authorizer the settings describe (AUTH_MODE, JWT_*), as its Lambda
    /// does (JWKS fetched over HTTPS when JWKS_URL is set).
    pub fn from_settings(settings: &Settings) -> Result<Self, String> {
        let config = settings.auth_config().map_err(|e| e.to_string())?;
        let inner = authorizer::Authorizer::from_config(config).map_err(|e| e.to_string())?;
        Ok(Self { inner })
    }

    /// Fetches the JWKS ahead of the first connection (no-op otherwise).
    pub async fn warm_up(&self) {
        self.inner.warm_up().await;
    }
}

#[async_trait]
impl ConnectAuthorizer for RealAuthorizer {
    async fn authorize(
        &self,
        request: &ApiGatewayCustomAuthorizerRequestTypeRequest,
    ) -> AuthDecision {
        let decision = self.inner.authorize(request).await;
        match &decision {
            authorizer::Decision::Allow(_) => {
                // What the Lambda answers API Gateway (its policy's context and principal),
                // not a local imitation of it: every later event carries exactly this.
                let arn = request.method_arn.as_deref().filter(|arn| !arn.is_empty());
                let response = authorizer::policy::response(&decision, arn);
                let allowed = response
                    .policy_document
                    .statement
                    .iter()
                    .all(|s| s.effect == aws_lambda_events::iam::IamPolicyEffect::Allow);
                match (allowed, response.context, response.principal_id) {
                    (true, Value::Object(mut context), Some(principal)) => {
                        context.insert("principalId".to_owned(), Value::from(principal));
                        AuthDecision::Allow { context }
                    }
                    _ => AuthDecision::Forbidden {
                        why: "the authorizer's policy denies this route (no methodArn?)".to_owned(),
                    },
                }
            }
            authorizer::Decision::Deny(reason) => {
                let why = self.inner.explain(request, reason);
                if reason.http_status() == 401 {
                    AuthDecision::Unauthorized { why }
                } else {
                    AuthDecision::Forbidden { why }
                }
            }
        }
    }
}
