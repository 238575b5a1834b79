//! Where a game client sends its game traffic for a seat: the connection details GameLift's
//! GetPlayerConnectionDetails gives for a player of a game session
//! (<https://docs.aws.amazon.com/gameliftservers/latest/apireference/API_GetPlayerConnectionDetails.html>).
//! Behind player gateway (a fleet whose `PlayerGatewayMode` is `ENABLED` or `REQUIRED`)
//! they are relay endpoints and a token the client prepends to every UDP packet, valid
//! until `expiresAt`; without it, the game server's own address and no token
//! (<https://docs.aws.amazon.com/gameliftservers/latest/developerguide/ddos-protection-intro.html>).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::domain::{EpochMillis, GameSession};

/// GameLift's limit on a player gateway token (`PlayerConnectionDetail.PlayerGatewayToken`).
pub const MAX_PLAYER_GATEWAY_TOKEN_CHARS: usize = 1024;

/// One address to send the game's UDP traffic to: a player gateway relay, or the game
/// server itself.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConnectionEndpoint {
    pub ip_address: String,
    pub port: u16,
}

/// Where to connect for a seat, as GameLift gave it for this player.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConnectionDetails {
    /// Behind player gateway: relays, which differ from player to player (when one stops
    /// answering, use the next, and refresh: GameLift replaces unhealthy relays).
    /// Without: the game server's own address.
    #[schemars(length(min = 1))]
    pub endpoints: Vec<ConnectionEndpoint>,
    /// Behind player gateway: prepend it, unmodified (and unencrypted), to every UDP
    /// packet sent to an endpoint. Absent without player gateway.
    #[schemars(length(min = 1, max = 1024))]
    pub player_gateway_token: Option<String>,
    /// When the token expires (epoch ms): send `refreshConnectionDetails` before then
    /// (the client libraries do). Absent without player gateway: nothing expires.
    pub expires_at: Option<EpochMillis>,
}

impl ConnectionDetails {
    /// Straight to the game server, no token: what GameLift answers for a fleet or a
    /// location without player gateway, and what a seat gets when the backend does not
    /// ask (`PLAYER_GATEWAY=disabled`) or an `ENABLED` fleet's details could not be had
    /// (such a fleet still accepts direct connections).
    pub fn direct(ip_address: impl Into<String>, port: u16) -> Self {
        Self {
            endpoints: vec![ConnectionEndpoint {
                ip_address: ip_address.into(),
                port,
            }],
            player_gateway_token: None,
            expires_at: None,
        }
    }

    /// Whether these go through player gateway (a token to prepend).
    pub fn through_player_gateway(&self) -> bool {
        self.player_gateway_token.is_some()
    }
}

impl GameSession {
    /// The game server's own address, as connection details.
    pub fn direct_connection(&self) -> ConnectionDetails {
        ConnectionDetails::direct(self.ip_address.clone(), self.port)
    }

    /// This seat with `details` as where to connect.
    pub fn with_connection(self, details: ConnectionDetails) -> Self {
        Self {
            connection: Some(details),
            connection_unavailable: false,
            ..self
        }
    }

    /// This seat on a fleet that requires player gateway, whose details could not be had:
    /// no connection yet; the client asks again (`refreshConnectionDetails`).
    pub fn with_connection_unavailable(self) -> Self {
        Self {
            connection: None,
            connection_unavailable: true,
            ..self
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::fixtures::seat;

    #[test]
    fn given_a_seat_behind_player_gateway_then_it_carries_relays_token_and_expiry_in_camel_case() {
        let details = ConnectionDetails {
            endpoints: vec![
                ConnectionEndpoint {
                    ip_address: "198.51.100.7".into(),
                    port: 4100,
                },
                ConnectionEndpoint {
                    ip_address: "198.51.100.8".into(),
                    port: 4101,
                },
            ],
            player_gateway_token: Some("cGd0LXRva2Vu".into()),
            expires_at: Some(1_795_324_200_000),
        };
        let value = serde_json::to_value(seat().with_connection(details.clone())).unwrap();
        assert_eq!(
            value["connection"],
            json!({
                "endpoints": [{"ipAddress": "198.51.100.7", "port": 4100},
                              {"ipAddress": "198.51.100.8", "port": 4101}],
                "playerGatewayToken": "cGd0LXRva2Vu",
                "expiresAt": 1_795_324_200_000_i64
            })
        );
        assert!(value.get("connectionUnavailable").is_none());
        assert!(details.through_player_gateway());
    }

    #[test]
    fn given_a_direct_seat_then_its_one_endpoint_is_the_game_server_and_nothing_expires() {
        let seat = seat();
        let direct = seat.direct_connection();
        assert!(!direct.through_player_gateway());
        assert_eq!(
            serde_json::to_value(seat.with_connection(direct)).unwrap()["connection"],
            json!({"endpoints": [{"ipAddress": "10.0.0.1", "port": 7777}]})
        );
    }

    #[test]
    fn given_unavailable_details_then_the_seat_says_so_and_has_no_connection() {
        let value = serde_json::to_value(seat().with_connection_unavailable()).unwrap();
        assert_eq!(value["connectionUnavailable"], json!(true));
        assert!(value.get("connection").is_none());
    }

    #[test]
    fn given_a_seat_stored_before_connection_details_then_it_reads_with_none() {
        let stored = json!({"gameSessionArn": "arn:gs", "ipAddress": "10.0.0.1",
            "dnsName": "h", "port": 7777, "region": "r", "playerSessionId": "psess-1"});
        let seat: GameSession = serde_json::from_value(stored.clone()).unwrap();
        assert_eq!(seat.connection, None);
        assert!(!seat.connection_unavailable);
        assert_eq!(serde_json::to_value(&seat).unwrap(), stored);
    }
}
