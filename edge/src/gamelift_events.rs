//! GameLift's events (queue placements, FlexMatch) as a function receives them: an SNS
//! event, each record's `Message` one GameLift event as JSON text (a queue's or a
//! matchmaking configuration's notification topic), or one EventBridge event (a rule on
//! the default bus). Both carry the same EventBridge-shaped event; [`read`] takes it out
//! of either envelope, so the placement and matchmaking readers only read its `detail`.
//!
//! Each event is read on its own: what is not a GameLift event of the expected kind is an
//! [`EnvelopeError`] in its place, so the other records of a batch are still handled.

use std::sync::Arc;

use aws_lambda_events::event::eventbridge::EventBridgeEvent;
use aws_lambda_events::event::sns::SnsRecord;
use serde::Deserialize;
use serde_json::Value;
use shared::config::Config;
use shared::metrics::Ignored;
use shared::ports::{Clock, StoreError};
use shared::seats::SeatConnector;
use shared::wiring::{Stores, Wiring};

/// `source` of GameLift events.
pub const GAMELIFT_SOURCE: &str = "aws.gamelift";

/// A GameLift event as EventBridge shapes it (`detail` read by its kind's reader).
pub type GameLiftEvent = EventBridgeEvent<Value>;

/// Why a payload, or one record of it, holds no GameLift event of the expected kind.
#[derive(Debug, thiserror::Error)]
pub enum EnvelopeError {
    #[error(
        "neither an SNS event (`Records`) nor an EventBridge event (`detail-type`): no GameLift event in it"
    )]
    UnknownShape,
    #[error("not an SNS record")]
    NotSns(#[source] serde_json::Error),
    #[error("the SNS message is not JSON")]
    NotJson(#[source] serde_json::Error),
    #[error("not an EventBridge event")]
    NotEventBridge(#[source] serde_json::Error),
    #[error(
        "not a {expected:?} from {GAMELIFT_SOURCE} (source {source_name:?}, detail-type {detail_type:?})"
    )]
    OtherEvent {
        expected: String,
        source_name: String,
        detail_type: String,
    },
}

/// The GameLift events of `detail_type` in an invocation's payload: one per SNS record
/// (its `Message`), or the EventBridge event itself; each, or why it is not one.
pub fn read(payload: &Value, detail_type: &str) -> Vec<Result<GameLiftEvent, EnvelopeError>> {
    let of_kind = |event: Result<GameLiftEvent, EnvelopeError>| {
        event.and_then(|event| expect_kind(event, detail_type))
    };
    if let Some(records) = payload.get("Records") {
        return match records.as_array() {
            Some(records) => records.iter().map(sns_message).map(of_kind).collect(),
            None => vec![Err(EnvelopeError::UnknownShape)],
        };
    }
    if payload.get("detail-type").is_some() {
        return vec![of_kind(
            GameLiftEvent::deserialize(payload).map_err(EnvelopeError::NotEventBridge),
        )];
    }
    vec![Err(EnvelopeError::UnknownShape)]
}

/// The event an SNS record carries as its `Message`.
fn sns_message(record: &Value) -> Result<GameLiftEvent, EnvelopeError> {
    let record = SnsRecord::deserialize(record).map_err(EnvelopeError::NotSns)?;
    let message: Value =
        serde_json::from_str(&record.sns.message).map_err(EnvelopeError::NotJson)?;
    GameLiftEvent::deserialize(&message).map_err(EnvelopeError::NotEventBridge)
}

fn expect_kind(event: GameLiftEvent, detail_type: &str) -> Result<GameLiftEvent, EnvelopeError> {
    if event.source == GAMELIFT_SOURCE && event.detail_type == detail_type {
        return Ok(event);
    }
    Err(EnvelopeError::OtherEvent {
        expected: detail_type.to_owned(),
        source_name: event.source,
        detail_type: event.detail_type,
    })
}

/// A GameLift event handler built on `stores`, its seats' connection details from
/// `seats`: what its function's `wire` builds (through [`wire`]), and what the local
/// stack builds before its wiring (the simulator the seats ask is started after the
/// handler it sends events to).
pub type Seated<H> = fn(Arc<Config>, &dyn Stores, Arc<dyn Clock>, SeatConnector) -> H;

/// A GameLift event handler as every deployment builds it: `seated` on the wiring's
/// stores, its seats' connection details as `PLAYER_GATEWAY` says.
pub fn wire<H>(w: &Wiring, seated: Seated<H>) -> H {
    seated(
        w.config.clone(),
        &*w.stores,
        w.clock.clone(),
        w.seat_connector(),
    )
}

/// What a GameLift event handler did with an invocation's events besides its changes.
#[derive(Debug, Default)]
pub struct Handled {
    /// Each event (malformed) or ticket of an event that changed nothing, why.
    pub ignored: Vec<Ignored>,
    /// The first failure a retry may fix.
    pub retry: Option<StoreError>,
}

impl Handled {
    /// The invocation's result, the ignored events counted (the `IgnoredEvents` metric):
    /// `Err` when something could not be handled for a reason a retry may fix (after
    /// trying all the others), so Lambda retries the invocation.
    pub fn finish(self) -> Result<(), lambda_runtime::Error> {
        for reason in self.ignored {
            shared::metrics::ignored_event(reason);
        }
        match self.retry {
            Some(err) => Err(err.into()),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const PLACEMENT: &str = "GameLift Queue Placement Event";
    const MATCHMAKING: &str = "GameLift Matchmaking Event";

    fn sample(text: &str) -> Value {
        serde_json::from_str(text).unwrap()
    }

    fn read_one(payload: &Value, detail_type: &str) -> Result<GameLiftEvent, EnvelopeError> {
        let mut events = read(payload, detail_type);
        assert_eq!(events.len(), 1, "{events:?}");
        events.remove(0)
    }

    #[test]
    fn given_an_sns_and_an_eventbridge_delivery_of_one_event_then_both_read_the_same_event() {
        let sns = sample(include_str!("../../events/placement-fulfilled-sns.json"));
        let eventbridge = sample(include_str!(
            "../../events/placement-fulfilled-eventbridge.json"
        ));
        let from_sns = read_one(&sns, PLACEMENT).unwrap();
        let from_eventbridge = read_one(&eventbridge, PLACEMENT).unwrap();
        assert_eq!(from_sns.detail, from_eventbridge.detail);
        assert_eq!(from_sns.detail["type"], json!("PlacementFulfilled"));
    }

    #[test]
    fn given_flexmatch_events_in_either_envelope_then_each_reads_with_its_detail() {
        let sns = sample(include_str!("../../events/matchmaking-succeeded-sns.json"));
        let eventbridge = sample(include_str!("../../events/matchmaking-succeeded.json"));
        for payload in [sns, eventbridge] {
            let event = read_one(&payload, MATCHMAKING).unwrap();
            assert_eq!(event.detail["type"], json!("MatchmakingSucceeded"));
            assert!(event.time.is_some());
        }
    }

    #[test]
    fn given_an_event_of_another_kind_then_it_is_refused_naming_what_it_is() {
        let placement = sample(include_str!(
            "../../events/placement-cancelled-eventbridge.json"
        ));
        let err = read_one(&placement, MATCHMAKING).unwrap_err();
        assert_eq!(
            err.to_string(),
            "not a \"GameLift Matchmaking Event\" from aws.gamelift (source \"aws.gamelift\", \
             detail-type \"GameLift Queue Placement Event\")"
        );
    }

    #[test]
    fn given_a_body_that_is_neither_envelope_then_the_error_says_so() {
        for payload in [json!({"hello": 1}), json!([1, 2]), json!({"Records": 5})] {
            let err = read_one(&payload, PLACEMENT).unwrap_err();
            assert!(matches!(err, EnvelopeError::UnknownShape), "{err:?}");
            assert!(err.to_string().starts_with("neither an SNS event"), "{err}");
        }
    }

    #[test]
    fn given_bad_records_then_each_is_refused_in_its_place_and_the_good_one_read() {
        let good =
            sample(include_str!("../../events/placement-cancelled-sns.json"))["Records"][0].clone();
        let mut not_json = good.clone();
        not_json["Sns"]["Message"] = json!("{not json");
        let mut not_eventbridge = good.clone();
        not_eventbridge["Sns"]["Message"] = json!("{\"hello\": 1}");
        let payload =
            json!({"Records": [{"Sns": {"Message": "{}"}}, not_json, not_eventbridge, good]});
        let events = read(&payload, PLACEMENT);
        assert!(matches!(events[0], Err(EnvelopeError::NotSns(_))));
        assert!(matches!(events[1], Err(EnvelopeError::NotJson(_))));
        assert!(matches!(events[2], Err(EnvelopeError::NotEventBridge(_))));
        assert!(events[3].is_ok());
    }
}
