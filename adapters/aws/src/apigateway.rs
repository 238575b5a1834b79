//! [`ConnectionGateway`] on the API Gateway management API (`@connections`), with
//! `aws-sdk-apigatewaymanagement`.
//!
//! The management API lives at a different URL for each API and stage (the `endpoint`
//! stored with every connection), so the adapter keeps one SDK client per endpoint,
//! all built from the same configuration (credentials, retries, timeouts) and cached
//! for the life of the process (warm Lambda invocations reuse them).
//!
//! An endpoint override ([`ApiGatewayManagementGateway::with_endpoint_override`]) replaces
//! every connection's own: a function run outside API Gateway (`sam local invoke` in a
//! container) reaches the local stack's `@connections` API that way, whatever its events
//! say. Deployed, there is none.

use std::collections::HashMap;
use std::sync::{PoisonError, RwLock};

use async_trait::async_trait;
use aws_sdk_apigatewaymanagement::config::http::HttpResponse;
use aws_sdk_apigatewaymanagement::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_apigatewaymanagement::operation::delete_connection::DeleteConnectionError;
use aws_sdk_apigatewaymanagement::operation::get_connection::GetConnectionError;
use aws_sdk_apigatewaymanagement::operation::post_to_connection::PostToConnectionError;
use aws_sdk_apigatewaymanagement::primitives::{Blob, DateTime};
use aws_sdk_apigatewaymanagement::{Client, Config};

use crate::calls::{AwsCall, Calls, Verb};
use shared::domain::ConnectionId;
use shared::ports::{ConnectionGateway, ConnectionInfo, ConnectionProbe, GatewayError};

/// The management API, one cached SDK client per endpoint.
pub struct ApiGatewayManagementGateway {
    base: Config,
    /// When set, the endpoint of every call, instead of the connection's.
    endpoint_override: Option<String>,
    clients: RwLock<HashMap<String, Client>>,
}

impl std::fmt::Debug for ApiGatewayManagementGateway {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let endpoints: Vec<String> = self
            .clients
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .keys()
            .cloned()
            .collect();
        f.debug_struct("ApiGatewayManagementGateway")
            .field("endpoint_override", &self.endpoint_override)
            .field("endpoints", &endpoints)
            .finish_non_exhaustive()
    }
}

impl ApiGatewayManagementGateway {
    /// Clients are built from `sdk_config` (loaded once at init) with each endpoint.
    pub fn new(sdk_config: aws_config::SdkConfig) -> Self {
        Self::from_conf(Config::from(&sdk_config))
    }

    /// Clients are built from `base` with each endpoint (any `endpoint_url` in `base` is
    /// replaced). For callers that need service-level settings, and for tests.
    pub fn from_conf(base: Config) -> Self {
        Self {
            base,
            endpoint_override: None,
            clients: RwLock::new(HashMap::new()),
        }
    }

    /// Every call goes to `endpoint` (`http://host:port/{stage}`), not to the
    /// connection's; `None` or a blank value: each connection's, as deployed.
    pub fn with_endpoint_override(mut self, endpoint: Option<String>) -> Self {
        self.endpoint_override = endpoint.filter(|e| !e.trim().is_empty());
        self
    }

    /// The client for `endpoint` (`https://{domain}/{stage}`), made on first use.
    fn client(&self, endpoint: &str) -> Client {
        let endpoint = self.endpoint_override.as_deref().unwrap_or(endpoint);
        // The SDK appends `/@connections/{id}`: a trailing slash would double it.
        let endpoint = endpoint.trim().trim_end_matches('/');
        // A panic while holding the lock cannot leave the map half-updated, so a
        // poisoned lock is safe to keep using.
        if let Some(client) = self
            .clients
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(endpoint)
        {
            return client.clone();
        }
        self.clients
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(endpoint.to_owned())
            .or_insert_with(|| {
                Client::from_conf(self.base.to_builder().endpoint_url(endpoint).build())
            })
            .clone()
    }

    /// How many endpoints have a cached client.
    pub fn cached_clients(&self) -> usize {
        self.clients
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

#[async_trait]
impl ConnectionGateway for ApiGatewayManagementGateway {
    async fn post(
        &self,
        endpoint: &str,
        connection: &ConnectionId,
        data: &[u8],
    ) -> Result<(), GatewayError> {
        self.client(endpoint)
            .post_to_connection()
            .connection_id(connection.as_str())
            .data(Blob::new(data))
            .send()
            .await
            .map(|_| ())
            .map_err(gateway_error)
    }

    async fn delete(&self, endpoint: &str, connection: &ConnectionId) -> Result<(), GatewayError> {
        self.client(endpoint)
            .delete_connection()
            .connection_id(connection.as_str())
            .send()
            .await
            .map(|_| ())
            .map_err(gateway_error)
    }
}

impl Calls<dyn ConnectionGateway> for ApiGatewayManagementGateway {
    fn calls(&self) -> Vec<AwsCall> {
        vec![
            AwsCall::connections(Verb::Post),
            AwsCall::connections(Verb::Delete),
        ]
    }
}

#[async_trait]
impl ConnectionProbe for ApiGatewayManagementGateway {
    async fn get(
        &self,
        endpoint: &str,
        connection: &ConnectionId,
    ) -> Result<ConnectionInfo, GatewayError> {
        let output = self
            .client(endpoint)
            .get_connection()
            .connection_id(connection.as_str())
            .send()
            .await
            .map_err(gateway_error)?;
        Ok(ConnectionInfo {
            connected_at_millis: output.connected_at().and_then(millis),
            last_active_at_millis: output.last_active_at().and_then(millis),
            source_ip: output
                .identity()
                .and_then(|identity| identity.source_ip())
                .map(str::to_owned),
        })
    }
}

impl Calls<dyn ConnectionProbe> for ApiGatewayManagementGateway {
    fn calls(&self) -> Vec<AwsCall> {
        vec![AwsCall::connections(Verb::Get)]
    }
}

fn millis(at: &DateTime) -> Option<i64> {
    at.to_millis().ok()
}

/// The management API errors callers act on.
enum Known {
    Gone,
    PayloadTooLarge,
    LimitExceeded,
    Forbidden,
}

/// The modeled errors of one operation.
trait Modeled {
    fn known(&self) -> Option<Known>;
}

/// `Modeled` for each operation's error: the exceptions listed are the `Known`
/// errors they name; any other is not one callers act on.
macro_rules! modeled {
    ($($error:ty { $($exception:ident => $known:ident),+ $(,)? })+) => {$(
        impl Modeled for $error {
            fn known(&self) -> Option<Known> {
                match self {
                    $(Self::$exception(_) => Some(Known::$known),)+
                    _ => None,
                }
            }
        }
    )+};
}

modeled! {
    PostToConnectionError {
        GoneException => Gone,
        PayloadTooLargeException => PayloadTooLarge,
        LimitExceededException => LimitExceeded,
        ForbiddenException => Forbidden,
    }
    // A DELETE or GET carries no payload: never too large.
    DeleteConnectionError {
        GoneException => Gone, LimitExceededException => LimitExceeded, ForbiddenException => Forbidden,
    }
    GetConnectionError {
        GoneException => Gone, LimitExceededException => LimitExceeded, ForbiddenException => Forbidden,
    }
}

/// The modeled error first, then the error code (an error the model does not list for
/// this operation), then the HTTP status (an emulator, or a proxy in between, may
/// answer with a bare status).
fn gateway_error<E>(err: SdkError<E, HttpResponse>) -> GatewayError
where
    E: Modeled + ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
{
    let status = err.raw_response().map(|raw| raw.status().as_u16());
    let known = err
        .as_service_error()
        .and_then(Modeled::known)
        .or_else(|| match err.code() {
            Some("GoneException") => Some(Known::Gone),
            Some("PayloadTooLargeException") => Some(Known::PayloadTooLarge),
            Some("LimitExceededException" | "TooManyRequestsException") => {
                Some(Known::LimitExceeded)
            }
            Some("ForbiddenException") => Some(Known::Forbidden),
            _ => None,
        })
        .or(match status {
            Some(410) => Some(Known::Gone),
            Some(413) => Some(Known::PayloadTooLarge),
            Some(429) => Some(Known::LimitExceeded),
            Some(403) => Some(Known::Forbidden),
            _ => None,
        });
    match known {
        Some(Known::Gone) => return GatewayError::Gone,
        Some(Known::PayloadTooLarge) => return GatewayError::PayloadTooLarge,
        Some(Known::LimitExceeded) => return GatewayError::LimitExceeded,
        Some(Known::Forbidden) => return GatewayError::Forbidden(Box::new(err)),
        None => {}
    }
    let transient = match &err {
        SdkError::TimeoutError(_) => true,
        // A connector error the caller caused (e.g. a malformed endpoint) will not
        // heal by itself; I/O, timeouts and the rest may.
        SdkError::DispatchFailure(dispatch) => !dispatch.is_user(),
        _ => status.is_some_and(|status| (500..600).contains(&status)),
    };
    if transient {
        GatewayError::Unavailable(Box::new(err))
    } else {
        GatewayError::Other(Box::new(err))
    }
}

#[cfg(test)]
mod tests {
    use aws_sdk_apigatewaymanagement::config::retry::RetryConfig;
    use aws_sdk_apigatewaymanagement::operation::delete_connection::DeleteConnectionOutput;
    use aws_sdk_apigatewaymanagement::operation::get_connection::GetConnectionOutput;
    use aws_sdk_apigatewaymanagement::operation::post_to_connection::PostToConnectionOutput;
    use aws_sdk_apigatewaymanagement::types::Identity;
    use aws_sdk_apigatewaymanagement::types::error::{
        ForbiddenException, GoneException, LimitExceededException, PayloadTooLargeException,
    };
    use aws_smithy_http_client::test_util::capture_request;
    use aws_smithy_mocks::{Rule, RuleMode, mock, mock_client};
    use aws_smithy_types::body::SdkBody;

    use super::*;

    const ENDPOINT: &str = "https://abc123.execute-api.eu-west-1.amazonaws.com/prod";

    fn conn() -> ConnectionId {
        ConnectionId::parse("L0SM9cOFvHcCIhw=").unwrap()
    }

    /// A gateway whose clients answer with `rules` (retries off: one attempt per call).
    fn gateway(rules: &[&Rule]) -> ApiGatewayManagementGateway {
        let client = mock_client!(
            aws_sdk_apigatewaymanagement,
            RuleMode::MatchAny,
            rules,
            |config| config.retry_config(RetryConfig::disabled())
        );
        ApiGatewayManagementGateway::from_conf(client.config().clone())
    }

    fn kind(result: Result<impl std::fmt::Debug, GatewayError>) -> String {
        match result {
            Ok(_) => "ok".into(),
            Err(GatewayError::Gone) => "gone".into(),
            Err(GatewayError::PayloadTooLarge) => "too large".into(),
            Err(GatewayError::LimitExceeded) => "limit".into(),
            Err(GatewayError::Forbidden(_)) => "forbidden".into(),
            Err(GatewayError::Unavailable(_)) => "unavailable".into(),
            Err(GatewayError::Other(e)) => format!("other: {e:?}"),
        }
    }

    #[tokio::test]
    async fn post_succeeds_with_the_connection_and_the_payload() {
        let rule = mock!(Client::post_to_connection)
            .match_requests(|req| {
                req.connection_id() == Some("L0SM9cOFvHcCIhw=")
                    && req.data().map(|d| d.as_ref()) == Some(&b"{\"type\":\"ack\"}"[..])
            })
            .then_output(|| PostToConnectionOutput::builder().build());
        let gateway = gateway(&[&rule]);
        gateway
            .post(ENDPOINT, &conn(), b"{\"type\":\"ack\"}")
            .await
            .expect("posted");
        assert_eq!(rule.num_calls(), 1);
    }

    #[tokio::test]
    async fn delete_succeeds() {
        let rule = mock!(Client::delete_connection)
            .match_requests(|req| req.connection_id() == Some("L0SM9cOFvHcCIhw="))
            .then_output(|| DeleteConnectionOutput::builder().build());
        gateway(&[&rule])
            .delete(ENDPOINT, &conn())
            .await
            .expect("deleted");
        assert_eq!(rule.num_calls(), 1);
    }

    #[tokio::test]
    async fn get_maps_the_times_to_epoch_millis_and_the_source_ip() {
        let rule = mock!(Client::get_connection).then_output(|| {
            GetConnectionOutput::builder()
                .connected_at(DateTime::from_millis(1_700_000_000_123))
                .last_active_at(DateTime::from_millis(1_700_000_060_456))
                .identity(
                    Identity::builder()
                        .source_ip("203.0.113.7")
                        .user_agent("game/1.0")
                        .build(),
                )
                .build()
        });
        let info = gateway(&[&rule]).get(ENDPOINT, &conn()).await.unwrap();
        assert_eq!(
            info,
            ConnectionInfo {
                connected_at_millis: Some(1_700_000_000_123),
                last_active_at_millis: Some(1_700_000_060_456),
                source_ip: Some("203.0.113.7".into()),
            }
        );
        let rule =
            mock!(Client::get_connection).then_output(|| GetConnectionOutput::builder().build());
        let info = gateway(&[&rule]).get(ENDPOINT, &conn()).await.unwrap();
        assert_eq!(
            info,
            ConnectionInfo {
                connected_at_millis: None,
                last_active_at_millis: None,
                source_ip: None,
            }
        );
    }

    #[tokio::test]
    async fn modeled_errors_map_to_their_gateway_errors_on_every_call() {
        let post =
            |e: fn() -> PostToConnectionError| mock!(Client::post_to_connection).then_error(e);
        let cases: [(Rule, &str); 4] = [
            (
                post(|| PostToConnectionError::GoneException(GoneException::builder().build())),
                "gone",
            ),
            (
                post(|| {
                    PostToConnectionError::PayloadTooLargeException(
                        PayloadTooLargeException::builder().build(),
                    )
                }),
                "too large",
            ),
            (
                post(|| {
                    PostToConnectionError::LimitExceededException(
                        LimitExceededException::builder().build(),
                    )
                }),
                "limit",
            ),
            (
                post(|| {
                    PostToConnectionError::ForbiddenException(ForbiddenException::builder().build())
                }),
                "forbidden",
            ),
        ];
        for (rule, expected) in cases {
            let result = gateway(&[&rule]).post(ENDPOINT, &conn(), b"x").await;
            assert_eq!(kind(result), expected);
        }

        let gone = mock!(Client::delete_connection)
            .then_error(|| DeleteConnectionError::GoneException(GoneException::builder().build()));
        assert_eq!(
            kind(gateway(&[&gone]).delete(ENDPOINT, &conn()).await),
            "gone"
        );
        let limit = mock!(Client::delete_connection).then_error(|| {
            DeleteConnectionError::LimitExceededException(LimitExceededException::builder().build())
        });
        assert_eq!(
            kind(gateway(&[&limit]).delete(ENDPOINT, &conn()).await),
            "limit"
        );

        let gone = mock!(Client::get_connection)
            .then_error(|| GetConnectionError::GoneException(GoneException::builder().build()));
        assert_eq!(kind(gateway(&[&gone]).get(ENDPOINT, &conn()).await), "gone");
        let forbidden = mock!(Client::get_connection).then_error(|| {
            GetConnectionError::ForbiddenException(ForbiddenException::builder().build())
        });
        assert_eq!(
            kind(gateway(&[&forbidden]).get(ENDPOINT, &conn()).await),
            "forbidden"
        );
    }

    #[tokio::test]
    async fn bare_http_statuses_map_too() {
        for (status, expected) in [
            (410, "gone"),
            (413, "too large"),
            (429, "limit"),
            (403, "forbidden"),
            (500, "unavailable"),
            (502, "unavailable"),
            (503, "unavailable"),
        ] {
            let post = mock!(Client::post_to_connection)
                .sequence()
                .http_status(status, None)
                .build();
            let delete = mock!(Client::delete_connection)
                .sequence()
                .http_status(status, None)
                .build();
            let get = mock!(Client::get_connection)
                .sequence()
                .http_status(status, None)
                .build();
            let gateway = gateway(&[&post, &delete, &get]);
            assert_eq!(kind(gateway.post(ENDPOINT, &conn(), b"x").await), expected);
            assert_eq!(kind(gateway.delete(ENDPOINT, &conn()).await), expected);
            assert_eq!(kind(gateway.get(ENDPOINT, &conn()).await), expected);
        }
    }

    #[tokio::test]
    async fn a_500_with_an_error_body_is_unavailable_and_keeps_the_sdk_error() {
        let rule = mock!(Client::post_to_connection)
            .sequence()
            .http_status(
                500,
                Some(r#"{"message":"Internal server error"}"#.to_owned()),
            )
            .build();
        match gateway(&[&rule]).post(ENDPOINT, &conn(), b"x").await {
            Err(GatewayError::Unavailable(source)) => {
                let sdk = source
                    .downcast_ref::<SdkError<PostToConnectionError, HttpResponse>>()
                    .expect("the SDK error is the source");
                assert_eq!(sdk.raw_response().map(|r| r.status().as_u16()), Some(500));
            }
            other => panic!("{other:?}"),
        }
        assert!(GatewayError::Unavailable("x".into()).is_transient());
    }

    /// The SDK reports an operation or attempt timeout as `TimeoutError` and an HTTP
    /// connect/read timeout as a dispatch failure: both are worth retrying.
    #[test]
    fn timeouts_are_unavailable_and_transient() {
        let operation: SdkError<PostToConnectionError, HttpResponse> =
            SdkError::timeout_error("operation timed out");
        let read: SdkError<PostToConnectionError, HttpResponse> = SdkError::dispatch_failure(
            aws_sdk_apigatewaymanagement::error::ConnectorError::timeout("read timed out".into()),
        );
        for err in [operation, read] {
            let mapped = gateway_error(err);
            assert!(mapped.is_transient(), "{mapped:?}");
            assert_eq!(kind(Err::<(), _>(mapped)), "unavailable");
        }
    }

    #[tokio::test]
    async fn other_client_errors_are_faults() {
        let rule = mock!(Client::post_to_connection)
            .sequence()
            .http_status(
                400,
                Some(r#"{"message":"Invalid connectionId"}"#.to_owned()),
            )
            .build();
        let result = gateway(&[&rule]).post(ENDPOINT, &conn(), b"x").await;
        assert!(kind(result).starts_with("other"));
    }

    #[tokio::test]
    async fn one_client_per_endpoint_is_cached() {
        let rule = mock!(Client::delete_connection)
            .then_output(|| DeleteConnectionOutput::builder().build());
        let gateway = gateway(&[&rule]);
        for endpoint in [ENDPOINT, ENDPOINT, "https://other.example/dev", ENDPOINT] {
            gateway.delete(endpoint, &conn()).await.unwrap();
        }
        assert_eq!(gateway.cached_clients(), 2);
        assert_eq!(rule.num_calls(), 4);
    }

    /// The request on the wire: the endpoint's stage path, `@connections`, the encoded
    /// connection id, and the raw payload as the body.
    #[tokio::test]
    async fn requests_go_to_the_stage_path_of_the_stored_endpoint() {
        let (http_client, request) = capture_request(None);
        let base = Config::builder()
            .with_test_defaults_v2()
            .http_client(http_client)
            .build();
        let gateway = ApiGatewayManagementGateway::from_conf(base);
        gateway
            .post(&format!("{ENDPOINT}/"), &conn(), b"{\"type\":\"ack\"}")
            .await
            .unwrap();
        let request = request.expect_request();
        assert_eq!(request.method(), "POST");
        assert_eq!(
            request.uri(),
            format!("{ENDPOINT}/@connections/L0SM9cOFvHcCIhw%3D")
        );
        assert_eq!(request.body().bytes(), Some(&b"{\"type\":\"ack\"}"[..]));
    }

    #[tokio::test]
    async fn given_an_endpoint_override_when_posting_then_the_request_goes_there_not_to_the_connections_endpoint()
     {
        let (http_client, request) = capture_request(None);
        let base = Config::builder()
            .with_test_defaults_v2()
            .http_client(http_client)
            .build();
        let gateway = ApiGatewayManagementGateway::from_conf(base)
            .with_endpoint_override(Some("http://host.docker.internal:3001/Development/".into()));
        gateway.post(ENDPOINT, &conn(), b"{}").await.unwrap();
        assert_eq!(
            request.expect_request().uri(),
            "http://host.docker.internal:3001/Development/@connections/L0SM9cOFvHcCIhw%3D"
        );
    }

    #[test]
    fn a_blank_endpoint_override_is_none() {
        let base = Config::builder().with_test_defaults_v2().build();
        for blank in [None, Some(String::new()), Some("  ".into())] {
            let gateway =
                ApiGatewayManagementGateway::from_conf(base.clone()).with_endpoint_override(blank);
            assert_eq!(gateway.endpoint_override, None);
        }
    }

    /// GetConnection's timestamps arrive as ISO 8601 text.
    #[tokio::test]
    async fn get_parses_the_wire_format() {
        let body = r#"{"connectedAt":"2023-11-14T22:13:20.123Z","identity":{"sourceIp":"198.51.100.1","userAgent":"ua"},"lastActiveAt":"2023-11-14T22:14:20Z"}"#;
        let response = http::Response::builder()
            .status(200)
            .header("content-type", "application/json")
            .body(SdkBody::from(body))
            .unwrap();
        let (http_client, _request) = capture_request(Some(response));
        let base = Config::builder()
            .with_test_defaults_v2()
            .http_client(http_client)
            .build();
        let info = ApiGatewayManagementGateway::from_conf(base)
            .get(ENDPOINT, &conn())
            .await
            .unwrap();
        assert_eq!(info.connected_at_millis, Some(1_700_000_000_123));
        assert_eq!(info.last_active_at_millis, Some(1_700_000_060_000));
        assert_eq!(info.source_ip.as_deref(), Some("198.51.100.1"));
    }
}
