//! Production wiring for Lambda `main.rs` files: one SDK configuration per process and
//! the AWS adapters built from it, once, during init.

use std::sync::Arc;
use std::time::Duration;

use aws_config::timeout::TimeoutConfig;
use aws_config::{BehaviorVersion, SdkConfig};
use aws_smithy_http_client::tls::{self, TlsContext, TrustStore, rustls_provider::CryptoMode};
use aws_smithy_runtime_api::client::http::SharedHttpClient;

use crate::adapters::apigateway::ApiGatewayManagementGateway;
use crate::adapters::dynamodb::{DynamoMessageStore, DynamoPlayerStore};
use crate::config::Config;
use crate::ports::{ConnectionGateway, MessageStore, PlayerStore};

/// The roots of Amazon Trust Services, which issues the certificates of AWS service
/// endpoints (see the file's header).
const AMAZON_TRUST_SERVICES: &[u8] = include_bytes!("../../certs/amazon-trust-services.pem");

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

pub fn player_store(sdk: &SdkConfig, config: &Config) -> Arc<dyn PlayerStore> {
    Arc::new(DynamoPlayerStore::new(
        aws_sdk_dynamodb::Client::new(sdk),
        config.players_table.clone(),
    ))
}

/// The Players table as both the player store and the rate limiter (the windows live on
/// the players' items): one client, one adapter.
pub fn players_with_limits(
    sdk: &SdkConfig,
    config: &Config,
) -> (Arc<dyn PlayerStore>, Arc<dyn crate::ports::RateLimiter>) {
    let players = Arc::new(DynamoPlayerStore::new(
        aws_sdk_dynamodb::Client::new(sdk),
        config.players_table.clone(),
    ));
    (players.clone(), players)
}

pub fn message_store(sdk: &SdkConfig, config: &Config) -> Arc<dyn MessageStore> {
    Arc::new(DynamoMessageStore::new(
        aws_sdk_dynamodb::Client::new(sdk),
        config.messages_table.clone(),
    ))
}

/// `resume`'s hand-over: one TransactWriteItems across Players and Messages.
pub fn delivery_handover(
    sdk: &SdkConfig,
    config: &Config,
) -> Arc<dyn crate::ports::DeliveryHandover> {
    Arc::new(crate::adapters::dynamodb::DynamoDeliveryHandover::new(
        aws_sdk_dynamodb::Client::new(sdk),
        config.players_table.clone(),
        config.messages_table.clone(),
    ))
}

pub fn placement_store(sdk: &SdkConfig, config: &Config) -> Arc<dyn crate::ports::PlacementStore> {
    Arc::new(crate::adapters::dynamodb::DynamoPlacementStore::new(
        aws_sdk_dynamodb::Client::new(sdk),
        config.placements_table.clone(),
    ))
}

/// Placement settlements: one TransactWriteItems across Placements, Players and Messages.
pub fn placement_outcomes(
    sdk: &SdkConfig,
    config: &Config,
) -> Arc<dyn crate::ports::PlacementOutcomes> {
    Arc::new(crate::adapters::dynamodb::DynamoPlacementOutcomes::new(
        aws_sdk_dynamodb::Client::new(sdk),
        config.placements_table.clone(),
        config.players_table.clone(),
        config.messages_table.clone(),
    ))
}

/// The Parties table, whose changes also write Players (party links) and Messages
/// (every member's push) in one transaction.
pub fn party_store(sdk: &SdkConfig, config: &Config) -> Arc<dyn crate::ports::PartyStore> {
    Arc::new(crate::adapters::dynamodb::DynamoPartyStore::new(
        aws_sdk_dynamodb::Client::new(sdk),
        config.parties_table.clone(),
        config.players_table.clone(),
        config.messages_table.clone(),
        config.presence_shards,
    ))
}

/// Party changes and their pushes on the Parties table, on the system clock.
pub fn parties(sdk: &SdkConfig, config: &Config) -> crate::party::Parties {
    crate::party::Parties::new(
        party_store(sdk, config),
        Arc::new(crate::ports::SystemClock),
        i64::try_from(config.message_ttl.as_secs()).unwrap_or(i64::MAX),
    )
}

/// Matchmaking tickets: items of the Placements table, changed together with the Players
/// and Messages tables.
pub fn ticket_store(sdk: &SdkConfig, config: &Config) -> Arc<dyn crate::ports::TicketStore> {
    Arc::new(crate::adapters::dynamodb::DynamoTicketStore::new(
        aws_sdk_dynamodb::Client::new(sdk),
        config.placements_table.clone(),
        config.players_table.clone(),
        config.messages_table.clone(),
    ))
}

/// FlexMatch through the process's GameLift client configuration.
pub fn matchmaker(sdk: &SdkConfig) -> Arc<dyn crate::ports::Matchmaker> {
    Arc::new(crate::adapters::gamelift::SdkGameLift::from_sdk_config(sdk))
}

/// The AWS SDK's service-specific endpoint variable of the `@connections` API. Read here,
/// not by the SDK: the adapter gives each client its connection's endpoint, which would
/// override the SDK's. Deployed it is never set (template.yaml declares it
/// `AWS::NoValue`); `local/sam-env.json` sets it to the local stack's for `sam local
/// invoke`.
pub const MANAGEMENT_ENDPOINT_VARIABLE: &str = "AWS_ENDPOINT_URL_APIGATEWAYMANAGEMENTAPI";

/// The `@connections` API, at each connection's endpoint, or at
/// [`MANAGEMENT_ENDPOINT_VARIABLE`]'s when set.
pub fn connection_gateway(sdk: &SdkConfig) -> Arc<dyn ConnectionGateway> {
    let endpoint = std::env::var(MANAGEMENT_ENDPOINT_VARIABLE).ok();
    if let Some(endpoint) = endpoint.as_deref().filter(|e| !e.trim().is_empty()) {
        tracing::info!(
            endpoint,
            "{MANAGEMENT_ENDPOINT_VARIABLE} is set: every @connections call goes there"
        );
    }
    Arc::new(ApiGatewayManagementGateway::new(sdk.clone()).with_endpoint_override(endpoint))
}

pub fn gamelift(sdk: &SdkConfig) -> Arc<dyn crate::ports::GameLift> {
    Arc::new(crate::adapters::gamelift::SdkGameLift::from_sdk_config(sdk))
}

/// Presence events to the custom bus `PRESENCE_EVENT_BUS`, `Source` = `<GAME>.presence`.
pub fn event_bus(sdk: &SdkConfig, config: &Config) -> Arc<dyn crate::ports::EventBus> {
    Arc::new(crate::adapters::eventbridge::EventBridgeBus::new(
        aws_sdk_eventbridge::Client::new(sdk),
        config.presence_event_bus.clone(),
        crate::ports::event_bus::presence_source(&config.game),
    ))
}

pub fn subscription_store(
    sdk: &SdkConfig,
    config: &Config,
) -> Arc<dyn crate::ports::SubscriptionStore> {
    Arc::new(crate::adapters::dynamodb::DynamoSubscriptionStore::new(
        aws_sdk_dynamodb::Client::new(sdk),
        config.subscriptions_table.clone(),
    ))
}

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
