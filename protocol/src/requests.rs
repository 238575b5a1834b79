//! Every request a client may send, typed: the `ClientFrame` of the JSON Schema, what
//! the Rust client writes and what the server reads ([`ClientRequest::from_frame`]: each
//! route's body deserialized into its type here, unknown body fields ignored). A
//! constraint the server enforces is in these types, so the schema states it too.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::domain::{PlacementId, PlayerId, Seq};
use crate::latencies::Latencies;
use crate::matchmaking::{PlayerAttributes, TicketId};
use crate::party::{PartyId, PartySize};

pub mod body;
pub(crate) mod fields;
mod send_message;

pub use fields::{
    ConfigurationName, HeartbeatBody, MAX_GAMELIFT_NAME_CHARS, MAX_PLAYER_DATA_CHARS, PlayerData,
    QueueName,
};
pub use send_message::SendMessageBody;

/// A request: `{"route", "requestId"?, "body"?}`, one variant per route. `requestId`
/// (at most 64 characters) is echoed back on the `ack` or `error` that answers it. A body
/// a route can go without may also be absent or `null` (read as `{}`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(
    tag = "route",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
#[schemars(rename = "ClientFrame")]
pub enum ClientRequest {
    /// First frame on every socket: replays what came after `cursor`, then acks.
    Resume {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(length(max = 64))]
        request_id: Option<String>,
        #[serde(default, deserialize_with = "body::or_default")]
        #[schemars(with = "Option<CursorBody>")]
        body: CursorBody,
    },
    /// Keeps the player online and records `cursor` as processed (a database write);
    /// answered only when it carries a `requestId`.
    Heartbeat {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(length(max = 64))]
        request_id: Option<String>,
        #[serde(default, deserialize_with = "body::or_default")]
        #[schemars(with = "Option<HeartbeatBody>")]
        body: CursorBody,
    },
    /// Keeps the player online for the price of one inbound message: API Gateway takes it
    /// itself (no function, no write) and records the connection as active, which the
    /// presence sweeper reads as a sign of life. Never answered; a `requestId` or `body`
    /// in it is ignored, so it has neither.
    Ping,
    SendMessage {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(length(max = 64))]
        request_id: Option<String>,
        body: SendMessageBody,
    },
    SessionPlacementRequest {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(length(max = 64))]
        request_id: Option<String>,
        #[serde(default, deserialize_with = "body::or_default")]
        #[schemars(with = "Option<PlacementRequestBody>")]
        body: PlacementRequestBody,
    },
    CancelPlacement {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(length(max = 64))]
        request_id: Option<String>,
        #[serde(default, deserialize_with = "body::or_default")]
        #[schemars(with = "Option<CancelPlacementBody>")]
        body: CancelPlacementBody,
    },
    RejoinSession {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(length(max = 64))]
        request_id: Option<String>,
        #[serde(default, deserialize_with = "body::or_default")]
        #[schemars(with = "Option<EmptyBody>")]
        body: EmptyBody,
    },
    /// Fresh connection details for the caller's seat (a player gateway token expires):
    /// acked with the seat, `gameSession`, carrying them.
    RefreshConnectionDetails {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(length(max = 64))]
        request_id: Option<String>,
        #[serde(default, deserialize_with = "body::or_default")]
        #[schemars(with = "Option<EmptyBody>")]
        body: EmptyBody,
    },
    SubscribePresence {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(length(max = 64))]
        request_id: Option<String>,
        body: PlayerIdsBody,
    },
    UnsubscribePresence {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(length(max = 64))]
        request_id: Option<String>,
        body: PlayerIdsBody,
    },
    SetPlacementLatencies {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(length(max = 64))]
        request_id: Option<String>,
        body: LatenciesBody,
    },
    CreateParty {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(length(max = 64))]
        request_id: Option<String>,
        #[serde(default, deserialize_with = "body::or_default")]
        #[schemars(with = "Option<CreatePartyBody>")]
        body: CreatePartyBody,
    },
    InviteToParty {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(length(max = 64))]
        request_id: Option<String>,
        body: PlayerBody,
    },
    JoinParty {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(length(max = 64))]
        request_id: Option<String>,
        body: PartyBody,
    },
    DeclinePartyInvite {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(length(max = 64))]
        request_id: Option<String>,
        body: PartyBody,
    },
    LeaveParty {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(length(max = 64))]
        request_id: Option<String>,
        #[serde(default, deserialize_with = "body::or_default")]
        #[schemars(with = "Option<EmptyBody>")]
        body: EmptyBody,
    },
    KickFromParty {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(length(max = 64))]
        request_id: Option<String>,
        body: PlayerBody,
    },
    PromotePartyLeader {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(length(max = 64))]
        request_id: Option<String>,
        body: PlayerBody,
    },
    StartMatchmaking {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(length(max = 64))]
        request_id: Option<String>,
        #[serde(default, deserialize_with = "body::or_default")]
        #[schemars(with = "Option<StartMatchmakingRequestBody>")]
        body: StartMatchmakingRequestBody,
    },
    AcceptMatch {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(length(max = 64))]
        request_id: Option<String>,
        body: AcceptMatchRequestBody,
    },
    StopMatchmaking {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(length(max = 64))]
        request_id: Option<String>,
        #[serde(default, deserialize_with = "body::or_default")]
        #[schemars(with = "Option<TicketBody>")]
        body: TicketBody,
    },
    SetMatchmakingAttributes {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(length(max = 64))]
        request_id: Option<String>,
        body: AttributesBody,
    },
}

/// `resume` and `heartbeat`: the `seq` of the last pushed frame the client processed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CursorBody {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<Seq>,
}

/// A body with no fields.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct EmptyBody {}

/// `sessionPlacementRequest`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlacementRequestBody {
    /// Region → round-trip milliseconds (0–10000), at most 20 regions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latencies: Option<Latencies>,
    /// Handed to the game server; at most 2048 characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player_data: Option<PlayerData>,
    /// One of the configured queues (the first when absent; another is `not_found`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<QueueName>,
}

/// `setPlacementLatencies`: region → milliseconds (`{}` clears).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LatenciesBody {
    pub latencies: Latencies,
}

/// `cancelPlacement`: the pending placement (yours when absent).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CancelPlacementBody {
    #[serde(default, skip_serializing_if = "Option::is_none")]
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
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreatePartyBody {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_size: Option<PartySize>,
}

/// `inviteToParty`, `kickFromParty`, `promotePartyLeader`: whom.
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
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StartMatchmakingRequestBody {
    /// One of the stack's matchmaking configurations (its default when absent; another
    /// is `not_found`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub configuration: Option<ConfigurationName>,
    /// At most 32: number, string, list of strings or map of string → number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attributes: Option<PlayerAttributes>,
    /// Region → round-trip milliseconds (0–10000), at most 20 regions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
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
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TicketBody {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ticket_id: Option<TicketId>,
}

/// `setMatchmakingAttributes`: your attributes for the party leader's ticket (`{}` clears).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AttributesBody {
    pub attributes: PlayerAttributes,
}

/// `Some($found)` with `$id` bound to the variant's `request_id` field, `None` for a
/// `ping` (which has none): the one list of variants that carry a request id, for both the
/// shared and the mutable accessor.
macro_rules! request_id_field {
    ($value:expr, $id:ident => $found:expr) => {
        match $value {
            Self::Ping => None,
            Self::Resume {
                request_id: $id, ..
            }
            | Self::Heartbeat {
                request_id: $id, ..
            }
            | Self::SendMessage {
                request_id: $id, ..
            }
            | Self::SessionPlacementRequest {
                request_id: $id, ..
            }
            | Self::CancelPlacement {
                request_id: $id, ..
            }
            | Self::RejoinSession {
                request_id: $id, ..
            }
            | Self::RefreshConnectionDetails {
                request_id: $id, ..
            }
            | Self::SubscribePresence {
                request_id: $id, ..
            }
            | Self::UnsubscribePresence {
                request_id: $id, ..
            }
            | Self::SetPlacementLatencies {
                request_id: $id, ..
            }
            | Self::CreateParty {
                request_id: $id, ..
            }
            | Self::InviteToParty {
                request_id: $id, ..
            }
            | Self::JoinParty {
                request_id: $id, ..
            }
            | Self::DeclinePartyInvite {
                request_id: $id, ..
            }
            | Self::LeaveParty {
                request_id: $id, ..
            }
            | Self::KickFromParty {
                request_id: $id, ..
            }
            | Self::PromotePartyLeader {
                request_id: $id, ..
            }
            | Self::StartMatchmaking {
                request_id: $id, ..
            }
            | Self::AcceptMatch {
                request_id: $id, ..
            }
            | Self::StopMatchmaking {
                request_id: $id, ..
            }
            | Self::SetMatchmakingAttributes {
                request_id: $id, ..
            } => Some($found),
        }
    };
}

impl ClientRequest {
    /// The route this request goes to.
    pub fn route(&self) -> &'static str {
        match self {
            Self::Resume { .. } => "resume",
            Self::Heartbeat { .. } => "heartbeat",
            Self::Ping => "ping",
            Self::SendMessage { .. } => "sendMessage",
            Self::SessionPlacementRequest { .. } => "sessionPlacementRequest",
            Self::CancelPlacement { .. } => "cancelPlacement",
            Self::RejoinSession { .. } => "rejoinSession",
            Self::RefreshConnectionDetails { .. } => "refreshConnectionDetails",
            Self::SubscribePresence { .. } => "subscribePresence",
            Self::UnsubscribePresence { .. } => "unsubscribePresence",
            Self::SetPlacementLatencies { .. } => "setPlacementLatencies",
            Self::CreateParty { .. } => "createParty",
            Self::InviteToParty { .. } => "inviteToParty",
            Self::JoinParty { .. } => "joinParty",
            Self::DeclinePartyInvite { .. } => "declinePartyInvite",
            Self::LeaveParty { .. } => "leaveParty",
            Self::KickFromParty { .. } => "kickFromParty",
            Self::PromotePartyLeader { .. } => "promotePartyLeader",
            Self::StartMatchmaking { .. } => "startMatchmaking",
            Self::AcceptMatch { .. } => "acceptMatch",
            Self::StopMatchmaking { .. } => "stopMatchmaking",
            Self::SetMatchmakingAttributes { .. } => "setMatchmakingAttributes",
        }
    }

    /// Sets the `requestId` the reply will echo; a `ping` (never answered) has none and
    /// stays as it is.
    pub fn with_request_id(mut self, id: impl Into<String>) -> Self {
        if let Some(slot) = self.request_id_slot() {
            *slot = Some(id.into());
        }
        self
    }

    /// The `requestId` the reply will echo, if any (never for a `ping`).
    pub fn request_id(&self) -> Option<&str> {
        request_id_field!(self, id => id.as_deref()).flatten()
    }

    fn request_id_slot(&mut self) -> Option<&mut Option<String>> {
        request_id_field!(self, id => id)
    }

    /// The frame's JSON text.
    pub fn to_json(&self) -> String {
        // Strings, numbers and JSON values only: serializing cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests;
