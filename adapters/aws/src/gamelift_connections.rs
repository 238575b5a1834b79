//! [`PlayerConnections`] on Amazon GameLift, with `aws-sdk-gamelift`:
//! GetPlayerConnectionDetails on [`SdkGameLift`]'s client, in batches of
//! [`MAX_PLAYERS_PER_CONNECTION_DETAILS_CALL`] players. Errors map as the placement calls'
//! do (`gamelift.rs`: modeled error, then code, then transport), but a read cannot have
//! done anything, so what would be an unknown outcome for a write is `Unavailable`.

use async_trait::async_trait;
use aws_sdk_gamelift::operation::get_player_connection_details::GetPlayerConnectionDetailsError;
use aws_sdk_gamelift::types::PlayerConnectionDetail;
use tracing::warn;

use super::gamelift::{SdkGameLift, gamelift_error, modeled};
use crate::calls::{AwsCall, Calls, Resource};
use shared::domain::{
    ConnectionDetails, ConnectionEndpoint, MAX_PLAYER_GATEWAY_TOKEN_CHARS, PlayerId,
};
use shared::ports::gamelift::{
    GameLiftError, MAX_PLAYERS_PER_CONNECTION_DETAILS_CALL, PlayerConnection, PlayerConnections,
};

#[async_trait]
impl PlayerConnections for SdkGameLift {
    async fn get_player_connection_details(
        &self,
        game_session_arn: &str,
        players: &[PlayerId],
    ) -> Result<Vec<PlayerConnection>, GameLiftError> {
        let mut connections = Vec::with_capacity(players.len());
        for batch in players.chunks(MAX_PLAYERS_PER_CONNECTION_DETAILS_CALL) {
            let output = self
                .client
                .get_player_connection_details()
                .game_session_id(game_session_arn)
                .set_player_ids(Some(batch.iter().map(|p| p.as_str().to_owned()).collect()))
                .send()
                .await
                .map_err(|err| read_only(gamelift_error(err)))?;
            for detail in output.player_connection_details() {
                match connection(detail, batch) {
                    Ok(found) => connections.push(found),
                    // One player's unusable entry leaves the others theirs.
                    Err(problem) => {
                        warn!(
                            game_session_arn,
                            problem, "GetPlayerConnectionDetails entry skipped"
                        );
                    }
                }
            }
        }
        Ok(connections)
    }
}

impl Calls<dyn PlayerConnections> for SdkGameLift {
    /// No resource type: IAM matches it on `*` only.
    fn calls(&self) -> Vec<AwsCall> {
        vec![AwsCall::new(
            "gamelift:GetPlayerConnectionDetails",
            Resource::Any,
        )]
    }
}

/// Nothing is changed by a read: retrying it is always safe, whatever the answer was.
fn read_only(error: GameLiftError) -> GameLiftError {
    match error {
        GameLiftError::OutcomeUnknown(source) => GameLiftError::Unavailable(source),
        other => other,
    }
}

/// One player's entry, read: a player asked for, at least one endpoint with an address
/// and a port, and a token (when there is one) with its expiry.
fn connection(
    detail: &PlayerConnectionDetail,
    asked: &[PlayerId],
) -> Result<PlayerConnection, String> {
    let player_id = detail
        .player_id()
        .and_then(|id| asked.iter().find(|p| p.as_str() == id))
        .ok_or_else(|| {
            format!(
                "an entry for a player not asked for: {:?}",
                detail.player_id()
            )
        })?
        .clone();
    let endpoints: Vec<ConnectionEndpoint> = detail
        .endpoints()
        .iter()
        .filter_map(|endpoint| {
            let ip_address = endpoint.ip_address().filter(|ip| !ip.is_empty())?;
            let port = endpoint.port().and_then(|p| u16::try_from(p).ok())?;
            Some(ConnectionEndpoint {
                ip_address: ip_address.to_owned(),
                port,
            })
        })
        .collect();
    if endpoints.is_empty() {
        return Err(format!("no usable endpoint for {player_id}"));
    }
    let token = detail
        .player_gateway_token()
        .filter(|token| !token.is_empty())
        .map(str::to_owned);
    if token
        .as_ref()
        .is_some_and(|t| t.chars().count() > MAX_PLAYER_GATEWAY_TOKEN_CHARS)
    {
        return Err(format!(
            "a token over {MAX_PLAYER_GATEWAY_TOKEN_CHARS} characters for {player_id}"
        ));
    }
    let expires_at = match detail.expiration() {
        Some(at) => Some(
            at.to_millis()
                .map_err(|e| format!("an unreadable expiration for {player_id}: {e}"))?,
        ),
        None => None,
    };
    // A token that never expires would never be refreshed: GameLift always dates them.
    if token.is_some() && expires_at.is_none() {
        return Err(format!("a token without an expiration for {player_id}"));
    }
    Ok(PlayerConnection {
        player_id,
        details: ConnectionDetails {
            endpoints,
            player_gateway_token: token,
            expires_at,
        },
    })
}

modeled!(GetPlayerConnectionDetailsError {
    InvalidRequestException => InvalidRequest,
    NotFoundException => NotFound,
    // The game session is not ACTIVE: over, for its players.
    InvalidGameSessionStatusException => SessionEnded,
    LimitExceededException => Unavailable,
    InternalServiceException => OutcomeUnknown,
    UnauthorizedException => Other,
    UnsupportedRegionException => Other,
});

#[cfg(test)]
mod tests;
