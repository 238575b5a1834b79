//! GetPlayerConnectionDetails as a fleet with `SIM_PLAYER_GATEWAY`'s PlayerGatewayMode
//! answers it: behind player gateway (`enabled`, `required`) two relays per player on
//! 127.0.0.2 and 127.0.0.3 (ports derived from the game session's, in an order that
//! differs from player to player, as GameLift's relays do) and an opaque token expiring
//! `SIM_PLAYER_GATEWAY_TOKEN_SECONDS` from now; without (`disabled`), the game server's
//! own address and no token. Every call is counted; the latest details given to each
//! player of each game are kept for the console.

use shared::config::PlayerGateway;
use shared::domain::{ConnectionDetails, ConnectionEndpoint, PlayerId};
use shared::ports::gamelift::{
    GameLiftError, MAX_PLAYERS_PER_CONNECTION_DETAILS_CALL, PlayerConnection,
};
use tokio::time::Instant;

use super::model::{GameSessionStatus, State};
use crate::gamelift::events::uuid_v4;

/// The simulated relays' addresses: loopback, so a local game client can reach them.
pub const RELAY_IPS: [&str; 2] = ["127.0.0.2", "127.0.0.3"];

impl State {
    pub(crate) fn player_connection_details(
        &mut self,
        now: Instant,
        game_session_id: &str,
        players: &[PlayerId],
    ) -> Result<Vec<PlayerConnection>, GameLiftError> {
        self.connection_details_calls += 1;
        if self.faults.fail_connection_details {
            return Err(GameLiftError::Unavailable(
                "Rate exceeded (ThrottlingException): the simulator's failConnectionDetails fault"
                    .into(),
            ));
        }
        if players.is_empty() || players.len() > MAX_PLAYERS_PER_CONNECTION_DETAILS_CALL {
            return Err(GameLiftError::InvalidRequest {
                message: format!(
                    "PlayerIds has {} players; it takes 1 to {MAX_PLAYERS_PER_CONNECTION_DETAILS_CALL}.",
                    players.len()
                ),
            });
        }
        let g = self.game(game_session_id)?;
        let game = &self.game_sessions[g];
        if game.status != GameSessionStatus::Active {
            return Err(GameLiftError::SessionEnded {
                message: format!(
                    "Game session {} is not ACTIVE (InvalidGameSessionStatusException: TERMINATED).",
                    game.arn
                ),
            });
        }
        let token_millis =
            i64::try_from(self.settings.player_gateway_token.as_millis()).unwrap_or(i64::MAX);
        let expires_at = self.wall(now).saturating_add(token_millis);
        let (ip, port) = (game.ip_address.clone(), game.port);
        let connections: Vec<PlayerConnection> = players
            .iter()
            .map(|player_id| PlayerConnection {
                player_id: player_id.clone(),
                details: match self.settings.player_gateway {
                    PlayerGateway::Disabled => ConnectionDetails::direct(ip.clone(), port),
                    PlayerGateway::Enabled | PlayerGateway::Required => ConnectionDetails {
                        endpoints: relays(port, player_id),
                        player_gateway_token: Some(format!("pgt-{}", uuid_v4())),
                        expires_at: Some(expires_at),
                    },
                },
            })
            .collect();
        for connection in &connections {
            self.issued.insert(
                (g, connection.player_id.as_str().to_owned()),
                connection.details.clone(),
            );
        }
        Ok(connections)
    }
}

/// Relay `k` of a game listens `10000 × (k + 1)` above the game's port (wrapped into
/// 1024–65535); a player's relays come in an order of their own.
fn relays(game_port: u16, player: &PlayerId) -> Vec<ConnectionEndpoint> {
    let mut endpoints: Vec<ConnectionEndpoint> = RELAY_IPS
        .iter()
        .enumerate()
        .map(|(k, ip)| {
            let above = u32::from(game_port) + 10_000 * (k as u32 + 1);
            let port = (above - 1_024) % (65_536 - 1_024) + 1_024;
            ConnectionEndpoint {
                ip_address: (*ip).to_owned(),
                port: u16::try_from(port).unwrap_or(u16::MAX),
            }
        })
        .collect();
    let spread = player.as_str().bytes().map(usize::from).sum::<usize>();
    let first = spread % endpoints.len();
    endpoints.rotate_left(first);
    endpoints
}

#[cfg(test)]
mod tests {
    use super::*;

    fn player(name: &str) -> PlayerId {
        PlayerId::parse(name).unwrap()
    }

    #[test]
    fn given_a_game_port_then_its_relays_are_above_it_on_both_addresses_in_a_players_own_order() {
        let a = relays(7777, &player("a"));
        let b = relays(7777, &player("b"));
        let ports = |e: &[ConnectionEndpoint]| {
            let mut p: Vec<(String, u16)> =
                e.iter().map(|e| (e.ip_address.clone(), e.port)).collect();
            p.sort();
            p
        };
        assert_eq!(
            ports(&a),
            [("127.0.0.2".into(), 17_777), ("127.0.0.3".into(), 27_777)]
        );
        assert_eq!(ports(&a), ports(&b));
        assert_ne!(a[0], b[0], "different players start at different relays");
        // A high game port wraps above the privileged ports.
        assert!(relays(60_000, &player("a")).iter().all(|e| e.port >= 1_024));
    }
}
