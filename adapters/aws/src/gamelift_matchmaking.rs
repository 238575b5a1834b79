//! [`Matchmaker`] on Amazon GameLift FlexMatch, with `aws-sdk-gamelift`:
//! StartMatchmaking, AcceptMatch and StopMatchmaking on [`SdkGameLift`]'s client. Errors
//! map exactly as the placement calls' do (`gamelift.rs`): modeled error, then code,
//! then transport.

use std::collections::HashMap;

use async_trait::async_trait;
use aws_sdk_gamelift::operation::accept_match::AcceptMatchError;
use aws_sdk_gamelift::operation::start_matchmaking::StartMatchmakingError;
use aws_sdk_gamelift::operation::stop_matchmaking::StopMatchmakingError;
use aws_sdk_gamelift::types::{AcceptanceType, AttributeValue as SdkAttribute, Player};

use super::gamelift::{SdkGameLift, gamelift_error, modeled};
use crate::calls::{AwsCall, Calls, Resource};
use shared::domain::PlayerId;
use shared::matchmaking::{AttributeValue, TicketId};
use shared::matchmaking::{MatchmakingPlayer, MatchmakingRequest};
use shared::ports::GameLiftError;
use shared::ports::Matchmaker;

#[async_trait]
impl Matchmaker for SdkGameLift {
    async fn start_matchmaking(&self, request: &MatchmakingRequest) -> Result<(), GameLiftError> {
        let players: Vec<Player> = request.players.iter().map(player).collect();
        self.client
            .start_matchmaking()
            .ticket_id(request.ticket_id.as_str())
            .configuration_name(&request.configuration)
            .set_players(Some(players))
            .send()
            .await
            .map(|_| ())
            .map_err(gamelift_error)
    }

    async fn accept_match(
        &self,
        ticket_id: &TicketId,
        players: &[PlayerId],
        accept: bool,
    ) -> Result<(), GameLiftError> {
        let acceptance = if accept {
            AcceptanceType::Accept
        } else {
            AcceptanceType::Reject
        };
        self.client
            .accept_match()
            .ticket_id(ticket_id.as_str())
            .set_player_ids(Some(
                players.iter().map(|p| p.as_str().to_owned()).collect(),
            ))
            .acceptance_type(acceptance)
            .send()
            .await
            .map(|_| ())
            .map_err(gamelift_error)
    }

    async fn stop_matchmaking(&self, ticket_id: &TicketId) -> Result<(), GameLiftError> {
        self.client
            .stop_matchmaking()
            .ticket_id(ticket_id.as_str())
            .send()
            .await
            .map(|_| ())
            .map_err(gamelift_error)
    }
}

impl Calls<dyn Matchmaker> for SdkGameLift {
    /// No resource type for any of them: IAM matches them on `*` only.
    fn calls(&self) -> Vec<AwsCall> {
        ["StartMatchmaking", "AcceptMatch", "StopMatchmaking"]
            .into_iter()
            .map(|action| AwsCall::new(format!("gamelift:{action}"), Resource::Any))
            .collect()
    }
}

/// A ticket's player: attributes as FlexMatch types them (`N`, `S`, `SL`, `SDM`), and
/// latencies only when the client reported some.
fn player(player: &MatchmakingPlayer) -> Player {
    let attributes: HashMap<String, SdkAttribute> = player
        .attributes
        .iter()
        .map(|(name, value)| (name.clone(), attribute(value)))
        .collect();
    let latencies: HashMap<String, i32> = player
        .latencies
        .iter()
        // Milliseconds from a client are ≤ 10 000: they fit.
        .map(|(region, millis)| (region.clone(), i32::try_from(*millis).unwrap_or(i32::MAX)))
        .collect();
    Player::builder()
        .player_id(player.player_id.as_str())
        .set_player_attributes((!attributes.is_empty()).then_some(attributes))
        .set_latency_in_ms((!latencies.is_empty()).then_some(latencies))
        .build()
}

fn attribute(value: &AttributeValue) -> SdkAttribute {
    let builder = SdkAttribute::builder();
    match value {
        AttributeValue::Number(n) => builder.n(*n),
        AttributeValue::String(s) => builder.s(s),
        AttributeValue::StringList(items) => builder.set_sl(Some(items.clone())),
        AttributeValue::StringNumberMap(entries) => {
            builder.set_sdm(Some(entries.iter().map(|(k, v)| (k.clone(), *v)).collect()))
        }
    }
    .build()
}

/// The three operations model the same four errors.
macro_rules! modeled_matchmaking_error {
    ($error:ty) => {
        modeled!($error {
            InvalidRequestException => InvalidRequest,
            NotFoundException => NotFound,
            InternalServiceException => OutcomeUnknown,
            UnsupportedRegionException => Other,
        });
    };
}

modeled_matchmaking_error!(StartMatchmakingError);
modeled_matchmaking_error!(AcceptMatchError);
modeled_matchmaking_error!(StopMatchmakingError);

#[cfg(test)]
mod tests;
