//! Typed shortcuts for routes beyond the common ones in lib.rs; each is
//! [`Client::request`] with its frame built from checked ids.

use gamelift_sockets_protocol::ClientRequest;
use gamelift_sockets_protocol::domain::{PlacementId, PlayerId};
use gamelift_sockets_protocol::matchmaking::TicketId;
use gamelift_sockets_protocol::requests::{
    AcceptMatchRequestBody, CancelPlacementBody, PlayerIdsBody, StartMatchmakingRequestBody,
    TicketBody,
};
use serde_json::{Map, Value};

use crate::{Client, ClientError};

fn ticket_id(id: &str) -> Result<TicketId, ClientError> {
    TicketId::parse(id).map_err(|e| ClientError::Invalid(e.to_string()))
}

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

    /// `startMatchmaking` (a solo player's ticket, or a party leader's for the party): the
    /// ack with its `ticketId`; its progress comes as `matchmaking` pushes.
    pub async fn start_matchmaking(
        &self,
        body: StartMatchmakingRequestBody,
    ) -> Result<Map<String, Value>, ClientError> {
        self.request(ClientRequest::StartMatchmaking {
            request_id: None,
            body,
        })
        .await
    }

    /// `acceptMatch`: accept (true) or reject (false) the match proposed to a ticket
    /// (`REQUIRES_ACCEPTANCE`).
    pub async fn accept_match(
        &self,
        ticket: &str,
        accept: bool,
    ) -> Result<Map<String, Value>, ClientError> {
        let ticket_id = ticket_id(ticket)?;
        self.request(ClientRequest::AcceptMatch {
            request_id: None,
            body: AcceptMatchRequestBody { ticket_id, accept },
        })
        .await
    }

    /// `stopMatchmaking` of `ticket` (your live one when `None`); its `CANCELLED` comes as
    /// a `matchmaking` push.
    pub async fn stop_matchmaking(
        &self,
        ticket: Option<&str>,
    ) -> Result<Map<String, Value>, ClientError> {
        let ticket_id = ticket.map(ticket_id).transpose()?;
        self.request(ClientRequest::StopMatchmaking {
            request_id: None,
            body: TicketBody { ticket_id },
        })
        .await
    }
}
