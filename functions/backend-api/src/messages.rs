//! `POST /v1/messages`: `{"playerIds": [...] | "partyId": "...", "message": <any JSON,
//! ≤ 32 KiB>, "from"?: "system" | <service name>}` → `202 {"queued": n}`.
//!
//! The same `message` frame as a player's `sendMessage`, with `"backend": true` and
//! `from` the caller's name, appended to each recipient's inbox: delivered live by the
//! stream consumer, replayed by `resume` to players offline now. No rate limit: the
//! callers are trusted (IAM). Unknown recipients are refused whole, as `sendMessage`
//! does (`not_found` naming them): nothing is stored for a player nobody has.

use edge::websocket::RouteError;
use gamelift_sockets_protocol::backend_api::{
    Audience, SendMessagesRequest, SendMessagesResponse, ServiceName,
};
use lambda_http::http::StatusCode;
use shared::domain::MessageId;
use shared::errors::{FieldDetail, NotFoundDetail};
use shared::frames::{ErrorReply, ServerFrame};
use shared::messaging::recipients;
use shared::messaging::{MessageKind, NewMessage, SYSTEM_SENDER};

use crate::{Answer, BackendApi, answer, field_error, store_refusal};

impl BackendApi {
    pub(crate) async fn send_messages(&self, body: SendMessagesRequest) -> Answer {
        let audience = body
            .audience()
            .map_err(|e| field_error(&e.field, e.message))?;
        let message = body.message;
        if let Some(size) = recipients::oversized(&message) {
            return Err(RouteError::message_too_large(
                size,
                FieldDetail::named("message"),
            ));
        }
        let from = sender(body.from.as_ref());
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
                        RouteError::from(ErrorReply::not_found(
                            format!("no party {party_id}"),
                            NotFoundDetail {
                                party_id: Some(party_id.clone()),
                                ..NotFoundDetail::default()
                            },
                        ))
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
            message,
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
        answer(
            StatusCode::ACCEPTED,
            &SendMessagesResponse {
                queued: messages.len(),
                message_id: message_id.to_string(),
            },
        )
    }
}

/// Who sends: the service `from` names, else `system`.
pub(crate) fn sender(from: Option<&ServiceName>) -> String {
    from.map_or(SYSTEM_SENDER, ServiceName::as_str).to_owned()
}
