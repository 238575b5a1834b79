//! A scripted [`Matchmaker`] for handler tests: records every call and answers with
//! what the test queued, or succeeds by default.

use std::collections::VecDeque;
use std::sync::Mutex;

use async_trait::async_trait;

use shared::domain::PlayerId;
use shared::matchmaking::MatchmakingRequest;
use shared::matchmaking::TicketId;
use shared::ports::GameLiftError;
use shared::ports::Matchmaker;

#[derive(Clone, Debug, PartialEq)]
pub enum MatchmakerCall {
    Start(MatchmakingRequest),
    Accept {
        ticket_id: TicketId,
        players: Vec<PlayerId>,
        accept: bool,
    },
    Stop(TicketId),
}

#[derive(Default)]
pub struct FakeMatchmaker {
    calls: Mutex<Vec<MatchmakerCall>>,
    answers: Mutex<VecDeque<Result<(), GameLiftError>>>,
}

impl FakeMatchmaker {
    pub fn new() -> Self {
        Self::default()
    }

    /// The next call (whichever) answers `error`.
    pub fn fail_next(&self, error: GameLiftError) {
        self.answers.lock().unwrap().push_back(Err(error));
    }

    pub fn calls(&self) -> Vec<MatchmakerCall> {
        self.calls.lock().unwrap().clone()
    }

    fn answer(&self, call: MatchmakerCall) -> Result<(), GameLiftError> {
        self.calls.lock().unwrap().push(call);
        self.answers.lock().unwrap().pop_front().unwrap_or(Ok(()))
    }
}

#[async_trait]
impl Matchmaker for FakeMatchmaker {
    async fn start_matchmaking(&self, request: &MatchmakingRequest) -> Result<(), GameLiftError> {
        self.answer(MatchmakerCall::Start(request.clone()))
    }

    async fn accept_match(
        &self,
        ticket_id: &TicketId,
        players: &[PlayerId],
        accept: bool,
    ) -> Result<(), GameLiftError> {
        self.answer(MatchmakerCall::Accept {
            ticket_id: ticket_id.clone(),
            players: players.to_vec(),
            accept,
        })
    }

    async fn stop_matchmaking(&self, ticket_id: &TicketId) -> Result<(), GameLiftError> {
        self.answer(MatchmakerCall::Stop(ticket_id.clone()))
    }
}
