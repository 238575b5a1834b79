//! `subscribePresence` / `unsubscribePresence`: a player starts or stops watching up to
//! 100 players' presence; `setActivity` (the `activity` module): a player sets what they
//! are doing, which watchers see with their presence. One function serves the three
//! routes; the request's route says which.
//!
//! Subscribe: one BatchWriteItem per 25 targets, then one BatchGetItem for the targets'
//! current status, which the ack carries so the client starts from a known state.
//! Subscriptions last a connection's lifetime at most (TTL); clients subscribe again
//! after reconnecting. Unsubscribe: one BatchWriteItem per 25 targets.

use std::sync::Arc;

pub use activity::ActivityPorts;
use async_trait::async_trait;
use edge::websocket::{CallLimit, Caller, Reply, Request, Route, RouteError, Serves};
use shared::acks::{RouteAck, SubscribePresenceAck, UnsubscribePresenceAck};
use shared::domain::EpochMillis;
use shared::ports::{Clock, PlayerLookup, Subscriptions};
use shared::presence::SUBSCRIPTION_TTL_SECONDS;
use shared::rate_limits::Bucket;
use shared::requests::{ClientRequest, PlayerIdsBody, Route as ClientRoute};
use tracing::info;

pub const SUBSCRIBE_ROUTE: &str = ClientRoute::SubscribePresence.as_str();
pub const UNSUBSCRIBE_ROUTE: &str = ClientRoute::UnsubscribePresence.as_str();

pub use shared::presence::watched_status;

mod activity;

/// When a subscription made on a connection opened at `connected_at` expires (epoch
/// seconds): when that connection must have ended (API Gateway closes it after 2 h), so
/// the subscription lasts its lifetime at most. Without a `connectedAt` (0, as in a
/// hand-made event) it is counted from `now`, the latest the connection can have opened.
pub fn subscription_expire_at_secs(connected_at: EpochMillis, now: EpochMillis) -> i64 {
    let from = if connected_at > 0 { connected_at } else { now };
    from.div_euclid(1000) + SUBSCRIPTION_TTL_SECONDS
}

shared::wired! {
    /// `subscribePresence`, `unsubscribePresence` and `setActivity` as every deployment
    /// builds them.
    pub fn wire(w) -> pub struct SubscribePresenceHandler {
        players: Arc<dyn PlayerLookup> = w.stores.player_lookup(),
        subscriptions: Arc<dyn Subscriptions> = w.stores.subscriptions(),
        clock: Arc<dyn Clock> = w.clock.clone(),
        activity: ActivityPorts = ActivityPorts {
            activities: w.stores.activities(),
            events: w.services.event_bus(),
            limit: CallLimit::new(
                w,
                Bucket::Activity,
                w.config.rate_limits.activity_per_minute,
                "activity changes",
            ),
            clock: w.clock.clone(),
        },
    }
}

impl SubscribePresenceHandler {
    async fn subscribe(
        &self,
        caller: &Caller,
        body: &PlayerIdsBody,
    ) -> Result<SubscribePresenceAck, RouteError> {
        let targets = &body.player_ids;
        let now = self.clock.now_millis();
        let expire_at_secs = subscription_expire_at_secs(caller.connected_at, now);
        self.subscriptions
            .subscribe(&caller.player_id, targets, expire_at_secs)
            .await
            .map_err(|e| {
                RouteError::from_store(e, "the subscription could not be stored; retry")
            })?;
        let records = self.players.get_many(targets).await.map_err(|e| {
            RouteError::from_store(
                e,
                "subscribed, but the current status could not be read; retry",
            )
        })?;
        let presence = targets
            .iter()
            .map(|target| {
                let record = records.iter().find(|r| r.player_id == *target);
                (target.clone(), watched_status(record, now))
            })
            .collect();
        info!(player_id = %caller.player_id, targets = targets.len(), "subscribed to presence");
        Ok(SubscribePresenceAck { presence })
    }

    async fn unsubscribe(
        &self,
        caller: &Caller,
        body: &PlayerIdsBody,
    ) -> Result<UnsubscribePresenceAck, RouteError> {
        let targets = &body.player_ids;
        self.subscriptions
            .unsubscribe(&caller.player_id, targets)
            .await
            .map_err(|e| {
                RouteError::from_store(e, "the subscriptions could not all be removed; retry")
            })?;
        info!(player_id = %caller.player_id, targets = targets.len(), "unsubscribed from presence");
        Ok(UnsubscribePresenceAck {
            unsubscribed: targets.len() as u64,
        })
    }
}

#[async_trait]
impl Route for SubscribePresenceHandler {
    const SERVES: Serves = Serves {
        function: "subscribe-presence",
        routes: &[
            ClientRoute::SubscribePresence,
            ClientRoute::UnsubscribePresence,
            ClientRoute::SetActivity,
        ],
    };

    async fn answer(&self, request: &Request) -> Result<Reply, RouteError> {
        let ack = match &request.frame {
            ClientRequest::SubscribePresence { body, .. } => {
                RouteAck::SubscribePresence(self.subscribe(&request.caller, body).await?)
            }
            ClientRequest::UnsubscribePresence { body, .. } => {
                RouteAck::UnsubscribePresence(self.unsubscribe(&request.caller, body).await?)
            }
            ClientRequest::SetActivity { body, .. } => {
                RouteAck::SetActivity(self.activity.set(&request.caller, body).await?)
            }
            _ => return Ok(Reply::WrongRoute),
        };
        Ok(Reply::Ack(ack))
    }
}

#[cfg(test)]
mod tests;
