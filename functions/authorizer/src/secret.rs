//! The deployed HS256 secret: a SecureString in SSM Parameter Store, named by
//! `JWT_HS256_SECRET_PARAMETER`, read once at init (GetParameter with decryption) and
//! kept for the life of the process. A secret that cannot be read, is not a
//! SecureString, is empty or is shorter than 32 bytes fails the cold start with one
//! error naming the parameter and the cause; the authorizer never runs with an empty
//! or missing key. The value never reaches a log.

use aws_sdk_ssm::error::{DisplayErrorContext, ProvideErrorMetadata, SdkError};
use aws_sdk_ssm::operation::get_parameter::GetParameterError;
use aws_sdk_ssm::types::ParameterType;

use aws_adapters::calls::{AwsCall, Resource};

use crate::config::{AuthConfig, JwtConfig, KeyConfig, MIN_HS256_SECRET_BYTES};

/// Why the secret cannot be used. Its `Display` is the start-up log line.
#[derive(Debug, thiserror::Error)]
#[error("cannot use the HS256 secret in SSM parameter {parameter:?}: {cause}")]
pub struct SecretError {
    /// The parameter's name, as `JWT_HS256_SECRET_PARAMETER` gives it.
    pub parameter: String,
    pub cause: SecretProblem,
}

/// What is wrong with the parameter (never its value).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SecretProblem {
    #[error(
        "it does not exist in this account and region (ParameterNotFound): create it with \
         `aws ssm put-parameter --type SecureString` (docs/deploy.md), or fix \
         JwtHs256SecretParameter"
    )]
    NotFound,
    #[error(
        "access denied ({code}: {message}): the function's role needs ssm:GetParameter on \
         this parameter and kms:Decrypt on its key through SSM, which the template grants \
         for JwtHs256SecretParameter"
    )]
    AccessDenied { code: String, message: String },
    #[error(
        "its KMS key cannot decrypt it (InvalidKeyId): the key is disabled, deleted or not \
         usable by the function's role"
    )]
    KeyUnusable,
    #[error(
        "it is a {0} parameter, not a SecureString: store the secret encrypted \
         (`aws ssm put-parameter --type SecureString --overwrite`)"
    )]
    NotSecure(String),
    #[error("its value is empty: put the secret in it")]
    Empty,
    #[error(
        "its value is {0} bytes long; an HS256 secret must be at least \
         {MIN_HS256_SECRET_BYTES} bytes (e.g. `openssl rand -hex 32`)"
    )]
    TooShort(usize),
    #[error("Parameter Store did not answer ({0}); the next cold start tries again")]
    Unavailable(String),
    #[error("GetParameter failed ({0})")]
    Other(String),
}

/// Reads SecureString parameters from SSM Parameter Store.
#[derive(Clone, Debug)]
pub struct SsmSecrets {
    client: aws_sdk_ssm::Client,
}

impl SsmSecrets {
    pub fn new(client: aws_sdk_ssm::Client) -> Self {
        Self { client }
    }

    /// The decrypted value of the SecureString `name`, checked to be an HS256 secret.
    pub async fn hs256_secret(&self, name: &str) -> Result<Vec<u8>, SecretError> {
        self.read(name).await.map_err(|cause| SecretError {
            parameter: name.to_owned(),
            cause,
        })
    }

    async fn read(&self, name: &str) -> Result<Vec<u8>, SecretProblem> {
        let output = self
            .client
            .get_parameter()
            .name(name)
            .with_decryption(true)
            .send()
            .await
            .map_err(classify)?;
        let parameter = output
            .parameter
            .ok_or_else(|| SecretProblem::Other("the answer has no parameter".to_owned()))?;
        match &parameter.r#type {
            Some(ParameterType::SecureString) => {}
            Some(other) => return Err(SecretProblem::NotSecure(other.as_str().to_owned())),
            None => return Err(SecretProblem::NotSecure("untyped".to_owned())),
        }
        let value = parameter.value.unwrap_or_default();
        match value.len() {
            0 => Err(SecretProblem::Empty),
            len if len < MIN_HS256_SECRET_BYTES => Err(SecretProblem::TooShort(len)),
            _ => Ok(value.into_bytes()),
        }
    }
}

/// What the authorizer calls for `config`, as IAM authorizes it: with a secret
/// parameter named, its GetParameter (with decryption: SSM decrypts with KMS on the
/// caller's behalf, so the caller needs `kms:Decrypt` through SSM too); nothing else
/// (tests/suites/template_drift/calls_grants.rs compares it with the role).
pub fn calls(config: &AuthConfig) -> Vec<AwsCall> {
    config
        .secret_parameter()
        .map(|parameter| {
            vec![
                AwsCall::new(
                    "ssm:GetParameter",
                    Resource::Parameter(parameter.to_owned()),
                ),
                AwsCall::new(
                    "kms:Decrypt",
                    Resource::KeyViaSsm {
                        parameter: parameter.to_owned(),
                    },
                ),
            ]
        })
        .unwrap_or_default()
}

/// The configuration with its HS256 secret read from Parameter Store, if it names one;
/// any other configuration is returned as it is.
pub async fn resolve(config: AuthConfig, ssm: &SsmSecrets) -> Result<AuthConfig, SecretError> {
    match config {
        AuthConfig::Jwt(JwtConfig {
            keys: KeyConfig::Hs256Parameter { name },
            issuer,
            audience,
            leeway,
            max_lifetime,
        }) => {
            let secret = ssm.hs256_secret(&name).await?;
            Ok(AuthConfig::Jwt(JwtConfig {
                keys: KeyConfig::Hs256Secret(secret),
                issuer,
                audience,
                leeway,
                max_lifetime,
            }))
        }
        other => Ok(other),
    }
}

fn classify(error: SdkError<GetParameterError>) -> SecretProblem {
    let service = match error {
        SdkError::ServiceError(context) => context.into_err(),
        SdkError::TimeoutError(_) => return SecretProblem::Unavailable("timed out".to_owned()),
        unsent @ SdkError::DispatchFailure(_) => {
            return SecretProblem::Unavailable(format!(
                "the request was not sent: {}",
                DisplayErrorContext(&unsent)
            ));
        }
        other => return SecretProblem::Other(DisplayErrorContext(&other).to_string()),
    };
    let code = service.code().unwrap_or("unknown error").to_owned();
    let message: String = service
        .message()
        .unwrap_or_default()
        .chars()
        .take(300)
        .collect();
    match service {
        GetParameterError::ParameterNotFound(_) => SecretProblem::NotFound,
        GetParameterError::InvalidKeyId(_) => SecretProblem::KeyUnusable,
        GetParameterError::InternalServerError(_) => SecretProblem::Unavailable(code),
        _ if code == "AccessDeniedException" => SecretProblem::AccessDenied { code, message },
        _ if code == "ThrottlingException" => SecretProblem::Unavailable(code),
        _ => SecretProblem::Other(code),
    }
}

#[cfg(test)]
mod tests {
    use aws_sdk_ssm::Client;
    use aws_sdk_ssm::config::retry::RetryConfig;
    use aws_sdk_ssm::error::ErrorMetadata;
    use aws_sdk_ssm::operation::get_parameter::GetParameterOutput;
    use aws_sdk_ssm::types::Parameter;
    use aws_sdk_ssm::types::error::{InternalServerError, InvalidKeyId, ParameterNotFound};
    use aws_smithy_mocks::{Rule, RuleMode, mock, mock_client};

    use super::*;

    const NAME: &str = "/gamelift-sockets/Development/jwt-hs256-secret";
    const SECRET: &str = "ssm-test-secret-0123456789abcdef0123";

    fn ssm(rules: &[&Rule]) -> SsmSecrets {
        SsmSecrets::new(mock_client!(
            aws_sdk_ssm,
            RuleMode::MatchAny,
            rules,
            |config| config.retry_config(RetryConfig::disabled())
        ))
    }

    /// GetParameter of NAME, with decryption, answered by `parameter`.
    fn answering(kind: ParameterType, value: &'static str) -> Rule {
        mock!(Client::get_parameter)
            .match_requests(|req| req.name() == Some(NAME) && req.with_decryption() == Some(true))
            .then_output(move || {
                GetParameterOutput::builder()
                    .parameter(
                        Parameter::builder()
                            .name(NAME)
                            .r#type(kind.clone())
                            .value(value)
                            .version(3)
                            .build(),
                    )
                    .build()
            })
    }

    fn config() -> AuthConfig {
        AuthConfig::Jwt(JwtConfig {
            keys: KeyConfig::Hs256Parameter { name: NAME.into() },
            ..match AuthConfig::hs256("https://issuer.example/", "game", "") {
                AuthConfig::Jwt(jwt) => jwt,
                AuthConfig::Header => unreachable!(),
            }
        })
    }

    async fn refused(rule: &Rule) -> SecretError {
        resolve(config(), &ssm(&[rule]))
            .await
            .expect_err("the secret is refused")
    }

    /// The one start-up line: names the parameter and the cause, never a value.
    fn assert_line(error: &SecretError, cause: &str) {
        let line = error.to_string();
        assert!(
            line.starts_with(&format!(
                "cannot use the HS256 secret in SSM parameter \"{NAME}\": "
            )),
            "{line}"
        );
        assert!(line.contains(cause), "{cause:?} not in {line}");
        assert!(!line.contains(SECRET), "the secret leaked: {line}");
        assert!(!line.contains('\n'), "one line: {line}");
    }

    #[tokio::test]
    async fn given_a_secure_string_when_resolved_then_its_decrypted_value_is_the_hs256_key() {
        let rule = answering(ParameterType::SecureString, SECRET);
        let resolved = resolve(config(), &ssm(&[&rule])).await.expect("read");
        assert_eq!(
            resolved,
            AuthConfig::hs256("https://issuer.example/", "game", SECRET)
        );
        assert_eq!(rule.num_calls(), 1);
    }

    #[tokio::test]
    async fn given_no_parameter_named_when_resolved_then_nothing_is_asked() {
        let rule = answering(ParameterType::SecureString, SECRET);
        let client = ssm(&[&rule]);
        for config in [
            AuthConfig::header(),
            AuthConfig::hs256("i", "a", SECRET),
            AuthConfig::jwks("i", "a", "https://issuer.example/jwks.json"),
        ] {
            assert_eq!(
                resolve(config.clone(), &client).await.expect("as is"),
                config
            );
        }
        assert_eq!(rule.num_calls(), 0);
    }

    #[tokio::test]
    async fn given_a_missing_parameter_when_resolved_then_init_fails_saying_so() {
        let rule = mock!(Client::get_parameter).then_error(|| {
            GetParameterError::ParameterNotFound(ParameterNotFound::builder().build())
        });
        let error = refused(&rule).await;
        assert_eq!(error.cause, SecretProblem::NotFound);
        assert_line(
            &error,
            "does not exist in this account and region (ParameterNotFound)",
        );
    }

    #[tokio::test]
    async fn given_access_denied_when_resolved_then_init_fails_naming_what_the_role_needs() {
        let rule = mock!(Client::get_parameter).then_error(|| {
            GetParameterError::generic(
                ErrorMetadata::builder()
                    .code("AccessDeniedException")
                    .message(
                        "User: arn:aws:sts::111122223333:assumed-role/auth/authorizer is not \
                         authorized to perform: kms:Decrypt",
                    )
                    .build(),
            )
        });
        let error = refused(&rule).await;
        assert!(
            matches!(&error.cause, SecretProblem::AccessDenied { code, .. } if code == "AccessDeniedException"),
            "{error:?}"
        );
        assert_line(&error, "access denied (AccessDeniedException: User: ");
        assert_line(&error, "not authorized to perform: kms:Decrypt");
        assert_line(&error, "needs ssm:GetParameter");
    }

    #[tokio::test]
    async fn given_an_empty_value_when_resolved_then_init_fails_and_no_empty_key_is_used() {
        let rule = answering(ParameterType::SecureString, "");
        let error = refused(&rule).await;
        assert_eq!(error.cause, SecretProblem::Empty);
        assert_line(&error, "its value is empty");
    }

    #[tokio::test]
    async fn given_a_value_under_32_bytes_when_resolved_then_init_fails_naming_its_length() {
        let rule = answering(
            ParameterType::SecureString,
            "31-bytes-of-secret-0123456789ab",
        );
        let error = refused(&rule).await;
        assert_eq!(error.cause, SecretProblem::TooShort(31));
        assert_line(&error, "its value is 31 bytes long");
        assert!(!error.to_string().contains("31-bytes-of-secret"));
    }

    #[tokio::test]
    async fn given_a_plain_string_parameter_when_resolved_then_refused_as_not_encrypted() {
        let rule = answering(ParameterType::String, SECRET);
        let error = refused(&rule).await;
        assert_eq!(error.cause, SecretProblem::NotSecure("String".into()));
        assert_line(&error, "it is a String parameter, not a SecureString");
    }

    #[tokio::test]
    async fn given_a_key_or_service_failure_when_resolved_then_init_fails_naming_it() {
        let key = mock!(Client::get_parameter)
            .then_error(|| GetParameterError::InvalidKeyId(InvalidKeyId::builder().build()));
        assert_line(&refused(&key).await, "(InvalidKeyId)");
        let down = mock!(Client::get_parameter).then_error(|| {
            GetParameterError::InternalServerError(InternalServerError::builder().build())
        });
        let error = refused(&down).await;
        assert!(
            matches!(error.cause, SecretProblem::Unavailable(_)),
            "{error:?}"
        );
        assert_line(&error, "Parameter Store did not answer");
    }
}
