//! Verification keys from a JWKS: where they come from ([`JwksFetcher`], with the HTTP
//! adapter [`HttpJwksFetcher`] and the in-memory [`StaticJwks`]) and how they are kept
//! between invocations (a cache with a TTL and a rate-limited refresh on unknown `kid`s).

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use http_body_util::{BodyExt, Empty, LengthLimitError, Limited};
use hyper::body::Bytes;
use hyper_rustls::{HttpsConnector, HttpsConnectorBuilder};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use jsonwebtoken::jwk::{
    AlgorithmParameters, EllipticCurve, Jwk, JwkSet, KeyAlgorithm, KeyOperations, PublicKeyUse,
};
use jsonwebtoken::{Algorithm, DecodingKey};
use tokio::sync::{Mutex, RwLock};
use tokio::time::Instant;

use crate::CredentialError;

/// How long one JWKS fetch may take, connection included.
pub const DEFAULT_FETCH_TIMEOUT: Duration = Duration::from_secs(3);
/// The largest JWKS document accepted (real ones are a few KiB).
pub const MAX_JWKS_BYTES: usize = 256 * 1024;

/// Why the keys could not be fetched.
#[derive(Debug, thiserror::Error)]
pub enum JwksError {
    #[error("JWKS URL {url:?} {reason}")]
    InvalidUrl { url: String, reason: String },
    #[error("could not load the TLS root certificates")]
    Tls(#[source] std::io::Error),
    #[error("could not build the JWKS request")]
    Request(#[source] hyper::http::Error),
    #[error("the JWKS request failed")]
    Transport(#[source] hyper_util::client::legacy::Error),
    #[error("the JWKS endpoint answered HTTP {0}")]
    Status(u16),
    #[error("the JWKS response is larger than {MAX_JWKS_BYTES} bytes")]
    TooLarge,
    #[error("could not read the JWKS response: {0}")]
    Body(String),
    #[error("the JWKS endpoint did not answer within {0:?}")]
    Timeout(Duration),
    #[error("the JWKS response is not a JSON Web Key Set")]
    Json(#[source] serde_json::Error),
}

/// A source of verification keys. The production adapter is [`HttpJwksFetcher`];
/// tests and the local stack may use [`StaticJwks`] or their own.
#[async_trait]
pub trait JwksFetcher: Send + Sync {
    async fn fetch(&self) -> Result<JwkSet, JwksError>;
}

/// A fixed key set, fetched without I/O.
#[derive(Clone, Debug)]
pub struct StaticJwks(pub JwkSet);

impl StaticJwks {
    /// No keys: every JWKS-verified token is denied (`unknown key`).
    pub fn empty() -> Self {
        Self(JwkSet { keys: Vec::new() })
    }
}

#[async_trait]
impl JwksFetcher for StaticJwks {
    async fn fetch(&self) -> Result<JwkSet, JwksError> {
        Ok(self.0.clone())
    }
}

/// Parses a JWKS document. Keys this crate cannot represent (other key types or
/// algorithms, encryption keys with unknown parameters) are skipped rather than
/// failing the whole set; only a document without a `keys` array is an error.
pub fn parse_jwks(body: &[u8]) -> Result<JwkSet, JwksError> {
    #[derive(serde::Deserialize)]
    struct RawSet {
        keys: Vec<serde_json::Value>,
    }
    let raw: RawSet = serde_json::from_slice(body).map_err(JwksError::Json)?;
    let total = raw.keys.len();
    let keys: Vec<Jwk> = raw
        .keys
        .into_iter()
        .filter_map(|key| serde_json::from_value(key).ok())
        .collect();
    if keys.len() < total {
        tracing::debug!(
            skipped = total - keys.len(),
            kept = keys.len(),
            "skipped JWKS entries that are not usable keys"
        );
    }
    Ok(JwkSet { keys })
}

/// Fetches a JWKS over HTTPS with the workspace's one HTTP/TLS stack (hyper 1,
/// hyper-rustls, rustls on aws-lc-rs, the system's root certificates).
pub struct HttpJwksFetcher {
    url: hyper::Uri,
    client: Client<HttpsConnector<HttpConnector>, Empty<Bytes>>,
    timeout: Duration,
}

impl HttpJwksFetcher {
    /// `url` must be `https://`, or `http://` to a loopback host.
    pub fn new(url: &str) -> Result<Self, JwksError> {
        let uri = crate::config::check_jwks_url(url).map_err(|reason| JwksError::InvalidUrl {
            url: url.to_owned(),
            reason,
        })?;
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let https = HttpsConnectorBuilder::new()
            .with_provider_and_native_roots(provider)
            .map_err(JwksError::Tls)?
            .https_or_http()
            .enable_http1()
            .build();
        Ok(Self {
            url: uri,
            // No idle connections kept: fetches are minutes apart, and a pooled connection
            // would not survive the Lambda environment being frozen in between.
            client: Client::builder(TokioExecutor::new())
                .pool_max_idle_per_host(0)
                .build(https),
            timeout: DEFAULT_FETCH_TIMEOUT,
        })
    }

    /// Another limit for one fetch (default [`DEFAULT_FETCH_TIMEOUT`]).
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    async fn fetch_once(&self) -> Result<JwkSet, JwksError> {
        let request = hyper::Request::get(self.url.clone())
            .header(hyper::header::ACCEPT, "application/json")
            .body(Empty::<Bytes>::new())
            .map_err(JwksError::Request)?;
        let response = self
            .client
            .request(request)
            .await
            .map_err(JwksError::Transport)?;
        let status = response.status();
        if !status.is_success() {
            return Err(JwksError::Status(status.as_u16()));
        }
        let body = Limited::new(response.into_body(), MAX_JWKS_BYTES)
            .collect()
            .await
            .map_err(|e| {
                if e.downcast_ref::<LengthLimitError>().is_some() {
                    JwksError::TooLarge
                } else {
                    JwksError::Body(e.to_string())
                }
            })?
            .to_bytes();
        parse_jwks(&body)
    }
}

#[async_trait]
impl JwksFetcher for HttpJwksFetcher {
    async fn fetch(&self) -> Result<JwkSet, JwksError> {
        tokio::time::timeout(self.timeout, self.fetch_once())
            .await
            .map_err(|_| JwksError::Timeout(self.timeout))?
    }
}

/// When the cached keys are refreshed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JwksCachePolicy {
    /// Keys older than this are refetched before use (kept if the refetch fails).
    pub ttl: Duration,
    /// A token with an unknown `kid` triggers a refetch at most this often, so tokens
    /// with made-up `kid`s cannot make us hammer the JWKS endpoint.
    pub min_refresh_interval: Duration,
    /// With no usable keys (never fetched, or expired), a failed fetch is retried at
    /// most this often.
    pub retry_after_failure: Duration,
}

impl Default for JwksCachePolicy {
    fn default() -> Self {
        Self {
            ttl: Duration::from_secs(600),
            min_refresh_interval: Duration::from_secs(60),
            retry_after_failure: Duration::from_secs(5),
        }
    }
}

/// Why no key could be chosen for a token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum KeyLookupError {
    /// The keys have never been fetched successfully.
    Unavailable,
    /// The token's key is not (or no longer) published, or does not fit the token.
    Rejected(CredentialError),
}

enum Selection {
    Found(DecodingKey),
    NotFound,
    Rejected(CredentialError),
}

#[derive(Default)]
struct CacheState {
    keys: Vec<Jwk>,
    /// The last successful fetch.
    fetched_at: Option<Instant>,
    /// The last fetch, successful or not.
    attempted_at: Option<Instant>,
}

impl CacheState {
    fn is_fresh(&self, now: Instant, ttl: Duration) -> bool {
        self.fetched_at
            .is_some_and(|at| now.saturating_duration_since(at) < ttl)
    }
}

/// The keys, kept across invocations of a warm Lambda.
pub(crate) struct JwksCache {
    fetcher: Arc<dyn JwksFetcher>,
    policy: JwksCachePolicy,
    state: RwLock<CacheState>,
    /// One refresh at a time; the others wait and then use its result.
    refreshing: Mutex<()>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Trigger {
    /// No keys, or the keys are past their TTL.
    Stale,
    /// The keys are fresh but the token names a key we do not have.
    UnknownKey,
}

impl JwksCache {
    pub(crate) fn new(fetcher: Arc<dyn JwksFetcher>, policy: JwksCachePolicy) -> Self {
        Self {
            fetcher,
            policy,
            state: RwLock::new(CacheState::default()),
            refreshing: Mutex::new(()),
        }
    }

    /// The key to verify a token with `alg` (RS256 or ES256) and `kid`.
    pub(crate) async fn key_for(
        &self,
        alg: Algorithm,
        kid: Option<&str>,
    ) -> Result<DecodingKey, KeyLookupError> {
        let trigger = {
            let state = self.state.read().await;
            if state.is_fresh(Instant::now(), self.policy.ttl) {
                match select(&state.keys, alg, kid) {
                    Selection::Found(key) => return Ok(key),
                    Selection::Rejected(why) => return Err(KeyLookupError::Rejected(why)),
                    Selection::NotFound => Trigger::UnknownKey,
                }
            } else {
                Trigger::Stale
            }
        };
        self.refresh(trigger).await;
        let state = self.state.read().await;
        match select(&state.keys, alg, kid) {
            Selection::Found(key) => Ok(key),
            Selection::Rejected(why) => Err(KeyLookupError::Rejected(why)),
            Selection::NotFound if state.fetched_at.is_none() => Err(KeyLookupError::Unavailable),
            Selection::NotFound => Err(KeyLookupError::Rejected(CredentialError::UnknownKey)),
        }
    }

    /// Fetches the keys now unless the policy says it is too soon. Failures keep the
    /// keys we have (stale keys beat denying everyone while the endpoint is down).
    async fn refresh(&self, trigger: Trigger) {
        let _one_at_a_time = self.refreshing.lock().await;
        let now = Instant::now();
        {
            // Decide under the refresh lock: whoever held it before us may just have
            // fetched, in which case we use their result.
            let state = self.state.read().await;
            let fresh = state.is_fresh(now, self.policy.ttl);
            let min_gap = if fresh {
                if trigger == Trigger::Stale {
                    return; // refreshed while we waited
                }
                self.policy.min_refresh_interval
            } else {
                self.policy.retry_after_failure
            };
            let since_last = state
                .attempted_at
                .map(|at| now.saturating_duration_since(at));
            if since_last.is_some_and(|since| since < min_gap) {
                tracing::debug!(?since_last, "JWKS refresh skipped: rate limited");
                return;
            }
        }
        let result = self.fetcher.fetch().await;
        let mut state = self.state.write().await;
        state.attempted_at = Some(now);
        match result {
            Ok(set) => {
                tracing::info!(keys = set.keys.len(), "JWKS fetched");
                state.keys = set.keys;
                state.fetched_at = Some(now);
            }
            Err(error) => {
                tracing::warn!(
                    error = %shared::telemetry::ErrorChain(&error),
                    cached_keys = state.keys.len(),
                    "JWKS fetch failed"
                );
            }
        }
    }

    /// Fetches the keys if we have none yet (Lambda init, to take it off the first
    /// request). Never fails: a failure is logged and retried on demand.
    pub(crate) async fn warm_up(&self) {
        self.refresh(Trigger::Stale).await;
    }
}

/// Picks the key for a token: by `kid` when the token has one; without a `kid`, the
/// only key of the right type. The key's `kty`/`crv`, `alg`, `use` and `key_ops` must
/// all allow verifying `alg`.
fn select(keys: &[Jwk], alg: Algorithm, kid: Option<&str>) -> Selection {
    let chosen = match kid {
        Some(kid) => {
            let mut named = keys
                .iter()
                .filter(|k| k.common.key_id.as_deref() == Some(kid))
                .peekable();
            let Some(first) = named.peek().copied() else {
                return Selection::NotFound;
            };
            match named.find(|k| fits(k, alg).is_ok()) {
                Some(key) => key,
                None => {
                    return Selection::Rejected(match fits(first, alg) {
                        Err(why) => CredentialError::KeyMismatch(why),
                        Ok(()) => CredentialError::UnknownKey,
                    });
                }
            }
        }
        None => {
            let mut fitting = keys.iter().filter(|k| fits(k, alg).is_ok());
            match (fitting.next(), fitting.next()) {
                (None, _) => return Selection::NotFound,
                (Some(key), None) => key,
                (Some(_), Some(_)) => return Selection::Rejected(CredentialError::AmbiguousKey),
            }
        }
    };
    match DecodingKey::from_jwk(chosen) {
        Ok(key) => Selection::Found(key),
        Err(_) => Selection::Rejected(CredentialError::KeyMismatch("the key is not usable")),
    }
}

fn fits(jwk: &Jwk, alg: Algorithm) -> Result<(), &'static str> {
    let type_fits = match (&jwk.algorithm, alg) {
        (AlgorithmParameters::RSA(_), Algorithm::RS256) => true,
        (AlgorithmParameters::EllipticCurve(p), Algorithm::ES256) => p.curve == EllipticCurve::P256,
        _ => false,
    };
    if !type_fits {
        return Err("the key type does not match the token algorithm");
    }
    if let Some(key_alg) = jwk.common.key_algorithm {
        let same = matches!(
            (key_alg, alg),
            (KeyAlgorithm::RS256, Algorithm::RS256) | (KeyAlgorithm::ES256, Algorithm::ES256)
        );
        if !same {
            return Err("the key's alg differs from the token's");
        }
    }
    if jwk
        .common
        .public_key_use
        .as_ref()
        .is_some_and(|key_use| *key_use != PublicKeyUse::Signature)
    {
        return Err("the key is not for signatures");
    }
    if jwk
        .common
        .key_operations
        .as_ref()
        .is_some_and(|ops| !ops.contains(&KeyOperations::Verify))
    {
        return Err("the key's key_ops do not include verify");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{EC_KID, RSA_KID, published_keys, serve, serve_silence};

    fn kids(set: &JwkSet) -> Vec<Option<String>> {
        set.keys.iter().map(|k| k.common.key_id.clone()).collect()
    }

    #[tokio::test]
    async fn given_a_local_server_when_fetched_then_the_published_keys_come_back() {
        let body = serde_json::to_string(&published_keys()).expect("json");
        let (base, hits) = serve(200, body).await;
        let fetcher = HttpJwksFetcher::new(&format!("{base}/jwks.json")).expect("client");
        let set = fetcher.fetch().await.expect("fetched");
        assert_eq!(
            kids(&set),
            vec![Some(RSA_KID.to_owned()), Some(EC_KID.to_owned())]
        );
        assert_eq!(hits.load(std::sync::atomic::Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn given_an_error_status_when_fetched_then_the_status_is_reported() {
        let (base, _) = serve(500, "{\"message\":\"boom\"}".to_owned()).await;
        let fetcher = HttpJwksFetcher::new(&base).expect("client");
        assert!(matches!(fetcher.fetch().await, Err(JwksError::Status(500))));
    }

    #[tokio::test]
    async fn given_a_server_that_never_answers_when_fetched_then_it_times_out() {
        let base = serve_silence().await;
        let fetcher = HttpJwksFetcher::new(&base)
            .expect("client")
            .with_timeout(Duration::from_millis(200));
        assert!(matches!(fetcher.fetch().await, Err(JwksError::Timeout(_))));
    }

    #[tokio::test]
    async fn given_an_oversized_body_when_fetched_then_it_is_refused() {
        let body = format!("{{\"keys\":[],\"pad\":\"{}\"}}", "x".repeat(MAX_JWKS_BYTES));
        let (base, _) = serve(200, body).await;
        let fetcher = HttpJwksFetcher::new(&base).expect("client");
        assert!(matches!(fetcher.fetch().await, Err(JwksError::TooLarge)));
    }

    #[tokio::test]
    async fn given_a_body_that_is_not_a_jwks_when_fetched_then_it_is_refused() {
        let (base, _) = serve(200, "<html>login</html>".to_owned()).await;
        let fetcher = HttpJwksFetcher::new(&base).expect("client");
        assert!(matches!(fetcher.fetch().await, Err(JwksError::Json(_))));
    }

    #[test]
    fn given_a_plain_http_url_to_another_host_when_building_the_fetcher_then_it_is_refused() {
        assert!(matches!(
            HttpJwksFetcher::new("http://issuer.example/jwks.json"),
            Err(JwksError::InvalidUrl { .. })
        ));
    }

    #[test]
    fn given_a_jwks_with_unusable_entries_when_parsed_then_they_are_skipped() {
        let mut doc = serde_json::to_value(published_keys()).expect("json");
        let keys = doc["keys"].as_array_mut().expect("array");
        keys.insert(0, serde_json::json!({ "kty": "XYZ", "kid": "future" }));
        keys.push(serde_json::json!({ "kty": "RSA", "kid": "broken" }));
        let set = parse_jwks(&serde_json::to_vec(&doc).expect("json")).expect("parsed");
        assert_eq!(
            kids(&set),
            vec![Some(RSA_KID.to_owned()), Some(EC_KID.to_owned())]
        );
        assert!(parse_jwks(b"{\"no_keys\":true}").is_err());
    }
}
