//! Every refused handshake logs one line saying what was wrong and what to do, and never
//! the token: a wrong stage path, `?token=` in header mode, a missing or invalid player
//! id, a JWT with a bad claim.

use std::time::{SystemTime, UNIX_EPOCH};

use jsonwebtoken::{EncodingKey, Header};
use serde_json::json;
use tokio_tungstenite::tungstenite;

use super::{Started, start_local_with, stop};

const SECRET: &str = "refusal-test-secret-of-at-least-32-bytes";
const ISSUER: &str = "https://issuer.example.com/";
const AUDIENCE: &str = "my-game";

/// Tries `url`; the upgrade's HTTP status (101 if accepted: then it disconnects).
async fn status_of(url: &str) -> u16 {
    match tokio_tungstenite::connect_async(url).await {
        Ok((mut ws, _)) => {
            let _ = ws.close(None).await;
            101
        }
        Err(tungstenite::Error::Http(response)) => response.status().as_u16(),
        Err(other) => panic!("connecting to {url}: {other}"),
    }
}

/// Tries each case's URL (expecting its status), then `accepted` (101); stops the stack
/// and checks its log: one refusal line per case, in order, each with its status and
/// what it says. Returns the log and those lines.
async fn each_refused_once(
    started: Started,
    cases: &[(String, u16, &str)],
    accepted: &str,
) -> (String, Vec<String>) {
    for (attempt, status, _) in cases {
        assert_eq!(status_of(attempt).await, *status, "{attempt}");
    }
    assert_eq!(status_of(accepted).await, 101);
    let log = stop(started);
    let lines: Vec<String> = (log.lines())
        .filter(|l| l.contains(" refused ("))
        .map(str::to_owned)
        .collect();
    assert_eq!(lines.len(), cases.len(), "one line per refusal:\n{log}");
    for ((attempt, status, says), line) in cases.iter().zip(&lines) {
        assert!(
            line.contains(&format!("refused ({status}")),
            "{attempt}: {line}"
        );
        assert!(line.contains(says), "{attempt}: {line}");
    }
    (log, lines)
}

fn token(changes: serde_json::Value) -> String {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let mut claims =
        json!({"sub": "alice", "iss": ISSUER, "aud": AUDIENCE, "iat": now, "exp": now + 600});
    for (name, value) in changes.as_object().unwrap() {
        claims[name] = value.clone();
    }
    jsonwebtoken::encode(
        &Header::default(),
        &claims,
        &EncodingKey::from_secret(SECRET.as_bytes()),
    )
    .unwrap()
}

#[tokio::test]
async fn given_header_mode_when_handshakes_are_refused_then_each_logs_one_line_saying_why_and_what_to_do()
 {
    let started = start_local_with("info", &[]);
    let base = started.url.trim_end_matches("/Development").to_owned();
    let url = started.url.clone();
    let cases = [
        (format!("{base}/"), 403, "no such stage path"),
        (
            format!("{base}/Prod?playerId=alice"),
            403,
            "no such stage path",
        ),
        (
            format!("{base}/development?playerId=alice"),
            403,
            "case-sensitive",
        ),
        (format!("{url}?token=abc.def.ghi"), 401, "ignores ?token="),
        (url.clone(), 401, "no player id: "),
        (
            format!("{url}?playerId=al%20ice"),
            403,
            "1-128 characters of A-Z a-z 0-9 . _ : @ -",
        ),
        (
            format!("{url}?playerId={}", "a".repeat(129)),
            403,
            "the maximum is 128",
        ),
    ];
    let (log, lines) = each_refused_once(started, &cases, &format!("{url}?playerId=alice")).await;
    assert!(
        lines[0].contains(&format!("the WebSocket API is {url}")),
        "{}",
        lines[0]
    );
    assert!(
        lines[3].contains("?playerId=<id> or an X-Player-Id header"),
        "{}",
        lines[3]
    );
    assert!(!log.contains("abc.def.ghi"), "the token was logged:\n{log}");
}

#[tokio::test]
async fn given_jwt_mode_when_tokens_are_refused_then_the_line_names_the_claim_and_never_the_token()
{
    let started = start_local_with(
        "info",
        &[
            ("AUTH_MODE", "jwt"),
            ("JWT_ISSUER", ISSUER),
            ("JWT_AUDIENCE", AUDIENCE),
            ("JWT_HS256_SECRET", SECRET),
        ],
    );
    let url = started.url.clone();
    let expired = token(json!({"exp": 1_000_000_000}));
    let wrong_issuer = token(json!({"iss": "https://other.example/"}));
    let wrong_audience = token(json!({"aud": "another-game"}));
    let bad_sub = token(json!({"sub": "al ice"}));
    let cases = [
        (
            format!("{url}?token={expired}"),
            403,
            "the token's exp claim is in the past",
        ),
        (
            format!("{url}?token={wrong_issuer}"),
            403,
            "the token's iss claim is not \"https://issuer.example.com/\" (JWT_ISSUER)",
        ),
        (
            format!("{url}?token={wrong_audience}"),
            403,
            "the token's aud claim does not contain \"my-game\"",
        ),
        (
            format!("{url}?token={bad_sub}"),
            403,
            "the token's sub claim is not a valid player id",
        ),
        (
            format!("{url}?token=not-a-jwt"),
            403,
            "not a well-formed JWT",
        ),
        (
            format!("{url}?playerId=alice"),
            401,
            "ignores ?playerId= and X-Player-Id",
        ),
    ];
    let accepted = format!("{url}?token={}", token(json!({})));
    let (log, _) = each_refused_once(started, &cases, &accepted).await;
    for secret in [&expired, &wrong_issuer, &wrong_audience, &bad_sub] {
        assert!(!log.contains(secret.as_str()), "a token was logged:\n{log}");
    }
    assert!(!log.contains(SECRET), "the secret was logged:\n{log}");
}
