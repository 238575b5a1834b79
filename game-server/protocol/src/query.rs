//! The upgrade's query string: who the process is. Keys with this exact casing (Go
//! `server/internal/gamelift_manager.go` `Connect`, C++
//! `GameLiftWebSocketClientManager.h`, C# `GameLiftWebSocket.cs` `CreateUri`). A
//! reconnect sends the same query (same `IdempotencyToken`); a RefreshConnection sends
//! it again with a new token and the `AuthToken` it was given.

use serde::{Deserialize, Serialize};

/// The query a game server's SDK opens its WebSocket with.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConnectQuery {
    /// The process id (`GAMELIFT_SDK_PROCESS_ID`): the process is this, not its socket.
    #[serde(rename = "pID")]
    pub process_id: String,
    #[serde(
        rename = "sdkVersion",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub sdk_version: Option<String>,
    /// `Go`, `Cpp`, `CSharp` (and `Rust` for this repository's SDK).
    #[serde(
        rename = "sdkLanguage",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub sdk_language: Option<String>,
    /// The host id (`GAMELIFT_SDK_HOST_ID`), GameLift's compute name.
    #[serde(rename = "ComputeId", default, skip_serializing_if = "Option::is_none")]
    pub compute_id: Option<String>,
    #[serde(rename = "FleetId")]
    pub fleet_id: String,
    /// New per connect call; the same on the SDK's own reconnects.
    #[serde(
        rename = "IdempotencyToken",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub idempotency_token: Option<String>,
    /// The auth token (`GAMELIFT_SDK_AUTH_TOKEN`), or `SigV4` with the `X-Amz-*` keys.
    #[serde(
        rename = "Authorization",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub authorization: Option<String>,
    #[serde(
        rename = "X-Amz-Algorithm",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub amz_algorithm: Option<String>,
    #[serde(
        rename = "X-Amz-Credential",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub amz_credential: Option<String>,
    #[serde(
        rename = "X-Amz-Date",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub amz_date: Option<String>,
    #[serde(
        rename = "X-Amz-Signature",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub amz_signature: Option<String>,
    #[serde(
        rename = "X-Amz-Security-Token",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub amz_security_token: Option<String>,
}

/// The value of `Authorization` when the query is signed with SigV4 instead of a token
/// (Go `server/server_state.go` `getSigV4QueryParameters`).
pub const SIGV4_AUTHORIZATION: &str = "SigV4";

/// A query the service cannot take; its text names what is expected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "the upgrade's query must carry pID (the process id) and FleetId, as the server SDK sends them ({0})"
)]
pub struct QueryError(pub String);

impl ConnectQuery {
    /// Reads a query string (without the `?`), percent-decoded; `pID` and `FleetId`
    /// must be there and not empty.
    pub fn parse(query: &str) -> Result<Self, QueryError> {
        let parsed: Self =
            serde_urlencoded::from_str(query).map_err(|e| QueryError(e.to_string()))?;
        for (key, value) in [("pID", &parsed.process_id), ("FleetId", &parsed.fleet_id)] {
            if value.is_empty() {
                return Err(QueryError(format!("`{key}` is empty")));
            }
        }
        Ok(parsed)
    }

    /// The query string, percent-encoded.
    pub fn encode(&self) -> String {
        // Only strings: the encoder has nothing it could refuse.
        serde_urlencoded::to_string(self).unwrap_or_default()
    }

    /// Whether the query is signed (SigV4) rather than carrying a token.
    pub fn is_sigv4(&self) -> bool {
        self.authorization.as_deref() == Some(SIGV4_AUTHORIZATION)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn given_the_go_sdks_request_line_when_parsed_then_every_key_is_read() {
        // The query Go 5.6.0 sends (url.Values.Encode: sorted, percent-encoded).
        let query = "Authorization=tok-123&ComputeId=host-1&FleetId=fleet-1&IdempotencyToken=6b8fc9a1-0000&pID=proc-1&sdkLanguage=Go&sdkVersion=5.6.0";
        let parsed = ConnectQuery::parse(query).unwrap();
        assert_eq!(parsed.process_id, "proc-1");
        assert_eq!(parsed.fleet_id, "fleet-1");
        assert_eq!(parsed.compute_id.as_deref(), Some("host-1"));
        assert_eq!(parsed.authorization.as_deref(), Some("tok-123"));
        assert_eq!(parsed.sdk_language.as_deref(), Some("Go"));
        assert!(!parsed.is_sigv4());
        assert_eq!(ConnectQuery::parse(&parsed.encode()).unwrap(), parsed);
    }

    #[test]
    fn given_no_pid_or_an_empty_one_when_parsed_then_the_error_names_what_is_expected() {
        let missing = ConnectQuery::parse("FleetId=fleet-1").unwrap_err();
        assert!(missing.to_string().contains("pID"), "{missing}");
        let empty = ConnectQuery::parse("pID=&FleetId=fleet-1").unwrap_err();
        assert!(empty.to_string().contains("`pID` is empty"), "{empty}");
    }
}
