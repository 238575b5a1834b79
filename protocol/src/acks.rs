//! What each route answers: the fields of its `ack` frame (besides `type`, `route` and
//! `requestId`), one type per shape. [`RouteAck`] ties each route to its type (declared
//! with the route in `requests.rs`); the server builds its acks from these types and
//! clients read them through them (and through the types generated from the schema).
//! Field order is the order the fields go out in.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::domain::{EpochMillis, GameSession, PlacementId, PlacementStatus, PlayerId};
use crate::domain::{PresenceStatus, Seq};
use crate::friends::{FriendEntry, FriendState};
use crate::keep_alive::KeepAlive;
use crate::matchmaking::{PlayerAttributes, TicketId, TicketStatus};
use crate::party::{PartyId, PartyView};

pub use crate::requests::RouteAck;

/// `resume`: the session's state, after the replay of what came after the cursor.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResumeAck {
    pub player_id: PlayerId,
    /// This socket's id in the `@connections` API: what support and the operator's
    /// checks (`smoke --check-assumptions`) ask API Gateway about.
    pub connection_id: String,
    /// This connection replaced a disconnected one within the grace period.
    pub resumed: bool,
    /// How many frames were replayed, right before this ack.
    pub pending_messages: u64,
    /// The inbox head when the replay started: after the replay the client has
    /// everything up to here (`null`: the inbox holds nothing).
    pub cursor: Option<Seq>,
    /// The pending placement (`null`: none): its result comes as a `placement` frame.
    pub placement: Option<PlacementAck>,
    /// The live matchmaking ticket (`null`: none): its statuses are in the replay, as
    /// `matchmaking` frames.
    pub matchmaking: Option<TicketAck>,
    /// The player's seat (`null`: none).
    pub game_session: Option<GameSession>,
    /// The party the player is in (`null`: none).
    pub party: Option<PartyView>,
    /// What the client's timer sends to keep the player online, and how often.
    pub keep_alive: KeepAlive,
}

/// `heartbeat` with a `requestId`: the server's clock (ms).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HeartbeatAck {
    pub server_time: EpochMillis,
}

/// `sendMessage`: how many recipients the message was queued for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SendMessageAck {
    pub queued: u64,
}

/// `sessionPlacementRequest` (and `resume`'s pending placement): the placement, still
/// `PENDING`; its result comes as a `placement` frame.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlacementAck {
    pub placement_id: PlacementId,
    pub status: PlacementStatus,
}

/// `cancelPlacement`: the placement cancelled.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CancelPlacementAck {
    pub placement_id: PlacementId,
}

/// `rejoinSession` (the same game, a new player session) and `refreshConnectionDetails`
/// (the seat with fresh connection details).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SeatAck {
    pub game_session: GameSession,
}

/// `subscribePresence`: each player's status now (`online` or `offline`), in the
/// order the request named them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SubscribePresenceAck {
    #[serde(with = "entries")]
    #[schemars(with = "BTreeMap<String, PresenceStatus>")]
    pub presence: Vec<(PlayerId, PresenceStatus)>,
}

/// `unsubscribePresence`: how many players it named.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct UnsubscribePresenceAck {
    pub unsubscribed: u64,
}

/// `setPlacementLatencies`: what was stored, region → whole milliseconds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct LatenciesAck {
    pub latencies: BTreeMap<String, u32>,
}

/// `createParty`, `joinParty`, `kickFromParty`, `promotePartyLeader`: the party after
/// the change.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PartyAck {
    pub party: PartyView,
}

/// `inviteToParty`: whom, to which party, until when (ms).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InviteToPartyAck {
    pub party_id: PartyId,
    pub player_id: PlayerId,
    pub expires_at: EpochMillis,
}

/// `declinePartyInvite`, `leaveParty`: which party.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PartyIdAck {
    pub party_id: PartyId,
}

/// `startMatchmaking`: the ticket, `QUEUED`; its statuses come as `matchmaking` frames.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StartMatchmakingAck {
    pub ticket_id: TicketId,
    pub status: TicketStatus,
}

/// `acceptMatch`: the ticket, and what was answered.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AcceptMatchAck {
    pub ticket_id: TicketId,
    pub accept: bool,
}

/// `stopMatchmaking` (the ticket stopped) and `resume`'s live ticket.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TicketAck {
    pub ticket_id: TicketId,
}

/// `setMatchmakingAttributes`: the attributes stored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AttributesAck {
    pub attributes: PlayerAttributes,
}

/// `addFriend`, `removeFriend`, `blockPlayer`, `unblockPlayer`: the relation with
/// `playerId` from your side after the request (`null`: none).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FriendAck {
    pub player_id: PlayerId,
    pub state: Option<FriendState>,
}

/// `listFriends`: a page of relations by player id, and the `cursor` of the next page
/// (`null`: this was the last).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ListFriendsAck {
    pub friends: Vec<FriendEntry>,
    pub cursor: Option<PlayerId>,
}

/// A list of pairs as a JSON object, keeping the list's order (a map would sort it).
mod entries {
    use serde::de::{MapAccess, Visitor};
    use serde::ser::SerializeMap;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S, K, V>(entries: &[(K, V)], serializer: S) -> Result<S::Ok, S::Error>
    where
        S: Serializer,
        K: Serialize,
        V: Serialize,
    {
        let mut map = serializer.serialize_map(Some(entries.len()))?;
        for (key, value) in entries {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }

    pub fn deserialize<'de, D, K, V>(deserializer: D) -> Result<Vec<(K, V)>, D::Error>
    where
        D: Deserializer<'de>,
        K: Deserialize<'de>,
        V: Deserialize<'de>,
    {
        struct Entries<K, V>(std::marker::PhantomData<(K, V)>);
        impl<'de, K: Deserialize<'de>, V: Deserialize<'de>> Visitor<'de> for Entries<K, V> {
            type Value = Vec<(K, V)>;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(0));
                while let Some(entry) = map.next_entry()? {
                    entries.push(entry);
                }
                Ok(entries)
            }
        }
        deserializer.deserialize_map(Entries(std::marker::PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn given_presence_in_request_order_when_written_then_the_order_is_kept_and_read_back() {
        let ack = SubscribePresenceAck {
            presence: vec![
                (PlayerId::parse("zed").unwrap(), PresenceStatus::Online),
                (PlayerId::parse("amy").unwrap(), PresenceStatus::Offline),
            ],
        };
        let text = serde_json::to_string(&ack).unwrap();
        assert_eq!(text, r#"{"presence":{"zed":"online","amy":"offline"}}"#);
        assert_eq!(
            serde_json::from_str::<SubscribePresenceAck>(&text).unwrap(),
            ack
        );
    }

    #[test]
    fn given_an_ack_when_its_fields_are_taken_then_the_route_is_not_among_them() {
        let ack = RouteAck::CancelPlacement(CancelPlacementAck {
            placement_id: PlacementId::parse("p-1").unwrap(),
        });
        assert_eq!(ack.route(), crate::requests::Route::CancelPlacement);
        assert_eq!(
            serde_json::Value::Object(ack.fields()),
            json!({"placementId": "p-1"})
        );
        assert_eq!(
            serde_json::to_value(&ack).unwrap(),
            json!({"route": "cancelPlacement", "placementId": "p-1"})
        );
    }
}
