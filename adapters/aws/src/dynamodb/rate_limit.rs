//! [`RateLimiter`] on the Players table: each bucket's window lives on the player's own
//! item as three numbers, `<bucket>Window` (its start, ms), `<bucket>Calls` and
//! `<bucket>Units`. None is a key of the table or projected into its index, so a spend
//! writes the item and nothing else.
//!
//! Within a window a spend is one UpdateItem: `ADD` the call and its units, conditioned
//! on the window being the current one and the sums staying within the quota. When the
//! condition fails, the old item (returned with the failure, no extra read) says why: over
//! a limit (refused: that single write was the whole cost), or an older window, which a
//! second UpdateItem restarts at this call (once per window and player).

use std::collections::HashMap;

use async_trait::async_trait;
use aws_sdk_dynamodb::operation::update_item::UpdateItemError;
use aws_sdk_dynamodb::operation::update_item::builders::UpdateItemFluentBuilder;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnValuesOnConditionCheckFailure};

use super::DynamoPlayerStore;
use super::error::{Failure, classify};
use super::item::n;
use super::player_item::{attr, key};
use crate::calls::{AwsCall, Calls};
use shared::domain::{EpochMillis, PlayerId};
use shared::ports::RateLimiter;
use shared::ports::StoreError;
use shared::rate_limits::{self, Bucket, Exceeded, Quota, Spent};

/// Restarting a window can lose a race to another call restarting it; then the count
/// goes through the current window's path. Two rounds settle it; more is a fault.
const SPEND_ATTEMPTS: u32 = 4;

/// The attribute names of a bucket's window.
struct Names {
    window: String,
    calls: String,
    units: String,
}

impl Names {
    fn of(bucket: Bucket) -> Self {
        let prefix = bucket.as_str();
        Self {
            window: format!("{prefix}Window"),
            calls: format!("{prefix}Calls"),
            units: format!("{prefix}Units"),
        }
    }
}

type Item = HashMap<String, AttributeValue>;

/// A number attribute of `item`, 0 when absent or not a number.
fn number(item: &Item, name: &str) -> u64 {
    item.get(name)
        .and_then(|v| v.as_n().ok())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

fn window_start(item: &Item, name: &str) -> Option<EpochMillis> {
    item.get(name)
        .and_then(|v| v.as_n().ok())
        .and_then(|v| v.parse().ok())
}

/// Why a conditional update failed: the old item, if the player has one.
enum Refused {
    NoItem,
    Old(Item),
}

impl DynamoPlayerStore {
    /// Counts the call in the current window if it fits: `Ok(None)` when counted.
    async fn add_to_window(
        &self,
        player: &PlayerId,
        names: &Names,
        quota: Quota,
        units: u32,
        window: EpochMillis,
    ) -> Result<Option<Refused>, StoreError> {
        let mut condition = String::from("#w = :w");
        let mut request = self
            .window_update(player, names, units, window)
            .update_expression("ADD #c :one, #u :units");
        if quota.calls > 0 {
            condition.push_str(" AND #c < :maxCalls");
            request = request.expression_attribute_values(":maxCalls", n(quota.calls));
        }
        if quota.units > 0 {
            condition.push_str(" AND #u <= :unitsRoom");
            request = request
                .expression_attribute_values(":unitsRoom", n(quota.units.saturating_sub(units)));
        }
        conditional(request.condition_expression(condition).send().await)
    }

    /// Starts the current window at this call, if the item's window is older.
    async fn restart_window(
        &self,
        player: &PlayerId,
        names: &Names,
        units: u32,
        window: EpochMillis,
    ) -> Result<Option<Refused>, StoreError> {
        let result = self
            .window_update(player, names, units, window)
            .update_expression("SET #w = :w, #c = :one, #u = :units")
            .condition_expression(
                "attribute_exists(#player) AND (attribute_not_exists(#w) OR #w < :w)",
            )
            .expression_attribute_names("#player", attr::PLAYER_ID)
            .send()
            .await;
        conditional(result)
    }

    /// An update of `player`'s item naming its window (`#w`: `:w`) and counters (`#c`,
    /// `#u`: `:one`, `:units`) for the expressions above; a refusal brings the old item.
    fn window_update(
        &self,
        player: &PlayerId,
        names: &Names,
        units: u32,
        window: EpochMillis,
    ) -> UpdateItemFluentBuilder {
        self.client
            .update_item()
            .table_name(self.table())
            .set_key(Some(key(player)))
            .expression_attribute_names("#w", &names.window)
            .expression_attribute_names("#c", &names.calls)
            .expression_attribute_names("#u", &names.units)
            .expression_attribute_values(":w", n(window))
            .expression_attribute_values(":one", n(1))
            .expression_attribute_values(":units", n(units))
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
    }
}

/// `Ok(None)` if the update went through, the refusal if its condition failed.
fn conditional<T>(
    result: Result<
        T,
        aws_sdk_dynamodb::error::SdkError<
            UpdateItemError,
            aws_sdk_dynamodb::config::http::HttpResponse,
        >,
    >,
) -> Result<Option<Refused>, StoreError> {
    let err = match result {
        Ok(_) => return Ok(None),
        Err(err) => err,
    };
    let old = match err.as_service_error() {
        Some(UpdateItemError::ConditionalCheckFailedException(failed)) => failed.item().cloned(),
        _ => None,
    };
    match classify(err) {
        Failure::ConditionFailed => Ok(Some(old.map_or(Refused::NoItem, Refused::Old))),
        Failure::Store(err) => Err(err),
    }
}

#[async_trait]
impl RateLimiter for DynamoPlayerStore {
    async fn spend(
        &self,
        player: &PlayerId,
        bucket: Bucket,
        quota: Quota,
        units: u32,
        now: EpochMillis,
    ) -> Result<Spent, StoreError> {
        if quota.is_off() {
            return Ok(Spent::Allowed);
        }
        let limited = |exceeded| Spent::Limited {
            exceeded,
            retry_after_ms: rate_limits::retry_after(now),
        };
        if quota.units > 0 && units > quota.units {
            // Would not fit even an empty window: refused without a write.
            return Ok(limited(Exceeded::Units { limit: quota.units }));
        }
        let names = Names::of(bucket);
        let window = rate_limits::window_of(now);
        for _ in 0..SPEND_ATTEMPTS {
            let old = match self
                .add_to_window(player, &names, quota, units, window)
                .await?
            {
                None => return Ok(Spent::Allowed),
                Some(Refused::NoItem) => return Ok(Spent::Allowed),
                Some(Refused::Old(old)) => old,
            };
            if window_start(&old, &names.window).is_some_and(|start| start >= window) {
                let (calls, counted) = (number(&old, &names.calls), number(&old, &names.units));
                match rate_limits::fits(quota, calls, counted, units) {
                    Some(exceeded) => return Ok(limited(exceeded)),
                    // The counts fell between the write and now (cannot, within one
                    // window): count again.
                    None => continue,
                }
            }
            match self.restart_window(player, &names, units, window).await? {
                None => return Ok(Spent::Allowed),
                Some(Refused::NoItem) => return Ok(Spent::Allowed),
                // Another call restarted it first: count in it.
                Some(Refused::Old(_)) => continue,
            }
        }
        Err(StoreError::Unavailable(
            format!(
                "the {} rate-limit window of {player} kept changing over {SPEND_ATTEMPTS} attempts",
                bucket.as_str()
            )
            .into(),
        ))
    }
}

impl Calls<dyn RateLimiter> for DynamoPlayerStore {
    fn calls(&self) -> Vec<AwsCall> {
        AwsCall::on_table(self.table(), &["UpdateItem"])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_attribute_names_are_per_bucket() {
        let names = Names::of(Bucket::SendMessage);
        assert_eq!(
            (
                names.window.as_str(),
                names.calls.as_str(),
                names.units.as_str()
            ),
            ("sendMessageWindow", "sendMessageCalls", "sendMessageUnits")
        );
        assert_eq!(Names::of(Bucket::Placement).window, "placementWindow");
    }
}
