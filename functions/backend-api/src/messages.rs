//! `POST /v1/messages`: `{"playerIds": [...] | "partyId": "...", "message": <any JSON,
//! ≤ 32 KiB>, "from"?: "system" | <service name>}` → `202 {"queued": n}`.
//!
//! The same `message` frame as a player's `sendMessage`, with `"backend": true` and
//! `from` the caller's name, appended to each recipient's inbox: delivered live by the
//! stream consumer, replayed by `resume` to players offline now. No rate limit: the
//! callers are trusted (IAM). Unknown recipients are refused whole, as `sendMessage`
//! does (`not_found` naming them): nothing is stored for a player nobody has.

use edge::websocket::RouteError;
use lambda_http::http::StatusCode;
use serde_json::{Map, Value, json};
use shared::domain::{MessageId, PlayerId};
use shared::frames::{ErrorCode, ServerFrame, json_kind, player_ids_field};
use shared::messaging::recipients;
use shared::messaging::{MessageKind, NewMessage, SYSTEM_SENDER};
use shared::party::PartyId;

use crate::{Answer, BackendApi, field_error, store_refusal};

/// The longest service name `from` may give.
pub const MAX_FROM_LEN: usize = 64;
/// Who a message goes to.
enum Audience {
    Players(Vec<PlayerId>),
    Party(PartyId),
}

impl BackendApi {
    pub(crate) async fn send_messages(&self, body: &Map<String, Value>) -> Answer {
        let audience = audience(body)?;
        let message = body
            .get("message")
            .ok_or_else(|| field_error("message", "`message` is required"))?;
        if let Some(size) = recipients::oversized(message) {
            return Err(RouteError::message_too_large(size).with_detail("field", "message"));
        }
        let from = from_field(body)?;
        let nothing_sent = "nothing was sent; retry";
        let (recipients, party) = match audience {
            Audience::Players(players) => {
                recipients::require_known(self.lookup.as_ref(), &players)
                    .await
                    .map_err(|e| RouteError::from_recipients(e, nothing_sent))?;
                (players, None)
            }
            Audience::Party(party_id) => {
                let party = self
                    .parties
                    .get(&party_id)
                    .await
                    .map_err(|e| store_refusal(e, nothing_sent))?
                    .ok_or_else(|| {
                        RouteError::new(ErrorCode::NotFound, format!("no party {party_id}"))
                            .with_detail("partyId", party_id.to_string())
                    })?;
                (party.member_ids().cloned().collect(), Some(party_id))
            }
        };
        let now = self.clock.now_millis();
        let message_id = MessageId::generate(now);
        let payload = ServerFrame::Message {
            message_id: message_id.to_string(),
            from: from.clone(),
            party_id: party,
            message: message.clone(),
            sent_at: now,
            backend: true,
        }
        .to_json();
        let messages: Vec<NewMessage> = recipients
            .into_iter()
            .map(|recipient_id| {
                NewMessage::new(
                    MessageKind::Chat,
                    message_id.clone(),
                    recipient_id,
                    from.clone(),
                    payload.clone(),
                    now,
                    self.config.message_ttl_secs(),
                )
            })
            .collect();
        self.messages.append(&messages).await.map_err(|e| {
            store_refusal(
                e,
                "the message may have reached some recipients but not all; retry",
            )
        })?;
        Ok((
            StatusCode::ACCEPTED,
            json!({ "queued": messages.len(), "messageId": message_id.to_string() }),
        ))
    }
}

/// `playerIds` or `partyId`, not both.
fn audience(body: &Map<String, Value>) -> Result<Audience, RouteError> {
    let has = |field: &str| body.get(field).is_some_and(|v| !v.is_null());
    match (has("playerIds"), body.get("partyId")) {
        (true, Some(v)) if !v.is_null() => Err(field_error(
            "partyId",
            "give `playerIds` or `partyId`, not both",
        )),
        (_, None | Some(Value::Null)) => player_ids_field(body, "playerIds")
            .map(Audience::Players)
            .map_err(|e| field_error("playerIds", e)),
        (_, Some(Value::String(raw))) => PartyId::parse(raw.as_str())
            .map(Audience::Party)
            .map_err(|e| field_error("partyId", format!("`partyId` is not a party id: {e}"))),
        (_, Some(other)) => Err(field_error(
            "partyId",
            format!("`partyId` must be a string, got {}", json_kind(other)),
        )),
    }
}

/// `from`: `system` (the default) or a service's name, 1-64 of `A-Z a-z 0-9 . _ : @ -`.
pub(crate) fn from_field(body: &Map<String, Value>) -> Result<String, RouteError> {
    match body.get("from") {
        None | Some(Value::Null) => Ok(SYSTEM_SENDER.to_owned()),
        Some(Value::String(name))
            if !name.is_empty()
                && name.len() <= MAX_FROM_LEN
                && name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"._:@-".contains(&b)) =>
        {
            Ok(name.clone())
        }
        Some(Value::String(_)) => Err(field_error(
            "from",
            format!(
                "`from` must be `system` or a service name of 1-{MAX_FROM_LEN} A-Z a-z 0-9 . _ : @ -"
            ),
        )),
        Some(other) => Err(field_error(
            "from",
            format!("`from` must be a string, got {}", json_kind(other)),
        )),
    }
}
