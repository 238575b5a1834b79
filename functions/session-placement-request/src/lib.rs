//! `sessionPlacementRequest`: asks a GameLift queue for a game session for the caller.
//! The result is pushed later, as a `placement` message (`on-placement-event`); this
//! route only acks `{placementId, status: "PENDING"}`. No polling anywhere.
//!
//! Round trips on the normal path: 2 DynamoDB writes + 1 GameLift call, in this order:
//! 1. Players: `pendingPlacementId` set only if none is pending (one conditional
//!    UpdateItem; a conflict names the pending placement from the same write);
//! 2. Placements: the placement recorded PENDING (one PutItem). It is recorded before
//!    GameLift is asked because the result event may arrive before this handler
//!    returns, and settles only a PENDING record;
//! 3. GameLift: StartGameSessionPlacement.
//!
//! A refusal by GameLift marks the placement FAILED, then clears the player's pending
//! placement (in that order, so a late event for it can never clear a newer one), and
//! replies with the refusal's error code: nothing stays pending. If a fault stops that
//! clean-up half way, the next request finds the pending placement ended (or never
//! recorded) and clears it: a fault never blocks a player for good.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Map, Value, json};
use shared::config::Config;
use shared::domain::{PlayerId, new_placement_id, placement_requested_at};
use shared::ports::{
    Clock, GameLift, GameLiftError, PlacementRecord, PlacementRequest, PlacementStore, PlayerStore,
    StoreError,
};
use shared::protocol::{ErrorCode, json_kind};
use shared::telemetry::ErrorChain;
use shared::websocket::{Request, RouteError, RouteEvent, RouteHandler, RouteResult};
use tracing::{error, info, warn};

/// At most this many regions in `latencies`.
pub const MAX_LATENCY_REGIONS: usize = 20;
/// The largest latency a client may report, in milliseconds.
pub const MAX_LATENCY_MS: f64 = 10_000.0;
/// `playerData` is handed to the game server; GameLift takes at most 2048 characters.
pub const MAX_PLAYER_DATA_CHARS: usize = 2048;
/// The longest region name accepted as a `latencies` key.
pub const MAX_REGION_LEN: usize = 64;
/// A pending placement with no record this long after it was requested was abandoned
/// by a request that died between its two writes (API Gateway gives a route 29 s).
pub const UNRECORDED_PLACEMENT_STALE_AFTER_MS: i64 = 60_000;

/// A validated request body.
#[derive(Clone, Debug, PartialEq)]
pub struct PlacementBody {
    /// Region → milliseconds, rounded to whole milliseconds, in region order.
    pub latencies: Vec<(String, u32)>,
    pub player_data: Option<String>,
    /// One of the configured queues.
    pub queue: String,
}

impl PlacementBody {
    /// Reads the body, naming the field at fault; unknown fields are ignored.
    pub fn parse(body: &Map<String, Value>, queues: &[String]) -> Result<Self, RouteError> {
        Ok(Self {
            latencies: latencies(body.get("latencies"))?,
            player_data: player_data(body.get("playerData"))?,
            queue: queue(body.get("queue"), queues)?,
        })
    }
}

fn latencies(value: Option<&Value>) -> Result<Vec<(String, u32)>, RouteError> {
    let entries = match value {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Object(entries)) => entries,
        Some(other) => {
            return Err(RouteError::bad_request(format!(
                "`latencies` must be an object of region → milliseconds, got {}",
                json_kind(other)
            )));
        }
    };
    if entries.len() > MAX_LATENCY_REGIONS {
        return Err(RouteError::bad_request(format!(
            "`latencies` names {} regions; the maximum is {MAX_LATENCY_REGIONS}",
            entries.len()
        )));
    }
    entries
        .iter()
        .map(|(region, millis)| {
            let valid_region = (1..=MAX_REGION_LEN).contains(&region.len())
                && region
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
            if !valid_region {
                return Err(RouteError::bad_request(format!(
                    "`latencies` key {region:?} is not a region name (1–{MAX_REGION_LEN} of a-z 0-9 -)"
                )));
            }
            let field = format!("`latencies.{region}`");
            let Some(ms) = millis.as_f64() else {
                return Err(RouteError::bad_request(format!(
                    "{field} must be a number of milliseconds, got {}",
                    json_kind(millis)
                )));
            };
            if !(0.0..=MAX_LATENCY_MS).contains(&ms) {
                return Err(RouteError::bad_request(format!(
                    "{field} is {ms}; it must be from 0 to {MAX_LATENCY_MS} milliseconds"
                )));
            }
            // Within 0..=10000, so the rounded value fits.
            Ok((region.clone(), ms.round() as u32))
        })
        .collect::<Result<Vec<_>, _>>()
        .map(|mut latencies| {
            // In region order whatever order the JSON map keeps.
            latencies.sort();
            latencies
        })
}

fn player_data(value: Option<&Value>) -> Result<Option<String>, RouteError> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(data)) if data.is_empty() => Ok(None),
        Some(Value::String(data)) => {
            let chars = data.chars().count();
            if chars > MAX_PLAYER_DATA_CHARS {
                return Err(RouteError::bad_request(format!(
                    "`playerData` is {chars} characters; the maximum is {MAX_PLAYER_DATA_CHARS}"
                )));
            }
            Ok(Some(data.clone()))
        }
        Some(other) => Err(RouteError::bad_request(format!(
            "`playerData` must be a string, got {}",
            json_kind(other)
        ))),
    }
}

fn queue(value: Option<&Value>, queues: &[String]) -> Result<String, RouteError> {
    let known = || queues.join(", ");
    match value {
        None | Some(Value::Null) => queues.first().cloned().ok_or_else(|| {
            RouteError::new(ErrorCode::Internal, "no game session queue is configured")
        }),
        Some(Value::String(name)) if queues.contains(name) => Ok(name.clone()),
        Some(Value::String(name)) => Err(RouteError::bad_request(format!(
            "`queue` {name:?} is not a known queue; use one of: {}",
            known()
        ))),
        Some(other) => Err(RouteError::bad_request(format!(
            "`queue` must be a string, one of: {}; got {}",
            known(),
            json_kind(other)
        ))),
    }
}

pub struct SessionPlacementRequestHandler {
    config: Arc<Config>,
    players: Arc<dyn PlayerStore>,
    placements: Arc<dyn PlacementStore>,
    gamelift: Arc<dyn GameLift>,
    clock: Arc<dyn Clock>,
}

impl SessionPlacementRequestHandler {
    pub fn new(
        config: Arc<Config>,
        players: Arc<dyn PlayerStore>,
        placements: Arc<dyn PlacementStore>,
        gamelift: Arc<dyn GameLift>,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self {
            config,
            players,
            placements,
            gamelift,
            clock,
        }
    }

    async fn place(
        &self,
        player: &PlayerId,
        body: PlacementBody,
        placement_id: &str,
    ) -> Result<(), RouteError> {
        match self.players.begin_placement(player, placement_id).await {
            Ok(Ok(())) => {}
            Ok(Err(pending)) => {
                // Only a placement that is still going blocks a new one: one left behind
                // by a fault is cleared, and the request goes on.
                if !self.clear_if_stale(player, &pending).await? {
                    return Err(conflict(&pending));
                }
                match self.players.begin_placement(player, placement_id).await {
                    Ok(Ok(())) => {}
                    Ok(Err(pending)) => return Err(conflict(&pending)),
                    Err(err) => return Err(store_refusal(err)),
                }
            }
            Err(err) => return Err(store_refusal(err)),
        }
        let now = self.clock.now_millis();
        let record = PlacementRecord::pending(placement_id, player.clone(), &body.queue, now);
        if let Err(err) = self.placements.create(&record).await {
            self.abandon(player, placement_id).await;
            return Err(store_refusal(err));
        }
        let request = PlacementRequest {
            placement_id: placement_id.to_owned(),
            queue: body.queue,
            max_players: self.config.max_players_per_session,
            player_id: player.clone(),
            player_data: body.player_data,
            latencies: body.latencies,
        };
        match self.gamelift.start_placement(&request).await {
            Ok(()) => Ok(()),
            Err(refusal) => {
                self.fail(player, placement_id, &refusal).await;
                Err(gamelift_refusal(player, placement_id, &refusal))
            }
        }
    }

    /// Whether `pending`, the player's pending placement, was left behind by a fault
    /// (and is now cleared): its record already ended (GameLift refused it and clearing
    /// the player failed), or it was never recorded although it was requested long ago
    /// (the request died between its two writes). A PENDING record is a placement still
    /// going: its event settles it. Costs one read, on the conflict path only.
    async fn clear_if_stale(&self, player: &PlayerId, pending: &str) -> Result<bool, RouteError> {
        let record = match self.placements.get(pending).await {
            Ok(record) => record,
            Err(StoreError::Unavailable(source)) => {
                warn!(player_id = %player, placement_id = pending, error = %ErrorChain(source.as_ref()), "cannot check the pending placement; reporting the conflict");
                return Ok(false);
            }
            Err(fault) => return Err(store_refusal(fault)),
        };
        let stale = match &record {
            Some(record) => record.status.is_final(),
            None => placement_requested_at(pending).is_some_and(|requested| {
                self.clock.now_millis() - requested > UNRECORDED_PLACEMENT_STALE_AFTER_MS
            }),
        };
        if !stale {
            return Ok(false);
        }
        let status = record.map_or("never recorded", |r| r.status.as_str());
        match self.players.abandon_placement(player, pending).await {
            Ok(()) => {
                warn!(player_id = %player, placement_id = pending, status, "cleared a pending placement left behind by a fault");
                Ok(true)
            }
            Err(err) => {
                warn!(player_id = %player, placement_id = pending, error = %err, "could not clear a stale pending placement");
                Ok(false)
            }
        }
    }

    /// GameLift refused: no event will settle the placement. FAILED first, so that a
    /// late event (GameLift did start it after all) can no longer settle it and clear a
    /// newer pending placement; then the player's pending placement is cleared.
    ///
    /// A failure that is not an answer (a timeout, a 5xx, an unexpected error) may hide
    /// a placement GameLift did start: it is stopped, best effort, so that no game
    /// session is created for a player who was told nothing was placed. A throttle or a
    /// refused connection did nothing: no extra call then (least of all under throttling).
    async fn fail(&self, player: &PlayerId, placement_id: &str, refusal: &GameLiftError) {
        let now = self.clock.now_millis();
        if let Err(err) = self.placements.mark_failed(placement_id, now).await {
            warn!(player_id = %player, placement_id, error = %err, "could not mark a refused placement FAILED");
        }
        self.abandon(player, placement_id).await;
        if matches!(
            refusal,
            GameLiftError::OutcomeUnknown(_) | GameLiftError::Other(_)
        ) {
            match self.gamelift.stop_placement(placement_id).await {
                Ok(()) => {
                    warn!(player_id = %player, placement_id, "GameLift had started the placement after all; stopped it");
                }
                // NotFound: it was never started, the usual case.
                Err(GameLiftError::NotFound { .. } | GameLiftError::InvalidRequest { .. }) => {}
                Err(err) => {
                    warn!(player_id = %player, placement_id, error = %err, "could not make sure the failed placement is stopped");
                }
            }
        }
    }

    async fn abandon(&self, player: &PlayerId, placement_id: &str) {
        if let Err(err) = self.players.abandon_placement(player, placement_id).await {
            error!(player_id = %player, placement_id, error = %err, "could not clear the pending placement; the player cannot place again until it is cleared");
        }
    }
}

fn store_refusal(err: StoreError) -> RouteError {
    RouteError::from_store(
        err,
        "the placement could not be recorded; nothing was placed; retry",
    )
}

/// A `conflict` that also names the pending placement as `placementId`.
fn conflict(pending: &str) -> RouteError {
    info!(placement_id = %pending, "a placement is already pending");
    RouteError::new(
        ErrorCode::Conflict,
        format!("placement {pending} is already pending: wait for its result or cancel it"),
    )
    .with_detail("placementId", pending)
}

fn gamelift_refusal(player: &PlayerId, placement_id: &str, refusal: &GameLiftError) -> RouteError {
    let code = refusal.code();
    let message = match refusal {
        GameLiftError::Unavailable(source) | GameLiftError::OutcomeUnknown(source) => {
            warn!(player_id = %player, placement_id, error = %source, "GameLift unavailable; placement abandoned");
            "GameLift is unavailable; nothing was placed; retry".to_owned()
        }
        GameLiftError::Other(source) => {
            error!(player_id = %player, placement_id, error = %source, "StartGameSessionPlacement failed");
            "the placement could not be started".to_owned()
        }
        refusal => {
            warn!(player_id = %player, placement_id, error = %refusal, "GameLift refused the placement");
            refusal.to_string()
        }
    };
    RouteError::new(code, message)
}

#[async_trait]
impl RouteHandler for SessionPlacementRequestHandler {
    async fn handle(&self, event: RouteEvent) -> RouteResult {
        let request = match Request::open(&event.payload)? {
            Ok(request) => request,
            Err(reply) => return Ok(reply),
        };
        let player = &request.caller.player_id;
        let body = match PlacementBody::parse(&request.frame.body, &self.config.game_session_queues)
        {
            Ok(body) => body,
            Err(refusal) => return Ok(request.refuse(refusal)),
        };
        let placement_id = new_placement_id(self.clock.now_millis());
        let queue = body.queue.clone();
        let result = self.place(player, body, &placement_id).await.map(|()| {
            info!(player_id = %player, placement_id, queue, "placement requested");
            json!({"placementId": placement_id, "status": "PENDING"})
        });
        Ok(request.respond(result))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shared::adapters::memory::{InMemoryPlacementStore, InMemoryPlayerStore};
    use shared::domain::{ConnectionId, EpochMillis, PlacementStatus};
    use shared::ports::{ManualClock, NewConnection};
    use shared::testing::events::{parse_event, reply_frame, route_event};
    use shared::testing::fake_gamelift::FakeGameLift;

    const T0: i64 = 1_795_323_600_000;

    struct World {
        players: Arc<InMemoryPlayerStore>,
        placements: Arc<InMemoryPlacementStore>,
        gamelift: Arc<FakeGameLift>,
        handler: SessionPlacementRequestHandler,
    }

    fn config() -> Config {
        let mut config = Config::for_local("Development");
        config.game_session_queues = vec!["eu-queue".into(), "us-queue".into()];
        config
    }

    async fn world() -> World {
        world_with(Arc::new(InMemoryPlacementStore::new())).await
    }

    async fn world_with(placements: Arc<InMemoryPlacementStore>) -> World {
        let players = Arc::new(InMemoryPlayerStore::new());
        players
            .connect(&NewConnection {
                player_id: PlayerId::parse("alice").unwrap(),
                connection_id: ConnectionId::parse("c1").unwrap(),
                endpoint: "https://x/Development".into(),
                connected_at: T0,
                now: T0,
                heartbeat_deadline: T0 + 90_000,
                sweep_shard: 0,
                expire_at_secs: 0,
            })
            .await
            .unwrap();
        let gamelift = Arc::new(FakeGameLift::new());
        let handler = SessionPlacementRequestHandler::new(
            Arc::new(config()),
            players.clone(),
            placements.clone(),
            gamelift.clone(),
            Arc::new(ManualClock::at(T0)),
        );
        World {
            players,
            placements,
            gamelift,
            handler,
        }
    }

    async fn request(w: &World, body: Value) -> Value {
        let text = json!({"route": "sessionPlacementRequest", "requestId": "p1", "body": body})
            .to_string();
        let event = route_event("sessionPlacementRequest", "alice", "c1", T0, Some(&text));
        reply_frame(&w.handler.handle(event).await.unwrap())
    }

    async fn pending_of(w: &World) -> Option<String> {
        w.players
            .get(&PlayerId::parse("alice").unwrap())
            .await
            .unwrap()
            .unwrap()
            .pending_placement_id
    }

    #[tokio::test]
    async fn given_a_valid_request_then_ack_pending_with_the_placement_recorded_and_started() {
        let w = world().await;
        let ack = request(
            &w,
            json!({"latencies": {"us-east-1": 40, "eu-west-1": 12.6}, "playerData": "{\"deck\":7}",
                   "queue": "us-queue", "somethingNew": true}),
        )
        .await;
        assert_eq!(ack["type"], "ack");
        assert_eq!(ack["route"], "sessionPlacementRequest");
        assert_eq!(ack["requestId"], "p1");
        assert_eq!(ack["status"], "PENDING");
        let placement_id = ack["placementId"].as_str().unwrap().to_owned();
        assert!(shared::domain::is_placement_id(&placement_id));

        assert_eq!(pending_of(&w).await, Some(placement_id.clone()));
        let [placement] = w.placements.all().try_into().unwrap();
        assert_eq!(
            placement,
            PlacementRecord::pending(
                &placement_id,
                PlayerId::parse("alice").unwrap(),
                "us-queue",
                T0
            )
        );
        assert_eq!(
            w.gamelift.started(),
            vec![PlacementRequest {
                placement_id,
                queue: "us-queue".into(),
                max_players: 8,
                player_id: PlayerId::parse("alice").unwrap(),
                player_data: Some("{\"deck\":7}".into()),
                latencies: vec![("eu-west-1".into(), 13), ("us-east-1".into(), 40)],
            }]
        );
    }

    #[tokio::test]
    async fn given_no_queue_then_the_first_configured_queue_is_used() {
        let w = world().await;
        let ack = request(&w, json!({})).await;
        assert_eq!(ack["status"], "PENDING");
        let started = w.gamelift.started();
        assert_eq!(started[0].queue, "eu-queue");
        assert!(started[0].latencies.is_empty());
        assert_eq!(started[0].player_data, None);
    }

    #[tokio::test]
    async fn given_a_pending_placement_when_requesting_again_then_conflict_carrying_its_id() {
        let w = world().await;
        let first = request(&w, json!({})).await;
        let pending = first["placementId"].as_str().unwrap();
        let second = request(&w, json!({})).await;
        assert_eq!(second["type"], "error");
        assert_eq!(second["code"], "conflict");
        assert_eq!(second["requestId"], "p1");
        assert_eq!(second["placementId"], pending);
        assert!(second["message"].as_str().unwrap().contains(pending));
        assert_eq!(w.gamelift.started().len(), 1, "GameLift is not asked twice");
        assert_eq!(w.placements.all().len(), 1);
        assert_eq!(pending_of(&w).await.as_deref(), Some(pending));

        // The frame's text starts with its type, like every server frame.
        let text = json!({"route": "sessionPlacementRequest", "body": {}}).to_string();
        let event = route_event("sessionPlacementRequest", "alice", "c1", T0, Some(&text));
        let response = w.handler.handle(event).await.unwrap();
        let Some(aws_lambda_events::encodings::Body::Text(raw)) = response.body else {
            panic!("a text reply")
        };
        assert!(raw.starts_with(r#"{"type":"error","route":"#), "{raw}");
    }

    #[tokio::test]
    async fn given_the_storage_is_down_then_an_unavailable_frame_and_nothing_is_placed() {
        let w = world().await;
        let handler = SessionPlacementRequestHandler::new(
            Arc::new(Config::for_local("Development")),
            Arc::new(shared::testing::unavailable::Unavailable),
            Arc::new(shared::testing::unavailable::Unavailable),
            w.gamelift.clone(),
            Arc::new(ManualClock::at(T0)),
        );
        let text = json!({"route": "sessionPlacementRequest", "requestId": "p9"}).to_string();
        let event = route_event("sessionPlacementRequest", "alice", "c1", T0, Some(&text));
        let frame = reply_frame(&handler.handle(event).await.unwrap());
        assert_eq!(frame["code"], "unavailable");
        assert_eq!(frame["route"], "sessionPlacementRequest");
        assert_eq!(frame["requestId"], "p9");
        assert!(w.gamelift.started().is_empty());
    }

    #[tokio::test]
    async fn given_bad_input_then_bad_request_naming_the_field_and_nothing_written_or_placed() {
        let w = world().await;
        let many: Map<String, Value> = (0..21)
            .map(|i| (format!("region-{i}"), json!(10)))
            .collect();
        for (body, says) in [
            (
                json!({"latencies": [1, 2]}),
                "`latencies` must be an object",
            ),
            (
                json!({"latencies": "fast"}),
                "`latencies` must be an object",
            ),
            (
                json!({"latencies": {"us-east-1": "10"}}),
                "`latencies.us-east-1` must be a number",
            ),
            (
                json!({"latencies": {"us-east-1": null}}),
                "`latencies.us-east-1` must be a number",
            ),
            (
                json!({"latencies": {"us-east-1": -1}}),
                "`latencies.us-east-1` is -1",
            ),
            (
                json!({"latencies": {"us-east-1": 10000.5}}),
                "`latencies.us-east-1` is 10000.5",
            ),
            (
                json!({"latencies": {"US East": 10}}),
                "`latencies` key \"US East\"",
            ),
            (json!({"latencies": many}), "`latencies` names 21 regions"),
            (
                json!({"queue": "mystery-queue"}),
                "`queue` \"mystery-queue\" is not a known queue",
            ),
            (json!({"queue": 3}), "`queue` must be a string"),
            (
                json!({"playerData": "x".repeat(2049)}),
                "`playerData` is 2049 characters",
            ),
            (
                json!({"playerData": {"deck": 7}}),
                "`playerData` must be a string",
            ),
        ] {
            let frame = request(&w, body.clone()).await;
            assert_eq!(frame["code"], "bad_request", "{body}");
            assert!(
                frame["message"].as_str().unwrap().contains(says),
                "{body}: {frame}"
            );
        }
        assert!(w.gamelift.calls().is_empty());
        assert!(w.placements.all().is_empty());
        assert_eq!(pending_of(&w).await, None);
    }

    #[tokio::test]
    async fn given_values_at_the_limits_then_accepted() {
        let w = world().await;
        let twenty: Map<String, Value> = (0..20)
            .map(|i| (format!("region-{i}"), json!(10_000)))
            .collect();
        let ack = request(
            &w,
            json!({"latencies": twenty, "playerData": "é".repeat(2048)}),
        )
        .await;
        assert_eq!(ack["status"], "PENDING", "{ack}");
        let started = &w.gamelift.started()[0];
        assert_eq!(started.latencies.len(), 20);
        assert!(started.latencies.iter().all(|(_, ms)| *ms == 10_000));

        let w = world().await;
        let ack = request(&w, json!({"latencies": {"eu-west-1": 0}, "playerData": ""})).await;
        assert_eq!(ack["status"], "PENDING");
        assert_eq!(w.gamelift.started()[0].player_data, None);
    }

    #[tokio::test]
    async fn given_gamelift_refuses_then_its_code_and_no_pending_placement_is_left_behind() {
        for (refusal, code) in [
            (
                GameLiftError::InvalidRequest {
                    message: "bad latencies".into(),
                },
                "bad_request",
            ),
            (
                GameLiftError::NotFound {
                    message: "no such queue".into(),
                },
                "not_found",
            ),
            (
                GameLiftError::Unavailable("throttled".into()),
                "unavailable",
            ),
            (
                GameLiftError::OutcomeUnknown("timed out".into()),
                "unavailable",
            ),
            (GameLiftError::Other("AccessDenied".into()), "internal"),
        ] {
            let w = world().await;
            // An answer (refused) versus a fault that may hide a started placement.
            let ambiguous = matches!(
                refusal,
                GameLiftError::OutcomeUnknown(_) | GameLiftError::Other(_)
            );
            w.gamelift.fail_next_start(refusal);
            let frame = request(&w, json!({})).await;
            assert_eq!(frame["type"], "error");
            assert_eq!(frame["code"], code);
            assert_eq!(pending_of(&w).await, None, "{code}");
            let [placement] = w.placements.all().try_into().unwrap();
            assert_eq!(placement.status, PlacementStatus::Failed, "{code}");
            let expected_stops = if ambiguous {
                vec![placement.placement_id.clone()]
            } else {
                vec![]
            };
            assert_eq!(w.gamelift.stopped(), expected_stops, "{code}");

            // Nothing pending: the next request goes through.
            let ack = request(&w, json!({})).await;
            assert_eq!(ack["status"], "PENDING", "{code}");
        }
    }

    /// Makes `placement_id` alice's pending placement directly in the store.
    async fn left_pending(w: &World, placement_id: &str) {
        let alice = PlayerId::parse("alice").unwrap();
        w.players
            .begin_placement(&alice, placement_id)
            .await
            .unwrap()
            .unwrap();
    }

    #[tokio::test]
    async fn given_a_pending_placement_that_already_ended_when_requesting_then_it_is_cleared_and_the_request_proceeds()
     {
        // GameLift refused "old" and it was marked FAILED, but clearing alice failed.
        let w = world().await;
        let old = new_placement_id(T0 - 5_000);
        left_pending(&w, &old).await;
        let alice = PlayerId::parse("alice").unwrap();
        w.placements
            .create(&PlacementRecord::pending(
                &old,
                alice,
                "eu-queue",
                T0 - 5_000,
            ))
            .await
            .unwrap();
        assert!(w.placements.mark_failed(&old, T0 - 4_000).await.unwrap());

        let ack = request(&w, json!({})).await;
        assert_eq!(ack["status"], "PENDING", "{ack}");
        let placement_id = ack["placementId"].as_str().unwrap();
        assert_ne!(placement_id, old);
        assert_eq!(pending_of(&w).await.as_deref(), Some(placement_id));
        assert_eq!(w.gamelift.started().len(), 1);
    }

    #[tokio::test]
    async fn given_a_pending_placement_never_recorded_then_it_blocks_only_until_it_is_clearly_abandoned()
     {
        // Requested 2 s ago and not recorded yet: maybe being recorded right now.
        let w = world().await;
        let recent = new_placement_id(T0 - 2_000);
        left_pending(&w, &recent).await;
        let frame = request(&w, json!({})).await;
        assert_eq!(frame["code"], "conflict", "{frame}");
        assert_eq!(frame["placementId"], recent.as_str());
        assert!(w.gamelift.calls().is_empty());

        // Requested 2 minutes ago and never recorded: its request died half way.
        let w = world().await;
        let abandoned = new_placement_id(T0 - 120_000);
        left_pending(&w, &abandoned).await;
        let ack = request(&w, json!({})).await;
        assert_eq!(ack["status"], "PENDING", "{ack}");
        assert_ne!(ack["placementId"], abandoned.as_str());
        assert_eq!(w.gamelift.started().len(), 1);
    }

    /// A Placements table that is unavailable for writes.
    struct UnwritablePlacements;

    #[async_trait]
    impl PlacementStore for UnwritablePlacements {
        async fn create(&self, _: &PlacementRecord) -> Result<(), StoreError> {
            Err(StoreError::Unavailable("throttled".into()))
        }
        async fn get(&self, _: &str) -> Result<Option<PlacementRecord>, StoreError> {
            Ok(None)
        }
        async fn mark_failed(&self, _: &str, _: EpochMillis) -> Result<bool, StoreError> {
            Ok(false)
        }
    }

    #[tokio::test]
    async fn given_the_placement_cannot_be_recorded_then_unavailable_and_nothing_pending_or_placed()
    {
        let w = world().await;
        let handler = SessionPlacementRequestHandler::new(
            Arc::new(config()),
            w.players.clone(),
            Arc::new(UnwritablePlacements),
            w.gamelift.clone(),
            Arc::new(ManualClock::at(T0)),
        );
        let text = r#"{"route":"sessionPlacementRequest","body":{}}"#;
        let event = route_event("sessionPlacementRequest", "alice", "c1", T0, Some(text));
        let frame = reply_frame(&handler.handle(event).await.unwrap());
        assert_eq!(frame["code"], "unavailable");
        assert_eq!(pending_of(&w).await, None);
        assert!(w.gamelift.calls().is_empty());
    }

    #[tokio::test]
    async fn the_sample_events_run_through_the_handler() {
        let w = world().await;
        let raw = serde_json::from_str(include_str!(
            "../../../events/session-placement-request.json"
        ))
        .unwrap();
        let ack = reply_frame(&w.handler.handle(parse_event(raw)).await.unwrap());
        assert_eq!(ack["type"], "ack", "{ack}");
        assert_eq!(ack["requestId"], "spr-1");
        assert_eq!(ack["status"], "PENDING");
        let started = &w.gamelift.started()[0];
        assert_eq!(started.queue, "eu-queue");
        assert_eq!(started.latencies.len(), 2);

        let raw = serde_json::from_str(include_str!(
            "../../../events/session-placement-request-bad-latencies.json"
        ))
        .unwrap();
        let w = world().await;
        let frame = reply_frame(&w.handler.handle(parse_event(raw)).await.unwrap());
        assert_eq!(frame["code"], "bad_request");
        assert!(frame["message"].as_str().unwrap().contains("`latencies."));
        assert!(w.gamelift.calls().is_empty());
    }
}
