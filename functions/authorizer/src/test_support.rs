//! Test helpers: keys generated at test time (test-only, never persisted), token
//! signing, authorizer events, a fake key source and a tiny local JWKS server.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock, Mutex};

use async_trait::async_trait;
use aws_lambda_events::apigw::ApiGatewayCustomAuthorizerRequestTypeRequest;
use aws_lc_rs::encoding::AsDer;
use aws_lc_rs::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair};
use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use lambda_runtime::{Context, LambdaEvent};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use crate::jwks::{JwksError, JwksFetcher};

pub const ISSUER: &str = "https://auth.gamelift-sockets.test/";
pub const AUDIENCE: &str = "gamelift-sockets";
/// A test-only HS256 secret (≥ 32 bytes).
pub const SECRET: &[u8] = b"test-only-hs256-secret-0123456789abcdef";
pub const METHOD_ARN: &str =
    "arn:aws:execute-api:us-east-1:123456789012:abcdef1234/Development/$connect";
pub const RSA_KID: &str = "rsa-test-1";
pub const EC_KID: &str = "ec-test-1";

/// A signing key and its public JWK.
pub struct TestKey {
    pub encoding: EncodingKey,
    pub jwk: Jwk,
    /// SubjectPublicKeyInfo PEM (RSA only; empty otherwise).
    pub public_pem: String,
}

/// RSA 2048, generated once per test process.
pub static RSA: LazyLock<TestKey> = LazyLock::new(|| {
    let pair = aws_lc_rs::rsa::KeyPair::generate(aws_lc_rs::rsa::KeySize::Rsa2048)
        .expect("generate RSA key"); // allow-panic: test-only keys
    let pkcs8 = pair.as_der().expect("PKCS#8 DER"); // allow-panic: test-only keys
    // jsonwebtoken's aws-lc backend takes RSA private keys as PKCS#1.
    let encoding = EncodingKey::from_rsa_der(pkcs1_from_pkcs8(pkcs8.as_ref()));
    let mut jwk = Jwk::from_encoding_key(&encoding, Algorithm::RS256).expect("RSA JWK"); // allow-panic: test-only keys
    jwk.common.key_id = Some(RSA_KID.to_owned());
    let spki = pair.public_key().as_der().expect("SPKI DER"); // allow-panic: test-only keys
    TestKey {
        encoding,
        jwk,
        public_pem: pem("PUBLIC KEY", spki.as_ref()),
    }
});

/// EC P-256, generated once per test process.
pub static EC: LazyLock<TestKey> = LazyLock::new(|| {
    let pair = EcdsaKeyPair::generate(&ECDSA_P256_SHA256_FIXED_SIGNING).expect("generate EC key"); // allow-panic: test-only keys
    let pkcs8 = pair.to_pkcs8v1().expect("PKCS#8"); // allow-panic: test-only keys
    let encoding = EncodingKey::from_ec_der(pkcs8.as_ref());
    let mut jwk = Jwk::from_encoding_key(&encoding, Algorithm::ES256).expect("EC JWK"); // allow-panic: test-only keys
    jwk.common.key_id = Some(EC_KID.to_owned());
    TestKey {
        encoding,
        jwk,
        public_pem: String::new(),
    }
});

/// Both public keys, as an issuer would publish them.
pub fn published_keys() -> JwkSet {
    JwkSet {
        keys: vec![RSA.jwk.clone(), EC.jwk.clone()],
    }
}

/// The private key inside a PKCS#8 `PrivateKeyInfo` (for RSA: the PKCS#1 key).
fn pkcs1_from_pkcs8(pkcs8: &[u8]) -> &[u8] {
    fn read(input: &[u8]) -> (u8, &[u8], &[u8]) {
        let tag = input[0];
        let (len, header) = if input[1] < 0x80 {
            (usize::from(input[1]), 2)
        } else {
            let n = usize::from(input[1] & 0x7f);
            let len = input[2..2 + n]
                .iter()
                .fold(0usize, |acc, b| (acc << 8) | usize::from(*b));
            (len, 2 + n)
        };
        (tag, &input[header..header + len], &input[header + len..])
    }
    let (_, info, _) = read(pkcs8); // SEQUENCE
    let (_, _, rest) = read(info); // INTEGER version
    let (_, _, rest) = read(rest); // SEQUENCE algorithm
    let (tag, key, _) = read(rest); // OCTET STRING privateKey
    assert_eq!(tag, 0x04, "PKCS#8 privateKey is an OCTET STRING");
    key
}

fn pem(label: &str, der: &[u8]) -> String {
    let b64 = STANDARD.encode(der);
    let mut out = format!("-----BEGIN {label}-----\n");
    for line in b64.as_bytes().chunks(64) {
        out.push_str(std::str::from_utf8(line).expect("base64 is ASCII")); // allow-panic: test-only keys
        out.push('\n');
    }
    out.push_str(&format!("-----END {label}-----\n"));
    out
}

pub fn now() -> u64 {
    jsonwebtoken::get_current_timestamp()
}

/// Claims that pass every check for `sub`.
pub fn claims(sub: &str) -> Value {
    let now = now();
    json!({ "iss": ISSUER, "aud": AUDIENCE, "sub": sub, "iat": now, "exp": now + 300 })
}

/// `claims(sub)` with some fields replaced (`null` removes a field).
pub fn claims_with(sub: &str, changes: Value) -> Value {
    let mut claims = claims(sub);
    if let (Some(target), Some(changes)) = (claims.as_object_mut(), changes.as_object()) {
        for (name, value) in changes {
            if value.is_null() {
                target.remove(name);
            } else {
                target.insert(name.clone(), value.clone());
            }
        }
    }
    claims
}

pub fn sign(alg: Algorithm, kid: Option<&str>, claims: &Value, key: &EncodingKey) -> String {
    let mut header = Header::new(alg);
    header.kid = kid.map(str::to_owned);
    jsonwebtoken::encode(&header, claims, key).expect("sign token") // allow-panic: test-only keys
}

pub fn hs256(claims: &Value) -> String {
    sign(
        Algorithm::HS256,
        None,
        claims,
        &EncodingKey::from_secret(SECRET),
    )
}

pub fn rs256(claims: &Value) -> String {
    sign(Algorithm::RS256, Some(RSA_KID), claims, &RSA.encoding)
}

pub fn es256(claims: &Value) -> String {
    sign(Algorithm::ES256, Some(EC_KID), claims, &EC.encoding)
}

/// A token with any header and an arbitrary signature part (`alg: none` attacks).
pub fn forged(header: &Value, claims: &Value, signature: &str) -> String {
    let part = |v: &Value| URL_SAFE_NO_PAD.encode(serde_json::to_vec(v).expect("json")); // allow-panic: test-only keys
    format!("{}.{}.{signature}", part(header), part(claims))
}

/// A `$connect` REQUEST authorizer event as API Gateway sends it.
pub fn connect_request(
    query: &[(&str, &str)],
    headers: &[(&str, &str)],
) -> ApiGatewayCustomAuthorizerRequestTypeRequest {
    let mut header_map = json!({
        "Host": "abcdef1234.execute-api.us-east-1.amazonaws.com",
        "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
        "Sec-WebSocket-Version": "13",
        "X-Forwarded-For": "203.0.113.10",
        "X-Forwarded-Proto": "https"
    });
    for (name, value) in headers {
        header_map[*name] = json!(value);
    }
    let query_map: serde_json::Map<String, Value> = query
        .iter()
        .map(|(k, v)| ((*k).to_owned(), json!(v)))
        .collect();
    let multi_query: serde_json::Map<String, Value> = query
        .iter()
        .map(|(k, v)| ((*k).to_owned(), json!([v])))
        .collect();
    serde_json::from_value(json!({
        "type": "REQUEST",
        "methodArn": METHOD_ARN,
        "headers": header_map,
        "queryStringParameters": query_map,
        "multiValueQueryStringParameters": multi_query,
        "stageVariables": {},
        "requestContext": {
            "routeKey": "$connect",
            "eventType": "CONNECT",
            "messageDirection": "IN",
            "stage": "Development",
            "connectedAt": 1_739_096_130_123_i64,
            "requestTimeEpoch": 1_739_096_130_125_i64,
            "requestId": "GTZbMFzZIAMFpHA=",
            "domainName": "abcdef1234.execute-api.us-east-1.amazonaws.com",
            "connectionId": "GTZbMdEUIAMCJfw=",
            "apiId": "abcdef1234",
            "identity": { "sourceIp": "203.0.113.10" }
        }
    }))
    .expect("a valid authorizer event") // allow-panic: test-only keys
}

pub fn event(
    request: ApiGatewayCustomAuthorizerRequestTypeRequest,
) -> LambdaEvent<ApiGatewayCustomAuthorizerRequestTypeRequest> {
    LambdaEvent::new(request, Context::default())
}

/// A key source whose keys the test can swap or break, counting fetches.
#[derive(Default)]
pub struct FakeJwks {
    keys: Mutex<Option<JwkSet>>,
    calls: AtomicUsize,
}

impl FakeJwks {
    pub fn serving(keys: JwkSet) -> Arc<Self> {
        Arc::new(Self {
            keys: Mutex::new(Some(keys)),
            calls: AtomicUsize::new(0),
        })
    }

    /// A source whose endpoint is down.
    pub fn failing() -> Arc<Self> {
        Arc::new(Self::default())
    }

    pub fn set(&self, keys: Option<JwkSet>) {
        *self.keys.lock().expect("lock") = keys; // allow-panic: test-only keys
    }

    pub fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }
}

#[async_trait]
impl JwksFetcher for FakeJwks {
    async fn fetch(&self) -> Result<JwkSet, JwksError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        // Let concurrent requests run while this fetch is "in flight".
        tokio::task::yield_now().await;
        self.keys
            .lock()
            .expect("lock") // allow-panic: test-only keys
            .clone()
            .ok_or(JwksError::Status(503))
    }
}

/// A local HTTP/1.1 server answering every request with `status` and `body`.
/// Returns its base URL and a request counter.
pub async fn serve(status: u16, body: String) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind"); // allow-panic: test-only keys
    let addr = listener.local_addr().expect("addr"); // allow-panic: test-only keys
    let hits = Arc::new(AtomicUsize::new(0));
    let counter = hits.clone();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            counter.fetch_add(1, Ordering::SeqCst);
            let body = body.clone();
            tokio::spawn(async move {
                let mut request = Vec::new();
                let mut buf = [0u8; 1024];
                while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                    match socket.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => request.extend_from_slice(&buf[..n]),
                    }
                }
                let response = format!(
                    "HTTP/1.1 {status} Test\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = socket.write_all(response.as_bytes()).await;
                let _ = socket.shutdown().await;
            });
        }
    });
    (format!("http://{addr}"), hits)
}

/// A local server that accepts connections and never answers.
pub async fn serve_silence() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind"); // allow-panic: test-only keys
    let addr = listener.local_addr().expect("addr"); // allow-panic: test-only keys
    tokio::spawn(async move {
        let mut open = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            open.push(socket);
        }
    });
    format!("http://{addr}")
}
