//! The server calls, with the official SDKs' client-side guards and checks (Go
//! `server/server_state.go`, `server/validation.go`): nothing is sent when one fails.

use std::time::{SystemTime, UNIX_EPOCH};

use gamelift_server_protocol::model::PlayerSessionCreationPolicy;
use gamelift_server_protocol::{
    AcceptPlayerSession, ActivateGameSession, DescribePlayerSessions, DescribePlayerSessionsResult,
    Empty, ErrorKind, GetComputeCertificateResult, GetFleetRoleCredentials,
    GetFleetRoleCredentialsResult, RemovePlayerSession, Request, StartMatchBackfill,
    StartMatchBackfillResult, StopMatchBackfill, UpdatePlayerSessionCreationPolicy,
};

use crate::error::{GameLiftError, Result};
use crate::server::GameLiftServer;

/// Go's `RoleSessionNameMaxLength`.
const ROLE_SESSION_NAME_MAX: usize = 64;
/// Cached credentials are used while they have more than this left (Go
/// `InstanceRoleCredentialTTL`, 15 min).
const CREDENTIALS_MIN_TTL_MS: i64 = 15 * 60 * 1000;

impl GameLiftServer {
    /// ActivateGameSession for the game session the service started here.
    pub async fn activate_game_session(&self) -> Result<()> {
        let game_session_id = self.guard(true)?;
        self.send(Request::ActivateGameSession(ActivateGameSession {
            game_session_id,
        }))
        .await
    }

    /// AcceptPlayerSession: the player with this id connected; the service refuses an
    /// id that is unknown, of another game, or not RESERVED.
    pub async fn accept_player_session(&self, player_session_id: &str) -> Result<()> {
        let game_session_id = self.guard(true)?;
        check_player_session_id(player_session_id)?;
        self.send(Request::AcceptPlayerSession(AcceptPlayerSession {
            game_session_id,
            player_session_id: player_session_id.to_owned(),
        }))
        .await
    }

    /// RemovePlayerSession: the player left; its slot reopens.
    pub async fn remove_player_session(&self, player_session_id: &str) -> Result<()> {
        let game_session_id = self.guard(true)?;
        check_player_session_id(player_session_id)?;
        self.send(Request::RemovePlayerSession(RemovePlayerSession {
            game_session_id,
            player_session_id: player_session_id.to_owned(),
        }))
        .await
    }

    /// UpdatePlayerSessionCreationPolicy for this process's game session.
    pub async fn update_player_session_creation_policy(
        &self,
        policy: PlayerSessionCreationPolicy,
    ) -> Result<()> {
        let game_session_id = self.guard(true)?;
        self.send(Request::UpdatePlayerSessionCreationPolicy(
            UpdatePlayerSessionCreationPolicy {
                game_session_id,
                player_session_policy: policy,
            },
        ))
        .await
    }

    /// DescribePlayerSessions by exactly one of game session, player or player session
    /// id, with an optional status filter, `limit` and `next_token`.
    pub async fn describe_player_sessions(
        &self,
        request: DescribePlayerSessions,
    ) -> Result<DescribePlayerSessionsResult> {
        self.guard(false)?;
        let ids = [
            &request.game_session_id,
            &request.player_id,
            &request.player_session_id,
        ];
        if ids
            .iter()
            .filter(|id| id.as_deref().is_some_and(|id| !id.is_empty()))
            .count()
            != 1
        {
            return Err(GameLiftError::Validation(
                "DescribePlayerSessions takes exactly one of game_session_id, player_id and player_session_id".to_owned(),
            ));
        }
        if request
            .limit
            .is_some_and(|limit| !(1..=1024).contains(&limit))
        {
            return Err(GameLiftError::Validation(
                "limit must be within 1..=1024".to_owned(),
            ));
        }
        let timeout = self.inner.config.timing.call_timeout;
        self.call(Request::DescribePlayerSessions(request), timeout)
            .await
    }

    /// StartMatchBackfill; returns the ticket id.
    pub async fn start_match_backfill(
        &self,
        request: StartMatchBackfill,
    ) -> Result<StartMatchBackfillResult> {
        self.guard(false)?;
        if request.game_session_arn.is_empty() || request.matchmaking_configuration_arn.is_empty() {
            return Err(GameLiftError::Validation(
                "StartMatchBackfill needs game_session_arn and matchmaking_configuration_arn"
                    .to_owned(),
            ));
        }
        if request.players.is_empty() {
            return Err(GameLiftError::Validation(
                "StartMatchBackfill needs the game's players".to_owned(),
            ));
        }
        let timeout = self.inner.config.timing.call_timeout;
        self.call(Request::StartMatchBackfill(request), timeout)
            .await
    }

    /// StopMatchBackfill.
    pub async fn stop_match_backfill(&self, request: StopMatchBackfill) -> Result<()> {
        self.guard(false)?;
        if request.game_session_arn.is_empty()
            || request.matchmaking_configuration_arn.is_empty()
            || request.ticket_id.is_empty()
        {
            return Err(GameLiftError::Validation(
                "StopMatchBackfill needs game_session_arn, matchmaking_configuration_arn and ticket_id".to_owned(),
            ));
        }
        self.send(Request::StopMatchBackfill(request)).await
    }

    /// GetComputeCertificate: the path of the compute's TLS certificate and its name.
    pub async fn get_compute_certificate(&self) -> Result<GetComputeCertificateResult> {
        self.guard(false)?;
        let timeout = self.inner.config.timing.call_timeout;
        self.call(Request::GetComputeCertificate(Empty {}), timeout)
            .await
    }

    /// GetFleetRoleCredentials for `role_arn`; `role_session_name` defaults to
    /// `<fleetId>-<hostId>` (64 characters at most). Results are cached while they have
    /// more than 15 minutes left. An answer without an access key means the fleet has no
    /// role (not a managed EC2 fleet): a `BadRequest`, as Go returns.
    pub async fn get_fleet_role_credentials(
        &self,
        mut request: GetFleetRoleCredentials,
    ) -> Result<GetFleetRoleCredentialsResult> {
        self.guard(false)?;
        if request.role_arn.is_empty() {
            return Err(GameLiftError::Validation("role_arn is required".to_owned()));
        }
        let now_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
            .unwrap_or_default();
        if let Some(cached) = self.state().role_credentials.get(&request.role_arn)
            && cached.expiration - now_ms > CREDENTIALS_MIN_TTL_MS
        {
            return Ok(cached.clone());
        }
        if request
            .role_session_name
            .as_deref()
            .is_none_or(str::is_empty)
        {
            let config = &self.inner.config;
            let name: String = format!("{}-{}", config.fleet_id, config.host_id)
                .chars()
                .take(ROLE_SESSION_NAME_MAX)
                .collect();
            request.role_session_name = Some(name);
        }
        let role_arn = request.role_arn.clone();
        let timeout = self.inner.config.timing.call_timeout;
        let result: GetFleetRoleCredentialsResult = self
            .call(Request::GetFleetRoleCredentials(request), timeout)
            .await?;
        if result.access_key_id.is_empty() {
            return Err(GameLiftError::Service {
                action: "GetFleetRoleCredentials",
                kind: ErrorKind::BadRequest,
                status: ErrorKind::BadRequest.status(),
                message: "fleet role credentials are only available for servers hosted on a managed fleet".to_owned(),
            });
        }
        self.state()
            .role_credentials
            .insert(role_arn, result.clone());
        Ok(result)
    }

    async fn send(&self, request: Request) -> Result<()> {
        let timeout = self.inner.config.timing.call_timeout;
        self.call::<Empty>(request, timeout).await.map(|_| ())
    }
}

/// Go `ValidatePlayerSessionId`: `^[a-zA-Z0-9.-]+$`, at most 256 characters.
fn check_player_session_id(id: &str) -> Result<()> {
    let valid = !id.is_empty()
        && id.len() <= 256
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-');
    if valid {
        Ok(())
    } else {
        Err(GameLiftError::Validation(format!(
            "player session id {id:?} must be 1 to 256 of a-z, A-Z, 0-9, '.' and '-'"
        )))
    }
}
