//! The calls a real game server makes through the server SDK 5 WebSocket
//! (`local::gamelift_sdk` turns each frame into one of these), and the console's
//! actions on a real process. Each is refused with a [`ProcessError`] whose kind is the
//! status the SDKs read.

use super::Simulator;
use super::state::{ProcessError, ProcessRegistration, Socket};
use gamelift_server_protocol::model::PlayerSessionCreationPolicy;
use gamelift_server_protocol::{DescribePlayerSessions, DescribePlayerSessionsResult, Push};

impl Simulator {
    /// ActivateServerProcess (ProcessReady): the process joins the fleet; again for a
    /// live pID, its port and socket are updated.
    pub fn activate_process(
        &self,
        registration: ProcessRegistration,
        socket: Socket,
    ) -> Result<(), ProcessError> {
        self.with_state(|state, now| state.activate_process(now, registration, socket))
    }

    /// A new socket for `process_id` takes over its pushes; `false` if no live process
    /// has that pID (yet).
    pub fn attach_socket(&self, process_id: &str, socket: Socket) -> bool {
        self.with_state(|state, _| state.attach_socket(process_id, socket))
    }

    /// A socket closed; its process keeps its games for the reconnect window unless a
    /// newer socket has taken over.
    pub fn detach_socket(&self, process_id: &str, socket_id: u64) {
        self.with_state(|state, now| state.detach_socket(now, process_id, socket_id));
    }

    /// Refused unless `process_id` is a live process (it called ActivateServerProcess
    /// and has not ended): what every other call needs first.
    pub fn check_process(&self, process_id: &str) -> Result<(), ProcessError> {
        self.with_state(|state, _| state.caller(process_id).map(|_| ()))
    }

    /// HeartbeatServerProcess.
    pub fn heartbeat(&self, process_id: &str, healthy: bool) -> Result<(), ProcessError> {
        self.with_state(|state, now| state.heartbeat(now, process_id, healthy))
    }

    /// ActivateGameSession: ACTIVE, and its placement FULFILLED.
    pub fn activate_game_session(
        &self,
        process_id: &str,
        game_session_id: &str,
    ) -> Result<(), ProcessError> {
        self.with_state(|state, now| state.activate_game_session(now, process_id, game_session_id))
    }

    /// AcceptPlayerSession: RESERVED → ACTIVE, for a player session of that game.
    pub fn accept_player_session_of(
        &self,
        process_id: &str,
        game_session_id: &str,
        player_session_id: &str,
    ) -> Result<(), ProcessError> {
        self.with_state(|state, _| state.accept_for(process_id, game_session_id, player_session_id))
    }

    /// RemovePlayerSession: COMPLETED, and the seat reopens.
    pub fn remove_player_session_of(
        &self,
        process_id: &str,
        game_session_id: &str,
        player_session_id: &str,
    ) -> Result<(), ProcessError> {
        self.with_state(|state, now| {
            state.remove_for(now, process_id, game_session_id, player_session_id)
        })
    }

    /// UpdatePlayerSessionCreationPolicy.
    pub fn update_player_session_creation_policy(
        &self,
        process_id: &str,
        game_session_id: &str,
        policy: PlayerSessionCreationPolicy,
    ) -> Result<(), ProcessError> {
        self.with_state(|state, _| {
            state.update_creation_policy(process_id, game_session_id, policy)
        })
    }

    /// DescribePlayerSessions.
    pub fn describe_player_sessions(
        &self,
        process_id: &str,
        request: &DescribePlayerSessions,
    ) -> Result<DescribePlayerSessionsResult, ProcessError> {
        self.with_state(|state, _| state.describe_player_sessions(process_id, request))
    }

    /// ProcessEnding (TerminateServerProcess): its games end, and it leaves the fleet.
    pub fn process_ending(&self, process_id: &str) -> Result<(), ProcessError> {
        self.with_state(|state, now| state.process_ending(now, process_id))
    }

    /// Sends TerminateProcess (the console's action); the process is taken out after
    /// `SIM_TERMINATION_GRACE_SECONDS` unless it ends first.
    pub fn terminate_process(&self, process_id: &str) -> Result<(), ProcessError> {
        self.with_state(|state, now| state.terminate_process(now, process_id))
    }

    /// Sends a push (RefreshConnection) to a live process's socket.
    pub fn push_to_process(&self, process_id: &str, push: Push) -> Result<(), ProcessError> {
        self.with_state(|state, _| state.push(process_id, push))
    }
}
