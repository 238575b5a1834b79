//! `on-placement-event`: GameLift queue placement events → the placement
//! settled and one `placement` message per player, which the Messages stream delivers.
//!
//! Input: the SNS event of the queue's notification topic (a standard topic; each
//! record's `Message` is the whole GameLift event as a JSON string), or the same event
//! delivered by an EventBridge rule. The payload is taken raw and its shape detected,
//! so one malformed record is logged and skipped instead of failing (and endlessly
//! retrying) the whole invocation.
//!
//! Per event, round trips:
//! - FULFILLED with P placed players: ONE `TransactWriteItems` (1 + 2P writes: the
//!   placement, conditional on PENDING; each player's pending placement cleared and
//!   seat stored; each player's message). The event names the players, so nothing is
//!   read first.
//! - CANCELLED / TIMED_OUT / FAILED: one GetItem (the event does not name the players:
//!   they come from the placement record, which also lets a duplicate stop here) + ONE
//!   `TransactWriteItems` (1 + 2P writes).
//! - A duplicate or out-of-order event: its transaction is cancelled by the placement's
//!   condition, so it writes nothing (and delivers nothing twice).
//!
//! Fewer is not possible with the guarantees asked: the status change, the players'
//! game state and the messages must commit together or not at all (else a retry after
//! a partial failure would either lose the players' messages or deliver them twice),
//! and DynamoDB's only multi-item atomic write is one transaction. (Above 49 players a
//! settlement takes one transaction per 49; see `DynamoPlacementOutcomes`.)
//!
//! Failures: a malformed event is logged and skipped (`Ok`); a transient store failure
//! returns `Err`, so Lambda retries the invocation (settlement is idempotent); a
//! corrupt placement item is logged and skipped (a retry cannot repair it).

use std::collections::HashSet;
use std::sync::Arc;

use aws_lambda_events::event::eventbridge::EventBridgeEvent;
use aws_lambda_events::event::sns::SnsRecord;
use lambda_runtime::LambdaEvent;
use serde::Deserialize;
use serde_json::Value;
use shared::config::Config;
use shared::domain::{MessageId, PlacementStatus, PlayerId};
use shared::ports::{
    Clock, MessageKind, NewMessage, PlacedGameSession, PlacementOutcomes, PlacementStore,
    SettledPlayer, Settlement, StoreError,
};
use shared::protocol::ServerFrame;
use shared::telemetry::ErrorChain;
use tracing::{error, info, warn};

/// `detail-type` of GameLift queue placement events.
pub const PLACEMENT_DETAIL_TYPE: &str = "GameLift Queue Placement Event";
/// `source` of GameLift events.
pub const GAMELIFT_SOURCE: &str = "aws.gamelift";
/// `senderId` of placement messages.
pub const SYSTEM_SENDER: &str = "system";

/// Why an event was skipped.
#[derive(Debug, thiserror::Error)]
pub enum MalformedEvent {
    #[error("the SNS message is not JSON")]
    NotJson(#[source] serde_json::Error),
    #[error("not an SNS record")]
    NotSns(#[source] serde_json::Error),
    #[error("not an EventBridge event")]
    NotEventBridge(#[source] serde_json::Error),
    #[error("neither an SNS event nor an EventBridge event")]
    UnknownShape,
    #[error(
        "not a GameLift queue placement event (source {source_name:?}, detail-type {detail_type:?})"
    )]
    NotAPlacementEvent {
        source_name: String,
        detail_type: String,
    },
    #[error("the placement event's detail is malformed")]
    Detail(#[source] serde_json::Error),
    #[error("unknown placement event type {0:?}")]
    UnknownType(String),
    #[error("placement event {placement_id}: {reason}")]
    Invalid {
        placement_id: String,
        reason: String,
    },
}

/// What a placement event says happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlacementOutcome {
    Fulfilled {
        game_session: PlacedGameSession,
        /// Each placed player once, with their own player session.
        placed: Vec<(PlayerId, String)>,
    },
    /// CANCELLED, TIMED_OUT or FAILED.
    Ended(PlacementStatus),
}

/// One parsed GameLift placement event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlacementEvent {
    pub placement_id: String,
    pub outcome: PlacementOutcome,
}

impl PlacementEvent {
    pub fn status(&self) -> PlacementStatus {
        match &self.outcome {
            PlacementOutcome::Fulfilled { .. } => PlacementStatus::Fulfilled,
            PlacementOutcome::Ended(status) => *status,
        }
    }

    /// Parses the GameLift event (the EventBridge form: `detail-type`, `source`,
    /// `detail`), as EventBridge delivers it and as SNS carries it in `Message`.
    pub fn parse(event: Value) -> Result<Self, MalformedEvent> {
        let event: EventBridgeEvent<Value> =
            serde_json::from_value(event).map_err(MalformedEvent::NotEventBridge)?;
        if event.source != GAMELIFT_SOURCE || event.detail_type != PLACEMENT_DETAIL_TYPE {
            return Err(MalformedEvent::NotAPlacementEvent {
                source_name: event.source,
                detail_type: event.detail_type,
            });
        }
        let detail: Detail =
            serde_json::from_value(event.detail).map_err(MalformedEvent::Detail)?;
        let placement_id = detail.placement_id.clone();
        let invalid = |reason: String| MalformedEvent::Invalid {
            placement_id: placement_id.clone(),
            reason,
        };
        if placement_id.is_empty() {
            return Err(invalid("placementId is empty".into()));
        }
        let outcome = match detail.kind.as_str() {
            "PlacementFulfilled" => detail.fulfilled(event.region.as_deref()).map_err(invalid)?,
            "PlacementCancelled" => PlacementOutcome::Ended(PlacementStatus::Cancelled),
            "PlacementTimedOut" => PlacementOutcome::Ended(PlacementStatus::TimedOut),
            "PlacementFailed" => PlacementOutcome::Ended(PlacementStatus::Failed),
            other => return Err(MalformedEvent::UnknownType(other.to_owned())),
        };
        Ok(Self {
            placement_id,
            outcome,
        })
    }
}

/// `detail` of a placement event; only what we use (GameLift adds fields freely).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Detail {
    #[serde(rename = "type")]
    kind: String,
    placement_id: String,
    /// A string in GameLift's events (a number is accepted too).
    #[serde(default)]
    port: Option<Value>,
    #[serde(default)]
    game_session_arn: Option<String>,
    #[serde(default)]
    ip_address: Option<String>,
    #[serde(default)]
    dns_name: Option<String>,
    #[serde(default)]
    game_session_region: Option<String>,
    #[serde(default)]
    placed_player_sessions: Vec<PlacedPlayerSession>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct PlacedPlayerSession {
    player_id: String,
    player_session_id: String,
}

impl Detail {
    fn fulfilled(self, event_region: Option<&str>) -> Result<PlacementOutcome, String> {
        let port = match &self.port {
            Some(Value::String(raw)) => raw.trim().parse::<u16>().ok(),
            Some(Value::Number(raw)) => raw.as_u64().and_then(|p| u16::try_from(p).ok()),
            _ => None,
        }
        .filter(|port| *port > 0)
        .ok_or_else(|| format!("port {:?} is not a port number", self.port))?;
        let game_session_arn = self
            .game_session_arn
            .filter(|arn| !arn.is_empty())
            .ok_or("gameSessionArn is missing")?;
        let ip_address = self
            .ip_address
            .filter(|ip| !ip.is_empty())
            .ok_or("ipAddress is missing")?;
        // `arn:aws:gamelift:<region>::gamesession/...`
        let arn_region = game_session_arn
            .split(':')
            .nth(3)
            .filter(|r| !r.is_empty())
            .map(str::to_owned);
        let region = self
            .game_session_region
            .filter(|r| !r.is_empty())
            .or(arn_region)
            .or_else(|| event_region.map(str::to_owned))
            .ok_or("gameSessionRegion is missing")?;
        let mut seen = HashSet::new();
        let mut placed = Vec::with_capacity(self.placed_player_sessions.len());
        for session in self.placed_player_sessions {
            match PlayerId::parse(session.player_id.as_str()) {
                Ok(player) if seen.insert(player.clone()) => {
                    placed.push((player, session.player_session_id));
                }
                Ok(_) => {}
                // Not a player id this system issues: not one of our players.
                Err(e) => {
                    warn!(player_id = %session.player_id, error = %e, "skipping a placed player with an id this system does not use");
                }
            }
        }
        Ok(PlacementOutcome::Fulfilled {
            game_session: PlacedGameSession {
                game_session_arn,
                ip_address,
                // TLS fleets need it; a fleet without one gets an empty name.
                dns_name: self.dns_name.unwrap_or_default(),
                port,
                region,
            },
            placed,
        })
    }
}

/// The GameLift events in an invocation's payload: each SNS record's message, or the
/// EventBridge event itself; what cannot be read is reported in place.
pub fn events_of(payload: Value) -> Vec<Result<Value, MalformedEvent>> {
    match payload {
        Value::Object(mut object) if object.contains_key("Records") => {
            let records = match object.remove("Records") {
                Some(Value::Array(records)) => records,
                _ => return vec![Err(MalformedEvent::UnknownShape)],
            };
            records
                .into_iter()
                .map(|record| {
                    let record: SnsRecord =
                        serde_json::from_value(record).map_err(MalformedEvent::NotSns)?;
                    serde_json::from_str(&record.sns.message).map_err(MalformedEvent::NotJson)
                })
                .collect()
        }
        Value::Object(object) if object.contains_key("detail-type") => {
            vec![Ok(Value::Object(object))]
        }
        _ => vec![Err(MalformedEvent::UnknownShape)],
    }
}

pub struct PlacementEventHandler {
    config: Arc<Config>,
    placements: Arc<dyn PlacementStore>,
    outcomes: Arc<dyn PlacementOutcomes>,
    clock: Arc<dyn Clock>,
}

impl PlacementEventHandler {
    pub fn new(
        config: Arc<Config>,
        placements: Arc<dyn PlacementStore>,
        outcomes: Arc<dyn PlacementOutcomes>,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self {
            config,
            placements,
            outcomes,
            clock,
        }
    }

    /// Settles every event of the invocation. `Err` only when some event could not be
    /// settled for a reason a retry may fix (after trying all the others).
    pub async fn handle(&self, event: LambdaEvent<Value>) -> Result<(), lambda_runtime::Error> {
        let mut retry: Option<StoreError> = None;
        for (index, raw) in events_of(event.payload).into_iter().enumerate() {
            let parsed = raw.and_then(PlacementEvent::parse);
            let placement = match parsed {
                Ok(placement) => placement,
                Err(malformed) => {
                    warn!(record = index, error = %ErrorChain(&malformed), "skipping a malformed placement event");
                    continue;
                }
            };
            match self.settle(&placement).await {
                Ok(()) => {}
                Err(StoreError::Corrupt { key, reason }) => {
                    error!(placement_id = %placement.placement_id, key, reason, "skipping an event of a corrupt placement");
                }
                Err(err) => {
                    warn!(placement_id = %placement.placement_id, error = %ErrorChain(&err), "placement not settled; the invocation will be retried");
                    retry.get_or_insert(err);
                }
            }
        }
        match retry {
            Some(err) => Err(err.into()),
            None => Ok(()),
        }
    }

    async fn settle(&self, event: &PlacementEvent) -> Result<(), StoreError> {
        let placement_id = event.placement_id.as_str();
        let status = event.status();
        let (game_session, placed): (Option<&PlacedGameSession>, Vec<(PlayerId, Option<String>)>) =
            match &event.outcome {
                PlacementOutcome::Fulfilled {
                    game_session,
                    placed,
                } => (
                    Some(game_session),
                    placed
                        .iter()
                        .map(|(player, session)| (player.clone(), Some(session.clone())))
                        .collect(),
                ),
                PlacementOutcome::Ended(_) => match self.placements.get(placement_id).await? {
                    Some(record) if !record.status.is_final() => (
                        None,
                        record.player_ids.into_iter().map(|p| (p, None)).collect(),
                    ),
                    Some(record) => {
                        info!(placement_id, status = %status, settled = %record.status, "placement already settled; duplicate or out-of-order event ignored");
                        return Ok(());
                    }
                    None => {
                        info!(placement_id, status = %status, "no such placement recorded; ignored");
                        return Ok(());
                    }
                },
            };
        let now = self.clock.now_millis();
        let expire_at_secs = now / 1000 + self.config.message_ttl.as_secs() as i64;
        let players = placed
            .into_iter()
            .map(|(player_id, player_session_id)| {
                let seat = game_session
                    .zip(player_session_id.as_ref())
                    .map(|(g, s)| g.seat(s));
                let payload = ServerFrame::Placement {
                    placement_id: placement_id.to_owned(),
                    status,
                    game_session: seat,
                }
                .to_json();
                SettledPlayer {
                    message: NewMessage {
                        message_id: MessageId::deterministic(&[
                            "placement",
                            placement_id,
                            player_id.as_str(),
                        ]),
                        recipient_id: player_id.clone(),
                        sender_id: SYSTEM_SENDER.to_owned(),
                        kind: MessageKind::Placement,
                        payload,
                        created_at: now,
                        expire_at_secs,
                    },
                    player_id,
                    player_session_id,
                }
            })
            .collect::<Vec<_>>();
        let recipients = players.len();
        let settlement = Settlement {
            placement_id: placement_id.to_owned(),
            status,
            game_session: game_session.cloned(),
            players,
            at: now,
        };
        if self.outcomes.settle(&settlement).await? {
            info!(placement_id, status = %status, recipients, "placement settled");
        } else {
            info!(placement_id, status = %status, "placement not pending; duplicate, out-of-order or unknown event ignored");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use async_trait::async_trait;
    use lambda_runtime::Context;
    use serde_json::json;
    use shared::adapters::memory::{
        InMemoryMessageStore, InMemoryPlacementOutcomes, InMemoryPlacementStore,
        InMemoryPlayerStore,
    };
    use shared::domain::ConnectionId;
    use shared::ports::{ManualClock, NewConnection, PlacementRecord, PlayerStore};

    const T0: i64 = 1_795_323_600_000;
    const P_FUL: &str = "4f1c5b2e-7d3a-4b8e-9c61-2a5d8e0f1b37";
    const P_CAN: &str = "9a0b7c64-3e21-4d5f-8a9b-6c7d1e2f3a40";
    const P_TIM: &str = "1d2e3f40-5a6b-4c7d-8e9f-0a1b2c3d4e5f";
    const P_FAI: &str = "b7c8d9e0-f1a2-4b3c-9d4e-5f6a7b8c9d0e";
    const ARN: &str = "arn:aws:gamelift:eu-west-1::gamesession/fleet-2222bbbb-3333-4444-5555-666677778888/gsess-0d1e2f3a-4b5c-4d6e-8f70-1a2b3c4d5e6f";
    const PSESS_ALICE: &str = "psess-5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d";
    const PSESS_BOB: &str = "psess-0f1e2d3c-4b5a-4968-8776-5a4b3c2d1e0f";

    fn sample(name: &str) -> Value {
        let text = match name {
            "fulfilled-sns" => include_str!("../../../events/placement-fulfilled-sns.json"),
            "fulfilled-eventbridge" => {
                include_str!("../../../events/placement-fulfilled-eventbridge.json")
            }
            "cancelled-sns" => include_str!("../../../events/placement-cancelled-sns.json"),
            "cancelled-eventbridge" => {
                include_str!("../../../events/placement-cancelled-eventbridge.json")
            }
            "timed-out-sns" => include_str!("../../../events/placement-timed-out-sns.json"),
            "timed-out-eventbridge" => {
                include_str!("../../../events/placement-timed-out-eventbridge.json")
            }
            "failed-sns" => include_str!("../../../events/placement-failed-sns.json"),
            "failed-eventbridge" => {
                include_str!("../../../events/placement-failed-eventbridge.json")
            }
            "duplicate-sns" => include_str!("../../../events/placement-duplicate-sns.json"),
            "malformed-sns" => include_str!("../../../events/placement-malformed-sns.json"),
            other => panic!("no sample {other}"),
        };
        serde_json::from_str(text).unwrap()
    }

    fn player(name: &str) -> PlayerId {
        PlayerId::parse(name).unwrap()
    }

    struct World {
        players: Arc<InMemoryPlayerStore>,
        placements: Arc<InMemoryPlacementStore>,
        messages: Arc<InMemoryMessageStore>,
        handler: PlacementEventHandler,
    }

    /// Alice and bob online; alice requested each sample placement (the fulfilled one
    /// places her with bob).
    async fn world() -> World {
        let players = Arc::new(InMemoryPlayerStore::new());
        let placements = Arc::new(InMemoryPlacementStore::new());
        let messages = Arc::new(InMemoryMessageStore::new());
        for name in ["alice", "bob"] {
            players
                .connect(&NewConnection {
                    player_id: player(name),
                    connection_id: ConnectionId::parse(format!("c-{name}")).unwrap(),
                    endpoint: "https://x/Development".into(),
                    connected_at: T0,
                    now: T0,
                    heartbeat_deadline: T0 + 90_000,
                    sweep_shard: 0,
                    expire_at_secs: 0,
                })
                .await
                .unwrap();
        }
        for id in [P_FUL, P_CAN, P_TIM, P_FAI] {
            placements
                .create(&PlacementRecord::pending(
                    id,
                    player("alice"),
                    "eu-queue",
                    T0,
                ))
                .await
                .unwrap();
        }
        let outcomes = Arc::new(InMemoryPlacementOutcomes::new(
            placements.clone(),
            players.clone(),
            messages.clone(),
        ));
        let handler = PlacementEventHandler::new(
            Arc::new(Config::for_local("Development")),
            placements.clone(),
            outcomes,
            Arc::new(ManualClock::at(T0 + 10_000)),
        );
        World {
            players,
            placements,
            messages,
            handler,
        }
    }

    impl World {
        async fn begin(&self, placement_id: &str) {
            self.players
                .begin_placement(&player("alice"), placement_id)
                .await
                .unwrap()
                .unwrap();
        }

        async fn run(&self, payload: Value) -> Result<(), lambda_runtime::Error> {
            self.handler
                .handle(LambdaEvent::new(payload, Context::default()))
                .await
        }

        fn frames_to(&self, recipient: &str) -> Vec<Value> {
            self.messages
                .all()
                .into_iter()
                .filter(|m| m.recipient_id.as_str() == recipient)
                .map(|m| serde_json::from_str(&m.payload).unwrap())
                .collect()
        }

        async fn record(&self, name: &str) -> shared::ports::PlayerRecord {
            self.players.get(&player(name)).await.unwrap().unwrap()
        }

        async fn status_of(&self, placement_id: &str) -> PlacementStatus {
            self.placements
                .get(placement_id)
                .await
                .unwrap()
                .unwrap()
                .status
        }
    }

    fn seat(player_session_id: &str) -> Value {
        json!({
            "gameSessionArn": ARN,
            "ipAddress": "52.30.10.20",
            "dnsName": "ec2-52-30-10-20.eu-west-1.compute.amazonaws.com",
            "port": 7777,
            "region": "eu-west-1",
            "playerSessionId": player_session_id
        })
    }

    #[tokio::test]
    async fn given_a_fulfilled_event_in_either_form_then_each_placed_player_gets_their_own_seat() {
        for form in ["fulfilled-sns", "fulfilled-eventbridge"] {
            let w = world().await;
            w.begin(P_FUL).await;
            w.run(sample(form)).await.unwrap();

            for (name, psess) in [("alice", PSESS_ALICE), ("bob", PSESS_BOB)] {
                assert_eq!(
                    w.frames_to(name),
                    vec![
                        json!({"type":"placement","placementId":P_FUL,"status":"FULFILLED",
                                "gameSession": seat(psess)})
                    ],
                    "{form}: {name}"
                );
                let record = w.record(name).await;
                assert_eq!(record.pending_placement_id, None, "{form}: {name}");
                assert_eq!(
                    serde_json::to_value(record.game_session.unwrap()).unwrap(),
                    seat(psess),
                    "{form}: {name}"
                );
            }
            let stored = w.messages.all();
            let alice = stored
                .iter()
                .find(|m| m.recipient_id.as_str() == "alice")
                .unwrap();
            assert_eq!(
                alice.message_id,
                MessageId::deterministic(&["placement", P_FUL, "alice"])
            );
            assert_eq!(alice.kind, MessageKind::Placement);
            assert_eq!(alice.sender_id, "system");
            assert_eq!(alice.created_at, T0 + 10_000);
            assert_eq!(alice.expire_at_secs, (T0 + 10_000) / 1000 + 86_400);
            let placement = w.placements.get(P_FUL).await.unwrap().unwrap();
            assert_eq!(placement.status, PlacementStatus::Fulfilled);
            assert_eq!(placement.player_sessions.len(), 2);
            assert_eq!(placement.game_session.unwrap().port, 7777);
        }
    }

    #[tokio::test]
    async fn given_an_ended_event_in_either_form_then_the_requester_is_told_and_no_longer_pending()
    {
        for (form, id, status) in [
            ("cancelled-sns", P_CAN, "CANCELLED"),
            ("cancelled-eventbridge", P_CAN, "CANCELLED"),
            ("timed-out-sns", P_TIM, "TIMED_OUT"),
            ("timed-out-eventbridge", P_TIM, "TIMED_OUT"),
            ("failed-sns", P_FAI, "FAILED"),
            ("failed-eventbridge", P_FAI, "FAILED"),
        ] {
            let w = world().await;
            w.begin(id).await;
            w.run(sample(form)).await.unwrap();
            assert_eq!(
                w.frames_to("alice"),
                vec![json!({"type":"placement","placementId":id,"status":status})],
                "{form}"
            );
            assert!(w.frames_to("bob").is_empty(), "{form}");
            let alice = w.record("alice").await;
            assert_eq!(alice.pending_placement_id, None, "{form}");
            assert_eq!(alice.game_session, None, "{form}");
            assert_eq!(w.status_of(id).await.as_str(), status, "{form}");
        }
    }

    #[tokio::test]
    async fn given_a_duplicate_event_then_nothing_is_delivered_twice() {
        let w = world().await;
        w.begin(P_FUL).await;
        w.run(sample("duplicate-sns")).await.unwrap();
        assert_eq!(w.frames_to("alice").len(), 1);
        assert_eq!(w.frames_to("bob").len(), 1);

        // SNS delivers it once more, in either form: nothing new is appended.
        w.run(sample("fulfilled-sns")).await.unwrap();
        w.run(sample("fulfilled-eventbridge")).await.unwrap();
        assert_eq!(w.messages.all().len(), 2);
    }

    #[tokio::test]
    async fn given_an_out_of_order_event_then_the_first_final_status_stands() {
        let w = world().await;
        w.begin(P_FUL).await;
        w.run(sample("fulfilled-eventbridge")).await.unwrap();
        let mut late = sample("cancelled-eventbridge");
        late["detail"]["placementId"] = json!(P_FUL);
        w.run(late).await.unwrap();
        assert_eq!(w.status_of(P_FUL).await, PlacementStatus::Fulfilled);
        assert_eq!(w.frames_to("alice").len(), 1);
        assert!(w.record("alice").await.game_session.is_some());

        // And the other way round: a fulfilled event after the cancellation.
        let w = world().await;
        w.begin(P_CAN).await;
        w.run(sample("cancelled-eventbridge")).await.unwrap();
        let mut late = sample("fulfilled-eventbridge");
        late["detail"]["placementId"] = json!(P_CAN);
        w.run(late).await.unwrap();
        assert_eq!(w.status_of(P_CAN).await, PlacementStatus::Cancelled);
        assert_eq!(w.record("alice").await.game_session, None);
        assert!(w.frames_to("bob").is_empty());
    }

    #[tokio::test]
    async fn given_malformed_records_then_each_is_skipped_and_the_good_one_still_settles() {
        let w = world().await;
        w.begin(P_TIM).await;
        w.run(sample("malformed-sns")).await.unwrap();
        assert_eq!(
            w.frames_to("alice"),
            vec![json!({"type":"placement","placementId":P_TIM,"status":"TIMED_OUT"})]
        );
        assert_eq!(w.status_of(P_FUL).await, PlacementStatus::Pending);
        assert_eq!(w.status_of(P_CAN).await, PlacementStatus::Pending);
        for payload in [
            json!({}),
            json!([1, 2]),
            json!("text"),
            json!({"Records": 7}),
        ] {
            w.run(payload.clone()).await.unwrap();
        }
        assert_eq!(w.messages.all().len(), 1);
    }

    #[tokio::test]
    async fn given_an_event_for_a_placement_not_recorded_here_then_nothing_is_written() {
        let w = world().await;
        for form in ["cancelled-eventbridge", "fulfilled-eventbridge"] {
            let mut foreign = sample(form);
            foreign["detail"]["placementId"] = json!("someone-elses-placement");
            w.run(foreign).await.unwrap();
        }
        assert!(w.messages.all().is_empty());
        assert_eq!(w.record("bob").await.game_session, None);
    }

    /// Settlements that fail as DynamoDB does when throttled.
    struct ThrottledOutcomes;

    #[async_trait]
    impl PlacementOutcomes for ThrottledOutcomes {
        async fn settle(&self, _: &Settlement) -> Result<bool, StoreError> {
            Err(StoreError::Unavailable("TransactionConflict".into()))
        }
    }

    #[tokio::test]
    async fn given_a_transient_store_failure_then_err_so_lambda_retries() {
        let w = world().await;
        let handler = PlacementEventHandler::new(
            Arc::new(Config::for_local("Development")),
            w.placements.clone(),
            Arc::new(ThrottledOutcomes),
            Arc::new(ManualClock::at(T0)),
        );
        let result = handler
            .handle(LambdaEvent::new(
                sample("fulfilled-sns"),
                Context::default(),
            ))
            .await;
        assert!(result.is_err());
    }

    #[test]
    fn a_fulfilled_event_takes_a_numeric_port_and_finds_the_region_in_the_arn() {
        let mut event = sample("fulfilled-eventbridge");
        event["detail"]["port"] = json!(7778);
        event["detail"]
            .as_object_mut()
            .unwrap()
            .remove("gameSessionRegion");
        event["detail"]["placedPlayerSessions"]
            .as_array_mut()
            .unwrap()
            .push(json!({"playerId": "not a player id", "playerSessionId": "psess-x"}));
        let parsed = PlacementEvent::parse(event).unwrap();
        let PlacementOutcome::Fulfilled {
            game_session,
            placed,
        } = parsed.outcome
        else {
            panic!("fulfilled");
        };
        assert_eq!(game_session.port, 7778);
        assert_eq!(game_session.region, "eu-west-1");
        assert_eq!(placed.len(), 2, "the invalid player id is skipped");
    }

    #[test]
    fn events_that_are_not_gamelift_placements_are_refused_with_the_reason() {
        let mut other_source = sample("cancelled-eventbridge");
        other_source["source"] = json!("aws.ec2");
        let mut unknown_type = sample("cancelled-eventbridge");
        unknown_type["detail"]["type"] = json!("PlacementExploded");
        let mut port_zero = sample("fulfilled-eventbridge");
        port_zero["detail"]["port"] = json!("0");
        let mut no_arn = sample("fulfilled-eventbridge");
        no_arn["detail"]
            .as_object_mut()
            .unwrap()
            .remove("gameSessionArn");
        for (event, says) in [
            (other_source, "not a GameLift queue placement event"),
            (unknown_type, "PlacementExploded"),
            (port_zero, "is not a port number"),
            (no_arn, "gameSessionArn is missing"),
        ] {
            let err = PlacementEvent::parse(event).unwrap_err();
            assert!(err.to_string().contains(says), "{err}");
        }
    }
}
