//! Typed shortcuts for routes beyond the common ones in lib.rs; each is
//! [`Client::request`] with its frame built from checked ids.

use gamelift_sockets_protocol::ClientRequest;
use gamelift_sockets_protocol::domain::{PlacementId, PlayerId};
use gamelift_sockets_protocol::requests::{CancelPlacementBody, PlayerIdsBody};
use serde_json::{Map, Value};

use crate::{Client, ClientError};

fn player_ids(ids: &[&str]) -> Result<PlayerIdsBody, ClientError> {
    let player_ids = ids
        .iter()
        .map(|id| PlayerId::parse(*id))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| ClientError::Invalid(e.to_string()))?;
    Ok(PlayerIdsBody { player_ids })
}

impl Client {
    /// `subscribePresence` to 1–100 players: the ack, whose `presence` maps each to its
    /// status now; changes come as `presence` pushes.
    pub async fn subscribe_presence(
        &self,
        ids: &[&str],
    ) -> Result<Map<String, Value>, ClientError> {
        let body = player_ids(ids)?;
        self.request(ClientRequest::SubscribePresence {
            request_id: None,
            body,
        })
        .await
    }

    /// `unsubscribePresence` from 1–100 players.
    pub async fn unsubscribe_presence(
        &self,
        ids: &[&str],
    ) -> Result<Map<String, Value>, ClientError> {
        let body = player_ids(ids)?;
        self.request(ClientRequest::UnsubscribePresence {
            request_id: None,
            body,
        })
        .await
    }

    /// `cancelPlacement` of `placement_id` (your pending one when `None`); its
    /// `CANCELLED` result comes as a `placement` push.
    pub async fn cancel_placement(
        &self,
        placement_id: Option<&str>,
    ) -> Result<Map<String, Value>, ClientError> {
        let placement_id = placement_id
            .map(PlacementId::parse)
            .transpose()
            .map_err(|e| ClientError::Invalid(e.to_string()))?;
        self.request(ClientRequest::CancelPlacement {
            request_id: None,
            body: CancelPlacementBody { placement_id },
        })
        .await
    }
}
