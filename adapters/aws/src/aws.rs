//! The SDK configuration every AWS client of a function shares: region and credentials
//! from the environment, timeouts inside the function's own, and the trust roots of its
//! HTTPS client. Built once per process, during init.
//!
//! Trust roots: the clients trust the five roots of Amazon Trust Services
//! (`adapters/aws/certs/amazon-trust-services.pem`, compiled in), the CA behind every
//! endpoint the functions call (DynamoDB, API Gateway's `@connections`, GameLift,
//! EventBridge, and SSM for the authorizer's HS256 secret). Reading and parsing the
//! system's ~150 roots instead was most of a cold start (BENCHMARKS.md).
//! `TLS_TRUST_ROOTS=system` switches back to the system store (also the default in the
//! China regions, `cn-*`, a separate partition); `amazon` forces the compiled-in roots.
//! The template does not set it.
//!
//! Endpoints (`sam local invoke` only): `AWS_ENDPOINT_URL`, `AWS_ENDPOINT_URL_DYNAMODB`
//! and `AWS_ENDPOINT_URL_APIGATEWAYMANAGEMENTAPI` are the AWS SDK's own variables
//! (aws-config reads the first two when it loads the configuration; the last one, see
//! [`MANAGEMENT_ENDPOINT_VARIABLE`]). The template declares them in the Globals as
//! `AWS::NoValue`, so CloudFormation deploys none of them; they exist so that `sam local
//! invoke --env-vars local/sam-env.json` may set them (SAM passes a function only the
//! variables its template declares). `tests/suites/template_drift/sam_env.rs` checks the
//! file against the template and the code.

use std::time::Duration;

use aws_config::timeout::TimeoutConfig;
use aws_config::{BehaviorVersion, SdkConfig};
use aws_smithy_http_client::tls::{self, TlsContext, TrustStore, rustls_provider::CryptoMode};
use aws_smithy_runtime_api::client::http::SharedHttpClient;

/// The roots of Amazon Trust Services, which issues the certificates of AWS service
/// endpoints (see the file's header).
const AMAZON_TRUST_SERVICES: &[u8] = include_bytes!("../certs/amazon-trust-services.pem");

/// Which certificate authorities the AWS clients trust (`TLS_TRUST_ROOTS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrustRoots {
    /// Amazon Trust Services' five roots, compiled in: nothing to read at init. Every
    /// endpoint these functions call (DynamoDB, API Gateway, GameLift, EventBridge) has
    /// a certificate under them.
    AmazonTrustServices,
    /// The system's store (`SSL_CERT_FILE`, `SSL_CERT_DIR`, or the OS defaults), read
    /// and parsed at init: ~150 certificates, most of a cold start's time.
    System,
}

impl TrustRoots {
    /// `TLS_TRUST_ROOTS=system` or `amazon`; unset: Amazon's, except in the China
    /// regions (`cn-*`, a separate partition with its own certificates).
    pub fn from_env() -> Self {
        let region = std::env::var("AWS_REGION").unwrap_or_default();
        Self::choose(std::env::var("TLS_TRUST_ROOTS").ok().as_deref(), &region)
    }

    fn choose(setting: Option<&str>, region: &str) -> Self {
        match setting.map(str::trim) {
            Some(s) if s.eq_ignore_ascii_case("system") => Self::System,
            Some(s) if s.eq_ignore_ascii_case("amazon") => Self::AmazonTrustServices,
            _ if region.starts_with("cn-") => Self::System,
            _ => Self::AmazonTrustServices,
        }
    }
}

/// The HTTPS client every AWS SDK client of a function shares: rustls on aws-lc (what
/// the SDK's default client uses), trusting `roots`.
pub fn https_client(roots: TrustRoots) -> SharedHttpClient {
    let trust = match roots {
        TrustRoots::AmazonTrustServices => TrustStore::empty()
            .with_native_roots(false)
            .with_pem_certificate(AMAZON_TRUST_SERVICES),
        TrustRoots::System => TrustStore::default(),
    };
    aws_smithy_http_client::Builder::new()
        .tls_provider(tls::Provider::Rustls(CryptoMode::AwsLc))
        .tls_context(
            TlsContext::builder()
                .with_trust_store(trust)
                .build()
                .unwrap_or_default(),
        )
        .build_https()
}

/// The SDK configuration from the Lambda environment (region, credentials), with
/// timeouts well inside a function's own: a hung call becomes a retryable error instead
/// of a timed-out invocation. Its HTTPS client trusts [`TrustRoots::from_env`].
pub async fn sdk_config() -> SdkConfig {
    let timeouts = TimeoutConfig::builder()
        .connect_timeout(Duration::from_secs(2))
        .operation_attempt_timeout(Duration::from_secs(3))
        .operation_timeout(Duration::from_secs(8))
        .build();
    aws_config::defaults(BehaviorVersion::latest())
        .http_client(https_client(TrustRoots::from_env()))
        .timeout_config(timeouts)
        .load()
        .await
}

/// The AWS SDK's service-specific endpoint variable of the `@connections` API. Read by
/// the wiring (`crate::wiring::AwsServices`), not by the SDK: the adapter gives each
/// client its connection's endpoint, which would override the SDK's. Deployed it is never
/// set (template.yaml declares it `AWS::NoValue`); `local/sam-env.json` sets it to the
/// local stack's for `sam local invoke`.
pub const MANAGEMENT_ENDPOINT_VARIABLE: &str = "AWS_ENDPOINT_URL_APIGATEWAYMANAGEMENTAPI";
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_compiled_in_roots_are_amazon_trust_services_five_and_parse() {
        use rustls_pki_types::CertificateDer;
        use rustls_pki_types::pem::PemObject;
        let roots: Vec<CertificateDer<'_>> = CertificateDer::pem_slice_iter(AMAZON_TRUST_SERVICES)
            .collect::<Result<_, _>>()
            .expect("every block parses");
        assert_eq!(roots.len(), 5);
        let mut store = rustls::RootCertStore::empty();
        let (added, rejected) = store.add_parsable_certificates(roots);
        assert_eq!((added, rejected), (5, 0));
    }

    #[test]
    fn amazon_roots_unless_told_otherwise_or_in_a_china_region() {
        use TrustRoots::{AmazonTrustServices, System};
        assert_eq!(TrustRoots::choose(None, "eu-west-1"), AmazonTrustServices);
        assert_eq!(TrustRoots::choose(None, ""), AmazonTrustServices);
        assert_eq!(TrustRoots::choose(None, "cn-north-1"), System);
        assert_eq!(TrustRoots::choose(Some("system"), "eu-west-1"), System);
        assert_eq!(TrustRoots::choose(Some(" System "), "eu-west-1"), System);
        assert_eq!(
            TrustRoots::choose(Some("amazon"), "cn-north-1"),
            AmazonTrustServices
        );
        assert_eq!(
            TrustRoots::choose(Some("bogus"), "eu-west-1"),
            AmazonTrustServices
        );
    }

    /// The client builds its TLS connector (parsing the roots) on the first request; a
    /// bad root file would panic there. A refused connection is the expected outcome.
    #[tokio::test]
    async fn a_client_on_the_compiled_in_roots_reaches_the_network() {
        let config = aws_sdk_dynamodb::Config::builder()
            .behavior_version(BehaviorVersion::latest())
            .region(aws_sdk_dynamodb::config::Region::new("eu-west-1"))
            .credentials_provider(aws_sdk_dynamodb::config::Credentials::for_tests())
            .endpoint_url("https://127.0.0.1:9")
            .http_client(https_client(TrustRoots::AmazonTrustServices))
            .retry_config(aws_config::retry::RetryConfig::disabled())
            .build();
        let error = aws_sdk_dynamodb::Client::from_conf(config)
            .list_tables()
            .send()
            .await
            .expect_err("nothing listens on port 9");
        assert!(
            matches!(error, aws_sdk_dynamodb::error::SdkError::DispatchFailure(_)),
            "{error:?}"
        );
    }
}
