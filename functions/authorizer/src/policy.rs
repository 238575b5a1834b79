//! The authorizer's answer to API Gateway: an IAM policy on the `$connect` method ARN.

use aws_lambda_events::apigw::{
    ApiGatewayCustomAuthorizerPolicy, ApiGatewayCustomAuthorizerResponse,
};
use aws_lambda_events::iam::{IamPolicyEffect, IamPolicyStatement};
use serde_json::json;

use crate::Decision;

/// `principalId` of a denied request (API Gateway requires one on every answer).
pub const DENIED_PRINCIPAL: &str = "anonymous";

/// Allow with `principalId` = the player id and context `{"playerId": ...}` (what every
/// later route reads from `requestContext.authorizer`), or Deny with an empty context.
///
/// Without a method ARN nothing can be scoped, so the answer is a Deny on `*`.
pub fn response(
    decision: &Decision,
    method_arn: Option<&str>,
) -> ApiGatewayCustomAuthorizerResponse {
    let mut response = ApiGatewayCustomAuthorizerResponse::default();
    match (decision, method_arn) {
        (Decision::Allow(player), Some(arn)) => {
            response.principal_id = Some(player.as_str().to_owned());
            response.policy_document = policy(IamPolicyEffect::Allow, arn);
            response.context = json!({ "playerId": player.as_str() });
        }
        (Decision::Allow(_), None) | (Decision::Deny(_), None) => {
            response.principal_id = Some(DENIED_PRINCIPAL.to_owned());
            response.policy_document = policy(IamPolicyEffect::Deny, "*");
            response.context = json!({});
        }
        (Decision::Deny(_), Some(arn)) => {
            response.principal_id = Some(DENIED_PRINCIPAL.to_owned());
            response.policy_document = policy(IamPolicyEffect::Deny, arn);
            response.context = json!({});
        }
    }
    response
}

fn policy(effect: IamPolicyEffect, resource: &str) -> ApiGatewayCustomAuthorizerPolicy {
    let mut statement = IamPolicyStatement::default();
    statement.action = vec!["execute-api:Invoke".to_owned()];
    statement.effect = effect;
    statement.resource = vec![resource.to_owned()];
    let mut policy = ApiGatewayCustomAuthorizerPolicy::default();
    policy.version = Some("2012-10-17".to_owned());
    policy.statement = vec![statement];
    policy
}
