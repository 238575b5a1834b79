//! A scripted [`GameLift`] for handler tests: records every call and answers with
//! what the test queued, or succeeds by default.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use async_trait::async_trait;

use shared::domain::{PlacementId, PlayerId};
use shared::placement::{PlacementRequest, PlayerSession};
use shared::ports::{GameLiftError, PlacementStarter, PlacementStopper, PlayerSessions};

/// The IP, DNS name and port of the player sessions the fake creates by default.
pub const FAKE_IP_ADDRESS: &str = "10.0.0.1";
pub const FAKE_DNS_NAME: &str = "ec2-10-0-0-1.compute.amazonaws.com";
pub const FAKE_PORT: u16 = 7777;

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
