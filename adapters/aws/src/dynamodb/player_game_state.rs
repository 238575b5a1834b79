//! The Players item's game state on DynamoDB (the pending placement, the seat, the
//! placement and matchmaking profile): what `sessionPlacementRequest`, the placement
//! clean-up and `rejoinSession` write, each one conditional UpdateItem.

use async_trait::async_trait;
use aws_sdk_dynamodb::operation::update_item::UpdateItemError;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnValuesOnConditionCheckFailure};

use super::error::store_error;
use super::item::{Item, s};
use super::player_item::{
    attr, attributes_value, game_session_value, key, latencies_value, party_of, pending_of,
    pending_value,
};
use super::player_store::DynamoPlayerStore;
use crate::calls::{AwsCall, Calls};
use shared::domain::{GameSession, PlayerId};
use shared::pending::{Pending, Reservation};
use shared::ports::{PendingSlots, Profiles, Seats, StoreError};

/// One pending placement per player; the failed condition returns the item (ALL_OLD),
/// so a conflict names the pending placement without a second read.
const BEGIN_PLACEMENT_UPDATE: &str =
    "SET pendingPlacementId = :pending, lastPlacementId = :placementId";
/// A party member's placement is their leader's, for the whole party: so a solo
/// placement also needs the player in no party.
pub(crate) const BEGIN_PLACEMENT_CONDITION: &str =
    "attribute_not_exists(pendingPlacementId) AND attribute_not_exists(partyId)";
/// Removes the id from the one-element set: a later placement's id stays.
const ABANDON_PLACEMENT_UPDATE: &str = "DELETE pendingPlacementId :pending";
const UPDATE_GAME_SESSION: &str = "SET gameSession = :gameSession";
const SAME_GAME_CONDITION: &str = "gameSession.gameSessionArn = :gameSessionArn";
/// A refresh's details are for one player session: a rejoin's newer one is kept.
const SAME_PLAYER_SESSION_CONDITION: &str = "gameSession.playerSessionId = :playerSessionId";
/// A seat in another game (`joinFriendGame`): the player's, whatever they had.
const TAKE_SEAT: &str = "SET gameSession = :gameSession REMOVE endedGameSessionArn";
/// The seat goes, and the game is remembered as over for `rejoinSession`.
const END_GAME_SESSION: &str = "REMOVE gameSession SET endedGameSessionArn = :gameSessionArn";
/// One attribute of the profile, named `#attribute`.
const SET_ATTRIBUTE: &str = "SET #attribute = :value";
/// Tries of `begin_placement` when the pending placement it collided with ended before
/// it could be named.
const BEGIN_PLACEMENT_ATTEMPTS: u32 = 3;
/// Writes that create nothing: the player's item must be there.
const PLAYER_EXISTS: &str = "attribute_exists(playerId)";

#[async_trait]
impl PendingSlots for DynamoPlayerStore {
    async fn reserve(
        &self,
        player: &PlayerId,
        pending: &Pending,
    ) -> Result<Reservation, StoreError> {
        for _ in 0..BEGIN_PLACEMENT_ATTEMPTS {
            let result = self
                .update_player(player)
                .update_expression(BEGIN_PLACEMENT_UPDATE)
                .condition_expression(BEGIN_PLACEMENT_CONDITION)
                .expression_attribute_values(":pending", pending_value(pending)?)
                .expression_attribute_values(":placementId", s(pending.stored()))
                .return_values_on_condition_check_failure(
                    ReturnValuesOnConditionCheckFailure::AllOld,
                )
                .send()
                .await;
            let err = match result {
                Ok(_) => return Ok(Reservation::Reserved),
                Err(err) => err,
            };
            let returned = match err.as_service_error() {
                Some(UpdateItemError::ConditionalCheckFailedException(failed)) => {
                    Some(failed.item().map(why_not_begun).transpose()?.flatten())
                }
                _ => None,
            };
            match returned {
                Some(Some(refused)) => return Ok(refused),
                // An endpoint that does not return the item: read it.
                Some(None) => {
                    if let Some(refused) = self.read_why_not_begun(player).await? {
                        return Ok(refused);
                    }
                    // It ended meanwhile: try again.
                }
                None => return Err(store_error(err)),
            }
        }
        Err(StoreError::Unavailable(
            format!(
                "pendingPlacementId of {player} kept changing over {BEGIN_PLACEMENT_ATTEMPTS} attempts"
            )
            .into(),
        ))
    }

    /// A player no longer there has nothing to release.
    async fn release(&self, player: &PlayerId, pending: &Pending) -> Result<(), StoreError> {
        let values = [(":pending", pending_value(pending)?)];
        self.update_if(player, ABANDON_PLACEMENT_UPDATE, PLAYER_EXISTS, &[], values)
            .await
            .map(drop)
    }
}

impl Calls<dyn PendingSlots> for DynamoPlayerStore {
    /// The conditional write, and the item read when an endpoint returns no old image.
    fn calls(&self) -> Vec<AwsCall> {
        AwsCall::on_table(self.table(), &["UpdateItem", "GetItem"])
    }
}

#[async_trait]
impl Seats for DynamoPlayerStore {
    async fn update_game_session(
        &self,
        player: &PlayerId,
        session: &GameSession,
    ) -> Result<bool, StoreError> {
        let guard = (":gameSessionArn", s(&session.game_session_arn));
        self.set_seat_if(player, session, SAME_GAME_CONDITION, guard)
            .await
    }

    async fn refresh_seat(
        &self,
        player: &PlayerId,
        session: &GameSession,
    ) -> Result<bool, StoreError> {
        let guard = (":playerSessionId", s(&session.player_session_id));
        self.set_seat_if(player, session, SAME_PLAYER_SESSION_CONDITION, guard)
            .await
    }

    async fn take_seat(&self, player: &PlayerId, session: &GameSession) -> Result<(), StoreError> {
        self.update_player(player)
            .update_expression(TAKE_SEAT)
            .expression_attribute_values(":gameSession", game_session_value(session)?)
            .send()
            .await
            .map(drop)
            .map_err(store_error)
    }

    async fn end_game_session(
        &self,
        player: &PlayerId,
        game_session_arn: &str,
    ) -> Result<bool, StoreError> {
        let values = [(":gameSessionArn", s(game_session_arn))];
        self.update_if(player, END_GAME_SESSION, SAME_GAME_CONDITION, &[], values)
            .await
    }
}

impl Calls<dyn Seats> for DynamoPlayerStore {
    fn calls(&self) -> Vec<AwsCall> {
        AwsCall::on_table(self.table(), &["UpdateItem"])
    }
}

/// Each sets one attribute of the player's item, one conditional write: `false` when no
/// player has that id (nothing is created).
#[async_trait]
impl Profiles for DynamoPlayerStore {
    async fn set_placement_latencies(
        &self,
        player: &PlayerId,
        latencies: &[(String, u32)],
    ) -> Result<bool, StoreError> {
        let names = [("#attribute", "placementLatencies")];
        let values = [(":value", latencies_value(latencies)?)];
        self.update_if(player, SET_ATTRIBUTE, PLAYER_EXISTS, &names, values)
            .await
    }

    async fn set_matchmaking_attributes(
        &self,
        player: &PlayerId,
        attributes: &shared::matchmaking::Attributes,
    ) -> Result<bool, StoreError> {
        let names = [("#attribute", "matchmakingAttributes")];
        let values = [(":value", attributes_value(attributes))];
        self.update_if(player, SET_ATTRIBUTE, PLAYER_EXISTS, &names, values)
            .await
    }
}

impl Calls<dyn Profiles> for DynamoPlayerStore {
    fn calls(&self) -> Vec<AwsCall> {
        AwsCall::on_table(self.table(), &["UpdateItem"])
    }
}

impl DynamoPlayerStore {
    /// Writes the seat if `condition` holds, on `guard`, its one value.
    async fn set_seat_if(
        &self,
        player: &PlayerId,
        session: &GameSession,
        condition: &str,
        guard: (&str, AttributeValue),
    ) -> Result<bool, StoreError> {
        let values = [(":gameSession", game_session_value(session)?), guard];
        self.update_if(player, UPDATE_GAME_SESSION, condition, &[], values)
            .await
    }

    /// Why a placement could not begin, from the player's item read on its own
    /// (strongly consistent).
    async fn read_why_not_begun(
        &self,
        player: &PlayerId,
    ) -> Result<Option<Reservation>, StoreError> {
        let output = self
            .client
            .get_item()
            .table_name(self.table())
            .set_key(Some(key(player)))
            .projection_expression("#pending, #party")
            .expression_attribute_names("#pending", attr::PENDING_PLACEMENT_ID)
            .expression_attribute_names("#party", attr::PARTY_ID)
            .consistent_read(true)
            .send()
            .await
            .map_err(store_error)?;
        Ok(output.item().map(why_not_begun).transpose()?.flatten())
    }
}

/// What in the item stopped a placement from beginning: the party first (a member
/// places only through the leader), then a pending placement.
fn why_not_begun(item: &Item) -> Result<Option<Reservation>, StoreError> {
    if let Some(party) = party_of(item)? {
        return Ok(Some(Reservation::InParty(party)));
    }
    Ok(pending_of(item)?.map(Reservation::Taken))
}
