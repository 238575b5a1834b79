//! The Players item's game state on DynamoDB (the pending placement, the seat): what
//! `sessionPlacementRequest`, the placement clean-up and `rejoinSession` write, each one
//! conditional UpdateItem. The ports' impls in `player_store.rs` delegate here.

use aws_sdk_dynamodb::operation::update_item::UpdateItemError;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnValuesOnConditionCheckFailure};

use super::error::{Failure, applied, classify, store_error};
use super::item::{Item, s};
use super::player_item::{
    attr, attributes_value, game_session_value, key, latencies_value, party_of, pending_of,
    pending_value,
};
use super::player_store::DynamoPlayerStore;
use shared::domain::{GameSession, PlayerId};
use shared::pending::{Pending, Reservation};
use shared::ports::StoreError;

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
/// Tries of `begin_placement` when the pending placement it collided with ended before
/// it could be named.
const BEGIN_PLACEMENT_ATTEMPTS: u32 = 3;

impl DynamoPlayerStore {
    pub(super) async fn reserve_now(
        &self,
        player: &PlayerId,
        pending: &Pending,
    ) -> Result<Reservation, StoreError> {
        for _ in 0..BEGIN_PLACEMENT_ATTEMPTS {
            let result = self
                .client
                .update_item()
                .table_name(self.table())
                .set_key(Some(key(player)))
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

    pub(super) async fn release_now(
        &self,
        player: &PlayerId,
        pending: &Pending,
    ) -> Result<(), StoreError> {
        let result = self
            .client
            .update_item()
            .table_name(self.table())
            .set_key(Some(key(player)))
            .update_expression(ABANDON_PLACEMENT_UPDATE)
            .condition_expression("attribute_exists(playerId)")
            .expression_attribute_values(":pending", pending_value(pending)?)
            .send()
            .await;
        match result {
            Ok(_) => Ok(()),
            Err(err) => match classify(err) {
                Failure::ConditionFailed => Ok(()),
                Failure::Store(err) => Err(err),
            },
        }
    }

    pub(super) async fn update_game_session_now(
        &self,
        player: &PlayerId,
        session: &GameSession,
    ) -> Result<bool, StoreError> {
        let result = self
            .client
            .update_item()
            .table_name(self.table())
            .set_key(Some(key(player)))
            .update_expression(UPDATE_GAME_SESSION)
            .condition_expression(SAME_GAME_CONDITION)
            .expression_attribute_values(":gameSession", game_session_value(session)?)
            .expression_attribute_values(":gameSessionArn", s(&session.game_session_arn))
            .send()
            .await;
        applied(result)
    }

    pub(super) async fn refresh_seat_now(
        &self,
        player: &PlayerId,
        session: &GameSession,
    ) -> Result<bool, StoreError> {
        let result = self
            .client
            .update_item()
            .table_name(self.table())
            .set_key(Some(key(player)))
            .update_expression(UPDATE_GAME_SESSION)
            .condition_expression(SAME_PLAYER_SESSION_CONDITION)
            .expression_attribute_values(":gameSession", game_session_value(session)?)
            .expression_attribute_values(":playerSessionId", s(&session.player_session_id))
            .send()
            .await;
        applied(result)
    }

    pub(super) async fn take_seat_now(
        &self,
        player: &PlayerId,
        session: &GameSession,
    ) -> Result<(), StoreError> {
        self.client
            .update_item()
            .table_name(self.table())
            .set_key(Some(key(player)))
            .update_expression(TAKE_SEAT)
            .expression_attribute_values(":gameSession", game_session_value(session)?)
            .send()
            .await
            .map(|_| ())
            .map_err(store_error)
    }

    pub(super) async fn end_game_session_now(
        &self,
        player: &PlayerId,
        game_session_arn: &str,
    ) -> Result<bool, StoreError> {
        let result = self
            .client
            .update_item()
            .table_name(self.table())
            .set_key(Some(key(player)))
            .update_expression(END_GAME_SESSION)
            .condition_expression(SAME_GAME_CONDITION)
            .expression_attribute_values(":gameSessionArn", s(game_session_arn))
            .send()
            .await;
        applied(result)
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

    pub(super) async fn set_placement_latencies_now(
        &self,
        player: &PlayerId,
        latencies: &[(String, u32)],
    ) -> Result<bool, StoreError> {
        self.set_on_player(player, "placementLatencies", latencies_value(latencies)?)
            .await
    }

    pub(super) async fn set_matchmaking_attributes_now(
        &self,
        player: &PlayerId,
        attributes: &shared::matchmaking::Attributes,
    ) -> Result<bool, StoreError> {
        self.set_on_player(
            player,
            "matchmakingAttributes",
            attributes_value(attributes),
        )
        .await
    }

    /// Sets one attribute of the player's item, one conditional write: `false` when no
    /// player has that id (nothing is created).
    async fn set_on_player(
        &self,
        player: &PlayerId,
        name: &str,
        value: AttributeValue,
    ) -> Result<bool, StoreError> {
        let result = self
            .client
            .update_item()
            .table_name(self.table())
            .set_key(Some(key(player)))
            .update_expression("SET #attribute = :value")
            .condition_expression("attribute_exists(playerId)")
            .expression_attribute_names("#attribute", name)
            .expression_attribute_values(":value", value)
            .send()
            .await;
        applied(result)
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
