//! The placement events GameLift emits (developer guide, "Game session placement
//! events"), and the SNS envelope Lambda receives them in.
//!
//! The event is EventBridge-shaped: `version` "0", `id`, `detail-type` "GameLift Queue
//! Placement Event", `source` "aws.gamelift", `account`, `time` (whole seconds),
//! `region`, `resources` [the queue ARN], `detail` {`type`, `placementId`, `startTime`,
//! `endTime` (milliseconds), and for PlacementFulfilled `port` (a string),
//! `gameSessionArn`, `ipAddress`, `dnsName`, `gameSessionRegion`,
//! `placedPlayerSessions` [{`playerId`, `playerSessionId`}]}; `customEventData` when
//! the queue has some. SNS delivers it to Lambda as the `Message` string of a record.

use base64::Engine as _;
use serde_json::{Value, json};

use shared::domain::PlacementId;

use super::settings::SimulatorSettings;

pub const DETAIL_TYPE: &str = "GameLift Queue Placement Event";
pub const SOURCE: &str = "aws.gamelift";

/// What ended a placement, with what the event reports of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Fulfilled(Fulfilment),
    Cancelled,
    TimedOut,
    Failed,
}

/// Where a fulfilled placement's game runs, and who got a seat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fulfilment {
    pub game_session_arn: String,
    pub ip_address: String,
    pub dns_name: String,
    pub port: u16,
    /// (player id, player session id), in the order the players were asked for.
    pub placed_player_sessions: Vec<(String, String)>,
}

impl Outcome {
    /// The event's `detail.type`.
    pub fn event_type(&self) -> &'static str {
        match self {
            Self::Fulfilled(_) => "PlacementFulfilled",
            Self::Cancelled => "PlacementCancelled",
            Self::TimedOut => "PlacementTimedOut",
            Self::Failed => "PlacementFailed",
        }
    }
}

/// GameLift's event for a placement that ended at `end_millis`.
pub fn placement_event(
    settings: &SimulatorSettings,
    queue: &str,
    placement_id: &PlacementId,
    start_millis: i64,
    end_millis: i64,
    outcome: &Outcome,
) -> Value {
    let mut detail = json!({
        "type": outcome.event_type(),
        "placementId": placement_id,
        "startTime": iso8601_millis(start_millis),
        "endTime": iso8601_millis(end_millis),
    });
    if let Outcome::Fulfilled(fulfilment) = outcome {
        let placed: Vec<Value> = fulfilment
            .placed_player_sessions
            .iter()
            .map(|(player_id, player_session_id)| {
                json!({"playerId": player_id, "playerSessionId": player_session_id})
            })
            .collect();
        let extra = json!({
            "port": fulfilment.port.to_string(),
            "gameSessionArn": fulfilment.game_session_arn,
            "ipAddress": fulfilment.ip_address,
            "dnsName": fulfilment.dns_name,
            "gameSessionRegion": settings.region,
            "placedPlayerSessions": placed,
        });
        merge(&mut detail, extra);
    }
    if let Some(data) = &settings.custom_event_data {
        merge(&mut detail, json!({"customEventData": data}));
    }
    json!({
        "version": "0",
        "id": uuid_v4(),
        "detail-type": DETAIL_TYPE,
        "source": SOURCE,
        "account": settings.account_id,
        "time": iso8601_seconds(end_millis),
        "region": settings.region,
        "resources": [settings.queue_arn(queue)],
        "detail": detail,
    })
}

/// `event` as SNS delivers it to a subscribed Lambda function: one record whose
/// `Message` is the event's JSON text.
pub fn sns_envelope(
    settings: &SimulatorSettings,
    subscription_id: &str,
    event: &Value,
    at_millis: i64,
) -> Value {
    let topic_arn = settings.topic_arn();
    let subscription_arn = format!("{topic_arn}:{subscription_id}");
    let signature: Vec<u8> = (0..256).map(|_| fastrand::u8(..)).collect();
    json!({
        "Records": [{
            "EventSource": "aws:sns",
            "EventVersion": "1.0",
            "EventSubscriptionArn": subscription_arn,
            "Sns": {
                "Type": "Notification",
                "MessageId": uuid_v4(),
                "TopicArn": topic_arn,
                "Subject": null,
                "Message": event.to_string(),
                "Timestamp": iso8601_millis(at_millis),
                "SignatureVersion": "1",
                "Signature": base64::engine::general_purpose::STANDARD.encode(signature),
                "SigningCertUrl": format!(
                    "https://sns.{}.amazonaws.com/SimpleNotificationService-local.pem",
                    settings.region
                ),
                "UnsubscribeUrl": format!(
                    "https://sns.{}.amazonaws.com/?Action=Unsubscribe&SubscriptionArn={subscription_arn}",
                    settings.region
                ),
                "MessageAttributes": {},
            },
        }],
    })
}

fn merge(into: &mut Value, from: Value) {
    if let (Value::Object(into), Value::Object(from)) = (into, from) {
        into.extend(from);
    }
}

/// A random (version 4) UUID, lower-case hex.
pub fn uuid_v4() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// `2021-03-01T15:50:49.741Z`: placement start and end times.
pub fn iso8601_millis(millis: i64) -> String {
    crate::time::iso8601(millis)
}

/// `2021-03-01T15:50:52Z`: the event's `time`.
pub fn iso8601_seconds(millis: i64) -> String {
    let text = crate::time::iso8601(millis.div_euclid(1000) * 1000);
    match text.strip_suffix(".000Z") {
        Some(seconds) => format!("{seconds}Z"),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use contracts::fixtures::placement_id;

    // 2021-03-01T15:50:49.741Z
    const START: i64 = 1_614_613_849_741;
    const END: i64 = 1_614_613_852_084;

    fn settings() -> SimulatorSettings {
        SimulatorSettings {
            region: "us-west-2".into(),
            ..SimulatorSettings::default()
        }
    }

    #[test]
    fn times_have_the_guide_s_formats() {
        assert_eq!(iso8601_millis(START), "2021-03-01T15:50:49.741Z");
        assert_eq!(iso8601_seconds(END), "2021-03-01T15:50:52Z");
    }

    #[test]
    fn uuids_are_version_4() {
        let id = uuid_v4();
        assert_eq!(id.len(), 36);
        let parts: Vec<&str> = id.split('-').collect();
        assert_eq!(
            parts.iter().map(|p| p.len()).collect::<Vec<_>>(),
            [8, 4, 4, 4, 12]
        );
        assert!(parts[2].starts_with('4'));
        assert!(matches!(
            parts[3].chars().next(),
            Some('8' | '9' | 'a' | 'b')
        ));
        assert_ne!(uuid_v4(), id);
    }

    #[test]
    fn a_fulfilled_event_matches_the_guide() {
        let outcome = Outcome::Fulfilled(Fulfilment {
            game_session_arn: "arn:aws:gamelift:us-west-2::gamesession/fleet-local/abc".into(),
            ip_address: "98.987.98.987".into(),
            dns_name: "ec2-12-345-67-890.us-west-2.compute.amazonaws.com".into(),
            port: 6262,
            placed_player_sessions: vec![("player-1".into(), "psess-1".into())],
        });
        let mut event = placement_event(
            &settings(),
            "MegaFrogRace-NA",
            &placement_id("p-1"),
            START,
            END,
            &outcome,
        );
        assert_eq!(event["id"].as_str().map(str::len), Some(36));
        event["id"] = json!("1111aaaa-bb22-cc33-dd44-5555eeee66ff");
        assert_eq!(
            event,
            json!({
                "version": "0",
                "id": "1111aaaa-bb22-cc33-dd44-5555eeee66ff",
                "detail-type": "GameLift Queue Placement Event",
                "source": "aws.gamelift",
                "account": "123456789012",
                "time": "2021-03-01T15:50:52Z",
                "region": "us-west-2",
                "resources": ["arn:aws:gamelift:us-west-2:123456789012:gamesessionqueue/MegaFrogRace-NA"],
                "detail": {
                    "type": "PlacementFulfilled",
                    "placementId": "p-1",
                    "port": "6262",
                    "gameSessionArn": "arn:aws:gamelift:us-west-2::gamesession/fleet-local/abc",
                    "ipAddress": "98.987.98.987",
                    "dnsName": "ec2-12-345-67-890.us-west-2.compute.amazonaws.com",
                    "startTime": "2021-03-01T15:50:49.741Z",
                    "endTime": "2021-03-01T15:50:52.084Z",
                    "gameSessionRegion": "us-west-2",
                    "placedPlayerSessions": [{"playerId": "player-1", "playerSessionId": "psess-1"}]
                }
            })
        );
    }

    #[test]
    fn other_outcomes_carry_only_the_placement_and_its_times() {
        for (outcome, kind) in [
            (Outcome::Cancelled, "PlacementCancelled"),
            (Outcome::TimedOut, "PlacementTimedOut"),
            (Outcome::Failed, "PlacementFailed"),
        ] {
            let event =
                placement_event(&settings(), "q", &placement_id("p-2"), START, END, &outcome);
            assert_eq!(
                event["detail"],
                json!({
                    "type": kind,
                    "placementId": "p-2",
                    "startTime": "2021-03-01T15:50:49.741Z",
                    "endTime": "2021-03-01T15:50:52.084Z",
                })
            );
        }
    }

    #[test]
    fn custom_event_data_is_copied_when_the_queue_has_some() {
        let settings = SimulatorSettings {
            custom_event_data: Some("game=frogs".into()),
            ..settings()
        };
        let event = placement_event(
            &settings,
            "q",
            &placement_id("p-3"),
            START,
            END,
            &Outcome::Cancelled,
        );
        assert_eq!(event["detail"]["customEventData"], "game=frogs");
    }

    #[test]
    fn the_envelope_is_what_sns_hands_lambda() {
        let event = placement_event(
            &settings(),
            "q",
            &placement_id("p-4"),
            START,
            END,
            &Outcome::TimedOut,
        );
        let envelope = sns_envelope(&settings(), "sub-1", &event, END);
        let record = &envelope["Records"][0];
        assert_eq!(envelope["Records"].as_array().map(Vec::len), Some(1));
        assert_eq!(record["EventSource"], "aws:sns");
        assert_eq!(record["EventVersion"], "1.0");
        assert_eq!(
            record["EventSubscriptionArn"],
            "arn:aws:sns:us-west-2:123456789012:gamelift-placement-events:sub-1"
        );
        let sns = &record["Sns"];
        assert_eq!(sns["Type"], "Notification");
        assert_eq!(
            sns["TopicArn"],
            "arn:aws:sns:us-west-2:123456789012:gamelift-placement-events"
        );
        assert!(sns["Subject"].is_null());
        assert_eq!(sns["Timestamp"], "2021-03-01T15:50:52.084Z");
        assert_eq!(sns["SignatureVersion"], "1");
        assert!(sns["Signature"].as_str().is_some_and(|s| s.len() > 300));
        assert!(
            sns["SigningCertUrl"]
                .as_str()
                .is_some_and(|u| u.starts_with("https://sns.us-west-2.amazonaws.com/"))
        );
        assert!(
            sns["UnsubscribeUrl"]
                .as_str()
                .is_some_and(|u| u.ends_with(":sub-1"))
        );
        assert_eq!(sns["MessageAttributes"], json!({}));
        let message: Value = serde_json::from_str(sns["Message"].as_str().unwrap()).unwrap();
        assert_eq!(message, event);
    }

    /// What `on-placement-event` reads with: `aws_lambda_events`' SNS and EventBridge
    /// types.
    #[test]
    fn the_envelope_and_the_event_parse_as_lambda_event_types() {
        use aws_lambda_events::event::eventbridge::EventBridgeEvent;
        use aws_lambda_events::event::sns::SnsEvent;
        let outcome = Outcome::Fulfilled(Fulfilment {
            game_session_arn: "arn:aws:gamelift:us-west-2::gamesession/fleet-local/abc".into(),
            ip_address: "127.0.0.1".into(),
            dns_name: "localhost".into(),
            port: 7777,
            placed_player_sessions: vec![("player-1".into(), "psess-1".into())],
        });
        let event = placement_event(&settings(), "q", &placement_id("p-5"), START, END, &outcome);
        let envelope = sns_envelope(&settings(), "sub-1", &event, END);
        let sns: SnsEvent = serde_json::from_value(envelope).expect("an SnsEvent");
        assert_eq!(sns.records.len(), 1);
        let record = &sns.records[0];
        assert_eq!(record.event_source, "aws:sns");
        assert_eq!(record.sns.sns_message_type, "Notification");
        assert_eq!(record.sns.subject, None);
        assert_eq!(record.sns.timestamp.timestamp_millis(), END);
        let parsed: EventBridgeEvent<Value> =
            serde_json::from_str(&record.sns.message).expect("an EventBridgeEvent");
        assert_eq!(parsed.detail_type, DETAIL_TYPE);
        assert_eq!(parsed.source, SOURCE);
        assert_eq!(parsed.version.as_deref(), Some("0"));
        assert_eq!(parsed.region.as_deref(), Some("us-west-2"));
        assert_eq!(parsed.time.map(|t| t.timestamp()), Some(END / 1000));
        assert_eq!(parsed.detail["port"], "7777");
    }
}
