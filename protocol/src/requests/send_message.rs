//! `sendMessage`'s body: to 1–100 players (`playerIds`) or to the sender's party
//! (`partyId`), never both; the other one absent or `null`.

use schemars::json_schema;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use super::fields::PlayerIdList;
use crate::domain::PlayerId;
use crate::party::PartyId;

/// `sendMessage`: to 1–100 players (duplicates dropped), or to every other member of
/// your party. `message` is any JSON; over 32 KiB serialized it is refused as
/// `payload_too_large` (a size JSON Schema cannot state).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged, rename_all_fields = "camelCase")]
pub enum SendMessageBody {
    ToPlayers {
        player_ids: Vec<PlayerId>,
        /// Any JSON, at most 32 KiB serialized.
        message: Value,
    },
    ToParty {
        party_id: PartyId,
        /// Any JSON, at most 32 KiB serialized.
        message: Value,
    },
}

/// The body's fields, each read on its own before the two audiences are told apart.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Fields {
    #[serde(default)]
    player_ids: Option<PlayerIdList>,
    #[serde(default)]
    party_id: Option<PartyId>,
    /// `None` only when absent: `null` is a message like any other.
    #[serde(default, deserialize_with = "present")]
    message: Option<Value>,
}

fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

impl<'de> Deserialize<'de> for SendMessageBody {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        // Whole sentences: these are about the body, not one field.
        let fields = Fields::deserialize(deserializer)?;
        let audience = match (fields.player_ids, fields.party_id) {
            (Some(_), Some(_)) => {
                return Err(D::Error::custom("give `playerIds` or `partyId`, not both"));
            }
            (None, None) => return Err(D::Error::custom("`playerIds` is required")),
            (ids, party) => (ids, party),
        };
        let Some(message) = fields.message else {
            return Err(D::Error::custom("`message` is required"));
        };
        Ok(match audience {
            (Some(PlayerIdList(player_ids)), _) => Self::ToPlayers {
                player_ids,
                message,
            },
            (None, Some(party_id)) => Self::ToParty { party_id, message },
            (None, None) => unreachable!("refused above"),
        })
    }
}

hand_schema!(SendMessageBody, |generator| {
    let message = json_schema!({"description": "Any JSON, at most 32 KiB serialized."});
    let player = generator.subschema_for::<PlayerId>();
    let party = generator.subschema_for::<PartyId>();
    let none = json_schema!({"type": "null"});
    json_schema!({
        "description": "`sendMessage`: to 1–100 players (duplicates dropped), or to every other member of your\nparty; the other field absent or null. Over 32 KiB serialized, `message` is refused as\n`payload_too_large` (a size JSON Schema cannot state).",
        "oneOf": [
            {
                "type": "object",
                "properties": {
                    "playerIds": {"type": "array", "items": player, "minItems": 1, "maxItems": 100},
                    "partyId": none,
                    "message": message
                },
                "required": ["playerIds", "message"]
            },
            {
                "type": "object",
                "properties": {
                    "partyId": party,
                    "playerIds": none,
                    "message": message
                },
                "required": ["partyId", "message"]
            }
        ]
    })
});

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::requests::body::read_body;

    fn read(body: Value) -> Result<SendMessageBody, String> {
        let Value::Object(body) = body else {
            unreachable!("a test body is an object")
        };
        read_body(body)
    }

    #[test]
    fn given_either_audience_then_it_is_read_and_the_other_may_be_null() {
        assert!(matches!(
            read(json!({"playerIds": ["bob", "bob"], "partyId": null, "message": null})),
            Ok(SendMessageBody::ToPlayers { player_ids, message: Value::Null }) if player_ids.len() == 1
        ));
        assert!(matches!(
            read(json!({"partyId": "p-1", "message": {"t": 1}})),
            Ok(SendMessageBody::ToParty { .. })
        ));
    }

    #[test]
    fn given_each_bad_body_then_the_refusal_says_what_is_wrong() {
        for (body, says) in [
            (json!({"message": 1}), "`playerIds` is required"),
            (json!({}), "`playerIds` is required"),
            (
                json!({"playerIds": ["bob"], "partyId": "p-1", "message": 1}),
                "give `playerIds` or `partyId`, not both",
            ),
            (json!({"partyId": "p-1"}), "`message` is required"),
            (
                json!({"playerIds": "bob", "message": 1}),
                "`playerIds` must be an array of player ids, got a string",
            ),
            (
                json!({"playerIds": [], "message": 1}),
                "`playerIds` must name at least one player",
            ),
            (
                json!({"playerIds": ["bob", "b b"], "message": 1}),
                "`playerIds[1]` is not a valid player id: player id contains ' ' at position 1; allowed are A-Z a-z 0-9 . _ : @ -",
            ),
            (
                json!({"partyId": 7, "message": 1}),
                "`partyId` must be a string, got a number",
            ),
            (
                json!({"playerIds": ["bob"], "partyId": 7, "message": 1}),
                "`partyId` must be a string, got a number",
            ),
        ] {
            assert_eq!(read(body.clone()).unwrap_err(), says, "{body}");
        }
    }
}
