//! Typed shortcuts for routes beyond the common ones in lib.rs (presence, placements,
//! matchmaking, friends, activity); each is `ask!` ([`Client::request_ack`]) with its
//! frame built from checked ids, answering the route's ack type.

use gamelift_sockets_protocol::acks::{
    AcceptMatchAck, CancelPlacementAck, FriendAck, ListFriendsAck, StartMatchmakingAck,
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
        ask!(self, SubscribePresence, player_ids(ids)?)
    }

    /// `unsubscribePresence` from 1–100 players.
    pub async fn unsubscribe_presence(
        &self,
        ids: &[&str],
    ) -> Result<UnsubscribePresenceAck, ClientError> {
        ask!(self, UnsubscribePresence, player_ids(ids)?)
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
        ask!(self, CancelPlacement, CancelPlacementBody { placement_id })
    }

    /// `startMatchmaking` (a solo player's ticket, or a party leader's for the party): the
    /// ack with its `ticketId`; its progress comes as `matchmaking` pushes.
    pub async fn start_matchmaking(
        &self,
        body: StartMatchmakingRequestBody,
    ) -> Result<StartMatchmakingAck, ClientError> {
        ask!(self, StartMatchmaking, body)
    }

    /// `acceptMatch`: accept (true) or reject (false) the match proposed to a ticket
    /// (`REQUIRES_ACCEPTANCE`).
    pub async fn accept_match(
        &self,
        ticket: &str,
        accept: bool,
    ) -> Result<AcceptMatchAck, ClientError> {
        let ticket_id = ticket_id(ticket)?;
        ask!(
            self,
            AcceptMatch,
            AcceptMatchRequestBody { ticket_id, accept }
        )
    }

    /// `stopMatchmaking` of `ticket` (your live one when `None`); its `CANCELLED` comes as
    /// a `matchmaking` push.
    pub async fn stop_matchmaking(&self, ticket: Option<&str>) -> Result<TicketAck, ClientError> {
        let ticket_id = ticket.map(ticket_id).transpose()?;
        ask!(self, StopMatchmaking, TicketBody { ticket_id })
    }

    /// `addFriend`: invites `player` (or accepts their invitation); the ack's `state` is
    /// your side after it (`invited` or `friends`), each change also a `friend` push.
    pub async fn add_friend(&self, player: &str) -> Result<FriendAck, ClientError> {
        ask!(self, AddFriend, player_body(player)?)
    }

    /// `removeFriend`: ends a friendship, declines their invitation or withdraws yours.
    pub async fn remove_friend(&self, player: &str) -> Result<FriendAck, ClientError> {
        ask!(self, RemoveFriend, player_body(player)?)
    }

    /// `blockPlayer`: nothing of `player`'s reaches you; a friendship between you ends.
    pub async fn block_player(&self, player: &str) -> Result<FriendAck, ClientError> {
        ask!(self, BlockPlayer, player_body(player)?)
    }

    /// `unblockPlayer`.
    pub async fn unblock_player(&self, player: &str) -> Result<FriendAck, ClientError> {
        ask!(self, UnblockPlayer, player_body(player)?)
    }

    /// `listFriends`: a page of your relations (only those in `state`, if given; friends
    /// with their presence and activity) after `cursor`, the previous page's.
    pub async fn list_friends(
        &self,
        state: Option<FriendState>,
        cursor: Option<&str>,
    ) -> Result<ListFriendsAck, ClientError> {
        let cursor = cursor.map(player_id).transpose()?;
        ask!(self, ListFriends, ListFriendsBody { state, cursor })
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
        ask!(self, SetActivity, Activity { activity, details })
    }

    /// `joinFriendGame`: a new player session in the game `player` (a friend) is seated
    /// in, which becomes your seat, as [`Client::rejoin_session`]'s. Refused `forbidden`
    /// (not friends), `not_found` (in no game), `session_full` or `session_ended`.
    pub async fn join_friend_game(&self, player: &str) -> Result<GameSession, ClientError> {
        ask!(self, JoinFriendGame, player_body(player)?).map(|ack| ack.game_session)
    }
}
