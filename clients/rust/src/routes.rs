//! Typed shortcuts for routes beyond the common ones in lib.rs (presence, placements,
//! matchmaking, friends, activity); each is
//! [`Client::request_ack`] with its frame built from checked ids, answering the route's
//! ack type.

use gamelift_sockets_protocol::ClientRequest;
use gamelift_sockets_protocol::acks::{
    AcceptMatchAck, CancelPlacementAck, FriendAck, ListFriendsAck, RouteAck, StartMatchmakingAck,
    SubscribePresenceAck, TicketAck, UnsubscribePresenceAck,
};
use gamelift_sockets_protocol::activity::{Activity, ActivityText};
use gamelift_sockets_protocol::domain::{GameSession, PlacementId, PlayerId};
use gamelift_sockets_protocol::friends::FriendState;
use gamelift_sockets_protocol::matchmaking::TicketId;
use gamelift_sockets_protocol::requests::{
    AcceptMatchRequestBody, CancelPlacementBody, ListFriendsBody, PlayerBody, PlayerIdsBody,
    StartMatchmakingRequestBody, TicketBody,
};

use serde_json::{Map, Value};

use crate::{Client, ClientError};

fn ticket_id(id: &str) -> Result<TicketId, ClientError> {
    TicketId::parse(id).map_err(|e| ClientError::Invalid(e.to_string()))
}

fn player_id(id: &str) -> Result<PlayerId, ClientError> {
    PlayerId::parse(id).map_err(|e| ClientError::Invalid(e.to_string()))
}

fn player_ids(ids: &[&str]) -> Result<PlayerIdsBody, ClientError> {
    let player_ids = ids
        .iter()
        .map(|id| player_id(id))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(PlayerIdsBody { player_ids })
}

/// `player` as a friend route's body.
fn player_body(player: &str) -> Result<PlayerBody, ClientError> {
    Ok(PlayerBody {
        player_id: player_id(player)?,
    })
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

    /// `addFriend`: invites `player` (or accepts their invitation); the ack's `state` is
    /// your side after it (`invited` or `friends`), each change also a `friend` push.
    pub async fn add_friend(&self, player: &str) -> Result<FriendAck, ClientError> {
        self.friend_change(player, |body| ClientRequest::AddFriend {
            request_id: None,
            body,
        })
        .await
    }

    /// `removeFriend`: ends a friendship, declines their invitation or withdraws yours.
    pub async fn remove_friend(&self, player: &str) -> Result<FriendAck, ClientError> {
        self.friend_change(player, |body| ClientRequest::RemoveFriend {
            request_id: None,
            body,
        })
        .await
    }

    /// `blockPlayer`: nothing of `player`'s reaches you; a friendship between you ends.
    pub async fn block_player(&self, player: &str) -> Result<FriendAck, ClientError> {
        self.friend_change(player, |body| ClientRequest::BlockPlayer {
            request_id: None,
            body,
        })
        .await
    }

    /// `unblockPlayer`.
    pub async fn unblock_player(&self, player: &str) -> Result<FriendAck, ClientError> {
        self.friend_change(player, |body| ClientRequest::UnblockPlayer {
            request_id: None,
            body,
        })
        .await
    }

    /// The four friend changes: `request` with `player` as its body, acked with a
    /// [`FriendAck`].
    async fn friend_change(
        &self,
        player: &str,
        request: fn(PlayerBody) -> ClientRequest,
    ) -> Result<FriendAck, ClientError> {
        let request = request(player_body(player)?);
        match self.request_ack(request).await? {
            RouteAck::AddFriend(ack)
            | RouteAck::RemoveFriend(ack)
            | RouteAck::BlockPlayer(ack)
            | RouteAck::UnblockPlayer(ack) => Ok(ack),
            other => Err(crate::other_ack(&other)),
        }
    }

    /// `listFriends`: a page of your relations (only those in `state`, if given; friends
    /// with their presence) after `cursor`, the previous page's.
    pub async fn list_friends(
        &self,
        state: Option<FriendState>,
        cursor: Option<&str>,
    ) -> Result<ListFriendsAck, ClientError> {
        let cursor = cursor.map(player_id).transpose()?;
        let ack = self.request_ack(ClientRequest::ListFriends {
            request_id: None,
            body: ListFriendsBody { state, cursor },
        });
        match ack.await? {
            RouteAck::ListFriends(ack) => Ok(ack),
            other => Err(crate::other_ack(&other)),
        }
    }

    /// `setActivity`: what you are doing (at most 64 characters; `details` an object of at
    /// most 512 bytes serialized), pushed in `presence` frames to your friends and
    /// subscribers until you set another or go offline; `""` with no `details` clears it.
    /// Answers what was stored.
    pub async fn set_activity(
        &self,
        activity: &str,
        details: Option<Map<String, Value>>,
    ) -> Result<Activity, ClientError> {
        let activity = ActivityText::parse(activity)
            .map_err(|e| ClientError::Invalid(format!("`activity` {e}")))?;
        let ack = self.request_ack(ClientRequest::SetActivity {
            request_id: None,
            body: Activity { activity, details },
        });
        match ack.await? {
            RouteAck::SetActivity(ack) => Ok(ack),
            other => Err(crate::other_ack(&other)),
        }
    }

    /// `joinFriendGame`: a new player session in the game `player` (a friend) is seated
    /// in, which becomes your seat, as [`Client::rejoin_session`]'s. Refused `forbidden`
    /// (not friends), `not_found` (in no game), `session_full` or `session_ended`.
    pub async fn join_friend_game(&self, player: &str) -> Result<GameSession, ClientError> {
        self.seat_of(ClientRequest::JoinFriendGame {
            request_id: None,
            body: player_body(player)?,
        })
        .await
    }
}
