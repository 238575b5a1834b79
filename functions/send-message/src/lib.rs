//! `sendMessage`: a player sends any JSON value to up to 100 players, or to their party.
//! The message (one id, the same for every recipient) is appended to each recipient's
//! inbox; delivery happens from the table's stream (`on-message-inserted`) to recipients
//! who are live, and `resume` replays it to the others (shared/src/messaging/mod.rs).
//!
//! To players (`playerIds`), before anything is stored, two calls at once: the sender's
//! rate limits are spent (one conditional write on their own item,
//! shared/src/rate_limits.rs), and the recipients are checked: whether each is a player
//! and whether they blocked the sender, in one BatchGetItem of both tables' keys (each
//! recipient's Players item and their (recipient, sender) Friends side; 50 recipients a
//! call, as BatchGetItem takes 100 keys: `shared::ports::RecipientCheck`). So the block
//! check costs no call of its own up to 50 recipients, and above that the same calls as
//! two separate reads would. A recipient who blocked the sender gets nothing, and is
//! counted in `queued` all the same: the sender cannot tell (shared/src/friends.rs).
//! Over a limit: `rate_limited` with `retryAfterMs`. An id no player has
//! (never connected, or gone for 30 days): `not_found` naming it, and nothing is stored
//! for anyone, rather than a message kept a day for nobody.
//!
//! To a party (`partyId`): the party is read (one GetItem; `forbidden` unless the sender
//! is a member), the limits are spent for its other members (and, at once, their blocks
//! of the sender read), and each who did not block the sender gets the message with
//! `"partyId"`.
//!
//! # A message, in sequence
//!
//! A mermaid sequence diagram (paste it into any mermaid renderer to draw it):
//!
//! ```text
//! sequenceDiagram
//!   autonumber
//!   participant A as alice
//!   participant G as API Gateway
//!   participant S as send-message
//!   participant M as Messages (inboxes)
//!   participant D as on-message-inserted
//!   participant P as Players
//!   participant B as bob
//!
//!   A->>G: sendMessage(playerIds bob and carol, message)
//!   G->>S: invoke
//!   loop each recipient
//!     S->>M: Query inbox newest first, limit 1 (the head)
//!     S->>M: PutItem at seq head + 1, condition no item there
//!     opt another append took that seq
//!       S->>M: read the head again and retry
//!     end
//!   end
//!   S-->>A: ack queued 2
//!   M-)D: stream batch, INSERTs with seq > 0
//!   D->>P: BatchGetItem the recipients
//!   alt recipient has a live connection and seq is above liveFrom
//!     D->>G: PostToConnection(message frame with seq)
//!     G-->>B: message frame
//!   else no live connection (carol offline, or not resumed yet)
//!     Note over D: nothing posted, the frame stays in the inbox for her next resume
//!   end
//! ```

use std::sync::Arc;

use async_trait::async_trait;
use edge::websocket::{Caller, Reply, Request, Route, RouteError, Serves};
use serde_json::Value;
use shared::acks::{RouteAck, SendMessageAck};
use shared::config::Config;
use shared::domain::{MessageId, PlayerId};
use shared::frames::ServerFrame;
use shared::messaging::recipients;
use shared::messaging::{MessageKind, NewMessage};
use shared::party::{PartyId, PartyRefusal};
use shared::ports::{Blocks, Clock, MessageStore, PartyReader, RateLimiter, RecipientCheck};
use shared::rate_limits::{self, Bucket, Exceeded, Quota};
use shared::requests::{ClientRequest, Route as ClientRoute, SendMessageBody};
use shared::wiring::Wiring;
use tracing::debug;

#[cfg(test)]
mod tests;

/// `sendMessage` as every deployment builds it.
pub fn wire(w: &Wiring) -> SendMessageHandler {
    SendMessageHandler::new(
        w.config.clone(),
        w.stores.message_store(),
        w.stores.recipient_check(),
        w.stores.rate_limiter(),
        w.stores.party_reader(),
        w.stores.blocks(),
        w.clock.clone(),
    )
}

pub struct SendMessageHandler {
    config: Arc<Config>,
    messages: Arc<dyn MessageStore>,
    recipients: Arc<dyn RecipientCheck>,
    limiter: Arc<dyn RateLimiter>,
    parties: Arc<dyn PartyReader>,
    blocks: Arc<dyn Blocks>,
    clock: Arc<dyn Clock>,
}

impl SendMessageHandler {
    pub fn new(
        config: Arc<Config>,
        messages: Arc<dyn MessageStore>,
        recipients: Arc<dyn RecipientCheck>,
        limiter: Arc<dyn RateLimiter>,
        parties: Arc<dyn PartyReader>,
        blocks: Arc<dyn Blocks>,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self {
            config,
            messages,
            recipients,
            limiter,
            parties,
            blocks,
            clock,
        }
    }

    /// Those of a party message's recipients who blocked the sender (one BatchGetItem per
    /// 100: members are players, so only the blocks are read).
    async fn blockers(
        &self,
        sender: &PlayerId,
        messages: &[NewMessage],
    ) -> Result<Vec<PlayerId>, RouteError> {
        let recipients: Vec<PlayerId> = messages.iter().map(|m| m.recipient_id.clone()).collect();
        self.blocks
            .blockers(sender, &recipients)
            .await
            .map_err(|e| RouteError::from_store(e, NOTHING_SENT))
    }

    fn quota(&self) -> Quota {
        Quota {
            calls: self.config.rate_limits.messages_per_minute,
            units: self.config.rate_limits.recipients_per_minute,
        }
    }

    /// One message per recipient, sharing one id; `party` is the party it was sent to.
    /// Its size is checked here, not in its type ([`recipients::oversized`]): the refusal
    /// is `payload_too_large`, not a malformed frame.
    fn build(
        &self,
        caller: &Caller,
        message: &Value,
        recipients: Vec<PlayerId>,
        party: Option<&PartyId>,
    ) -> Result<Vec<NewMessage>, RouteError> {
        if let Some(size) = recipients::oversized(message) {
            return Err(RouteError::message_too_large(size, Default::default()));
        }
        let now = self.clock.now_millis();
        let message_id = MessageId::generate(now);
        let payload = ServerFrame::Message {
            message_id: message_id.to_string(),
            from: caller.player_id.to_string(),
            party_id: party.cloned(),
            message: message.clone(),
            sent_at: now,
            backend: false,
        }
        .to_json();
        Ok(recipients
            .into_iter()
            .map(|recipient_id| {
                NewMessage::new(
                    MessageKind::Chat,
                    message_id.clone(),
                    recipient_id,
                    caller.player_id.to_string(),
                    payload.clone(),
                    now,
                    self.config.message_ttl_secs(),
                )
            })
            .collect())
    }

    async fn send(
        &self,
        request: &Request,
        body: &SendMessageBody,
    ) -> Result<SendMessageAck, RouteError> {
        match body {
            SendMessageBody::ToPlayers {
                player_ids,
                message,
            } => {
                let messages = self.build(&request.caller, message, player_ids.clone(), None)?;
                self.send_to_players(request, messages).await
            }
            SendMessageBody::ToParty { party_id, message } => {
                self.send_to_party(request, party_id, message).await
            }
        }
    }

    /// To the other members of `party_id`, of which the sender must be one.
    async fn send_to_party(
        &self,
        request: &Request,
        party_id: &PartyId,
        message: &Value,
    ) -> Result<SendMessageAck, RouteError> {
        let sender = &request.caller.player_id;
        // The message is checked before anything is read.
        self.build(&request.caller, message, Vec::new(), Some(party_id))?;
        let party = self
            .parties
            .get(party_id)
            .await
            .map_err(|e| RouteError::from_store(e, "nothing was sent; retry"))?;
        let refusal = match &party {
            None => Some(PartyRefusal::NoSuchParty(party_id.clone())),
            Some(party) if !party.is_member(sender) => {
                Some(PartyRefusal::NotYourParty(party_id.clone()))
            }
            Some(_) => None,
        };
        if let Some(refusal) = refusal {
            return Err(refusal.into());
        }
        let recipients: Vec<PlayerId> = party
            .iter()
            .flat_map(|p| p.member_ids())
            .filter(|member| *member != sender)
            .cloned()
            .collect();
        let messages = self.build(&request.caller, message, recipients, Some(party_id))?;
        let count = u32::try_from(messages.len()).unwrap_or(u32::MAX);
        let (spent, blockers) = tokio::join!(
            rate_limits::spend(
                self.limiter.as_ref(),
                sender,
                Bucket::SendMessage,
                self.quota(),
                count,
                self.clock.now_millis(),
            ),
            self.blockers(sender, &messages),
        );
        spent.map_err(|e| RouteError::from_limit(e, limit, NOTHING_SENT))?;
        self.append(request, messages, &blockers?).await
    }

    /// Appends `messages` but those to `blockers`; the ack counts every recipient, so a
    /// blocked sender is answered exactly as if the block did not exist
    /// (shared/src/friends.rs).
    async fn append(
        &self,
        request: &Request,
        messages: Vec<NewMessage>,
        blockers: &[PlayerId],
    ) -> Result<SendMessageAck, RouteError> {
        let queued = messages.len() as u64;
        let messages: Vec<NewMessage> = messages
            .into_iter()
            .filter(|m| !blockers.contains(&m.recipient_id))
            .collect();
        self.messages.append(&messages).await.map_err(|e| {
            RouteError::from_store(
                e,
                "the message may have reached some recipients but not all; retry",
            )
        })?;
        debug!(player_id = %request.caller.player_id, queued, "message queued");
        Ok(SendMessageAck { queued })
    }

    async fn send_to_players(
        &self,
        request: &Request,
        messages: Vec<NewMessage>,
    ) -> Result<SendMessageAck, RouteError> {
        let recipients: Vec<PlayerId> = messages.iter().map(|m| m.recipient_id.clone()).collect();
        let quota = self.quota();
        let count = u32::try_from(recipients.len()).unwrap_or(u32::MAX);
        if quota.units > 0 && count > quota.units {
            return Err(RouteError::bad_request(format!(
                "`playerIds` names {count} players; at most {} a minute may be messaged",
                quota.units
            )));
        }
        let now = self.clock.now_millis();
        // The limits are spent and the recipients checked at once: two round trips in the
        // time of one.
        let (spent, checked) = tokio::join!(
            rate_limits::spend(
                self.limiter.as_ref(),
                &request.caller.player_id,
                Bucket::SendMessage,
                quota,
                count,
                now
            ),
            self.recipients
                .check(&request.caller.player_id, &recipients),
        );
        spent.map_err(|e| RouteError::from_limit(e, limit, NOTHING_SENT))?;
        let checked = checked.map_err(|e| RouteError::from_store(e, NOTHING_SENT))?;
        recipients::all_known(&recipients, checked.known)
            .map_err(|e| RouteError::from_recipients(e, NOTHING_SENT))?;
        self.append(request, messages, &checked.blockers).await
    }
}

const NOTHING_SENT: &str = "nothing was sent; retry";

/// The limit a refused message crossed.
fn limit(exceeded: Exceeded) -> String {
    match exceeded {
        Exceeded::Calls { limit } => format!("{limit} messages a minute"),
        Exceeded::Units { limit } => format!("{limit} recipients a minute"),
    }
}

#[async_trait]
impl Route for SendMessageHandler {
    const SERVES: Serves = Serves {
        function: "send-message",
        routes: &[ClientRoute::SendMessage],
    };

    async fn answer(&self, request: &Request) -> Result<Reply, RouteError> {
        let ClientRequest::SendMessage { body, .. } = &request.frame else {
            return Ok(Reply::WrongRoute);
        };
        let ack = self.send(request, body).await?;
        Ok(Reply::Ack(RouteAck::SendMessage(ack)))
    }
}
