//! Every request a client may send, typed: the `ClientFrame` of the JSON Schema, what
//! the Rust client writes and what the server reads ([`ClientRequest::from_frame`]: each
//! route's body deserialized into its type here, unknown body fields ignored). A
//! constraint the server enforces is in these types, so the schema states it too.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::acks::*;
use crate::activity::Activity;
use crate::domain::{PlacementId, PlayerId, Seq};
use crate::friends::FriendState;
use crate::latencies::Latencies;
use crate::matchmaking::{PlayerAttributes, TicketId};
use crate::party::{PartyId, PartySize};

pub mod body;
#[macro_use]
mod declare;
pub(crate) mod fields;
mod send_message;

pub use fields::{
    ActivityText, ConfigurationName, HeartbeatBody, MAX_ACTIVITY_CHARS, MAX_GAMELIFT_NAME_CHARS,
    MAX_PLAYER_DATA_CHARS, PlayerData, QueueName,
};
pub use send_message::SendMessageBody;

// The routes, declared once (`requests/declare.rs` says what this generates): each
// route's name, the doc and body of its request, and the type of its ack.
client_routes! {
    /// First frame on every socket: replays what came after `cursor`, then acks.
    Resume = "resume" {
        #[serde(default, deserialize_with = "body::or_default")]
        #[schemars(with = "Option<CursorBody>")]
        body: CursorBody,
    } -> ResumeAck,
    /// Keeps the player online and records `cursor` as processed (a database write);
    /// answered only when it carries a `requestId`.
    Heartbeat = "heartbeat" {
        #[serde(default, deserialize_with = "body::or_default")]
        #[schemars(with = "Option<HeartbeatBody>")]
        body: CursorBody,
    } -> HeartbeatAck,
    /// Keeps the player online for the price of one inbound message: API Gateway takes it
    /// itself (no function, no write) and records the connection as active, which the
    /// presence sweeper reads as a sign of life. Never answered; a `requestId` or `body`
    /// in it is ignored, so it has neither.
    Ping = "ping",
    SendMessage = "sendMessage" {
        body: SendMessageBody,
    } -> SendMessageAck,
    SessionPlacementRequest = "sessionPlacementRequest" {
        #[serde(default, deserialize_with = "body::or_default")]
        #[schemars(with = "Option<PlacementRequestBody>")]
        body: PlacementRequestBody,
    } -> PlacementAck,
    CancelPlacement = "cancelPlacement" {
        #[serde(default, deserialize_with = "body::or_default")]
        #[schemars(with = "Option<CancelPlacementBody>")]
        body: CancelPlacementBody,
    } -> CancelPlacementAck,
    RejoinSession = "rejoinSession" {
        #[serde(default, deserialize_with = "body::or_default")]
        #[schemars(with = "Option<EmptyBody>")]
        body: EmptyBody,
    } -> SeatAck,
    /// Fresh connection details for the caller's seat (a player gateway token expires):
    /// acked with the seat, `gameSession`, carrying them.
    RefreshConnectionDetails = "refreshConnectionDetails" {
        #[serde(default, deserialize_with = "body::or_default")]
        #[schemars(with = "Option<EmptyBody>")]
        body: EmptyBody,
    } -> SeatAck,
    SubscribePresence = "subscribePresence" {
        body: PlayerIdsBody,
    } -> SubscribePresenceAck,
    UnsubscribePresence = "unsubscribePresence" {
        body: PlayerIdsBody,
    } -> UnsubscribePresenceAck,
    /// Sets what you are doing (rich presence), pushed in `presence` frames to your
    /// friends and presence subscribers until you set another or go offline; acked with
    /// what was stored. `details` over 512 bytes serialized is `payload_too_large`.
    SetActivity = "setActivity" {
        body: Activity,
    } -> Activity,
    SetPlacementLatencies = "setPlacementLatencies" {
        body: LatenciesBody,
    } -> LatenciesAck,
    CreateParty = "createParty" {
        #[serde(default, deserialize_with = "body::or_default")]
        #[schemars(with = "Option<CreatePartyBody>")]
        body: CreatePartyBody,
    } -> PartyAck,
    InviteToParty = "inviteToParty" {
        body: PlayerBody,
    } -> InviteToPartyAck,
    JoinParty = "joinParty" {
        body: PartyBody,
    } -> PartyAck,
    DeclinePartyInvite = "declinePartyInvite" {
        body: PartyBody,
    } -> PartyIdAck,
    LeaveParty = "leaveParty" {
        #[serde(default, deserialize_with = "body::or_default")]
        #[schemars(with = "Option<EmptyBody>")]
        body: EmptyBody,
    } -> PartyIdAck,
    KickFromParty = "kickFromParty" {
        body: PlayerBody,
    } -> PartyAck,
    PromotePartyLeader = "promotePartyLeader" {
        body: PlayerBody,
    } -> PartyAck,
    StartMatchmaking = "startMatchmaking" {
        #[serde(default, deserialize_with = "body::or_default")]
        #[schemars(with = "Option<StartMatchmakingRequestBody>")]
        body: StartMatchmakingRequestBody,
    } -> StartMatchmakingAck,
    AcceptMatch = "acceptMatch" {
        body: AcceptMatchRequestBody,
    } -> AcceptMatchAck,
    StopMatchmaking = "stopMatchmaking" {
        #[serde(default, deserialize_with = "body::or_default")]
        #[schemars(with = "Option<TicketBody>")]
        body: TicketBody,
    } -> TicketAck,
    SetMatchmakingAttributes = "setMatchmakingAttributes" {
        body: AttributesBody,
    } -> AttributesAck,
    /// Invites a known player to be friends; when they already invited you, you are
    /// friends. Acked with your side's state (`invited` or `friends`). A player who
    /// blocked you gets nothing, and you are answered exactly as if they had not.
    AddFriend = "addFriend" {
        body: PlayerBody,
    } -> FriendAck,
    /// Ends a friendship, declines their invitation or withdraws yours (acked with
    /// `state: null`; nothing to remove is no error). A block stays (`unblockPlayer`).
    RemoveFriend = "removeFriend" {
        body: PlayerBody,
    } -> FriendAck,
    /// Blocks a player: their messages, party invitations and friend invitations never
    /// reach you, and a friendship or invitation between you ends (they see `removed`,
    /// as for `removeFriend`, and nothing that tells a block apart).
    BlockPlayer = "blockPlayer" {
        body: PlayerBody,
    } -> FriendAck,
    /// Lifts your block (an invitation they sent meanwhile reaches you now).
    UnblockPlayer = "unblockPlayer" {
        body: PlayerBody,
    } -> FriendAck,
    /// A page of your relations (friends with their presence), by player id; `cursor`
    /// is the previous page's.
    ListFriends = "listFriends" {
        #[serde(default, deserialize_with = "body::or_default")]
        #[schemars(with = "Option<ListFriendsBody>")]
        body: ListFriendsBody,
    } -> ListFriendsAck,
    /// A seat in a friend's game: a new player session in the game session the friend is
    /// seated in, if it is ACTIVE, has a free slot and accepts new players; acked with
    /// the seat as `rejoinSession` is. Refused `forbidden` (not friends), `not_found`
    /// (the friend is in no game), `session_full`, `session_ended` (over, or closed to
    /// new players).
    JoinFriendGame = "joinFriendGame" {
        body: PlayerBody,
    } -> SeatAck,
}

/// `resume` and `heartbeat`: the `seq` of the last pushed frame the client processed.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CursorBody {
    pub cursor: Option<Seq>,
}

/// A body with no fields.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct EmptyBody {}

/// `sessionPlacementRequest`.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlacementRequestBody {
    /// Region → round-trip milliseconds (0–10000), at most 20 regions.
    pub latencies: Option<Latencies>,
    /// Handed to the game server; at most 2048 characters.
    pub player_data: Option<PlayerData>,
    /// One of the configured queues (the first when absent; another is `not_found`).
    pub queue: Option<QueueName>,
}

/// `setPlacementLatencies`: region → milliseconds (`{}` clears).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LatenciesBody {
    pub latencies: Latencies,
}

/// `cancelPlacement`: the pending placement (yours when absent).
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CancelPlacementBody {
    pub placement_id: Option<PlacementId>,
}

/// `subscribePresence` / `unsubscribePresence`: 1–100 players (duplicates dropped).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlayerIdsBody {
    #[serde(deserialize_with = "fields::player_ids")]
    #[schemars(length(min = 1, max = 100))]
    pub player_ids: Vec<PlayerId>,
}

/// `createParty`: its size (2–10, at most the stack's `PARTY_MAX_SIZE`, that when absent).
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreatePartyBody {
    pub max_size: Option<PartySize>,
}

/// `inviteToParty`, `kickFromParty`, `promotePartyLeader`, `joinFriendGame`, and the friend
/// routes: whom.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlayerBody {
    pub player_id: PlayerId,
}

/// `joinParty`, `declinePartyInvite`: which party.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PartyBody {
    pub party_id: PartyId,
}

/// `startMatchmaking`: a solo player's or a party leader's ticket (the leader's carries
/// every member).
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StartMatchmakingRequestBody {
    /// One of the stack's matchmaking configurations (its default when absent; another
    /// is `not_found`).
    pub configuration: Option<ConfigurationName>,
    /// At most 32: number, string, list of strings or map of string → number.
    pub attributes: Option<PlayerAttributes>,
    /// Region → round-trip milliseconds (0–10000), at most 20 regions.
    pub latencies: Option<Latencies>,
}

/// `acceptMatch`: accept (true) or reject (false) the proposed match of a ticket.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AcceptMatchRequestBody {
    pub ticket_id: TicketId,
    pub accept: bool,
}

/// `stopMatchmaking`: the ticket (your live one when absent).
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TicketBody {
    pub ticket_id: Option<TicketId>,
}

/// `setMatchmakingAttributes`: your attributes for the party leader's ticket (`{}` clears).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AttributesBody {
    pub attributes: PlayerAttributes,
}

/// `listFriends`: only relations in `state` (every one when absent), after `cursor` (the
/// previous page's).
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListFriendsBody {
    pub state: Option<FriendState>,
    pub cursor: Option<PlayerId>,
}

impl ClientRequest {
    /// Sets the `requestId` the reply will echo; a `ping` (never answered) has none and
    /// stays as it is.
    pub fn with_request_id(mut self, id: impl Into<String>) -> Self {
        if let Some(slot) = self.request_id_slot() {
            *slot = Some(id.into());
        }
        self
    }

    /// The frame's JSON text.
    pub fn to_json(&self) -> String {
        // Strings, numbers and JSON values only: serializing cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests;
