//! Typed shortcuts for routes beyond the common ones in lib.rs; each is
//! [`Client::request_ack`] with its frame built from checked ids, answering the route's
//! ack type.

use gamelift_sockets_protocol::ClientRequest;
use gamelift_sockets_protocol::acks::{
    AcceptMatchAck, CancelPlacementAck, RouteAck, StartMatchmakingAck, SubscribePresenceAck,
    TicketAck, UnsubscribePresenceAck,
};
use gamelift_sockets_protocol::domain::{PlacementId, PlayerId};
use gamelift_sockets_protocol::matchmaking::TicketId;
use gamelift_sockets_protocol::requests::{
    AcceptMatchRequestBody, CancelPlacementBody, PlayerIdsBody, StartMatchmakingRequestBody,
    TicketBody,
};

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
    ) -> Result<SubscribePresenceAck, ClientError> {
        let body = player_ids(ids)?;
        let ack = self.request_ack(ClientRequest::SubscribePresence {
            request_id: None,
            body,
        });
        match ack.await? {
            RouteAck::SubscribePresence(ack) => Ok(ack),
            other => Err(crate::other_ack(&other)),
        }
    }

    /// `unsubscribePresence` from 1–100 players.
    pub async fn unsubscribe_presence(
        &self,
        ids: &[&str],
    ) -> Result<UnsubscribePresenceAck, ClientError> {
        let body = player_ids(ids)?;
        let ack = self.request_ack(ClientRequest::UnsubscribePresence {
            request_id: None,
            body,
        });
        match ack.await? {
            RouteAck::UnsubscribePresence(ack) => Ok(ack),
            other => Err(crate::other_ack(&other)),
        }
    }

    /// `cancelPlacement` of `placement_id` (your pending one when `None`); its
    /// `CANCELLED` result comes as a `placement` push.
    pub async fn cancel_placement(
        &self,
        placement_id: Option<&str>,
    ) -> Result<CancelPlacementAck, ClientError> {
        let placement_id = placement_id
            .map(PlacementId::parse)
            .transpose()
            .map_err(|e| ClientError::Invalid(e.to_string()))?;
        let ack = self.request_ack(ClientRequest::CancelPlacement {
            request_id: None,
            body: CancelPlacementBody { placement_id },
        });
        match ack.await? {
            RouteAck::CancelPlacement(ack) => Ok(ack),
            other => Err(crate::other_ack(&other)),
        }
    }

    /// `startMatchmaking` (a solo player's ticket, or a party leader's for the party): the
    /// ack with its `ticketId`; its progress comes as `matchmaking` pushes.
    pub async fn start_matchmaking(
        &self,
        body: StartMatchmakingRequestBody,
    ) -> Result<StartMatchmakingAck, ClientError> {
        let ack = self.request_ack(ClientRequest::StartMatchmaking {
            request_id: None,
            body,
        });
        match ack.await? {
            RouteAck::StartMatchmaking(ack) => Ok(ack),
            other => Err(crate::other_ack(&other)),
        }
    }

    /// `acceptMatch`: accept (true) or reject (false) the match proposed to a ticket
    /// (`REQUIRES_ACCEPTANCE`).
    pub async fn accept_match(
        &self,
        ticket: &str,
        accept: bool,
    ) -> Result<AcceptMatchAck, ClientError> {
        let ticket_id = ticket_id(ticket)?;
        let ack = self.request_ack(ClientRequest::AcceptMatch {
            request_id: None,
            body: AcceptMatchRequestBody { ticket_id, accept },
        });
        match ack.await? {
            RouteAck::AcceptMatch(ack) => Ok(ack),
            other => Err(crate::other_ack(&other)),
        }
    }

    /// `stopMatchmaking` of `ticket` (your live one when `None`); its `CANCELLED` comes as
    /// a `matchmaking` push.
    pub async fn stop_matchmaking(&self, ticket: Option<&str>) -> Result<TicketAck, ClientError> {
        let ticket_id = ticket.map(ticket_id).transpose()?;
        let ack = self.request_ack(ClientRequest::StopMatchmaking {
            request_id: None,
            body: TicketBody { ticket_id },
        });
        match ack.await? {
            RouteAck::StopMatchmaking(ack) => Ok(ack),
            other => Err(crate::other_ack(&other)),
        }
    }
}
