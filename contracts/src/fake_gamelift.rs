//! A scripted GameLift ports ([`PlacementStarter`], [`PlacementStopper`], [`PlayerSessions`], [`PlayerConnections`]) (and [`PlayerConnections`]) for handler tests: records every
//! call and answers with what the test queued, or succeeds by default.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use async_trait::async_trait;

use shared::domain::{ConnectionDetails, ConnectionEndpoint, EpochMillis, PlacementId, PlayerId};
use shared::placement::{PlacementRequest, PlayerSession};
use shared::ports::{
    GameLiftError, PlacementStarter, PlacementStopper, PlayerConnection, PlayerConnections,
    PlayerSessions,
};

/// The IP, DNS name and port of the player sessions the fake creates by default.
pub const FAKE_IP_ADDRESS: &str = "10.0.0.1";
pub const FAKE_DNS_NAME: &str = "ec2-10-0-0-1.compute.amazonaws.com";
pub const FAKE_PORT: u16 = 7777;
/// The relays the fake's player gateway gives every player (see
/// [`FakeGameLift::with_player_gateway`]).
pub const FAKE_RELAYS: [(&str, u16); 2] = [("198.51.100.7", 4100), ("198.51.100.8", 4101)];

/// A GetPlayerConnectionDetails call: the game session and the players asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConnectionDetailsCall {
    pub game_session_arn: String,
    pub players: Vec<PlayerId>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum GameLiftCall {
    StartPlacement(PlacementRequest),
    StopPlacement(PlacementId),
    CreatePlayerSession {
        game_session_arn: String,
        player_id: PlayerId,
        player_data: Option<String>,
    },
}

#[derive(Default)]
pub struct FakeGameLift {
    calls: Mutex<Vec<GameLiftCall>>,
    start: Mutex<VecDeque<Result<(), GameLiftError>>>,
    stop: Mutex<VecDeque<Result<(), GameLiftError>>>,
    sessions: Mutex<VecDeque<Result<PlayerSession, GameLiftError>>>,
    created: AtomicU64,
    /// Kept apart from `calls`, whose variants other crates match on.
    connection_calls: Mutex<Vec<ConnectionDetailsCall>>,
    connections: Mutex<VecDeque<Result<Vec<PlayerConnection>, GameLiftError>>>,
    /// Behind player gateway: when tokens expire; `None`: the game server's address.
    gateway_expires_at: Mutex<Option<EpochMillis>>,
    tokens: AtomicU64,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

impl FakeGameLift {
    pub fn new() -> Self {
        Self::default()
    }

    /// The next StartGameSessionPlacement answers `error`.
    pub fn fail_next_start(&self, error: GameLiftError) {
        lock(&self.start).push_back(Err(error));
    }

    /// The next StopGameSessionPlacement answers `error`.
    pub fn fail_next_stop(&self, error: GameLiftError) {
        lock(&self.stop).push_back(Err(error));
    }

    /// The next CreatePlayerSession answers `error`.
    pub fn fail_next_player_session(&self, error: GameLiftError) {
        lock(&self.sessions).push_back(Err(error));
    }

    /// The next CreatePlayerSession answers `session`.
    pub fn next_player_session(&self, session: PlayerSession) {
        lock(&self.sessions).push_back(Ok(session));
    }

    /// From now on, GetPlayerConnectionDetails answers as a player gateway fleet: each
    /// player gets [`FAKE_RELAYS`] and a fresh token `pgt-fake-<n>` expiring at
    /// `expires_at` (by default it answers as a fleet without: the game server's address).
    pub fn with_player_gateway(&self, expires_at: EpochMillis) {
        *lock(&self.gateway_expires_at) = Some(expires_at);
    }

    /// The next GetPlayerConnectionDetails answers `error`.
    pub fn fail_next_connection_details(&self, error: GameLiftError) {
        lock(&self.connections).push_back(Err(error));
    }

    /// The next GetPlayerConnectionDetails answers `connections`.
    pub fn next_connection_details(&self, connections: Vec<PlayerConnection>) {
        lock(&self.connections).push_back(Ok(connections));
    }

    /// Every GetPlayerConnectionDetails call, in order ("one call per game session").
    pub fn connection_details_calls(&self) -> Vec<ConnectionDetailsCall> {
        lock(&self.connection_calls).clone()
    }

    pub fn calls(&self) -> Vec<GameLiftCall> {
        lock(&self.calls).clone()
    }

    /// The placement requests started, in order.
    pub fn started(&self) -> Vec<PlacementRequest> {
        self.calls()
            .into_iter()
            .filter_map(|call| match call {
                GameLiftCall::StartPlacement(request) => Some(request),
                _ => None,
            })
            .collect()
    }

    /// The placement ids stopped, in order.
    pub fn stopped(&self) -> Vec<PlacementId> {
        self.calls()
            .into_iter()
            .filter_map(|call| match call {
                GameLiftCall::StopPlacement(id) => Some(id),
                _ => None,
            })
            .collect()
    }

    fn record(&self, call: GameLiftCall) {
        lock(&self.calls).push(call);
    }
}

#[async_trait]
impl PlacementStarter for FakeGameLift {
    async fn start_placement(&self, request: &PlacementRequest) -> Result<(), GameLiftError> {
        self.record(GameLiftCall::StartPlacement(request.clone()));
        lock(&self.start).pop_front().unwrap_or(Ok(()))
    }
}

#[async_trait]
impl PlacementStopper for FakeGameLift {
    async fn stop_placement(&self, placement_id: &PlacementId) -> Result<(), GameLiftError> {
        self.record(GameLiftCall::StopPlacement(placement_id.clone()));
        lock(&self.stop).pop_front().unwrap_or(Ok(()))
    }
}

#[async_trait]
impl PlayerSessions for FakeGameLift {
    async fn create_player_session(
        &self,
        game_session_arn: &str,
        player_id: &PlayerId,
        player_data: Option<&str>,
    ) -> Result<PlayerSession, GameLiftError> {
        self.record(GameLiftCall::CreatePlayerSession {
            game_session_arn: game_session_arn.to_owned(),
            player_id: player_id.clone(),
            player_data: player_data.map(str::to_owned),
        });
        if let Some(scripted) = lock(&self.sessions).pop_front() {
            return scripted;
        }
        let n = self.created.fetch_add(1, Ordering::SeqCst) + 1;
        Ok(PlayerSession {
            player_session_id: format!("psess-fake-{n}"),
            game_session_arn: game_session_arn.to_owned(),
            ip_address: FAKE_IP_ADDRESS.to_owned(),
            dns_name: FAKE_DNS_NAME.to_owned(),
            port: FAKE_PORT,
        })
    }
}

#[async_trait]
impl PlayerConnections for FakeGameLift {
    async fn get_player_connection_details(
        &self,
        game_session_arn: &str,
        players: &[PlayerId],
    ) -> Result<Vec<PlayerConnection>, GameLiftError> {
        lock(&self.connection_calls).push(ConnectionDetailsCall {
            game_session_arn: game_session_arn.to_owned(),
            players: players.to_vec(),
        });
        if let Some(scripted) = lock(&self.connections).pop_front() {
            return scripted;
        }
        let gateway = *lock(&self.gateway_expires_at);
        Ok(players
            .iter()
            .map(|player_id| PlayerConnection {
                player_id: player_id.clone(),
                details: match gateway {
                    None => ConnectionDetails::direct(FAKE_IP_ADDRESS, FAKE_PORT),
                    Some(expires_at) => ConnectionDetails {
                        endpoints: FAKE_RELAYS
                            .iter()
                            .map(|(ip, port)| ConnectionEndpoint {
                                ip_address: (*ip).to_owned(),
                                port: *port,
                            })
                            .collect(),
                        player_gateway_token: Some(format!(
                            "pgt-fake-{}",
                            self.tokens.fetch_add(1, Ordering::SeqCst) + 1
                        )),
                        expires_at: Some(expires_at),
                    },
                },
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn player(name: &str) -> PlayerId {
        PlayerId::parse(name).unwrap()
    }

    #[tokio::test]
    async fn given_a_gateway_fake_when_asked_then_it_counts_the_call_and_dates_fresh_tokens() {
        // Given a fake behind player gateway
        let fake = FakeGameLift::new();
        fake.with_player_gateway(5_000);

        // When two players of a game are asked for
        let found = fake
            .get_player_connection_details("arn:gs", &[player("alice"), player("bob")])
            .await
            .unwrap();

        // Then one call is recorded, and each player has the relays and a token of their own
        assert_eq!(
            fake.connection_details_calls(),
            [ConnectionDetailsCall {
                game_session_arn: "arn:gs".into(),
                players: vec![player("alice"), player("bob")],
            }]
        );
        assert_eq!(found[0].details.endpoints.len(), 2);
        assert_eq!(
            found[0].details.player_gateway_token.as_deref(),
            Some("pgt-fake-1")
        );
        assert_eq!(
            found[1].details.player_gateway_token.as_deref(),
            Some("pgt-fake-2")
        );
        assert_eq!(found[1].details.expires_at, Some(5_000));
        assert!(fake.calls().is_empty(), "kept apart from the other calls");
    }

    #[tokio::test]
    async fn given_a_scripted_failure_then_the_next_call_fails_and_the_one_after_is_direct() {
        let fake = FakeGameLift::new();
        fake.fail_next_connection_details(GameLiftError::Unavailable("throttled".into()));
        let failed = fake
            .get_player_connection_details("arn:gs", &[player("alice")])
            .await;
        assert!(matches!(failed, Err(GameLiftError::Unavailable(_))));
        let found = fake
            .get_player_connection_details("arn:gs", &[player("alice")])
            .await
            .unwrap();
        assert_eq!(
            found[0].details,
            ConnectionDetails::direct(FAKE_IP_ADDRESS, FAKE_PORT)
        );
        assert_eq!(fake.connection_details_calls().len(), 2);
    }
}
