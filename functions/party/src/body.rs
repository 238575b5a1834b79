//! The party routes' bodies: each field read on its own, a refusal naming the field at
//! fault; unknown fields are ignored.

use serde_json::{Map, Value};
use shared::domain::PlayerId;
use shared::party::PartyId;
use shared::protocol::json_kind;
use shared::websocket::RouteError;

/// The smallest party `createParty` makes.
pub const MIN_PARTY_SIZE: u32 = 2;

/// `playerId`: a player id, required.
pub fn player_id(body: &Map<String, Value>) -> Result<PlayerId, RouteError> {
    match body.get("playerId") {
        None | Some(Value::Null) => Err(RouteError::bad_request("`playerId` is required")),
        Some(Value::String(raw)) => PlayerId::parse(raw.as_str()).map_err(|e| {
            RouteError::bad_request(format!("`playerId` is not a valid player id: {e}"))
        }),
        Some(other) => Err(RouteError::bad_request(format!(
            "`playerId` must be a string, got {}",
            json_kind(other)
        ))),
    }
}

/// `partyId`: a party id, required.
pub fn party_id(body: &Map<String, Value>) -> Result<PartyId, RouteError> {
    match body.get("partyId") {
        None | Some(Value::Null) => Err(RouteError::bad_request("`partyId` is required")),
        Some(Value::String(raw)) => PartyId::parse(raw.as_str())
            .map_err(|e| RouteError::bad_request(format!("`partyId` is not a party id: {e}"))),
        Some(other) => Err(RouteError::bad_request(format!(
            "`partyId` must be a string, got {}",
            json_kind(other)
        ))),
    }
}

/// `maxSize`: a whole number from 2 to `largest` (`PARTY_MAX_SIZE`), `largest` when
/// absent.
pub fn max_size(body: &Map<String, Value>, largest: u32) -> Result<u32, RouteError> {
    let expected = || format!("a whole number from {MIN_PARTY_SIZE} to {largest}");
    match body.get("maxSize") {
        None | Some(Value::Null) => Ok(largest),
        Some(Value::Number(number)) => number
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .filter(|n| (MIN_PARTY_SIZE..=largest).contains(n))
            .ok_or_else(|| {
                RouteError::bad_request(format!("`maxSize` is {number}; it must be {}", expected()))
            }),
        Some(other) => Err(RouteError::bad_request(format!(
            "`maxSize` must be {}, got {}",
            expected(),
            json_kind(other)
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn body(value: Value) -> Map<String, Value> {
        let Value::Object(map) = value else {
            unreachable!()
        };
        map
    }

    #[test]
    fn given_each_bad_field_then_the_refusal_names_it_and_says_what_is_wrong() {
        for (result, says) in [
            (
                player_id(&body(json!({}))).map(|_| ()),
                "`playerId` is required",
            ),
            (
                player_id(&body(json!({"playerId": 7}))).map(|_| ()),
                "`playerId` must be a string, got a number",
            ),
            (
                player_id(&body(json!({"playerId": "b b"}))).map(|_| ()),
                "`playerId` is not a valid player id: player id contains ' ' at position 1",
            ),
            (
                party_id(&body(json!({}))).map(|_| ()),
                "`partyId` is required",
            ),
            (
                party_id(&body(json!({"partyId": ["p"]}))).map(|_| ()),
                "`partyId` must be a string, got an array",
            ),
            (
                party_id(&body(json!({"partyId": ""}))).map(|_| ()),
                "`partyId` is not a party id: party id is empty",
            ),
            (
                max_size(&body(json!({"maxSize": 1})), 8).map(|_| ()),
                "`maxSize` is 1; it must be a whole number from 2 to 8",
            ),
            (
                max_size(&body(json!({"maxSize": 9})), 8).map(|_| ()),
                "`maxSize` is 9",
            ),
            (
                max_size(&body(json!({"maxSize": 2.5})), 8).map(|_| ()),
                "`maxSize` is 2.5",
            ),
            (
                max_size(&body(json!({"maxSize": "4"})), 8).map(|_| ()),
                "`maxSize` must be a whole number from 2 to 8, got a string",
            ),
        ] {
            let refusal = result.unwrap_err();
            assert_eq!(refusal.code, shared::protocol::ErrorCode::BadRequest);
            assert!(refusal.message.contains(says), "{}", refusal.message);
        }
    }

    #[test]
    fn given_no_max_size_then_the_largest_allowed() {
        assert_eq!(max_size(&body(json!({})), 8).unwrap(), 8);
        assert_eq!(max_size(&body(json!({"maxSize": 3})), 8).unwrap(), 3);
    }
}
